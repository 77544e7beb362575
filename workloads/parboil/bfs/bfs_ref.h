/* SPDX-License-Identifier: MIT */
/*
 * bfs reference side (plain C11, no CUDA): the deterministic road-like
 * graph generator, the -i/-o file formats, the CPU breadth-first search
 * that the GPU levels are checked against, and the comparison. Compiled
 * into build/workloads/parboil/bfs by nvcc and into libparboil-ref.a by gcc
 * (unit-tested by tests/unit/test_parboil_bfs.c).
 *
 * The graph is a directed "strip lattice": nodes (x, y) with 0 <= x < length
 * and 0 <= y < height, numbered x * height + y; every node gets 1-15 edges
 * (8 on average) to random neighbours among its 8 lattice neighbours (edges
 * that would leave the strip are dropped, duplicates are kept). Like the road
 * networks Parboil's bfs reads, it has a large diameter (about one level per
 * column), so a search runs thousands of small levels.
 */
#ifndef BFS_REF_H
#define BFS_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define BFS_HEIGHT 128			/* rows of the strip */
#define BFS_BASE_LENGTH 12288		/* columns at scale 1 */
#define BFS_SEED 0x62667331ULL
#define BFS_UNREACHED (-1)		/* level of a node not reachable */
#define BFS_MAX_DEGREE 15

struct bfs_graph {
	uint32_t n_nodes;
	uint32_t n_edges;
	uint32_t source;
	uint32_t *row;		/* n_nodes + 1 offsets into col */
	uint32_t *col;		/* n_edges destination nodes */
};

/* Columns of the strip for problem scale @scale (at least 2). */
uint32_t bfs_length_for_scale(double scale);

/*
 * Generate the length x height strip graph from @seed into @g (which the
 * caller releases with bfs_graph_release()); the source is node (0,
 * height / 2). Returns 0, or -1 with a message in @err when the graph would
 * have more than 2^31 edges or memory runs out.
 */
int bfs_generate(struct bfs_graph *g, uint32_t length, uint32_t height,
		 uint64_t seed, char *err, size_t errlen);

/* Free the arrays of @g and zero it. */
void bfs_graph_release(struct bfs_graph *g);

/*
 * Input file: 8-byte magic "PBBFSIN1", then little-endian uint32 n_nodes,
 * n_edges, source, 0, then row[n_nodes + 1] and col[n_edges] as uint32.
 * bfs_read_input() checks the magic, the exact file size, that row is
 * monotone from 0 to n_edges and that every col and the source are below
 * n_nodes. Returns 0, or -1 with a message in @err (nothing to release).
 */
int bfs_read_input(const char *path, struct bfs_graph *g, char *err,
		   size_t errlen);
int bfs_write_input(const char *path, const struct bfs_graph *g, char *err,
		    size_t errlen);

/*
 * Output file: magic "PBBFSOU1", uint32 n_nodes, then int32 level[n_nodes]
 * (BFS_UNREACHED for unreachable nodes). bfs_read_output() returns a new
 * array in *@levels (caller frees) and its length in *@n.
 */
int bfs_write_output(const char *path, const int32_t *levels, uint32_t n,
		     char *err, size_t errlen);
int bfs_read_output(const char *path, int32_t **levels, uint32_t *n,
		    char *err, size_t errlen);

/*
 * CPU breadth-first search from g->source: fills @levels (n_nodes entries)
 * with each node's hop distance or BFS_UNREACHED. Returns the number of
 * levels (the largest level + 1), or -1 when memory runs out.
 */
int32_t bfs_cpu(const struct bfs_graph *g, int32_t *levels);

/*
 * Count the nodes whose levels differ between @got and @want; the first
 * such node goes to *@first_bad (n when none).
 */
uint32_t bfs_compare(const int32_t *got, const int32_t *want, uint32_t n,
		     uint32_t *first_bad);

#ifdef __cplusplus
}
#endif

#endif
