/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for tpacf's host side: the binary-search bin against a
 * linear count and against the logarithmic bin formula on hand-placed
 * points, the bin boundaries, pair counts and set mapping, the block
 * reference summed over all blocks against an independent all-pairs
 * histogram, the totals check (and its failures), the sampled blocks, the
 * generator (determinism, unit vectors, clustering) and the -i/-o files.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "workloads/parboil/tpacf/tpacf_ref.h"

static int linear_bin(const float *b, float dot)
{
	int c = 0;

	for (int k = 0; k < TPACF_NBOUNDS; k++) {
		c += b[k] >= dot;
	}
	return c;
}

static void test_bins(void)
{
	float b[TPACF_NBOUNDS];
	int decreasing = 1, agree = 1;

	tpacf_bin_bounds(b);
	for (int k = 1; k < TPACF_NBOUNDS; k++) {
		decreasing &= b[k] < b[k - 1];
	}
	CHECK(decreasing, "boundaries strictly decrease");
	CHECK(b[0] < 1.0f && b[0] > 0.99999f, "first boundary is cos(10 arcmin)");
	CHECK_NEAR(b[TPACF_NBINS], cos(10000.0 / 60 * M_PI / 180), 1e-6,
		   "last boundary is cos(10000 arcmin)");
	CHECK_INT(tpacf_bin(b, 1.0f), 0, "dot 1: below the range, bin 0");
	CHECK_INT(tpacf_bin(b, -1.0f), TPACF_NCOUNT - 1, "dot -1: above the range");
	for (int k = 0; k < TPACF_NBOUNDS; k++) {
		agree &= tpacf_bin(b, b[k]) == linear_bin(b, b[k]);
		agree &= tpacf_bin(b, nextafterf(b[k], 2)) == linear_bin(b, nextafterf(b[k], 2));
		agree &= tpacf_bin(b, nextafterf(b[k], -2)) == linear_bin(b, nextafterf(b[k], -2));
	}
	CHECK(agree, "binary search = linear count on and next to every boundary");
	CHECK_INT(tpacf_bin(b, b[5]), 6, "a dot equal to b[5] counts it: bin 6");
	agree = 1;
	for (int i = 0; i <= 200000; i++) {
		float d = -1.0f + i * (2.0f / 200000);
		agree &= tpacf_bin(b, d) == linear_bin(b, d);
	}
	CHECK(agree, "binary search = linear count on 200001 dots");
}

/* Bin of an angle from the formula: 1 + floor(log10(arcmin / min) / step). */
static int formula_bin(double arcmin)
{
	double step = log10(TPACF_MAX_ARCMIN / TPACF_MIN_ARCMIN) / TPACF_NBINS;

	if (arcmin < TPACF_MIN_ARCMIN) {
		return 0;
	}
	if (arcmin >= TPACF_MAX_ARCMIN) {
		return TPACF_NCOUNT - 1;
	}
	return 1 + (int)floor(log10(arcmin / TPACF_MIN_ARCMIN) / step);
}

static void set_point(float *xyz, double lon_deg)
{
	double r = lon_deg * M_PI / 180;

	xyz[0] = (float)cos(r);
	xyz[1] = (float)sin(r);
	xyz[2] = 0.0f;
}

static void test_hand(void)
{
	/* Data: longitudes 0, 1 and 90 degrees on the equator; random: 45. */
	float xyz[6 * 3];
	struct tpacf_points p = { 3, 1, xyz };
	float b[TPACF_NBOUNDS];
	uint64_t c[TPACF_NCOUNT];

	set_point(xyz + 0, 0);
	set_point(xyz + 3, 1);
	set_point(xyz + 6, 90);
	set_point(xyz + 9, 45);
	set_point(xyz + 12, 45);
	set_point(xyz + 15, 45);
	tpacf_bin_bounds(b);
	CHECK_INT(formula_bin(60), 8, "60 arcmin is in bin 8");
	CHECK_INT(formula_bin(5340), 28, "89 degrees is in bin 28");

	memset(c, 0, sizeof(c));
	tpacf_ref_block(&p, b, 0, 0, c);
	CHECK(c[8] == 1 && c[formula_bin(5400)] == 2 && formula_bin(5400) == 28,
	      "DD: one pair at 1 degree, two near 90 degrees");
	uint64_t sum = 0;
	for (int k = 0; k < TPACF_NCOUNT; k++) {
		sum += c[k];
	}
	CHECK_INT(sum, 3, "DD has 3 pairs");

	memset(c, 0, sizeof(c));
	tpacf_ref_block(&p, b, 1, 0, c);
	int f45 = formula_bin(45 * 60.0), f44 = formula_bin(44 * 60.0);
	CHECK(f45 == 25 && f44 == 25, "44 and 45 degrees are in bin 25");
	CHECK_INT(c[25], 9, "DR: all 9 pairs at 44-45 degrees");
	memset(c, 0, sizeof(c));
	tpacf_ref_block(&p, b, 2, 0, c);
	CHECK_INT(c[0], 3, "RR: 3 pairs of identical points, bin 0");
}

static void test_pairs(void)
{
	uint32_t a, b;

	CHECK_INT(tpacf_nhist(8), 17, "8 random sets: 17 histograms");
	CHECK(tpacf_sets(8, 0, &a, &b) == 1 && a == 0 && b == 0, "t 0 is DD");
	CHECK(tpacf_sets(8, 3, &a, &b) == 0 && a == 0 && b == 3, "t 3 is DR_3");
	CHECK(tpacf_sets(8, 11, &a, &b) == 1 && a == 3 && b == 3, "t 11 is RR_3");
	CHECK_INT(tpacf_pairs(1000, 8, 0), 499500, "DD pairs n(n-1)/2");
	CHECK_INT(tpacf_pairs(1000, 8, 8), 1000000, "DR pairs n^2");
	CHECK_INT(tpacf_pairs(100000, 8, 16), 4999950000ULL, "RR pairs past 2^32");
	CHECK_INT(tpacf_points_for_scale(1), TPACF_POINTS, "scale 1");
	CHECK_INT(tpacf_points_for_scale(0.01), TPACF_POINTS / 10, "scale 0.01");
	CHECK_INT(tpacf_points_for_scale(1e-12), 64, "tiny scale: 64 points");
}

/* All pairs of histogram t, written independently of tpacf_ref_block. */
static void naive_hist(const struct tpacf_points *p, const float *b,
		       uint32_t t, uint64_t *c)
{
	uint32_t n = p->n;
	const float *d = p->xyz;
	const float *r1 = d + (size_t)n * 3 * (t <= p->nrand ? 0 : t - p->nrand);
	const float *r2 = d + (size_t)n * 3 * (t == 0 ? 0 : (t <= p->nrand ? t : t - p->nrand));

	for (uint32_t i = 0; i < n; i++) {
		for (uint32_t j = 0; j < n; j++) {
			if ((t == 0 || t > p->nrand) && j <= i) {
				continue;
			}
			float dot = fmaf(r1[i * 3], r2[j * 3],
					 fmaf(r1[i * 3 + 1], r2[j * 3 + 1],
					      r1[i * 3 + 2] * r2[j * 3 + 2]));
			c[linear_bin(b, dot)]++;
		}
	}
}

static void test_reference(void)
{
	struct tpacf_points p;
	char err[200];
	float b[TPACF_NBOUNDS];
	uint32_t n = 700, nrand = 2, nrb = 3, nh = 5;
	uint64_t hist[5 * TPACF_NCOUNT] = { 0 };
	uint64_t bh[5 * 3 * TPACF_NCOUNT] = { 0 };
	int same = 1;

	tpacf_bin_bounds(b);
	CHECK_INT(tpacf_generate(&p, n, nrand, 11, err, sizeof(err)), 0, "generate");
	for (uint32_t t = 0; t < nh; t++) {
		uint64_t naive[TPACF_NCOUNT] = { 0 };
		naive_hist(&p, b, t, naive);
		for (uint32_t r = 0; r < nrb; r++) {
			uint64_t *c = bh + ((size_t)t * nrb + r) * TPACF_NCOUNT;
			tpacf_ref_block(&p, b, t, r * TPACF_BLOCK, c);
			for (int k = 0; k < TPACF_NCOUNT; k++) {
				hist[t * TPACF_NCOUNT + k] += c[k];
			}
		}
		same &= !memcmp(naive, hist + t * TPACF_NCOUNT, sizeof(naive));
	}
	CHECK(same, "blocks of the reference sum to the naive all-pairs histograms");
	CHECK_INT(tpacf_check_totals(n, nrand, nrb, hist, bh, err, sizeof(err)), 0,
		  "totals check passes on the reference");
	bh[(1 * nrb + 2) * TPACF_NCOUNT + 30]++;
	CHECK_INT(tpacf_check_totals(n, nrand, nrb, hist, bh, err, sizeof(err)), -1,
		  "a block bin off by one fails");
	CHECK(strstr(err, "histogram 1 bin 30") != NULL, "message names histogram and bin");
	hist[1 * TPACF_NCOUNT + 30]++;
	CHECK_INT(tpacf_check_totals(n, nrand, nrb, hist, bh, err, sizeof(err)), -1,
		  "a pair too many fails");
	CHECK(strstr(err, "not 490000") != NULL, "message gives the expected total");

	uint32_t st[TPACF_MAX_SAMPLES], srb[TPACF_MAX_SAMPLES];
	int ns = tpacf_sample_blocks(&p, 5, st, srb), ok = 1;
	CHECK_INT(ns, TPACF_MAX_SAMPLES, "ten sampled blocks");
	for (int s = 0; s < ns; s++) {
		ok &= st[s] < nh && srb[s] < nrb;
	}
	CHECK(ok, "samples name existing blocks");
	CHECK(st[0] == 0 && srb[0] == nrb - 1, "first sample: last DD block");
	CHECK(st[3] == nrand + 1 && srb[3] == 0, "fourth: first RR_1 block");

	tpacf_free(&p);

	/* Clustering: DD has far more pairs under 1 degree than RR_1. */
	uint64_t dd[TPACF_NCOUNT] = { 0 }, rr[TPACF_NCOUNT] = { 0 };
	uint64_t close_dd = 0, close_rr = 0;
	tpacf_generate(&p, 3000, 1, 12, err, sizeof(err));
	for (uint32_t r = 0; r < (3000 + TPACF_BLOCK - 1) / TPACF_BLOCK; r++) {
		tpacf_ref_block(&p, b, 0, r * TPACF_BLOCK, dd);
		tpacf_ref_block(&p, b, 2, r * TPACF_BLOCK, rr);
	}
	for (int k = 0; k < formula_bin(60); k++) {
		close_dd += dd[k];
		close_rr += rr[k];
	}
	CHECK(close_dd > 3 * (close_rr + 1), "the data set is clustered");
	tpacf_free(&p);
}

static void test_generate_files(void)
{
	struct tpacf_points a, b;
	char err[200], path[] = "/tmp/gm-test-tpacf-XXXXXX";
	int fd = mkstemp(path), unit = 1;
	uint32_t nrand;

	close(fd);
	tpacf_generate(&a, 500, 3, 9, err, sizeof(err));
	tpacf_generate(&b, 500, 3, 9, err, sizeof(err));
	CHECK(!memcmp(a.xyz, b.xyz, 2000 * 3 * 4), "same seed, same points");
	for (int i = 0; i < 2000; i++) {
		const float *v = a.xyz + i * 3;
		unit &= fabs((double)v[0] * v[0] + (double)v[1] * v[1] +
			     (double)v[2] * v[2] - 1) < 1e-6;
	}
	CHECK(unit, "points are unit vectors");
	tpacf_free(&b);
	CHECK_INT(tpacf_generate(&b, 0, 3, 9, err, sizeof(err)), -1, "no points refused");
	CHECK_INT(tpacf_generate(&b, 5, TPACF_MAX_SETS + 1, 9, err, sizeof(err)), -1,
		  "too many sets refused");

	CHECK_INT(tpacf_write_input(path, &a), 0, "write input");
	CHECK_INT(tpacf_read_input(path, &b, err, sizeof(err)), 0, "read input");
	CHECK(b.n == 500 && b.nrand == 3 && !memcmp(a.xyz, b.xyz, 2000 * 3 * 4),
	      "input round trip is exact");
	tpacf_free(&b);
	a.xyz[77] = INFINITY;
	tpacf_write_input(path, &a);
	CHECK_INT(tpacf_read_input(path, &b, err, sizeof(err)), -1, "infinite coordinate refused");
	CHECK(strstr(err, "coordinate 77") != NULL, "message names the coordinate");
	CHECK(b.xyz == NULL, "nothing allocated after a failed read");
	a.xyz[77] = 0;
	tpacf_write_input(path, &a);
	CHECK(truncate(path, 1000) == 0, "truncate");
	CHECK_INT(tpacf_read_input(path, &b, err, sizeof(err)), -1, "truncated refused");
	CHECK(strstr(err, "file size") != NULL, "message says the size is wrong");

	uint64_t hist[7 * TPACF_NCOUNT];
	for (int i = 0; i < 7 * TPACF_NCOUNT; i++) {
		hist[i] = (uint64_t)i * 1000003ULL << 20;
	}
	CHECK_INT(tpacf_write_output(path, hist, 3), 0, "write output");
	uint64_t *back = tpacf_read_output(path, &nrand, err, sizeof(err));
	CHECK(back && nrand == 3 && !memcmp(back, hist, sizeof(hist)), "output round trip");
	free(back);
	CHECK_INT(tpacf_read_input(path, &b, err, sizeof(err)), -1, "output is no input");
	CHECK(strstr(err, "bad magic") != NULL, "message says bad magic");
	unlink(path);
	CHECK_INT(tpacf_read_input(path, &b, err, sizeof(err)), -1, "missing file refused");
	CHECK(tpacf_read_output(path, &nrand, err, sizeof(err)) == NULL,
	      "missing output refused");
	tpacf_free(&a);
}

int main(void)
{
	test_bins();
	test_hand();
	test_pairs();
	test_reference();
	test_generate_files();
	return test_done();
}
