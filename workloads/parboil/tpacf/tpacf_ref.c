/* SPDX-License-Identifier: MIT */
/*
 * tpacf's generator, bins, files, block reference and checks (see
 * tpacf_ref.h).
 */
#include "tpacf_ref.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

static const char input_magic[8] = { 'G', 'M', 'T', 'P', 'A', 'C', 'I', '1' };
static const char output_magic[8] = { 'G', 'M', 'T', 'P', 'A', 'C', 'O', '1' };

#define TPACF_CLUSTERS 400
#define TPACF_CLUSTER_RADIUS 0.02	/* radians, roughly */
#define TPACF_PI 3.14159265358979323846

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

uint32_t tpacf_points_for_scale(double scale)
{
	double n = TPACF_POINTS * sqrt(scale);

	if (!(n >= 64)) {
		return 64;
	}
	if (n > 1e8) {
		return 100000000u;
	}
	return (uint32_t)(n + 0.5);
}

void tpacf_free(struct tpacf_points *p)
{
	free(p->xyz);
	memset(p, 0, sizeof(*p));
}

/* Uniform double in [-1, 1). */
static double unit_double(struct pb_rng *r)
{
	return (double)(pb_rng_next(r) >> 11) * (1.0 / 4503599627370496.0) - 1.0;
}

/* A point uniform in the unit ball (rejection from the cube). */
static void in_ball(struct pb_rng *r, double v[3])
{
	double s;

	do {
		v[0] = unit_double(r);
		v[1] = unit_double(r);
		v[2] = unit_double(r);
		s = v[0] * v[0] + v[1] * v[1] + v[2] * v[2];
	} while (s > 1.0 || s < 1e-6);
}

/* Store @v / |v| as floats at @out. */
static void store_unit(const double v[3], float *out)
{
	double s = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);

	for (int k = 0; k < 3; k++) {
		out[k] = (float)(v[k] / s);
	}
}

int tpacf_generate(struct tpacf_points *p, uint32_t n, uint32_t nrand,
		   uint64_t seed, char *err, size_t errlen)
{
	struct pb_rng rng;
	double center[TPACF_CLUSTERS][3];
	size_t total = ((size_t)nrand + 1) * n;

	memset(p, 0, sizeof(*p));
	if (!n || nrand > TPACF_MAX_SETS) {
		return fail(err, errlen, "need 1 or more points and at most %d random sets",
			    TPACF_MAX_SETS);
	}
	p->xyz = malloc(total * 3 * sizeof(float));
	if (!p->xyz) {
		return fail(err, errlen, "out of memory for %zu points", total);
	}
	p->n = n;
	p->nrand = nrand;
	pb_rng_seed(&rng, seed);
	for (int c = 0; c < TPACF_CLUSTERS; c++) {
		double v[3];
		in_ball(&rng, v);
		double s = sqrt(v[0] * v[0] + v[1] * v[1] + v[2] * v[2]);
		for (int k = 0; k < 3; k++) {
			center[c][k] = v[k] / s;
		}
	}
	for (uint32_t i = 0; i < n; i++) {
		double v[3];
		in_ball(&rng, v);
		if (pb_rng_below(&rng, 10) < 6) {
			const double *c = center[pb_rng_below(&rng, TPACF_CLUSTERS)];
			for (int k = 0; k < 3; k++) {
				v[k] = c[k] + TPACF_CLUSTER_RADIUS * v[k];
			}
		}
		store_unit(v, p->xyz + (size_t)i * 3);
	}
	for (size_t i = n; i < total; i++) {
		double v[3];
		in_ball(&rng, v);
		store_unit(v, p->xyz + i * 3);
	}
	return 0;
}

void tpacf_bin_bounds(float *b)
{
	double lmin = log10(TPACF_MIN_ARCMIN), lmax = log10(TPACF_MAX_ARCMIN);

	for (int k = 0; k < TPACF_NBOUNDS; k++) {
		double arcmin = pow(10.0, lmin + k * (lmax - lmin) / TPACF_NBINS);
		b[k] = (float)cos(arcmin / 60.0 * TPACF_PI / 180.0);
	}
}

uint64_t tpacf_pairs(uint32_t n, uint32_t nrand, uint32_t t)
{
	uint32_t a, b;

	if (tpacf_sets(nrand, t, &a, &b)) {
		return (uint64_t)n * (n - 1) / 2;
	}
	return (uint64_t)n * n;
}

int tpacf_sets(uint32_t nrand, uint32_t t, uint32_t *a, uint32_t *b)
{
	if (t == 0) {
		*a = *b = 0;
		return 1;
	}
	if (t <= nrand) {
		*a = 0;
		*b = t;
		return 0;
	}
	*a = *b = t - nrand;
	return 1;
}

void tpacf_ref_block(const struct tpacf_points *p, const float *bounds,
		     uint32_t t, uint32_t row0, uint64_t *count)
{
	uint32_t sa, sb;
	int self = tpacf_sets(p->nrand, t, &sa, &sb);
	const float *a = p->xyz + (size_t)sa * p->n * 3;
	const float *b = p->xyz + (size_t)sb * p->n * 3;
	uint32_t end = p->n - row0 < TPACF_BLOCK ? p->n : row0 + TPACF_BLOCK;

	for (uint32_t i = row0; i < end; i++) {
		float ax = a[i * 3 + 0], ay = a[i * 3 + 1], az = a[i * 3 + 2];
		for (uint32_t j = self ? i + 1 : 0; j < p->n; j++) {
			const float *q = b + (size_t)j * 3;
			float dot = fmaf(ax, q[0], fmaf(ay, q[1], az * q[2]));
			count[tpacf_bin(bounds, dot)]++;
		}
	}
}

int tpacf_sample_blocks(const struct tpacf_points *p, uint64_t seed,
			uint32_t *t, uint32_t *rb)
{
	uint32_t nrb = (p->n + TPACF_BLOCK - 1) / TPACF_BLOCK;
	uint32_t nh = tpacf_nhist(p->nrand), k = 0;
	struct pb_rng rng;

	pb_rng_seed(&rng, seed);
	t[k] = 0;
	rb[k++] = nrb - 1;
	t[k] = p->nrand;
	rb[k++] = nrb - 1;
	t[k] = 2 * p->nrand;
	rb[k++] = nrb - 1;
	if (p->nrand) {
		t[k] = p->nrand + 1;
		rb[k++] = 0;
	}
	for (int i = 0; i < TPACF_RANDOM_SAMPLES; i++) {
		t[k] = pb_rng_below(&rng, nh);
		rb[k++] = pb_rng_below(&rng, nrb);
	}
	return (int)k;
}

static int write_all(FILE *f, const void *p, size_t len)
{
	return fwrite(p, 1, len, f) == len ? 0 : -1;
}

int tpacf_write_input(const char *path, const struct tpacf_points *p)
{
	uint32_t hdr[4] = { p->n, p->nrand, 0, 0 };
	FILE *f = fopen(path, "wb");
	int rc = 0;

	if (!f) {
		return -1;
	}
	rc |= write_all(f, input_magic, 8);
	rc |= write_all(f, hdr, sizeof(hdr));
	rc |= write_all(f, p->xyz, ((size_t)p->nrand + 1) * p->n * 3 * sizeof(float));
	if (fclose(f)) {
		rc = -1;
	}
	return rc;
}

int tpacf_read_input(const char *path, struct tpacf_points *p, char *err,
		     size_t errlen)
{
	size_t len = 0;
	char *buf = pb_read_file(path, &len);
	uint32_t hdr[4];

	memset(p, 0, sizeof(*p));
	if (!buf) {
		return fail(err, errlen, "cannot read '%s': %s", path, strerror(errno));
	}
	if (len < 24 || memcmp(buf, input_magic, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not a tpacf input file (bad magic)", path);
	}
	memcpy(hdr, buf + 8, sizeof(hdr));
	uint64_t floats = ((uint64_t)hdr[1] + 1) * hdr[0] * 3;
	if (!hdr[0] || hdr[1] > TPACF_MAX_SETS || 24 + 4 * floats != len) {
		free(buf);
		return fail(err, errlen,
			    "'%s': %u points x %u random sets do not match the file size %zu",
			    path, hdr[0], hdr[1], len);
	}
	p->xyz = malloc(floats * sizeof(float));
	if (!p->xyz) {
		free(buf);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	memcpy(p->xyz, buf + 24, floats * sizeof(float));
	free(buf);
	for (uint64_t i = 0; i < floats; i++) {
		if (!isfinite(p->xyz[i])) {
			free(p->xyz);
			p->xyz = NULL;
			return fail(err, errlen, "'%s': coordinate %" PRIu64 " is not finite",
				    path, i);
		}
	}
	p->n = hdr[0];
	p->nrand = hdr[1];
	return 0;
}

int tpacf_write_output(const char *path, const uint64_t *hist, uint32_t nrand)
{
	uint32_t hdr[4] = { tpacf_nhist(nrand), TPACF_NCOUNT, nrand, 0 };
	FILE *f = fopen(path, "wb");
	int rc = 0;

	if (!f) {
		return -1;
	}
	rc |= write_all(f, output_magic, 8);
	rc |= write_all(f, hdr, sizeof(hdr));
	rc |= write_all(f, hist, (size_t)hdr[0] * TPACF_NCOUNT * sizeof(uint64_t));
	if (fclose(f)) {
		rc = -1;
	}
	return rc;
}

uint64_t *tpacf_read_output(const char *path, uint32_t *nrand, char *err,
			    size_t errlen)
{
	size_t len = 0;
	char *buf = pb_read_file(path, &len);
	uint32_t hdr[4];
	uint64_t *hist;

	if (!buf) {
		fail(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (len < 24 || memcmp(buf, output_magic, 8)) {
		free(buf);
		fail(err, errlen, "'%s' is not a tpacf output file (bad magic)", path);
		return NULL;
	}
	memcpy(hdr, buf + 8, sizeof(hdr));
	if (hdr[2] > TPACF_MAX_SETS || hdr[0] != tpacf_nhist(hdr[2]) ||
	    hdr[1] != TPACF_NCOUNT ||
	    len != 24 + (uint64_t)hdr[0] * hdr[1] * sizeof(uint64_t)) {
		free(buf);
		fail(err, errlen, "'%s': header does not match the file size %zu", path, len);
		return NULL;
	}
	hist = malloc((size_t)hdr[0] * TPACF_NCOUNT * sizeof(uint64_t));
	if (hist) {
		memcpy(hist, buf + 24, (size_t)hdr[0] * TPACF_NCOUNT * sizeof(uint64_t));
		*nrand = hdr[2];
	} else {
		fail(err, errlen, "out of memory reading '%s'", path);
	}
	free(buf);
	return hist;
}

int tpacf_check_totals(uint32_t n, uint32_t nrand, uint32_t nrb,
		       const uint64_t *hist, const uint64_t *block_hist,
		       char *err, size_t errlen)
{
	for (uint32_t t = 0; t < tpacf_nhist(nrand); t++) {
		const uint64_t *h = hist + (size_t)t * TPACF_NCOUNT;
		uint64_t total = 0;

		for (int b = 0; b < TPACF_NCOUNT; b++) {
			uint64_t sum = 0;
			for (uint32_t r = 0; r < nrb; r++) {
				sum += block_hist[((size_t)t * nrb + r) * TPACF_NCOUNT + b];
			}
			if (sum != h[b]) {
				return fail(err, errlen,
					    "histogram %u bin %d: %" PRIu64
					    " but its blocks sum to %" PRIu64,
					    t, b, h[b], sum);
			}
			total += h[b];
		}
		if (total != tpacf_pairs(n, nrand, t)) {
			return fail(err, errlen,
				    "histogram %u counts %" PRIu64 " pairs, not %" PRIu64,
				    t, total, tpacf_pairs(n, nrand, t));
		}
	}
	return 0;
}
