/* SPDX-License-Identifier: MIT */
/*
 * A kernel's cliff map, as the cliff-aware elastic policy `mpmax-cliff`
 * reads it (doc/elastic.md; `gpumix replay --cliff-map POINTS.csv`, a
 * study's `cliff_map`): from a sweep's points.csv (sweep_points.h), per
 * kernel its time against its resident blocks per SM, and the cliffs:
 * adjacent residencies whose times differ by more than a threshold. A
 * limit of blocks per SM on a cliff's slow side is moved off it
 * (gm_cliff_adjust()).
 *
 * A kernel's curve is its `blocks` axis (the elastic physical grid, the
 * very knob the policies turn), else its `smem` axis (residency limited
 * by padding); at one residency the fastest point counts.
 */
#ifndef GM_CLIFF_MAP_H
#define GM_CLIFF_MAP_H

#include <stddef.h>

/* The default least jump of a cliff: 20%, as gpumix sweep's. */
#define GM_CLIFF_THRESHOLD 0.2

struct gm_cliff_curve {
	char *kernel;		/* mangled, owned */
	int *bps;		/* resident blocks per SM, ascending */
	double *ms;		/* the kernel's time at each */
	size_t nr;
};

struct gm_cliff_map {
	struct gm_cliff_curve *curves;
	size_t nr, alloc;
	double threshold;	/* a cliff's least jump, a fraction */
};

/*
 * Read the cliff map of points file @path (gm_sweep_points_read()'s
 * format and errors) into @m (zeroed first): every program's kernels
 * (a kernel swept in two programs keeps the first's curve). Returns 0,
 * or -1 with a cause naming the file.
 */
int gm_cliff_map_read(struct gm_cliff_map *m, const char *path,
		      double threshold);

/* Add a curve by hand (tests): @n points, in any order. */
void gm_cliff_map_add(struct gm_cliff_map *m, const char *kernel,
		      const int *bps, const double *ms, size_t n);

/* The curve of @kernel, or NULL. */
const struct gm_cliff_curve *gm_cliff_map_find(const struct gm_cliff_map *m,
					       const char *kernel);

/*
 * The limit of blocks per SM to use instead of @limit for curve @c:
 * @limit itself unless it lies on the slow side of a cliff of @c, that
 * is between a cliff's slower point and the next point (the slower
 * point included, the next excluded). Then: the nearest point of @c at
 * or above the cliff's faster point that is at most @fit (the most the
 * kernel can have per SM); @limit when none is. The point moved to is
 * checked again (it may be another cliff's slower point). A curve of
 * fewer than two points, or a NULL @c, moves nothing.
 */
int gm_cliff_adjust(const struct gm_cliff_curve *c, double threshold,
		    int limit, int fit);

void gm_cliff_map_release(struct gm_cliff_map *m);

#endif
