/* SPDX-License-Identifier: MIT */
/*
 * Internal to analyze/'s figures: writing one figure (its data file and
 * gnuplot script), recording one not drawn, and drawing them all with
 * one gnuplot run (plot_figure.c). The files that decide what a figure
 * plots (plot.c, plot_open_loop.c) call these; these call none of them.
 * Not an API.
 */
#ifndef GM_PLOT_FIGURE_H
#define GM_PLOT_FIGURE_H

#include <stddef.h>

#include "plot.h"
#include "strbuf.h"

/* The figures being written into one directory. Zero it, set @dir and
 * @out; gm_plot_ctx_release() when done. */
struct fig_ctx {
	const char *dir;
	struct gm_figures *out;
	size_t nscripts;
	char **argv_names;	/* script names passed to gnuplot (owned) */
};

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

/*
 * Run @gnuplot (a program name or path) once in c->dir on every script
 * added, its messages into gnuplot.log there, and check that each
 * figure's PNG and SVG exists and is not empty. Nothing to do with
 * @gnuplot NULL or no script. 0 or -1 (cause recorded).
 */
int gm_plot_draw(struct fig_ctx *c, const char *gnuplot);

/* Free the script names @c owns (not c->out). */
void gm_plot_ctx_release(struct fig_ctx *c);

#endif
