/* SPDX-License-Identifier: MIT */
/*
 * What a kernel holds on the GPU: its resident blocks and their threads,
 * registers and shared memory, from the launch shape in the kernel record
 * and the device limits in the run manifest (common/occupancy.h does the
 * per-SM arithmetic). Used for utilization over time and for the
 * resource table (the paper's Table 2), whose rule it implements:
 *   resident blocks = min(grid blocks, blocks per SM x SMs)
 *   T% = resident blocks x threads per block (rounded up to whole warps)
 *        / (threads per SM x SMs)
 *   R% = resident blocks x registers allocated per block
 *        / (registers per SM x SMs)
 *   S% = resident blocks x (static + dynamic shared memory per block)
 *        / (shared memory per SM x SMs)   [the driver's per-block
 *        reservation is not the kernel's and is not counted]
 *   B% = resident blocks / (blocks per SM x SMs)
 */
#ifndef GM_METRICS_RESOURCE_H
#define GM_METRICS_RESOURCE_H

#include <stdint.h>

#include "occupancy.h"

struct gm_kernel_shape {
	int64_t grid_blocks;		/* gridX * gridY * gridZ */
	int64_t threads_per_block;	/* blockX * blockY * blockZ */
	int64_t regs_per_thread;
	int64_t smem_per_block;		/* static + dynamic bytes */
};

struct gm_residency {
	int64_t blocks, threads, regs, smem;	/* resident, whole GPU */
	int blocks_per_sm;
	unsigned limiting;			/* GM_RES_* bits */
	int fits;				/* 0: not one block fits */
};

/*
 * Resident resources of a kernel of shape @k on @dev. A kernel whose one
 * block does not fit gets fits = 0 and zero residency (the caller counts
 * and reports it).
 */
void gm_residency_compute(const struct gm_device_limits *dev,
			  const struct gm_kernel_shape *k,
			  struct gm_residency *out);

#endif
