/* SPDX-License-Identifier: MIT */
/*
 * The capture's wrapper of a CUDA graph's host node (cuGraphAddHostNode,
 * or cuLaunchHostFunc into a capturing stream). A host node runs at every
 * launch of every executable graph that holds it, on CUDA's thread, and
 * the program's function may read the results of the copy nodes it
 * follows, then change them (NVIDIA's simpleCudaGraphs prints a reduction
 * and resets it to 0): those results are hashed when the node starts,
 * before the program's function runs, as at a synchronization. Each
 * launch of a graph tells the wrappers of its host nodes what their next
 * run completes (gnode_expect: runs follow launches in order, as a
 * graph's launches on one stream run in order); after the function has
 * run, the graph's host-to-device sources are checked against what the
 * replay will copy. A launch announces its runs before the driver sees it
 * (the entry of cuGraphLaunch): CUDA's thread may run a node before the
 * launching call returns. Wrappers live as long as the process (a node may run
 * at any later launch). Internal to libgpumix-capture.so; thread-safe.
 */
#ifndef GM_CAPTURE_GRAPH_HOST_H
#define GM_CAPTURE_GRAPH_HOST_H

#include <cuda.h>
#include <stddef.h>
#include <stdint.h>

#include "graph_track.h"

struct gnode_wrap;

/* What a run does around the program's function (set once: the hooks of
 * inject_graph_launch.c). */
struct gnode_hooks {
	/* before it: complete the copies a run follows: those before
	 * @position in stream @key's work, and the launch's copies @seqs */
	void (*start)(uint64_t key, uint64_t position, const uint64_t *seqs,
		      size_t nr_seqs);
	/* after it: a source of the launch made at correlation id @corr no
	 * longer holds what the replay copies */
	void (*changed)(uint32_t corr);
	/* whether the capture is still recording (runs during teardown
	 * call the function only) */
	int (*ready)(void);
};

void gnode_set_hooks(const struct gnode_hooks *h);

/*
 * A wrapper of the program's @fn(@user): *@tramp and *@arg are what the
 * node is made with instead. NULL without memory (the node is then made
 * with the program's own function and hashes nothing early).
 */
struct gnode_wrap *gnode_wrap_new(CUhostFn fn, void *user, CUhostFn *tramp,
				  void **arg);

struct gnode_run;

/*
 * A launch of a graph that holds @w's node, on stream @key at @position,
 * made at correlation id @corr: its run completes the @nr_seqs copies
 * @seqs (copied) and checks the @nr_sources host-to-device @sources
 * (the nodes' spans and recorded hashes, copied) afterwards. Returns the
 * run, for gnode_cancel(); NULL without memory (then a later launch's run
 * takes its place: results are checked at the synchronization instead).
 * A run that lacks memory for @seqs completes nothing.
 */
struct gnode_run *gnode_expect(struct gnode_wrap *w, uint64_t key,
			       uint64_t position, uint32_t corr,
			       const uint64_t *seqs, size_t nr_seqs,
			       const struct gtrack_node *sources,
			       size_t nr_sources);

/* The launch of run @r failed: its node will not run for it. */
void gnode_cancel(struct gnode_wrap *w, struct gnode_run *r);

#endif
