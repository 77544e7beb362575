/* SPDX-License-Identifier: MIT */
/*
 * mri-q's problem generator, file formats and CPU reference (see
 * mri-q_ref.h).
 */
#include "mri-q_ref.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

#define IN_MAGIC "PBMRIQI1"
#define OUT_MAGIC "PBMRIQO1"
#define MAX_COUNT (1 << 28)

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

int pb_mriq_sizes(double scale, int *numk, int *numx, char *err, size_t errlen)
{
	double r = sqrt(scale);
	double k = floor(PB_MRIQ_NUMK * r + 0.5), x = floor(PB_MRIQ_NUMX * r + 0.5);

	if (k > MAX_COUNT || x > MAX_COUNT) {
		return fail(err, errlen, "scale %g is too large", scale);
	}
	*numk = k < 1 ? 1 : (int)k;
	*numx = x < 1 ? 1 : (int)x;
	return 0;
}

static int alloc(struct pb_mriq_problem *p, int numk, int numx)
{
	float **karr[] = { &p->kx, &p->ky, &p->kz, &p->phir, &p->phii };
	float **xarr[] = { &p->x, &p->y, &p->z };

	memset(p, 0, sizeof(*p));
	p->numk = numk;
	p->numx = numx;
	for (int i = 0; i < 5; i++) {
		*karr[i] = (float *)malloc((size_t)numk * sizeof(float));
		if (!*karr[i]) {
			return -1;
		}
	}
	for (int i = 0; i < 3; i++) {
		*xarr[i] = (float *)malloc((size_t)numx * sizeof(float));
		if (!*xarr[i]) {
			return -1;
		}
	}
	return 0;
}

void pb_mriq_generate(struct pb_mriq_problem *p, int numk, int numx)
{
	struct pb_rng r;

	if (alloc(p, numk, numx)) {
		fprintf(stderr, "mri-q: out of memory\n");
		exit(2);
	}
	pb_rng_seed(&r, 0x6d72692d71ULL);
	/* k-space: a jittered 3-D sampling of [-1, 1)^3 (cycles per unit). */
	for (int k = 0; k < numk; k++) {
		p->kx[k] = 2.0f * pb_rng_float(&r) - 1.0f;
		p->ky[k] = 2.0f * pb_rng_float(&r) - 1.0f;
		p->kz[k] = 2.0f * pb_rng_float(&r) - 1.0f;
		p->phir[k] = 2.0f * pb_rng_float(&r) - 1.0f;
		p->phii[k] = 2.0f * pb_rng_float(&r) - 1.0f;
	}
	/* Voxels anywhere in a field of view of [-16, 16)^3. */
	for (int v = 0; v < numx; v++) {
		p->x[v] = 32.0f * pb_rng_float(&r) - 16.0f;
		p->y[v] = 32.0f * pb_rng_float(&r) - 16.0f;
		p->z[v] = 32.0f * pb_rng_float(&r) - 16.0f;
	}
}

void pb_mriq_release(struct pb_mriq_problem *p)
{
	free(p->kx);
	free(p->ky);
	free(p->kz);
	free(p->phir);
	free(p->phii);
	free(p->x);
	free(p->y);
	free(p->z);
	memset(p, 0, sizeof(*p));
}

float pb_mriq_phimag(const struct pb_mriq_problem *p, int k)
{
	float r = p->phir[k] * p->phir[k];
	float i = p->phii[k] * p->phii[k];

	return r + i;
}

void pb_mriq_q_ref(const struct pb_mriq_problem *p, int v, double *qr,
		   double *qi)
{
	const double two_pi = 6.283185307179586476925;
	double x = p->x[v], y = p->y[v], z = p->z[v], sr = 0.0, si = 0.0;

	for (int k = 0; k < p->numk; k++) {
		double pr = p->phir[k], pi = p->phii[k];
		double mag = pr * pr + pi * pi;
		double arg = two_pi * ((double)p->kx[k] * x + (double)p->ky[k] * y +
				       (double)p->kz[k] * z);

		sr += mag * cos(arg);
		si += mag * sin(arg);
	}
	*qr = sr;
	*qi = si;
}

double pb_mriq_q_scale(const struct pb_mriq_problem *p)
{
	double s = 0.0;

	for (int k = 0; k < p->numk; k++) {
		double pr = p->phir[k], pi = p->phii[k];
		double mag = pr * pr + pi * pi;
		s += mag * mag;
	}
	return sqrt(s);
}

void pb_mriq_samples(const struct pb_mriq_problem *p, int *v, int count)
{
	struct pb_rng r;

	pb_rng_seed(&r, 0x73616d706c6573ULL);
	for (int i = 0; i < count; i++) {
		if (i == 0) {
			v[i] = 0;
		} else if (i == 1) {
			v[i] = p->numx - 1;
		} else {
			v[i] = (int)pb_rng_below(&r, (uint32_t)p->numx);
		}
	}
}

int pb_mriq_check(const struct pb_mriq_problem *p, const float *qr,
		  const float *qi, const int *v, int count, double tol,
		  double *max_err)
{
	double scale = pb_mriq_q_scale(p);
	int bad = 0;

	if (!(scale > 0.0)) {
		scale = 1.0;
	}
	*max_err = 0.0;
	for (int i = 0; i < count; i++) {
		double rr, ri;

		pb_mriq_q_ref(p, v[i], &rr, &ri);
		double er = fabs((double)qr[v[i]] - rr) / scale;
		double ei = fabs((double)qi[v[i]] - ri) / scale;
		double e = er > ei ? er : ei;

		if (isnan(er) || isnan(ei)) {
			e = INFINITY;
		}
		if (!(e <= tol)) {
			bad++;
		}
		if (e > *max_err) {
			*max_err = e;
		}
	}
	return bad;
}

static int put(FILE *f, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, f) == len ? 0 : -1;
}

int pb_mriq_write_input(const char *path, const struct pb_mriq_problem *p)
{
	int32_t h[2] = { p->numk, p->numx };
	size_t kb = (size_t)p->numk * sizeof(float);
	size_t xb = (size_t)p->numx * sizeof(float);
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f) {
		return -1;
	}
	ret |= put(f, IN_MAGIC, 8);
	ret |= put(f, h, sizeof(h));
	ret |= put(f, p->kx, kb);
	ret |= put(f, p->ky, kb);
	ret |= put(f, p->kz, kb);
	ret |= put(f, p->phir, kb);
	ret |= put(f, p->phii, kb);
	ret |= put(f, p->x, xb);
	ret |= put(f, p->y, xb);
	ret |= put(f, p->z, xb);
	if (fclose(f)) {
		ret = -1;
	}
	return ret;
}

int pb_mriq_read_input(const char *path, struct pb_mriq_problem *p, char *err,
		       size_t errlen)
{
	size_t len = 0, kb, xb, off = 16;
	char *buf = (char *)pb_read_file(path, &len);
	int32_t h[2];

	memset(p, 0, sizeof(*p));
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < 16 || memcmp(buf, IN_MAGIC, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not an mri-q input file", path);
	}
	memcpy(h, buf + 8, sizeof(h));
	if (h[0] < 1 || h[1] < 1 || h[0] > MAX_COUNT || h[1] > MAX_COUNT) {
		free(buf);
		return fail(err, errlen, "'%s': bad sizes numk=%d numx=%d", path,
			    h[0], h[1]);
	}
	kb = (size_t)h[0] * sizeof(float);
	xb = (size_t)h[1] * sizeof(float);
	if (len != 16 + 5 * kb + 3 * xb) {
		free(buf);
		return fail(err, errlen, "'%s': size %zu does not match numk=%d "
			    "numx=%d", path, len, h[0], h[1]);
	}
	if (alloc(p, h[0], h[1])) {
		free(buf);
		pb_mriq_release(p);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	float *karr[] = { p->kx, p->ky, p->kz, p->phir, p->phii };
	float *xarr[] = { p->x, p->y, p->z };
	for (int i = 0; i < 5; i++, off += kb) {
		memcpy(karr[i], buf + off, kb);
	}
	for (int i = 0; i < 3; i++, off += xb) {
		memcpy(xarr[i], buf + off, xb);
	}
	free(buf);
	for (int i = 0; i < 5; i++) {
		for (int k = 0; k < p->numk; k++) {
			if (!isfinite(karr[i][k]) || fabsf(karr[i][k]) > 1e6f) {
				pb_mriq_release(p);
				return fail(err, errlen, "'%s': sample %d has a "
					    "non-finite or huge value", path, k);
			}
		}
	}
	for (int i = 0; i < 3; i++) {
		for (int v = 0; v < p->numx; v++) {
			if (!isfinite(xarr[i][v]) || fabsf(xarr[i][v]) > 1e6f) {
				pb_mriq_release(p);
				return fail(err, errlen, "'%s': voxel %d has a "
					    "non-finite or huge coordinate",
					    path, v);
			}
		}
	}
	return 0;
}

int pb_mriq_write_output(const char *path, int numx, const float *qr,
			 const float *qi)
{
	int32_t h = numx;
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f) {
		return -1;
	}
	ret |= put(f, OUT_MAGIC, 8);
	ret |= put(f, &h, sizeof(h));
	ret |= put(f, qr, (size_t)numx * sizeof(float));
	ret |= put(f, qi, (size_t)numx * sizeof(float));
	if (fclose(f)) {
		ret = -1;
	}
	return ret;
}

int pb_mriq_read_output(const char *path, int *numx, float **qr, float **qi,
			char *err, size_t errlen)
{
	size_t len = 0, xb;
	char *buf = (char *)pb_read_file(path, &len);
	int32_t h;

	*qr = *qi = NULL;
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < 12 || memcmp(buf, OUT_MAGIC, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not an mri-q output file", path);
	}
	memcpy(&h, buf + 8, sizeof(h));
	xb = h > 0 && h <= MAX_COUNT ? (size_t)h * sizeof(float) : 0;
	if (!xb || len != 12 + 2 * xb) {
		free(buf);
		return fail(err, errlen, "'%s': bad size", path);
	}
	*qr = (float *)malloc(xb);
	*qi = (float *)malloc(xb);
	if (!*qr || !*qi) {
		free(*qr);
		free(*qi);
		*qr = *qi = NULL;
		free(buf);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	memcpy(*qr, buf + 12, xb);
	memcpy(*qi, buf + 12 + xb, xb);
	*numx = h;
	free(buf);
	return 0;
}
