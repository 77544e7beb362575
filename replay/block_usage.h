/* SPDX-License-Identifier: MIT */
/*
 * BLOCKUSAGE of the paper's Algorithm 1: what one block of a kernel takes
 * from an SM (threads, registers and shared memory as allocated, after
 * the device's allocation granularities) and how many of its blocks fit
 * on one SM, from the kernel's attributes (cuFuncGetAttribute) and the
 * occupancy rules of common/occupancy.h, for any device limits. Also the
 * share of the whole GPU a grid takes (the paper's Table 2). Pure
 * functions, no CUDA calls.
 */
#ifndef GM_BLOCK_USAGE_H
#define GM_BLOCK_USAGE_H

#include <stddef.h>
#include <stdint.h>

#include "occupancy.h"

/* A kernel as the runtime knows it at launch. */
struct gm_kernel_attrs {
	int threads_per_block;		/* logical block, x * y * z */
	int regs_per_thread;		/* CU_FUNC_ATTRIBUTE_NUM_REGS */
	size_t static_smem;		/* CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES */
	size_t dynamic_smem;		/* of the launch */
	int max_threads_per_block;	/* CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, 0: device max */
	int thread_elastic;		/* THREADSPERBLOCKCANCHANGE */
};

struct gm_block_usage {
	int threads;			/* per block, warp granular */
	int registers;			/* per block, as allocated */
	size_t smem;			/* per block, as allocated */
	int sm_blocks;			/* resident blocks per SM */
	unsigned limiting;		/* GM_RES_* that bound sm_blocks */
};

/*
 * Usage of one block of @k with @threads threads per block (pass
 * k->threads_per_block for the logical block) on @dev. Returns 0, or -1
 * with a recorded error when a block of that size cannot run at all
 * (then @out->limiting names the resource).
 */
int gm_block_usage(const struct gm_device_limits *dev,
		   const struct gm_kernel_attrs *k, int threads,
		   struct gm_block_usage *out);

/* gm_block_usage() without recording an error: 0 if a block fits. */
int gm_block_fits(const struct gm_device_limits *dev,
		  const struct gm_kernel_attrs *k, int threads,
		  struct gm_block_usage *out);

/* Share of the GPU used by a grid (percentages, 0-100). */
struct gm_grid_share {
	uint64_t resident;		/* blocks running at once */
	double threads, registers, smem, blocks;
};

/*
 * The share of @dev's total threads, registers, shared memory and block
 * slots that a grid of @blocks blocks with usage @u holds while it runs:
 * min(blocks, sm_blocks * SMs) blocks, each taking @u (Table 2's rule).
 */
void gm_grid_share(const struct gm_device_limits *dev,
		   const struct gm_block_usage *u, uint64_t blocks,
		   struct gm_grid_share *out);

#endif
