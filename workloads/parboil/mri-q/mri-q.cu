/* SPDX-License-Identifier: MIT */
/*
 * mri-q: the Q matrix of non-Cartesian MRI reconstruction, computed the
 * way Parboil's mri-q does: a small kernel squares the k-space samples'
 * magnitudes, the host packs the samples into chunks of 1024 that it puts
 * into __constant__ memory with cudaMemcpyToSymbol, one ComputeQ launch
 * per chunk accumulating into Qr/Qi in global memory. Each thread of
 * ComputeQ owns 8 voxels and keeps their coordinates and partial sums in
 * registers, which makes registers the resource that limits residency.
 * Checked against a double-precision CPU computation of 1024 voxels.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>

#include "mri-q_ref.h"
#include "pb.h"
#include "pb_cuda.h"

#define MRIQ_PHI_BLOCK 256
#define MRIQ_BLOCK 256		/* ComputeQ threads per block */
#define MRIQ_VPT 8		/* voxels per ComputeQ thread */
#define MRIQ_CHUNK 1024		/* k-space samples per constant-memory chunk */

/* Tolerance of |dQ| in units of sqrt(sum |phi|^4) (see README.md). */
#define MRIQ_TOL 2e-4

struct mriq_kvalue {
	float kx, ky, kz, phimag;
};

/* The current chunk of k-space samples (16 KB). */
__constant__ struct mriq_kvalue mriq_k[MRIQ_CHUNK];

/* phiMag[k] = phiR[k]^2 + phiI[k]^2, unfused (the CPU computes the same). */
__global__ void mriq_phimag(const float *phir, const float *phii,
			    float *phimag, int numk)
{
	int k = blockIdx.x * MRIQ_PHI_BLOCK + threadIdx.x;

	if (k < numk) {
		float r = phir[k], i = phii[k];
		phimag[k] = __fadd_rn(__fmul_rn(r, r), __fmul_rn(i, i));
	}
}

/*
 * Add the contribution of the @nk samples in mriq_k to Qr/Qi of the
 * voxels of this block: thread t of block b owns voxels
 * b * 2048 + t + 256 j, j = 0..7 (coalesced loads and stores). The first
 * chunk (@first) starts from zero instead of reading Qr/Qi. Every voxel
 * sums its samples in sample order, so the result does not depend on
 * scheduling.
 */
__global__ void __launch_bounds__(MRIQ_BLOCK)
mriq_computeq(const float *x, const float *y, const float *z, float *qr,
	      float *qi, int numx, int nk, int first)
{
	const float two_pi = 6.2831853071795864769f;
	int base = blockIdx.x * (MRIQ_BLOCK * MRIQ_VPT) + threadIdx.x;
	float vx[MRIQ_VPT], vy[MRIQ_VPT], vz[MRIQ_VPT];
	float sr[MRIQ_VPT], si[MRIQ_VPT];

#pragma unroll
	for (int j = 0; j < MRIQ_VPT; j++) {
		int v = base + j * MRIQ_BLOCK;
		int in = v < numx;

		vx[j] = in ? x[v] : 0.0f;
		vy[j] = in ? y[v] : 0.0f;
		vz[j] = in ? z[v] : 0.0f;
		sr[j] = in && !first ? qr[v] : 0.0f;
		si[j] = in && !first ? qi[v] : 0.0f;
	}
	for (int k = 0; k < nk; k++) {
		float kx = mriq_k[k].kx, ky = mriq_k[k].ky, kz = mriq_k[k].kz;
		float mag = mriq_k[k].phimag;

#pragma unroll
		for (int j = 0; j < MRIQ_VPT; j++) {
			float arg = two_pi * (kx * vx[j] + ky * vy[j] + kz * vz[j]);
			float s, c;

			sincosf(arg, &s, &c);
			sr[j] += mag * c;
			si[j] += mag * s;
		}
	}
#pragma unroll
	for (int j = 0; j < MRIQ_VPT; j++) {
		int v = base + j * MRIQ_BLOCK;

		if (v < numx) {
			qr[v] = sr[j];
			qi[v] = si[j];
		}
	}
}

int main(int argc, char **argv)
{
	struct pb_args args;
	struct pb_mriq_problem p;
	char err[256];

	pb_parse_args(argc, argv, "mri-q",
		      "MRI Q-matrix computation: k-space samples in constant "
		      "memory, one launch per chunk.", &args);
	if (args.input) {
		if (pb_mriq_read_input(args.input, &p, err, sizeof(err))) {
			fprintf(stderr, "mri-q: %s\n", err);
			return 2;
		}
	} else {
		int numk, numx;

		if (pb_mriq_sizes(args.scale, &numk, &numx, err, sizeof(err))) {
			fprintf(stderr, "mri-q: %s\n", err);
			return 2;
		}
		pb_mriq_generate(&p, numk, numx);
	}

	size_t kb = (size_t)p.numk * sizeof(float);
	size_t xb = (size_t)p.numx * sizeof(float);
	float *phimag = (float *)malloc(kb);
	float *qr = (float *)malloc(xb), *qi = (float *)malloc(xb);
	struct mriq_kvalue *kv = (struct mriq_kvalue *)malloc(
		(size_t)p.numk * sizeof(*kv));

	if (!phimag || !qr || !qi || !kv) {
		fprintf(stderr, "mri-q: out of memory\n");
		return 2;
	}

	/* ComputePhiMag on the GPU, and back to the host. */
	float *d_phir, *d_phii, *d_phimag;
	PB_CHECK(cudaMalloc((void **)&d_phir, kb));
	PB_CHECK(cudaMalloc((void **)&d_phii, kb));
	PB_CHECK(cudaMalloc((void **)&d_phimag, kb));
	PB_CHECK(cudaMemcpy(d_phir, p.phir, kb, cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_phii, p.phii, kb, cudaMemcpyHostToDevice));
	dim3 pgrid((p.numk + MRIQ_PHI_BLOCK - 1) / MRIQ_PHI_BLOCK);
	dim3 pblock(MRIQ_PHI_BLOCK);
	mriq_phimag<<<pgrid, pblock>>>(d_phir, d_phii, d_phimag, p.numk);
	PB_CHECK_LAUNCH();
	PB_CHECK(cudaMemcpy(phimag, d_phimag, kb, cudaMemcpyDeviceToHost));
	PB_CHECK(cudaFree(d_phir));
	PB_CHECK(cudaFree(d_phii));
	PB_CHECK(cudaFree(d_phimag));

	/* The samples as the constant-memory chunks will hold them. */
	for (int k = 0; k < p.numk; k++) {
		kv[k].kx = p.kx[k];
		kv[k].ky = p.ky[k];
		kv[k].kz = p.kz[k];
		kv[k].phimag = phimag[k];
	}

	/* ComputeQ, one launch per chunk of samples. */
	float *d_x, *d_y, *d_z, *d_qr, *d_qi;
	PB_CHECK(cudaMalloc((void **)&d_x, xb));
	PB_CHECK(cudaMalloc((void **)&d_y, xb));
	PB_CHECK(cudaMalloc((void **)&d_z, xb));
	PB_CHECK(cudaMalloc((void **)&d_qr, xb));
	PB_CHECK(cudaMalloc((void **)&d_qi, xb));
	PB_CHECK(cudaMemcpy(d_x, p.x, xb, cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_y, p.y, xb, cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_z, p.z, xb, cudaMemcpyHostToDevice));
	int per_block = MRIQ_BLOCK * MRIQ_VPT;
	dim3 qgrid((p.numx + per_block - 1) / per_block);
	dim3 qblock(MRIQ_BLOCK);
	int chunks = 0;

	for (int k0 = 0; k0 < p.numk; k0 += MRIQ_CHUNK, chunks++) {
		int nk = p.numk - k0 < MRIQ_CHUNK ? p.numk - k0 : MRIQ_CHUNK;

		PB_CHECK(cudaMemcpyToSymbol(mriq_k, kv + k0,
					    (size_t)nk * sizeof(*kv)));
		mriq_computeq<<<qgrid, qblock>>>(d_x, d_y, d_z, d_qr, d_qi,
						 p.numx, nk, k0 == 0);
		PB_CHECK_LAUNCH();
	}
	PB_CHECK(cudaMemcpy(qr, d_qr, xb, cudaMemcpyDeviceToHost));
	PB_CHECK(cudaMemcpy(qi, d_qi, xb, cudaMemcpyDeviceToHost));
	PB_CHECK(cudaFree(d_x));
	PB_CHECK(cudaFree(d_y));
	PB_CHECK(cudaFree(d_z));
	PB_CHECK(cudaFree(d_qr));
	PB_CHECK(cudaFree(d_qi));

	if (args.output && pb_mriq_write_output(args.output, p.numx, qr, qi)) {
		fprintf(stderr, "mri-q: cannot write '%s'\n", args.output);
		return 2;
	}

	/* phiMag: every sample, to one unit in the last place. */
	int bad_phi = 0;
	for (int k = 0; k < p.numk; k++) {
		float want = pb_mriq_phimag(&p, k);
		if (!(fabsf(phimag[k] - want) <= 1.2e-7f * want)) {
			bad_phi++;
		}
	}
	/* Q: sampled voxels against double precision. */
	int count = p.numx < PB_MRIQ_SAMPLES ? p.numx : PB_MRIQ_SAMPLES;
	int *vs = (int *)malloc((size_t)count * sizeof(int));
	double max_err;

	if (!vs) {
		fprintf(stderr, "mri-q: out of memory\n");
		return 2;
	}
	pb_mriq_samples(&p, vs, count);
	int bad = pb_mriq_check(&p, qr, qi, vs, count, MRIQ_TOL, &max_err);

	if (args.report) {
		pb_report_kernel((const void *)mriq_phimag, "mriq_phimag", pgrid,
				 pblock, 0, 1);
		pb_report_kernel((const void *)mriq_computeq, "mriq_computeq",
				 qgrid, qblock, 0, chunks);
	}

	char detail[512];
	snprintf(detail, sizeof(detail),
		 "%d voxels x %d k-space samples in %d chunks; %d sampled voxels "
		 "within %g of double precision (in units of sqrt(sum "
		 "|phi|^4), max %.2g, %d off); %d phiMag values off",
		 p.numx, p.numk, chunks, count, MRIQ_TOL, max_err, bad, bad_phi);
	free(vs);
	free(phimag);
	free(qr);
	free(qi);
	free(kv);
	pb_mriq_release(&p);
	return pb_finish(&args, !bad && !bad_phi, detail);
}
