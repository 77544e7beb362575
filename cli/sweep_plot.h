/* SPDX-License-Identifier: MIT */
/*
 * The figures of `gpumix sweep --run` (doc/gpumix-sweep.md): time
 * against each axis, DIR/sweep-PROGRAM-AXIS.png, a line per kernel.
 */
#ifndef GM_CLI_SWEEP_PLOT_H
#define GM_CLI_SWEEP_PLOT_H

#include "sweep_points.h"

/*
 * Write DIR/sweep.gp for the points @pts (those of DIR/points.csv) and
 * run gnuplot (gm_gnuplot_program()) on it in @dir, its output in
 * DIR/gnuplot.log. Returns 0, or -1 with a cause (gnuplot failed: see
 * the log).
 */
int gm_sweep_plot(const char *dir, const struct gm_sweep_points *pts);

#endif
