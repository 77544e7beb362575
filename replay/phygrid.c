/* SPDX-License-Identifier: MIT */
/*
 * GETPHYGRID / REDUCEBLOCKS (see phygrid.h).
 */
#include "phygrid.h"

#include <string.h>

#include "error.h"

void gm_limits_full(const struct gm_device_limits *dev, struct gm_limits *out)
{
	uint64_t sms = (uint64_t)dev->sm_count;

	out->blocks = sms * (uint64_t)dev->max_blocks_per_sm;
	out->threads = sms * (uint64_t)dev->max_threads_per_sm;
	out->registers = sms * (uint64_t)dev->regs_per_sm;
	out->smem = sms * (uint64_t)dev->smem_per_sm;
}

uint64_t gm_reduceblocks(uint64_t blocks, uint64_t limit, uint64_t per_block)
{
	if (!per_block) {
		return blocks;
	}
	uint64_t cur = blocks * per_block;
	if (cur <= limit) {
		return blocks;
	}
	uint64_t deficit = cur - limit;
	uint64_t cut = (deficit + per_block - 1) / per_block;
	return cut >= blocks ? 0 : blocks - cut;
}

static uint64_t min3(uint64_t a, uint64_t b, uint64_t c)
{
	uint64_t m = a < b ? a : b;
	return m < c ? m : c;
}

int gm_getphygrid(const struct gm_device_limits *dev,
		  const struct gm_kernel_attrs *k, uint64_t blocks,
		  const struct gm_limits *lim, struct gm_phygrid *out)
{
	struct gm_block_usage u;
	int threads = k->threads_per_block;
	uint64_t b;

	memset(out, 0, sizeof(*out));
	if (!blocks) {
		return gm_error("a grid of 0 blocks");
	}
	if (gm_block_usage(dev, k, threads, &u) < 0) {
		return -1;
	}
	uint64_t max_res = (uint64_t)u.sm_blocks * (uint64_t)dev->sm_count;
	b = min3(blocks, max_res, lim->blocks);
	if (b == 0) {
		b = 1;
	}
	if (k->thread_elastic && b < blocks) {
		int cap = dev->max_threads_per_block;
		if (k->max_threads_per_block > 0 && k->max_threads_per_block < cap) {
			cap = k->max_threads_per_block;
		}
		uint64_t change = (blocks - b) * (uint64_t)threads;
		uint64_t incr = (change + b - 1) / b;
		uint64_t t = (uint64_t)threads + incr;
		uint64_t w = (uint64_t)dev->warp_size;
		t = (t + w - 1) / w * w;
		if (t > (uint64_t)cap) {
			t = (uint64_t)cap;
		}
		/* the largest size, at most t, of which one block fits */
		while ((int)t > threads) {
			struct gm_block_usage nu;
			if (gm_block_fits(dev, k, (int)t, &nu) == 0) {
				u = nu;
				threads = (int)t;
				break;
			}
			t = t > w ? (t - 1) / w * w : t - 1;
		}
		max_res = (uint64_t)u.sm_blocks * (uint64_t)dev->sm_count;
	}
	b = gm_reduceblocks(b, lim->smem, u.smem);
	b = gm_reduceblocks(b, lim->threads, (uint64_t)u.threads);
	b = gm_reduceblocks(b, lim->registers, (uint64_t)u.registers);
	if (b == 0) {
		b = 1;
	}
	if (b > UINT32_MAX) {
		b = UINT32_MAX;
	}
	out->blocks = (uint32_t)b;
	out->threads = threads;
	out->usage = u;
	out->max_resident = max_res;
	return 0;
}
