/* SPDX-License-Identifier: MIT */
/*
 * SM-stretch curves (`gpumix scale --stretch`, doc/spmd-model.md; Li et
 * al.'s SM time stretch, eq. 11, PAPER-NOTES 2.3): per kernel of a
 * program replayed alone, T(k), the time of one SM round with k blocks
 * resident on every SM, for k = 1 .. the most that fit. The program is
 * replayed once on its elastic modules as captured (`--elastic
 * identity`: each launch's logical grid L and the kernel's time alone)
 * and once per k with `--elastic sm=K` (k * N_SM physical blocks each
 * running L / (k * N_SM) logical blocks one after another). A launch
 * whose physical grid is exactly k * N_SM (not capped by the kernel's
 * resident maximum or its grid) gives T(k) = its time * k * N_SM / L;
 * the kernel's T(k) is the mean over such launches, and TSM_str(k - 1)
 * = T(k) - T(k - 1).
 */
#ifndef GM_STRETCH_CURVE_H
#define GM_STRETCH_CURVE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

struct gm_stretch_point {
	unsigned k;		/* blocks per SM */
	size_t launches;	/* launches with exactly k on every SM */
	double time_ms;		/* the kernel's time per replay at k */
	double round_ms;	/* T(k) */
};

struct gm_stretch_kernel {
	char *program;
	char *kernel;		/* mangled name */
	uint64_t *grids;	/* logical blocks of each launch in one replay */
	size_t nr_grids;
	double alone_ms;	/* time per replay as captured */
	struct gm_stretch_point *pts;	/* by k, ascending */
	size_t nr, alloc;
};

struct gm_stretch {
	struct gm_stretch_kernel *kernels;	/* in the order first seen */
	size_t nr, alloc;
	unsigned sm_count;	/* of the runs, all the same */
};

#define GM_STRETCH_INIT { NULL, 0, 0, 0 }

/*
 * Read the identity run @path of one program alone (`--elastic
 * identity`): each kernel's logical grids in the order of one kept
 * replay and its time per kept replay. Fails, with a cause naming the
 * run, when it cannot be read, did not end ok, has other than one
 * program, no kept replay, or another SM count than runs before.
 */
int gm_stretch_add_identity(struct gm_stretch *s, const char *path);

/*
 * Add the points of run @path, the program of an identity run added
 * before replayed with `--elastic sm=@k`. *@exact, when not NULL, gets
 * the number of its launches that had exactly @k blocks on every SM (0:
 * @k is beyond every kernel's resident maximum or grid). Fails, with a
 * cause, as gm_stretch_add_identity(), and when a kernel launches
 * otherwise than in the identity run (another count per replay).
 */
int gm_stretch_add_run(struct gm_stretch *s, const char *path, unsigned k,
		       size_t *exact);

/* Add one point by hand (tests): kernel @kernel of @program. */
void gm_stretch_add_point(struct gm_stretch *s, const char *program,
			  const char *kernel, unsigned k, size_t launches,
			  double time_ms, double round_ms);

/*
 * Write @csv as "program,kernel,k,launches,time_ms,round_ms,stretch_ms,
 * linear_ms" (T(k), TSM_str(k - 1) = T(k) - T(k - 1) with T(0) = 0, and
 * k T(1), the paper's "increasing without latency hiding" line; points
 * without an exact launch are left out), and @md as one Markdown table
 * per program, a row per kernel, a column per k, each cell T(k) and
 * TSM_str(k - 1) in ms. Either may be NULL.
 */
void gm_stretch_write(const struct gm_stretch *s, FILE *csv, FILE *md);

void gm_stretch_release(struct gm_stretch *s);

#endif
