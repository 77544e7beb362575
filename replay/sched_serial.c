/* SPDX-License-Identifier: MIT */
/*
 * The serial scheduler (variants single and cuda): each operation is
 * issued at once, asynchronously, on the CUDA stream that stands for its
 * captured stream; CUDA keeps the order. An operation flagged GM_F_SYNC
 * is followed by a synchronization of its stream, which keeps the
 * ordering a synchronous call had for the host. Memsets are
 * cuMemsetD*Async on the program's stream (non-serializing). Whether the
 * programs replay together (cuda) or one at a time (single) is the
 * repetition control's business (prog.c), not this file's.
 *
 * Legacy default stream: stream 0 of a program stands for its legacy
 * stream. When the program also used blocking streams, the implicit
 * synchronization between them is rebuilt with internal events (work on
 * stream 0 waits for earlier work on every blocking stream and the other
 * way round); programs that use only stream 0 pay nothing for it.
 */
#include <inttypes.h>
#include <string.h>

#include "copy_nd.h"
#include "cu_check.h"
#include "error.h"
#include "graph_ops.h"
#include "launch_plan.h"
#include "replay_int.h"
#include "sched.h"

/*
 * Whether stream @s is capturing into a graph: it began a capture, or
 * joined one through an event. Work there does not run now, and the
 * legacy-stream ordering below is not the graph's business (an event
 * recorded or waited for there would become a node).
 */
static int in_capture(struct gm_prog *p, unsigned s)
{
	CUstreamCaptureStatus st = CU_STREAM_CAPTURE_STATUS_NONE;

	if (!p->nr_capturing) {
		return 0;
	}
	if (p->capturing[s]) {
		return 1;
	}
	return cuStreamIsCapturing(p->streams[s], &st) == CUDA_SUCCESS &&
	       st == CU_STREAM_CAPTURE_STATUS_ACTIVE;
}

/* Before an operation on stream @s: implicit legacy-stream ordering. */
static int enter_stream(struct gm_prog *p, unsigned s)
{
	if (!p->nr_blocking || in_capture(p, s)) {
		return 0;
	}
	if (s == 0) {
		for (uint32_t i = 0; i < p->nr_blocking; i++) {
			uint32_t t = p->blocking[i];
			if (!p->dirty[t] || in_capture(p, t)) {
				continue;
			}
			if (CU_CHECK(cuEventRecord(p->sync_events[t],
						   p->streams[t])) ||
			    CU_CHECK(cuStreamWaitEvent(p->streams[0],
						       p->sync_events[t], 0))) {
				return -1;
			}
			p->dirty[t] = 0;
		}
	} else if (p->dirty && (p->d->streams[s].flags & GM_STREAM_BLOCKING) &&
		   p->seen_gen[s] != p->legacy_gen) {
		if (p->legacy_event_gen != p->legacy_gen) {
			if (CU_CHECK(cuEventRecord(p->sync_events[0],
						   p->streams[0]))) {
				return -1;
			}
			p->legacy_event_gen = p->legacy_gen;
		}
		if (CU_CHECK(cuStreamWaitEvent(p->streams[s],
					       p->sync_events[0], 0))) {
			return -1;
		}
		p->seen_gen[s] = p->legacy_gen;
	}
	return 0;
}

static void leave_stream(struct gm_prog *p, unsigned s)
{
	if (!p->nr_blocking || in_capture(p, s)) {
		return;
	}
	if (s == 0) {
		p->legacy_gen++;
	} else if (p->d->streams[s].flags & GM_STREAM_BLOCKING) {
		p->dirty[s] = 1;
	}
}

static int stream_sync(struct gm_prog *p, unsigned s)
{
	return CU_CHECK(cuStreamSynchronize(p->streams[s]));
}

int gm_serial_drain(struct gm_prog *p)
{
	for (uint32_t s = 0; s < p->nr_streams_created; s++) {
		if (stream_sync(p, s) < 0) {
			return -1;
		}
	}
	return gm_check_pending(p, -1);
}

static int op_free(struct gm_prog *p, const struct gm_op *op,
		   uint64_t index)
{
	/*
	 * cuMemFree waited for the device; with one stream, stream order
	 * already keeps later users of the recycled memory behind earlier
	 * ones. With several, wait for this program's streams (only). A
	 * stream that is capturing has no work to wait for: what is issued
	 * there becomes a graph's nodes, which run at a launch, and CUDA's
	 * cuMemFree during a (relaxed) capture does not wait for them
	 * either; synchronizing it would fail and end the capture.
	 */
	if (p->nr_streams_created > 1) {
		for (uint32_t s = 0; s < p->nr_streams_created; s++) {
			if (in_capture(p, s)) {
				continue;
			}
			if (stream_sync(p, s) < 0) {
				return -1;
			}
		}
	}
	return gm_op_free(p, op);
}

static int op_copy(struct gm_prog *p, const struct gm_op *op, uint64_t index)
{
	CUstream st = p->streams[op->stream];
	CUdeviceptr dst, src;

	if (enter_stream(p, op->stream) < 0) {
		return -1;
	}
	switch (op->code) {
	case GM_OP_H2D: {
		const uint8_t *host = p->run->blob_host[op->b];
		if (gm_resolve(p, op->a, op->x, op->z, &dst) < 0 ||
		    CU_CHECK(cuMemcpyHtoDAsync(dst, host + op->y, op->z, st))) {
			return -1;
		}
		break;
	}
	case GM_OP_D2H: {
		uint8_t *host = ((op->flags & GM_F_PINNED) ? p->arena_pinned :
							    p->arena) + op->y;
		if (gm_resolve(p, op->a, op->x, op->z, &src) < 0 ||
		    CU_CHECK(cuMemcpyDtoHAsync(host, src, op->z, st))) {
			return -1;
		}
		break;
	}
	case GM_OP_D2D:
		if (gm_resolve(p, op->a, op->x, op->z, &dst) < 0 ||
		    gm_resolve(p, op->b, op->y, op->z, &src) < 0 ||
		    CU_CHECK(cuMemcpyDtoDAsync(dst, src, op->z, st))) {
			return -1;
		}
		break;
	case GM_OP_PTR_STORE: {
		/* Pageable source: the driver has staged it when this returns. */
		uint64_t value;
		if (gm_resolve(p, op->a, op->x, 8, &dst) < 0 ||
		    gm_resolve(p, op->b, op->y, 0, &src) < 0) {
			return -1;
		}
		value = (uint64_t)src;
		if (CU_CHECK(cuMemcpyHtoDAsync(dst, &value, 8, st))) {
			return -1;
		}
		break;
	}
	}
	leave_stream(p, op->stream);
	if (op->flags & GM_F_SYNC) {
		if (stream_sync(p, op->stream) < 0) {
			return -1;
		}
		if (op->code == GM_OP_D2H) {
			return gm_verify(p, op);
		}
	} else if (op->code == GM_OP_D2H) {
		gm_pending_add(p, op, index);
	}
	return 0;
}

static int op_memset(struct gm_prog *p, const struct gm_op *op,
		     uint64_t index)
{
	CUstream st = p->streams[op->stream];
	unsigned width = op->code == GM_OP_MEMSET8 ? 1 :
			 op->code == GM_OP_MEMSET16 ? 2 : 4;
	CUdeviceptr dst;
	int r;

	if (enter_stream(p, op->stream) < 0 ||
	    gm_resolve(p, op->a, op->x, op->z * width, &dst) < 0) {
		return -1;
	}
	if (width == 1) {
		r = CU_CHECK(cuMemsetD8Async(dst, (unsigned char)op->c, op->z,
					     st));
	} else if (width == 2) {
		r = CU_CHECK(cuMemsetD16Async(dst, (unsigned short)op->c,
					      op->z, st));
	} else {
		r = CU_CHECK(cuMemsetD32Async(dst, op->c, op->z, st));
	}
	if (r) {
		return -1;
	}
	leave_stream(p, op->stream);
	if ((op->flags & GM_F_SYNC) && stream_sync(p, op->stream) < 0) {
		return -1;
	}
	return 0;
}

static int op_launch(struct gm_prog *p, const struct gm_op *op,
		     uint64_t index)
{
	const struct gm_planner *pl = p->run->planner;
	struct gm_launch_cursor c;
	struct gm_elastic_args a;
	uint32_t grid[3];
	int64_t size = gm_params_fill(p, op->a, p->param_buf);
	int r;

	if (size < 0 || pl->begin(p, op->a, &c) < 0 ||
	    enter_stream(p, op->stream) < 0) {
		return -1;
	}
	atomic_store_explicit(&p->last_launch, index + 1, memory_order_relaxed);
	/* Ranges follow each other on the one stream. */
	while ((r = pl->next(p, &c, grid, &a)) == 1) {
		if (gm_launch_physical(p, op->a, grid, c.block, c.takes_args ? &a : NULL,
				       (size_t)size,
				       p->streams[op->stream]) < 0) {
			return gm_error("'%s': launch %" PRIu64 " of a grid of "
					"%u x %u x %u blocks",
					p->d->kernels[p->d->launches[op->a]
							      .kernel].name,
					c.launches, grid[0], grid[1], grid[2]);
		}
	}
	if (r < 0) {
		return -1;
	}
	pl->end(p, &c);
	leave_stream(p, op->stream);
	return 0;
}

/* COPY_IN, COPY_OUT, COPY_DEV: a 2-D, 3-D or array copy (copy_nd.h). */
static int op_copy_nd(struct gm_prog *p, const struct gm_op *op,
		      uint64_t index)
{
	struct gm_copy_nd c;

	if (gm_copy_nd_prepare(p, op, &c) < 0 ||
	    enter_stream(p, op->stream) < 0) {
		return -1;
	}
	/* The unaligned copy has no asynchronous form: after its stream's
	 * work, as the program's synchronous call was. */
	if (c.call == GM_COPYCALL_2D_UNALIGNED && !in_capture(p, op->stream) &&
	    stream_sync(p, op->stream) < 0) {
		return -1;
	}
	if (gm_copy_nd_issue(&c, p->streams[op->stream]) < 0) {
		return -1;
	}
	leave_stream(p, op->stream);
	if (op->flags & GM_F_SYNC) {
		if (stream_sync(p, op->stream) < 0) {
			return -1;
		}
		if (op->code == GM_OP_COPY_OUT) {
			return gm_verify(p, op);
		}
	} else if (op->code == GM_OP_COPY_OUT) {
		gm_pending_add(p, op, index);
	}
	return 0;
}

/* ---- one handler per operation code (serial_ops below) ---- */

static int op_ptr_store(struct gm_prog *p, const struct gm_op *op,
			uint64_t index)
{
	if (gm_ptr_store_skip(p, op)) {
		return 0;
	}
	return op_copy(p, op, index);
}

static int op_event_record(struct gm_prog *p, const struct gm_op *op,
			   uint64_t index)
{
	if (enter_stream(p, op->stream) < 0 ||
	    CU_CHECK(cuEventRecord(p->events[op->a],
				   p->streams[op->stream]))) {
		return -1;
	}
	leave_stream(p, op->stream);
	return 0;
}

static int op_stream_wait(struct gm_prog *p, const struct gm_op *op,
			  uint64_t index)
{
	if (enter_stream(p, op->stream) < 0 ||
	    CU_CHECK(cuStreamWaitEvent(p->streams[op->stream],
				       p->events[op->a], 0))) {
		return -1;
	}
	leave_stream(p, op->stream);
	return 0;
}

static int op_event_sync(struct gm_prog *p, const struct gm_op *op,
			 uint64_t index)
{
	return CU_CHECK(cuEventSynchronize(p->events[op->a]));
}

static int op_stream_sync(struct gm_prog *p, const struct gm_op *op,
			  uint64_t index)
{
	if (enter_stream(p, op->stream) < 0 ||
	    stream_sync(p, op->stream) < 0) {
		return -1;
	}
	leave_stream(p, op->stream);
	return gm_check_pending(p, op->stream);
}

static int op_ctx_sync(struct gm_prog *p, const struct gm_op *op,
		       uint64_t index)
{
	/* Only this program's work: the others are not ours. */
	return gm_serial_drain(p);
}

/* HOST_FILL, HOST_CHECK, ADVISE: off the program's streams. */
static int op_hostmem(struct gm_prog *p, const struct gm_op *op,
		      uint64_t index)
{
	return gm_hostmem_op(p, op, NULL);
}

/* PREFETCH, ATTACH: on the operation's stream, in its order. */
static int op_hostmem_stream(struct gm_prog *p, const struct gm_op *op,
			     uint64_t index)
{
	if (enter_stream(p, op->stream) < 0 ||
	    gm_hostmem_op(p, op, p->streams[op->stream]) < 0) {
		return -1;
	}
	leave_stream(p, op->stream);
	return 0;
}

static int op_host_func(struct gm_prog *p, const struct gm_op *op,
			uint64_t index)
{
	if (enter_stream(p, op->stream) < 0 ||
	    gm_host_func(p, op, p->streams[op->stream]) < 0) {
		return -1;
	}
	leave_stream(p, op->stream);
	return 0;
}

/* The one graph operation whose stream ordering is this file's. */
static int op_graph_launch(struct gm_prog *p, const struct gm_op *op,
			   uint64_t index)
{
	if (enter_stream(p, op->stream) < 0 ||
	    gm_graph_op(p, op, index) < 0) {
		return -1;
	}
	leave_stream(p, op->stream);
	return 0;
}

/*
 * The handler of each code; the other graph operations go to
 * graph_ops.c as they are. tests/unit/test_op_tables.c holds every code
 * that is not a graph operation to its row here.
 */
static gm_exec_fn *const serial_ops[GM_OP_COUNT] = {
	[GM_OP_NOP] = gm_op_nop,
	[GM_OP_ALLOC] = gm_op_alloc,
	[GM_OP_FREE] = op_free,
	[GM_OP_PTR_STORE] = op_ptr_store,
	[GM_OP_H2D] = op_copy,
	[GM_OP_D2H] = op_copy,
	[GM_OP_D2D] = op_copy,
	[GM_OP_MEMSET8] = op_memset,
	[GM_OP_MEMSET16] = op_memset,
	[GM_OP_MEMSET32] = op_memset,
	[GM_OP_LAUNCH] = op_launch,
	[GM_OP_COPY_IN] = op_copy_nd,
	[GM_OP_COPY_OUT] = op_copy_nd,
	[GM_OP_COPY_DEV] = op_copy_nd,
	[GM_OP_ARRAY_CREATE] = gm_array_op,
	[GM_OP_ARRAY_DESTROY] = gm_array_op,
	[GM_OP_EVENT_RECORD] = op_event_record,
	[GM_OP_STREAM_WAIT] = op_stream_wait,
	[GM_OP_EVENT_SYNC] = op_event_sync,
	[GM_OP_STREAM_SYNC] = op_stream_sync,
	[GM_OP_CTX_SYNC] = op_ctx_sync,
	[GM_OP_TEX_CREATE] = gm_tex_create,
	[GM_OP_TEX_DESTROY] = gm_tex_destroy,
	[GM_OP_HOST_FILL] = op_hostmem,
	[GM_OP_HOST_CHECK] = op_hostmem,
	[GM_OP_ADVISE] = op_hostmem,
	[GM_OP_PREFETCH] = op_hostmem_stream,
	[GM_OP_ATTACH] = op_hostmem_stream,
	[GM_OP_HOST_FUNC] = op_host_func,
	[GM_OP_GRAPH_LAUNCH] = op_graph_launch,
};

int gm_serial_handles(unsigned code)
{
	return code < GM_OP_COUNT && serial_ops[code];
}

int gm_serial_exec(struct gm_prog *p, const struct gm_op *op,
		   uint64_t index)
{
	if (gm_serial_handles(op->code)) {
		return serial_ops[op->code](p, op, index);
	}
	if (gm_graph_is_op(op->code)) {
		return gm_graph_op(p, op, index);
	}
	return gm_error("unknown operation code %u", op->code);
}

int gm_serial_replay_end(struct gm_prog *p)
{
	p->legacy_gen = p->legacy_event_gen = 0;
	if (p->nr_blocking) {
		memset(p->dirty, 0, p->d->nr_streams);
		memset(p->seen_gen, 0, p->d->nr_streams * sizeof(uint64_t));
	}
	return 0;
}

uint32_t gm_serial_nr_streams(const struct gm_prog *p)
{
	return p->d->nr_streams;
}

const struct gm_sched gm_sched_serial = {
	.name = "serial",
	.exec = gm_serial_exec,
	.drain = gm_serial_drain,
	.replay_end = gm_serial_replay_end,
	.nr_streams = gm_serial_nr_streams,
};
