/* SPDX-License-Identifier: MIT */
/*
 * Resource-specification sweeps (Zorua, [S2]; PAPER-NOTES 2.2, issue 28;
 * `gpumix sweep`, doc/gpumix-sweep.md): the plan of the points a kernel
 * is replayed at along each axis, with the resident blocks per SM and
 * the binding resource the occupancy calculator gives each, and the
 * cliff detector over measured points. Pure arithmetic on
 * common/occupancy.h.
 *
 * Axes:
 *   smem    dynamic shared memory padded by VALUE bytes, the smallest
 *           padding that leaves exactly b blocks per SM, for b = the
 *           kernel's residency down to 1;
 *   regs    registers per thread capped at VALUE (ptxas -maxrregcount),
 *           its own count and the caps below it of GM_SWEEP_REG_CAPS;
 *   blocks  VALUE blocks per SM through the elastic physical grid
 *           (VALUE x N_SM blocks, `gpumix replay --elastic sm=K`), 1 ..
 *           the kernel's residency.
 */
#ifndef GM_SWEEP_H
#define GM_SWEEP_H

#include <stddef.h>
#include <stdio.h>

#include "occupancy.h"

enum gm_sweep_axis {
	GM_SWEEP_SMEM,
	GM_SWEEP_REGS,
	GM_SWEEP_BLOCKS,
	GM_SWEEP_AXES
};

/* "smem", "regs", "blocks"; gm_sweep_axis_parse() gives -1 for others. */
const char *gm_sweep_axis_name(enum gm_sweep_axis a);
int gm_sweep_axis_parse(const char *s, enum gm_sweep_axis *out);

struct gm_sweep_point {
	enum gm_sweep_axis axis;
	long value;		/* bytes, registers or blocks per SM */
	int blocks_per_sm;
	unsigned limiting;	/* GM_RES_* bits (0: the elastic grid) */
};

/*
 * The plan for a kernel of usage @k on @dev: its points on every axis, in
 * axis order then as listed above, into *@out (malloc'd, *@nr of them).
 * Returns 0, or -1 with a cause when one block of @k does not fit.
 */
int gm_sweep_plan(const struct gm_device_limits *dev,
		  const struct gm_kernel_usage *k,
		  struct gm_sweep_point **out, size_t *nr);

/* One measured point: a kernel's time at a value of an axis. */
struct gm_sweep_measure {
	const char *program, *kernel;	/* borrowed */
	enum gm_sweep_axis axis;
	long value;
	double time_ms;
	int blocks_per_sm;
	char *limiting;			/* borrowed: resource names */
};

/* A cliff: adjacent points of one kernel and axis (by value) whose times
 * differ by more than the threshold and whose residency differs. */
struct gm_sweep_cliff {
	size_t from, to;	/* indexes into the measures */
	double jump;		/* (slower - faster) / faster */
};

/*
 * The cliffs among @m[0..@n) (grouped by program, kernel and axis in any
 * order; sorted here by value within each), adjacent points whose times
 * differ by more than @threshold (a fraction: 0.2 is 20%) and whose
 * blocks per SM differ, into *@out (malloc'd, *@nr of them). @m is
 * reordered. Returns 0.
 */
int gm_sweep_cliffs(struct gm_sweep_measure *m, size_t n, double threshold,
		    struct gm_sweep_cliff **out, size_t *nr);

/* The performance range of @m[@from..@to): (worst - best) / best. */
double gm_sweep_range(const struct gm_sweep_measure *m, size_t from,
		      size_t to);

#endif
