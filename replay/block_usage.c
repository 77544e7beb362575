/* SPDX-License-Identifier: MIT */
/*
 * BLOCKUSAGE (see block_usage.h).
 */
#include "block_usage.h"

#include <string.h>

#include "error.h"

int gm_block_fits(const struct gm_device_limits *dev,
		  const struct gm_kernel_attrs *k, int threads,
		  struct gm_block_usage *out)
{
	struct gm_kernel_usage ku = {
		.threads_per_block = threads,
		.regs_per_thread = k->regs_per_thread,
		.smem_per_block = k->static_smem + k->dynamic_smem,
	};
	struct gm_occupancy occ;
	int r = gm_occupancy_compute(dev, &ku, &occ);

	memset(out, 0, sizeof(*out));
	out->threads = occ.threads_alloc;
	out->registers = occ.regs_alloc;
	out->smem = occ.smem_alloc;
	out->sm_blocks = occ.blocks_per_sm;
	out->limiting = occ.limiting;
	if (k->max_threads_per_block > 0 && threads > k->max_threads_per_block) {
		out->sm_blocks = 0;
		out->limiting = GM_RES_THREADS;
		return -1;
	}
	return r < 0 || out->sm_blocks < 1 ? -1 : 0;
}

int gm_block_usage(const struct gm_device_limits *dev,
		   const struct gm_kernel_attrs *k, int threads,
		   struct gm_block_usage *out)
{
	struct gm_kernel_usage ku = {
		.threads_per_block = threads,
		.regs_per_thread = k->regs_per_thread,
		.smem_per_block = k->static_smem + k->dynamic_smem,
	};
	struct gm_occupancy occ;
	char why[64];
	int r = gm_occupancy_compute(dev, &ku, &occ);

	memset(out, 0, sizeof(*out));
	out->threads = occ.threads_alloc;
	out->registers = occ.regs_alloc;
	out->smem = occ.smem_alloc;
	out->sm_blocks = occ.blocks_per_sm;
	out->limiting = occ.limiting;
	if (k->max_threads_per_block > 0 && threads > k->max_threads_per_block) {
		out->sm_blocks = 0;
		out->limiting = GM_RES_THREADS;
		return gm_error("%d threads per block exceed the kernel's maximum of %d",
				threads, k->max_threads_per_block);
	}
	if (r < 0 || out->sm_blocks < 1) {
		return gm_error("a block of %d threads, %d registers per thread and %zu bytes of shared memory cannot run on %s (%s)",
				threads, k->regs_per_thread, ku.smem_per_block,
				dev->name,
				gm_resource_names(occ.limiting, why, sizeof(why)));
	}
	return 0;
}

void gm_grid_share(const struct gm_device_limits *dev,
		   const struct gm_block_usage *u, uint64_t blocks,
		   struct gm_grid_share *out)
{
	uint64_t sms = (uint64_t)dev->sm_count;
	uint64_t max_res = (uint64_t)u->sm_blocks * sms;
	uint64_t n = blocks < max_res ? blocks : max_res;

	out->resident = n;
	out->threads = 100.0 * (double)n * u->threads /
		       ((double)dev->max_threads_per_sm * sms);
	out->registers = 100.0 * (double)n * u->registers /
			 ((double)dev->regs_per_sm * sms);
	out->smem = 100.0 * (double)n * (double)u->smem /
		    ((double)dev->smem_per_sm * sms);
	out->blocks = 100.0 * (double)n / ((double)dev->max_blocks_per_sm * sms);
}
