/* SPDX-License-Identifier: MIT */
/*
 * fft reference side: signal generator, file formats, twiddle and filter
 * tables, double-precision reference (see fft_ref.h).
 */
#include "fft_ref.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

static const char in_magic[8] = { 'P', 'B', 'F', 'F', 'T', 'I', 'N', '1' };
static const char out_magic[8] = { 'P', 'B', 'F', 'F', 'T', 'O', 'U', '1' };
static const double two_pi = 6.283185307179586476925286766559;

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (errlen) {
		vsnprintf(err, errlen, fmt, ap);
	}
	va_end(ap);
	return -1;
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static int write_file2(const char *path, const unsigned char *hdr,
		       size_t hdrlen, const void *data, size_t len, char *err,
		       size_t errlen)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f) {
		return fail(err, errlen, "cannot create '%s'", path);
	}
	ok = fwrite(hdr, 1, hdrlen, f) == hdrlen;
	ok = ok && (!len || fwrite(data, 1, len, f) == len);
	ok = (fclose(f) == 0) && ok;
	if (!ok) {
		return fail(err, errlen, "cannot write '%s'", path);
	}
	return 0;
}

uint32_t fft_batch_for_scale(double scale)
{
	double b = FFT_BASE_BATCH * scale + 0.5;

	if (b < 1) {
		return 1;
	}
	if (b > 4e9) {
		return 4000000000u;
	}
	return (uint32_t)b;
}

int fft_log2(uint32_t n)
{
	for (int l = 1; l <= FFT_MAX_LOG2N; l++) {
		if (n == (1u << l)) {
			return l;
		}
	}
	return -1;
}

/* Check the shape of a problem; 0 or -1 with a message. */
static int check_shape(uint32_t n, uint32_t batch, uint32_t iterations,
		       char *err, size_t errlen)
{
	if (fft_log2(n) < 0) {
		return fail(err, errlen, "%u points per transform is not a power "
			    "of two from 2 to 2^%d", n, FFT_MAX_LOG2N);
	}
	if (!batch || (uint64_t)n * batch > FFT_MAX_POINTS) {
		return fail(err, errlen, "a batch of %u transforms of %u points is "
			    "not supported (at most 2^28 points)", batch, n);
	}
	if (!iterations || iterations > FFT_MAX_ITERATIONS) {
		return fail(err, errlen, "%u iterations is not from 1 to %d",
			    iterations, FFT_MAX_ITERATIONS);
	}
	return 0;
}

int fft_generate(struct fft_input *in, uint32_t n, uint32_t batch,
		 uint32_t iterations, uint64_t seed, char *err, size_t errlen)
{
	struct pb_rng rng;
	size_t total;

	memset(in, 0, sizeof(*in));
	if (check_shape(n, batch, iterations, err, errlen)) {
		return -1;
	}
	total = (size_t)n * batch;
	in->data = malloc(total * sizeof(*in->data));
	if (!in->data) {
		return fail(err, errlen, "out of memory for %zu points", total);
	}
	in->n = n;
	in->batch = batch;
	in->iterations = iterations;
	pb_rng_seed(&rng, seed);
	for (size_t i = 0; i < total; i++) {
		in->data[i].re = 2.0f * pb_rng_float(&rng) - 1.0f;
		in->data[i].im = 2.0f * pb_rng_float(&rng) - 1.0f;
	}
	return 0;
}

void fft_input_release(struct fft_input *in)
{
	free(in->data);
	memset(in, 0, sizeof(*in));
}

int fft_write_input(const char *path, const struct fft_input *in, char *err,
		    size_t errlen)
{
	unsigned char hdr[24];

	memcpy(hdr, in_magic, 8);
	put_u32(hdr + 8, in->n);
	put_u32(hdr + 12, in->batch);
	put_u32(hdr + 16, in->iterations);
	put_u32(hdr + 20, 0);
	return write_file2(path, hdr, sizeof(hdr), in->data,
			   (size_t)in->n * in->batch * sizeof(*in->data), err,
			   errlen);
}

int fft_read_input(const char *path, struct fft_input *in, char *err,
		   size_t errlen)
{
	size_t len = 0, total;
	unsigned char *buf = pb_read_file(path, &len);
	int rc = -1;

	memset(in, 0, sizeof(*in));
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < 24 || memcmp(buf, in_magic, 8)) {
		fail(err, errlen, "'%s' is not an fft input file (bad magic)", path);
		goto out;
	}
	uint32_t n = get_u32(buf + 8), batch = get_u32(buf + 12);
	uint32_t iterations = get_u32(buf + 16);
	char why[256];
	if (check_shape(n, batch, iterations, why, sizeof(why))) {
		fail(err, errlen, "'%s': %s", path, why);
		goto out;
	}
	total = (size_t)n * batch;
	if (len != 24 + total * 8) {
		fail(err, errlen, "'%s': %zu bytes, expected %zu for %u transforms "
		     "of %u points", path, len, 24 + total * 8, batch, n);
		goto out;
	}
	in->data = malloc(total * sizeof(*in->data));
	if (!in->data) {
		fail(err, errlen, "out of memory reading '%s'", path);
		goto out;
	}
	memcpy(in->data, buf + 24, total * 8);
	for (size_t i = 0; i < total; i++) {
		if (!isfinite(in->data[i].re) || !isfinite(in->data[i].im)) {
			fail(err, errlen, "'%s': point %zu is not finite", path, i);
			goto out;
		}
	}
	in->n = n;
	in->batch = batch;
	in->iterations = iterations;
	rc = 0;
out:
	free(buf);
	if (rc) {
		fft_input_release(in);
	}
	return rc;
}

int fft_write_output(const char *path, uint32_t n, uint32_t batch,
		     const struct fft_cplx *data, char *err, size_t errlen)
{
	unsigned char hdr[16];

	memcpy(hdr, out_magic, 8);
	put_u32(hdr + 8, n);
	put_u32(hdr + 12, batch);
	return write_file2(path, hdr, sizeof(hdr), data,
			   (size_t)n * batch * sizeof(*data), err, errlen);
}

int fft_read_output(const char *path, uint32_t *n, uint32_t *batch,
		    struct fft_cplx **data, char *err, size_t errlen)
{
	size_t len = 0;
	unsigned char *buf = pb_read_file(path, &len);
	uint64_t total;

	*data = NULL;
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < 16 || memcmp(buf, out_magic, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not an fft output file (bad magic)",
			    path);
	}
	total = (uint64_t)get_u32(buf + 8) * get_u32(buf + 12);
	if (len != 16 + total * 8) {
		free(buf);
		return fail(err, errlen, "'%s': %zu bytes, expected %llu", path,
			    len, (unsigned long long)(16 + total * 8));
	}
	*data = malloc(total ? total * 8 : 8);
	if (!*data) {
		free(buf);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	memcpy(*data, buf + 16, total * 8);
	*n = get_u32(buf + 8);
	*batch = get_u32(buf + 12);
	free(buf);
	return 0;
}

void fft_twiddles(uint32_t n, struct fft_cplx *tw)
{
	for (uint32_t t = 0; t < n / 2; t++) {
		double a = two_pi * t / n;

		tw[t].re = (float)cos(a);
		tw[t].im = (float)-sin(a);
	}
}

void fft_filter(uint32_t n, struct fft_cplx *h)
{
	for (uint32_t k = 0; k < n; k++) {
		uint64_t q = ((uint64_t)k * k + 3ull * k) % n;
		double a = two_pi * (double)q / n;

		h[k].re = (float)(cos(a) / n);
		h[k].im = (float)(sin(a) / n);
	}
}

void fft_double(double *x, int log2n, int inverse)
{
	uint32_t n = 1u << log2n;
	double sign = inverse ? 1.0 : -1.0;

	for (uint32_t i = 0, j = 0; i < n; i++) {
		if (i < j) {
			double r = x[2 * i], m = x[2 * i + 1];

			x[2 * i] = x[2 * j];
			x[2 * i + 1] = x[2 * j + 1];
			x[2 * j] = r;
			x[2 * j + 1] = m;
		}
		uint32_t bit = n >> 1;
		while (bit && (j & bit)) {
			j ^= bit;
			bit >>= 1;
		}
		j |= bit;
	}
	for (uint32_t len = 2; len <= n; len <<= 1) {
		for (uint32_t k = 0; k < len / 2; k++) {
			double a = sign * two_pi * k / len;
			double wr = cos(a), wi = sin(a);

			for (uint32_t s = 0; s < n; s += len) {
				double *p = x + 2 * (s + k);
				double *q = x + 2 * (s + k + len / 2);
				double tr = q[0] * wr - q[1] * wi;
				double ti = q[0] * wi + q[1] * wr;

				q[0] = p[0] - tr;
				q[1] = p[1] - ti;
				p[0] += tr;
				p[1] += ti;
			}
		}
	}
}

void fft_reference(double *x, int log2n, const struct fft_cplx *h,
		   uint32_t iterations)
{
	uint32_t n = 1u << log2n;

	for (uint32_t it = 0; it < iterations; it++) {
		fft_double(x, log2n, 0);
		for (uint32_t k = 0; k < n; k++) {
			double r = x[2 * k], m = x[2 * k + 1];
			double hr = h[k].re, hi = h[k].im;

			x[2 * k] = r * hr - m * hi;
			x[2 * k + 1] = r * hi + m * hr;
		}
		fft_double(x, log2n, 1);
	}
}

double fft_rel_error(const struct fft_cplx *got, const double *want,
		     uint32_t n)
{
	double num = 0, den = 0;

	for (uint32_t i = 0; i < n; i++) {
		double dr = got[i].re - want[2 * i];
		double di = got[i].im - want[2 * i + 1];

		if (!isfinite(got[i].re) || !isfinite(got[i].im)) {
			return INFINITY;
		}
		num += dr * dr + di * di;
		den += want[2 * i] * want[2 * i] + want[2 * i + 1] * want[2 * i + 1];
	}
	if (den == 0) {
		return num == 0 ? 0 : INFINITY;
	}
	return sqrt(num / den);
}

uint32_t fft_sample_index(uint32_t batch, uint32_t count, uint32_t i)
{
	if (count <= 1 || batch <= 1) {
		return 0;
	}
	return (uint32_t)((uint64_t)i * (batch - 1) / (count - 1));
}
