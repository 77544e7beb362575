/* SPDX-License-Identifier: MIT */
/*
 * Occupancy arithmetic (see occupancy.h).
 */
#include "occupancy.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const struct gm_device_limits gm_device_h100 = {
	.name = "NVIDIA H100 (sm_90)",
	.sm_count = 132,
	.warp_size = 32,
	.max_threads_per_block = 1024,
	.max_threads_per_sm = 2048,
	.max_blocks_per_sm = 32,
	.regs_per_sm = 65536,
	.regs_per_block = 65536,
	.max_regs_per_thread = 255,
	.reg_alloc_unit = 256,
	.reg_sub_partitions = 4,
	.smem_per_sm = 233472,
	.smem_per_block = 49152,
	.smem_per_block_optin = 232448,
	.smem_alloc_unit = 128,
	.smem_reserved_per_block = 1024,
};

const struct gm_device_limits gm_device_c2070 = {
	.name = "Tesla C2070 (sm_20)",
	.sm_count = 14,
	.warp_size = 32,
	.max_threads_per_block = 1024,
	.max_threads_per_sm = 1536,
	.max_blocks_per_sm = 8,
	.regs_per_sm = 32768,
	.regs_per_block = 32768,
	.max_regs_per_thread = 63,
	.reg_alloc_unit = 64,
	.reg_sub_partitions = 1,
	.smem_per_sm = 49152,
	.smem_per_block = 49152,
	.smem_per_block_optin = 49152,
	.smem_alloc_unit = 128,
	.smem_reserved_per_block = 0,
};

static int div_up(int a, int b)
{
	return (a + b - 1) / b;
}

static size_t round_up_z(size_t a, size_t b)
{
	return b ? (a + b - 1) / b * b : a;
}

int gm_occupancy_compute(const struct gm_device_limits *dev,
			 const struct gm_kernel_usage *k,
			 struct gm_occupancy *out)
{
	int warps = div_up(k->threads_per_block, dev->warp_size);
	int regs_warp = div_up(k->regs_per_thread * dev->warp_size,
			       dev->reg_alloc_unit) * dev->reg_alloc_unit;
	int parts = dev->reg_sub_partitions > 0 ? dev->reg_sub_partitions : 1;

	memset(out, 0, sizeof(*out));
	out->threads_alloc = warps * dev->warp_size;
	out->regs_alloc = regs_warp * warps;
	out->smem_alloc = k->smem_per_block
		? round_up_z(k->smem_per_block + dev->smem_reserved_per_block,
			     dev->smem_alloc_unit)
		: dev->smem_reserved_per_block;

	if (k->threads_per_block < 1 ||
	    k->threads_per_block > dev->max_threads_per_block) {
		out->limiting = GM_RES_THREADS;
		return -1;
	}
	/* The hardware checks registers as if every partition got warps. */
	if (k->regs_per_thread > dev->max_regs_per_thread ||
	    regs_warp * div_up(warps, parts) * parts > dev->regs_per_block) {
		out->limiting = GM_RES_REGISTERS;
		return -1;
	}
	if (k->smem_per_block >
	    dev->smem_per_block_optin) {
		out->limiting = GM_RES_SHARED;
		return -1;
	}

	out->by_threads = dev->max_threads_per_sm / out->threads_alloc;
	out->by_blocks = dev->max_blocks_per_sm;
	if (regs_warp > 0) {
		int warps_per_part = dev->regs_per_sm / parts / regs_warp;
		out->by_registers = warps_per_part * parts / warps;
	} else {
		out->by_registers = GM_OCC_UNLIMITED;
	}
	out->by_shared = out->smem_alloc
		? (int)(dev->smem_per_sm / out->smem_alloc)
		: GM_OCC_UNLIMITED;

	int m = out->by_threads;
	if (out->by_registers < m) {
		m = out->by_registers;
	}
	if (out->by_shared < m) {
		m = out->by_shared;
	}
	if (out->by_blocks < m) {
		m = out->by_blocks;
	}
	out->blocks_per_sm = m;
	if (out->by_threads == m) {
		out->limiting |= GM_RES_THREADS;
	}
	if (out->by_registers == m) {
		out->limiting |= GM_RES_REGISTERS;
	}
	if (out->by_shared == m) {
		out->limiting |= GM_RES_SHARED;
	}
	if (out->by_blocks == m) {
		out->limiting |= GM_RES_BLOCKS;
	}
	return m > 0 ? 0 : -1;
}

const char *gm_resource_names(unsigned mask, char *buf, size_t len)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{ GM_RES_REGISTERS, "registers" },
		{ GM_RES_SHARED, "shared-memory" },
		{ GM_RES_THREADS, "threads" },
		{ GM_RES_BLOCKS, "blocks" },
	};
	size_t used = 0;

	if (len) {
		buf[0] = '\0';
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (!(mask & names[i].bit)) {
			continue;
		}
		int n = snprintf(buf + used, len > used ? len - used : 0, "%s%s",
				 used ? "+" : "", names[i].name);
		if (n > 0) {
			used += (size_t)n;
		}
	}
	if (!used && len) {
		snprintf(buf, len, "none");
	}
	return buf;
}

void gm_device_limits_for_run(struct gm_device_limits *out, const char *name,
			      const char *cc, int64_t sm_count,
			      int64_t max_threads_per_sm,
			      int64_t max_blocks_per_sm, int64_t regs_per_sm,
			      int64_t smem_per_sm)
{
	int major = atoi(cc);

	*out = major == 2 ? gm_device_c2070 : gm_device_h100;
	out->name = name;
	out->sm_count = (int)sm_count;
	out->max_threads_per_sm = (int)max_threads_per_sm;
	out->max_blocks_per_sm = (int)max_blocks_per_sm;
	out->regs_per_sm = (int)regs_per_sm;
	if (out->regs_per_block > out->regs_per_sm) {
		out->regs_per_block = out->regs_per_sm;
	}
	out->smem_per_sm = (size_t)smem_per_sm;
	if (out->smem_per_block_optin > out->smem_per_sm) {
		out->smem_per_block_optin = out->smem_per_sm;
	}
}
