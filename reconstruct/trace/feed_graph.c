/* SPDX-License-Identifier: MIT */
/*
 * The bundle feed's CUDA graphs and stream captures.
 */
#include "bundle_feed_int.h"

#include <cuda.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cu_result.h"
#include "error.h"
#include "fs.h"
#include "reconstruct/model/handle_map.h"
#include "hash.h"
#include "strmap.h"
#include "reconstruct/model/model.h"
#include "replay/gpumix_replay.h"
#include "strbuf.h"
#include "trace_reader.h"

/* ---- CUDA graphs ---- */

#define GRAPH_MAX_DEPS 8	/* dep0..dep7 (cuda_api.def) */

/*
 * The dependencies of a node-adding call (phGraphNode, hGraph,
 * dependencies, numDependencies, ... dep0..dep7). Returns how many, or -1
 * when more were given than the trace holds (the call is feed_unsupported).
 */
static int node_deps(const struct call *c, uint64_t *deps)
{
	int d = gm_api_arg_index(c->x->api, "dep0");
	uint64_t n = c->x->args[3];

	if (n > GRAPH_MAX_DEPS || d < 0) {
		feed_unsupported(c->f, c->ev, c->api);
		return -1;
	}
	memcpy(deps, &c->x->args[d], n * sizeof(*deps));
	return (int)n;
}

/* A kernel node's feed_launch: the words from "func" on, the bytes inline. */
static int knode_launch(const struct call *c, struct model_launch *l)
{
	int k = gm_api_arg_index(c->x->api, "func");
	const uint64_t *w = &c->x->args[k];
	uint32_t li;

	memset(l, 0, sizeof(*l));
	if (c->in->flags & GM_RF_NO_LAYOUT) {
		return gm_error(EVF "the argument layout of the kernel was not "
				"known during capture", c->ev, c->api);
	}
	l->kernel = w[0];
	for (int i = 0; i < 3; i++) {
		l->grid[i] = (uint32_t)w[1 + i];
		l->block[i] = (uint32_t)w[4 + i];
	}
	l->smem = (uint32_t)w[7];
	l->params = c->in->data.len ? c->in->data.buf : NULL;
	l->params_size = (uint32_t)c->in->data.len;
	if (handle_map_get(&c->f->layout_map, l->kernel, &li)) {
		l->nr_params = c->f->layouts[li].nr;
		l->param_offsets = c->f->layouts[li].offsets;
		l->param_sizes = c->f->layouts[li].sizes;
	}
	return 0;
}

/* CUmemorytype */
#define MT_HOST 1
#define MT_DEVICE 2
#define MT_UNIFIED 4

/* A memcpy node's copy: one contiguous run of bytes, host or device at
 * each end, else 0 (feed_unsupported). */
static int node_copy(const struct call *c, struct model_copy *cp)
{
	const struct gm_args_cuGraphAddMemcpyNode *a =
		ARGS(cuGraphAddMemcpyNode);
	uint64_t w = a->WidthInBytes, h = a->Height ? a->Height : 1,
		 d = a->Depth ? a->Depth : 1;
	int src_host, dst_host;
	uint64_t src, dst;

	if (h * d > 1 && !(a->srcPitch == w && a->dstPitch == w &&
			   (d == 1 || (a->srcHeight == h && a->dstHeight == h)))) {
		return 0;
	}
	if ((a->srcMemoryType != MT_HOST && a->srcMemoryType != MT_DEVICE &&
	     a->srcMemoryType != MT_UNIFIED) ||
	    (a->dstMemoryType != MT_HOST && a->dstMemoryType != MT_DEVICE &&
	     a->dstMemoryType != MT_UNIFIED)) {
		return 0;
	}
	/* Unified addresses: the capture stored a host source's bytes; a
	 * destination is on the device when an allocation holds it. */
	src_host = a->srcMemoryType == MT_HOST ||
		   (a->srcMemoryType == MT_UNIFIED &&
		    (c->in->flags & GM_RF_BLOB || c->in->data.len));
	src = (a->srcMemoryType == MT_HOST ? a->srcHost : a->srcDevice) +
	      a->srcXInBytes + (a->srcY + a->srcZ * a->srcHeight) * a->srcPitch;
	dst = (a->dstMemoryType == MT_HOST ? a->dstHost : a->dstDevice) +
	      a->dstXInBytes + (a->dstY + a->dstZ * a->dstHeight) * a->dstPitch;
	dst_host = a->dstMemoryType == MT_HOST ||
		   (a->dstMemoryType == MT_UNIFIED &&
		    !model_device_address(c->f->p, dst));
	if (src_host && dst_host) {
		return 0;
	}
	memset(cp, 0, sizeof(*cp));
	cp->kind = src_host ? MODEL_H2D : dst_host ? MODEL_D2H : MODEL_D2D;
	cp->src = src;
	cp->dst = dst;
	cp->size = w * h * d;
	return 1;
}

int feed_do_graph_node(const struct call *c)
{
	struct bundle_feed *f = c->f;
	const uint64_t *w = c->x->args;
	uint64_t deps[GRAPH_MAX_DEPS], stream;
	enum gm_special sp = gm_api_table[c->x->api].special;
	int n = node_deps(c, deps);
	struct model_launch l;
	struct model_copy cp;

	if (n < 0) {
		return 0;
	}
	switch (sp) {
	case GM_SP_GRAPH_KERNEL:
		if (knode_launch(c, &l) < 0 ||
		    model_graph_node_begin(f->p, c->ev, c->api, w[1],
					   &stream) < 0) {
			return -1;
		}
		l.stream = stream;
		if (model_add_launch(f->p, c->ev, c->api, &l) < 0) {
			return -1;
		}
		break;
	case GM_SP_GRAPH_MEMCPY:
		if (!node_copy(c, &cp)) {
			feed_unsupported(f, c->ev, c->api);
			return 0;
		}
		if (model_graph_node_begin(f->p, c->ev, c->api, w[1],
					   &stream) < 0) {
			return -1;
		}
		cp.stream = stream;
		if (cp.kind == MODEL_H2D) {
			if (feed_copy_h2d(f, c->in, c->api, &cp) < 0) {
				return -1;
			}
		} else if (model_add_copy(f->p, c->ev, c->api, &cp) < 0) {
			return -1;
		}
		break;
	case GM_SP_GRAPH_MEMSET: {
		const struct gm_args_cuGraphAddMemsetNode *a =
			ARGS(cuGraphAddMemsetNode);
		uint64_t h = a->height ? a->height : 1;
		if ((a->elementSize != 1 && a->elementSize != 2 &&
		     a->elementSize != 4) ||
		    (h > 1 && a->pitch != a->width * a->elementSize)) {
			feed_unsupported(f, c->ev, c->api);
			return 0;
		}
		if (model_graph_node_begin(f->p, c->ev, c->api, w[1],
					   &stream) < 0 ||
		    model_add_memset(f->p, c->ev, c->api, a->dst,
				     (uint32_t)a->value,
				     (unsigned)a->elementSize, a->width * h,
				     stream, 0) < 0) {
			return -1;
		}
		break;
	}
	case GM_SP_GRAPH_CHILD:
		return model_graph_node(f->p, c->ev, c->api, w[1], w[0],
					GM_GNODE_CHILD,
					ARGS(cuGraphAddChildGraphNode)->childGraph,
					deps, (unsigned)n);
	default: {
		unsigned kind = GM_GNODE_EMPTY;
		uint64_t arg = 0;
		if (c->x->api == GM_API_cuGraphAddHostNode) {
			kind = GM_GNODE_HOST;
		} else if (c->x->api == GM_API_cuGraphAddEventRecordNode) {
			kind = GM_GNODE_EVENT_RECORD;
			arg = ARGS(cuGraphAddEventRecordNode)->event;
		} else if (c->x->api == GM_API_cuGraphAddEventWaitNode) {
			kind = GM_GNODE_EVENT_WAIT;
			arg = ARGS(cuGraphAddEventWaitNode)->event;
		}
		return model_graph_node(f->p, c->ev, c->api, w[1], w[0], kind,
					arg, deps, (unsigned)n);
	}
	}
	return model_graph_node_end(f->p, c->ev, c->api, w[1], w[0], deps,
				    (unsigned)n);
}

int feed_do_capture_begin(const struct call *c)
{
	return model_capture_begin(c->f->p, c->ev, c->api,
				   feed_stream_of(c->x, c->x->args[0]));
}

int feed_do_capture_to_graph(const struct call *c)
{
	const struct gm_args_cuStreamBeginCaptureToGraph *a =
		ARGS(cuStreamBeginCaptureToGraph);
	SAME_WORD(cuStreamBeginCaptureToGraph, cuStreamBeginCaptureToGraph_ptsz,
		  dep0);

	const uint64_t *edges = NULL;

	if (a->numDependencies > GRAPH_MAX_DEPS) {
		/* Reported at capture: without its edges, none of it. */
		feed_unsupported(c->f, c->ev, c->api);
		return 0;
	}
	if (c->in->data.len) {
		if (c->in->data.len != a->numDependencies * 8) {
			return gm_error(EVF "%zu bytes of edge data recorded for "
					"%" PRIu64 " dependencies", c->ev, c->api,
					c->in->data.len, a->numDependencies);
		}
		edges = (const uint64_t *)(const void *)c->in->data.buf;
	}
	return model_capture_to_graph(c->f->p, c->ev, c->api,
				      feed_stream_of(c->x, a->hStream), a->hGraph,
				      &a->dep0, edges,
				      (unsigned)a->numDependencies);
}

int feed_do_capture_end(const struct call *c)
{
	return model_capture_end(c->f->p, c->ev, c->api,
				 feed_stream_of(c->x, c->x->args[0]),
				 ARGS(cuStreamEndCapture)->phGraph);
}

int feed_do_graph_create(const struct call *c)
{
	return model_graph_create(c->f->p, c->ev, c->api,
				  ARGS(cuGraphCreate)->phGraph);
}

int feed_do_graph_deps(const struct call *c)
{
	const struct gm_args_cuGraphAddDependencies_v2 *a =
		ARGS(cuGraphAddDependencies_v2);

	/* Pairs, or triples with edge data (cuda_api.def). */
	unsigned width = c->in->data.len == a->numDependencies * 24 ? 3 : 2;

	if (c->in->data.len != a->numDependencies * width * 8) {
		return gm_error(EVF "%zu bytes of edges recorded for %" PRIu64
				" edges", c->ev, c->api, c->in->data.len,
				a->numDependencies);
	}
	return model_graph_deps(c->f->p, c->ev, c->api, a->hGraph,
				(const uint64_t *)(const void *)c->in->data.buf,
				a->numDependencies, width);
}

/* Every instantiate row: phGraphExec, hGraph first. */
int feed_do_graph_instantiate(const struct call *c)
{
	return model_graph_instantiate(c->f->p, c->ev, c->api,
				       c->x->args[0], c->x->args[1]);
}

int feed_do_graph_launch(const struct call *c)
{
	struct bundle_feed *f = c->f;
	const struct gm_args_cuGraphLaunch *a = ARGS(cuGraphLaunch);
	uint32_t i = (uint32_t)f->nr_d2h;

	if (model_graph_launch(f->p, c->ev, c->api, a->exec,
			       feed_stream_of(c->x, a->hStream)) < 0) {
		return -1;
	}
	GM_ALLOC_GROW(f->d2h_event, f->nr_d2h + 1, f->alloc_d2h);
	f->d2h_event[f->nr_d2h++] = c->ev;
	handle_map_put(&f->graph_corr, c->in->corr, i);
	return 0;
}

int feed_do_graph_update(const struct call *c)
{
	const struct gm_args_cuGraphExecUpdate_v2 *a = ARGS(cuGraphExecUpdate_v2);

	return model_graph_update(c->f->p, c->ev, c->api, a->hGraphExec,
				  a->hGraph);
}

int feed_do_graph_child_set(const struct call *c)
{
	const struct gm_args_cuGraphExecChildGraphNodeSetParams *a =
		ARGS(cuGraphExecChildGraphNodeSetParams);

	return model_graph_child_set(c->f->p, c->ev, c->api, a->hGraphExec,
				     a->hNode, a->childGraph);
}

int feed_do_graph_kernel_set(const struct call *c)
{
	struct model_launch l;
	int exec = c->x->api == GM_API_cuGraphExecKernelNodeSetParams_v2;

	if (knode_launch(c, &l) < 0) {
		return -1;
	}
	return model_graph_kernel_set(c->f->p, c->ev, c->api,
				      exec ? c->x->args[0] : 0,
				      c->x->args[exec ? 1 : 0], &l);
}

int feed_do_graph_clone(const struct call *c)
{
	return model_graph_clone(c->f->p, c->ev, c->api,
				 ARGS(cuGraphClone)->phGraphClone,
				 ARGS(cuGraphClone)->originalGraph);
}

int feed_do_graph_destroy(const struct call *c)
{
	return model_graph_destroy(c->f->p, c->ev, c->api, c->x->args[0], 0);
}

int feed_do_graph_exec_destroy(const struct call *c)
{
	return model_graph_destroy(c->f->p, c->ev, c->api, c->x->args[0], 1);
}

#undef ARGS
#undef SAME_WORD

/*
 * The handler of each replay kind. GM_RK_NONE has none: CUDA arrays and
 * copies to and from them, 2-D and 3-D copies, surfaces and tensor maps
 * are not replayed yet.
 */
