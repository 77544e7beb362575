/* SPDX-License-Identifier: MIT */
/*
 * CUDA graph operations of the serial schedulers (GM_GRAPH_OPS in
 * gpumix_replay.h, doc/graphs.md): the replay builds each graph the way
 * the program did, capturing its own operations where the program
 * captured, so that a graph launch stays one launch. Captures use the
 * relaxed mode whatever the program asked for: the mode only decides
 * which calls of other threads may run during a capture, and here the
 * other threads are other programs (and the runtime), which must.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cu_check.h"
#include "error.h"
#include "graph_ops.h"
#include "launch_plan.h"
#include "op_traits.h"
#include "replay_int.h"

#define RELAXED CU_STREAM_CAPTURE_MODE_RELAXED

static void CUDA_CB empty_host_fn(void *data)
{
	(void)data;	/* the program's host work is not the GPU's */
}

/* Put @g in slot @id, destroying what an earlier replay left there. */
static void set_graph(struct gm_prog *p, uint32_t id, CUgraph g)
{
	if (p->graphs[id] && p->graphs[id] != g) {
		cuGraphDestroy(p->graphs[id]);
	}
	p->graphs[id] = g;
}

static void set_exec(struct gm_prog *p, uint32_t id, CUgraphExec e)
{
	if (p->execs[id]) {
		cuGraphExecDestroy(p->execs[id]);
	}
	p->execs[id] = e;
}

static int need_graph(const struct gm_prog *p, uint32_t id)
{
	return p->graphs[id] ? 0 : gm_error("graph %" PRIu32 " does not exist",
					    id);
}

static int need_exec(const struct gm_prog *p, uint32_t id)
{
	return p->execs[id] ? 0 :
	       gm_error("executable graph %" PRIu32 " does not exist", id);
}

static int need_node(const struct gm_prog *p, uint32_t id)
{
	return p->nodes[id] ? 0 :
	       gm_error("graph node %" PRIu32 " does not exist", id);
}

static int end_capture(struct gm_prog *p, unsigned s, CUgraph *g)
{
	if (CU_CHECK(cuStreamEndCapture(p->streams[s], g))) {
		return -1;
	}
	p->capturing[s] = 0;
	p->nr_capturing--;
	return 0;
}

/* NODE_END: the node the one operation since NODE_BEGIN made. */
static int op_node_end(struct gm_prog *p, const struct gm_op *op,
		       uint64_t index)
{
	CUstreamCaptureStatus st;
	const CUgraphNode *deps = NULL;
	size_t n = 0;
	CUgraphNode node;
	CUgraph g;

	if (CU_CHECK(cuStreamGetCaptureInfo(p->streams[op->stream], &st, NULL,
					    NULL, &deps, NULL, &n))) {
		return -1;
	}
	if (st != CU_STREAM_CAPTURE_STATUS_ACTIVE || n != 1 || !deps) {
		return gm_error("the graph node's operation made %zu nodes", n);
	}
	node = deps[0];
	if (end_capture(p, op->stream, &g) < 0) {
		return -1;
	}
	p->nodes[op->b] = node;
	return 0;
}

static int add_node(struct gm_prog *p, const struct gm_op *op)
{
	CUgraph g = p->graphs[op->a];
	CUgraphNode n = NULL;
	CUDA_HOST_NODE_PARAMS hp;

	switch (op->x) {
	case GM_GNODE_EMPTY:
		return CU_CHECK(cuGraphAddEmptyNode(&n, g, NULL, 0)) ? -1 :
		       (p->nodes[op->b] = n, 0);
	case GM_GNODE_HOST:
		memset(&hp, 0, sizeof(hp));
		hp.fn = empty_host_fn;
		return CU_CHECK(cuGraphAddHostNode(&n, g, NULL, 0, &hp)) ? -1 :
		       (p->nodes[op->b] = n, 0);
	case GM_GNODE_CHILD:
		if (op->c >= p->d->nr_graphs || need_graph(p, op->c) < 0) {
			return gm_error("no child graph %" PRIu32, op->c);
		}
		return CU_CHECK(cuGraphAddChildGraphNode(&n, g, NULL, 0,
							 p->graphs[op->c])) ?
		       -1 : (p->nodes[op->b] = n, 0);
	case GM_GNODE_EVENT_RECORD:
	case GM_GNODE_EVENT_WAIT:
		if (op->c >= p->d->nr_events) {
			return gm_error("no event %" PRIu32, op->c);
		}
		if (op->x == GM_GNODE_EVENT_RECORD ?
			    CU_CHECK(cuGraphAddEventRecordNode(&n, g, NULL, 0,
							       p->events[op->c])) :
			    CU_CHECK(cuGraphAddEventWaitNode(&n, g, NULL, 0,
							     p->events[op->c]))) {
			return -1;
		}
		p->nodes[op->b] = n;
		return 0;
	}
	return gm_error("unknown graph node kind %" PRIu64, op->x);
}

/* KNODE_SET: the node runs launch a's kernel, shape and arguments. */
static int op_knode_set(struct gm_prog *p, const struct gm_op *op,
			uint64_t index)
{
	const struct gm_launch_desc *l = &p->d->launches[op->a];
	CUDA_KERNEL_NODE_PARAMS kp;
	size_t size;
	int64_t n = gm_params_fill(p, op->a, p->param_buf);
	void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, p->param_buf,
			  CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
			  CU_LAUNCH_PARAM_END };

	if (n < 0 || need_node(p, op->b) < 0 ||
	    (op->c != GM_NONE && need_exec(p, op->c) < 0)) {
		return -1;
	}
	if (p->el_class && p->el_class[l->kernel] != GM_ELASTIC_NONE) {
		/* Its elastic arguments come from a launch planner, which a
		 * node's parameters do not go through. */
		return gm_error("'%s': a kernel node's parameters are not set "
				"for an elastic (transformed) kernel",
				p->d->kernels[l->kernel].name);
	}
	size = (size_t)n;
	memset(&kp, 0, sizeof(kp));
	kp.func = p->funcs[l->kernel];
	kp.gridDimX = l->grid[0];
	kp.gridDimY = l->grid[1];
	kp.gridDimZ = l->grid[2];
	kp.blockDimX = l->block[0];
	kp.blockDimY = l->block[1];
	kp.blockDimZ = l->block[2];
	kp.sharedMemBytes = gm_launch_smem(p, l);
	/* The driver copies the arguments now: the buffer can be reused. */
	if (p->d->kernels[l->kernel].nr_params || !size) {
		kp.kernelParams = p->kargs[l->kernel];
	} else {
		kp.extra = extra;
	}
	if (op->c == GM_NONE) {
		return CU_CHECK(cuGraphKernelNodeSetParams(p->nodes[op->b], &kp));
	}
	return CU_CHECK(cuGraphExecKernelNodeSetParams(p->execs[op->c],
						       p->nodes[op->b], &kp));
}

/* Hash a launch's result on CUDA's thread, the launch done. */
static void CUDA_CB hash_at_end(void *arg)
{
	struct gm_launch_hash *h = arg;

	h->hash = gm_hash_bytes(h->room, h->len);
	atomic_store_explicit(&h->done, 1, memory_order_release);
}

#define LH_BLOCK 64

/* A hash slot for this replay (0 or -1 without memory, recorded). */
static struct gm_launch_hash *lh_slot(struct gm_prog *p)
{
	size_t b = p->nr_lh_used / LH_BLOCK;

	if (b == p->nr_lh_blocks) {
		struct gm_launch_hash **v = realloc(p->lh_blocks,
						    (b + 1) * sizeof(*v));
		if (!v) {
			return NULL;
		}
		p->lh_blocks = v;
		if (!(v[b] = calloc(LH_BLOCK, sizeof(**v)))) {
			return NULL;
		}
		p->nr_lh_blocks++;
	}
	return &p->lh_blocks[b][p->nr_lh_used++ % LH_BLOCK];
}

/*
 * GRAPH_CHECK flagged GM_F_LAUNCH_END: the captured program read the
 * result inside the launch (a host node after the copy), before a later
 * launch could rewrite it; the replay hashes its room when the launch
 * has run (a host function after it on the stream) and compares at the
 * next synchronization, as for any asynchronous result.
 */
static int check_at_launch_end(struct gm_prog *p, const struct gm_op *op,
			       uint64_t index, CUstream st)
{
	struct gm_launch_hash *h = lh_slot(p);

	if (!h) {
		return gm_error("out of memory for a graph result's hash");
	}
	h->room = ((op->flags & GM_F_PINNED) ? p->arena_pinned : p->arena) +
		  op->y;
	h->len = op->z;
	atomic_store_explicit(&h->done, 0, memory_order_relaxed);
	if (CU_CHECK(cuLaunchHostFunc(st, hash_at_end, h))) {
		return -1;
	}
	gm_pending_add_hashed(p, op, index, h);
	return 0;
}

/* ---- one handler per graph operation (graph_ops below) ---- */

static int op_capture_begin(struct gm_prog *p, const struct gm_op *op,
			    uint64_t index)
{
	if (CU_CHECK(cuStreamBeginCapture(p->streams[op->stream], RELAXED))) {
		return -1;
	}
	p->capturing[op->stream] = 1;
	p->nr_capturing++;
	return 0;
}

/* CAPTURE_TO, CAPTURE_AFTER, CAPTURE_EDGE: a capture into graph a. */
static int op_capture_to(struct gm_prog *p, const struct gm_op *op,
			 uint64_t index)
{
	size_t after = op->code != GM_OP_CAPTURE_TO;
	CUgraphEdgeData ed;

	memcpy(&ed, &op->x, sizeof(ed));
	if (need_graph(p, op->a) < 0 ||
	    (after && need_node(p, op->b) < 0) ||
	    CU_CHECK(cuStreamBeginCaptureToGraph(
		    p->streams[op->stream], p->graphs[op->a],
		    after ? &p->nodes[op->b] : NULL,
		    op->code == GM_OP_CAPTURE_EDGE ? &ed : NULL, after,
		    RELAXED))) {
		return -1;
	}
	p->capturing[op->stream] = 1;
	p->nr_capturing++;
	return 0;
}

static int op_capture_end(struct gm_prog *p, const struct gm_op *op,
			  uint64_t index)
{
	CUgraph g = NULL;

	if (end_capture(p, op->stream, &g) < 0) {
		return -1;
	}
	set_graph(p, op->a, g);
	return 0;
}

static int op_graph_create(struct gm_prog *p, const struct gm_op *op,
			   uint64_t index)
{
	CUgraph g = NULL;

	if (CU_CHECK(cuGraphCreate(&g, 0))) {
		return -1;
	}
	set_graph(p, op->a, g);
	return 0;
}

static int op_node_begin(struct gm_prog *p, const struct gm_op *op,
			 uint64_t index)
{
	if (need_graph(p, op->a) < 0 ||
	    CU_CHECK(cuStreamBeginCaptureToGraph(p->streams[op->stream],
						 p->graphs[op->a], NULL, NULL,
						 0, RELAXED))) {
		return -1;
	}
	p->capturing[op->stream] = 1;
	p->nr_capturing++;
	return 0;
}

static int op_graph_node(struct gm_prog *p, const struct gm_op *op,
			 uint64_t index)
{
	return need_graph(p, op->a) < 0 ? -1 : add_node(p, op);
}

/* GRAPH_DEP, GRAPH_EDGE: node b before node c in graph a. */
static int op_graph_dep(struct gm_prog *p, const struct gm_op *op,
			uint64_t index)
{
	CUgraphEdgeData ed;

	_Static_assert(sizeof(ed) == sizeof(op->x), "one word an edge");
	if (need_graph(p, op->a) < 0 || need_node(p, op->b) < 0 ||
	    need_node(p, op->c) < 0) {
		return -1;
	}
	memcpy(&ed, &op->x, sizeof(ed));
	return CU_CHECK(cuGraphAddDependencies(
		p->graphs[op->a], &p->nodes[op->b], &p->nodes[op->c],
		op->code == GM_OP_GRAPH_EDGE ? &ed : NULL, 1));
}

static int op_graph_inst(struct gm_prog *p, const struct gm_op *op,
			 uint64_t index)
{
	CUgraphExec e = NULL;

	if (need_graph(p, op->b) < 0 ||
	    CU_CHECK(cuGraphInstantiateWithFlags(&e, p->graphs[op->b], 0))) {
		return -1;
	}
	set_exec(p, op->a, e);
	return 0;
}

static int op_graph_launch(struct gm_prog *p, const struct gm_op *op,
			   uint64_t index)
{
	/* The caller keeps the stream's ordering around it. */
	if (need_exec(p, op->a) < 0) {
		return -1;
	}
	atomic_store_explicit(&p->last_launch, index + 1, memory_order_relaxed);
	return CU_CHECK(cuGraphLaunch(p->execs[op->a], p->streams[op->stream]));
}

static int op_graph_check(struct gm_prog *p, const struct gm_op *op,
			  uint64_t index)
{
	if ((op->flags & GM_F_LAUNCH_END) && op->b != GM_NONE &&
	    p->d->deterministic) {
		return check_at_launch_end(p, op, index,
					   p->streams[op->stream]);
	}
	gm_pending_add(p, op, index);
	return 0;
}

static int op_graph_update(struct gm_prog *p, const struct gm_op *op,
			   uint64_t index)
{
	CUgraphExecUpdateResultInfo info;

	if (need_exec(p, op->a) < 0 || need_graph(p, op->b) < 0) {
		return -1;
	}
	memset(&info, 0, sizeof(info));
	return CU_CHECK(cuGraphExecUpdate(p->execs[op->a], p->graphs[op->b],
					  &info));
}

static int op_child_set(struct gm_prog *p, const struct gm_op *op,
			uint64_t index)
{
	if (need_exec(p, op->a) < 0 || need_node(p, op->b) < 0 ||
	    op->c >= p->d->nr_graphs || need_graph(p, op->c) < 0) {
		return -1;
	}
	return CU_CHECK(cuGraphExecChildGraphNodeSetParams(
		p->execs[op->a], p->nodes[op->b], p->graphs[op->c]));
}

static int op_graph_clone(struct gm_prog *p, const struct gm_op *op,
			  uint64_t index)
{
	CUgraph g = NULL;

	if (need_graph(p, op->b) < 0 ||
	    CU_CHECK(cuGraphClone(&g, p->graphs[op->b]))) {
		return -1;
	}
	set_graph(p, op->a, g);
	return 0;
}

static int op_graph_destroy(struct gm_prog *p, const struct gm_op *op,
			    uint64_t index)
{
	if (need_graph(p, op->a) < 0 ||
	    CU_CHECK(cuGraphDestroy(p->graphs[op->a]))) {
		return -1;
	}
	p->graphs[op->a] = NULL;
	return 0;
}

static int op_exec_destroy(struct gm_prog *p, const struct gm_op *op,
			   uint64_t index)
{
	if (need_exec(p, op->a) < 0 ||
	    CU_CHECK(cuGraphExecDestroy(p->execs[op->a]))) {
		return -1;
	}
	p->execs[op->a] = NULL;
	return 0;
}

/* The handler of each code of GM_GRAPH_OPS (tests/unit/test_op_tables.c
 * holds the table to the GM_OPT_GRAPH traits of GM_OPS). */
static gm_exec_fn *const graph_ops[GM_OP_COUNT] = {
	[GM_OP_CAPTURE_BEGIN] = op_capture_begin,
	[GM_OP_CAPTURE_TO] = op_capture_to,
	[GM_OP_CAPTURE_AFTER] = op_capture_to,
	[GM_OP_CAPTURE_EDGE] = op_capture_to,
	[GM_OP_CAPTURE_END] = op_capture_end,
	[GM_OP_GRAPH_CREATE] = op_graph_create,
	[GM_OP_NODE_BEGIN] = op_node_begin,
	[GM_OP_NODE_END] = op_node_end,
	[GM_OP_GRAPH_NODE] = op_graph_node,
	[GM_OP_GRAPH_DEP] = op_graph_dep,
	[GM_OP_GRAPH_EDGE] = op_graph_dep,
	[GM_OP_GRAPH_INST] = op_graph_inst,
	[GM_OP_GRAPH_LAUNCH] = op_graph_launch,
	[GM_OP_GRAPH_CHECK] = op_graph_check,
	[GM_OP_GRAPH_UPDATE] = op_graph_update,
	[GM_OP_KNODE_SET] = op_knode_set,
	[GM_OP_CHILD_SET] = op_child_set,
	[GM_OP_GRAPH_CLONE] = op_graph_clone,
	[GM_OP_GRAPH_DESTROY] = op_graph_destroy,
	[GM_OP_EXEC_DESTROY] = op_exec_destroy,
};

int gm_graph_handles(unsigned code)
{
	return code < GM_OP_COUNT && graph_ops[code];
}

int gm_graph_op(struct gm_prog *p, const struct gm_op *op, uint64_t index)
{
	if (gm_graph_handles(op->code)) {
		return graph_ops[op->code](p, op, index);
	}
	return gm_error("operation code %u is not a graph operation", op->code);
}

int gm_graph_is_op(unsigned code)
{
	return !!(gm_op_traits(code) & GM_OPT_GRAPH);
}

void gm_graphs_release(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;

	for (uint32_t i = 0; p->execs && i < d->nr_execs; i++) {
		if (p->execs[i]) {
			cuGraphExecDestroy(p->execs[i]);
		}
	}
	for (uint32_t i = 0; p->graphs && i < d->nr_graphs; i++) {
		if (p->graphs[i]) {
			cuGraphDestroy(p->graphs[i]);
		}
	}
	for (size_t b = 0; b < p->nr_lh_blocks; b++) {
		free(p->lh_blocks[b]);
	}
	free(p->lh_blocks);
	p->lh_blocks = NULL;
	p->nr_lh_blocks = p->nr_lh_used = 0;
	free(p->execs);
	free(p->graphs);
	free(p->nodes);
	free(p->capturing);
	p->execs = NULL;
	p->graphs = NULL;
	p->nodes = NULL;
	p->capturing = NULL;
}
