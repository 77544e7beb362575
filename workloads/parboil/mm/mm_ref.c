/* SPDX-License-Identifier: MIT */
/*
 * mm's problem generator, file formats and sampled CPU check (see
 * mm_ref.h).
 */
#include "mm_ref.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

#define IN_MAGIC "PBMMIN01"
#define OUT_MAGIC "PBMMOUT1"
#define IN_HEADER 28		/* magic + 3 int32 + 2 float32 */
#define OUT_HEADER 16		/* magic + 2 int32 */

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

static int too_big(double m, double n, double k)
{
	return m * k > INT_MAX || k * n > INT_MAX || m * n > INT_MAX;
}

int pb_mm_sizes(double scale, int *m, int *n, int *k, char *err, size_t errlen)
{
	double d = floor(PB_MM_DIM * cbrt(scale) + 0.5);

	if (d < 1) {
		d = 1;
	}
	if (too_big(d, d, d)) {
		return fail(err, errlen, "scale %g gives matrices of more than "
			    "2^31 elements", scale);
	}
	*m = *n = *k = (int)d;
	return 0;
}

static int alloc(struct pb_mm_problem *p, int m, int n, int k)
{
	memset(p, 0, sizeof(*p));
	p->m = m;
	p->n = n;
	p->k = k;
	p->a = (float *)malloc((size_t)m * k * sizeof(float));
	p->b = (float *)malloc((size_t)k * n * sizeof(float));
	p->c = (float *)malloc((size_t)m * n * sizeof(float));
	return p->a && p->b && p->c ? 0 : -1;
}

static void fill(float *v, size_t count, struct pb_rng *r)
{
	for (size_t i = 0; i < count; i++) {
		v[i] = 2.0f * pb_rng_float(r) - 1.0f;
	}
}

void pb_mm_generate(struct pb_mm_problem *p, int m, int n, int k)
{
	struct pb_rng r;

	if (alloc(p, m, n, k)) {
		fprintf(stderr, "mm: out of memory for %dx%dx%d\n", m, n, k);
		exit(2);
	}
	p->alpha = 0.75f;
	p->beta = -0.5f;
	pb_rng_seed(&r, 0x73676d6d41ULL);
	fill(p->a, (size_t)m * k, &r);
	pb_rng_seed(&r, 0x73676d6d42ULL);
	fill(p->b, (size_t)k * n, &r);
	pb_rng_seed(&r, 0x73676d6d43ULL);
	fill(p->c, (size_t)m * n, &r);
}

void pb_mm_release(struct pb_mm_problem *p)
{
	free(p->a);
	free(p->b);
	free(p->c);
	memset(p, 0, sizeof(*p));
}

/* Dot product of row @i of A with the contiguous column @bcol of B. */
static double entry(const struct pb_mm_problem *p, int i, const float *bcol,
		    int j, double *mag)
{
	const float *arow = p->a + (size_t)i * p->k;
	double s = 0.0, abs_s = 0.0, c = p->c[(size_t)i * p->n + j];

	for (int kk = 0; kk < p->k; kk++) {
		double t = (double)arow[kk] * bcol[kk];
		s += t;
		abs_s += fabs(t);
	}
	*mag = fabs((double)p->alpha) * abs_s + fabs((double)p->beta * c);
	return (double)p->alpha * s + (double)p->beta * c;
}

double pb_mm_ref_entry(const struct pb_mm_problem *p, int i, int j,
		       double *mag)
{
	float *bcol = (float *)malloc((size_t)p->k * sizeof(float));
	double v;

	if (!bcol) {
		*mag = NAN;
		return NAN;
	}
	for (int kk = 0; kk < p->k; kk++) {
		bcol[kk] = p->b[(size_t)kk * p->n + j];
	}
	v = entry(p, i, bcol, j, mag);
	free(bcol);
	return v;
}

void pb_mm_samples(const struct pb_mm_problem *p, int *rows, int nrows,
		   int *cols, int ncols)
{
	struct pb_rng r;

	pb_rng_seed(&r, 0x73616d706c65ULL);
	for (int i = 0; i < nrows; i++) {
		rows[i] = i == 0 ? 0 : i == 1 ? p->m - 1
			: (int)pb_rng_below(&r, (uint32_t)p->m);
	}
	for (int j = 0; j < ncols; j++) {
		cols[j] = j == 0 ? 0 : j == 1 ? p->n - 1
			: (int)pb_rng_below(&r, (uint32_t)p->n);
	}
}

long pb_mm_check(const struct pb_mm_problem *p, const float *c,
		 const int *rows, int nrows, const int *cols, int ncols,
		 double tol, double *max_err)
{
	float *bt = (float *)malloc((size_t)ncols * p->k * sizeof(float));
	long bad = 0;

	*max_err = 0.0;
	if (!bt) {
		return -1;
	}
	/* The sampled columns of B, each made contiguous once. */
	for (int kk = 0; kk < p->k; kk++) {
		const float *brow = p->b + (size_t)kk * p->n;
		for (int j = 0; j < ncols; j++) {
			bt[(size_t)j * p->k + kk] = brow[cols[j]];
		}
	}
	for (int i = 0; i < nrows; i++) {
		for (int j = 0; j < ncols; j++) {
			double mag, ref = entry(p, rows[i], bt + (size_t)j * p->k,
						cols[j], &mag);
			double got = c[(size_t)rows[i] * p->n + cols[j]];
			double e = fabs(got - ref) / (mag > 0.0 ? mag : 1.0);

			if (isnan(e)) {
				e = INFINITY;
			}
			if (!(e <= tol)) {
				bad++;
			}
			if (e > *max_err) {
				*max_err = e;
			}
		}
	}
	free(bt);
	return bad;
}

static int put(FILE *f, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, f) == len ? 0 : -1;
}

int pb_mm_write_input(const char *path, const struct pb_mm_problem *p)
{
	int32_t h[3] = { p->m, p->n, p->k };
	float v[2] = { p->alpha, p->beta };
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f) {
		return -1;
	}
	ret |= put(f, IN_MAGIC, 8);
	ret |= put(f, h, sizeof(h));
	ret |= put(f, v, sizeof(v));
	ret |= put(f, p->a, (size_t)p->m * p->k * sizeof(float));
	ret |= put(f, p->b, (size_t)p->k * p->n * sizeof(float));
	ret |= put(f, p->c, (size_t)p->m * p->n * sizeof(float));
	if (fclose(f)) {
		ret = -1;
	}
	return ret;
}

int pb_mm_read_input(const char *path, struct pb_mm_problem *p, char *err,
		     size_t errlen)
{
	size_t len = 0, na, nb, nc;
	char *buf = (char *)pb_read_file(path, &len);
	int32_t h[3];
	float v[2];

	memset(p, 0, sizeof(*p));
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < IN_HEADER || memcmp(buf, IN_MAGIC, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not an mm input file", path);
	}
	memcpy(h, buf + 8, sizeof(h));
	memcpy(v, buf + 20, sizeof(v));
	if (h[0] < 1 || h[1] < 1 || h[2] < 1 || too_big(h[0], h[1], h[2])) {
		free(buf);
		return fail(err, errlen, "'%s': bad dimensions %dx%dx%d", path,
			    h[0], h[1], h[2]);
	}
	na = (size_t)h[0] * h[2];
	nb = (size_t)h[2] * h[1];
	nc = (size_t)h[0] * h[1];
	if (len != IN_HEADER + (na + nb + nc) * sizeof(float)) {
		free(buf);
		return fail(err, errlen, "'%s': size %zu does not match %dx%dx%d",
			    path, len, h[0], h[1], h[2]);
	}
	if (!isfinite(v[0]) || !isfinite(v[1])) {
		free(buf);
		return fail(err, errlen, "'%s': alpha or beta is not finite", path);
	}
	if (alloc(p, h[0], h[1], h[2])) {
		free(buf);
		pb_mm_release(p);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	p->alpha = v[0];
	p->beta = v[1];
	memcpy(p->a, buf + IN_HEADER, na * sizeof(float));
	memcpy(p->b, buf + IN_HEADER + na * sizeof(float), nb * sizeof(float));
	memcpy(p->c, buf + IN_HEADER + (na + nb) * sizeof(float),
	       nc * sizeof(float));
	free(buf);
	return 0;
}

int pb_mm_write_output(const char *path, int m, int n, const float *c)
{
	int32_t h[2] = { m, n };
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f) {
		return -1;
	}
	ret |= put(f, OUT_MAGIC, 8);
	ret |= put(f, h, sizeof(h));
	ret |= put(f, c, (size_t)m * n * sizeof(float));
	if (fclose(f)) {
		ret = -1;
	}
	return ret;
}

int pb_mm_read_output(const char *path, int *m, int *n, float **c, char *err,
		      size_t errlen)
{
	size_t len = 0, nc;
	char *buf = (char *)pb_read_file(path, &len);
	int32_t h[2];

	*c = NULL;
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < OUT_HEADER || memcmp(buf, OUT_MAGIC, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not an mm output file", path);
	}
	memcpy(h, buf + 8, sizeof(h));
	if (h[0] < 1 || h[1] < 1 || too_big(h[0], h[1], 1)) {
		free(buf);
		return fail(err, errlen, "'%s': bad dimensions", path);
	}
	nc = (size_t)h[0] * h[1];
	if (len != OUT_HEADER + nc * sizeof(float)) {
		free(buf);
		return fail(err, errlen, "'%s': size does not match %dx%d", path,
			    h[0], h[1]);
	}
	*c = (float *)malloc(nc * sizeof(float));
	if (!*c) {
		free(buf);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	memcpy(*c, buf + OUT_HEADER, nc * sizeof(float));
	*m = h[0];
	*n = h[1];
	free(buf);
	return 0;
}
