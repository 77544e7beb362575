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
 * Device limits for a run: the per-SM limits and SM count from its
 * manifest, the allocation granularities from the built-in table of the
 * closest known architecture (compute capability 2.x: the C2070's;
 * anything else: the H100's, which sm_80 and later share). @name is
 * borrowed and must outlive @out.
 */
void gm_device_limits_for_run(struct gm_device_limits *out, const char *name,
			      const char *cc, int64_t sm_count,
			      int64_t max_threads_per_sm,
			      int64_t max_blocks_per_sm, int64_t regs_per_sm,
			      int64_t smem_per_sm);

/*
 * Resident resources of a kernel of shape @k on @dev. A kernel whose one
 * block does not fit gets fits = 0 and zero residency (the caller counts
 * and reports it).
 */
void gm_residency_compute(const struct gm_device_limits *dev,
			  const struct gm_kernel_shape *k,
			  struct gm_residency *out);

#endif
