/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the analyzer's metrics on hand-computed cases:
 * percentiles and means (edge cases), replay-time percentiles and their
 * slowdown, STP/ANTT/workload time, every
 * overlap category and tie rule (plus a brute-force cross-check of the
 * sweep), running kernels and capped utilization on small timelines, and
 * kernel residency against the paper's Table 2 checks on the C2070.
 */
#include <math.h>
#include <stdlib.h>

#include "analyze/metrics_latency.h"
#include "analyze/metrics_overlap.h"
#include "analyze/metrics_resource.h"
#include "analyze/metrics_stp.h"
#include "analyze/metrics_util.h"
#include "analyze/stats.h"
#include "test.h"

static void test_percentiles(void)
{
	double one[] = { 7 };
	double two[] = { 1, 3 };
	double four[] = { 1, 2, 3, 4 };
	double ties[] = { 5, 5, 5 };
	double twenty[20];

	gm_sort_doubles(NULL, 0);	/* (UBSan: no NULL to qsort) */
	CHECK(isnan(gm_percentile_sorted(NULL, 0, 50)), "empty sample: n/a");
	CHECK_NEAR(gm_percentile_sorted(one, 1, 0), 7, 0, "n=1: p0 is the value");
	CHECK_NEAR(gm_percentile_sorted(one, 1, 50), 7, 0, "n=1: median is the value");
	CHECK_NEAR(gm_percentile_sorted(one, 1, 95), 7, 0, "n=1: p95 is the value");
	CHECK_NEAR(gm_percentile_sorted(two, 2, 50), 2, 1e-12, "n=2: median interpolates");
	CHECK_NEAR(gm_percentile_sorted(two, 2, 95), 2.9, 1e-12, "n=2: p95 = 1 + 0.95 x 2");
	CHECK_NEAR(gm_percentile_sorted(two, 2, 0), 1, 0, "p0 is the minimum");
	CHECK_NEAR(gm_percentile_sorted(two, 2, 100), 3, 0, "p100 is the maximum");
	CHECK_NEAR(gm_percentile_sorted(four, 4, 50), 2.5, 1e-12,
		   "even count: median is the mean of the middle two");
	CHECK_NEAR(gm_percentile_sorted(ties, 3, 95), 5, 0, "ties");
	CHECK(isnan(gm_percentile_sorted(two, 2, 101)), "p > 100: n/a");
	CHECK(isnan(gm_percentile_sorted(two, 2, -1)), "p < 0: n/a");
	for (int i = 0; i < 20; i++) {
		twenty[i] = i + 1;
	}
	CHECK_NEAR(gm_percentile_sorted(twenty, 20, 95), 19.05, 1e-9,
		   "1..20: p95 = x[18] + 0.05 (x[19] - x[18])");

	double unsorted[] = { 3, -1, 2 };
	gm_sort_doubles(unsorted, 3);
	CHECK(unsorted[0] == -1 && unsorted[2] == 3, "sort ascending");
	CHECK(isnan(gm_mean(NULL, 0)), "mean of nothing: n/a");
	CHECK_NEAR(gm_mean(four, 4), 2.5, 1e-12, "mean");
	double g[] = { 1, 4 };
	CHECK_NEAR(gm_geomean(g, 2), 2, 1e-12, "geomean of 1 and 4");
	CHECK(isnan(gm_geomean(NULL, 0)), "geomean of nothing: n/a");
	double z[] = { 1, 0 };
	CHECK(isnan(gm_geomean(z, 2)), "geomean with a zero: n/a");
	double big[1000];
	for (int i = 0; i < 1000; i++) {
		big[i] = 1e300;
	}
	CHECK_NEAR(gm_geomean(big, 1000) / 1e300, 1, 1e-9, "geomean does not overflow");
}

static void test_latency(void)
{
	/* Unsorted on purpose; nearest rank would give p95 = p99 = 500. */
	double mp[] = { 300, 100, 500, 200, 400 };
	double alone[] = { 100, 120, 100, 100, 100 };
	struct gm_latency l, a, none;

	gm_latency_from_times(&l, mp, 5);
	gm_latency_from_times(&a, alone, 5);
	CHECK_INT(l.n, 5, "5 replay times");
	CHECK_NEAR(l.p[GM_LAT_P50], 300, 1e-9, "p50 = the middle one");
	CHECK_NEAR(l.p[GM_LAT_P95], 480, 1e-9, "p95 interpolated: 400 + 0.8 x 100");
	CHECK_NEAR(l.p[GM_LAT_P99], 496, 1e-9, "p99 interpolated: 400 + 0.96 x 100");
	CHECK(isnan(l.slowdown[GM_LAT_P99]), "no slowdown before a baseline");
	gm_latency_slowdown(&l, &a);
	CHECK_NEAR(l.slowdown[GM_LAT_P50], 3, 1e-12, "p50 slowdown 300/100");
	CHECK_NEAR(l.slowdown[GM_LAT_P95], 480 / 116.0, 1e-12,
		   "p95 slowdown against the alone run's p95, not its mean");
	CHECK_NEAR(l.slowdown[GM_LAT_P99], 496 / 119.2, 1e-12, "p99 slowdown");
	gm_latency_slowdown(&l, NULL);
	CHECK(isnan(l.slowdown[GM_LAT_P50]), "no baseline: n/a");
	gm_latency_from_times(&none, NULL, 0);
	CHECK(none.n == 0 && isnan(none.p[GM_LAT_P50]), "no replays: n/a");
	gm_latency_from_times(&l, mp, 5);
	gm_latency_slowdown(&l, &none);
	CHECK(isnan(l.slowdown[GM_LAT_P99]), "a baseline without replays: n/a");
}

static void test_stp(void)
{
	double alone[] = { 100, 200 }, mp[] = { 200, 250 };
	double alone4[] = { 10, 20, 30, 40 }, mp4[] = { 20, 20, 60, 80 };
	double bad[] = { 100, 0 };

	CHECK_NEAR(gm_stp(alone, mp, 2), 1.3, 1e-12, "STP = 100/200 + 200/250");
	CHECK_NEAR(gm_antt(alone, mp, 2), 1.625, 1e-12, "ANTT = (2 + 1.25) / 2");
	CHECK_NEAR(gm_workload_time(mp, 2), 250, 0, "workload time is the max");
	CHECK_NEAR(gm_stp(alone4, mp4, 4), 0.5 + 1 + 0.5 + 0.5, 1e-12, "STP, 4 programs");
	CHECK_NEAR(gm_antt(alone4, mp4, 4), (2 + 1 + 2 + 2) / 4.0, 1e-12,
		   "ANTT, 4 programs");
	CHECK_NEAR(gm_stp(alone, alone, 2), 2, 1e-12, "no slowdown: STP = n");
	CHECK_NEAR(gm_antt(alone, alone, 2), 1, 1e-12, "no slowdown: ANTT = 1");
	CHECK(isnan(gm_stp(alone, bad, 2)), "a zero time: no STP");
	CHECK(isnan(gm_antt(bad, mp, 2)), "a zero alone time: no ANTT");
	CHECK(isnan(gm_stp(NULL, NULL, 0)), "no programs: no STP");
	double withnan[] = { 1, NAN };
	CHECK(isnan(gm_workload_time(withnan, 2)), "a missing time: no workload time");
}

static const char *cat_name(unsigned char c)
{
	return gm_overlap_name((enum gm_overlap)c);
}

/* Classify @n intervals and compare with the expected categories. */
static void expect_cats(const char *what, const struct gm_interval *iv,
			size_t n, const unsigned char *want)
{
	unsigned char got[16];
	int ok = 1;

	gm_overlap_classify(iv, n, got);
	for (size_t i = 0; i < n; i++) {
		ok &= got[i] == want[i];
	}
	if (!CHECK(ok, what)) {
		for (size_t i = 0; i < n; i++) {
			printf("#   [%lld, %lld): expected %s, got %s\n",
			       (long long)iv[i].start, (long long)iv[i].end,
			       cat_name(want[i]), cat_name(got[i]));
		}
	}
}

enum { EX = GM_OVERLAP_EXCLUSIVE, FU = GM_OVERLAP_FULL,
       RE = GM_OVERLAP_RESTRICTED, PA = GM_OVERLAP_PARTIAL };

/* The definition, checked pair by pair (O(n^2)). */
static unsigned char reference(const struct gm_interval *iv, size_t n, size_t k)
{
	int corunners = 0, earlier = 0, ends_before = 0;

	if (iv[k].end <= iv[k].start) {
		return EX;
	}
	for (size_t j = 0; j < n; j++) {
		if (j == k || iv[j].end <= iv[j].start ||
		    !(iv[j].start < iv[k].end && iv[k].start < iv[j].end)) {
			continue;
		}
		corunners = 1;
		if (iv[j].start <= iv[k].start) {
			earlier = 1;
			ends_before |= iv[j].end < iv[k].end;
		}
	}
	if (!corunners) {
		return EX;
	}
	if (!earlier) {
		return FU;
	}
	return ends_before ? PA : RE;
}

static void test_overlap(void)
{
	struct gm_interval one[] = { { 0, 10 } };
	expect_cats("alone: EXCLUSIVE", one, 1, (unsigned char[]){ EX });

	struct gm_interval touch[] = { { 0, 10 }, { 10, 20 } };
	expect_cats("end == next start: no overlap (half-open)", touch, 2,
		    (unsigned char[]){ EX, EX });

	struct gm_interval partial[] = { { 0, 10 }, { 5, 15 } };
	expect_cats("first FULL, second PARTIAL (the first ends before it)",
		    partial, 2, (unsigned char[]){ FU, PA });

	struct gm_interval inside[] = { { 0, 20 }, { 5, 15 } };
	expect_cats("first FULL, nested second RESTRICTED", inside, 2,
		    (unsigned char[]){ FU, RE });

	struct gm_interval same_start[] = { { 0, 10 }, { 0, 20 } };
	expect_cats("same start: tie counts as earlier; shorter RESTRICTED,"
		    " longer PARTIAL", same_start, 2, (unsigned char[]){ RE, PA });

	struct gm_interval same[] = { { 0, 10 }, { 0, 10 } };
	expect_cats("identical intervals: both RESTRICTED", same, 2,
		    (unsigned char[]){ RE, RE });

	struct gm_interval same_end[] = { { 0, 10 }, { 5, 10 } };
	expect_cats("same end is not 'before': FULL, RESTRICTED", same_end, 2,
		    (unsigned char[]){ FU, RE });

	struct gm_interval zero[] = { { 0, 10 }, { 5, 5 } };
	expect_cats("zero-length kernel overlaps nothing", zero, 2,
		    (unsigned char[]){ EX, EX });

	struct gm_interval three[] = { { 0, 100 }, { 10, 50 }, { 20, 200 } };
	expect_cats("three kernels: FULL, RESTRICTED, PARTIAL", three, 3,
		    (unsigned char[]){ FU, RE, PA });

	struct gm_interval later_short[] = { { 0, 100 }, { 10, 20 } };
	expect_cats("a later co-runner ending early keeps the first FULL",
		    later_short, 2, (unsigned char[]){ FU, RE });

	struct gm_interval chain[] = { { 0, 10 }, { 10, 30 }, { 5, 20 } };
	expect_cats("a kernel that ended before K started is no co-runner",
		    chain, 3, (unsigned char[]){ FU, PA, PA });

	struct gm_interval three_tie[] = { { 0, 10 }, { 0, 10 }, { 0, 5 } };
	expect_cats("three-way tie: the short one RESTRICTED, the others PARTIAL",
		    three_tie, 3, (unsigned char[]){ PA, PA, RE });

	struct gm_interval shuffled[] = { { 5, 15 }, { 0, 10 } };
	expect_cats("input order does not matter", shuffled, 2,
		    (unsigned char[]){ PA, FU });

	/* Random timelines on a coarse grid (many ties) vs the definition. */
	srand(12345);
	int mismatches = 0;
	for (int round = 0; round < 300; round++) {
		struct gm_interval iv[40];
		unsigned char got[40];
		size_t n = 1 + (size_t)(rand() % 40);
		for (size_t i = 0; i < n; i++) {
			iv[i].start = rand() % 30;
			iv[i].end = iv[i].start + rand() % 8;
		}
		gm_overlap_classify(iv, n, got);
		for (size_t i = 0; i < n; i++) {
			mismatches += got[i] != reference(iv, n, i);
		}
	}
	CHECK_INT(mismatches, 0, "sweep agrees with the definition on 300 random timelines");

	unsigned char none[1];
	gm_overlap_classify(NULL, 0, none);
	CHECK(1, "no kernels: nothing to classify");
	CHECK_STR(gm_overlap_name(GM_OVERLAP_PARTIAL), "SHARED/PARTIAL", "category names");
}

static void test_utilization(void)
{
	struct gm_interval iv[] = { { 0, 10 }, { 5, 15 } };
	struct gm_interval clip[] = { { -5, 5 } };
	int64_t amount[] = { 60, 60 };

	CHECK_NEAR(gm_running_average(iv, 2, 0, 20), 1.0, 1e-12,
		   "20 kernel-ns over 20 ns: 1 running kernel");
	CHECK_NEAR(gm_running_average(iv, 2, 0, 40), 0.5, 1e-12,
		   "idle time counts: 0.5");
	CHECK_NEAR(gm_running_average(clip, 1, 0, 10), 0.5, 1e-12,
		   "kernels are clipped to the span");
	CHECK(isnan(gm_running_average(iv, 2, 10, 10)), "empty span: n/a");
	CHECK_NEAR(gm_running_average(NULL, 0, 0, 10), 0, 0, "no kernels: 0");
	/* 60 on [0,5), 120 capped to 100 on [5,10), 60 on [10,15), 0 after. */
	CHECK_NEAR(gm_utilization(iv, amount, 2, 100, 0, 20), 1100.0 / 2000, 1e-12,
		   "utilization caps the instantaneous sum at the capacity");
	CHECK_NEAR(gm_utilization(iv, amount, 2, 1000, 0, 20), 1200.0 / 20000, 1e-12,
		   "below the capacity: time-weighted share");
	CHECK(isnan(gm_utilization(iv, amount, 2, 0, 0, 20)), "no capacity: n/a");
	struct gm_interval touch[] = { { 0, 10 }, { 10, 20 } };
	CHECK_NEAR(gm_utilization(touch, amount, 2, 100, 0, 20), 0.6, 1e-12,
		   "back-to-back kernels never add up");
}

static void test_residency(void)
{
	struct gm_device_limits fermi, h100;
	struct gm_residency r;

	gm_device_limits_for_run(&fermi, "C2070", "2.0", 14, 1536, 8, 32768, 49152);
	gm_device_limits_for_run(&h100, "H100", "9.0", 132, 2048, 32, 65536, 233472);
	CHECK_INT(fermi.reg_alloc_unit, 64, "cc 2.0: Fermi allocation granularity");
	CHECK_INT(h100.reg_sub_partitions, 4, "cc 9.0: Hopper register partitions");

	/* Table 2 checks ([derived] in PAPER-NOTES.md item 3). */
	struct gm_kernel_shape bfs = { 1, 512, 16, 0 };
	gm_residency_compute(&fermi, &bfs, &r);
	CHECK_NEAR((double)r.threads / (1536 * 14), 512.0 / 21504, 1e-12,
		   "BFS_in_GPU: T% = 512/21504");
	struct gm_kernel_shape sad16 = { 99, 32, 16, 0 };
	gm_residency_compute(&fermi, &sad16, &r);
	CHECK_NEAR((double)r.blocks / (8 * 14), 99.0 / 112, 1e-12,
		   "larger_sad_calc_16: B% = 99/112");
	struct gm_kernel_shape mbsad = { 1584, 61, 16, 0 };
	gm_residency_compute(&fermi, &mbsad, &r);
	CHECK_INT(r.threads, 112 * 64, "mb_sad_calc: 61 threads count as a warp of 64");
	CHECK_NEAR((double)r.threads / 21504, 1.0 / 3, 1e-12, "mb_sad_calc: T% = 33%");
	struct gm_kernel_shape cq = { 1024, 256, 24, 0 };
	gm_residency_compute(&fermi, &cq, &r);
	CHECK_INT(r.blocks_per_sm, 5, "ComputeQ-like (24 regs x 256): 5 blocks per SM");
	CHECK_NEAR((double)r.blocks / (8 * 14), 5.0 / 8, 1e-12, "B% = 5/8");
	CHECK(r.limiting == GM_RES_REGISTERS, "limited by registers");

	/* The worked example's kernels on the H100 (doc/database.md). */
	struct gm_kernel_shape b = { 2000, 1024, 64, 49152 };
	gm_residency_compute(&h100, &b, &r);
	CHECK_INT(r.blocks, 132, "kernel_b: one block per SM");
	CHECK_INT(r.smem, 132 * 49152, "shared memory counts the request only");
	CHECK(r.limiting == GM_RES_REGISTERS, "kernel_b: registers");
	struct gm_kernel_shape a = { 132, 256, 32, 0 };
	gm_residency_compute(&h100, &a, &r);
	CHECK_INT(r.threads, 132 * 256, "kernelA: all 132 blocks resident");
	CHECK(r.limiting == (GM_RES_THREADS | GM_RES_REGISTERS),
	      "kernelA: threads and registers tie");
	struct gm_kernel_shape huge = { 10, 2048, 32, 0 };
	gm_residency_compute(&h100, &huge, &r);
	CHECK(!r.fits && r.threads == 0, "a block too big to run holds nothing");
}

int main(void)
{
	test_percentiles();
	test_latency();
	test_stp();
	test_overlap();
	test_utilization();
	test_residency();
	return test_done();
}
