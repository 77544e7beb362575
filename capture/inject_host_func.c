/* SPDX-License-Identifier: MIT */
/*
 * Host functions the program enqueues (cuLaunchHostFunc) and stream
 * callbacks (cuStreamAddCallback), wrapped at the call's entry: CUDA runs
 * the trampoline, which hashes the results of the copies before it in
 * its stream (the program may read them from there on), runs the
 * program's own function with its own argument and then records how long
 * it took (a host_func event naming the call). The wrapper is freed by
 * the trampoline; one that never runs (the program exits first) stays
 * listed to the process's end, and the call is in the trace all the same
 * (reconstruct warns that its duration is unknown). A host function into
 * a capturing stream becomes a graph's host node, wrapped by graph_host.c.
 */
#include <cuda.h>
#include <cupti.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "api.h"
#include "emit.h"
#include "graph_host.h"
#include "graph_track.h"
#include "inject.h"
#include "tracking.h"

struct host_wrap {
	int callback;			/* cuStreamAddCallback's signature */
	CUhostFn fn;
	CUstreamCallback cb;
	void *user;
	uint32_t corr;
	uint16_t api;
	uint64_t key, position;		/* its place in its stream's work */
	struct host_wrap *prev, *next;	/* in host_funcs.pending */
};

/*
 * The wrappers whose function has not run: kept reachable (a function
 * still pending when the program exits never runs, and its wrapper is
 * not a leak), each unlinked and freed by its trampoline.
 */
static struct {
	pthread_mutex_t lock;
	struct host_wrap *pending;
} host_funcs = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void host_pending_add(struct host_wrap *w)
{
	pthread_mutex_lock(&host_funcs.lock);
	w->prev = NULL;
	w->next = host_funcs.pending;
	if (w->next) {
		w->next->prev = w;
	}
	host_funcs.pending = w;
	pthread_mutex_unlock(&host_funcs.lock);
}

static void host_pending_del(struct host_wrap *w)
{
	pthread_mutex_lock(&host_funcs.lock);
	if (w->prev) {
		w->prev->next = w->next;
	} else {
		host_funcs.pending = w->next;
	}
	if (w->next) {
		w->next->prev = w->prev;
	}
	pthread_mutex_unlock(&host_funcs.lock);
}

/*
 * When a host function starts, the work before it in its stream is done:
 * the program may read (and reuse) the results of the copies before it
 * from there on, so they are hashed now, as at any synchronization that
 * covers them (doc/bundle-format.md, d2h_hash).
 */
static void host_wrap_start(const struct host_wrap *w)
{
	if (gm_capture_ready()) {
		track_pending_complete_at(w->key, w->position, emit_d2h, NULL);
	}
}

static void host_wrap_done(struct host_wrap *w, uint64_t start, uint64_t end)
{
	uint64_t words[GM_NR_WORDS(gm_ev_host_func)];
	struct gm_ev_host_func *e = (struct gm_ev_host_func *)words;
	struct gm_record r = { 0 };

	/* Under a capture only; one that runs during teardown is counted
	 * like any late event (doc/gpumix-capture.md). */
	if (gm_capture_ready()) {
		e->start = start;
		e->end = end;
		r.api = w->api;
		r.corr = w->corr;
		r.args = words;
		r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_host_func);
		gm_capture_emit(GM_EV_HOST_FUNC, &r);
	}
	host_pending_del(w);
	free(w);
}

static uint64_t host_now(void)
{
	uint64_t ns = 0;

	cuptiGetTimestamp(&ns);
	return ns;
}

static void CUDA_CB host_fn_trampoline(void *arg)
{
	struct host_wrap *w = arg;
	uint64_t start;

	host_wrap_start(w);
	start = host_now();
	w->fn(w->user);
	host_wrap_done(w, start, host_now());
}

static void CUDA_CB host_cb_trampoline(CUstream s, CUresult status, void *arg)
{
	struct host_wrap *w = arg;
	uint64_t start;

	host_wrap_start(w);
	start = host_now();
	w->cb(s, status, w->user);
	host_wrap_done(w, start, host_now());
}

/* cuStreamAddCallback (a callback cannot be captured into a graph). */
static int w_is_callback(int api)
{
	return gm_api_table[api].base == GM_API_cuStreamAddCallback;
}

/*
 * Into a capturing stream (@p's), a host function becomes a graph's host
 * node, which may run once per launch: wrapped as one (graph_host.h). The
 * legacy stream is never captured, and querying it during a capture
 * would break it. Returns 1 when the call is no plain enqueue of work (a
 * capture, or a stream the driver cannot tell about): not wrapped here.
 */
static int host_wrap_captured(int api, cuLaunchHostFunc_params *p,
			      uint64_t key)
{
	CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;

	if ((uintptr_t)p->hStream <= 1 || !inject.cu.stream_is_capturing) {
		return 0;
	}
	if (inject.cu.stream_is_capturing(p->hStream, &cs) != CUDA_SUCCESS) {
		return 1;
	}
	if (cs == CU_STREAM_CAPTURE_STATUS_ACTIVE && !w_is_callback(api)) {
		struct gnode_wrap *g = gnode_wrap_new(p->fn, p->userData,
						      &p->fn, &p->userData);
		if (g) {
			gtrack_capture_host(key, g);
		}
		return 1;
	}
	return cs != CU_STREAM_CAPTURE_STATUS_NONE;
}

/*
 * At the entry of a host-function call: point its parameters at a
 * trampoline (CUDA reads them after the entry callback). Both calls put
 * the stream, the function and its argument first. Without memory the
 * call goes on unwrapped: the program is not affected, the duration is
 * not known.
 */
static void host_wrap(int api, const CUpti_CallbackData *cb, uint64_t key)
{
	cuLaunchHostFunc_params *p = (cuLaunchHostFunc_params *)cb->functionParams;
	struct host_wrap *w;

	_Static_assert(offsetof(cuLaunchHostFunc_params, fn) ==
			       offsetof(cuStreamAddCallback_params, callback) &&
		       offsetof(cuLaunchHostFunc_params, userData) ==
			       offsetof(cuStreamAddCallback_params, userData),
		       "host functions: fn and userData at the same places");
	if (!p || !p->fn || host_wrap_captured(api, p, key) ||
	    !(w = malloc(sizeof(*w)))) {
		return;
	}
	w->callback = w_is_callback(api);
	w->user = p->userData;
	w->corr = cb->correlationId;
	w->api = (uint16_t)api;
	w->key = key;
	w->position = track_position();
	/* The copies before it are seen by the program when it starts,
	 * before later copies on its stream write. */
	track_pending_watch(key, w->position);
	host_pending_add(w);
	if (w->callback) {
		cuStreamAddCallback_params *q = (void *)p;
		w->fn = NULL;
		w->cb = q->callback;
		q->callback = host_cb_trampoline;
	} else {
		w->cb = NULL;
		w->fn = p->fn;
		p->fn = host_fn_trampoline;
	}
	p->userData = w;
}

void sp_host_func(struct sp_call *c)
{
	if (!c->exit) {
		host_wrap(c->api, c->cb, c->key);
	}
}
