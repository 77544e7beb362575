/* SPDX-License-Identifier: MIT */
/*
 * histo: a saturating 2-D histogram of a large image (see histo_ref.h),
 * computed HISTO_ITERATIONS times in a row as Parboil's histo does, so the
 * program issues thousands of short launches. Each iteration is three
 * kernels: histo_clear zeroes the 32-bit global counts, histo_main counts
 * the image into a private per-block histogram in 96 KB of dynamic shared
 * memory (shared-memory atomics) and merges it into the global counts
 * (global atomics), histo_final saturates the counts into the 8-bit
 * histogram. Integer atomics commute, so the result does not depend on
 * scheduling. histo_main's shared memory is what limits how many of its
 * blocks an SM holds (2), by design.
 */
#include <stdio.h>
#include <stdlib.h>

#include "histo_ref.h"
#include "pb.h"
#include "pb_cuda.h"

#define MAIN_THREADS 512
#define MAIN_SMEM (HISTO_BINS * sizeof(unsigned))	/* 98304 bytes */
#define CLEAR_THREADS 256

__global__ void histo_clear(unsigned *counts)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;

	if (i < HISTO_BINS) {
		counts[i] = 0;
	}
}

/* Count the eight 16-bit pixels of @v. */
__device__ __forceinline__ void count8(unsigned *hist, uint4 v)
{
	atomicAdd(&hist[v.x & 0xffff], 1u);
	atomicAdd(&hist[v.x >> 16], 1u);
	atomicAdd(&hist[v.y & 0xffff], 1u);
	atomicAdd(&hist[v.y >> 16], 1u);
	atomicAdd(&hist[v.z & 0xffff], 1u);
	atomicAdd(&hist[v.z >> 16], 1u);
	atomicAdd(&hist[v.w & 0xffff], 1u);
	atomicAdd(&hist[v.w >> 16], 1u);
}

/*
 * Grid-stride over the image, eight 16-bit pixels (one 16-byte load) at a
 * time with two loads in flight per thread, then the tail of fewer than
 * eight pixels. Every pixel is a valid bin (the input reader and the
 * generator guarantee it). At most 40 registers (__launch_bounds__ asks for
 * three blocks' worth) keep registers from binding before shared memory.
 */
__global__ void __launch_bounds__(MAIN_THREADS, 3)
histo_main(const uint4 *__restrict__ img8, const unsigned short *__restrict__ img,
	   unsigned n, unsigned *counts)
{
	extern __shared__ unsigned hist[];
	unsigned stride = gridDim.x * blockDim.x;
	unsigned first = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned n8 = n / 8, i;

	for (unsigned b = threadIdx.x; b < HISTO_BINS; b += blockDim.x) {
		hist[b] = 0;
	}
	__syncthreads();
	for (i = first; i + stride < n8; i += 2 * stride) {
		uint4 a = __ldg(&img8[i]);
		uint4 b = __ldg(&img8[i + stride]);

		count8(hist, a);
		count8(hist, b);
	}
	if (i < n8) {
		count8(hist, __ldg(&img8[i]));
	}
	for (i = n8 * 8 + first; i < n; i += stride) {
		atomicAdd(&hist[img[i]], 1u);
	}
	__syncthreads();
	for (unsigned b = threadIdx.x; b < HISTO_BINS; b += blockDim.x) {
		unsigned c = hist[b];

		if (c) {
			atomicAdd(&counts[b], c);
		}
	}
}

/* One thread per bin of the 2-D histogram: a 2-D grid of 2-D blocks. */
__global__ void histo_final(const unsigned *counts, unsigned char *out)
{
	unsigned x = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned y = blockIdx.y * blockDim.y + threadIdx.y;

	if (x < HISTO_BINS_X && y < HISTO_BINS_Y) {
		unsigned c = counts[y * HISTO_BINS_X + x];

		out[y * HISTO_BINS_X + x] =
			(unsigned char)(c < HISTO_SATURATE ? c : HISTO_SATURATE);
	}
}

int main(int argc, char **argv)
{
	struct pb_args args;
	struct histo_image img;
	char err[512], detail[256];
	int sms = 0, per_sm = 0, dev;

	pb_parse_args(argc, argv, "histo",
		      "saturating 2-D histogram with shared-memory privatization",
		      &args);
	if (args.input) {
		if (histo_read_input(args.input, &img, err, sizeof(err))) {
			fprintf(stderr, "histo: %s\n", err);
			return 2;
		}
	} else if (histo_generate(&img, HISTO_WIDTH,
				  histo_height_for_scale(args.scale), HISTO_SEED,
				  err, sizeof(err))) {
		fprintf(stderr, "histo: %s\n", err);
		return 2;
	}
	unsigned n = img.width * img.height;

	PB_CHECK(cudaGetDevice(&dev));
	PB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	PB_CHECK(cudaFuncSetAttribute(histo_main,
				      cudaFuncAttributeMaxDynamicSharedMemorySize,
				      (int)MAIN_SMEM));
	PB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, histo_main,
							       MAIN_THREADS,
							       MAIN_SMEM));
	if (per_sm < 1) {
		fprintf(stderr, "histo: histo_main cannot be resident on this device\n");
		return 2;
	}

	unsigned short *d_img;
	unsigned *d_counts;
	unsigned char *d_out;
	size_t img_bytes = (size_t)n * sizeof(unsigned short);
	PB_CHECK(cudaMalloc((void **)&d_img, img_bytes + 16));
	PB_CHECK(cudaMalloc((void **)&d_counts, HISTO_BINS * sizeof(unsigned)));
	PB_CHECK(cudaMalloc((void **)&d_out, HISTO_BINS));
	PB_CHECK(cudaMemcpy(d_img, img.pixels, img_bytes, cudaMemcpyHostToDevice));

	dim3 clear_grid((HISTO_BINS + CLEAR_THREADS - 1) / CLEAR_THREADS);
	dim3 clear_block(CLEAR_THREADS);
	dim3 main_grid(per_sm * sms), main_block(MAIN_THREADS);
	dim3 final_block(32, 8);
	dim3 final_grid(HISTO_BINS_X / 32, HISTO_BINS_Y / 8);
	for (int it = 0; it < HISTO_ITERATIONS; it++) {
		histo_clear<<<clear_grid, clear_block>>>(d_counts);
		PB_CHECK_LAUNCH();
		histo_main<<<main_grid, main_block, MAIN_SMEM>>>(
			(const uint4 *)d_img, d_img, n, d_counts);
		PB_CHECK_LAUNCH();
		histo_final<<<final_grid, final_block>>>(d_counts, d_out);
		PB_CHECK_LAUNCH();
	}

	uint8_t *got = (uint8_t *)malloc(HISTO_BINS);
	uint8_t *want = (uint8_t *)malloc(HISTO_BINS);
	if (!got || !want) {
		fprintf(stderr, "histo: out of memory\n");
		return 2;
	}
	PB_CHECK(cudaMemcpy(got, d_out, HISTO_BINS, cudaMemcpyDeviceToHost));
	PB_CHECK(cudaFree(d_img));
	PB_CHECK(cudaFree(d_counts));
	PB_CHECK(cudaFree(d_out));

	if (args.output && histo_write_output(args.output, got, err, sizeof(err))) {
		fprintf(stderr, "histo: %s\n", err);
		return 2;
	}
	if (args.report) {
		pb_report_kernel((const void *)histo_clear, "histo_clear", clear_grid,
				 clear_block, 0, HISTO_ITERATIONS);
		pb_report_kernel((const void *)histo_main, "histo_main", main_grid,
				 main_block, MAIN_SMEM, HISTO_ITERATIONS);
		pb_report_kernel((const void *)histo_final, "histo_final", final_grid,
				 final_block, 0, HISTO_ITERATIONS);
	}

	uint32_t saturated = histo_cpu(img.pixels, n, want);
	uint32_t first, bad = histo_compare(got, want, &first);
	if (bad) {
		snprintf(detail, sizeof(detail),
			 "%ux%u image, %d iterations: %u of %d bins differ, first "
			 "bin %u (gpu %u, cpu %u)", img.width, img.height,
			 HISTO_ITERATIONS, bad, HISTO_BINS, first, got[first],
			 want[first]);
	} else {
		snprintf(detail, sizeof(detail),
			 "%ux%u image, %d iterations, %dx%d bins (%u saturated): "
			 "all bins equal to the CPU histogram", img.width, img.height,
			 HISTO_ITERATIONS, HISTO_BINS_X, HISTO_BINS_Y, saturated);
	}
	free(got);
	free(want);
	histo_image_release(&img);
	return pb_finish(&args, !bad, detail);
}
