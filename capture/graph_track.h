/* SPDX-License-Identifier: MIT */
/*
 * What the capture library must know about CUDA graphs to hash their
 * results: which streams are capturing (work issued there does not run:
 * a device-to-host copy becomes a node, not a result), and for every
 * graph and executable graph the host destinations of its device-to-host
 * copy nodes, whose results a launch delivers at the first
 * synchronization that covers it, and its event record nodes, which a
 * launch records after those copies (an event synchronization covers
 * them, as for a cuEventRecord after a copy). A stream joins a capture by waiting on
 * an event recorded in it, as CUDA's cross-stream capture does. Internal
 * to libgpumix-capture.so; thread-safe; allocates only when a graph or a
 * copy node is added (never on the launch hot path but for its copies).
 */
#ifndef GM_CAPTURE_GRAPH_TRACK_H
#define GM_CAPTURE_GRAPH_TRACK_H

#include <stdint.h>

#include "blob_store.h"
#include "hash.h"

/* What the capture follows of a graph's nodes. */
struct gtrack_node {
	enum { GTRACK_COPY, GTRACK_EVENT, GTRACK_SOURCE } kind;
	struct gm_span span;	/* COPY: the host destination; SOURCE: the
				   host source of a host-to-device copy */
	uint64_t event;		/* EVENT: the event a record node records */
	struct gm_hash hash;	/* SOURCE: its content when the node was made */
};

/* Stream @key begins a capture (cuStreamBeginCapture). */
void gtrack_begin(uint64_t key);

/* 1 when stream @key is capturing (began one, or joined one). */
int gtrack_capturing(uint64_t key);

/* Event @event recorded on stream @key: it carries @key's capture, if
 * any, and is then a record node of the capture's graph. */
void gtrack_event_record(uint64_t event, uint64_t key);

/* Stream @key waits for @event: it joins the capture the event carries. */
void gtrack_stream_wait(uint64_t key, uint64_t event);

/*
 * A device-to-host copy to @span issued on stream @key. Returns 1 when
 * the stream is capturing (the copy is a node of the capture's graph and
 * delivers nothing now), 0 otherwise.
 */
int gtrack_capture_copy(uint64_t key, const struct gm_span *span);

/* cuStreamEndCapture of @key made @graph: the capture's copies are its. */
void gtrack_end(uint64_t key, uint64_t graph);

/* An explicit device-to-host memcpy node of @graph. */
void gtrack_graph_copy(uint64_t graph, const struct gm_span *span);

/* An event record node of @graph (an event recorded in a capture is one
 * too, gtrack_event_record()). */
void gtrack_graph_event(uint64_t graph, uint64_t event);

/* @dst (a graph or an executable graph) gets @src's copies: replaced
 * (@append 0: instantiate, clone, exec update) or appended (a child
 * graph node). */
void gtrack_inherit(uint64_t dst, uint64_t src, int append);

/*
 * A host-to-device copy from @span made a node while stream @key captures
 * (nothing when it does not), or of explicit graph @graph: the bytes the
 * replay will copy are those of now, so each launch compares them.
 */
void gtrack_capture_source(uint64_t key, const struct gm_span *span);
void gtrack_graph_source(uint64_t graph, const struct gm_span *span);

/* Call @fn on each node of @handle (an executable graph) that the
 * capture follows, in node order, without holding the lock. Returns how
 * many there were. */
unsigned gtrack_each_node(uint64_t handle,
			  void (*fn)(const struct gtrack_node *n, void *ctx),
			  void *ctx);

/* Node @node was made by a recorded call (cuGraphAdd*Node); which were
 * (a node of a captured graph, found by a query, was not). */
void gtrack_node_made(uint64_t node);
int gtrack_node_known(uint64_t node);

/* @handle (a graph or an executable graph) was destroyed. */
void gtrack_forget(uint64_t handle);

#endif
