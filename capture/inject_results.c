/* SPDX-License-Identifier: MIT */
/*
 * What the program reads back, and when: device-to-host results hashed
 * at the synchronization that makes them visible (doc/bundle-format.md,
 * d2h_hash), the calls that synchronize (streams, events, the context,
 * freeing page-locked memory) and the memory the host reads and writes
 * directly (mapped and managed allocations, hostmem.h). The copies that
 * produce results are inject_copy.c's; the pending copies themselves are
 * tracking.c's.
 */
#include <cuda.h>
#include <cupti.h>
#include <stdint.h>

#include "api.h"
#include "emit.h"
#include "graph_track.h"
#include "host_resident.h"
#include "hostmem.h"
#include "inject.h"
#include "tracking.h"

const uint16_t results_at_exit_flags = GM_RF_UNSYNCED;
const uint16_t results_host_node_flags = GM_RF_HOST_NODE;

void emit_d2h(const struct gm_pending *p, void *ctx)
{
	struct gm_record r = { 0 };
	uint64_t w[GM_NR_WORDS(gm_ev_d2h_hash)];
	struct gm_ev_d2h_hash *d = (struct gm_ev_d2h_hash *)w;
	uint16_t extra = ctx ? *(const uint16_t *)ctx : 0;

	d->api = (uint64_t)p->api;
	d->dstHost = (uint64_t)(uintptr_t)p->span.base;
	d->bytes = gm_span_size(&p->span);
	d->stream = p->key;
	r.api = (uint16_t)p->api;
	r.corr = p->corr;
	r.args = w;
	r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_d2h_hash);
	if (p->overwritten) {
		/* The program never saw it: a later copy wrote there before
		 * a synchronization covered this one. */
		r.flags |= GM_RF_OVERWRITTEN;
		gm_capture_emit(GM_EV_D2H_HASH, &r);
		return;
	}
	if (extra & GM_RF_UNSYNCED) {
		gm_capture_warn(unsynced_d2h);
	}
	r.flags |= extra;
	gm_capture_hash(&r, &p->span);
	gm_capture_emit(GM_EV_D2H_HASH, &r);
}

/* The synchronization a call's exit completes (one per call is enough). */
struct deferred {
	int have;
	enum track_sync how;
	uint64_t arg;
};

static __thread struct deferred deferred;

void results_complete(enum track_sync how, uint64_t arg)
{
	deferred.have = 1;
	deferred.how = how;
	deferred.arg = arg;
}

void results_complete_now(enum track_sync how, uint64_t arg)
{
	track_pending_complete(how, arg, emit_d2h, NULL);
	hostmem_sync(how, arg);
}

void results_run_deferred(void)
{
	if (deferred.have) {
		deferred.have = 0;
		results_complete_now(deferred.how, deferred.arg);
	}
}

void d2h_result(struct gm_record *r, int api, const struct gm_span *s,
		int async, uint64_t key)
{
	gm_capture_add(d2h_bytes, gm_span_size(s));
	if (!async) {
		track_pending_overwrite(s, key);
		gm_capture_hash(r, s);
		return;
	}
	/* Into a capturing stream: a node of a graph, whose launches give
	 * the results (inject_graph_launch.c). */
	if (gtrack_capture_copy(key, s)) {
		return;
	}
	if (track_pending_add(api, r->corr, key, s, NULL)) {
		gm_capture_hash(r, s);	/* no memory: best effort now */
	}
}

void host_dst_state(struct gm_record *r, const struct gm_span *s)
{
	if (host_pages_resident(s)) {
		r->flags |= GM_RF_HOST_WARM;
	}
}

/* Allocations, aliases and frees of memory the host reads and writes
 * directly (hostmem.h): the words of every row of these replay kinds. */
static void hostmem_track(int api, const uint64_t *a)
{
	switch (gm_api_table[api].replay) {
	case GM_RK_HOST_ALLOC:
		hostmem_add(a[0], a[1], GM_HM_PINNED);
		break;
	case GM_RK_MANAGED_ALLOC:
		hostmem_add(a[0], a[1], GM_HM_MANAGED);
		break;
	case GM_RK_HOST_DEVPTR:
		hostmem_alias(a[1], a[0]);	/* pdptr, p */
		break;
	case GM_RK_FREE:
		hostmem_remove(a[0]);
		break;
	default:
		break;	/* the other calls of special NONE own no memory */
	}
}

/* The calls of no special case that the capture follows all the same. */
void sp_none(struct sp_call *c)
{
	int api = c->api;

	/* A stream waiting for an event: its syncs now cover the event's
	 * copies. Keyed by id, not a GM_SP_ kind: the special is part of
	 * the api-table signature of committed bundles. */
	if (c->ok && (api == GM_API_cuStreamWaitEvent ||
		      api == GM_API_cuStreamWaitEvent_ptsz)) {
		track_stream_wait(c->key, c->a[1]);
		gtrack_stream_wait(c->key, c->a[1]);
	}
	if (c->ok && (api == GM_API_cuGraphDestroy ||
		      api == GM_API_cuGraphExecDestroy)) {
		gtrack_forget(c->a[0]);
	}
	if (c->ok) {
		hostmem_track(api, c->a);
	}
}

void sp_stream_create(struct sp_call *c)
{
	if (c->ok) {
		/* phStream is the first word, the flags the second. */
		track_stream_flags(c->a[0], (unsigned)c->a[1]);
	}
}

void sp_stream_sync(struct sp_call *c)
{
	if (c->ok) {
		results_complete(c->key == 0 ? TRACK_SYNC_LEGACY
					     : TRACK_SYNC_STREAM, c->key);
	}
}

void sp_ctx_sync(struct sp_call *c)
{
	if (c->ok) {
		results_complete(TRACK_SYNC_ALL, 0);
	}
}

void sp_event_record(struct sp_call *c)
{
	const cuEventRecord_params *p = c->params;

	if (c->ok) {
		track_event_record((uintptr_t)p->hEvent, c->key);
		gtrack_event_record((uintptr_t)p->hEvent, c->key);
	}
}

void sp_event_sync(struct sp_call *c)
{
	if (c->ok) {
		results_complete(TRACK_SYNC_EVENT, c->a[0]);
	}
}

void sp_free_host(struct sp_call *c)
{
	/* Freeing page-locked memory synchronizes the device. */
	if (!c->exit) {
		results_complete_now(TRACK_SYNC_ALL, 0);
	} else if (c->ok) {
		hostmem_remove(c->a[0]);
	}
}

void sp_mem_location(struct sp_call *c)
{
	const struct gm_api_desc *d = &gm_api_table[c->api];
	uint64_t *a = c->a;
	/* cuMemPrefetchAsync_v2 and cuMemAdvise_v2 both name it
	 * "location"; its two words end the row. */
	const CUmemLocation *loc = c->api == GM_API_cuMemAdvise_v2 ?
		&((const cuMemAdvise_v2_params *)c->params)->location :
		&((const cuMemPrefetchAsync_v2_params *)c->params)->location;

	a[d->nr_args - 2] = (uint64_t)loc->type;
	a[d->nr_args - 1] = (uint64_t)(int64_t)loc->id;
	/* A prefetch to the device follows the host's writes: the replay
	 * writes the content before it, not after it (where the kernel
	 * would fault the pages back). */
	if (!c->exit && c->api != GM_API_cuMemAdvise_v2 &&
	    loc->type == CU_MEM_LOCATION_TYPE_DEVICE) {
		hostmem_launch(&a[0], sizeof(a[0]), c->key, c->r->corr);
	}
}
