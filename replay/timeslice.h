/* SPDX-License-Identifier: MIT */
/*
 * Kernel timeslicing (paper section 4.4): the offset/limit ranges of
 * logical blocks an elastic kernel is launched with, one after another,
 * so that each range runs for about a target time (1 ms by default),
 * chosen offline from the kernel's measured single-run time.
 *
 * Model: the blocks run in waves of @resident blocks (the physical grid
 * the policy gives, or the device's maximum resident blocks), each wave
 * taking kernel time / number of waves; a range is a whole number of
 * waves, at least one. With @resident 0 the time is taken as
 * proportional to the number of blocks. A kernel that runs in one wave,
 * or not much longer than the target, is not sliced.
 */
#ifndef GM_TIMESLICE_H
#define GM_TIMESLICE_H

#include <stdint.h>

#define GM_TIMESLICE_DEFAULT_MS 1.0

struct gm_timeslice_plan {
	uint32_t blocks;		/* logical blocks of the grid */
	uint32_t per_slice;		/* blocks per range (the last may be short) */
	uint32_t count;			/* number of ranges */
	double slice_ms;		/* expected time of a full range */
};

/*
 * Plan the ranges of a grid of @blocks logical blocks that ran for
 * @kernel_ms alone, with @resident blocks running at once (0: unknown),
 * for ranges of about @slice_ms (<= 0: GM_TIMESLICE_DEFAULT_MS).
 * Returns 0, or -1 with a recorded error for 0 blocks or a time that is
 * not positive.
 */
int gm_timeslice_plan(uint32_t blocks, double kernel_ms, uint32_t resident,
		      double slice_ms, struct gm_timeslice_plan *out);

/* The @i-th range (i < count): *@offset and *@limit for gm_elastic_args. */
void gm_timeslice_range(const struct gm_timeslice_plan *p, uint32_t i,
			uint32_t *offset, uint32_t *limit);

#endif
