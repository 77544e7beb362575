/* SPDX-License-Identifier: MIT */
/*
 * CUDA graphs as the program builds them: nodes added one by one (kernel,
 * copy, memset, host, child graph, event and empty nodes; the generic
 * cuGraphAddNode recorded as the typed call that makes the same node),
 * edges, stream captures (begin, capture into a graph, end),
 * instantiation, clones and updates. The node's parameters become
 * argument words and data as a launch's or a copy's would; what the
 * capture follows of each node and edge, for the launches to come, is
 * graph_track.c's; host nodes are made with graph_host.c's trampoline.
 * What the replay cannot rebuild (more dependencies than the words hold,
 * copies and memsets of other shapes) is reported as unsupported at the
 * entry. Launches are
 * inject_graph_launch.c's.
 */
#include <cuda.h>
#include <cupti.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "emit.h"
#include "graph_host.h"
#include "graph_track.h"
#include "inject.h"

/* Dependencies of a new node: the first GRAPH_MAX_DEPS as words. */
#define GRAPH_MAX_DEPS 8

/* Whether edge @i of @ed (may be NULL) is plain: full completion. */
static int edge_plain(const CUgraphEdgeData *ed, uint64_t i)
{
	static const CUgraphEdgeData plain;

	return !ed || !memcmp(&ed[i], &plain, sizeof(plain));
}

/* Whether the @n edges of @ed (may be NULL) are plain ones. */
static int edges_plain(const CUgraphEdgeData *ed, uint64_t n)
{
	for (uint64_t i = 0; i < n; i++) {
		if (!edge_plain(ed, i)) {
			return 0;
		}
	}
	return 1;
}

/* The most dependencies of a generic node with edges that are not plain
 * (the thread-local arrays of generic_node() and graph_typed_edges()). */
#define GENERIC_MAX_DEPS 64

/* The typed call a generic node becomes (generic_node()). */
union typed_params {
	cuGraphAddKernelNode_v2_params kernel;
	cuGraphAddMemcpyNode_params memcpy;
	cuGraphAddMemsetNode_params memset;
	cuGraphAddHostNode_params host;
	cuGraphAddChildGraphNode_params child;
	cuGraphAddEmptyNode_params empty;
	cuGraphAddEventRecordNode_params record;
	cuGraphAddEventWaitNode_params wait;
};

/* The unsupported names of the node kinds that have no typed call here. */
static const char *generic_unsupported(CUgraphNodeType type)
{
	switch (type) {
	case CU_GRAPH_NODE_TYPE_CONDITIONAL:
		return "cuGraphAddNode_v2.conditional";
	case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
	case CU_GRAPH_NODE_TYPE_MEM_FREE:
		return "cuGraphAddNode_v2.memory";
	case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
	case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
		return "cuGraphAddNode_v2.external_semaphore";
	case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
		return "cuGraphAddNode_v2.batch_mem_op";
	default:
		return "cuGraphAddNode_v2.unknown_kind";
	}
}

/* The typed call of node parameters @np into @p: its callback id, or 0
 * with *@why the unsupported name. */
static unsigned typed_node(const CUgraphNodeParams *np,
			   union typed_params *p, const char **why)
{
	switch (np->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL:
		p->kernel.nodeParams =
			(const CUDA_KERNEL_NODE_PARAMS *)&np->kernel;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode_v2;
	case CU_GRAPH_NODE_TYPE_MEMCPY:
		p->memcpy.copyParams = &np->memcpy.copyParams;
		p->memcpy.ctx = np->memcpy.copyCtx;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddMemcpyNode;
	case CU_GRAPH_NODE_TYPE_MEMSET:
		p->memset.memsetParams =
			(const CUDA_MEMSET_NODE_PARAMS *)&np->memset;
		p->memset.ctx = np->memset.ctx;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddMemsetNode;
	case CU_GRAPH_NODE_TYPE_HOST:
		p->host.nodeParams = (const CUDA_HOST_NODE_PARAMS *)&np->host;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddHostNode;
	case CU_GRAPH_NODE_TYPE_GRAPH:
		p->child.childGraph = np->graph.graph;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddChildGraphNode;
	case CU_GRAPH_NODE_TYPE_EMPTY:
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddEmptyNode;
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
		p->record.event = np->eventRecord.event;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddEventRecordNode;
	case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
		p->wait.event = np->eventWait.event;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddEventWaitNode;
	default:
		*why = generic_unsupported(np->type);
		return 0;
	}
}

/*
 * cuGraphAddNode_v2 and cuGraphAddNode (generic node creation): the node
 * is recorded as the typed call that makes the same node, whose words the
 * reader knows (the node parameter unions begin as the typed calls'
 * structs do), after the plain dependencies only: those of other edge
 * kinds (programmatic) are recorded after it (graph_typed_edges()).
 * Fills @out (the callback data, pointing at @p) and returns the typed
 * call's callback id; 0 with *@why the unsupported name for a node of
 * another kind, or more than GENERIC_MAX_DEPS dependencies with edges
 * that are not plain.
 */
static unsigned generic_node(const CUpti_CallbackData *cb, unsigned cbid,
			     CUpti_CallbackData *out, union typed_params *p,
			     const char **why)
{
	CUgraphNode *ph;
	CUgraph g;
	const CUgraphNode *deps;
	const CUgraphEdgeData *ed = NULL;
	size_t n;
	CUgraphNodeParams *np;

	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode_v2) {
		const cuGraphAddNode_v2_params *v = cb->functionParams;
		ph = v->phGraphNode;
		g = v->hGraph;
		deps = v->dependencies;
		ed = v->dependencyData;
		n = v->numDependencies;
		np = v->nodeParams;
	} else {
		const cuGraphAddNode_params *v = cb->functionParams;
		ph = v->phGraphNode;
		g = v->hGraph;
		deps = v->dependencies;
		n = v->numDependencies;
		np = v->nodeParams;
	}
	*out = *cb;
	out->functionParams = p;
	memset(p, 0, sizeof(*p));
	/* Every typed struct begins phGraphNode, hGraph, deps, count. */
	p->empty.phGraphNode = ph;
	p->empty.hGraph = g;
	p->empty.dependencies = deps;
	p->empty.numDependencies = n;
	if (!edges_plain(ed, n)) {
		static __thread CUgraphNode plain[GENERIC_MAX_DEPS];
		size_t k = 0;
		if (n > GENERIC_MAX_DEPS) {
			*why = "cuGraphAddNode_v2.edge_data";
			return 0;
		}
		for (size_t i = 0; i < n; i++) {
			if (edge_plain(ed, i)) {
				plain[k++] = deps[i];
			}
		}
		p->empty.dependencies = k ? plain : NULL;
		p->empty.numDependencies = k;
	}
	if (!np) {
		*why = "cuGraphAddNode_v2.unknown_kind";
		return 0;
	}
	return typed_node(np, p, why);
}

int graph_typed_call(const CUpti_CallbackData **cb, unsigned *cbid,
		     int exit, struct gm_thread *t)
{
	static __thread union typed_params tp;
	static __thread CUpti_CallbackData tcb;
	const char *why = NULL;
	unsigned typed = generic_node(*cb, *cbid, &tcb, &tp, &why);

	if (!typed) {
		if (!exit) {
			gm_capture_count_call(0, *cbid);
			unsupported_call(*cb, *cbid, 0, why, t);
		}
		return -1;
	}
	/* Recorded, and counted, as the typed call. */
	*cb = &tcb;
	*cbid = typed;
	return 0;
}

int graph_typed_edges(const CUpti_CallbackData *cb,
		      cuGraphAddDependencies_v2_params *p)
{
	static __thread CUgraphNode from[GENERIC_MAX_DEPS];
	static __thread CUgraphNode to[GENERIC_MAX_DEPS];
	static __thread CUgraphEdgeData data[GENERIC_MAX_DEPS];
	const cuGraphAddNode_v2_params *v = cb->functionParams;
	size_t k = 0;

	if (cb->callbackSite != CUPTI_API_EXIT || !v || !v->phGraphNode ||
	    !v->dependencies || !v->dependencyData ||
	    v->numDependencies > GENERIC_MAX_DEPS) {
		return 0;
	}
	for (size_t i = 0; i < v->numDependencies; i++) {
		if (!edge_plain(v->dependencyData, i)) {
			from[k] = v->dependencies[i];
			to[k] = *v->phGraphNode;
			data[k++] = v->dependencyData[i];
		}
	}
	memset(p, 0, sizeof(*p));
	p->hGraph = v->hGraph;
	p->from = from;
	p->to = to;
	p->edgeData = data;
	p->numDependencies = k;
	return k > 0;
}

/* The dependencies of a node-adding call as words; at its successful
 * exit, the node is known (graph_track.h). */
static void graph_deps(struct sp_call *c)
{
	/* Every node-adding row begins phGraphNode, hGraph, dependencies,
	 * numDependencies (cuda_api.def). */
	uint64_t *a = c->a;
	const CUgraphNode *deps = (const CUgraphNode *)(uintptr_t)a[2];
	uint64_t n = a[3];

	for (uint64_t i = 0; deps && i < n && i < GRAPH_MAX_DEPS; i++) {
		a[c->f->deps + i] = (uintptr_t)deps[i];
	}
	if (!c->exit && n > GRAPH_MAX_DEPS) {
		sp_unsupported(c);	/* the replay would lose edges */
	}
	if (c->exit && a[0]) {
		gtrack_node_made(a[0]);		/* phGraphNode, at exit */
	}
}

/* A node a recorded call made, at its successful exit: what the capture
 * follows of it (@what) and its edges (graph_track.h). */
static void graph_node_made(const uint64_t *a, const struct gtrack_node *what)
{
	gtrack_graph_node(a[1], a[0], (const uint64_t *)(uintptr_t)a[2],
			  (size_t)a[3], what);
}

/* A node followed for its edges only. */
static const struct gtrack_node other_node = { GTRACK_OTHER, { 0 }, 0,
					      { 0, 0 }, NULL };

/* A node of @kind over @span, followed. */
static void graph_span_node_made(const uint64_t *a, int kind,
				 const struct gm_span *span)
{
	struct gtrack_node n = other_node;

	n.kind = kind;
	n.span = *span;
	graph_node_made(a, &n);
}

/*
 * cuGraphAddHostNode: at entry, the node is made with the capture's
 * trampoline (graph_host.h) instead of the program's function, through a
 * parameter struct of the wrapper's (the program's stays as it was); at
 * exit, the node is followed as a host node. The entry passes the wrapper
 * to the exit in the call's correlation data.
 */
struct host_node_params {
	CUDA_HOST_NODE_PARAMS p;
	struct gnode_wrap *w;
};

static void graph_host_node(const CUpti_CallbackData *cb, uint64_t *a,
			    int exit, int ok)
{
	cuGraphAddHostNode_params *p = (void *)cb->functionParams;
	struct host_node_params *hp;

	if (!exit) {
		*cb->correlationData = 0;
		if (!p || !p->nodeParams || !p->nodeParams->fn ||
		    !(hp = calloc(1, sizeof(*hp)))) {
			return;
		}
		hp->p = *p->nodeParams;
		hp->w = gnode_wrap_new(hp->p.fn, hp->p.userData, &hp->p.fn,
				       &hp->p.userData);
		if (!hp->w) {
			free(hp);
			return;
		}
		p->nodeParams = &hp->p;
		*cb->correlationData = (uintptr_t)hp;
		return;
	}
	hp = (struct host_node_params *)(uintptr_t)*cb->correlationData;
	if (ok) {
		struct gtrack_node n = other_node;
		if (hp) {
			n.kind = GTRACK_HOST;
			n.host = hp->w;
		}
		graph_node_made(a, &n);
	}
	/* The driver copied the parameters; the wrapper lives on (a failed
	 * call's is never run). */
	free(hp);
}

/* CUmemorytype */
#define MT_HOST 1
#define MT_DEVICE 2
#define MT_UNIFIED 4

/*
 * What reconstruct rebuilds of a memcpy node (reconstruct/trace/bundle_feed.c,
 * node_copy()): one contiguous run, host or device at each end, not host
 * to host. Reported at capture otherwise.
 */
static int copy_node_ok(const CUDA_MEMCPY3D *c)
{
	size_t w = c->WidthInBytes, h = c->Height ? c->Height : 1,
	       d = c->Depth ? c->Depth : 1;
	int sh = side_is_host(c->srcMemoryType, c->srcHost, c->srcDevice),
	    dh = side_is_host(c->dstMemoryType, c->dstHost, c->dstDevice);

	if ((c->srcMemoryType != MT_HOST && c->srcMemoryType != MT_DEVICE &&
	     c->srcMemoryType != MT_UNIFIED) ||
	    (c->dstMemoryType != MT_HOST && c->dstMemoryType != MT_DEVICE &&
	     c->dstMemoryType != MT_UNIFIED) || (sh && dh)) {
		return 0;
	}
	return h * d == 1 || (c->srcPitch == w && c->dstPitch == w &&
			      (d == 1 || (c->srcHeight == h &&
					  c->dstHeight == h)));
}

/* A kernel node's parameters, recorded like a launch's. */
static void graph_kernel(struct sp_call *c)
{
	const struct api_info *f = c->f;
	const CUDA_KERNEL_NODE_PARAMS *np =
		(const void *)(uintptr_t)c->a[f->node_params];
	uint64_t *k = &c->a[f->knode];
	uint64_t fn;

	if (!np) {
		return;
	}
	fn = np->func ? (uintptr_t)np->func : (uintptr_t)np->kern;
	k[0] = fn;
	k[1] = np->gridDimX;
	k[2] = np->gridDimY;
	k[3] = np->gridDimZ;
	k[4] = np->blockDimX;
	k[5] = np->blockDimY;
	k[6] = np->blockDimZ;
	k[7] = np->sharedMemBytes;
	if (!c->exit) {
		launch_params(c->r, fn, np->kernelParams, np->extra, 0);
	}
}

/*
 * cuGraphAddKernelNode (made, with its dependencies) and
 * cuGraph[Exec]KernelNodeSetParams (no dependencies: the node must be one
 * the replay makes, not one of a captured graph that a query found).
 */
void sp_graph_kernel(struct sp_call *c)
{
	if (c->f->deps >= 0) {
		graph_deps(c);
		if (c->ok) {
			graph_node_made(c->a, &other_node);
		}
	} else if (!c->exit) {
		uint64_t node = c->a[gm_api_arg_index(c->api, "hNode")];
		if (!gtrack_node_known(node)) {
			sp_unsupported(c);
		}
	}
	graph_kernel(c);
}

/*
 * A copy node. A host source is read at each launch; what the replay has
 * is its content when the node was made (doc/graphs.md): a launch that
 * finds it changed is reported (inject_graph_launch.c). A host
 * destination is a result of each launch.
 */
void sp_graph_memcpy(struct sp_call *c)
{
	const CUDA_MEMCPY3D *p =
		(const void *)(uintptr_t)c->a[c->f->node_params];
	struct gm_span s;

	graph_deps(c);
	copy3d_fields(&c->a[c->f->fields], p);
	if (!p) {
		if (c->ok) {
			graph_node_made(c->a, &other_node);
		}
		return;
	}
	if (!c->exit && !copy_node_ok(p)) {
		sp_unsupported(c);
	}
	if (copy3d_host_src(p, &s)) {
		if (!c->exit) {
			gm_capture_add(h2d_bytes, gm_span_size(&s));
			gm_capture_payload(c->r, &s, GM_INLINE_MAX);
		}
		if (c->ok) {
			graph_span_node_made(c->a, GTRACK_SOURCE, &s);
		}
	} else if (c->ok && copy3d_host_dst(p, &s)) {
		graph_span_node_made(c->a, GTRACK_COPY, &s);
	} else if (c->ok) {
		graph_node_made(c->a, &other_node);
	}
}

void sp_graph_memset(struct sp_call *c)
{
	const CUDA_MEMSET_NODE_PARAMS *m =
		(const void *)(uintptr_t)c->a[c->f->node_params];
	uint64_t *w = &c->a[c->f->mset];

	graph_deps(c);
	/* Reconstruct rebuilds 1, 2 and 4-byte elements in rows without
	 * padding (bundle_feed.c): reported at capture otherwise. */
	if (m && !c->exit &&
	    ((m->elementSize != 1 && m->elementSize != 2 &&
	      m->elementSize != 4) ||
	     (m->height > 1 && m->pitch != m->width * m->elementSize))) {
		sp_unsupported(c);
	}
	if (m) {
		w[0] = m->dst;
		w[1] = m->pitch;
		w[2] = m->value;
		w[3] = m->elementSize;
		w[4] = m->width;
		w[5] = m->height;
	}
	if (c->ok) {
		graph_node_made(c->a, &other_node);
	}
}

/* Host, event record, event wait and empty nodes. */
void sp_graph_node(struct sp_call *c)
{
	graph_deps(c);
	if (c->api == GM_API_cuGraphAddHostNode) {
		graph_host_node(c->cb, c->a, c->exit, c->ok);
	} else if (c->ok && c->api == GM_API_cuGraphAddEventRecordNode) {
		struct gtrack_node n = other_node;
		n.kind = GTRACK_EVENT;
		n.event = ARGS(cuGraphAddEventRecordNode, c->a)->event;
		graph_node_made(c->a, &n);
	} else if (c->ok) {
		graph_node_made(c->a, &other_node);
	}
}

void sp_graph_child(struct sp_call *c)
{
	uint64_t *a = c->a;

	graph_deps(c);
	if (c->ok) {
		gtrack_graph_child(a[1], a[0],
				   (const uint64_t *)(uintptr_t)a[2],
				   (size_t)a[3],
				   ARGS(cuGraphAddChildGraphNode, a)->childGraph);
	}
}

/*
 * The *@n edges of cuGraphAddDependencies (words @a) as (from, to) pairs
 * of words: in @r's data, or (@r NULL) allocated for the caller to free.
 * In @r's data, when an edge is not plain, (from, to, edge) triples, the
 * edge word the bytes of its CUgraphEdgeData (cuda_api.def). NULL when it
 * has none or no memory for them.
 */
static uint64_t *edge_pairs(struct gm_record *r, const uint64_t *a,
			    uint64_t *n)
{
	const struct gm_args_cuGraphAddDependencies_v2 *x =
		ARGS(cuGraphAddDependencies_v2, a);
	const CUgraphNode *from = (const void *)(uintptr_t)x->from;
	const CUgraphNode *to = (const void *)(uintptr_t)x->to;
	const CUgraphEdgeData *ed = (const void *)(uintptr_t)x->edgeData;
	size_t w;
	uint64_t *pairs;

	*n = x->numDependencies;
	if (!from || !to || !*n || *n > (1u << 20)) {
		return NULL;
	}
	w = r && !edges_plain(ed, *n) ? 3 : 2;
	pairs = r ? gm_capture_data(r, (size_t)*n * w * 8)
		  : malloc((size_t)*n * 2 * sizeof(*pairs));
	for (uint64_t i = 0; pairs && i < *n; i++) {
		pairs[w * i] = (uintptr_t)from[i];
		pairs[w * i + 1] = (uintptr_t)to[i];
		if (w == 3) {
			_Static_assert(sizeof(*ed) == 8, "one word an edge");
			memcpy(&pairs[w * i + 2], &ed[i], 8);
		}
	}
	return pairs;
}

/* cuGraphAddDependencies: the edges in the entry's data; at its
 * successful exit, followed. */
void sp_graph_deps(struct sp_call *c)
{
	uint64_t *pairs, n;

	if (!c->exit) {
		edge_pairs(c->r, c->a, &n);
	} else if (c->ok && (pairs = edge_pairs(NULL, c->a, &n))) {
		gtrack_graph_edges(ARGS(cuGraphAddDependencies_v2, c->a)->hGraph,
				   pairs, (size_t)n);
		free(pairs);
	}
}

/* cuGraphExecChildGraphNodeSetParams: the node must be one the replay
 * makes; the executable graph's copy of the child becomes the new one's. */
void sp_graph_child_set(struct sp_call *c)
{
	const struct gm_args_cuGraphExecChildGraphNodeSetParams *x =
		ARGS(cuGraphExecChildGraphNodeSetParams, c->a);

	if (!c->exit && !gtrack_node_known(x->hNode)) {
		sp_unsupported(c);
	}
	if (c->ok) {
		gtrack_exec_child(x->hGraphExec, x->hNode, x->childGraph);
	}
}

/* Instantiations, clones and updates: the new handle first, the graph
 * second (every row); the new one launches the same nodes. */
void sp_graph_inherit(struct sp_call *c)
{
	if (c->ok) {
		gtrack_inherit(c->a[0], c->a[1]);
	}
}

void sp_capture_begin(struct sp_call *c)
{
	if (c->ok) {
		gtrack_begin(c->key);
	}
}

/* cuStreamBeginCaptureToGraph: the dependencies are nodes of the graph,
 * as a node's; edges that are not plain (programmatic, into the first
 * node the capture makes) in the entry's data, one CUgraphEdgeData a
 * word (cuda_api.def). */
void sp_capture_to(struct sp_call *c)
{
	uint64_t *a = c->a;
	const CUgraphNode *deps = (const CUgraphNode *)(uintptr_t)a[2];
	const CUgraphEdgeData *ed = (const void *)(uintptr_t)a[3];
	uint64_t n = a[4];
	uint64_t *w;

	for (uint64_t i = 0; deps && i < n && i < GRAPH_MAX_DEPS; i++) {
		a[c->f->deps + i] = (uintptr_t)deps[i];
	}
	if (!c->exit && n > GRAPH_MAX_DEPS) {
		sp_unsupported(c);
	} else if (!c->exit && !edges_plain(ed, n) &&
		   (w = gm_capture_data(c->r, (size_t)n * 8))) {
		memcpy(w, ed, (size_t)n * 8);
	}
	if (c->ok) {
		gtrack_begin_to(c->key, a[1]);
	}
}

/* A failed end (an invalidated capture) ends it too. */
void sp_capture_end(struct sp_call *c)
{
	if (c->exit) {
		gtrack_end(c->key, c->ok ? c->a[1] : 0);
		if (!c->ok) {
			gtrack_forget(0);
		}
	}
}
