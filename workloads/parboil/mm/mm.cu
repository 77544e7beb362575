/* SPDX-License-Identifier: MIT */
/*
 * mm: single-precision GEMM, C = alpha A B + beta C (row-major), the way
 * Parboil's sgemm runs it: copy A, B and C, one kernel launch, copy C
 * back. The kernel tiles C in 128 x 128 blocks on a 2-D grid of 2-D
 * (16 x 16) thread blocks; each thread accumulates an 8 x 8 micro-tile
 * in registers from 8-deep slices of A and B staged in shared memory,
 * which makes registers the resource that limits residency. Checked
 * against double-precision dot products on 64 x 64 sampled entries.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mm_ref.h"
#include "pb.h"
#include "pb_cuda.h"

#define MM_TILE 128		/* C tile per block, square */
#define MM_BK 8			/* depth of one shared-memory slice */
#define MM_TX 16		/* block is MM_TX x MM_TY threads */
#define MM_TY 16
#define MM_APAD 4		/* As row padding: conflict-free transposed stores */

/* Tolerance: |dC| / (|alpha| sum |a b| + |beta c|), see README.md. */
#define MM_TOL 1e-5

/*
 * C tile (blockIdx.y, blockIdx.x). Thread (tx, ty) owns rows
 * {4 ty + i, 64 + 4 ty + i} and columns {4 tx + j, 64 + 4 tx + j}
 * (i, j < 4) of the tile, so that its shared-memory reads are float4s
 * without bank conflicts. Each slice of 8 k-values: 1024 elements of A
 * and of B, 4 of each per thread, loaded (coalesced, bounds-checked,
 * zero outside) one slice ahead into registers, then stored to shared
 * memory, A transposed. Every C element is summed by one thread in k
 * order, so the result does not depend on scheduling.
 */
__global__ void __launch_bounds__(MM_TX * MM_TY, 2)
mm_sgemm(const float *a, const float *b, float *c, int m, int n, int k,
	 float alpha, float beta)
{
	__shared__ __align__(16) float as[MM_BK][MM_TILE + MM_APAD];
	__shared__ __align__(16) float bs[MM_BK][MM_TILE];
	const int tx = threadIdx.x, ty = threadIdx.y;
	const int t = ty * MM_TX + tx;
	const int m0 = blockIdx.y * MM_TILE, n0 = blockIdx.x * MM_TILE;
	float acc[8][8];
	float ra[4], rb[4];

#pragma unroll
	for (int i = 0; i < 8; i++) {
#pragma unroll
		for (int j = 0; j < 8; j++) {
			acc[i][j] = 0.0f;
		}
	}

	/* Element e = t + 256 q of a slice: A row e / 8, col e % 8; B row e / 128, col e % 128. */
	const int a_col = t % MM_BK, a_row = t / MM_BK;
	const int b_col = t % MM_TILE, b_row = t / MM_TILE;

#define MM_LOAD(k0)                                                            \
	do {                                                                   \
		_Pragma("unroll") for (int q = 0; q < 4; q++) {                \
			int gr = m0 + a_row + 32 * q, gk = (k0) + a_col;       \
			ra[q] = gr < m && gk < k ? a[(size_t)gr * k + gk]      \
						 : 0.0f;                       \
			int bk = (k0) + b_row + 2 * q, gc = n0 + b_col;        \
			rb[q] = bk < k && gc < n ? b[(size_t)bk * n + gc]      \
						 : 0.0f;                       \
		}                                                              \
	} while (0)

	MM_LOAD(0);
	for (int k0 = 0; k0 < k; k0 += MM_BK) {
#pragma unroll
		for (int q = 0; q < 4; q++) {
			as[a_col][a_row + 32 * q] = ra[q];
			bs[b_row + 2 * q][b_col] = rb[q];
		}
		__syncthreads();
		if (k0 + MM_BK < k) {
			MM_LOAD(k0 + MM_BK);
		}
#pragma unroll
		for (int kk = 0; kk < MM_BK; kk++) {
			float4 a0 = *(const float4 *)&as[kk][4 * ty];
			float4 a1 = *(const float4 *)&as[kk][64 + 4 * ty];
			float4 b0 = *(const float4 *)&bs[kk][4 * tx];
			float4 b1 = *(const float4 *)&bs[kk][64 + 4 * tx];
			float av[8] = { a0.x, a0.y, a0.z, a0.w, a1.x, a1.y, a1.z, a1.w };
			float bv[8] = { b0.x, b0.y, b0.z, b0.w, b1.x, b1.y, b1.z, b1.w };

#pragma unroll
			for (int i = 0; i < 8; i++) {
#pragma unroll
				for (int j = 0; j < 8; j++) {
					acc[i][j] = fmaf(av[i], bv[j], acc[i][j]);
				}
			}
		}
		__syncthreads();
	}
#undef MM_LOAD

#pragma unroll
	for (int i = 0; i < 8; i++) {
		int r = m0 + (i < 4 ? 4 * ty + i : 64 + 4 * ty + i - 4);

		if (r >= m) {
			continue;
		}
#pragma unroll
		for (int j = 0; j < 8; j++) {
			int col = n0 + (j < 4 ? 4 * tx + j : 64 + 4 * tx + j - 4);

			if (col < n) {
				size_t idx = (size_t)r * n + col;
				c[idx] = alpha * acc[i][j] + beta * c[idx];
			}
		}
	}
}

int main(int argc, char **argv)
{
	struct pb_args args;
	struct pb_mm_problem p;
	char err[256];

	pb_parse_args(argc, argv, "mm",
		      "Single-precision GEMM, C = alpha A B + beta C, "
		      "register-tiled.", &args);
	if (args.input) {
		if (pb_mm_read_input(args.input, &p, err, sizeof(err))) {
			fprintf(stderr, "mm: %s\n", err);
			return 2;
		}
	} else {
		int m, n, k;

		if (pb_mm_sizes(args.scale, &m, &n, &k, err, sizeof(err))) {
			fprintf(stderr, "mm: %s\n", err);
			return 2;
		}
		pb_mm_generate(&p, m, n, k);
	}

	size_t ab = (size_t)p.m * p.k * sizeof(float);
	size_t bb = (size_t)p.k * p.n * sizeof(float);
	size_t cb = (size_t)p.m * p.n * sizeof(float);
	float *result = (float *)malloc(cb);
	float *d_a, *d_b, *d_c;

	if (!result) {
		fprintf(stderr, "mm: out of memory\n");
		return 2;
	}
	PB_CHECK(cudaMalloc((void **)&d_a, ab));
	PB_CHECK(cudaMalloc((void **)&d_b, bb));
	PB_CHECK(cudaMalloc((void **)&d_c, cb));
	PB_CHECK(cudaMemcpy(d_a, p.a, ab, cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_b, p.b, bb, cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_c, p.c, cb, cudaMemcpyHostToDevice));

	dim3 block(MM_TX, MM_TY);
	dim3 grid((p.n + MM_TILE - 1) / MM_TILE, (p.m + MM_TILE - 1) / MM_TILE);

	mm_sgemm<<<grid, block>>>(d_a, d_b, d_c, p.m, p.n, p.k, p.alpha,
				  p.beta);
	PB_CHECK_LAUNCH();
	PB_CHECK(cudaMemcpy(result, d_c, cb, cudaMemcpyDeviceToHost));
	PB_CHECK(cudaFree(d_a));
	PB_CHECK(cudaFree(d_b));
	PB_CHECK(cudaFree(d_c));

	if (args.output && pb_mm_write_output(args.output, p.m, p.n, result)) {
		fprintf(stderr, "mm: cannot write '%s'\n", args.output);
		return 2;
	}

	int nr = p.m < PB_MM_SAMPLE_ROWS ? p.m : PB_MM_SAMPLE_ROWS;
	int nc = p.n < PB_MM_SAMPLE_COLS ? p.n : PB_MM_SAMPLE_COLS;
	int rows[PB_MM_SAMPLE_ROWS], cols[PB_MM_SAMPLE_COLS];
	double max_err;

	pb_mm_samples(&p, rows, nr, cols, nc);
	long bad = pb_mm_check(&p, result, rows, nr, cols, nc, MM_TOL, &max_err);
	if (bad < 0) {
		fprintf(stderr, "mm: out of memory\n");
		return 2;
	}

	if (args.report) {
		pb_report_kernel((const void *)mm_sgemm, "mm_sgemm", grid, block,
				 0, 1);
	}

	char detail[512];
	snprintf(detail, sizeof(detail),
		 "%dx%dx%d (alpha %g, beta %g); %d sampled entries (%d rows x "
		 "%d columns) within %g of double precision relative to "
		 "|alpha| sum|a b| + |beta c| (max %.2g, %ld off)",
		 p.m, p.n, p.k, p.alpha, p.beta, nr * nc, nr, nc, MM_TOL,
		 max_err, bad);
	free(result);
	pb_mm_release(&p);
	return pb_finish(&args, bad == 0, detail);
}
