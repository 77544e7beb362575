/* SPDX-License-Identifier: MIT */
/*
 * Kernel residency (see metrics_resource.h).
 */
#include "metrics_resource.h"

#include <stdlib.h>
#include <string.h>

void gm_residency_compute(const struct gm_device_limits *dev,
			  const struct gm_kernel_shape *k,
			  struct gm_residency *out)
{
	struct gm_kernel_usage u;
	struct gm_occupancy occ;
	int64_t cap;

	memset(out, 0, sizeof(*out));
	if (k->threads_per_block > 0x7fffffff || k->regs_per_thread > 0x7fffffff) {
		out->limiting = GM_RES_THREADS;
		return;
	}
	u.threads_per_block = (int)k->threads_per_block;
	u.regs_per_thread = (int)k->regs_per_thread;
	u.smem_per_block = (size_t)k->smem_per_block;
	if (gm_occupancy_compute(dev, &u, &occ)) {
		out->limiting = occ.limiting;
		return;
	}
	out->fits = 1;
	out->blocks_per_sm = occ.blocks_per_sm;
	out->limiting = occ.limiting;
	cap = (int64_t)occ.blocks_per_sm * dev->sm_count;
	out->blocks = k->grid_blocks < cap ? k->grid_blocks : cap;
	out->threads = out->blocks * occ.threads_alloc;
	out->regs = out->blocks * occ.regs_alloc;
	out->smem = out->blocks * k->smem_per_block;
}
