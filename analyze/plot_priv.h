/* SPDX-License-Identifier: MIT */
/*
 * Internal to analyze/'s figures: what plot.c shares with the files that
 * draw a family of figures of their own (plot_open_loop.c). Not an API.
 */
#ifndef GM_PLOT_PRIV_H
#define GM_PLOT_PRIV_H

#include "plot.h"
#include "strbuf.h"

struct fig_ctx;

/*
 * Add figure @stem to @c: @data as <stem>.dat, a script of the settings
 * @setup and the plot command @plot drawn to PNG and SVG, @title and
 * @note (or NULL) its caption. 0 or -1 (cause recorded).
 */
int gm_plot_add_figure(struct fig_ctx *c, const char *stem, const char *title,
		       const char *note, const struct strbuf *data,
		       const char *setup, const char *plot);

/* Record why a figure was not drawn: @fmt with @what. */
void gm_plot_skipped(struct fig_ctx *c, const char *fmt, const char *what);

/* Append @s as a single-quoted gnuplot string. */
void gm_plot_gp_str(struct strbuf *sb, const char *s);

/* The open-loop figures (plot_open_loop.c): per point of the sweep the
 * latency CDF per variant, and against load the p99 latency with the
 * batch throughput on a second axis and the SLO attainment. 0 or -1. */
int gm_plot_open_loop(struct fig_ctx *c, const struct gm_analysis *a);

#endif
