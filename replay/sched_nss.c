/* SPDX-License-Identifier: MIT */
/*
 * The nss scheduler: non-serializing streams (the paper's section 5).
 * Each program gets one CUDA stream for its memory operations and one
 * for its kernels, both non-blocking, so CUDA never sees a memory
 * operation and a kernel in one stream. The program's own ordering
 * (captured streams, events, stream waits, the legacy stream,
 * synchronous calls) is kept by this runtime instead (dep_tracker.h):
 * an operation becomes a command in the program's queue, and the
 * program's dispatcher issues each command once what it depends on has
 * completed, or was issued earlier on the same CUDA stream.
 *
 * The dispatcher runs in the program's own thread: after every
 * operation it issues what became ready (in order, but a ready command
 * may pass one that waits: that is counted as a reorder, the paper's
 * section 3.3), and where the captured program waited (a synchronous
 * call, a stream or event synchronize) it polls until the command it
 * waits for is done. It learns that a command finished either from a
 * CUDA event recorded after it (--completion event), or, for kernels
 * that were transformed (reconstruct --elastic), from a host-mapped
 * flag the kernel's last block sets (--completion poll; the paper's
 * Listing 2, corrected). Other kernels and every copy use events.
 *
 * Copies larger than --copy-chunk are issued as several copies of that
 * size, so that other programs' copies can run between them. A launch
 * becomes the physical launches its planner gives (launch_plan.h):
 * ranges issued back to back, or, for timeslices, one range at a time,
 * the next when the previous one completed.
 */
#include <inttypes.h>
#include <sched.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "copy_nd.h"
#include "cu_check.h"
#include "dep_tracker.h"
#include "error.h"
#include "graph_ops.h"
#include "kvfile.h"
#include "launch_plan.h"
#include "op_traits.h"
#include "replay_int.h"
#include "sched.h"

/* Completion flags per program: kernels in flight that poll. */
#define NR_FLAGS 256

struct nss_cmd {
	const struct gm_op *op;
	uint64_t index;			/* operation index (messages) */
	uint64_t seq;			/* program order (dep_tracker) */
	enum gm_dep_queue queue;
	struct gm_dep_set deps;
	uint64_t queued_ns;		/* when the program issued it */
	/* memory commands, resolved when queued */
	CUdeviceptr dst, src;
	const void *host_src;
	void *host_dst;
	uint64_t ptr_value;		/* PTR_STORE: the address stored */
	struct gm_copy_nd nd;		/* COPY_IN, _OUT, _DEV (copy_nd.h) */
	/* kernels */
	uint8_t *params;
	int64_t params_size;
	struct gm_launch_cursor cur;
};

/* Work handed to CUDA whose completion is awaited, in issue order. */
struct nss_inflight {
	struct nss_cmd *cmd;
	int last;			/* completes the command */
	int flag;			/* completion flag slot, or -1 */
	CUevent ev;			/* else this event */
};

struct nss_fifo {
	struct nss_inflight *v;
	size_t head, nr, alloc;		/* ring */
};

struct nss_prog {
	struct gm_dep_tracker deps;
	CUstream stream[GM_DEP_NR_QUEUES];
	int nr_created;
	struct nss_cmd **queue;		/* not issued yet, program order */
	size_t nr_queue, alloc_queue;
	struct nss_fifo fifo[GM_DEP_NR_QUEUES];
	CUevent *events;		/* free completion events */
	size_t nr_events, alloc_events, nr_made;
	volatile uint32_t *flags;	/* host-mapped, NR_FLAGS */
	CUdeviceptr flags_dev, counts_dev;
	int free_flags[NR_FLAGS];
	int nr_free_flags;
	uint64_t cpu_ns;		/* CPU time spent waiting */
};

struct nss_run {
	atomic_uint_fast64_t commands, reordered, chunks, polled, evented;
	atomic_uint_fast64_t queue_ns, queued_kernels, wait_cpu_ns;
};

static struct nss_prog *prog_state(struct gm_prog *p)
{
	return p->sched_state;
}

static struct nss_run *run_state(struct gm_run *run)
{
	return run->sched_state;
}

static uint64_t mono_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* ---- set-up ---- */

static int nss_run_init(struct gm_run *run)
{
	run->sched_state = gm_xcalloc(1, sizeof(struct nss_run));
	return 0;
}

static void nss_run_release(struct gm_run *run)
{
	free(run->sched_state);
	run->sched_state = NULL;
}

static int nss_prog_init(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;
	struct nss_prog *n = gm_xcalloc(1, sizeof(*n));
	uint8_t *blocking = gm_xcalloc(d->nr_streams + 1, 1);
	static const char *const what[GM_DEP_NR_QUEUES] = {
		[GM_DEP_MEM] = "nss memory stream",
		[GM_DEP_KERNEL] = "nss kernel stream",
	};

	p->sched_state = n;
	for (uint32_t s = 1; s < d->nr_streams; s++) {
		blocking[s] = !!(d->streams[s].flags & GM_STREAM_BLOCKING);
	}
	gm_dep_init(&n->deps, d->nr_streams, blocking, d->nr_events);
	free(blocking);
	for (int q = 0; q < GM_DEP_NR_QUEUES; q++) {
		if (gm_prog_stream_create(p, &n->stream[q],
					  d->streams[0].priority, what[q]) < 0) {
			return -1;
		}
		n->nr_created = q + 1;
	}
	if (p->run->opt.completion == GM_COMPLETION_POLL) {
		void *host;
		if (CU_CHECK(cuMemHostAlloc(&host, NR_FLAGS * sizeof(uint32_t),
					    CU_MEMHOSTALLOC_DEVICEMAP |
						    CU_MEMHOSTALLOC_PORTABLE))) {
			return gm_error("cannot map completion flags");
		}
		n->flags = host;
		memset(host, 0, NR_FLAGS * sizeof(uint32_t));
		if (CU_CHECK(cuMemHostGetDevicePointer(&n->flags_dev, host, 0)) ||
		    CU_CHECK(cuMemAlloc(&n->counts_dev,
					NR_FLAGS * sizeof(uint32_t))) ||
		    CU_CHECK(cuMemsetD32(n->counts_dev, 0, NR_FLAGS))) {
			return gm_error("cannot set up completion flags");
		}
		for (int i = 0; i < NR_FLAGS; i++) {
			n->free_flags[n->nr_free_flags++] = NR_FLAGS - 1 - i;
		}
	}
	return 0;
}

static uint32_t nss_nr_streams(const struct gm_prog *p)
{
	(void)p;
	return GM_DEP_NR_QUEUES;
}

/* ---- completion markers ---- */

static int take_event(struct nss_prog *n, CUevent *ev)
{
	if (n->nr_events) {
		*ev = n->events[--n->nr_events];
		return 0;
	}
	if (CU_CHECK(cuEventCreate(ev, CU_EVENT_DISABLE_TIMING))) {
		return -1;
	}
	n->nr_made++;
	return 0;
}

static void give_event(struct nss_prog *n, CUevent ev)
{
	GM_ALLOC_GROW(n->events, n->nr_events + 1, n->alloc_events);
	n->events[n->nr_events++] = ev;
}

static void fifo_push(struct nss_fifo *f, struct nss_inflight e)
{
	if (f->nr == f->alloc) {
		size_t alloc = f->alloc ? 2 * f->alloc : 64;
		struct nss_inflight *v = gm_xcalloc(alloc, sizeof(*v));
		for (size_t i = 0; i < f->nr; i++) {
			v[i] = f->v[(f->head + i) % f->alloc];
		}
		free(f->v);
		f->v = v;
		f->alloc = alloc;
		f->head = 0;
	}
	f->v[(f->head + f->nr) % f->alloc] = e;
	f->nr++;
}

static struct nss_inflight *fifo_front(struct nss_fifo *f)
{
	return f->nr ? &f->v[f->head] : NULL;
}

static void fifo_pop(struct nss_fifo *f)
{
	f->head = (f->head + 1) % f->alloc;
	f->nr--;
}

/* Mark the end of what was just issued on @q: an event after it. */
static int mark_with_event(struct gm_prog *p, struct nss_cmd *c, int last)
{
	struct nss_prog *n = prog_state(p);
	struct nss_inflight e = { c, last, -1, NULL };

	if (take_event(n, &e.ev) ||
	    CU_CHECK(cuEventRecord(e.ev, n->stream[c->queue]))) {
		return -1;
	}
	fifo_push(&n->fifo[c->queue], e);
	return 0;
}

/* ---- issuing ---- */

static void free_cmd(struct nss_cmd *c)
{
	gm_dep_set_release(&c->deps);
	free(c->params);
	free(c);
}

static int issue_copy(struct gm_prog *p, struct nss_cmd *c)
{
	const struct gm_op *op = c->op;
	struct nss_prog *n = prog_state(p);
	CUstream st = n->stream[GM_DEP_MEM];
	uint64_t chunk = p->run->opt.copy_chunk, nr = 0;

	if (!chunk || op->code == GM_OP_HOST_FUNC ||
	    op->code == GM_OP_MEMSET8 || op->code == GM_OP_MEMSET16 ||
	    op->code == GM_OP_MEMSET32) {
		chunk = UINT64_MAX;
	}
	switch (op->code) {
	case GM_OP_HOST_FUNC:
		if (gm_host_func(p, op, st) < 0) {
			return -1;
		}
		break;
	case GM_OP_MEMSET8:
		if (CU_CHECK(cuMemsetD8Async(c->dst, (unsigned char)op->c,
					     op->z, st))) {
			return -1;
		}
		break;
	case GM_OP_MEMSET16:
		if (CU_CHECK(cuMemsetD16Async(c->dst, (unsigned short)op->c,
					      op->z, st))) {
			return -1;
		}
		break;
	case GM_OP_MEMSET32:
		if (CU_CHECK(cuMemsetD32Async(c->dst, op->c, op->z, st))) {
			return -1;
		}
		break;
	case GM_OP_PTR_STORE:
		if (CU_CHECK(cuMemcpyHtoDAsync(c->dst, &c->ptr_value, 8, st))) {
			return -1;
		}
		break;
	case GM_OP_COPY_IN:
	case GM_OP_COPY_OUT:
	case GM_OP_COPY_DEV:
		/* Not chunked; an unaligned 2-D copy is synchronous: its
		 * stream's earlier work is done (the command is ready). */
		if (gm_copy_nd_issue(&c->nd, st) < 0) {
			return -1;
		}
		break;
	default:
		for (uint64_t off = 0; off < op->z || (!op->z && !nr);
		     off += chunk) {
			uint64_t len = op->z - off < chunk ? op->z - off : chunk;
			int r;
			if (op->code == GM_OP_H2D) {
				r = CU_CHECK(cuMemcpyHtoDAsync(
					c->dst + off,
					(const uint8_t *)c->host_src + off, len,
					st));
			} else if (op->code == GM_OP_D2H) {
				r = CU_CHECK(cuMemcpyDtoHAsync(
					(uint8_t *)c->host_dst + off,
					c->src + off, len, st));
			} else {
				r = CU_CHECK(cuMemcpyDtoDAsync(c->dst + off,
							       c->src + off,
							       len, st));
			}
			if (r) {
				return -1;
			}
			nr++;
			if (!op->z) {
				break;
			}
		}
		if (nr > 1) {
			atomic_fetch_add_explicit(&run_state(p->run)->chunks,
						  nr, memory_order_relaxed);
		}
		break;
	}
	return mark_with_event(p, c, 1);
}

/*
 * Issue the kernel's next ranges: every range when they may follow each
 * other, else one. The command counts as issued after its last range.
 */
static int issue_ranges(struct gm_prog *p, struct nss_cmd *c)
{
	const struct gm_planner *pl = p->run->planner;
	struct nss_prog *n = prog_state(p);
	int poll = p->run->opt.completion == GM_COMPLETION_POLL &&
		   c->cur.takes_args;
	struct gm_elastic_args a;
	uint32_t grid[3];
	int r;

	if (c->params_size) {
		memcpy(p->param_buf, c->params, (size_t)c->params_size);
	}
	while ((r = pl->next(p, &c->cur, grid, &a)) == 1) {
		int last = c->cur.next >= c->cur.total;
		int mark = last || !c->cur.back_to_back;
		int flag = -1;

		if (mark && poll && n->nr_free_flags) {
			flag = n->free_flags[--n->nr_free_flags];
			n->flags[flag] = 0;
			a.done_flag = n->flags_dev + (uint64_t)flag * 4;
			a.done_count = n->counts_dev + (uint64_t)flag * 4;
		}
		atomic_store_explicit(&p->last_launch, c->index + 1,
				      memory_order_relaxed);
		if (gm_launch_physical(p, c->cur.launch, grid, c->cur.block,
				       c->cur.takes_args ? &a : NULL,
				       (size_t)c->params_size,
				       n->stream[GM_DEP_KERNEL]) < 0) {
			return gm_error("'%s': launch %" PRIu64 " of a grid of "
					"%u x %u x %u blocks",
					p->d->kernels[p->d->launches[c->cur.launch]
							      .kernel].name,
					c->cur.launches, grid[0], grid[1],
					grid[2]);
		}
		if (mark) {
			if (flag >= 0) {
				struct nss_inflight e = { c, last, flag, NULL };
				fifo_push(&n->fifo[GM_DEP_KERNEL], e);
				atomic_fetch_add_explicit(
					&run_state(p->run)->polled, 1,
					memory_order_relaxed);
			} else {
				if (mark_with_event(p, c, last) < 0) {
					return -1;
				}
				atomic_fetch_add_explicit(
					&run_state(p->run)->evented, 1,
					memory_order_relaxed);
			}
		}
		if (last) {
			pl->end(p, &c->cur);
			gm_dep_issued(&n->deps, c->seq);
			return 0;
		}
		if (!c->cur.back_to_back) {
			return 0;	/* the next range when this one is done */
		}
	}
	return r;
}

static int issue(struct gm_prog *p, struct nss_cmd *c)
{
	struct nss_prog *n = prog_state(p);

	if (c->queue == GM_DEP_MEM) {
		if (issue_copy(p, c) < 0) {
			return -1;
		}
		gm_dep_issued(&n->deps, c->seq);
		return 0;
	}
	atomic_fetch_add_explicit(&run_state(p->run)->queue_ns,
				  mono_ns(CLOCK_MONOTONIC) - c->queued_ns,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&run_state(p->run)->queued_kernels, 1,
				  memory_order_relaxed);
	return issue_ranges(p, c);
}

/* ---- the dispatcher ---- */

/* 1 when the in-flight entry @e finished, 0 when not, -1 on error. */
static int finished(struct nss_prog *n, struct nss_inflight *e)
{
	CUresult r;

	if (e->flag >= 0) {
		if (!__atomic_load_n(&n->flags[e->flag], __ATOMIC_ACQUIRE)) {
			return 0;
		}
		n->free_flags[n->nr_free_flags++] = e->flag;
		return 1;
	}
	r = CU_TIMED(cuEventQuery(e->ev));
	if (r == CUDA_ERROR_NOT_READY) {
		return 0;
	}
	/* (timed above: CU_CHECK here would count a call named "r") */
	if (gm_cu_check(r, "cuEventQuery(e->ev)", __FILE__, __LINE__)) {
		return -1;
	}
	give_event(n, e->ev);
	return 1;
}

/* Collect completions; *@moved when anything changed. */
static int reap(struct gm_prog *p, int *moved)
{
	struct nss_prog *n = prog_state(p);

	for (int q = 0; q < GM_DEP_NR_QUEUES; q++) {
		struct nss_inflight *e;
		while ((e = fifo_front(&n->fifo[q]))) {
			struct nss_inflight done = *e;
			int r = finished(n, e);
			if (r <= 0) {
				if (r < 0) {
					return -1;
				}
				break;
			}
			fifo_pop(&n->fifo[q]);
			*moved = 1;
			if (done.last) {
				gm_dep_done(&n->deps, done.cmd->seq);
				free_cmd(done.cmd);
			} else if (issue_ranges(p, done.cmd) < 0) {
				return -1;
			}
		}
	}
	return 0;
}

/* Issue every queued command that may go now. */
static int dispatch(struct gm_prog *p, int *moved)
{
	struct nss_prog *n = prog_state(p);
	size_t keep = 0;
	int waiting = 0;

	for (size_t i = 0; i < n->nr_queue; i++) {
		struct nss_cmd *c = n->queue[i];
		if (!gm_dep_ready(&n->deps, &c->deps, c->queue)) {
			n->queue[keep++] = c;
			waiting = 1;
			continue;
		}
		if (waiting) {
			atomic_fetch_add_explicit(&run_state(p->run)->reordered,
						  1, memory_order_relaxed);
		}
		if (issue(p, c) < 0) {
			/* Keep the rest owned by the queue. */
			for (size_t j = i + 1; j < n->nr_queue; j++) {
				n->queue[keep++] = n->queue[j];
			}
			n->nr_queue = keep;
			return -1;
		}
		*moved = 1;
	}
	n->nr_queue = keep;
	return 0;
}

static int progress(struct gm_prog *p, int *moved)
{
	*moved = 0;
	if (reap(p, moved) < 0 || dispatch(p, moved) < 0) {
		return -1;
	}
	return 0;
}

enum wait_for { WAIT_SEQ, WAIT_SET, WAIT_ALL };

/*
 * Run the dispatcher until the command @seq, the set @set or everything
 * is done. Returns 0, 1 when the run is stopping (another program failed
 * or hung: the caller gives up without a verdict), or -1.
 */
static int wait_until(struct gm_prog *p, enum wait_for what, uint64_t seq,
		      const struct gm_dep_set *set)
{
	struct nss_prog *n = prog_state(p);
	uint64_t cpu0 = mono_ns(CLOCK_THREAD_CPUTIME_ID);
	int ret = 0;

	for (;;) {
		int moved, met;
		if (progress(p, &moved) < 0) {
			ret = -1;
			break;
		}
		met = what == WAIT_SEQ ?
			      gm_dep_state_of(&n->deps, seq) == GM_DEP_DONE :
		      what == WAIT_SET ? gm_dep_all_done(&n->deps, set) :
					 gm_dep_idle(&n->deps);
		if (met) {
			break;
		}
		if (atomic_load_explicit(&p->run->stop, memory_order_relaxed)) {
			ret = 1;
			break;
		}
		if (!moved) {
			sched_yield();
		}
	}
	n->cpu_ns += mono_ns(CLOCK_THREAD_CPUTIME_ID) - cpu0;
	return ret;
}

/* ---- operations ---- */

static struct nss_cmd *new_cmd(struct gm_prog *p, const struct gm_op *op,
			       uint64_t index, enum gm_dep_queue q)
{
	struct nss_cmd *c = gm_xcalloc(1, sizeof(*c));

	c->op = op;
	c->index = index;
	c->queue = q;
	c->queued_ns = mono_ns(CLOCK_MONOTONIC);
	(void)p;
	return c;
}

/* Queue @c (owned by the queue from now on: it is freed once done, so
 * its number is handed back in *@seq) and dispatch. */
static int enqueue(struct gm_prog *p, struct nss_cmd *c, uint64_t *seq)
{
	struct nss_prog *n = prog_state(p);
	int moved;

	c->seq = gm_dep_add(&n->deps, c->op->stream, c->queue, &c->deps);
	*seq = c->seq;
	GM_ALLOC_GROW(n->queue, n->nr_queue + 1, n->alloc_queue);
	n->queue[n->nr_queue++] = c;
	atomic_fetch_add_explicit(&run_state(p->run)->commands, 1,
				  memory_order_relaxed);
	return progress(p, &moved);
}

static int op_memory(struct gm_prog *p, const struct gm_op *op,
		     uint64_t index)
{
	struct nss_cmd *c = new_cmd(p, op, index, GM_DEP_MEM);
	uint64_t len = op->z, seq;
	int r;

	if (op->code == GM_OP_MEMSET16) {
		len *= 2;
	} else if (op->code == GM_OP_MEMSET32) {
		len *= 4;
	}
	switch (op->code) {
	case GM_OP_H2D:
		c->host_src = (const uint8_t *)p->run->blob_host[op->b] + op->y;
		r = gm_resolve(p, op->a, op->x, len, &c->dst);
		break;
	case GM_OP_D2H:
		c->host_dst = ((op->flags & GM_F_PINNED) ? p->arena_pinned :
							  p->arena) + op->y;
		r = gm_resolve(p, op->a, op->x, len, &c->src);
		break;
	case GM_OP_D2D:
		r = gm_resolve(p, op->a, op->x, len, &c->dst);
		if (!r) {
			r = gm_resolve(p, op->b, op->y, len, &c->src);
		}
		break;
	case GM_OP_PTR_STORE:
		len = 8;
		r = gm_resolve(p, op->a, op->x, len, &c->dst);
		if (!r) {
			r = gm_resolve(p, op->b, op->y, 0, &c->src);
			c->ptr_value = (uint64_t)c->src;
		}
		break;
	case GM_OP_COPY_IN:
	case GM_OP_COPY_OUT:
	case GM_OP_COPY_DEV:
		r = gm_copy_nd_prepare(p, op, &c->nd);
		break;
	default:
		r = gm_resolve(p, op->a, op->x, len, &c->dst);
		break;
	}
	if (r < 0) {
		free_cmd(c);
		return -1;
	}
	if (enqueue(p, c, &seq) < 0) {
		return -1;
	}
	if (op->flags & GM_F_SYNC) {
		r = wait_until(p, WAIT_SEQ, seq, NULL);
		if (r) {
			return r < 0 ? -1 : 0;
		}
		if (op->code == GM_OP_D2H || op->code == GM_OP_COPY_OUT) {
			return gm_verify(p, op);
		}
	} else if (op->code == GM_OP_D2H || op->code == GM_OP_COPY_OUT) {
		gm_pending_add(p, op, index);
	}
	return 0;
}

static int op_launch(struct gm_prog *p, const struct gm_op *op,
		     uint64_t index)
{
	const struct gm_launch_desc *l = &p->d->launches[op->a];
	const struct gm_params_desc *pd = &p->d->params[l->params];
	struct nss_cmd *c = new_cmd(p, op, index, GM_DEP_KERNEL);
	uint64_t seq;

	/* Resolved now: allocations may change before it is issued. */
	c->params = gm_xmalloc(pd->size + GM_ELASTIC_PARAM_SIZE + 16);
	c->params_size = gm_params_fill(p, op->a, c->params);
	if (c->params_size < 0 ||
	    p->run->planner->begin(p, op->a, &c->cur) < 0) {
		free_cmd(c);
		return -1;
	}
	return enqueue(p, c, &seq);
}

/*
 * While the program spends host time: the dispatcher goes on issuing
 * what became ready (the next timeslice of a kernel, a command whose
 * dependencies completed), as queued work would go on on a GPU. Queued
 * commands, or a kernel with ranges still to issue, mean: call again
 * soon; work whose completion issues nothing more can wait.
 */
static int nss_idle(struct gm_prog *p)
{
	struct nss_prog *n = prog_state(p);
	int moved;

	if (progress(p, &moved) < 0) {
		return -1;
	}
	if (n->nr_queue) {
		return 1;
	}
	for (int q = 0; q < GM_DEP_NR_QUEUES; q++) {
		const struct nss_fifo *f = &n->fifo[q];
		for (size_t i = 0; i < f->nr; i++) {
			if (!f->v[(f->head + i) % f->alloc].last) {
				return 1;
			}
		}
	}
	return 0;
}

/* 0 when all work so far is done, or the run stops. */
static int wait_all(struct gm_prog *p)
{
	return wait_until(p, WAIT_ALL, 0, NULL) < 0 ? -1 : 0;
}

/* Everything of the program done and its pending results checked (also
 * the captured context synchronize). */
static int nss_drain(struct gm_prog *p)
{
	int r = wait_until(p, WAIT_ALL, 0, NULL);

	if (r) {
		return r < 0 ? -1 : 0;
	}
	return gm_check_pending(p, -1);
}

static int op_free(struct gm_prog *p, const struct gm_op *op, uint64_t index)
{
	/* Queued or running work may still use the memory. */
	if (wait_all(p) < 0) {
		return -1;
	}
	return gm_op_free(p, op);
}

static int op_ptr_store(struct gm_prog *p, const struct gm_op *op,
			uint64_t index)
{
	if (gm_ptr_store_skip(p, op)) {
		return 0;
	}
	return op_memory(p, op, index);
}

static int op_event_record(struct gm_prog *p, const struct gm_op *op,
			   uint64_t index)
{
	gm_dep_record(&prog_state(p)->deps, op->stream, op->a);
	return 0;
}

static int op_stream_wait(struct gm_prog *p, const struct gm_op *op,
			  uint64_t index)
{
	gm_dep_wait(&prog_state(p)->deps, op->stream, op->a);
	return 0;
}

static int op_event_sync(struct gm_prog *p, const struct gm_op *op,
			 uint64_t index)
{
	const struct gm_dep_set *set =
		gm_dep_event(&prog_state(p)->deps, op->a);

	return wait_until(p, WAIT_SET, 0, set) < 0 ? -1 : 0;
}

static int op_stream_sync(struct gm_prog *p, const struct gm_op *op,
			  uint64_t index)
{
	struct nss_prog *n = prog_state(p);
	/* The tracker's set stays valid: waiting only changes the commands'
	 * states, it computes no stream's set. */
	int r = wait_until(p, WAIT_SET, 0, gm_dep_stream(&n->deps, op->stream));

	if (r) {
		return r < 0 ? -1 : 0;
	}
	return gm_check_pending(p, op->stream);
}

static int op_ctx_sync(struct gm_prog *p, const struct gm_op *op,
		       uint64_t index)
{
	return nss_drain(p);
}

static int op_tex_destroy(struct gm_prog *p, const struct gm_op *op,
			  uint64_t index)
{
	/* Kernels queued or running may still read it. */
	if (wait_all(p) < 0) {
		return -1;
	}
	return gm_tex_destroy(p, op, index);
}

/* HOST_FILL, PREFETCH, ADVISE: queued kernels may still read the memory;
 * a prefetch is a hint, off the program's streams. */
static int op_hostmem(struct gm_prog *p, const struct gm_op *op,
		      uint64_t index)
{
	if (wait_all(p) < 0) {
		return -1;
	}
	return gm_hostmem_op(p, op, p->aux_stream);
}

/* The program's one stream is two here (memory, kernels): memory
 * attached to it stays visible to both (global). */
static int op_attach(struct gm_prog *p, const struct gm_op *op,
		     uint64_t index)
{
	struct gm_op g = *op;

	if (wait_all(p) < 0) {
		return -1;
	}
	if (g.c == CU_MEM_ATTACH_SINGLE) {
		g.c = CU_MEM_ATTACH_GLOBAL;
	}
	return gm_hostmem_op(p, &g, p->aux_stream);
}

/* Right after the synchronization that made it visible. */
static int op_host_check(struct gm_prog *p, const struct gm_op *op,
			 uint64_t index)
{
	return gm_hostmem_op(p, op, NULL);
}

/* A command of the memory queue: issued once what its stream did before
 * has completed, and what comes after in its stream follows its
 * completion. */
static int op_host_func(struct gm_prog *p, const struct gm_op *op,
			uint64_t index)
{
	uint64_t seq;

	return enqueue(p, new_cmd(p, op, index, GM_DEP_MEM), &seq);
}

/* The handler of each code; the graph operations have none, they are
 * refused (tests/unit/test_op_tables.c holds the table to the rows). */
static gm_exec_fn *const nss_ops[GM_OP_COUNT] = {
	[GM_OP_NOP] = gm_op_nop,
	[GM_OP_ALLOC] = gm_op_alloc,
	[GM_OP_FREE] = op_free,
	[GM_OP_PTR_STORE] = op_ptr_store,
	[GM_OP_H2D] = op_memory,
	[GM_OP_D2H] = op_memory,
	[GM_OP_D2D] = op_memory,
	[GM_OP_MEMSET8] = op_memory,
	[GM_OP_MEMSET16] = op_memory,
	[GM_OP_MEMSET32] = op_memory,
	[GM_OP_COPY_IN] = op_memory,
	[GM_OP_COPY_OUT] = op_memory,
	[GM_OP_COPY_DEV] = op_memory,
	/* Arrays live for the program's life; kernels still queued may
	 * read one the program has given back. */
	[GM_OP_ARRAY_CREATE] = gm_array_op,
	[GM_OP_ARRAY_DESTROY] = gm_array_op,
	[GM_OP_LAUNCH] = op_launch,
	[GM_OP_EVENT_RECORD] = op_event_record,
	[GM_OP_STREAM_WAIT] = op_stream_wait,
	[GM_OP_EVENT_SYNC] = op_event_sync,
	[GM_OP_STREAM_SYNC] = op_stream_sync,
	[GM_OP_CTX_SYNC] = op_ctx_sync,
	[GM_OP_TEX_CREATE] = gm_tex_create,
	[GM_OP_TEX_DESTROY] = op_tex_destroy,
	[GM_OP_HOST_FILL] = op_hostmem,
	[GM_OP_PREFETCH] = op_hostmem,
	[GM_OP_ADVISE] = op_hostmem,
	[GM_OP_ATTACH] = op_attach,
	[GM_OP_HOST_CHECK] = op_host_check,
	[GM_OP_HOST_FUNC] = op_host_func,
};

int gm_nss_handles(unsigned code)
{
	return code < GM_OP_COUNT && nss_ops[code];
}

static int nss_exec(struct gm_prog *p, const struct gm_op *op, uint64_t index)
{
	if (gm_nss_handles(op->code)) {
		return nss_ops[op->code](p, op, index);
	}
	if (gm_op_traits(op->code) & GM_OPT_NSS_REFUSED) {
		gm_error_hint("replay it under a variant of the serial "
			      "schedulers (single, cuda, priority, green)");
		return gm_error("CUDA graphs are not replayed by the nss "
				"scheduler: its two streams per program and "
				"runtime dependencies do not capture into a "
				"graph");
	}
	return gm_error("unknown operation code %u", op->code);
}

static int nss_replay_end(struct gm_prog *p)
{
	struct nss_prog *n = prog_state(p);

	gm_dep_reset(&n->deps);
	return 0;
}

static void nss_prog_release(struct gm_prog *p)
{
	struct nss_prog *n = prog_state(p);

	if (!n) {
		return;
	}
	atomic_fetch_add_explicit(&run_state(p->run)->wait_cpu_ns, n->cpu_ns,
				  memory_order_relaxed);
	for (int q = 0; q < n->nr_created; q++) {
		cuStreamSynchronize(n->stream[q]);
	}
	for (size_t i = 0; i < n->nr_queue; i++) {
		free_cmd(n->queue[i]);
	}
	for (int q = 0; q < GM_DEP_NR_QUEUES; q++) {
		struct nss_inflight *e;
		while ((e = fifo_front(&n->fifo[q]))) {
			if (e->flag < 0) {
				give_event(n, e->ev);
			}
			if (e->last) {
				free_cmd(e->cmd);
			}
			fifo_pop(&n->fifo[q]);
		}
		free(n->fifo[q].v);
	}
	for (size_t i = 0; i < n->nr_events; i++) {
		cuEventDestroy(n->events[i]);
	}
	for (int q = 0; q < n->nr_created; q++) {
		cuStreamDestroy(n->stream[q]);
	}
	if (n->flags) {
		cuMemFreeHost((void *)n->flags);
	}
	if (n->counts_dev) {
		cuMemFree(n->counts_dev);
	}
	gm_dep_release(&n->deps);
	free(n->events);
	free(n->queue);
	free(n);
	p->sched_state = NULL;
}

static void nss_manifest(struct gm_run *run, struct kvfile *kv)
{
	struct nss_run *r = run_state(run);
	uint64_t kernels;

	if (!r) {
		return;
	}
	kernels = atomic_load(&r->queued_kernels);
	kvfile_set(kv, "nss.completion", gm_completion_name(run->opt.completion));
	kvfile_set_u64(kv, "nss.copy_chunk", run->opt.copy_chunk);
	kvfile_set_u64(kv, "nss.commands", atomic_load(&r->commands));
	kvfile_set_u64(kv, "nss.reordered", atomic_load(&r->reordered));
	kvfile_set_u64(kv, "nss.copy_chunks", atomic_load(&r->chunks));
	kvfile_set_u64(kv, "nss.kernels_polled", atomic_load(&r->polled));
	kvfile_set_u64(kv, "nss.kernels_by_event", atomic_load(&r->evented));
	kvfile_setf(kv, "nss.kernel_queue_us_mean", "%.3f",
		    kernels ? atomic_load(&r->queue_ns) / 1e3 / (double)kernels
			    : 0.0);
	kvfile_setf(kv, "nss.wait_cpu_s", "%.6f",
		    atomic_load(&r->wait_cpu_ns) / 1e9);
}

const struct gm_sched gm_sched_nss = {
	.name = "nss",
	.own_streams = 1,
	.run_init = nss_run_init,
	.prog_init = nss_prog_init,
	.exec = nss_exec,
	.idle = nss_idle,
	.drain = nss_drain,
	.replay_end = nss_replay_end,
	.prog_release = nss_prog_release,
	.manifest = nss_manifest,
	.run_release = nss_run_release,
	.nr_streams = nss_nr_streams,
};
