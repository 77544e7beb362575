/* SPDX-License-Identifier: MIT */
/*
 * bfs: single-source breadth-first search levels on a large-diameter
 * directed graph (see bfs_ref.h), Parboil-style host code. The search is
 * one persistent kernel launched with cudaLaunchCooperativeKernel: it
 * expands the frontier level by level and separates the levels with
 * cooperative_groups' grid.sync(), a grid-wide barrier that is safe because
 * a cooperative launch guarantees (or refuses) co-residency of the whole
 * grid. Parboil's version used a hand-made global atomic barrier instead,
 * which deadlocks when other kernels hold SMs. The grid is exactly as large
 * as can be resident: occupancy API blocks per SM times the SM count.
 *
 * Levels are unique (hop distances), so the result is deterministic even
 * though nodes are claimed with atomicCAS and queued with atomicAdd in an
 * order that depends on scheduling.
 */
#include <cooperative_groups.h>

#include <stdio.h>
#include <stdlib.h>

#include "bfs_ref.h"
#include "pb.h"
#include "pb_cuda.h"

namespace cg = cooperative_groups;

#define INIT_THREADS 256
#define BFS_THREADS 512
#define BFS_REGS 24

/*
 * The device state is one allocation of 32-bit words (one base pointer
 * keeps bfs_coop within its register budget):
 *   [0, 3)            frontier counters
 *   ROW = 4           row offsets, n + 1
 *   LEVEL = ROW+n+1   levels, n (int)
 *   Q0 = LEVEL + n    frontier queue 0, n
 *   Q0 + n            frontier queue 1, n
 *   COL = Q0 + 2n     edge destinations, e
 */
#define OFF_ROW 4u

static unsigned long long state_words(unsigned n, unsigned e)
{
	return OFF_ROW + 4ull * n + 1 + e;
}

/* Level 0: every node unreached but the source, which is the frontier. */
__global__ void bfs_init(unsigned *mem, unsigned n, unsigned source)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	int *level = (int *)mem + OFF_ROW + n + 1;

	if (i < n) {
		level[i] = i == source ? 0 : BFS_UNREACHED;
	}
	if (i == 0) {
		mem[0] = 1;
		mem[1] = 0;
		mem[2] = 0;
		mem[OFF_ROW + 2 * n + 1] = source;	/* queue 0 */
	}
}

/*
 * The whole search. Level l reads the frontier from queue l & 1 with the
 * size in counter l % 3 and appends the nodes it discovers to queue
 * (l + 1) & 1 through counter (l + 1) % 3. Block 0's thread 0 zeroes
 * counter (l + 2) % 3 during level l: nobody reads it then (its last
 * readers were in level l - 1, before the barrier) and nobody appends to it
 * before level l + 1, after the barrier. Every thread reads the same
 * frontier size after the barrier, so all leave the loop at the same level
 * and none is left waiting in grid.sync(). Data other blocks wrote (queue,
 * counters, levels) is read with __ldcg, past the non-coherent L1; the
 * graph itself is read-only (__ldg).
 */
__global__ void __maxnreg__(BFS_REGS) bfs_coop(unsigned *mem, unsigned n)
{
	cg::grid_group grid = cg::this_grid();
	const unsigned level = OFF_ROW + n + 1, q0 = level + n, col = q0 + 2 * n;

	for (unsigned lvl = 0;; lvl++) {
		unsigned size = __ldcg(&mem[lvl % 3]);

		if (size == 0) {
			break;
		}
		if (blockIdx.x == 0 && threadIdx.x == 0) {
			mem[(lvl + 2) % 3] = 0;
		}
#pragma unroll 1
		for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < size;
		     i += gridDim.x * blockDim.x) {
			unsigned u = __ldcg(&mem[q0 + (lvl & 1) * n + i]);
			unsigned end = __ldg(&mem[OFF_ROW + u + 1]);

#pragma unroll 1
			for (unsigned e = __ldg(&mem[OFF_ROW + u]); e < end; e++) {
				unsigned v = __ldg(&mem[col + e]);
				int *lv = (int *)&mem[level + v];

				if (__ldcg(lv) == BFS_UNREACHED &&
				    atomicCAS(lv, BFS_UNREACHED, (int)lvl + 1) ==
					    BFS_UNREACHED) {
					unsigned p = atomicAdd(&mem[(lvl + 1) % 3], 1u);
					mem[q0 + (~lvl & 1) * n + p] = v;
				}
			}
		}
		grid.sync();
	}
}

int main(int argc, char **argv)
{
	struct pb_args args;
	struct bfs_graph g;
	char err[512], detail[256];
	int dev, coop = 0, sms = 0, per_sm = 0;

	pb_parse_args(argc, argv, "bfs",
		      "breadth-first search levels with a cooperative grid barrier",
		      &args);
	if (args.input) {
		if (bfs_read_input(args.input, &g, err, sizeof(err))) {
			fprintf(stderr, "bfs: %s\n", err);
			return 2;
		}
	} else if (bfs_generate(&g, bfs_length_for_scale(args.scale), BFS_HEIGHT,
				BFS_SEED, err, sizeof(err))) {
		fprintf(stderr, "bfs: %s\n", err);
		return 2;
	}
	unsigned n = g.n_nodes;

	PB_CHECK(cudaGetDevice(&dev));
	PB_CHECK(cudaDeviceGetAttribute(&coop, cudaDevAttrCooperativeLaunch, dev));
	PB_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	if (!coop) {
		fprintf(stderr, "bfs: the device does not support cooperative launch\n");
		return 2;
	}
	PB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, bfs_coop,
							       BFS_THREADS, 0));
	if (per_sm < 1) {
		fprintf(stderr, "bfs: bfs_coop cannot be resident on this device\n");
		return 2;
	}

	unsigned long long words = state_words(n, g.n_edges);
	if (words > 0xffffffffull) {
		fprintf(stderr, "bfs: a graph of %u nodes and %u edges is too large\n",
			n, g.n_edges);
		return 2;
	}
	unsigned *d_mem;
	PB_CHECK(cudaMalloc((void **)&d_mem, words * sizeof(unsigned)));
	PB_CHECK(cudaMemcpy(d_mem + OFF_ROW, g.row, ((size_t)n + 1) * sizeof(unsigned),
			    cudaMemcpyHostToDevice));
	PB_CHECK(cudaMemcpy(d_mem + OFF_ROW + 4ull * n + 1, g.col,
			    (size_t)g.n_edges * sizeof(unsigned),
			    cudaMemcpyHostToDevice));

	dim3 init_grid((n + INIT_THREADS - 1) / INIT_THREADS), init_block(INIT_THREADS);
	bfs_init<<<init_grid, init_block>>>(d_mem, n, g.source);
	PB_CHECK_LAUNCH();

	dim3 grid(per_sm * sms), block(BFS_THREADS);
	void *kargs[] = { &d_mem, &n };
	PB_CHECK(cudaLaunchCooperativeKernel((const void *)bfs_coop, grid, block,
					     kargs, 0, 0));
	PB_CHECK_LAUNCH();

	int32_t *levels = (int32_t *)malloc((size_t)n * sizeof(int32_t));
	int32_t *want = (int32_t *)malloc((size_t)n * sizeof(int32_t));
	if (!levels || !want) {
		fprintf(stderr, "bfs: out of memory\n");
		return 2;
	}
	PB_CHECK(cudaMemcpy(levels, d_mem + OFF_ROW + n + 1, (size_t)n * sizeof(int),
			    cudaMemcpyDeviceToHost));
	PB_CHECK(cudaFree(d_mem));

	if (args.output && bfs_write_output(args.output, levels, n, err, sizeof(err))) {
		fprintf(stderr, "bfs: %s\n", err);
		return 2;
	}
	if (args.report) {
		pb_report_kernel((const void *)bfs_init, "bfs_init", init_grid,
				 init_block, 0, 1);
		pb_report_kernel((const void *)bfs_coop, "bfs_coop", grid, block, 0, 1);
	}

	int32_t nlevels = bfs_cpu(&g, want);
	if (nlevels < 0) {
		fprintf(stderr, "bfs: out of memory\n");
		return 2;
	}
	uint32_t first = n, bad = bfs_compare(levels, want, n, &first);
	unsigned reached = 0;
	for (unsigned i = 0; i < n; i++) {
		reached += want[i] != BFS_UNREACHED;
	}
	if (bad) {
		snprintf(detail, sizeof(detail),
			 "%u nodes, %u edges: %u of %u levels differ from the CPU "
			 "search, first at node %u (gpu %d, cpu %d)",
			 n, g.n_edges, bad, n, first, levels[first], want[first]);
	} else {
		snprintf(detail, sizeof(detail),
			 "%u nodes, %u edges, %d levels, %u reached: all levels "
			 "equal to the CPU search", n, g.n_edges, nlevels, reached);
	}
	free(levels);
	free(want);
	bfs_graph_release(&g);
	return pb_finish(&args, !bad, detail);
}
