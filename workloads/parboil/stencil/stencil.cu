/* SPDX-License-Identifier: MIT */
/*
 * stencil: iterated 7-point Jacobi sweeps over a 3-D grid, one kernel
 * launch per sweep with ping-pong buffers, like Parboil's stencil. A 2-D
 * grid of 2-D blocks tiles the x-y plane; each thread owns one (x, y)
 * column and marches up in z, keeping its z-1, z and z+1 values in
 * registers and sharing the current plane (with a one-cell halo) through
 * shared memory. Surface cells are copied, so both buffers need no
 * initialization beyond the input. The update uses the reference's exact
 * operation order (stencil_ref.h), so results are bit-equal to the CPU.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pb.h"
#include "pb_cuda.h"
#include "stencil_ref.h"

#define ST_TX 32	/* threads in x */
#define ST_TY 8		/* threads in y */
#define ST_RY 2		/* rows per thread: a block tiles 32 x 16 columns */
#define ST_TILE_Y (ST_TY * ST_RY)

__global__ void __launch_bounds__(ST_TX * ST_TY)
stencil_step(const float *__restrict__ in, float *__restrict__ out, int nx,
	     int ny, int nz, float c0, float c1)
{
	__shared__ float plane[ST_TILE_Y + 2][ST_TX + 2];
	int tx = threadIdx.x, ty = threadIdx.y;
	int x = blockIdx.x * ST_TX + tx;
	int y0 = blockIdx.y * ST_TILE_Y + ty;
	size_t stride = (size_t)nx * ny;
	float below[ST_RY], cur[ST_RY], above[ST_RY];
	bool inside[ST_RY], edge[ST_RY];

	/* Row r of this thread is y0 + r * ST_TY, tile row ty + r * ST_TY. */
#pragma unroll
	for (int r = 0; r < ST_RY; r++) {
		int y = y0 + r * ST_TY;
		inside[r] = x < nx && y < ny;
		edge[r] = x == 0 || x == nx - 1 || y == 0 || y == ny - 1;
		below[r] = 0.0f;
		above[r] = 0.0f;
		cur[r] = inside[r] ? in[(size_t)y * nx + x] : 0.0f;
	}
	for (int z = 0; z < nz; z++) {
		size_t zoff = (size_t)z * stride;
#pragma unroll
		for (int r = 0; r < ST_RY; r++) {
			size_t at = zoff + (size_t)(y0 + r * ST_TY) * nx + x;
			if (inside[r] && z + 1 < nz) {
				above[r] = in[at + stride];
			}
		}
		__syncthreads();
#pragma unroll
		for (int r = 0; r < ST_RY; r++) {
			int y = y0 + r * ST_TY, ly = ty + r * ST_TY + 1;
			size_t at = zoff + (size_t)y * nx + x;
			if (!inside[r]) {
				continue;
			}
			plane[ly][tx + 1] = cur[r];
			if (tx == 0 && x > 0) {
				plane[ly][0] = in[at - 1];
			}
			if (tx == ST_TX - 1 && x + 1 < nx) {
				plane[ly][ST_TX + 1] = in[at + 1];
			}
			if (r == 0 && ty == 0 && y > 0) {
				plane[0][tx + 1] = in[at - nx];
			}
			if (r == ST_RY - 1 && ty == ST_TY - 1 && y + 1 < ny) {
				plane[ST_TILE_Y + 1][tx + 1] = in[at + nx];
			}
		}
		__syncthreads();
#pragma unroll
		for (int r = 0; r < ST_RY; r++) {
			int y = y0 + r * ST_TY, ly = ty + r * ST_TY + 1;
			if (inside[r]) {
				float v = cur[r];
				if (!edge[r] && z > 0 && z < nz - 1) {
					float s = plane[ly][tx] + plane[ly][tx + 2];
					s += plane[ly - 1][tx + 1];
					s += plane[ly + 1][tx + 1];
					s += below[r];
					s += above[r];
					v = fmaf(c1, s, __fmul_rn(c0, cur[r]));
				}
				out[zoff + (size_t)y * nx + x] = v;
			}
			below[r] = cur[r];
			cur[r] = above[r];
		}
	}
}

int main(int argc, char **argv)
{
	struct pb_args args;
	struct stencil_problem p;
	char err[256], detail[512];

	pb_parse_args(argc, argv, "stencil",
		      "7-point 3-D Jacobi stencil, one launch per sweep.", &args);
	if (args.input) {
		if (stencil_read_input(args.input, &p, err, sizeof(err))) {
			fprintf(stderr, "stencil: %s\n", err);
			return 2;
		}
	} else {
		uint32_t nx, ny, nz;
		stencil_dims_for_scale(args.scale, &nx, &ny, &nz);
		if (stencil_generate(&p, nx, ny, nz, STENCIL_ITERATIONS,
				     STENCIL_SEED, err, sizeof(err))) {
			fprintf(stderr, "stencil: %s\n", err);
			return 2;
		}
	}

	size_t cells = (size_t)p.nx * p.ny * p.nz;
	size_t bytes = cells * sizeof(float);
	float *result = (float *)malloc(bytes);
	if (!result) {
		fprintf(stderr, "stencil: out of memory\n");
		return 2;
	}

	float *d_a, *d_b;
	PB_CHECK(cudaMalloc((void **)&d_a, bytes));
	PB_CHECK(cudaMalloc((void **)&d_b, bytes));
	PB_CHECK(cudaMemcpy(d_a, p.grid, bytes, cudaMemcpyHostToDevice));

	dim3 block(ST_TX, ST_TY);
	dim3 grid((p.nx + ST_TX - 1) / ST_TX, (p.ny + ST_TILE_Y - 1) / ST_TILE_Y);
	for (uint32_t it = 0; it < p.iterations; it++) {
		stencil_step<<<grid, block>>>(d_a, d_b, (int)p.nx, (int)p.ny,
					      (int)p.nz, p.c0, p.c1);
		PB_CHECK_LAUNCH();
		float *t = d_a;
		d_a = d_b;
		d_b = t;
	}
	/* After the swap d_a holds the newest grid (the input for 0 sweeps). */
	PB_CHECK(cudaMemcpy(result, d_a, bytes, cudaMemcpyDeviceToHost));
	PB_CHECK(cudaFree(d_a));
	PB_CHECK(cudaFree(d_b));

	if (args.output &&
	    stencil_write_output(args.output, result, p.nx, p.ny, p.nz)) {
		fprintf(stderr, "stencil: cannot write '%s'\n", args.output);
		return 2;
	}

	struct stencil_box boxes[STENCIL_MAX_BOXES];
	struct stencil_cmp cmp;
	int nboxes = stencil_verify_boxes(&p, STENCIL_SEED, boxes);
	memset(&cmp, 0, sizeof(cmp));
	for (int i = 0; i < nboxes; i++) {
		const struct stencil_box *b = &boxes[i];
		size_t n = (size_t)(b->x1 - b->x0) * (b->y1 - b->y0) * (b->z1 - b->z0);
		float *ref = (float *)malloc(n * sizeof(float));
		if (!ref || stencil_ref_box(&p, b, ref)) {
			fprintf(stderr, "stencil: out of memory in the reference\n");
			return 2;
		}
		stencil_compare_box(&p, result, b, ref, STENCIL_TOLERANCE, &cmp);
		free(ref);
	}
	uint64_t wild = stencil_count_out_of_range(&p, result, 1e-6);
	int pass = cmp.bad == 0 && wild == 0;

	if (args.report) {
		pb_report_kernel((const void *)stencil_step, "stencil_step", grid,
				 block, 0, p.iterations);
	}
	const char *what = nboxes == 1 ? "the whole grid" : "5 patches 16x16 through all planes";
	if (pass) {
		snprintf(detail, sizeof(detail),
			 "%ux%ux%u, %u sweeps (launches); %s (%llu cells) within %g "
			 "relative (%llu bit-identical), all cells in range",
			 p.nx, p.ny, p.nz, p.iterations, what,
			 (unsigned long long)cmp.cells, STENCIL_TOLERANCE,
			 (unsigned long long)cmp.exact);
	} else {
		snprintf(detail, sizeof(detail),
			 "%ux%ux%u, %u sweeps; %llu of %llu verified cells outside %g "
			 "relative (worst at %u,%u,%u: %g), %llu cells out of range",
			 p.nx, p.ny, p.nz, p.iterations, (unsigned long long)cmp.bad,
			 (unsigned long long)cmp.cells, STENCIL_TOLERANCE, cmp.wx,
			 cmp.wy, cmp.wz, cmp.worst, (unsigned long long)wild);
	}
	free(result);
	stencil_free(&p);
	return pb_finish(&args, pass, detail);
}
