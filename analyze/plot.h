/* SPDX-License-Identifier: MIT */
/*
 * The report's figures, drawn by gnuplot run as a child process: for each
 * figure a data file (<stem>.dat) and a script (<stem>.gp) that writes
 * <stem>.png (pngcairo, or png where gnuplot lacks cairo) and <stem>.svg.
 * Scripts use names relative to their directory, so `gnuplot <stem>.gp`
 * there redraws one. Figures: STP and ANTT per workload sorted (paper
 * Figs. 10, 11), waiting time (Fig. 9), overlap breakdown (Fig. 8),
 * running kernels (Fig. 12), thread utilization (Fig. 13), the runtime of
 * each instance of one kernel against its start time by category (Fig. 7)
 * and a kernel timeline of a few replays of one run (one lane per program
 * and stream, coloured by program).
 */
#ifndef GM_PLOT_H
#define GM_PLOT_H

#include <stddef.h>

#include "analysis.h"

struct gm_figure {
	char *stem;		/* file stem (owned) */
	char *title;		/* caption (owned) */
	char *note;		/* extra caption line or NULL (owned) */
};

struct gm_figures {
	size_t n;
	struct gm_figure *fig;
	size_t nskipped;
	char **skipped;		/* why a figure was not drawn (owned) */
};

/*
 * The timeline shows GM_PLOT_TIMELINE_REPLAYS replays of each program (see
 * plot.c), at most GM_PLOT_TIMELINE_MAX kernels; Fig. 7 at most
 * GM_PLOT_INSTANCES_MAX instances.
 */
#define GM_PLOT_TIMELINE_REPLAYS 3
#define GM_PLOT_TIMELINE_MAX 5000
#define GM_PLOT_INSTANCES_MAX 20000
/* A run's SM occupancy figure (block probe): at most this many segments
 * (one program's blocks on one SM without a gap), from the window's
 * start. */
#define GM_PLOT_PROBE_MAX 40000

/*
 * Write every figure the analysis has data for into the existing
 * directory @dir, run @gnuplot (a program name or path) once on all the
 * scripts, and check that every PNG and SVG exists and is not empty.
 * With @gnuplot NULL, write the data and scripts only (each script draws
 * its figure when run in @dir).
 * gnuplot's own messages go to @dir/gnuplot.log. Returns 0, or -1 with a
 * cause (gnuplot missing, its exit status and last message, a missing
 * output, a write error). Release @out either way.
 */
int gm_plot_figures(const struct gm_analysis *a, const char *dir,
		    const char *gnuplot, struct gm_figures *out);

/* Free what @f owns and zero it. */
void gm_figures_release(struct gm_figures *f);

#endif
