/* SPDX-License-Identifier: MIT */
/*
 * CUDA graphs in the replay model (see model.h, "graphs"). Captured graph,
 * executable graph and node handles map to small ids that are never
 * reused (a program makes few graphs). What a graph's device-to-host copy
 * nodes deliver is known only per launch: every graph and executable
 * graph keeps the list of its copy operations (the D2H operations made
 * while capturing, or inside NODE_BEGIN/NODE_END), and each launch adds
 * one GRAPH_CHECK per copy, whose hash the launch's d2h_hash events give.
 * Which streams capture is followed as CUDA does: the one that began, and
 * every stream that waited on an event recorded in the capture.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "model_int.h"

#define EVF "event %" PRIu64 " (%s): "

/* The captured handle that stands for the graph-building stream: no real
 * stream handle is all ones but for one bit. */
#define BUILDER_HANDLE (~(uint64_t)0 - 0xb)

struct gcopy {
	uint32_t op;		/* the D2H operation of the node */
	uint32_t via;		/* the child graph node that brought it
				   into the graph, + 1; 0: none */
	uint64_t host;		/* its captured host destination */
};

struct glist {
	struct gcopy *v;
	size_t nr, alloc;
};

struct glaunch {
	size_t first;		/* its first GRAPH_CHECK operation */
	uint32_t n;
};

struct model_graphs {
	struct handle_map graph_map, exec_map, node_map, launch_map;
	struct glist *graphs, *execs;	/* by id */
	size_t nr_graphs, alloc_graphs, nr_execs, alloc_execs;
	uint32_t nr_nodes;
	uint32_t *stream_cap;		/* per stream id: graph id + 1 */
	size_t nr_stream_cap;
	uint32_t *event_cap;		/* per event id: graph id + 1 */
	size_t nr_event_cap;
	int have_builder;
	struct glaunch *launches;
	size_t nr_launches, alloc_launches;
};

static struct model_graphs *graphs_of(struct model_prog *p)
{
	if (!p->graphs) {
		p->graphs = gm_xcalloc(1, sizeof(*p->graphs));
	}
	return p->graphs;
}

void model_graphs_free(struct model_graphs *g)
{
	if (!g) {
		return;
	}
	handle_map_release(&g->graph_map);
	handle_map_release(&g->exec_map);
	handle_map_release(&g->node_map);
	handle_map_release(&g->launch_map);
	for (size_t i = 0; i < g->nr_graphs; i++) {
		free(g->graphs[i].v);
	}
	for (size_t i = 0; i < g->nr_execs; i++) {
		free(g->execs[i].v);
	}
	free(g->graphs);
	free(g->execs);
	free(g->stream_cap);
	free(g->event_cap);
	free(g->launches);
	free(g);
}

static void glist_copy(struct glist *dst, const struct glist *src, int append)
{
	if (!append) {
		dst->nr = 0;
	}
	if (!src->nr) {
		return;
	}
	GM_ALLOC_GROW(dst->v, dst->nr + src->nr + 1, dst->alloc);
	memcpy(dst->v + dst->nr, src->v, src->nr * sizeof(*src->v));
	dst->nr += src->nr;
}

static uint32_t new_graph(struct model_graphs *g)
{
	GM_ALLOC_GROW(g->graphs, g->nr_graphs + 1, g->alloc_graphs);
	memset(&g->graphs[g->nr_graphs], 0, sizeof(*g->graphs));
	return (uint32_t)g->nr_graphs++;
}

static int graph_id(struct model_prog *p, uint64_t ev, const char *api,
		    uint64_t handle, uint32_t *out)
{
	if (!handle_map_get(&graphs_of(p)->graph_map, handle, out)) {
		return gm_error(EVF "unknown graph 0x%" PRIx64, ev, api, handle);
	}
	return 0;
}

static int exec_id(struct model_prog *p, uint64_t ev, const char *api,
		   uint64_t handle, uint32_t *out)
{
	if (!handle_map_get(&graphs_of(p)->exec_map, handle, out)) {
		return gm_error(EVF "unknown executable graph 0x%" PRIx64, ev,
				api, handle);
	}
	return 0;
}

static uint32_t *cap_slot(uint32_t **v, size_t *nr, uint32_t id)
{
	if (id >= *nr) {
		size_t n = id + 8;
		*v = gm_xrealloc(*v, n * sizeof(**v));
		memset(*v + *nr, 0, (n - *nr) * sizeof(**v));
		*nr = n;
	}
	return &(*v)[id];
}

uint32_t model_graph_capturing(struct model_prog *p, uint16_t s)
{
	struct model_graphs *g = p->graphs;

	return g && s < g->nr_stream_cap ? g->stream_cap[s] : 0;
}

void model_graph_copy_node(struct model_prog *p, uint16_t s, uint32_t op,
			   uint64_t host)
{
	struct model_graphs *g = graphs_of(p);
	struct glist *l = &g->graphs[model_graph_capturing(p, s) - 1];

	GM_ALLOC_GROW(l->v, l->nr + 1, l->alloc);
	l->v[l->nr].op = op;
	l->v[l->nr].via = 0;
	l->v[l->nr].host = host;
	l->nr++;
}

void model_graph_event_record(struct model_prog *p, uint32_t e, uint16_t s)
{
	struct model_graphs *g = graphs_of(p);

	*cap_slot(&g->event_cap, &g->nr_event_cap, e) =
		model_graph_capturing(p, s);
}

void model_graph_stream_wait(struct model_prog *p, uint16_t s, uint32_t e)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t cap = e < g->nr_event_cap ? g->event_cap[e] : 0;

	/* Only a capture still open: its graph is not bound to a handle. */
	if (cap && !model_graph_capturing(p, s)) {
		for (size_t i = 0; i < g->nr_stream_cap; i++) {
			if (g->stream_cap[i] == cap) {
				*cap_slot(&g->stream_cap, &g->nr_stream_cap,
					  s) = cap;
				break;
			}
		}
	}
}

int model_capture_begin(struct model_prog *p, uint64_t ev, const char *api,
			uint64_t stream)
{
	struct model_graphs *g = graphs_of(p);
	uint16_t s;

	if (model_check_open(p) < 0 ||
	    model_stream_lookup(p, ev, api, stream, &s) < 0) {
		return -1;
	}
	if (model_graph_capturing(p, s)) {
		return gm_error(EVF "the stream is capturing already", ev, api);
	}
	*cap_slot(&g->stream_cap, &g->nr_stream_cap, s) = new_graph(g) + 1;
	model_op_add(p, ev, api, GM_OP_CAPTURE_BEGIN)->stream = s;
	return 0;
}

int model_capture_to_graph(struct model_prog *p, uint64_t ev, const char *api,
			   uint64_t stream, uint64_t graph, const uint64_t *deps,
			   const uint64_t *edges, unsigned nr_deps)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t gid, after = 0, known = 0;
	uint64_t edge = 0;
	uint16_t s;
	struct mop *op;

	if (model_check_open(p) < 0 || graph_id(p, ev, api, graph, &gid) < 0 ||
	    model_stream_lookup(p, ev, api, stream, &s) < 0) {
		return -1;
	}
	if (model_graph_capturing(p, s)) {
		return gm_error(EVF "the stream is capturing already", ev, api);
	}
	for (unsigned i = 0; i < nr_deps; i++) {
		uint32_t nid;
		if (handle_map_get(&g->node_map, deps[i], &nid)) {
			after = nid;
			edge = edges ? edges[i] : 0;
			known++;
		} else {
			model_add_warning(p, ev, "%s: dependency on node 0x%"
					  PRIx64 ", which no recorded call "
					  "made, is not replayed", api, deps[i]);
		}
	}
	if (known > 1) {
		/* The capture begins after one empty node that joins them:
		 * the same order, one edge to the captured work (a full one:
		 * a programmatic edge joins kernel nodes only). */
		for (unsigned i = 0; edges && i < nr_deps; i++) {
			if (edges[i]) {
				model_add_warning(p, ev, "%s: a programmatic "
						  "edge among %u dependencies is "
						  "replayed as a full one", api,
						  nr_deps);
				break;
			}
		}
		edge = 0;
		after = g->nr_nodes++;
		op = model_op_add(p, ev, api, GM_OP_GRAPH_NODE);
		op->a = gid;
		op->b = after;
		op->x = GM_GNODE_EMPTY;
		for (unsigned i = 0; i < nr_deps; i++) {
			uint32_t nid;
			if (handle_map_get(&g->node_map, deps[i], &nid)) {
				op = model_op_add(p, ev, api, GM_OP_GRAPH_DEP);
				op->a = gid;
				op->b = nid;
				op->c = after;
			}
		}
	}
	*cap_slot(&g->stream_cap, &g->nr_stream_cap, s) = gid + 1;
	op = model_op_add(p, ev, api,
			  edge ? GM_OP_CAPTURE_EDGE :
			  known ? GM_OP_CAPTURE_AFTER : GM_OP_CAPTURE_TO);
	op->stream = s;
	op->a = gid;
	op->b = known ? after : 0;
	op->x = edge;
	return 0;
}

int model_capture_end(struct model_prog *p, uint64_t ev, const char *api,
		      uint64_t stream, uint64_t graph)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t cap;
	uint16_t s;
	struct mop *op;

	if (model_check_open(p) < 0 ||
	    model_stream_lookup(p, ev, api, stream, &s) < 0) {
		return -1;
	}
	cap = model_graph_capturing(p, s);
	if (!cap) {
		return gm_error(EVF "the stream is not capturing", ev, api);
	}
	for (size_t i = 0; i < g->nr_stream_cap; i++) {
		if (g->stream_cap[i] == cap) {
			g->stream_cap[i] = 0;
		}
	}
	if (graph) {
		handle_map_put(&g->graph_map, graph, cap - 1);
	}
	op = model_op_add(p, ev, api, GM_OP_CAPTURE_END);
	op->stream = s;
	op->a = cap - 1;
	return 0;
}

int model_graph_create(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t graph)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t id;

	if (model_check_open(p) < 0) {
		return -1;
	}
	id = new_graph(g);
	handle_map_put(&g->graph_map, graph, id);
	model_op_add(p, ev, api, GM_OP_GRAPH_CREATE)->a = id;
	return 0;
}

int model_graph_node_begin(struct model_prog *p, uint64_t ev, const char *api,
			   uint64_t graph, uint64_t *stream)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t id;
	uint16_t s;
	struct mop *op;

	if (model_check_open(p) < 0 || graph_id(p, ev, api, graph, &id) < 0) {
		return -1;
	}
	if (!g->have_builder) {
		if (model_add_stream(p, ev, BUILDER_HANDLE, 1, 0) < 0) {
			return -1;
		}
		g->have_builder = 1;
	}
	if (model_stream_lookup(p, ev, api, BUILDER_HANDLE, &s) < 0) {
		return -1;
	}
	*cap_slot(&g->stream_cap, &g->nr_stream_cap, s) = id + 1;
	op = model_op_add(p, ev, api, GM_OP_NODE_BEGIN);
	op->stream = s;
	op->a = id;
	*stream = BUILDER_HANDLE;
	return 0;
}

/* Edges from the known nodes of @deps to node @nid of graph @gid; with
 * @edges (may be NULL), edge i is edges[i]'s kind (0: plain). */
static void add_deps(struct model_prog *p, uint64_t ev, const char *api,
		     uint32_t gid, uint32_t nid, const uint64_t *deps,
		     const uint64_t *edges, unsigned n)
{
	struct model_graphs *g = graphs_of(p);

	for (unsigned i = 0; i < n; i++) {
		uint32_t from;
		uint64_t kind = edges ? edges[i] : 0;
		struct mop *op;
		if (!handle_map_get(&g->node_map, deps[i], &from)) {
			model_add_warning(p, ev, "%s: dependency on node 0x%"
					  PRIx64 ", which no recorded call "
					  "made, is not replayed", api,
					  deps[i]);
			continue;
		}
		/* A plain edge keeps its short row. */
		op = model_op_add(p, ev, api,
				  kind ? GM_OP_GRAPH_EDGE : GM_OP_GRAPH_DEP);
		op->a = gid;
		op->b = from;
		op->c = nid;
		op->x = kind;
	}
}

static uint32_t new_node(struct model_prog *p, uint64_t node)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t nid = g->nr_nodes++;

	handle_map_put(&g->node_map, node, nid);
	return nid;
}

int model_graph_node_end(struct model_prog *p, uint64_t ev, const char *api,
			 uint64_t graph, uint64_t node, const uint64_t *deps,
			 unsigned nr_deps)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t gid, nid;
	uint16_t s;
	struct mop *op;

	if (model_check_open(p) < 0 || graph_id(p, ev, api, graph, &gid) < 0 ||
	    model_stream_lookup(p, ev, api, BUILDER_HANDLE, &s) < 0) {
		return -1;
	}
	*cap_slot(&g->stream_cap, &g->nr_stream_cap, s) = 0;
	nid = new_node(p, node);
	op = model_op_add(p, ev, api, GM_OP_NODE_END);
	op->stream = s;
	op->a = gid;
	op->b = nid;
	add_deps(p, ev, api, gid, nid, deps, NULL, nr_deps);
	return 0;
}

int model_graph_node(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t graph, uint64_t node, unsigned kind, uint64_t arg,
		     const uint64_t *deps, unsigned nr_deps)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t gid, nid, a = 0;
	struct mop *op;

	if (model_check_open(p) < 0 || graph_id(p, ev, api, graph, &gid) < 0) {
		return -1;
	}
	if (kind == GM_GNODE_CHILD) {
		size_t first = g->graphs[gid].nr;
		if (graph_id(p, ev, api, arg, &a) < 0) {
			return -1;
		}
		/* The child is copied into the node: its copies are ours,
		 * through the node (model_graph_child_set()). */
		glist_copy(&g->graphs[gid], &g->graphs[a], 1);
		for (size_t i = first; i < g->graphs[gid].nr; i++) {
			g->graphs[gid].v[i].via = g->nr_nodes + 1;
		}
	} else if ((kind == GM_GNODE_EVENT_RECORD ||
		    kind == GM_GNODE_EVENT_WAIT) &&
		   model_event_lookup(p, ev, api, arg, &a) < 0) {
		return -1;
	}
	nid = new_node(p, node);
	op = model_op_add(p, ev, api, GM_OP_GRAPH_NODE);
	op->a = gid;
	op->b = nid;
	op->x = kind;
	op->c = a;
	add_deps(p, ev, api, gid, nid, deps, NULL, nr_deps);
	return 0;
}

int model_graph_deps(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t graph, const uint64_t *edges, size_t n,
		     unsigned width)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t gid;

	if (model_check_open(p) < 0 || graph_id(p, ev, api, graph, &gid) < 0) {
		return -1;
	}
	for (size_t i = 0; i < n; i++) {
		const uint64_t *e = &edges[width * i];
		uint32_t to;
		if (!handle_map_get(&g->node_map, e[1], &to)) {
			model_add_warning(p, ev, "%s: edge to node 0x%" PRIx64
					  ", which no recorded call made, is "
					  "not replayed", api, e[1]);
			continue;
		}
		add_deps(p, ev, api, gid, to, e, width > 2 ? &e[2] : NULL, 1);
	}
	return 0;
}

/* An executable graph's copies become @gid's. */
static void exec_takes(struct model_graphs *g, uint32_t eid, uint32_t gid)
{
	glist_copy(&g->execs[eid], &g->graphs[gid], 0);
}

int model_graph_instantiate(struct model_prog *p, uint64_t ev, const char *api,
			    uint64_t exec, uint64_t graph)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t gid, eid;
	struct mop *op;

	if (model_check_open(p) < 0 || graph_id(p, ev, api, graph, &gid) < 0) {
		return -1;
	}
	GM_ALLOC_GROW(g->execs, g->nr_execs + 1, g->alloc_execs);
	memset(&g->execs[g->nr_execs], 0, sizeof(*g->execs));
	eid = (uint32_t)g->nr_execs++;
	handle_map_put(&g->exec_map, exec, eid);
	exec_takes(g, eid, gid);
	op = model_op_add(p, ev, api, GM_OP_GRAPH_INST);
	op->a = eid;
	op->b = gid;
	return 0;
}

int model_graph_update(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t exec, uint64_t graph)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t gid, eid;
	struct mop *op;

	if (model_check_open(p) < 0 || graph_id(p, ev, api, graph, &gid) < 0 ||
	    exec_id(p, ev, api, exec, &eid) < 0) {
		return -1;
	}
	exec_takes(g, eid, gid);
	op = model_op_add(p, ev, api, GM_OP_GRAPH_UPDATE);
	op->a = eid;
	op->b = gid;
	return 0;
}

int model_graph_child_set(struct model_prog *p, uint64_t ev, const char *api,
			  uint64_t exec, uint64_t node, uint64_t graph)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t gid, eid, nid;
	struct glist *l;
	size_t k = 0, first;
	struct mop *op;

	if (model_check_open(p) < 0 || graph_id(p, ev, api, graph, &gid) < 0 ||
	    exec_id(p, ev, api, exec, &eid) < 0) {
		return -1;
	}
	if (!handle_map_get(&g->node_map, node, &nid)) {
		/* reported at capture: the replay cannot name it */
		model_add_unsupported(p, ev, api);
		return 0;
	}
	/* The copies of the node's old child leave, the new one's come. */
	l = &g->execs[eid];
	for (size_t i = 0; i < l->nr; i++) {
		if (l->v[i].via != nid + 1) {
			l->v[k++] = l->v[i];
		}
	}
	l->nr = k;
	first = l->nr;
	glist_copy(l, &g->graphs[gid], 1);
	for (size_t i = first; i < l->nr; i++) {
		l->v[i].via = nid + 1;
	}
	op = model_op_add(p, ev, api, GM_OP_CHILD_SET);
	op->a = eid;
	op->b = nid;
	op->c = gid;
	return 0;
}

int model_graph_launch(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t exec, uint64_t stream)
{
	struct model_graphs *g = graphs_of(p);
	const struct glist *l;
	uint32_t eid;
	uint16_t s;
	struct mop *op;

	if (model_check_open(p) < 0 || exec_id(p, ev, api, exec, &eid) < 0 ||
	    model_stream_lookup(p, ev, api, stream, &s) < 0) {
		return -1;
	}
	op = model_op_add(p, ev, api, GM_OP_GRAPH_LAUNCH);
	op->stream = s;
	op->a = eid;
	l = &g->execs[eid];
	GM_ALLOC_GROW(g->launches, g->nr_launches + 1, g->alloc_launches);
	g->launches[g->nr_launches].first = p->nr_ops;
	g->launches[g->nr_launches].n = (uint32_t)l->nr;
	handle_map_put(&g->launch_map, ev, (uint32_t)g->nr_launches++);
	for (size_t i = 0; i < l->nr; i++) {
		/* x: the copy's operation, y: its captured destination,
		 * until model_graphs_finish() places the result. */
		op = model_op_add(p, ev, api, GM_OP_GRAPH_CHECK);
		op->stream = s;
		op->b = GM_NONE;
		op->x = l->v[i].op;
		op->y = l->v[i].host;
		op->z = p->ops[l->v[i].op].z;
	}
	return 0;
}

int model_graph_result_hash(struct model_prog *p, uint64_t ev,
			    uint64_t launch_ev, uint64_t host, uint64_t bytes,
			    const char *hash, int at_host_node)
{
	struct model_graphs *g = p->graphs;
	uint32_t li;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (!g || !handle_map_get(&g->launch_map, launch_ev, &li)) {
		return gm_error("event %" PRIu64 ": no graph launch at event %"
				PRIu64, ev, launch_ev);
	}
	for (size_t i = 0; i < g->launches[li].n; i++) {
		struct mop *op = &p->ops[g->launches[li].first + i];
		if (op->b == GM_NONE && !op->c && op->y == host &&
		    op->z == bytes) {
			char h[33];
			if (!hash) {
				/* overwritten: no result (c, until
				 * model_graphs_arena()) */
				op->c = 1;
				p->nr_overwritten++;
				return 0;
			}
			if (model_canonical_hash(hash, h) < 0) {
				return gm_error("event %" PRIu64 ": bad result "
						"hash '%s'", ev, hash);
			}
			op->b = gm_strmap_intern(&p->checks, h);
			if (at_host_node) {
				op->flags |= GM_F_LAUNCH_END;
			}
			return 0;
		}
	}
	return gm_error("event %" PRIu64 ": the graph launched at event %"
			PRIu64 " has no device-to-host copy of %" PRIu64
			" bytes to 0x%" PRIx64 " waiting for a hash", ev,
			launch_ev, bytes, host);
}

int model_graph_kernel_set(struct model_prog *p, uint64_t ev, const char *api,
			   uint64_t exec, uint64_t node,
			   const struct model_launch *l)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t eid = GM_NONE, nid;
	struct model_launch sl = *l;
	struct mop *op;

	if (model_check_open(p) < 0 ||
	    (exec && exec_id(p, ev, api, exec, &eid) < 0)) {
		return -1;
	}
	if (!handle_map_get(&g->node_map, node, &nid)) {
		/* A node of a captured graph, found by a query: the replay
		 * cannot name it. */
		model_add_unsupported(p, ev, api);
		return 0;
	}
	sl.stream = 0;
	if (model_add_launch(p, ev, api, &sl) < 0) {
		return -1;
	}
	/* The launch table row, without the launch. */
	op = &p->ops[p->nr_ops - 1];
	op->code = GM_OP_KNODE_SET;
	op->b = nid;
	op->c = eid;
	return 0;
}

int model_graph_clone(struct model_prog *p, uint64_t ev, const char *api,
		      uint64_t clone, uint64_t graph)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t gid, cid;
	struct mop *op;

	if (model_check_open(p) < 0 || graph_id(p, ev, api, graph, &gid) < 0) {
		return -1;
	}
	cid = new_graph(g);
	glist_copy(&g->graphs[cid], &g->graphs[gid], 0);
	handle_map_put(&g->graph_map, clone, cid);
	op = model_op_add(p, ev, api, GM_OP_GRAPH_CLONE);
	op->a = cid;
	op->b = gid;
	return 0;
}

int model_graph_destroy(struct model_prog *p, uint64_t ev, const char *api,
			uint64_t handle, int exec)
{
	struct model_graphs *g = graphs_of(p);
	uint32_t id;

	if (model_check_open(p) < 0 ||
	    (exec ? exec_id(p, ev, api, handle, &id) :
		    graph_id(p, ev, api, handle, &id)) < 0) {
		return -1;
	}
	handle_map_del(exec ? &g->exec_map : &g->graph_map, handle);
	model_op_add(p, ev, api, exec ? GM_OP_EXEC_DESTROY :
					GM_OP_GRAPH_DESTROY)->a = id;
	return 0;
}

int model_graph_stream(const struct model_prog *p, uint64_t stream)
{
	uint32_t id;

	return p->graphs && stream == BUILDER_HANDLE ? 1 :
	       p->graphs && handle_map_get(&p->stream_map, stream, &id) &&
	       model_graph_capturing((struct model_prog *)p, (uint16_t)id);
}

void model_graphs_counts(const struct model_prog *p, uint32_t *graphs,
			 uint32_t *execs, uint32_t *nodes)
{
	const struct model_graphs *g = p->graphs;

	*graphs = g ? (uint32_t)g->nr_graphs : 0;
	*execs = g ? (uint32_t)g->nr_execs : 0;
	*nodes = g ? g->nr_nodes : 0;
}

uint64_t model_graphs_arena(struct model_prog *p, uint64_t align)
{
	uint64_t cursor = 0;

	for (size_t i = 0; i < p->nr_ops; i++) {
		struct mop *op = &p->ops[i];
		if (op->code == GM_OP_D2H && (op->flags & GM_F_GRAPH)) {
			op->y = cursor;
			cursor += (op->z + align - 1) & ~(align - 1);
		}
	}
	for (size_t i = 0; i < p->nr_ops; i++) {
		struct mop *op = &p->ops[i];
		if (op->code == GM_OP_GRAPH_CHECK) {
			const struct mop *copy = &p->ops[op->x];
			op->y = copy->y;
			op->x = 0;
			op->flags = (op->flags & GM_F_LAUNCH_END) |
				    (copy->flags & GM_F_PINNED);
			if (op->b == GM_NONE && !op->c) {
				p->nr_unverifiable++;
			}
			op->c = 0;
		}
	}
	return cursor;
}
