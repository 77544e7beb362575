/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for analyze/sweep.c: the sweep plan of a kernel on the H100
 * (each shared-memory padding the smallest that leaves exactly b blocks
 * per SM, the register caps, the elastic blocks per SM) and the cliff
 * detector on hand-made measurements: an MST-like cliff (Zorua: residency
 * 2 -> 1 through the register file, time up 50%) and jumps that are not
 * cliffs (no residency change, or below the threshold).
 */
#include <stdlib.h>

#include "analyze/sweep.h"
#include "error.h"
#include "test.h"

static int occ_with(const struct gm_kernel_usage *k, size_t pad)
{
	struct gm_kernel_usage p = *k;
	struct gm_occupancy o;

	p.smem_per_block += pad;
	return gm_occupancy_compute(&gm_device_h100, &p, &o) < 0 ? 0 :
								   o.blocks_per_sm;
}

static void test_plan(void)
{
	struct gm_kernel_usage k = { .threads_per_block = 256,
				     .regs_per_thread = 32,
				     .smem_per_block = 0 };
	struct gm_sweep_point *p;
	size_t n, smem = 0, regs = 0, blocks = 0;
	int want = 8, minimal = 1, exact = 1;

	CHECK_INT(gm_sweep_plan(&gm_device_h100, &k, &p, &n), 0, "plan");
	for (size_t i = 0; i < n; i++) {
		if (p[i].axis == GM_SWEEP_SMEM) {
			smem++;
			exact &= p[i].blocks_per_sm == want &&
				 occ_with(&k, (size_t)p[i].value) == want;
			minimal &= !p[i].value ||
				   occ_with(&k, (size_t)p[i].value - 1) > want;
			want--;
		} else if (p[i].axis == GM_SWEEP_REGS) {
			regs++;
		} else {
			blocks++;
			CHECK_INT(p[i].value, (long)blocks, "blocks: 1, 2, ...");
		}
	}
	CHECK_INT(smem, 8, "smem: a padding for each of 8 .. 1 per SM");
	CHECK(exact, "each padding leaves exactly b per SM");
	CHECK(minimal, "... and is the smallest that does");
	CHECK_INT(p[0].value, 0, "b = 8: no padding (threads and registers "
		  "bind)");
	CHECK_INT(regs, 3, "regs: its 32, then the caps 24 and 16 below it");
	CHECK_INT(blocks, 8, "blocks: 1 .. 8 per SM");
	free(p);

	/* 128 registers per thread at 256 threads: 2 per SM by registers;
	 * a cap of 64 gives 4, of 32 gives 8 (threads) */
	k.regs_per_thread = 128;
	CHECK_INT(gm_sweep_plan(&gm_device_h100, &k, &p, &n), 0, "plan 128");
	for (size_t i = 0; i < n; i++) {
		if (p[i].axis == GM_SWEEP_REGS && p[i].value == 128) {
			CHECK_INT(p[i].blocks_per_sm, 2, "128 regs: 2 per SM");
			CHECK(p[i].limiting & GM_RES_REGISTERS, "  by registers");
		}
		if (p[i].axis == GM_SWEEP_REGS && p[i].value == 64) {
			CHECK_INT(p[i].blocks_per_sm, 4, "cap 64: 4 per SM");
		}
		if (p[i].axis == GM_SWEEP_REGS && p[i].value == 32) {
			CHECK_INT(p[i].blocks_per_sm, 8, "cap 32: 8 per SM");
		}
	}
	free(p);
	k.threads_per_block = 4096;
	CHECK_INT(gm_sweep_plan(&gm_device_h100, &k, &p, &n), -1,
		  "a block that does not fit: error");
	gm_error_clear();
}

static void test_cliffs(void)
{
	/* An MST-like cliff (Zorua: residency 2 -> 1 through the register
	 * file, time up 50%) at a register count of 32 -> 48; a 10% jump
	 * that is no cliff at 20%; and a jump that keeps its residency. */
	struct gm_sweep_measure m[] = {
		{ "mst", "k", GM_SWEEP_REGS, 48, 15.0, 1, "registers" },
		{ "mst", "k", GM_SWEEP_REGS, 32, 10.0, 2, "registers" },
		{ "mst", "k", GM_SWEEP_REGS, 24, 10.5, 3, "registers" },
		{ "a", "k", GM_SWEEP_SMEM, 0, 1.0, 8, "threads" },
		{ "a", "k", GM_SWEEP_SMEM, 100, 1.1, 7, "shared-memory" },
		{ "a", "k", GM_SWEEP_SMEM, 200, 2.0, 7, "shared-memory" },
	};
	struct gm_sweep_cliff *c;
	size_t n;

	CHECK_INT(gm_sweep_cliffs(m, 6, 0.2, &c, &n), 0, "cliffs");
	CHECK_INT(n, 1, "one cliff: MST's");
	if (n == 1) {
		CHECK_INT(m[c[0].from].value, 32, "  from 32 registers");
		CHECK_INT(m[c[0].to].value, 48, "  to 48");
		CHECK_NEAR(c[0].jump, 0.5, 1e-9, "  a jump of 50%");
		CHECK_STR(m[c[0].to].limiting, "registers", "  bound by registers");
	}
	free(c);
	CHECK_INT(gm_sweep_cliffs(m, 6, 0.05, &c, &n), 0, "at 5%");
	CHECK_INT(n, 2, "5%: the 10% jump with a residency change too");
	free(c);
	/* sorted: a's points first */
	CHECK_NEAR(gm_sweep_range(m, 0, 3), 1.0, 1e-9, "a's range: (2 - 1) / 1");
	CHECK_NEAR(gm_sweep_range(m, 3, 6), 0.5, 1e-9, "mst's range: 50%");
}

int main(void)
{
	enum gm_sweep_axis a;

	test_plan();
	test_cliffs();
	CHECK_INT(gm_sweep_axis_parse("regs", &a), 0, "axis regs");
	CHECK_INT(gm_sweep_axis_parse("threads", &a), -1, "no axis threads");
	return test_done();
}
