/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the fft reference (workloads/parboil/fft/fft_ref.c): the
 * double FFT against a naive DFT and hand-computed transforms, the GPU's
 * Stockham butterfly run on the CPU against the double FFT, the filter
 * pipeline, the generator's determinism, the -i/-o round trips and the
 * errors on bad files.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "workloads/parboil/common/pb.h"
#include "workloads/parboil/fft/fft_ref.h"

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

static void naive_dft(const double *x, double *y, uint32_t n, int inverse)
{
	double sign = inverse ? 1 : -1;

	for (uint32_t k = 0; k < n; k++) {
		double re = 0, im = 0;
		for (uint32_t t = 0; t < n; t++) {
			double a = sign * 2 * M_PI * (double)((uint64_t)k * t % n) / n;
			re += x[2 * t] * cos(a) - x[2 * t + 1] * sin(a);
			im += x[2 * t] * sin(a) + x[2 * t + 1] * cos(a);
		}
		y[2 * k] = re;
		y[2 * k + 1] = im;
	}
}

static double max_diff(const double *a, const double *b, uint32_t n)
{
	double m = 0;
	for (uint32_t i = 0; i < 2 * n; i++) {
		double d = fabs(a[i] - b[i]);
		m = d > m ? d : m;
	}
	return m;
}

static void test_double_fft(void)
{
	double x[8] = { 1, 0, 0, 0, 0, 0, 0, 0 };
	fft_double(x, 2, 0);
	CHECK(x[0] == 1 && x[2] == 1 && x[4] == 1 && x[6] == 1 && x[1] == 0 &&
	      x[7] == 0, "DFT of a delta is all ones");

	double c[8] = { 1, 0, 1, 0, 1, 0, 1, 0 };
	fft_double(c, 2, 0);
	CHECK_NEAR(c[0], 4, 1e-15, "DFT of ones: DC is n");
	CHECK_NEAR(fabs(c[2]) + fabs(c[3]) + fabs(c[4]) + fabs(c[6]), 0, 1e-15,
		   "DFT of ones: other bins are 0");

	/* x[t] = i^t (frequency 1 of 4) -> energy in bin 1 */
	double e[8] = { 1, 0, 0, 1, -1, 0, 0, -1 };
	fft_double(e, 2, 1);	/* inverse has exponent +: peak at bin 3 */
	CHECK_NEAR(e[6], 4, 1e-15, "inverse transform of i^t peaks at bin 3");

	struct pb_rng rng;
	pb_rng_seed(&rng, 5);
	for (int l = 1; l <= 7; l++) {
		uint32_t n = 1u << l;
		double *a = malloc(16 * n), *y = malloc(16 * n);
		for (uint32_t i = 0; i < 2 * n; i++) {
			a[i] = 2 * pb_rng_float(&rng) - 1;
		}
		naive_dft(a, y, n, l & 1);
		fft_double(a, l, l & 1);
		char what[64];
		snprintf(what, sizeof(what), "fft_double matches a naive DFT, n=%u", n);
		CHECK(max_diff(a, y, n) < 1e-12, what);
		free(a);
		free(y);
	}
}

/*
 * The GPU pipeline on the CPU: the same butterflies, passes, buffer swaps
 * and filter as fft.cu, in float.
 */
static void emulate(struct fft_cplx *data, uint32_t n, uint32_t batch,
		    uint32_t iterations)
{
	int log2n = fft_log2(n);
	struct fft_cplx *tw = malloc(n / 2 * 8), *h = malloc(n * 8);
	struct fft_cplx *other = malloc((size_t)n * batch * 8), *cur = data, *t;

	fft_twiddles(n, tw);
	fft_filter(n, h);
	for (uint32_t it = 0; it < iterations; it++) {
		for (int inv = 0; inv < 2; inv++) {
			for (int p = 0; p < log2n; p++) {
				for (uint32_t g = 0; g < n / 2 * batch; g++) {
					size_t base = (size_t)(g >> (log2n - 1)) << log2n;
					fft_butterfly(cur + base, other + base, tw, n,
						      1u << p, g & (n / 2 - 1), inv);
				}
				t = cur;
				cur = other;
				other = t;
			}
			if (!inv) {
				for (size_t i = 0; i < (size_t)n * batch; i++) {
					struct fft_cplx a = cur[i], w = h[i & (n - 1)];
					cur[i].re = a.re * w.re - a.im * w.im;
					cur[i].im = a.re * w.im + a.im * w.re;
				}
			}
		}
	}
	if (cur != data) {
		memcpy(data, cur, (size_t)n * batch * 8);
		other = cur;
	}
	free(other);
	free(tw);
	free(h);
}

static void test_stockham(void)
{
	struct fft_input in;
	char err[256];

	for (int l = 1; l <= 11; l += 2) {
		uint32_t n = 1u << l;
		CHECK_INT(fft_generate(&in, n, 3, 1, 9, err, sizeof(err)), 0, "generate");
		struct fft_cplx *tw = malloc(n / 2 * 8);
		struct fft_cplx *a = malloc(n * 8), *b = malloc(n * 8), *t;
		double *x = malloc(16 * n);
		fft_twiddles(n, tw);
		memcpy(a, in.data + n, n * 8);	/* the second transform */
		for (uint32_t i = 0; i < n; i++) {
			x[2 * i] = a[i].re;
			x[2 * i + 1] = a[i].im;
		}
		for (int p = 0; p < l; p++) {
			for (uint32_t j = 0; j < n / 2; j++) {
				fft_butterfly(a, b, tw, n, 1u << p, j, 0);
			}
			t = a;
			a = b;
			b = t;
		}
		fft_double(x, l, 0);
		double e = fft_rel_error(a, x, n);
		char what[80];
		snprintf(what, sizeof(what),
			 "Stockham passes equal the double FFT, n=%u (err %.2g)", n, e);
		CHECK(e < 2e-6, what);
		free(tw);
		free(a);
		free(b);
		free(x);
		fft_input_release(&in);
	}

	/* The whole filter pipeline, float emulation against the reference. */
	uint32_t n = 256, batch = 5, iters = 6;
	CHECK_INT(fft_generate(&in, n, batch, iters, 11, err, sizeof(err)), 0,
		  "generate a batch");
	struct fft_cplx *data = malloc((size_t)n * batch * 8), *h = malloc(n * 8);
	memcpy(data, in.data, (size_t)n * batch * 8);
	emulate(data, n, batch, iters);
	fft_filter(n, h);
	double worst = 0, norm_in = 0, norm_out = 0;
	for (uint32_t s = 0; s < batch; s++) {
		double x[512];
		for (uint32_t i = 0; i < n; i++) {
			x[2 * i] = in.data[s * n + i].re;
			x[2 * i + 1] = in.data[s * n + i].im;
			norm_in += x[2 * i] * x[2 * i] + x[2 * i + 1] * x[2 * i + 1];
		}
		fft_reference(x, 8, h, iters);
		for (uint32_t i = 0; i < 2 * n; i++) {
			norm_out += x[i] * x[i];
		}
		double e = fft_rel_error(data + s * n, x, n);
		worst = e > worst ? e : worst;
	}
	CHECK(worst < 1e-5, "emulated GPU pipeline matches the reference");
	CHECK_NEAR(norm_out / norm_in, 1, 1e-5, "the all-pass filter keeps the norm");
	data[7].im = NAN;
	double x[512] = { 0 };
	CHECK(isinf(fft_rel_error(data, x, n)), "NaN never passes");
	free(data);
	free(h);
	fft_input_release(&in);
}

static void test_tables(void)
{
	struct fft_cplx tw[8], h[16];

	fft_twiddles(16, tw);
	CHECK(tw[0].re == 1 && tw[0].im == 0, "twiddle 0 is 1");
	CHECK_NEAR(tw[4].re, 0, 1e-7, "twiddle n/4 is -i (re)");
	CHECK_NEAR(tw[4].im, -1, 1e-7, "twiddle n/4 is -i (im)");
	CHECK_NEAR(tw[2].re, sqrt(0.5), 1e-7, "twiddle n/8 (re)");
	CHECK_NEAR(tw[2].im, -sqrt(0.5), 1e-7, "twiddle n/8 (im)");
	fft_filter(16, h);
	CHECK(h[0].re == 1.0f / 16 && h[0].im == 0, "H[0] = 1/n");
	int mag = 1;
	for (int k = 0; k < 16; k++) {
		mag &= fabs(hypot(h[k].re, h[k].im) - 1.0 / 16) < 1e-8;
	}
	CHECK(mag, "|H| = 1/n");
	/* phi_1 = 2 pi 4/16 = pi/2 */
	CHECK_NEAR(h[1].im, 1.0 / 16, 1e-8, "H[1] = i/n");

	CHECK_INT(fft_log2(4096), 12, "log2 4096");
	CHECK_INT(fft_log2(1), -1, "1 point is refused");
	CHECK_INT(fft_log2(48), -1, "48 is not a power of two");
	CHECK_INT(fft_sample_index(100, 16, 0), 0, "first sample");
	CHECK_INT(fft_sample_index(100, 16, 15), 99, "last sample");
	CHECK_INT(fft_sample_index(1, 1, 0), 0, "single signal");
	CHECK_INT(fft_batch_for_scale(1), FFT_BASE_BATCH, "scale 1 batch");
	CHECK_INT(fft_batch_for_scale(0.01), 41, "scale 0.01 batch");
}

static void test_files(void)
{
	struct fft_input a, b, r;
	char err[256];

	CHECK_INT(fft_generate(&a, 64, 10, 3, 1, err, sizeof(err)), 0, "generate");
	CHECK_INT(fft_generate(&b, 64, 10, 3, 1, err, sizeof(err)), 0, "again");
	CHECK(!memcmp(a.data, b.data, 64 * 10 * 8), "same seed, same signals");
	int range = 1;
	for (int i = 0; i < 640; i++) {
		range &= a.data[i].re >= -1 && a.data[i].re < 1 &&
			 a.data[i].im >= -1 && a.data[i].im < 1;
	}
	CHECK(range, "values in [-1, 1)");
	fft_input_release(&b);
	CHECK_INT(fft_generate(&b, 48, 10, 3, 1, err, sizeof(err)), -1,
		  "n not a power of two");
	CHECK(strstr(err, "power of two") != NULL, "message says why");
	CHECK_INT(fft_generate(&b, 4096, 1u << 17, 3, 1, err, sizeof(err)), -1,
		  "too many points");
	CHECK_INT(fft_generate(&b, 64, 1, 0, 1, err, sizeof(err)), -1,
		  "zero iterations");

	CHECK_INT(fft_write_input(tmp_path("in.bin"), &a, err, sizeof(err)), 0,
		  "write input");
	CHECK_INT(fft_read_input(tmp_path("in.bin"), &r, err, sizeof(err)), 0,
		  "read input back");
	CHECK(r.n == 64 && r.batch == 10 && r.iterations == 3 &&
	      !memcmp(r.data, a.data, 640 * 8), "input round trip");
	fft_input_release(&r);

	struct fft_cplx *back;
	uint32_t n, batch;
	CHECK_INT(fft_write_output(tmp_path("out.bin"), 64, 10, a.data, err,
				   sizeof(err)), 0, "write output");
	CHECK_INT(fft_read_output(tmp_path("out.bin"), &n, &batch, &back, err,
				  sizeof(err)), 0, "read output back");
	CHECK(n == 64 && batch == 10 && !memcmp(back, a.data, 640 * 8),
	      "output round trip");
	free(back);

	CHECK_INT(fft_read_input(tmp_path("none"), &r, err, sizeof(err)), -1,
		  "missing file");
	CHECK_INT(fft_read_input(tmp_path("out.bin"), &r, err, sizeof(err)), -1,
		  "an output is not an input");
	CHECK(strstr(err, "bad magic") != NULL, "bad magic message");
	CHECK_INT(fft_read_output(tmp_path("in.bin"), &n, &batch, &back, err,
				  sizeof(err)), -1, "an input is not an output");

	size_t len = 0;
	unsigned char *buf = pb_read_file(tmp_path("in.bin"), &len);
	if (!CHECK(buf && len == 24 + 640 * 8, "input file size")) {
		return;
	}
	pb_write_file(tmp_path("short.bin"), buf, len - 8);
	CHECK_INT(fft_read_input(tmp_path("short.bin"), &r, err, sizeof(err)), -1,
		  "truncated input");
	CHECK(strstr(err, "bytes, expected") != NULL, "truncation message");

	float nan = NAN;
	memcpy(buf + 24 + 8 * 100, &nan, 4);
	pb_write_file(tmp_path("nan.bin"), buf, len);
	CHECK_INT(fft_read_input(tmp_path("nan.bin"), &r, err, sizeof(err)), -1,
		  "NaN input");
	CHECK(strstr(err, "not finite") != NULL, "NaN message");

	buf[8] = 48;	/* n = 48 */
	pb_write_file(tmp_path("badn.bin"), buf, len);
	CHECK_INT(fft_read_input(tmp_path("badn.bin"), &r, err, sizeof(err)), -1,
		  "n not a power of two in a file");
	CHECK(strstr(err, "power of two") != NULL, "bad n message");
	free(buf);
	fft_input_release(&a);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_parboil_fft.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_double_fft();
	test_stockham();
	test_tables();
	test_files();
	const char *names[] = { "in.bin", "out.bin", "short.bin", "nan.bin",
				"badn.bin" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		unlink(tmp_path(names[i]));
	}
	rmdir(tmpdir);
	return test_done();
}
