/* SPDX-License-Identifier: MIT */
/*
 * fft: batched 1-D complex FFTs (see fft_ref.h). Every signal of the batch
 * goes through FFT_ITERATIONS rounds of frequency-domain filtering: a
 * forward transform as log2(n) radix-2 Stockham passes, one pointwise
 * multiply by the filter, and an inverse transform as log2(n) more passes.
 * Each pass is its own short launch over the whole batch (Parboil's fft
 * likewise launches its global-memory FFT kernel many times), ping-ponging
 * between two buffers.
 *
 * fft_pass uses 32-thread blocks with few registers and no shared memory,
 * so the 32-resident-blocks-per-SM limit binds first (1024 of the 2048
 * thread slots): the suite's blocks-limited kernel. Every output element is
 * written by exactly one thread with a fixed operation order, so results
 * are bit-reproducible.
 */
#include <stdio.h>
#include <stdlib.h>

#include "fft_ref.h"
#include "pb.h"
#include "pb_cuda.h"

#define PASS_THREADS 32
#define FILTER_THREADS 256

/*
 * One butterfly per thread; thread g works on transform g / (n/2),
 * butterfly g mod (n/2). @total is batch * n/2.
 */
__global__ void __launch_bounds__(PASS_THREADS)
fft_pass(const struct fft_cplx *__restrict__ in, struct fft_cplx *__restrict__ out,
	 const struct fft_cplx *__restrict__ tw, unsigned log2n, unsigned ns,
	 unsigned total, int inverse)
{
	unsigned g = blockIdx.x * PASS_THREADS + threadIdx.x;

	if (g < total) {
		size_t base = (size_t)(g >> (log2n - 1)) << log2n;

		fft_butterfly(in + base, out + base, tw, 1u << log2n, ns,
			      g & ((1u << (log2n - 1)) - 1), inverse);
	}
}

/* x[i] *= h[i mod n] for the @total points of the batch, in place. */
__global__ void fft_apply_filter(struct fft_cplx *x, const struct fft_cplx *__restrict__ h,
				 unsigned nmask, unsigned total)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < total) {
		struct fft_cplx a = x[i], w = h[i & nmask], r;

		r.re = a.re * w.re - a.im * w.im;
		r.im = a.re * w.im + a.im * w.re;
		x[i] = r;
	}
}

int main(int argc, char **argv)
{
	struct pb_args args;
	struct fft_input in;
	char err[512], detail[256];

	pb_parse_args(argc, argv, "fft",
		      "batched radix-2 Stockham FFT filtering, many short launches",
		      &args);
	if (args.input) {
		if (fft_read_input(args.input, &in, err, sizeof(err))) {
			fprintf(stderr, "fft: %s\n", err);
			return 2;
		}
	} else if (fft_generate(&in, FFT_N, fft_batch_for_scale(args.scale),
				FFT_ITERATIONS, FFT_SEED, err, sizeof(err))) {
		fprintf(stderr, "fft: %s\n", err);
		return 2;
	}
	unsigned n = in.n, log2n = (unsigned)fft_log2(n);
	unsigned total = n * in.batch;
	size_t bytes = (size_t)total * sizeof(struct fft_cplx);
	struct fft_cplx *tw = (struct fft_cplx *)malloc(n / 2 * sizeof(*tw));
	struct fft_cplx *h = (struct fft_cplx *)malloc(n * sizeof(*h));
	struct fft_cplx *got = (struct fft_cplx *)malloc(bytes);
	if (!tw || !h || !got) {
		fprintf(stderr, "fft: out of memory\n");
		return 2;
	}
	fft_twiddles(n, tw);
	fft_filter(n, h);

	struct fft_cplx *d_a, *d_b, *d_tw, *d_h;
	PB_CHECK(cudaMalloc((void **)&d_a, bytes));
	PB_CHECK(cudaMalloc((void **)&d_b, bytes));
	PB_CHECK(cudaMalloc((void **)&d_tw, n / 2 * sizeof(*tw)));
	PB_CHECK(cudaMalloc((void **)&d_h, n * sizeof(*h)));
	PB_CHECK(cudaMemcpy(d_a, in.data, bytes, cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_tw, tw, n / 2 * sizeof(*tw), cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_h, h, n * sizeof(*h), cudaMemcpyHostToDevice));

	unsigned butterflies = total / 2;
	dim3 pass_grid((butterflies + PASS_THREADS - 1) / PASS_THREADS);
	dim3 pass_block(PASS_THREADS);
	dim3 filter_grid((total + FILTER_THREADS - 1) / FILTER_THREADS);
	dim3 filter_block(FILTER_THREADS);
	struct fft_cplx *cur = d_a, *other = d_b, *t;
	long passes = 0, filters = 0;

	for (unsigned it = 0; it < in.iterations; it++) {
		for (int inverse = 0; inverse < 2; inverse++) {
			for (unsigned p = 0; p < log2n; p++) {
				fft_pass<<<pass_grid, pass_block>>>(cur, other, d_tw, log2n,
								    1u << p, butterflies,
								    inverse);
				PB_CHECK_LAUNCH();
				passes++;
				t = cur;
				cur = other;
				other = t;
			}
			if (!inverse) {
				fft_apply_filter<<<filter_grid, filter_block>>>(cur, d_h, n - 1,
										total);
				PB_CHECK_LAUNCH();
				filters++;
			}
		}
	}
	PB_CHECK(cudaMemcpy(got, cur, bytes, cudaMemcpyDeviceToHost));
	PB_CHECK(cudaFree(d_a));
	PB_CHECK(cudaFree(d_b));
	PB_CHECK(cudaFree(d_tw));
	PB_CHECK(cudaFree(d_h));

	if (args.output && fft_write_output(args.output, n, in.batch, got, err,
					    sizeof(err))) {
		fprintf(stderr, "fft: %s\n", err);
		return 2;
	}
	if (args.report) {
		pb_report_kernel((const void *)fft_pass, "fft_pass", pass_grid,
				 pass_block, 0, passes);
		pb_report_kernel((const void *)fft_apply_filter, "fft_apply_filter",
				 filter_grid, filter_block, 0, filters);
	}

	/* Check FFT_SAMPLES signals spread over the batch in double precision. */
	unsigned samples = in.batch < FFT_SAMPLES ? in.batch : FFT_SAMPLES;
	double *x = (double *)malloc(2 * (size_t)n * sizeof(double));
	double worst = 0;
	unsigned worst_at = 0;
	if (!x) {
		fprintf(stderr, "fft: out of memory\n");
		return 2;
	}
	for (unsigned s = 0; s < samples; s++) {
		unsigned b = fft_sample_index(in.batch, samples, s);
		const struct fft_cplx *src = in.data + (size_t)b * n;

		for (unsigned i = 0; i < n; i++) {
			x[2 * i] = src[i].re;
			x[2 * i + 1] = src[i].im;
		}
		fft_reference(x, (int)log2n, h, in.iterations);
		double e = fft_rel_error(got + (size_t)b * n, x, n);
		if (!(e <= worst)) {
			worst = e;
			worst_at = b;
		}
	}
	int pass = worst <= FFT_TOLERANCE;
	snprintf(detail, sizeof(detail),
		 "%u transforms of %u points, %u iterations: %u sampled signals "
		 "%s %g relative L2 error (worst %.3g, signal %u)",
		 in.batch, n, in.iterations, samples, pass ? "within" : "NOT within",
		 FFT_TOLERANCE, worst, worst_at);
	free(x);
	free(tw);
	free(h);
	free(got);
	fft_input_release(&in);
	return pb_finish(&args, pass, detail);
}
