/* SPDX-License-Identifier: MIT */
/*
 * `gpumix sweep --run` (cli/sweep_run.c, doc/gpumix-sweep.md): each
 * kernel of each bundle replayed alone at the points of its plan.
 */
#ifndef GM_CLI_SWEEP_RUN_H
#define GM_CLI_SWEEP_RUN_H

#include "analyze/sweep.h"

struct gm_sweep_run_opts {
	const char *dir;	/* output directory */
	unsigned replays;	/* gpumix replay --min-replays */
	double watchdog_s;
	double threshold;	/* a cliff's least jump, a fraction */
	int redo;		/* measure the points DIR already holds again */
	int plot;
	unsigned axes;		/* 1 << enum gm_sweep_axis of each axis swept */
	const char **kernels;	/* NULL, or the names a kernel's must contain */
	int nr_kernels;
};

/* Every axis, as gm_sweep_run_opts.axes. */
#define GM_SWEEP_ALL_AXES ((1u << GM_SWEEP_AXES) - 1)

/* Sweep @bundles[0..@n) into @o->dir; prints the cliffs' Markdown.
 * Returns an exit status (GM_EXIT_*), errors reported. */
int gm_sweep_run(const struct gm_sweep_run_opts *o, char **bundles, int n);

#endif
