/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the elastic variant's resource control: BLOCKUSAGE
 * reproduces the paper's Table 2 on the Fermi C2070, GETPHYGRID and
 * REDUCEBLOCKS and each policy on hand-computed cases, and the timeslice
 * planner.
 */
#include <string.h>

#include "error.h"
#include "replay/block_usage.h"
#include "replay/phygrid.h"
#include "replay/policy.h"
#include "replay/timeslice.h"
#include "test.h"

/*
 * Table 2 of the paper: TB and TPB are the paper's; the registers per
 * thread and shared memory per block are not printed there, so they were
 * derived here as the values that make all four percentages come out
 * (each row has at most two candidates, differing by one register).
 */
static const struct t2row {
	const char *kernel;
	unsigned tb;
	int tpb, regs;
	size_t smem;
	int t, r, s, b;		/* the paper's percentages */
} table2[] = {
	{ "BFS_in_GPU", 1, 512, 18, 13824, 2, 2, 2, 1 },
	{ "BFS_multi_blk", 14, 512, 20, 12800, 33, 31, 26, 12 },
	{ "ComputePhiMag", 4, 512, 12, 0, 10, 5, 0, 4 },
	{ "ComputeQ_GPU", 1024, 256, 24, 0, 83, 94, 0, 62 },
	{ "GPU_FFT_Global", 1024, 128, 20, 0, 67, 62, 0, 100 },
	{ "block2D_hybrid", 512, 256, 30, 2048, 67, 94, 17, 50 },
	{ "cuda_cutoff", 121, 128, 24, 4224, 67, 75, 69, 100 },
	{ "gen_hists", 201, 256, 30, 13312, 50, 70, 81, 38 },
	{ "histo_final", 42, 512, 20, 0, 100, 94, 0, 38 },
	{ "histo_intermediates", 65, 498, 16, 0, 100, 75, 0, 38 },
	{ "histo_main", 84, 768, 20, 24576, 100, 94, 100, 25 },
	{ "histo_prescan", 64, 512, 16, 4096, 100, 75, 25, 38 },
	{ "larger_sad_calc_16", 99, 32, 48, 0, 15, 33, 0, 88 },
	{ "larger_sad_calc_8", 99, 128, 24, 0, 59, 66, 0, 88 },
	{ "mb_sad_calc", 1584, 61, 32, 2304, 33, 50, 38, 100 },
	{ "mysgemmNT", 528, 128, 40, 512, 50, 94, 6, 75 },
	{ "performStream", 13000, 100, 36, 0, 58, 98, 0, 88 },
	{ "spmv_jds_texture", 112, 192, 24, 0, 88, 98, 0, 88 },
};

static void test_table2(void)
{
	const struct gm_device_limits *dev = &gm_device_c2070;
	double sum[4] = { 0 };
	size_t n = sizeof(table2) / sizeof(table2[0]);
	char what[160];

	for (size_t i = 0; i < n; i++) {
		const struct t2row *r = &table2[i];
		struct gm_kernel_attrs k = {
			.threads_per_block = r->tpb,
			.regs_per_thread = r->regs,
			.static_smem = r->smem,
		};
		struct gm_block_usage u;
		struct gm_grid_share g;
		if (gm_block_usage(dev, &k, r->tpb, &u) < 0) {
			snprintf(what, sizeof(what), "table 2: %s fits on Fermi", r->kernel);
			CHECK(0, what);
			gm_error_clear();
			continue;
		}
		gm_grid_share(dev, &u, r->tb, &g);
		int ok = fabs(g.threads - r->t) <= 0.5 && fabs(g.registers - r->r) <= 0.5 &&
			 fabs(g.smem - r->s) <= 0.5 && fabs(g.blocks - r->b) <= 0.5;
		snprintf(what, sizeof(what),
			 "table 2: %s T %d%% R %d%% S %d%% B %d%%", r->kernel,
			 r->t, r->r, r->s, r->b);
		CHECK(ok, what);
		if (!ok) {
			printf("#   got T %.2f R %.2f S %.2f B %.2f\n", g.threads,
			       g.registers, g.smem, g.blocks);
		}
		sum[0] += g.threads;
		sum[1] += g.registers;
		sum[2] += g.smem;
		sum[3] += g.blocks;
	}
	CHECK_NEAR(sum[0] / n, 60, 0.5, "table 2: average threads 60%");
	CHECK_NEAR(sum[1] / n, 67, 0.5, "table 2: average registers 67%");
	CHECK_NEAR(sum[2] / n, 20, 0.5, "table 2: average shared memory 20%");
	CHECK_NEAR(sum[3] / n, 57, 0.5, "table 2: average blocks 57%");

	/* the limiting resources the paper names in section 1 */
	struct gm_kernel_attrs k = { .threads_per_block = 128, .regs_per_thread = 16 };
	struct gm_block_usage u;
	CHECK(gm_block_usage(dev, &k, 128, &u) == 0 && u.sm_blocks == 8 &&
	      u.limiting == GM_RES_BLOCKS,
	      "fermi: 16 regs x 128 threads is limited by resident blocks");
	k.threads_per_block = 1536;
	CHECK(gm_block_usage(dev, &k, 1536, &u) < 0 &&
	      strstr(gm_error_message(), "cannot run"), "fermi: 1536 threads per block cannot run");
	gm_error_clear();
	k.threads_per_block = 256;
	k.max_threads_per_block = 128;
	CHECK(gm_block_usage(dev, &k, 256, &u) < 0 &&
	      strstr(gm_error_message(), "kernel's maximum of 128"),
	      "block usage: the kernel's own maximum");
	gm_error_clear();
}

static void test_h100_usage(void)
{
	const struct gm_device_limits *dev = &gm_device_h100;
	struct gm_kernel_attrs k = { .threads_per_block = 256, .regs_per_thread = 32 };
	struct gm_block_usage u;

	CHECK(gm_block_usage(dev, &k, 256, &u) == 0 && u.sm_blocks == 8 &&
	      u.registers == 8192 && u.smem == 1024,
	      "h100: 256 x 32 regs: 8 blocks per SM, 1 KiB reserved shared memory");
	k.static_smem = 48 * 1024;
	CHECK(gm_block_usage(dev, &k, 256, &u) == 0 && u.sm_blocks == 4 &&
	      u.limiting == GM_RES_SHARED, "h100: 48 KiB blocks are limited by shared memory");
}

static void test_reduceblocks(void)
{
	CHECK_INT(gm_reduceblocks(10, 100, 15), 6, "reduceblocks: ceil(50/15) = 4 blocks removed");
	CHECK_INT(gm_reduceblocks(10, 150, 15), 10, "reduceblocks: within the limit");
	CHECK_INT(gm_reduceblocks(10, 149, 15), 9, "reduceblocks: one byte over");
	CHECK_INT(gm_reduceblocks(1, 5, 10), 0, "reduceblocks: one block over the limit");
	CHECK_INT(gm_reduceblocks(7, 0, 0), 7, "reduceblocks: no usage");
}

static void test_getphygrid(void)
{
	const struct gm_device_limits *fermi = &gm_device_c2070;
	struct gm_limits full, lim;
	struct gm_phygrid pg;

	gm_limits_full(fermi, &full);
	CHECK(full.blocks == 112 && full.threads == 21504 && full.registers == 458752 &&
	      full.smem == 688128, "limits: the whole C2070");

	/* ComputeQ_GPU: 5 blocks per SM by registers */
	struct gm_kernel_attrs q = { .threads_per_block = 256, .regs_per_thread = 24 };
	CHECK(gm_getphygrid(fermi, &q, 1024, &full, &pg) == 0 && pg.blocks == 70 &&
	      pg.threads == 256 && pg.max_resident == 70,
	      "getphygrid: no limits: the maximum resident grid, 70 blocks");
	CHECK(gm_getphygrid(fermi, &q, 20, &full, &pg) == 0 && pg.blocks == 20,
	      "getphygrid: never more blocks than the logical grid");

	/* MEDIAN with the paper's median kernel: registers cut it to 60 */
	struct gm_block_need med = { .threads = 224, .registers = 6144, .smem = 256 };
	gm_policy_median(fermi, &med, &lim);
	CHECK(lim.threads == 14 * (1536 - 224) && lim.registers == 14 * (32768 - 6272) &&
	      lim.smem == 14 * (49152 - 256) && lim.blocks == 14 * 7,
	      "median: per-SM room for 224 threads, 6272 allocated registers, 256 B, 1 block");
	CHECK(gm_getphygrid(fermi, &q, 1024, &lim, &pg) == 0 && pg.blocks == 60,
	      "getphygrid: MEDIAN cuts ComputeQ_GPU to 60 blocks");

	/* thread-elastic under EQUAL for two programs: blocks cut, threads grown */
	struct gm_kernel_attrs v = { .threads_per_block = 128, .regs_per_thread = 16,
				     .thread_elastic = 1 };
	gm_policy_equal(fermi, 2, &lim);
	CHECK(lim.blocks == 56 && lim.threads == 10752, "equal: half of the C2070");
	CHECK(gm_getphygrid(fermi, &v, 10000, &lim, &pg) == 0 && pg.threads == 1024 &&
	      pg.blocks == 10 && pg.usage.sm_blocks == 1,
	      "getphygrid: EQUAL: 56 blocks, grown to 1024 threads, then 10 blocks");
	v.max_threads_per_block = 256;
	CHECK(gm_getphygrid(fermi, &v, 10000, &lim, &pg) == 0 && pg.threads == 256 &&
	      pg.blocks == 42, "getphygrid: the kernel's maximum caps the growth");
	v.max_threads_per_block = 0;
	/* registers: 1024 threads x 40 regs do not fit, 25 warps (800) do */
	v.regs_per_thread = 40;
	CHECK(gm_getphygrid(fermi, &v, 10000, &full, &pg) == 0 && pg.threads == 800,
	      "getphygrid: growth stops at the largest block that fits");
	/* block-elastic kernels keep their block */
	struct gm_kernel_attrs b = { .threads_per_block = 128, .regs_per_thread = 16,
				     .static_smem = 4096 };
	CHECK(gm_getphygrid(fermi, &b, 10000, &lim, &pg) == 0 && pg.threads == 128 &&
	      pg.blocks == 56, "getphygrid: block-elastic keeps 128 threads");
	/* a limit smaller than one block still gives one block */
	struct gm_limits tiny = full;
	tiny.threads = 100;
	CHECK(gm_getphygrid(fermi, &b, 10000, &tiny, &pg) == 0 && pg.blocks == 1,
	      "getphygrid: at least one block");
	struct gm_kernel_attrs huge = { .threads_per_block = 1536, .regs_per_thread = 8 };
	CHECK(gm_getphygrid(fermi, &huge, 10, &full, &pg) < 0,
	      "getphygrid: a block that cannot run is an error");
	gm_error_clear();
	CHECK(gm_getphygrid(fermi, &b, 0, &full, &pg) < 0, "getphygrid: an empty grid is an error");
	gm_error_clear();
}

static void test_policies(void)
{
	const struct gm_device_limits *fermi = &gm_device_c2070;
	const struct gm_device_limits *h100 = &gm_device_h100;
	struct gm_limits lim;
	enum gm_policy p;

	CHECK(gm_policy_parse("mpmax", &p) == 0 && p == GM_POLICY_MPMAX &&
	      !strcmp(gm_policy_name(GM_POLICY_QUEUEMOLD), "queuemold"),
	      "policy: names");
	CHECK(gm_policy_parse("none", &p) == 0 && p == GM_POLICY_LEFTOVER,
	      "policy: 'none' is LEFTOVER");
	CHECK(gm_policy_parse("fifo", &p) < 0 && strstr(gm_error_message(), "unknown policy 'fifo'"),
	      "policy: unknown name");
	gm_error_clear();

	/* the median of four kernels: (192 + 256) / 2 = 224 threads */
	static const struct gm_block_need a_k[] = {
		{ 128, 2048, 0 }, { 256, 6144, 512 },
	};
	static const struct gm_block_need b_k[] = {
		{ 192, 4096, 0 }, { 512, 8192, 256 },
	};
	static const struct gm_block_need c_k[] = {
		{ 64, 1024, 16384 },
	};
	struct gm_program_profile progs[] = {
		{ "a", a_k, 2 }, { "b", b_k, 2 }, { "c", c_k, 1 },
	};
	struct gm_block_need med;
	CHECK(gm_median_kernel(progs, 2, &med) == 0 && med.threads == 224 &&
	      med.registers == 5120 && med.smem == 128,
	      "median: 224 threads, 5120 registers, 128 B over four kernels");
	CHECK(gm_median_kernel(progs, 3, &med) == 0 && med.threads == 192 &&
	      med.registers == 4096 && med.smem == 256, "median: odd count");
	CHECK(gm_median_kernel(progs, 0, &med) < 0, "median: no profiles is an error");
	gm_error_clear();

	/* MPMAX for program a: room for b's largest (512 thr, 8192 regs, 256 B) */
	struct gm_block_need l;
	gm_largest_kernel(&progs[1], &l);
	CHECK(l.threads == 512 && l.registers == 8192 && l.smem == 256,
	      "mpmax: the largest kernel of b mixes two kernels");
	CHECK(gm_policy_mpmax(fermi, progs, 2, 0, &lim) == 0 &&
	      lim.threads == 14 * (1536 - 512) && lim.registers == 14 * (32768 - 8192) &&
	      lim.smem == 14 * (49152 - 256) && lim.blocks == 14 * 7,
	      "mpmax: program a keeps room for othersLargest = largest(b)");
	/* with c as well: othersLargest of a = max(largest b, largest c) */
	CHECK(gm_policy_mpmax(fermi, progs, 3, 0, &lim) == 0 &&
	      lim.threads == 14 * (1536 - 512) && lim.smem == 14 * (49152 - 16384),
	      "mpmax: othersLargest takes each resource's maximum");
	CHECK(gm_policy_mpmax(fermi, progs, 3, 2, &lim) == 0 &&
	      lim.threads == 14 * (1536 - 512) && lim.smem == 14 * (49152 - 512),
	      "mpmax: differs per program");
	CHECK(gm_policy_mpmax(fermi, progs, 1, 0, &lim) == 0 && lim.threads == 21504,
	      "mpmax: alone, the whole GPU");
	CHECK(gm_policy_mpmax(fermi, progs, 2, 5, &lim) < 0, "mpmax: bad program index");
	gm_error_clear();

	gm_policy_equal(h100, 2, &lim);
	CHECK(lim.threads == 132 * 2048 / 2 && lim.registers == 132 * 65536 / 2 &&
	      lim.blocks == 132 * 32 / 2 && lim.smem == 132ull * 233472 / 2,
	      "equal: half of every H100 resource");
	gm_policy_equal(h100, 3, &lim);
	CHECK(lim.blocks == 1408, "equal: a third, rounded down");

	/* QUEUEMOLD */
	struct gm_queued_kernel w = {
		.attrs = { .threads_per_block = 256, .regs_per_thread = 16,
			   .static_smem = 16384 },
		.blocks = 1000,
	};
	struct gm_queued_kernel n = {
		.attrs = { .threads_per_block = 128, .regs_per_thread = 16,
			   .static_smem = 24576 },
		.blocks = 28,
	};
	CHECK(gm_policy_queuemold(fermi, &w, NULL, 0, &lim) == 0 && lim.threads == 21504 &&
	      lim.smem == 688128, "queuemold: nothing arrived, no limits");
	CHECK(gm_policy_queuemold(fermi, &w, &n, 0, &lim) == 0 &&
	      lim.smem == 688128 - 28 * 24576 && lim.threads == 512 * 14,
	      "queuemold: shared memory left by the newcomer, 512 threads per SM");
	n.blocks = 2;
	w.blocks = 10;
	CHECK(gm_policy_queuemold(fermi, &w, &n, 0, &lim) == 0 && lim.smem == 688128 &&
	      lim.threads == 21504, "queuemold: small kernels are left alone");
	w.blocks = 1000;
	CHECK(gm_policy_queuemold(fermi, &w, &n, 1024, &lim) == 0 && lim.threads == 21504,
	      "queuemold: the thread cap is a parameter");

	struct gm_policy_input in = { .policy = GM_POLICY_MEDIAN, .dev = fermi };
	CHECK(gm_policy_limits(&in, &lim) < 0, "policy: MEDIAN without a median kernel");
	gm_error_clear();
	in.median = &med;
	CHECK(gm_policy_limits(&in, &lim) == 0, "policy: MEDIAN through the dispatcher");
	in.policy = GM_POLICY_LEFTOVER;
	CHECK(gm_policy_limits(&in, &lim) == 0 && lim.blocks == 112, "policy: LEFTOVER is the GPU");
	in.policy = GM_POLICY_QUEUEMOLD;
	CHECK(gm_policy_limits(&in, &lim) < 0, "policy: QUEUEMOLD without a waiting kernel");
	gm_error_clear();
}

static void test_timeslice(void)
{
	struct gm_timeslice_plan p;
	uint32_t off, lim;

	CHECK(gm_timeslice_plan(13000, 23.69, 0, 1.0, &p) == 0 && p.per_slice == 549 &&
	      p.count == 24, "timeslice: lbm, linear model: 24 ranges of 549 blocks");
	gm_timeslice_range(&p, 23, &off, &lim);
	CHECK(off == 23 * 549 && lim == 13000 - 23 * 549, "timeslice: the last range is short");
	gm_timeslice_range(&p, 24, &off, &lim);
	CHECK(lim == 0, "timeslice: past the end, nothing");
	CHECK(gm_timeslice_plan(13000, 23.69, 98, 1.0, &p) == 0 && p.per_slice == 6 * 98 &&
	      p.count == 23, "timeslice: waves of 98 blocks: 6 waves a range");
	CHECK(gm_timeslice_plan(13000, 23.69, 98, 0.1, &p) == 0 && p.per_slice == 98,
	      "timeslice: at least one wave a range");
	CHECK(gm_timeslice_plan(13000, 23.69, 0, 5.0, &p) == 0 && p.count == 5,
	      "timeslice: configurable length");
	CHECK(gm_timeslice_plan(1024, 1.2, 0, 1.0, &p) == 0 && p.count == 1 &&
	      p.per_slice == 1024, "timeslice: short kernels are not sliced");
	CHECK(gm_timeslice_plan(100, 44.0, 132, 1.0, &p) == 0 && p.count == 1,
	      "timeslice: one wave is not sliced");
	CHECK(gm_timeslice_plan(0, 1.0, 0, 1.0, &p) < 0, "timeslice: no blocks is an error");
	gm_error_clear();
	CHECK(gm_timeslice_plan(10, 0.0, 0, 1.0, &p) < 0, "timeslice: no time is an error");
	gm_error_clear();
}

int main(void)
{
	test_table2();
	test_h100_usage();
	test_reduceblocks();
	test_getphygrid();
	test_policies();
	test_timeslice();
	return test_done();
}
