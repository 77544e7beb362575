/* SPDX-License-Identifier: MIT */
/*
 * Host side of tpacf (two-point angular correlation function): the
 * deterministic point generator, the logarithmic angular bins, the binary
 * files of -i and -o, the CPU reference for a block of rows and the checks
 * of the GPU histograms. Plain C11, no CUDA: the unit tests link it with
 * gcc.
 *
 * Points are unit vectors on the sphere: one data set (clustered) and
 * nrand random sets (uniform), n points each. Histogram t counts pairs by
 * angular bin: t = 0 data-data (DD, pairs i < j), t = 1..nrand data-random
 * k (DR_k, all n*n pairs), t = nrand+1..2*nrand random-random k (RR_k,
 * pairs i < j). The bin of a pair is the number of bin boundaries b[k]
 * (cosines, decreasing) with b[k] >= dot, found by a 5-step binary search;
 * the dot product is fmaf(ax, bx, fmaf(ay, by, az * bz)) on both sides, so
 * CPU and GPU bins agree exactly and counts are compared exactly.
 */
#ifndef TPACF_REF_H
#define TPACF_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define TPACF_POINTS 100000	/* points per set at scale 1 */
#define TPACF_RANDOM_SETS 8
#define TPACF_NBINS 30		/* logarithmic bins between the limits */
#define TPACF_NBOUNDS (TPACF_NBINS + 1)
#define TPACF_NCOUNT (TPACF_NBINS + 2)	/* plus below and above the range */
#define TPACF_MIN_ARCMIN 10.0
#define TPACF_MAX_ARCMIN 10000.0
#define TPACF_BLOCK 256		/* rows per block of the kernel */
#define TPACF_SEED 0x79acfu
#define TPACF_MAX_SETS 64
#define TPACF_RANDOM_SAMPLES 6
#define TPACF_MAX_SAMPLES (4 + TPACF_RANDOM_SAMPLES)

struct tpacf_points {
	uint32_t n;		/* points per set */
	uint32_t nrand;		/* random sets (the data set is set 0) */
	float *xyz;		/* (nrand + 1) * n * 3: x, y, z of each point */
};

/* Points per set for -s @scale: TPACF_POINTS * sqrt(scale), at least 64. */
uint32_t tpacf_points_for_scale(double scale);

/*
 * Generate @nrand + 1 sets of @n points from @seed into @p: the data set
 * has 60% of its points in 400 tight clusters and 40% uniform; random
 * sets are uniform. Only + - * / and sqrt are used (rejection sampling),
 * so the points do not depend on the math library. Returns 0, or -1 with
 * @err. Release with tpacf_free().
 */
int tpacf_generate(struct tpacf_points *p, uint32_t n, uint32_t nrand,
		   uint64_t seed, char *err, size_t errlen);

/* Free the points of @p and zero it; safe on a zeroed struct. */
void tpacf_free(struct tpacf_points *p);

/*
 * The TPACF_NBOUNDS bin boundaries: b[k] = cos(theta_k), theta_k from
 * TPACF_MIN_ARCMIN to TPACF_MAX_ARCMIN in equal logarithmic steps
 * (computed in double, rounded to float, decreasing).
 */
void tpacf_bin_bounds(float *b);

/* Bin of a dot product: #{k : b[k] >= dot}, 0..TPACF_NCOUNT-1. */
static inline int tpacf_bin(const float *b, float dot)
{
	int pos = 0;

	if (b[pos + 15] >= dot) {
		pos += 16;
	}
	if (b[pos + 7] >= dot) {
		pos += 8;
	}
	if (b[pos + 3] >= dot) {
		pos += 4;
	}
	if (b[pos + 1] >= dot) {
		pos += 2;
	}
	if (b[pos] >= dot) {
		pos += 1;
	}
	return pos;
}

/* Histograms: 1 + 2 * nrand. Pairs histogram @t counts (see above). */
static inline uint32_t tpacf_nhist(uint32_t nrand)
{
	return 1 + 2 * nrand;
}

uint64_t tpacf_pairs(uint32_t n, uint32_t nrand, uint32_t t);

/* Sets of histogram @t: rows from set *@a, columns from *@b; 1 if a == b. */
int tpacf_sets(uint32_t nrand, uint32_t t, uint32_t *a, uint32_t *b);

/*
 * CPU reference for one block of the kernel: add into @count
 * (TPACF_NCOUNT entries, zeroed by the caller) the bins of the pairs of
 * histogram @t whose row lies in [@row0, @row0 + TPACF_BLOCK).
 */
void tpacf_ref_block(const struct tpacf_points *p, const float *bounds,
		     uint32_t t, uint32_t row0, uint64_t *count);

/*
 * Choose the blocks (t, row block) the CPU recomputes: the last row block
 * of DD, DR_nrand and RR_nrand (partial blocks, triangle ends), the first
 * of RR_1 (the longest triangle rows) and TPACF_RANDOM_SAMPLES drawn from
 * @seed; fills @t and @rb (room for TPACF_MAX_SAMPLES) and returns how
 * many.
 */
int tpacf_sample_blocks(const struct tpacf_points *p, uint64_t seed,
			uint32_t *t, uint32_t *rb);

/*
 * Input file (-i), native little-endian: "GMTPACI1", u32 n, u32 nrand,
 * u32 0, u32 0, then f32 xyz[(nrand + 1) * n * 3]. Output (-o):
 * "GMTPACO1", u32 nhist, u32 TPACF_NCOUNT, u32 nrand, u32 0, then u64
 * counts[nhist][TPACF_NCOUNT]. Writers return 0 or -1 (errno set).
 * Readers return 0 (or the counts, which the caller frees), or -1 / NULL
 * with @err: unreadable, bad magic, sizes not matching, non-finite
 * coordinates, too many sets.
 */
int tpacf_write_input(const char *path, const struct tpacf_points *p);
int tpacf_read_input(const char *path, struct tpacf_points *p, char *err,
		     size_t errlen);
int tpacf_write_output(const char *path, const uint64_t *hist, uint32_t nrand);
uint64_t *tpacf_read_output(const char *path, uint32_t *nrand, char *err,
			    size_t errlen);

/*
 * Check the GPU results: @hist (nhist x TPACF_NCOUNT) must equal the sum
 * of @block_hist (nhist x @nrb x TPACF_NCOUNT) and hold exactly
 * tpacf_pairs() pairs per histogram. Returns 0, or -1 with @err naming
 * the first mismatch.
 */
int tpacf_check_totals(uint32_t n, uint32_t nrand, uint32_t nrb,
		       const uint64_t *hist, const uint64_t *block_hist,
		       char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
