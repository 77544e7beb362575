/* SPDX-License-Identifier: MIT */
/*
 * GETPHYGRID and REDUCEBLOCKS, the paper's Algorithm 1: the physical grid
 * (number of blocks) and block size (threads) that keep an elastic
 * kernel within resource limits. Settled readings of the algorithm
 * (PAPER-NOTES items 21-23):
 *   - limits are GPU-wide totals (per-SM policies multiply by the SM
 *     count); "no limit" is the whole GPU (gm_limits_full());
 *   - REDUCEBLOCKS removes ceil(deficit / per-block usage) blocks, so the
 *     limit is met, never overshot;
 *   - when the kernel is thread-elastic, the threads lost by cutting
 *     blocks, (logical - physical blocks) x threads, are spread over the
 *     remaining blocks (ceil), the block is rounded up to whole warps and
 *     capped at the device's and the kernel's maximum threads per block
 *     (and lowered, a warp at a time, until one block fits on an SM), and
 *     the block usage is recomputed for the new size before the
 *     reductions;
 *   - a grid is never cut below one block, even when one block exceeds
 *     the limits (a kernel must run), and never above the logical grid.
 */
#ifndef GM_PHYGRID_H
#define GM_PHYGRID_H

#include <stdint.h>

#include "block_usage.h"

/* Resource limits for one grid, GPU-wide totals. */
struct gm_limits {
	uint64_t blocks;		/* resident blocks */
	uint64_t threads;
	uint64_t registers;
	uint64_t smem;			/* bytes */
};

/* The whole of @dev: SMs x per-SM capacity of each resource. */
void gm_limits_full(const struct gm_device_limits *dev, struct gm_limits *out);

/*
 * REDUCEBLOCKS: @blocks reduced so that blocks x @per_block <= @limit,
 * removing ceil(deficit / per_block) blocks (0 when even one block is
 * over the limit). @per_block 0 leaves @blocks unchanged.
 */
uint64_t gm_reduceblocks(uint64_t blocks, uint64_t limit, uint64_t per_block);

struct gm_phygrid {
	uint32_t blocks;		/* physical grid (1-D) */
	int threads;			/* physical threads per block */
	struct gm_block_usage usage;	/* of one physical block */
	uint64_t max_resident;		/* usage.sm_blocks x SMs */
};

/*
 * GETPHYGRID(@k, @blocks logical blocks, @k->threads_per_block threads,
 * @lim) on @dev. Returns 0 and the physical grid in @out, or -1 with a
 * recorded error when a block of the kernel cannot run on @dev at all or
 * @blocks is 0.
 */
int gm_getphygrid(const struct gm_device_limits *dev,
		  const struct gm_kernel_attrs *k, uint64_t blocks,
		  const struct gm_limits *lim, struct gm_phygrid *out);

#endif
