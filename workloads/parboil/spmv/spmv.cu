/* SPDX-License-Identifier: MIT */
/*
 * spmv: y = A * x for a sparse matrix A in jagged diagonal storage (JDS),
 * recomputed SPMV_ITERATIONS times like Parboil's spmv. One thread per
 * sorted row walks the row's jagged diagonals in order; the diagonal
 * offsets sit in constant memory (every thread of a warp reads the same
 * one), x is read through a texture object over linear device memory.
 * Blocks are large and the kernel needs few registers, so the number of
 * threads per SM is what limits resident blocks (see README.md). Every row
 * is summed by one thread in a fixed order with fmaf, so the result is
 * bit-reproducible and equal to the CPU reference.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pb.h"
#include "pb_cuda.h"
#include "spmv_ref.h"

/*
 * 512 threads: 4 blocks fill the 2048 thread slots of an SM while 19
 * registers would allow 5; with 1024 threads registers would tie at 2.
 */
#define SPMV_BLOCK 512

__constant__ uint32_t spmv_jd_ptr[SPMV_MAX_DIAGS + 1];

__global__ void __launch_bounds__(SPMV_BLOCK)
spmv_jds(const float *__restrict__ data, const uint32_t *__restrict__ idx,
	 const uint32_t *__restrict__ perm, cudaTextureObject_t x,
	 float *__restrict__ y, uint32_t n, uint32_t ndiags)
{
	uint32_t k = blockIdx.x * blockDim.x + threadIdx.x;
	float sum = 0.0f;

	if (k >= n) {
		return;
	}
	/* Rolled: unrolling would add registers, not bandwidth. */
#pragma unroll 1
	for (uint32_t d = 0; d < ndiags; d++) {
		uint32_t beg = spmv_jd_ptr[d];
		if (k >= spmv_jd_ptr[d + 1] - beg) {
			break;
		}
		uint32_t off = beg + k;
		sum = fmaf(data[off], tex1Dfetch<float>(x, (int)idx[off]), sum);
	}
	y[perm[k]] = sum;
}

int main(int argc, char **argv)
{
	struct pb_args args;
	struct spmv_jds m;
	char err[256], detail[512];

	pb_parse_args(argc, argv, "spmv",
		      "Sparse matrix (JDS) times vector, x read through a texture object.",
		      &args);
	if (args.input) {
		if (spmv_read_input(args.input, &m, err, sizeof(err))) {
			fprintf(stderr, "spmv: %s\n", err);
			return 2;
		}
	} else if (spmv_generate(&m, spmv_rows_for_scale(args.scale), SPMV_SEED,
				 err, sizeof(err))) {
		fprintf(stderr, "spmv: %s\n", err);
		return 2;
	}

	uint32_t n = m.n;
	size_t vec_bytes = (size_t)n * sizeof(float);
	size_t nz_bytes = (size_t)m.nnz * sizeof(float);
	float *y = (float *)malloc(vec_bytes);
	if (!y) {
		fprintf(stderr, "spmv: out of memory\n");
		return 2;
	}

	/* A linear texture needs textureAlignment; round the start up. */
	int dev, align;
	PB_CHECK(cudaGetDevice(&dev));
	PB_CHECK(cudaDeviceGetAttribute(&align, cudaDevAttrTextureAlignment, dev));
	if (align < 1) {
		align = 1;
	}

	float *d_data, *d_y;
	uint32_t *d_idx, *d_perm;
	char *d_x_raw;
	PB_CHECK(cudaMalloc((void **)&d_data, nz_bytes ? nz_bytes : 4));
	PB_CHECK(cudaMalloc((void **)&d_idx, nz_bytes ? nz_bytes : 4));
	PB_CHECK(cudaMalloc((void **)&d_perm, vec_bytes));
	PB_CHECK(cudaMalloc((void **)&d_x_raw, vec_bytes + (size_t)align));
	PB_CHECK(cudaMalloc((void **)&d_y, vec_bytes));
	float *d_x = (float *)(d_x_raw + ((size_t)align -
		((uintptr_t)d_x_raw % (size_t)align)) % (size_t)align);

	PB_CHECK(cudaMemcpy(d_data, m.data, nz_bytes, cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_idx, m.idx, nz_bytes, cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_perm, m.perm, vec_bytes, cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_x, m.x, vec_bytes, cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpyToSymbol(spmv_jd_ptr, m.jd_ptr,
				    ((size_t)m.ndiags + 1) * sizeof(uint32_t)));

	struct cudaResourceDesc res;
	memset(&res, 0, sizeof(res));
	res.resType = cudaResourceTypeLinear;
	res.res.linear.devPtr = d_x;
	res.res.linear.desc = cudaCreateChannelDesc<float>();
	res.res.linear.sizeInBytes = vec_bytes;
	struct cudaTextureDesc td;
	memset(&td, 0, sizeof(td));
	td.readMode = cudaReadModeElementType;
	td.filterMode = cudaFilterModePoint;
	td.addressMode[0] = cudaAddressModeClamp;
	td.normalizedCoords = 0;
	cudaTextureObject_t tex;
	PB_CHECK(cudaCreateTextureObject(&tex, &res, &td, NULL));

	dim3 grid((n + SPMV_BLOCK - 1) / SPMV_BLOCK), block(SPMV_BLOCK);
	for (int it = 0; it < SPMV_ITERATIONS; it++) {
		spmv_jds<<<grid, block>>>(d_data, d_idx, d_perm, tex, d_y, n,
					  m.ndiags);
		PB_CHECK_LAUNCH();
	}
	PB_CHECK(cudaMemcpy(y, d_y, vec_bytes, cudaMemcpyDeviceToHost));

	PB_CHECK(cudaDestroyTextureObject(tex));
	PB_CHECK(cudaFree(d_data));
	PB_CHECK(cudaFree(d_idx));
	PB_CHECK(cudaFree(d_perm));
	PB_CHECK(cudaFree(d_x_raw));
	PB_CHECK(cudaFree(d_y));

	if (args.output && spmv_write_output(args.output, y, n)) {
		fprintf(stderr, "spmv: cannot write '%s'\n", args.output);
		return 2;
	}

	float *ref = (float *)malloc(vec_bytes);
	float *absum = (float *)malloc(vec_bytes);
	if (!ref || !absum) {
		fprintf(stderr, "spmv: out of memory\n");
		return 2;
	}
	spmv_ref(&m, ref, absum);
	struct spmv_cmp cmp;
	int pass = spmv_compare(y, ref, absum, n, SPMV_TOLERANCE, &cmp) == 0;

	if (args.report) {
		pb_report_kernel((const void *)spmv_jds, "spmv_jds", grid, block, 0,
				 SPMV_ITERATIONS);
	}
	if (pass) {
		snprintf(detail, sizeof(detail),
			 "%u rows, %u nonzeros in %u jagged diagonals, %d launches; "
			 "all %u rows within %g x sum|a*x| (%u bit-identical)",
			 n, m.nnz, m.ndiags, SPMV_ITERATIONS, n, SPMV_TOLERANCE,
			 cmp.exact);
	} else {
		snprintf(detail, sizeof(detail),
			 "%u rows, %d launches; %u of %u rows outside %g x sum|a*x|, "
			 "worst row %u: gpu %.9g, cpu %.9g",
			 n, SPMV_ITERATIONS, cmp.bad, n, SPMV_TOLERANCE,
			 cmp.worst_row, y[cmp.worst_row], ref[cmp.worst_row]);
	}
	free(y);
	free(ref);
	free(absum);
	spmv_free(&m);
	return pb_finish(&args, pass, detail);
}
