/* SPDX-License-Identifier: MIT */
/*
 * tpacf: two-point angular correlation function, like Parboil's tpacf.
 * One launch of gen_hists computes every histogram (data-data, data-random
 * and random-random for each random set) over all pairs. Block (rb, t)
 * takes rows rb*256 .. rb*256+255 of histogram t's row set, one row per
 * thread, and streams the column set through shared memory in chunks; each
 * thread bins its pairs into a private histogram in shared memory (bin b
 * of thread i at cnt[b][i], so a warp's 32 counters sit in 32 different
 * banks and need no atomics). Those private histograms (32 KB per block)
 * make shared memory the resource that limits resident blocks. At the end
 * the block's histogram is written to its own slot and added to the
 * global one with 64-bit integer atomics: counts are exact, independent of
 * scheduling. The host checks that the global histograms equal the sums of
 * the block slots, that every histogram holds all its pairs, and
 * recomputes sampled blocks on the CPU, bin for bin.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pb.h"
#include "pb_cuda.h"
#include "tpacf_ref.h"

#define TP_CHUNK TPACF_BLOCK	/* column points staged per round */

__constant__ float tp_bounds[TPACF_NBOUNDS];

__global__ void __launch_bounds__(TPACF_BLOCK)
gen_hists(const float4 *__restrict__ pts, int n, int nrand,
	  unsigned long long *__restrict__ hist,
	  unsigned long long *__restrict__ block_hist)
{
	__shared__ unsigned int cnt[TPACF_NCOUNT][TPACF_BLOCK];
	__shared__ float4 stage[TP_CHUNK];
	__shared__ float bounds[TPACF_NBOUNDS];
	int tid = threadIdx.x;
	int t = blockIdx.y, rb = blockIdx.x;
	int aset, bset;
	bool self;

	if (t == 0) {
		aset = bset = 0;
		self = true;
	} else if (t <= nrand) {
		aset = 0;
		bset = t;
		self = false;
	} else {
		aset = bset = t - nrand;
		self = true;
	}
#pragma unroll
	for (int b = 0; b < TPACF_NCOUNT; b++) {
		cnt[b][tid] = 0;
	}
	if (tid < TPACF_NBOUNDS) {
		bounds[tid] = tp_bounds[tid];
	}

	int i = rb * TPACF_BLOCK + tid;
	bool valid = i < n;
	float4 p = valid ? pts[(size_t)aset * n + i] : make_float4(0, 0, 0, 0);
	const float4 *col = pts + (size_t)bset * n;

	/* Self pairs need j > i >= rb * TPACF_BLOCK. */
	for (int j0 = self ? rb * TPACF_BLOCK : 0; j0 < n; j0 += TP_CHUNK) {
		__syncthreads();
		if (j0 + tid < n) {
			stage[tid] = col[j0 + tid];
		}
		__syncthreads();
		int m = min(TP_CHUNK, n - j0);
		int k = self ? max(0, i + 1 - j0) : 0;
		if (!valid) {
			k = m;
		}
		/*
		 * Not unrolled: that keeps the kernel at or below 32 registers,
		 * so registers allow 8 blocks and shared memory (6) binds alone.
		 */
#pragma unroll 1
		for (; k < m; k++) {
			float4 q = stage[k];
			float dot = fmaf(p.x, q.x, fmaf(p.y, q.y, __fmul_rn(p.z, q.z)));
			int pos = 0;
			if (bounds[pos + 15] >= dot) {
				pos += 16;
			}
			if (bounds[pos + 7] >= dot) {
				pos += 8;
			}
			if (bounds[pos + 3] >= dot) {
				pos += 4;
			}
			if (bounds[pos + 1] >= dot) {
				pos += 2;
			}
			if (bounds[pos] >= dot) {
				pos += 1;
			}
			cnt[pos][tid]++;
		}
	}
	__syncthreads();

	/* One warp folds the 256 private histograms, rotating to avoid bank conflicts. */
	if (tid < TPACF_NCOUNT) {
		unsigned long long s = 0;
#pragma unroll 1
		for (int u = 0; u < TPACF_BLOCK; u++) {
			s += cnt[tid][(u + tid) % TPACF_BLOCK];
		}
		block_hist[((size_t)t * gridDim.x + rb) * TPACF_NCOUNT + tid] = s;
		atomicAdd(&hist[t * TPACF_NCOUNT + tid], s);
	}
}

int main(int argc, char **argv)
{
	struct pb_args args;
	struct tpacf_points pts;
	char err[256], detail[600];

	pb_parse_args(argc, argv, "tpacf",
		      "Two-point angular correlation: DD, DR and RR histograms in one launch.",
		      &args);
	if (args.input) {
		if (tpacf_read_input(args.input, &pts, err, sizeof(err))) {
			fprintf(stderr, "tpacf: %s\n", err);
			return 2;
		}
	} else if (tpacf_generate(&pts, tpacf_points_for_scale(args.scale),
				  TPACF_RANDOM_SETS, TPACF_SEED, err, sizeof(err))) {
		fprintf(stderr, "tpacf: %s\n", err);
		return 2;
	}

	uint32_t n = pts.n, nrand = pts.nrand, nh = tpacf_nhist(nrand);
	uint32_t nrb = (n + TPACF_BLOCK - 1) / TPACF_BLOCK;
	size_t npts = ((size_t)nrand + 1) * n;
	size_t hist_bytes = (size_t)nh * TPACF_NCOUNT * sizeof(uint64_t);
	size_t bhist_bytes = hist_bytes * nrb;
	float bounds[TPACF_NBOUNDS];
	float4 *h_pts = (float4 *)malloc(npts * sizeof(float4));
	uint64_t *hist = (uint64_t *)calloc(1, hist_bytes);
	uint64_t *bhist = (uint64_t *)malloc(bhist_bytes);
	if (!h_pts || !hist || !bhist) {
		fprintf(stderr, "tpacf: out of memory\n");
		return 2;
	}
	for (size_t i = 0; i < npts; i++) {
		h_pts[i] = make_float4(pts.xyz[i * 3], pts.xyz[i * 3 + 1],
				       pts.xyz[i * 3 + 2], 0.0f);
	}
	tpacf_bin_bounds(bounds);

	float4 *d_pts;
	unsigned long long *d_hist, *d_bhist;
	PB_CHECK(cudaMalloc((void **)&d_pts, npts * sizeof(float4)));
	PB_CHECK(cudaMalloc((void **)&d_hist, hist_bytes));
	PB_CHECK(cudaMalloc((void **)&d_bhist, bhist_bytes));
	PB_CHECK(cudaMemcpy(d_pts, h_pts, npts * sizeof(float4),
			    cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpyToSymbol(tp_bounds, bounds, sizeof(bounds)));
	/* hist is still all zero: it clears the device histograms. */
	PB_CHECK(cudaMemcpy(d_hist, hist, hist_bytes, cudaMemcpyHostToDevice));

	/*
	 * Ask for the largest shared-memory carveout, so that the six blocks
	 * the occupancy arithmetic allows (6 x 37 KB) really fit on an SM.
	 */
	PB_CHECK(cudaFuncSetAttribute(gen_hists,
				      cudaFuncAttributePreferredSharedMemoryCarveout,
				      cudaSharedmemCarveoutMaxShared));
	dim3 grid(nrb, nh), block(TPACF_BLOCK);
	gen_hists<<<grid, block>>>(d_pts, (int)n, (int)nrand, d_hist, d_bhist);
	PB_CHECK_LAUNCH();
	PB_CHECK(cudaMemcpy(hist, d_hist, hist_bytes, cudaMemcpyDeviceToHost));
	PB_CHECK(cudaMemcpy(bhist, d_bhist, bhist_bytes, cudaMemcpyDeviceToHost));
	PB_CHECK(cudaFree(d_pts));
	PB_CHECK(cudaFree(d_hist));
	PB_CHECK(cudaFree(d_bhist));

	if (args.output && tpacf_write_output(args.output, hist, nrand)) {
		fprintf(stderr, "tpacf: cannot write '%s'\n", args.output);
		return 2;
	}

	/* Totals and block sums, then sampled blocks bin for bin. */
	char why[300] = "";
	int pass = tpacf_check_totals(n, nrand, nrb, hist, bhist, why,
				      sizeof(why)) == 0;
	uint32_t st[TPACF_MAX_SAMPLES], srb[TPACF_MAX_SAMPLES];
	int ns = tpacf_sample_blocks(&pts, TPACF_SEED, st, srb);
	uint64_t sampled = 0, all = 0;
	for (uint32_t t = 0; t < nh; t++) {
		all += tpacf_pairs(n, nrand, t);
	}
	for (int s = 0; s < ns && pass; s++) {
		uint64_t c[TPACF_NCOUNT] = { 0 };
		const uint64_t *g = bhist + ((size_t)st[s] * nrb + srb[s]) * TPACF_NCOUNT;
		tpacf_ref_block(&pts, bounds, st[s], srb[s] * TPACF_BLOCK, c);
		for (int b = 0; b < TPACF_NCOUNT; b++) {
			sampled += c[b];
			if (c[b] != g[b]) {
				snprintf(why, sizeof(why),
					 "histogram %u row block %u bin %d: gpu %llu, cpu %llu",
					 st[s], srb[s], b, (unsigned long long)g[b],
					 (unsigned long long)c[b]);
				pass = 0;
				break;
			}
		}
	}

	if (args.report) {
		pb_report_kernel((const void *)gen_hists, "gen_hists", grid, block, 0, 1);
	}
	if (pass) {
		snprintf(detail, sizeof(detail),
			 "%u points x %u sets, %u bins, %u histograms of %llu pairs in one "
			 "launch; totals exact, each equals the sum of its %u block "
			 "histograms, %d sampled blocks (%llu pairs) equal the CPU exactly",
			 n, nrand + 1, TPACF_NBINS, nh, (unsigned long long)all, nrb,
			 ns, (unsigned long long)sampled);
	} else {
		snprintf(detail, sizeof(detail), "%u points x %u sets: %s", n,
			 nrand + 1, why);
	}
	free(h_pts);
	free(hist);
	free(bhist);
	tpacf_free(&pts);
	return pb_finish(&args, pass, detail);
}
