/* SPDX-License-Identifier: MIT */
/*
 * CUDA graphs in the mock driver: stream capture (work queued on a
 * capturing stream does not run, it becomes a node of the capture's
 * graph; a stream joins a capture by waiting on an event recorded in it;
 * a synchronization of a capturing stream fails), explicit graphs (kernel,
 * memcpy, memset, host, empty, child graph and event nodes, edges),
 * instantiation, exec update, node parameter changes, clone, and launch:
 * an executable graph holds its own copy of every node (later changes of
 * the graph do not reach it) and a launch queues the nodes on the stream
 * in a topological order, stable in the order nodes were added, each a
 * fresh copy of its command, with one cuGraphLaunch API record as their
 * correlation. Dependencies are checked (unknown nodes, other graphs'
 * nodes, cycles fail as on CUDA); parallel branches run one after the
 * other, which CUDA may also do. Edges of other kinds (a programmatic
 * dependent launch's) are checked as CUDA documents them, logged
 * (MOCK_CUDA_CALL_LOG, "graph_edge" with the CUgraphEdgeData's bytes) and
 * run as full ones: the dependent kernel starting late is one of CUDA's
 * schedules. A child graph node of an executable graph takes another
 * graph of the same shape (cuGraphExecChildGraphNodeSetParams).
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cuda.h>
#include <cupti.h>

#include "mock.h"
#include "mock_int.h"

#define GRAPH_MAGIC 0x47524150u
#define NODE_MAGIC 0x4e4f4445u
#define EXEC_MAGIC 0x45584543u

enum nkind { N_EMPTY, N_CMD, N_HOST, N_CHILD, N_RECORD, N_WAIT };

struct mgraph;

struct mnode {
	uint32_t magic;
	enum nkind kind;
	struct mgraph *g;
	struct mock_cmd *cmd;		/* N_CMD: the template */
	struct mgraph *child;		/* N_CHILD: the graph's own copy */
	CUevent ev;
	CUhostFn fn;
	void *data;
	struct mnode **deps;
	unsigned nr_deps;
};

struct mgraph {
	uint32_t magic;
	struct mnode **nodes;
	unsigned nr, alloc;
};

/* One step of an executable graph. */
struct xstep {
	const struct mnode *origin;	/* the node it came from (a key) */
	const struct mnode *via;	/* the node of the instantiated graph
					   it came from (a child graph node
					   for its graph's steps) */
	enum nkind kind;
	struct mock_cmd *cmd;
	CUevent ev;
	CUhostFn fn;
	void *data;
};

struct mexec {
	uint32_t magic;
	struct xstep *v;
	unsigned nr, alloc;
};

/* A stream that captures: into @g, after node @last (by edge @edge
 * when @has_edge: a capture into a graph after an edge that is not
 * plain, until its first node). */
struct capturing {
	CUstream s;
	struct mgraph *g;
	struct mnode *last;
	CUgraphEdgeData edge;
	int has_edge;
	int origin;		/* began the capture (the others joined) */
	uint64_t id;
};

/* An event recorded during a capture: joins lead to @last of @g. */
struct cap_event {
	CUevent e;
	struct mgraph *g;
	struct mnode *last;
};

static struct {
	pthread_mutex_t lock;
	struct capturing *caps;
	size_t nr_caps, alloc_caps;
	struct cap_event *evs;
	size_t nr_evs, alloc_evs;
	uint64_t next_id;
} gs = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void *grow(void *p, size_t *alloc, size_t need, size_t size)
{
	if (need > *alloc) {
		size_t n = *alloc ? 2 * *alloc : 8;
		while (n < need) {
			n *= 2;
		}
		p = realloc(p, n * size);
		if (!p) {
			abort();	/* the mock's tests never run out */
		}
		*alloc = n;
	}
	return p;
}

static struct mock_cmd *clone_cmd(const struct mock_cmd *t)
{
	struct mock_cmd *c = malloc(t->size);

	if (!c) {
		return NULL;
	}
	memcpy(c, t, t->size);
	c->next = NULL;
	c->stream = NULL;
	c->deps = NULL;
	c->nr_deps = 0;
	c->seq = c->order = 0;
	if (t->rebase) {
		t->rebase(c, t);
	}
	return c;
}

static struct mgraph *graph_of(CUgraph h)
{
	struct mgraph *g = (struct mgraph *)h;

	return g && g->magic == GRAPH_MAGIC ? g : NULL;
}

static struct mnode *node_of(CUgraphNode h)
{
	struct mnode *n = (struct mnode *)h;

	return n && n->magic == NODE_MAGIC ? n : NULL;
}

static struct mexec *exec_of(CUgraphExec h)
{
	struct mexec *x = (struct mexec *)h;

	return x && x->magic == EXEC_MAGIC ? x : NULL;
}

static struct capturing *cap_of(CUstream s)
{
	for (size_t i = 0; i < gs.nr_caps; i++) {
		if (gs.caps[i].s == s) {
			return &gs.caps[i];
		}
	}
	return NULL;
}

static void graph_free(struct mgraph *g);

static void node_free(struct mnode *n)
{
	n->magic = 0;
	free(n->cmd);
	graph_free(n->child);
	free(n->deps);
	free(n);
}

static void graph_free(struct mgraph *g)
{
	if (!g) {
		return;
	}
	for (unsigned i = 0; i < g->nr; i++) {
		node_free(g->nodes[i]);
	}
	g->magic = 0;
	free(g->nodes);
	free(g);
}

static struct mgraph *graph_new(void)
{
	struct mgraph *g = calloc(1, sizeof(*g));

	if (g) {
		g->magic = GRAPH_MAGIC;
	}
	return g;
}

/* A new node of @g after @deps (checked: nodes of @g). */
static CUresult node_add(struct mgraph *g, enum nkind kind,
			 const CUgraphNode *deps, size_t nr,
			 struct mnode **out)
{
	struct mnode *n;
	size_t alloc = g->alloc;

	for (size_t i = 0; i < nr; i++) {
		struct mnode *d = node_of(deps[i]);
		if (!d || d->g != g) {
			return CUDA_ERROR_INVALID_VALUE;
		}
	}
	n = calloc(1, sizeof(*n));
	if (!n || (nr && !(n->deps = calloc(nr, sizeof(*n->deps))))) {
		free(n);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	n->magic = NODE_MAGIC;
	n->kind = kind;
	n->g = g;
	for (size_t i = 0; i < nr; i++) {
		n->deps[i] = (struct mnode *)deps[i];
	}
	n->nr_deps = (unsigned)nr;
	g->nodes = grow(g->nodes, &alloc, g->nr + 1, sizeof(*g->nodes));
	g->alloc = (unsigned)alloc;
	g->nodes[g->nr++] = n;
	*out = n;
	return CUDA_SUCCESS;
}

static struct mgraph *graph_clone(const struct mgraph *src);
static int is_kernel(const struct mnode *n);
static int edge_ok(const CUgraphEdgeData *e, const struct mnode *from,
		   int to_kernel);
static void edges_log(const CUgraphEdgeData *ed, size_t n);

/* A copy of node @n into @g; its dependencies are set by graph_clone(). */
static struct mnode *node_copy(struct mgraph *g, const struct mnode *n)
{
	struct mnode *c = calloc(1, sizeof(*c));

	if (!c) {
		abort();
	}
	*c = *n;
	c->g = g;
	c->cmd = n->cmd ? clone_cmd(n->cmd) : NULL;
	c->child = n->child ? graph_clone(n->child) : NULL;
	c->deps = n->nr_deps ? calloc(n->nr_deps, sizeof(*c->deps)) : NULL;
	return c;
}

static struct mgraph *graph_clone(const struct mgraph *src)
{
	struct mgraph *g = graph_new();
	size_t alloc = 0;

	if (!g) {
		abort();
	}
	g->nodes = grow(NULL, &alloc, src->nr + 1, sizeof(*g->nodes));
	g->alloc = (unsigned)alloc;
	for (unsigned i = 0; i < src->nr; i++) {
		g->nodes[g->nr++] = node_copy(g, src->nodes[i]);
	}
	/* Dependencies by position, once every node exists. */
	for (unsigned i = 0; i < src->nr; i++) {
		const struct mnode *n = src->nodes[i];
		for (unsigned d = 0; d < n->nr_deps; d++) {
			for (unsigned k = 0; k < src->nr; k++) {
				if (src->nodes[k] == n->deps[d]) {
					g->nodes[i]->deps[d] = g->nodes[k];
				}
			}
		}
	}
	return g;
}

/* ---- stream capture ---- */

int mock_graph_capturing(CUstream h)
{
	int r;

	pthread_mutex_lock(&gs.lock);
	r = cap_of(h) != NULL;
	pthread_mutex_unlock(&gs.lock);
	return r;
}

CUresult mock_graph_take(CUstream h, struct mock_cmd *c)
{
	struct capturing *cp;
	struct mnode *n = NULL;
	CUresult r;

	if (!c->size) {
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	pthread_mutex_lock(&gs.lock);
	cp = cap_of(h);
	/* The edge a capture into a graph began after, into its first node. */
	r = !cp ? CUDA_ERROR_STREAM_CAPTURE_INVALIDATED :
	    cp->has_edge &&
	    !edge_ok(&cp->edge, cp->last, mock_cmd_is_kernel(c)) ?
		CUDA_ERROR_INVALID_VALUE :
	    node_add(cp->g, N_CMD, (const CUgraphNode *)&cp->last,
		     cp->last ? 1 : 0, &n);
	if (r == CUDA_SUCCESS) {
		n->cmd = c;
		cp->last = n;
		if (cp->has_edge) {
			edges_log(&cp->edge, 1);
			cp->has_edge = 0;
		}
	}
	pthread_mutex_unlock(&gs.lock);
	return r;
}

CUresult mock_graph_event_record(CUevent e, CUstream h)
{
	struct capturing *cp;
	struct cap_event *ce = NULL;

	pthread_mutex_lock(&gs.lock);
	cp = cap_of(h);
	for (size_t i = 0; cp && i < gs.nr_evs; i++) {
		if (gs.evs[i].e == e) {
			ce = &gs.evs[i];
		}
	}
	if (cp && !ce) {
		gs.evs = grow(gs.evs, &gs.alloc_evs, gs.nr_evs + 1,
			      sizeof(*gs.evs));
		ce = &gs.evs[gs.nr_evs++];
		ce->e = e;
	}
	if (ce) {
		ce->g = cp->g;
		ce->last = cp->last;
	}
	pthread_mutex_unlock(&gs.lock);
	return cp ? CUDA_SUCCESS : CUDA_ERROR_STREAM_CAPTURE_INVALIDATED;
}

int mock_graph_stream_wait(CUstream h, CUevent e)
{
	struct capturing *from = NULL;
	int joined = 0;

	pthread_mutex_lock(&gs.lock);
	for (size_t i = 0; i < gs.nr_evs; i++) {
		if (gs.evs[i].e != e) {
			continue;
		}
		for (size_t k = 0; k < gs.nr_caps; k++) {
			if (gs.caps[k].g == gs.evs[i].g) {
				from = &gs.caps[k];
			}
		}
		if (!from) {
			break;	/* that capture has ended */
		}
		{
			struct capturing *cp = cap_of(h);
			if (!cp) {
				gs.caps = grow(gs.caps, &gs.alloc_caps,
					       gs.nr_caps + 1, sizeof(*gs.caps));
				from = NULL;
				for (size_t k = 0; k < gs.nr_caps; k++) {
					if (gs.caps[k].g == gs.evs[i].g) {
						from = &gs.caps[k];
					}
				}
				cp = &gs.caps[gs.nr_caps++];
				memset(cp, 0, sizeof(*cp));
				cp->s = h;
				cp->g = from->g;
				cp->id = from->id;
			}
			/* The mock keeps one dependency per stream: the
			 * latest of the two. */
			cp->last = gs.evs[i].last ? gs.evs[i].last : cp->last;
			joined = 1;
		}
		break;
	}
	pthread_mutex_unlock(&gs.lock);
	return joined;
}

static CUresult begin(CUstream h, struct mgraph *g, const CUgraphNode *deps,
		      const CUgraphEdgeData *ed, size_t nr)
{
	static const CUgraphEdgeData plain;
	struct capturing *cp;

	if (!h || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD ||
	    !mock_stream_ctx(h)) {
		return h && h != CU_STREAM_LEGACY && h != CU_STREAM_PER_THREAD ?
			       CUDA_ERROR_INVALID_HANDLE :
			       CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	if (nr > 1) {
		return CUDA_ERROR_NOT_SUPPORTED;	/* not needed yet */
	}
	if (nr && ed && (node_of(deps[0]) == NULL ||
			 !edge_ok(ed, node_of(deps[0]), 1))) {
		return CUDA_ERROR_INVALID_VALUE;	/* checked again, with
							   the node it leads to */
	}
	pthread_mutex_lock(&gs.lock);
	if (cap_of(h)) {
		pthread_mutex_unlock(&gs.lock);
		return CUDA_ERROR_ILLEGAL_STATE;
	}
	gs.caps = grow(gs.caps, &gs.alloc_caps, gs.nr_caps + 1, sizeof(*gs.caps));
	cp = &gs.caps[gs.nr_caps++];
	memset(cp, 0, sizeof(*cp));
	cp->s = h;
	cp->g = g;
	cp->last = nr ? (struct mnode *)deps[0] : NULL;
	cp->has_edge = nr && ed && memcmp(ed, &plain, sizeof(plain));
	if (cp->has_edge) {
		cp->edge = *ed;
	}
	cp->origin = 1;
	cp->id = ++gs.next_id;
	pthread_mutex_unlock(&gs.lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamBeginCapture(CUstream hStream, CUstreamCaptureMode mode)
{
	struct mgraph *g;
	CUresult r;

	(void)mode;
	g = graph_new();
	if (!g) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	r = begin(hStream, g, NULL, NULL, 0);
	if (r != CUDA_SUCCESS) {
		graph_free(g);
	}
	return r;
}

CUresult CUDAAPI cuStreamBeginCaptureToGraph(CUstream hStream, CUgraph hGraph,
					     const CUgraphNode *dependencies,
					     const CUgraphEdgeData *dependencyData,
					     size_t numDependencies,
					     CUstreamCaptureMode mode)
{
	(void)mode;
	if (!graph_of(hGraph)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	return begin(hStream, graph_of(hGraph), dependencies, dependencyData,
		     numDependencies);
}

CUresult CUDAAPI cuStreamEndCapture(CUstream hStream, CUgraph *phGraph)
{
	struct capturing *cp;
	struct mgraph *g;

	pthread_mutex_lock(&gs.lock);
	cp = cap_of(hStream);
	if (!cp || !cp->origin) {
		pthread_mutex_unlock(&gs.lock);
		return CUDA_ERROR_ILLEGAL_STATE;
	}
	g = cp->g;
	for (size_t i = gs.nr_caps; i-- > 0;) {
		if (gs.caps[i].g == g) {
			gs.caps[i] = gs.caps[--gs.nr_caps];
		}
	}
	pthread_mutex_unlock(&gs.lock);
	*phGraph = (CUgraph)g;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamIsCapturing(CUstream hStream,
				     CUstreamCaptureStatus *captureStatus)
{
	*captureStatus = mock_graph_capturing(hStream) ?
				 CU_STREAM_CAPTURE_STATUS_ACTIVE :
				 CU_STREAM_CAPTURE_STATUS_NONE;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamGetCaptureInfo(CUstream hStream,
					CUstreamCaptureStatus *captureStatus_out,
					cuuint64_t *id_out, CUgraph *graph_out,
					const CUgraphNode **dependencies_out,
					const CUgraphEdgeData **edgeData_out,
					size_t *numDependencies_out)
{
	struct capturing *cp;

	pthread_mutex_lock(&gs.lock);
	cp = cap_of(hStream);
	*captureStatus_out = cp ? CU_STREAM_CAPTURE_STATUS_ACTIVE :
				  CU_STREAM_CAPTURE_STATUS_NONE;
	if (id_out) {
		*id_out = cp ? cp->id : 0;
	}
	if (graph_out) {
		*graph_out = cp ? (CUgraph)cp->g : NULL;
	}
	if (dependencies_out) {
		/* Valid until the next call on the stream, as CUDA says. */
		*dependencies_out = cp && cp->last ?
					    (const CUgraphNode *)&cp->last : NULL;
	}
	if (edgeData_out) {
		*edgeData_out = cp && cp->has_edge ? &cp->edge : NULL;
	}
	if (numDependencies_out) {
		*numDependencies_out = cp && cp->last ? 1 : 0;
	}
	pthread_mutex_unlock(&gs.lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuThreadExchangeStreamCaptureMode(CUstreamCaptureMode *mode)
{
	(void)mode;
	return CUDA_SUCCESS;
}

/* ---- explicit graphs ---- */

CUresult CUDAAPI cuGraphCreate(CUgraph *phGraph, unsigned int flags)
{
	struct mgraph *g;

	if (flags) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	g = graph_new();
	if (!g) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*phGraph = (CUgraph)g;
	return CUDA_SUCCESS;
}

/* Add a node of @kind (with @cmd, taken on success) to @h. */
static CUresult add(CUgraphNode *out, CUgraph h, const CUgraphNode *deps,
		    size_t nr, enum nkind kind, struct mock_cmd *cmd)
{
	struct mgraph *g = graph_of(h);
	struct mnode *n = NULL;
	CUresult r;

	if (!g || !out) {
		free(cmd);
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&gs.lock);
	r = node_add(g, kind, deps, nr, &n);
	pthread_mutex_unlock(&gs.lock);
	if (r != CUDA_SUCCESS) {
		free(cmd);
		return r;
	}
	n->cmd = cmd;
	*out = (CUgraphNode)n;
	return CUDA_SUCCESS;
}

static CUresult kernel_cmd(const CUDA_KERNEL_NODE_PARAMS *p,
			   struct mock_cmd **out)
{
	unsigned g[3] = { p->gridDimX, p->gridDimY, p->gridDimZ };
	unsigned b[3] = { p->blockDimX, p->blockDimY, p->blockDimZ };
	CUfunction f = p->func ? p->func : (CUfunction)p->kern;

	return mock_kernel_cmd(f, g, b, p->sharedMemBytes, mock_current_ctx(),
			       p->kernelParams, p->extra, out);
}

CUresult CUDAAPI cuGraphAddKernelNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				      const CUgraphNode *dependencies,
				      size_t numDependencies,
				      const CUDA_KERNEL_NODE_PARAMS *nodeParams)
{
	struct mock_cmd *c;
	CUresult r = kernel_cmd(nodeParams, &c);

	return r != CUDA_SUCCESS ? r :
	       add(phGraphNode, hGraph, dependencies, numDependencies, N_CMD, c);
}

/* One end of a copy: its address, and whether it is host memory. */
static int copy_end(CUmemorytype t, const void *host, CUdeviceptr dev,
		    size_t off, size_t n, void **p, int *is_host)
{
	if (t == CU_MEMORYTYPE_HOST) {
		*p = (uint8_t *)(uintptr_t)host + off;
		*is_host = 1;
		return 0;
	}
	if (t == CU_MEMORYTYPE_DEVICE || t == CU_MEMORYTYPE_UNIFIED) {
		*p = (uint8_t *)(uintptr_t)dev + off;
		*is_host = !mock_valid_device((uintptr_t)*p, n);
		return t == CU_MEMORYTYPE_DEVICE && *is_host ? -1 : 0;
	}
	return -1;	/* arrays: not in the mock */
}

CUresult CUDAAPI cuGraphAddMemcpyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				      const CUgraphNode *dependencies,
				      size_t numDependencies,
				      const CUDA_MEMCPY3D *c, CUcontext ctx)
{
	size_t h = c->Height ? c->Height : 1, d = c->Depth ? c->Depth : 1;
	size_t n = c->WidthInBytes * h * d;
	void *src, *dst;
	int sh, dh;
	uint8_t kind;
	struct mock_cmd *cmd;

	(void)ctx;
	/* One contiguous run only: what the mock's callers make. */
	if (h * d > 1 && (c->srcPitch != c->WidthInBytes ||
			  c->dstPitch != c->WidthInBytes)) {
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	if (copy_end(c->srcMemoryType, c->srcHost, c->srcDevice,
		     c->srcXInBytes + (c->srcY + c->srcZ * c->srcHeight) *
					      c->srcPitch, n, &src, &sh) < 0 ||
	    copy_end(c->dstMemoryType, c->dstHost, c->dstDevice,
		     c->dstXInBytes + (c->dstY + c->dstZ * c->dstHeight) *
					      c->dstPitch, n, &dst, &dh) < 0 ||
	    (sh && dh)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	kind = sh ? CUPTI_ACTIVITY_MEMCPY_KIND_HTOD :
	       dh ? CUPTI_ACTIVITY_MEMCPY_KIND_DTOH :
		    CUPTI_ACTIVITY_MEMCPY_KIND_DTOD;
	cmd = mock_copy_cmd(kind, dst, src, n);
	if (!cmd) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return add(phGraphNode, hGraph, dependencies, numDependencies, N_CMD,
		   cmd);
}

CUresult CUDAAPI cuGraphAddMemsetNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				      const CUgraphNode *dependencies,
				      size_t numDependencies,
				      const CUDA_MEMSET_NODE_PARAMS *m,
				      CUcontext ctx)
{
	size_t h = m->height ? m->height : 1;
	struct mock_cmd *cmd;

	(void)ctx;
	if ((m->elementSize != 1 && m->elementSize != 2 &&
	     m->elementSize != 4) ||
	    (h > 1 && m->pitch != m->width * m->elementSize) ||
	    !mock_valid_device(m->dst, m->width * h * m->elementSize)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	cmd = mock_memset_cmd(m->dst, m->value, m->width * h, m->elementSize);
	if (!cmd) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	return add(phGraphNode, hGraph, dependencies, numDependencies, N_CMD,
		   cmd);
}

CUresult CUDAAPI cuGraphAddHostNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				    const CUgraphNode *dependencies,
				    size_t numDependencies,
				    const CUDA_HOST_NODE_PARAMS *p)
{
	CUresult r;

	if (!p || !p->fn) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	r = add(phGraphNode, hGraph, dependencies, numDependencies, N_HOST,
		NULL);
	if (r == CUDA_SUCCESS) {
		((struct mnode *)*phGraphNode)->fn = p->fn;
		((struct mnode *)*phGraphNode)->data = p->userData;
	}
	return r;
}

CUresult CUDAAPI cuGraphAddEmptyNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				     const CUgraphNode *dependencies,
				     size_t numDependencies)
{
	return add(phGraphNode, hGraph, dependencies, numDependencies, N_EMPTY,
		   NULL);
}

CUresult CUDAAPI cuGraphAddChildGraphNode(CUgraphNode *phGraphNode,
					  CUgraph hGraph,
					  const CUgraphNode *dependencies,
					  size_t numDependencies,
					  CUgraph childGraph)
{
	struct mgraph *child = graph_of(childGraph);
	CUresult r;

	if (!child || child == graph_of(hGraph)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	r = add(phGraphNode, hGraph, dependencies, numDependencies, N_CHILD,
		NULL);
	if (r == CUDA_SUCCESS) {
		/* The node holds a copy: later changes of the child do not
		 * reach it. */
		((struct mnode *)*phGraphNode)->child = graph_clone(child);
	}
	return r;
}

static CUresult add_event(CUgraphNode *out, CUgraph h, const CUgraphNode *deps,
			  size_t nr, enum nkind kind, CUevent e)
{
	CUresult r;

	if (!e) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	r = add(out, h, deps, nr, kind, NULL);
	if (r == CUDA_SUCCESS) {
		((struct mnode *)*out)->ev = e;
	}
	return r;
}

CUresult CUDAAPI cuGraphAddEventRecordNode(CUgraphNode *phGraphNode,
					   CUgraph hGraph,
					   const CUgraphNode *dependencies,
					   size_t numDependencies, CUevent event)
{
	return add_event(phGraphNode, hGraph, dependencies, numDependencies,
			 N_RECORD, event);
}

CUresult CUDAAPI cuGraphAddEventWaitNode(CUgraphNode *phGraphNode,
					 CUgraph hGraph,
					 const CUgraphNode *dependencies,
					 size_t numDependencies, CUevent event)
{
	return add_event(phGraphNode, hGraph, dependencies, numDependencies,
			 N_WAIT, event);
}

static int is_kernel(const struct mnode *n)
{
	return n && n->kind == N_CMD && mock_cmd_is_kernel(n->cmd);
}

/*
 * Whether edge @e from @from to a node that is a kernel node (@to_kernel)
 * or not is one CUDA accepts (cuda.h, CUgraphEdgeData): no port into the
 * downstream node, reserved bytes zero; ports other than completion from
 * kernel nodes only, the programmatic port with a programmatic edge; a
 * programmatic edge between kernel nodes, from the programmatic or the
 * launch order port.
 */
static int edge_ok(const CUgraphEdgeData *e, const struct mnode *from,
		   int to_kernel)
{
	static const unsigned char zero[sizeof(e->reserved)];
	int prog = e->type == CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;

	if (e->to_port || memcmp(e->reserved, zero, sizeof(zero)) ||
	    (e->type != CU_GRAPH_DEPENDENCY_TYPE_DEFAULT && !prog) ||
	    e->from_port > CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER) {
		return 0;
	}
	if (e->from_port && !is_kernel(from)) {
		return 0;
	}
	if (e->from_port == CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC && !prog) {
		return 0;
	}
	return !prog || (to_kernel && is_kernel(from) &&
			 e->from_port != CU_GRAPH_KERNEL_NODE_PORT_DEFAULT);
}

/* Edges @ed (may be NULL) of @n dependencies into a node that is a kernel
 * node (@to_kernel) or not: checked; CUDA_SUCCESS or the error. */
static CUresult edges_check(const CUgraphEdgeData *ed, const CUgraphNode *deps,
			    size_t n, int to_kernel)
{
	for (size_t i = 0; ed && i < n; i++) {
		if (!edge_ok(&ed[i], node_of(deps[i]), to_kernel)) {
			return CUDA_ERROR_INVALID_VALUE;
		}
	}
	return CUDA_SUCCESS;
}

/* The edges of other kinds than full completion, logged once made. */
static void edges_log(const CUgraphEdgeData *ed, size_t n)
{
	static const CUgraphEdgeData plain;

	for (size_t i = 0; ed && i < n; i++) {
		uint64_t w;
		if (memcmp(&ed[i], &plain, sizeof(plain))) {
			memcpy(&w, &ed[i], sizeof(w));
			mock_call_log("graph_edge", w, mock_now());
		}
	}
}

static CUresult add_typed(CUgraphNode *phGraphNode, CUgraph hGraph,
			  const CUgraphNode *dependencies,
			  size_t numDependencies, CUgraphNodeParams *np);

/* The generic node call: the typed call of the node's kind (the unions
 * begin as the typed structs do), its edges checked. */
CUresult CUDAAPI cuGraphAddNode(CUgraphNode *phGraphNode, CUgraph hGraph,
				const CUgraphNode *dependencies,
				const CUgraphEdgeData *dependencyData,
				size_t numDependencies, CUgraphNodeParams *np)
{
	CUresult r;

	if (!np) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&gs.lock);
	r = edges_check(dependencyData, dependencies, numDependencies,
			np->type == CU_GRAPH_NODE_TYPE_KERNEL);
	pthread_mutex_unlock(&gs.lock);
	if (r != CUDA_SUCCESS) {
		return r;
	}
	r = add_typed(phGraphNode, hGraph, dependencies, numDependencies, np);
	if (r == CUDA_SUCCESS) {
		edges_log(dependencyData, numDependencies);
	}
	return r;
}

static CUresult add_typed(CUgraphNode *phGraphNode, CUgraph hGraph,
			  const CUgraphNode *dependencies,
			  size_t numDependencies, CUgraphNodeParams *np)
{
	switch (np->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL:
		return cuGraphAddKernelNode(phGraphNode, hGraph, dependencies,
					    numDependencies,
					    (const CUDA_KERNEL_NODE_PARAMS *)&np->kernel);
	case CU_GRAPH_NODE_TYPE_MEMCPY:
		return cuGraphAddMemcpyNode(phGraphNode, hGraph, dependencies,
					    numDependencies,
					    &np->memcpy.copyParams,
					    np->memcpy.copyCtx);
	case CU_GRAPH_NODE_TYPE_MEMSET:
		return cuGraphAddMemsetNode(phGraphNode, hGraph, dependencies,
					    numDependencies,
					    (const CUDA_MEMSET_NODE_PARAMS *)&np->memset,
					    np->memset.ctx);
	case CU_GRAPH_NODE_TYPE_HOST:
		return cuGraphAddHostNode(phGraphNode, hGraph, dependencies,
					  numDependencies,
					  (const CUDA_HOST_NODE_PARAMS *)&np->host);
	case CU_GRAPH_NODE_TYPE_GRAPH:
		return cuGraphAddChildGraphNode(phGraphNode, hGraph,
						dependencies, numDependencies,
						np->graph.graph);
	case CU_GRAPH_NODE_TYPE_EMPTY:
		return cuGraphAddEmptyNode(phGraphNode, hGraph, dependencies,
					   numDependencies);
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
		return cuGraphAddEventRecordNode(phGraphNode, hGraph,
						 dependencies, numDependencies,
						 np->eventRecord.event);
	case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
		return cuGraphAddEventWaitNode(phGraphNode, hGraph,
					       dependencies, numDependencies,
					       np->eventWait.event);
	default:
		return CUDA_ERROR_NOT_SUPPORTED;	/* not in the mock */
	}
}

CUresult CUDAAPI cuGraphAddDependencies(CUgraph hGraph, const CUgraphNode *from,
					const CUgraphNode *to,
					const CUgraphEdgeData *edgeData,
					size_t numDependencies)
{
	struct mgraph *g = graph_of(hGraph);

	if (!g) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&gs.lock);
	for (size_t i = 0; i < numDependencies; i++) {
		struct mnode *f = node_of(from[i]), *t = node_of(to[i]);
		if (!f || !t || f->g != g || t->g != g ||
		    (edgeData && !edge_ok(&edgeData[i], f, is_kernel(t)))) {
			pthread_mutex_unlock(&gs.lock);
			return CUDA_ERROR_INVALID_VALUE;
		}
	}
	for (size_t i = 0; i < numDependencies; i++) {
		struct mnode *f = node_of(from[i]), *t = node_of(to[i]);
		struct mnode **d;
		d = realloc(t->deps, (t->nr_deps + 1) * sizeof(*d));
		if (!d) {
			abort();
		}
		d[t->nr_deps++] = f;
		t->deps = d;
	}
	pthread_mutex_unlock(&gs.lock);
	edges_log(edgeData, numDependencies);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphKernelNodeSetParams(CUgraphNode hNode,
					    const CUDA_KERNEL_NODE_PARAMS *p)
{
	struct mnode *n = node_of(hNode);
	struct mock_cmd *c;
	CUresult r;

	if (!n || n->kind != N_CMD || !n->cmd ||
	    n->cmd->rebase == NULL) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	r = kernel_cmd(p, &c);
	if (r == CUDA_SUCCESS) {
		free(n->cmd);
		n->cmd = c;
	}
	return r;
}

CUresult CUDAAPI cuGraphClone(CUgraph *phGraphClone, CUgraph originalGraph)
{
	struct mgraph *g = graph_of(originalGraph);

	if (!g) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&gs.lock);
	*phGraphClone = (CUgraph)graph_clone(g);
	pthread_mutex_unlock(&gs.lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGraphDestroy(CUgraph hGraph)
{
	struct mgraph *g = graph_of(hGraph);

	if (!g) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	graph_free(g);
	return CUDA_SUCCESS;
}

/* ---- executable graphs ---- */

/* Append @g's nodes to @x in a topological order stable in node order;
 * child graphs in place. Each step came @via that node of the
 * instantiated graph (NULL: @g is that graph). -1 on a cycle. */
static int flatten(struct mexec *x, const struct mgraph *g,
		   const struct mnode *via)
{
	unsigned char *done = calloc(g->nr + 1, 1);
	unsigned left = g->nr;
	size_t alloc = x->alloc;

	while (left) {
		unsigned before = left;
		for (unsigned i = 0; i < g->nr; i++) {
			const struct mnode *n = g->nodes[i];
			int ready = !done[i];
			for (unsigned d = 0; ready && d < n->nr_deps; d++) {
				for (unsigned k = 0; k < g->nr; k++) {
					if (g->nodes[k] == n->deps[d] &&
					    !done[k]) {
						ready = 0;
					}
				}
			}
			if (!ready) {
				continue;
			}
			done[i] = 1;
			left--;
			if (n->kind == N_CHILD) {
				if (flatten(x, n->child, via ? via : n) < 0) {
					free(done);
					return -1;
				}
				alloc = x->alloc;
				continue;
			}
			x->v = grow(x->v, &alloc, x->nr + 1, sizeof(*x->v));
			x->alloc = (unsigned)alloc;
			x->v[x->nr].origin = n;
			x->v[x->nr].via = via ? via : n;
			x->v[x->nr].kind = n->kind;
			x->v[x->nr].cmd = n->cmd ? clone_cmd(n->cmd) : NULL;
			x->v[x->nr].ev = n->ev;
			x->v[x->nr].fn = n->fn;
			x->v[x->nr].data = n->data;
			x->nr++;
			break;	/* the earliest ready node first, again */
		}
		if (left == before) {
			free(done);
			return -1;
		}
	}
	free(done);
	return 0;
}

static void exec_clear(struct mexec *x)
{
	for (unsigned i = 0; i < x->nr; i++) {
		free(x->v[i].cmd);
	}
	x->nr = 0;
}

CUresult CUDAAPI cuGraphInstantiateWithFlags(CUgraphExec *phGraphExec,
					     CUgraph hGraph,
					     unsigned long long flags)
{
	struct mgraph *g = graph_of(hGraph);
	struct mexec *x;
	int r;

	(void)flags;
	if (!g) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	x = calloc(1, sizeof(*x));
	if (!x) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	x->magic = EXEC_MAGIC;
	pthread_mutex_lock(&gs.lock);
	r = flatten(x, g, NULL);
	pthread_mutex_unlock(&gs.lock);
	if (r < 0) {
		exec_clear(x);
		free(x->v);
		free(x);
		return CUDA_ERROR_INVALID_VALUE;	/* a cycle */
	}
	*phGraphExec = (CUgraphExec)x;
	return CUDA_SUCCESS;
}

/* The same topology: the same kinds in the same order (@n steps). */
static int same_steps(const struct xstep *a, const struct xstep *b,
		      unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		if (a[i].kind != b[i].kind ||
		    (a[i].cmd && b[i].cmd && a[i].cmd->exec != b[i].cmd->exec)) {
			return 0;
		}
	}
	return 1;
}

static int same_shape(const struct mexec *a, const struct mexec *b)
{
	return a->nr == b->nr && same_steps(a->v, b->v, a->nr);
}

CUresult CUDAAPI cuGraphExecUpdate(CUgraphExec hGraphExec, CUgraph hGraph,
				   CUgraphExecUpdateResultInfo *resultInfo)
{
	struct mexec *x = exec_of(hGraphExec), y = { EXEC_MAGIC, NULL, 0, 0 };
	struct mgraph *g = graph_of(hGraph);
	int ok;

	if (!x || !g) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&gs.lock);
	ok = flatten(&y, g, NULL) == 0 && same_shape(x, &y);
	pthread_mutex_unlock(&gs.lock);
	if (resultInfo) {
		memset(resultInfo, 0, sizeof(*resultInfo));
		resultInfo->result = ok ? CU_GRAPH_EXEC_UPDATE_SUCCESS :
					  CU_GRAPH_EXEC_UPDATE_ERROR_TOPOLOGY_CHANGED;
	}
	if (!ok) {
		exec_clear(&y);
		free(y.v);
		return CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE;
	}
	exec_clear(x);
	free(x->v);
	x->v = y.v;
	x->nr = y.nr;
	x->alloc = y.alloc;
	return CUDA_SUCCESS;
}

/*
 * The steps of child graph node @hNode (of the graph @hGraphExec was
 * instantiated from) become those of @childGraph, which must have the
 * same shape; CUDA_ERROR_INVALID_VALUE otherwise, as CUDA documents, and
 * for a node that is not a child graph node of that graph.
 */
CUresult CUDAAPI cuGraphExecChildGraphNodeSetParams(CUgraphExec hGraphExec,
						    CUgraphNode hNode,
						    CUgraph childGraph)
{
	struct mexec *x = exec_of(hGraphExec), y = { EXEC_MAGIC, NULL, 0, 0 };
	struct mnode *n = node_of(hNode);
	struct mgraph *g = graph_of(childGraph);
	unsigned first = 0, nr = 0;
	int ok;

	if (!x || !n || !g || n->kind != N_CHILD) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&gs.lock);
	for (unsigned i = 0; i < x->nr; i++) {
		if (x->v[i].via == n) {
			first = nr ? first : i;
			nr++;
		}
	}
	/* An empty child leaves no step: then only an empty one fits. */
	ok = flatten(&y, g, n) == 0 && y.nr == nr &&
	     same_steps(&x->v[first], y.v, nr);
	if (ok) {
		for (unsigned i = 0; i < nr; i++) {
			free(x->v[first + i].cmd);
			x->v[first + i] = y.v[i];
		}
		mock_call_log("child_graph_set", nr, mock_now());
	} else {
		exec_clear(&y);
	}
	free(y.v);
	pthread_mutex_unlock(&gs.lock);
	return ok ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuGraphExecKernelNodeSetParams(CUgraphExec hGraphExec,
						CUgraphNode hNode,
						const CUDA_KERNEL_NODE_PARAMS *p)
{
	struct mexec *x = exec_of(hGraphExec);
	struct mock_cmd *c;
	CUresult r;

	if (!x || !node_of(hNode)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	for (unsigned i = 0; i < x->nr; i++) {
		if (x->v[i].origin != (struct mnode *)hNode) {
			continue;
		}
		if (!x->v[i].cmd || !x->v[i].cmd->rebase ||
		    x->v[i].kind != N_CMD) {
			return CUDA_ERROR_INVALID_VALUE;
		}
		r = kernel_cmd(p, &c);
		if (r == CUDA_SUCCESS) {
			free(x->v[i].cmd);
			x->v[i].cmd = c;
		}
		return r;
	}
	return CUDA_ERROR_INVALID_VALUE;
}

struct host_cmd {
	struct mock_cmd c;
	CUhostFn fn;
	void *data;
};

static void host_exec(struct mock_cmd *c)
{
	struct host_cmd *h = (struct host_cmd *)c;

	h->fn(h->data);
}

static int launch_blocking(void)
{
	const char *v = getenv("CUDA_LAUNCH_BLOCKING");

	return v && !strcmp(v, "1");
}

CUresult CUDAAPI cuGraphLaunch(CUgraphExec hGraphExec, CUstream hStream)
{
	MOCK_API(cuGraphLaunch);
	struct mexec *x = exec_of(hGraphExec);
	uint64_t t0 = mock_now();
	uint32_t corr;
	CUresult r = CUDA_SUCCESS;

	if (!x) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (mock_graph_capturing(hStream)) {
		return CUDA_ERROR_NOT_SUPPORTED;	/* not in the mock */
	}
	corr = mock_api_record(CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, t0);
	for (unsigned i = 0; r == CUDA_SUCCESS && i < x->nr; i++) {
		const struct xstep *st = &x->v[i];
		struct mock_cmd *c = NULL;

		switch (st->kind) {
		case N_CMD:
			c = clone_cmd(st->cmd);
			break;
		case N_HOST: {
			struct host_cmd *h = calloc(1, sizeof(*h));
			if (h) {
				h->c.exec = host_exec;
				h->fn = st->fn;
				h->data = st->data;
			}
			c = h ? &h->c : NULL;
			break;
		}
		case N_RECORD:
			r = cuEventRecord(st->ev, hStream);
			continue;
		case N_WAIT:
			r = cuStreamWaitEvent(hStream, st->ev, 0);
			continue;
		case N_EMPTY:
		case N_CHILD:
			continue;
		}
		if (!c) {
			return CUDA_ERROR_OUT_OF_MEMORY;
		}
		c->call_ns = t0;
		c->corr = corr;
		r = mock_enqueue(hStream, c);
		if (r != CUDA_SUCCESS) {
			free(c);
		}
	}
	/* As CUDA does with CUDA_LAUNCH_BLOCKING=1: the launch returns when
	 * its work is done (its host nodes have run before the launching
	 * call returns, and before its CUPTI exit callback). */
	if (r == CUDA_SUCCESS && launch_blocking()) {
		r = cuStreamSynchronize(hStream);
	}
	return r;
}

CUresult CUDAAPI cuGraphExecDestroy(CUgraphExec hGraphExec)
{
	struct mexec *x = exec_of(hGraphExec);

	if (!x) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	exec_clear(x);
	x->magic = 0;
	free(x->v);
	free(x);
	return CUDA_SUCCESS;
}
