/* SPDX-License-Identifier: MIT */
/*
 * sad: block-matching motion estimation with sums of absolute
 * differences, structured like Parboil's sad: for every frame of a video
 * against the previous one, sad4_calc computes the SAD of each 4x4 block
 * of each 16x16 macroblock at all 1089 positions of a +-16 pixel search
 * window, sad_larger adds them up into 8x8 and 16x16 SADs, and sad_best
 * keeps each block's best position. The main kernel, sad4_calc, runs
 * 32-thread blocks with few registers and 256 bytes of shared memory, so
 * that the number of resident blocks per SM limits it. Integer results,
 * checked exactly against the CPU on sampled macroblocks.
 */
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include "pb.h"
#include "pb_cuda.h"
#include "sad_ref.h"

#define SAD4_THREADS 32		/* sad4_calc: one warp per macroblock */
#define LARGER_THREADS 256	/* sad_larger: one thread per (MB, position) */
#define BEST_THREADS 128	/* sad_best: one block per macroblock */
#define NPOS PB_SAD_POSITIONS

/* s + sum over the 4 bytes of @c of |byte - r[i]|. */
static __device__ __forceinline__ unsigned sad_word(unsigned c, const uint8_t *r,
						   unsigned s)
{
	s = __usad(c & 255u, __ldg(r), s);
	s = __usad((c >> 8) & 255u, __ldg(r + 1), s);
	s = __usad((c >> 16) & 255u, __ldg(r + 2), s);
	s = __usad(c >> 24, __ldg(r + 3), s);
	return s;
}

/*
 * 4x4 SADs of macroblock (blockIdx.x, blockIdx.y). @cur and @ref are
 * padded frames (PB_SAD_PAD pixels of edge replication on every side,
 * @wp bytes per row). The block first packs the MB's 256 current pixels
 * into shared memory; then thread t handles positions t, t + 32, ...:
 * warps read 32 neighbouring positions, so consecutive bytes, and every
 * 4x4 SAD is stored as soon as its 4 rows are done, keeping few values
 * live. Output: sad4[(mb * 16 + block) * 1089 + position].
 */
__global__ void __launch_bounds__(SAD4_THREADS)
sad4_calc(const uint8_t *cur, const uint8_t *ref, int wp, uint16_t *sad4)
{
	__shared__ uint32_t cmb[64];
	const int t = threadIdx.x;
	const int mb = blockIdx.y * gridDim.x + blockIdx.x;
	const int x0 = blockIdx.x * 16 + PB_SAD_PAD;
	const int y0 = blockIdx.y * 16 + PB_SAD_PAD;

	for (int w = t; w < 64; w += SAD4_THREADS) {
		cmb[w] = *(const uint32_t *)(cur + (size_t)(y0 + (w >> 2)) * wp +
					     x0 + 4 * (w & 3));
	}
	__syncthreads();

	uint16_t *out = sad4 + (size_t)mb * 16 * NPOS;

	for (int p = t; p < NPOS; p += SAD4_THREADS) {
		int dy = p / PB_SAD_SPAN - PB_SAD_RANGE;
		int dx = p % PB_SAD_SPAN - PB_SAD_RANGE;
		const uint8_t *r = ref + (size_t)(y0 + dy) * wp + x0 + dx;

#pragma unroll 1
		for (int by = 0; by < 4; by++) {
			unsigned s0 = 0, s1 = 0, s2 = 0, s3 = 0;

#pragma unroll 1
			for (int yy = 0; yy < 4; yy++) {
				const uint8_t *rr = r + (4 * by + yy) * wp;
				const uint32_t *c = &cmb[(4 * by + yy) * 4];

				s0 = sad_word(c[0], rr, s0);
				s1 = sad_word(c[1], rr + 4, s1);
				s2 = sad_word(c[2], rr + 8, s2);
				s3 = sad_word(c[3], rr + 12, s3);
			}
			out[(4 * by + 0) * NPOS + p] = (uint16_t)s0;
			out[(4 * by + 1) * NPOS + p] = (uint16_t)s1;
			out[(4 * by + 2) * NPOS + p] = (uint16_t)s2;
			out[(4 * by + 3) * NPOS + p] = (uint16_t)s3;
		}
	}
}

/*
 * 8x8 and 16x16 SADs from the 4x4 ones, one thread per (MB, position):
 * sad8[(mb * 4 + q) * 1089 + p] for the 8x8 blocks q in raster order,
 * sad16[mb * 1089 + p].
 */
__global__ void __launch_bounds__(LARGER_THREADS)
sad_larger(const uint16_t *sad4, uint16_t *sad8, uint16_t *sad16, int nmb)
{
	int idx = blockIdx.x * LARGER_THREADS + threadIdx.x;

	if (idx >= nmb * NPOS) {
		return;
	}
	int mb = idx / NPOS, p = idx - mb * NPOS;
	const uint16_t *s4 = sad4 + (size_t)mb * 16 * NPOS + p;
	unsigned total = 0;

#pragma unroll
	for (int q = 0; q < 4; q++) {
		int b0 = (q >> 1) * 8 + (q & 1) * 2;	/* top-left 4x4 of q */
		unsigned s = (unsigned)s4[b0 * NPOS] + s4[(b0 + 1) * NPOS] +
			     s4[(b0 + 4) * NPOS] + s4[(b0 + 5) * NPOS];

		sad8[((size_t)mb * 4 + q) * NPOS + p] = (uint16_t)s;
		total += s;
	}
	sad16[(size_t)mb * NPOS + p] = (uint16_t)total;
}

/*
 * The best position of each of the 21 blocks of macroblock (blockIdx.x,
 * blockIdx.y): keys sad << 11 | p, each thread the minimum over its
 * positions, then the minimum over the threads. The minimum of keys is
 * unique, so the result does not depend on the order.
 */
__global__ void __launch_bounds__(BEST_THREADS)
sad_best(const uint16_t *sad4, const uint16_t *sad8, const uint16_t *sad16,
	 uint32_t *keys)
{
	__shared__ uint32_t red[PB_SAD_BLOCKS][BEST_THREADS + 1];
	const int t = threadIdx.x;
	const int mb = blockIdx.y * gridDim.x + blockIdx.x;
	uint32_t best[PB_SAD_BLOCKS];

#pragma unroll
	for (int b = 0; b < PB_SAD_BLOCKS; b++) {
		best[b] = 0xffffffffu;
	}
	const uint16_t *s4 = sad4 + (size_t)mb * 16 * NPOS;
	const uint16_t *s8 = sad8 + (size_t)mb * 4 * NPOS;
	const uint16_t *s16 = sad16 + (size_t)mb * NPOS;

	for (int p = t; p < NPOS; p += BEST_THREADS) {
#pragma unroll
		for (int b = 0; b < 16; b++) {
			best[b] = min(best[b], PB_SAD_KEY(s4[b * NPOS + p], p));
		}
#pragma unroll
		for (int q = 0; q < 4; q++) {
			best[16 + q] = min(best[16 + q],
					   PB_SAD_KEY(s8[q * NPOS + p], p));
		}
		best[20] = min(best[20], PB_SAD_KEY(s16[p], p));
	}
#pragma unroll
	for (int b = 0; b < PB_SAD_BLOCKS; b++) {
		red[b][t] = best[b];
	}
	__syncthreads();
	if (t < PB_SAD_BLOCKS) {
		uint32_t m = red[t][0];

		for (int i = 1; i < BEST_THREADS; i++) {
			m = min(m, red[t][i]);
		}
		keys[(size_t)mb * PB_SAD_BLOCKS + t] = m;
	}
}

int main(int argc, char **argv)
{
	struct pb_args args;
	struct pb_sad_problem p;
	char err[256];

	pb_parse_args(argc, argv, "sad",
		      "Block-matching motion estimation with sums of absolute "
		      "differences (4x4, 8x8, 16x16, +-16 pixels).", &args);
	if (args.input) {
		if (pb_sad_read_input(args.input, &p, err, sizeof(err))) {
			fprintf(stderr, "sad: %s\n", err);
			return 2;
		}
	} else {
		int w, h, n;

		if (pb_sad_dims(args.scale, &w, &h, &n, err, sizeof(err))) {
			fprintf(stderr, "sad: %s\n", err);
			return 2;
		}
		pb_sad_generate(&p, w, h, n);
	}

	int mbw = p.width / 16, mbh = p.height / 16, nmb = mbw * mbh;
	int pairs = p.nframes - 1;
	int wp = p.width + 2 * PB_SAD_PAD, hp = p.height + 2 * PB_SAD_PAD;
	size_t pframe = (size_t)wp * hp;
	size_t nkeys = (size_t)pairs * nmb * PB_SAD_BLOCKS;
	uint8_t *padded = (uint8_t *)malloc(pframe * p.nframes);
	uint32_t *keys = (uint32_t *)malloc(nkeys * sizeof(uint32_t));

	if (!padded || !keys) {
		fprintf(stderr, "sad: out of memory\n");
		return 2;
	}
	for (int f = 0; f < p.nframes; f++) {
		pb_sad_pad(&p, f, padded + pframe * f);
	}

	uint8_t *d_frames;
	uint16_t *d_sad4, *d_sad8, *d_sad16;
	uint32_t *d_keys;
	PB_CHECK(cudaMalloc((void **)&d_frames, pframe * p.nframes));
	PB_CHECK(cudaMalloc((void **)&d_sad4, (size_t)nmb * 16 * NPOS * 2));
	PB_CHECK(cudaMalloc((void **)&d_sad8, (size_t)nmb * 4 * NPOS * 2));
	PB_CHECK(cudaMalloc((void **)&d_sad16, (size_t)nmb * NPOS * 2));
	PB_CHECK(cudaMalloc((void **)&d_keys, nkeys * sizeof(uint32_t)));
	PB_CHECK(cudaMemcpy(d_frames, padded, pframe * p.nframes,
			    cudaMemcpyHostToDevice));

	dim3 mbgrid(mbw, mbh);
	dim3 b4(SAD4_THREADS), bl(LARGER_THREADS), bb(BEST_THREADS);
	dim3 lgrid((nmb * NPOS + LARGER_THREADS - 1) / LARGER_THREADS);

	for (int f = 1; f < p.nframes; f++) {
		sad4_calc<<<mbgrid, b4>>>(d_frames + pframe * f,
					  d_frames + pframe * (f - 1), wp, d_sad4);
		PB_CHECK_LAUNCH();
		sad_larger<<<lgrid, bl>>>(d_sad4, d_sad8, d_sad16, nmb);
		PB_CHECK_LAUNCH();
		sad_best<<<mbgrid, bb>>>(d_sad4, d_sad8, d_sad16,
					 d_keys + (size_t)(f - 1) * nmb *
							  PB_SAD_BLOCKS);
		PB_CHECK_LAUNCH();
	}
	PB_CHECK(cudaMemcpy(keys, d_keys, nkeys * sizeof(uint32_t),
			    cudaMemcpyDeviceToHost));
	PB_CHECK(cudaFree(d_frames));
	PB_CHECK(cudaFree(d_sad4));
	PB_CHECK(cudaFree(d_sad8));
	PB_CHECK(cudaFree(d_sad16));
	PB_CHECK(cudaFree(d_keys));

	if (args.output && pb_sad_write_output(args.output, &p, keys)) {
		fprintf(stderr, "sad: cannot write '%s'\n", args.output);
		return 2;
	}

	int count = nmb < PB_SAD_SAMPLES ? nmb : PB_SAD_SAMPLES;
	long bad = pb_sad_check(&p, keys, count);
	if (bad < 0) {
		fprintf(stderr, "sad: out of memory\n");
		return 2;
	}

	if (args.report) {
		pb_report_kernel((const void *)sad4_calc, "sad4_calc", mbgrid, b4,
				 0, pairs);
		pb_report_kernel((const void *)sad_larger, "sad_larger", lgrid, bl,
				 0, pairs);
		pb_report_kernel((const void *)sad_best, "sad_best", mbgrid, bb, 0,
				 pairs);
	}

	char detail[512];
	snprintf(detail, sizeof(detail),
		 "%d frame pairs of %dx%d (%d macroblocks, %d positions); "
		 "%d sampled macroblocks x %d blocks per pair exact (%ld differ)",
		 pairs, p.width, p.height, nmb, NPOS, count, PB_SAD_BLOCKS, bad);
	free(padded);
	free(keys);
	pb_sad_release(&p);
	return pb_finish(&args, bad == 0, detail);
}
