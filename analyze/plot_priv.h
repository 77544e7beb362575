/* SPDX-License-Identifier: MIT */
/*
 * Internal to analyze/'s figures: the families of figures that plot.c
 * draws from files of their own (plot_open_loop.c). They write their
 * figures through plot_figure.h, as plot.c does. Not an API.
 */
#ifndef GM_PLOT_PRIV_H
#define GM_PLOT_PRIV_H

#include "plot_figure.h"

/* The open-loop figures (plot_open_loop.c): per point of the sweep the
 * latency CDF per variant, and against load the p99 latency with the
 * batch throughput on a second axis and the SLO attainment. 0 or -1. */
int gm_plot_open_loop(struct fig_ctx *c, const struct gm_analysis *a);

#endif
