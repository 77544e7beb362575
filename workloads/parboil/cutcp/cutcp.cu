/* SPDX-License-Identifier: MIT */
/*
 * cutcp: cutoff Coulombic potential on a 3-D lattice (see cutcp_ref.h).
 * The host bins the atoms into 4 A cells (cutcp_bin_atoms) and puts the
 * list of neighbour rows into __constant__ memory with cudaMemcpyToSymbol.
 * One block of 8 x 8 x 8 threads computes the 512 lattice points of one
 * cell (a 3-D grid of 3-D blocks): it walks the neighbour rows in a fixed
 * order, stages each row's atoms in shared memory, and every thread adds
 * the contributions to its own point in that fixed order, so the result is
 * bit-reproducible.
 */
#include <stdio.h>
#include <stdlib.h>

#include "cutcp_ref.h"
#include "pb.h"
#include "pb_cuda.h"

#define BLOCK_SIDE CUTCP_BIN_POINTS		/* 8 */
#define BLOCK_THREADS (BLOCK_SIDE * BLOCK_SIDE * BLOCK_SIDE)	/* 512 */
#define STAGE BLOCK_THREADS			/* atoms staged at once */

__constant__ struct cutcp_rows c_rows;

__global__ void __launch_bounds__(BLOCK_THREADS)
cutcp_lattice(const struct cutcp_atom *__restrict__ atoms,
	      const unsigned *__restrict__ start, float *lattice, int nx, int ny,
	      int nz, int pbx, int pby)
{
	__shared__ struct cutcp_atom stage[STAGE];
	const float c2 = CUTCP_CUTOFF * CUTCP_CUTOFF, inv_c2 = 1.0f / c2;
	int tid = threadIdx.x + BLOCK_SIDE * (threadIdx.y + BLOCK_SIDE * threadIdx.z);
	int i = blockIdx.x * BLOCK_SIDE + threadIdx.x;
	int j = blockIdx.y * BLOCK_SIDE + threadIdx.y;
	int k = blockIdx.z * BLOCK_SIDE + threadIdx.z;
	float px = i * CUTCP_SPACING, py = j * CUTCP_SPACING, pz = k * CUTCP_SPACING;
	int home = ((blockIdx.z + CUTCP_PAD) * pby + blockIdx.y + CUTCP_PAD) * pbx +
		   blockIdx.x + CUTCP_PAD;
	float v = 0.0f;

	for (int r = 0; r < c_rows.count; r++) {
		int b0 = home + c_rows.offset[r];
		unsigned first = start[b0], end = start[b0 + c_rows.len[r]];

		for (unsigned base = first; base < end; base += STAGE) {
			unsigned n = end - base < STAGE ? end - base : STAGE;

			__syncthreads();	/* the previous chunk is used up */
			if (tid < n) {
				stage[tid] = atoms[base + tid];
			}
			__syncthreads();
			for (unsigned a = 0; a < n; a++) {
				struct cutcp_atom at = stage[a];
				float dx = at.x - px, dy = at.y - py, dz = at.z - pz;
				float r2 = dx * dx + dy * dy + dz * dz;

				if (r2 < c2 && r2 > 0.0f) {
					float s = 1.0f - r2 * inv_c2;

					v += at.q * rsqrtf(r2) * (s * s);
				}
			}
		}
	}
	if (i < nx && j < ny && k < nz) {
		lattice[((size_t)k * ny + j) * nx + i] = v;
	}
}

int main(int argc, char **argv)
{
	struct pb_args args;
	struct cutcp_input in;
	struct cutcp_bins bins;
	struct cutcp_rows rows;
	char err[512], detail[256];

	pb_parse_args(argc, argv, "cutcp",
		      "cutoff Coulombic potential on a 3-D lattice from binned atoms",
		      &args);
	if (args.input) {
		if (cutcp_read_input(args.input, &in, err, sizeof(err))) {
			fprintf(stderr, "cutcp: %s\n", err);
			return 2;
		}
	} else if (cutcp_generate(&in, cutcp_bins_for_scale(args.scale), CUTCP_SEED,
				  err, sizeof(err))) {
		fprintf(stderr, "cutcp: %s\n", err);
		return 2;
	}
	if (cutcp_bin_atoms(&in, &bins, err, sizeof(err))) {
		fprintf(stderr, "cutcp: %s\n", err);
		return 2;
	}
	cutcp_neighbor_rows(&bins, &rows);

	size_t points = (size_t)in.nx * in.ny * in.nz;
	size_t nbins = (size_t)bins.pbx * bins.pby * bins.pbz;
	float *got = (float *)malloc(points * sizeof(float));
	if (!got) {
		fprintf(stderr, "cutcp: out of memory\n");
		return 2;
	}

	struct cutcp_atom *d_atoms;
	unsigned *d_start;
	float *d_lattice;
	PB_CHECK(cudaMalloc((void **)&d_atoms,
			    (bins.natoms ? bins.natoms : 1) * sizeof(struct cutcp_atom)));
	PB_CHECK(cudaMalloc((void **)&d_start, (nbins + 1) * sizeof(unsigned)));
	PB_CHECK(cudaMalloc((void **)&d_lattice, points * sizeof(float)));
	PB_CHECK(cudaMemcpy(d_atoms, bins.atoms,
			    bins.natoms * sizeof(struct cutcp_atom),
			    cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_start, bins.start, (nbins + 1) * sizeof(unsigned),
			    cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpyToSymbol(c_rows, &rows, sizeof(rows)));

	dim3 grid(bins.nbx, bins.nby, bins.nbz);
	dim3 block(BLOCK_SIDE, BLOCK_SIDE, BLOCK_SIDE);
	cutcp_lattice<<<grid, block>>>(d_atoms, d_start, d_lattice, (int)in.nx,
				       (int)in.ny, (int)in.nz, bins.pbx, bins.pby);
	PB_CHECK_LAUNCH();
	PB_CHECK(cudaMemcpy(got, d_lattice, points * sizeof(float),
			    cudaMemcpyDeviceToHost));
	PB_CHECK(cudaFree(d_atoms));
	PB_CHECK(cudaFree(d_start));
	PB_CHECK(cudaFree(d_lattice));

	if (args.output && cutcp_write_output(args.output, in.nx, in.ny, in.nz, got,
					      err, sizeof(err))) {
		fprintf(stderr, "cutcp: %s\n", err);
		return 2;
	}
	if (args.report) {
		pb_report_kernel((const void *)cutcp_lattice, "cutcp_lattice", grid,
				 block, 0, 1);
	}

	/*
	 * Check sampled points against the direct double sum; fewer samples
	 * when there are many atoms, to bound the CPU time.
	 */
	struct cutcp_direct direct;
	if (cutcp_direct_init(&direct, &in, err, sizeof(err))) {
		fprintf(stderr, "cutcp: %s\n", err);
		return 2;
	}
	double slab = (double)in.natoms * (2 * CUTCP_CUTOFF) /
		      (in.nx * (double)CUTCP_SPACING + 2 * CUTCP_CUTOFF);
	uint32_t samples = CUTCP_MAX_SAMPLES;
	if (slab * samples > 3e8) {
		samples = (uint32_t)(3e8 / slab);
		samples = samples < 64 ? 64 : samples;
	}
	if (samples > points) {
		samples = (uint32_t)points;
	}
	uint32_t bad = 0;
	uint64_t bad_at = 0;
	double worst = 0, bad_want = 0;
	for (uint32_t s = 0; s < samples; s++) {
		uint64_t p = cutcp_sample_point(&in, samples, s);
		uint32_t i = (uint32_t)(p % in.nx);
		uint32_t j = (uint32_t)(p / in.nx % in.ny);
		uint32_t k = (uint32_t)(p / in.nx / in.ny);
		double abs_sum, want = cutcp_direct_point(&direct, i, j, k, &abs_sum);
		double e = abs_sum > 0 ? fabs(got[p] - want) / abs_sum : 0;

		if (!cutcp_close(got[p], want, abs_sum)) {
			if (!bad) {
				bad_at = p;
				bad_want = want;
			}
			bad++;
		} else if (e > worst) {
			worst = e;
		}
	}
	if (bad) {
		snprintf(detail, sizeof(detail),
			 "%ux%ux%u lattice, %u atoms: %u of %u sampled points off by "
			 "more than %g of the sum of |terms|, first point %llu "
			 "(gpu %.9g, cpu %.9g)", in.nx, in.ny, in.nz, in.natoms, bad,
			 samples, CUTCP_TOLERANCE, (unsigned long long)bad_at,
			 got[bad_at], bad_want);
	} else {
		snprintf(detail, sizeof(detail),
			 "%ux%ux%u lattice, %u atoms: %u sampled points within %g "
			 "of the sum of |terms| (worst %.2g)", in.nx, in.ny, in.nz,
			 in.natoms, samples, CUTCP_TOLERANCE, worst);
	}
	cutcp_direct_release(&direct);
	cutcp_bins_release(&bins);
	cutcp_input_release(&in);
	free(got);
	return pb_finish(&args, !bad, detail);
}
