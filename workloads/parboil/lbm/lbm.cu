/* SPDX-License-Identifier: MIT */
/*
 * lbm: lattice-Boltzmann flow (D3Q19, BGK collision, pull streaming with
 * half-way bounce-back) through ducts with spherical obstacles, one kernel
 * launch per time step on ping-pong grids, the way Parboil's lbm runs.
 * The whole lattice goes to the device in one synchronous cudaMemcpy of
 * more than 100 MB. The GPU result is checked against a CPU run of the
 * first and the last compartment (the walls make them independent
 * lattices, so this is an exact check of real output), plus mass
 * conservation and finiteness over the whole lattice. See README.md.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "lbm_d3q19.h"
#include "lbm_ref.h"
#include "pb.h"
#include "pb_cuda.h"

/*
 * Threads per block. 128 threads with at most 24 registers make threads
 * the one resource that limits residency: 16 blocks by threads
 * (2048 / 128), 21 by registers (16384 / 768 warps per partition), 32 by
 * blocks. ptxas would use 28-30 registers on its own, which rounds up to
 * 32 and ties registers with threads; __maxnreg__(24) costs no spills.
 */
#define LBM_BLOCK 128

/* The velocity set as tables, read by the (not unrolled) direction loops. */
#define LBM_TAB_EX(i, ex, ey, ez, c) ex,
#define LBM_TAB_EY(i, ex, ey, ez, c) ey,
#define LBM_TAB_EZ(i, ex, ey, ez, c) ez,
#define LBM_TAB_C(i, ex, ey, ez, c) c,
__constant__ int lbm_ex[LBM_Q] = { LBM_DIRS(LBM_TAB_EX) };
__constant__ int lbm_ey[LBM_Q] = { LBM_DIRS(LBM_TAB_EY) };
__constant__ int lbm_ez[LBM_Q] = { LBM_DIRS(LBM_TAB_EZ) };
__constant__ int lbm_class[LBM_Q] = { LBM_DIRS(LBM_TAB_C) };

/*
 * The population arriving at @cell from direction @i: the post-collision
 * value of the upstream neighbour cell - e_i (periodic in x, @dxm and
 * @dxp are the offsets of x - 1 and x + 1), or, when that neighbour is
 * solid (bit i of @m), the cell's own opposite population bounced back.
 */
static __device__ __forceinline__ float lbm_gather(const float *src, int i,
						   int ex, int ey, int ez,
						   uint32_t m, int cell, int n,
						   int nx, int nxy, int dxm,
						   int dxp)
{
	int idx;

	if ((m >> i) & 1) {
		idx = LBM_OPP(i) * n + cell;
	} else {
		idx = i * n + cell - ey * nx - ez * nxy +
		      (ex > 0 ? dxm : ex < 0 ? dxp : 0);
	}
	return src[idx];
}

/*
 * One time step for the cells of one x-row segment: thread x of block
 * (bx, y, z) updates cell (bx * 128 + x, y, z). Pass 1 gathers the 19
 * incoming populations and sums the moments; pass 2 gathers each one
 * again (an L1 hit) and stores its post-collision value. Both passes are
 * loops that are not unrolled, so only a handful of values are live at
 * any time and the kernel needs few registers (see LBM_BLOCK). The
 * arithmetic is lbm_d3q19.h's, the same as the CPU reference's. Launch
 * with LBM_BLOCK threads per block.
 */
__global__ void __maxnreg__(24)
lbm_step(const float *src, float *dst, const uint32_t *mask, int nx, int ny,
	 int n, float omega, float fw1, float fw2)
{
	int x = blockIdx.x * LBM_BLOCK + threadIdx.x;

	if (x >= nx) {
		return;
	}
	int nxy = nx * ny;
	int cell = (blockIdx.z * ny + blockIdx.y) * nx + x;
	uint32_t m = mask[cell];

	if (m & LBM_MASK_SOLID) {
#pragma unroll 1
		for (int i = 0; i < LBM_Q; i++) {
			dst[i * n + cell] = 0.0f;
		}
		return;
	}
	/* Offsets of the x - 1 and x + 1 neighbours, periodic in x. */
	int dxm = x == 0 ? nx - 1 : -1;
	int dxp = x == nx - 1 ? 1 - nx : 1;
	float rho = 0.0f, jx = 0.0f, jy = 0.0f, jz = 0.0f;

#pragma unroll 1
	for (int i = 0; i < LBM_Q; i++) {
		int ex = lbm_ex[i], ey = lbm_ey[i], ez = lbm_ez[i];
		float f = lbm_gather(src, i, ex, ey, ez, m, cell, n, nx, nxy,
				     dxm, dxp);

		LBM_MOMENTS_ADD(f, ex, ey, ez, rho, jx, jy, jz);
	}
	struct lbm_moments mo = lbm_finish_moments(rho, jx, jy, jz);

#pragma unroll 1
	for (int i = 0; i < LBM_Q; i++) {
		int ex = lbm_ex[i], ey = lbm_ey[i], ez = lbm_ez[i];
		int c = lbm_class[i];
		float f = lbm_gather(src, i, ex, ey, ez, m, cell, n, nx, nxy,
				     dxm, dxp);

		dst[i * n + cell] = LBM_COLLIDE(f, ex, ey, ez, c, &mo, omega,
						fw1, fw2);
	}
}

/* Largest tolerated difference from the CPU (equal bits are expected). */
#define LBM_TOL 1e-5
/* Largest tolerated relative change of the total mass. */
#define LBM_MASS_TOL 1e-4

int main(int argc, char **argv)
{
	struct pb_args args;
	struct pb_lbm_problem p;
	char err[256];

	pb_parse_args(argc, argv, "lbm",
		      "Lattice-Boltzmann (D3Q19 BGK) flow through ducts with "
		      "obstacles, one launch per time step.", &args);
	if (args.input) {
		if (pb_lbm_read_input(args.input, &p, err, sizeof(err))) {
			fprintf(stderr, "lbm: %s\n", err);
			return 2;
		}
	} else {
		int nx, ny, nz;

		if (pb_lbm_dims(args.scale, &nx, &ny, &nz, err, sizeof(err))) {
			fprintf(stderr, "lbm: %s\n", err);
			return 2;
		}
		pb_lbm_generate(&p, nx, ny, nz);
	}

	size_t n = pb_lbm_cells(&p);
	size_t grid_bytes = n * LBM_Q * sizeof(float);
	uint32_t *mask = (uint32_t *)malloc(n * sizeof(uint32_t));
	float *result = (float *)malloc(grid_bytes);
	float fw1, fw2;

	if (!mask || !result) {
		fprintf(stderr, "lbm: out of memory\n");
		return 2;
	}
	pb_lbm_make_mask(&p, mask);
	pb_lbm_force_terms(p.force, &fw1, &fw2);

	float *d_a, *d_b;
	uint32_t *d_mask;
	PB_CHECK(cudaMalloc((void **)&d_a, grid_bytes));
	PB_CHECK(cudaMalloc((void **)&d_b, grid_bytes));
	PB_CHECK(cudaMalloc((void **)&d_mask, n * sizeof(uint32_t)));
	/* The big one: the whole lattice in one synchronous copy. */
	PB_CHECK(cudaMemcpy(d_a, p.f, grid_bytes, cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_mask, mask, n * sizeof(uint32_t),
			    cudaMemcpyHostToDevice));

	dim3 block(LBM_BLOCK, 1, 1);
	dim3 grid((p.nx + LBM_BLOCK - 1) / LBM_BLOCK, p.ny, p.nz);
	float *src = d_a, *dst = d_b;

	for (int t = 0; t < p.steps; t++) {
		lbm_step<<<grid, block>>>(src, dst, d_mask, p.nx, p.ny, (int)n,
					  p.omega, fw1, fw2);
		PB_CHECK_LAUNCH();
		float *tmp = src;
		src = dst;
		dst = tmp;
	}
	PB_CHECK(cudaMemcpy(result, src, grid_bytes, cudaMemcpyDeviceToHost));
	PB_CHECK(cudaFree(d_a));
	PB_CHECK(cudaFree(d_b));
	PB_CHECK(cudaFree(d_mask));

	if (args.output && pb_lbm_write_output(args.output, &p, result)) {
		fprintf(stderr, "lbm: cannot write '%s'\n", args.output);
		return 2;
	}

	/* Exact check of the first and the last compartment. */
	int ncomp = pb_lbm_compartments(&p);
	int ks[2] = { 0, ncomp - 1 };
	int nk = ncomp > 1 ? 2 : 1;
	size_t ns = pb_lbm_compartment_cells(&p), bad = 0, exact = 0;
	double max_diff = 0.0;
	float *ref = (float *)malloc(ns * LBM_Q * sizeof(float));

	if (!ref) {
		fprintf(stderr, "lbm: out of memory\n");
		return 2;
	}
	for (int j = 0; j < nk; j++) {
		double md;
		size_t ex;

		if (pb_lbm_run_compartment(&p, ks[j], ref)) {
			fprintf(stderr, "lbm: out of memory\n");
			return 2;
		}
		bad += pb_lbm_compare_compartment(&p, ks[j], result, ref, LBM_TOL,
						  &md, &ex);
		exact += ex;
		if (md > max_diff) {
			max_diff = md;
		}
	}

	/* Whole lattice: finite, and the mass conserved. */
	size_t nonfinite = 0;
	for (size_t i = 0; i < n * LBM_Q; i++) {
		if (!isfinite(result[i])) {
			nonfinite++;
		}
	}
	double m0 = pb_lbm_mass(&p, p.f), m1 = pb_lbm_mass(&p, result);
	double drift = fabs(m1 - m0) / m0;

	if (args.report) {
		pb_report_kernel((const void *)lbm_step, "lbm_step", grid, block,
				 0, p.steps);
	}

	char detail[512];
	int pass = !bad && !nonfinite && drift <= LBM_MASS_TOL;
	size_t checked = (size_t)nk * ns * LBM_Q;

	snprintf(detail, sizeof(detail),
		 "%dx%dx%d lattice in %d compartments, %d steps; compartments "
		 "%d and %d (%zu values) within %g of the CPU (%zu differ, "
		 "%.1f%% bit-exact, max diff %.3g); %zu non-finite; mass "
		 "drift %.2g (limit %g)",
		 p.nx, p.ny, p.nz, ncomp, p.steps, ks[0], ks[nk - 1], checked,
		 LBM_TOL, bad, 100.0 * exact / checked, max_diff, nonfinite,
		 drift, LBM_MASS_TOL);
	free(ref);
	free(mask);
	free(result);
	pb_lbm_release(&p);
	return pb_finish(&args, pass, detail);
}
