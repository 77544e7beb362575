/* SPDX-License-Identifier: MIT */
/*
 * What the capture library must know about CUDA graphs to hash their
 * results: which streams are capturing (work issued there does not run:
 * a device-to-host copy becomes a node, not a result), and for every
 * graph and executable graph the nodes whose launches matter to results
 * and the edges between them: the host destinations of its
 * device-to-host copy nodes, whose results a launch delivers at the first
 * synchronization that covers it or at the start of a host node that
 * follows them; its event record nodes, which a launch records after
 * those copies (an event synchronization covers them, as for a
 * cuEventRecord after a copy); its host-to-device sources, whose content
 * the replay copies as recorded; and its host nodes. Other nodes are kept
 * for their edges only. A stream joins a capture by waiting on an event
 * recorded in it, as CUDA's cross-stream capture does; in a capture, a
 * node follows what its stream's work so far followed, as CUDA's
 * dependency tracking does. Internal to libgpumix-capture.so;
 * thread-safe; allocates only when a graph or a node is added (never on
 * the launch hot path but for its copies).
 */
#ifndef GM_CAPTURE_GRAPH_TRACK_H
#define GM_CAPTURE_GRAPH_TRACK_H

#include <stddef.h>
#include <stdint.h>

#include "blob_store.h"
#include "hash.h"

/* What the capture follows of a graph's node. */
struct gtrack_node {
	enum {
		GTRACK_OTHER,	/* its edges only */
		GTRACK_COPY,	/* span: a device-to-host copy's host
				   destination */
		GTRACK_EVENT,	/* event: the event a record node records */
		GTRACK_SOURCE,	/* span: a host-to-device copy's host source,
				   hash: its content when the node was made */
		GTRACK_HOST,	/* host: the capture's wrapper of its
				   function (inject_graph.c) */
	} kind;
	struct gm_span span;
	uint64_t event;
	struct gm_hash hash;
	void *host;
};

/* Stream @key begins a capture (cuStreamBeginCapture). */
void gtrack_begin(uint64_t key);

/* Stream @key begins a capture into @graph (cuStreamBeginCaptureToGraph):
 * its copies join the graph's at the end, after those it had. */
void gtrack_begin_to(uint64_t key, uint64_t graph);

/* 1 when stream @key is capturing (began one, or joined one). */
int gtrack_capturing(uint64_t key);

/* Event @event recorded on stream @key: it carries @key's capture, if
 * any, and is then a record node of the capture's graph. */
void gtrack_event_record(uint64_t event, uint64_t key);

/* Stream @key waits for @event: it joins the capture the event carries,
 * and its later nodes follow what the event followed. */
void gtrack_stream_wait(uint64_t key, uint64_t event);

/*
 * A device-to-host copy to @span issued on stream @key. Returns 1 when
 * the stream is capturing (the copy is a node of the capture's graph and
 * delivers nothing now), 0 otherwise.
 */
int gtrack_capture_copy(uint64_t key, const struct gm_span *span);

/*
 * A host-to-device copy from @span made a node while stream @key captures
 * (nothing when it does not): the bytes the replay will copy are those
 * of now, so each launch compares them.
 */
void gtrack_capture_source(uint64_t key, const struct gm_span *span);

/* A host function with wrapper @host issued on stream @key: 1 when the
 * stream is capturing (it is a host node of the capture's graph). */
int gtrack_capture_host(uint64_t key, void *host);

/* cuStreamEndCapture of @key made @graph: the capture's nodes are its. */
void gtrack_end(uint64_t key, uint64_t graph);

/*
 * Node @node of explicit graph @graph, after @n nodes @deps (nodes no
 * recorded call made are left out); @what says what it is (GTRACK_OTHER:
 * nothing but its edges; a source's hash is taken here).
 */
void gtrack_graph_node(uint64_t graph, uint64_t node, const uint64_t *deps,
		       size_t n, const struct gtrack_node *what);

/* cuGraphAddDependencies: @n (from, to) pairs of nodes of @graph. */
void gtrack_graph_edges(uint64_t graph, const uint64_t *pairs, size_t n);

/* A child graph node @node of @graph after @deps: a copy of @child's
 * nodes, which follow @deps and which the node's dependents follow. */
void gtrack_graph_child(uint64_t graph, uint64_t node, const uint64_t *deps,
			size_t n, uint64_t child);

/* @dst (a graph or an executable graph) gets @src's nodes (instantiate,
 * clone, exec update). */
void gtrack_inherit(uint64_t dst, uint64_t src);

/* Child graph node @node of executable graph @exec runs @child's nodes
 * from now on (cuGraphExecChildGraphNodeSetParams: the same topology). */
void gtrack_exec_child(uint64_t exec, uint64_t node, uint64_t child);

/*
 * What a launch of @exec delivers: its nodes in the order they were made
 * and, per host node, the copy nodes it follows (directly or not).
 * Filled by gtrack_launch_view(), which returns the number of nodes (0:
 * nothing to follow, nothing allocated); freed by
 * gtrack_launch_release().
 */
struct gtrack_launch {
	struct gtrack_node *nodes;
	unsigned nr;
	uint32_t *first, *count;	/* per node: its copies in @copies */
	uint32_t *copies;		/* node indices */
};

unsigned gtrack_launch_view(uint64_t exec, struct gtrack_launch *out);
void gtrack_launch_release(struct gtrack_launch *l);

/* Node @node was made by a recorded call (cuGraphAdd*Node); which were
 * (a node of a captured graph, found by a query, was not). */
void gtrack_node_made(uint64_t node);
int gtrack_node_known(uint64_t node);

/* @handle (a graph or an executable graph) was destroyed. */
void gtrack_forget(uint64_t handle);

#endif
