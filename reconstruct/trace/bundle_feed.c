/* SPDX-License-Identifier: MIT */
/*
 * From a bundle's events to the replay model (see bundle_feed.h). Each
 * thread's call in progress keeps what its entry carried (argument bytes,
 * source data, the module image) until its exit, where the call becomes a
 * model call. Handles that a context reset destroyed are remembered so
 * that the program's later frees and unloads of them are harmless. This
 * file holds the set-up, the entries, the table of each replay kind's
 * handler (feed_memory.c, feed_code.c, feed_graph.c; feed_util.c: the
 * helpers they share) and the events other than calls.
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

/* ---- set-up ---- */

struct bundle_feed *bundle_feed_new(struct model *m, struct model_prog *p,
				    struct trace_reader *r)
{
	struct bundle_feed *f = gm_xcalloc(1, sizeof(*f));

	f->m = m;
	f->p = p;
	f->r = r;
	f->blob_dir = gm_path_join(trace_reader_dir(r), "blobs");
	f->host_time = trace_reader_host_time(r);
	strbuf_init(&f->tmp, 0);
	return f;
}

void bundle_feed_free(struct bundle_feed *f)
{
	if (!f) {
		return;
	}
	for (size_t i = 0; i < f->nr_threads; i++) {
		strbuf_release(&f->threads[i].data);
		strbuf_release(&f->threads[i].str);
		free(f->threads[i].module_path);
	}
	free(f->threads);
	for (int k = 0; k < NR_LIVE; k++) {
		handle_map_release(&f->live[k].live);
		handle_map_release(&f->live[k].dead);
	}
	handle_map_release(&f->skipped_textures);
	handle_map_release(&f->module_alias);
	free(f->alias_library);
	handle_map_release(&f->layout_map);
	for (size_t i = 0; i < f->nr_layouts; i++) {
		free(f->layouts[i].offsets);
		free(f->layouts[i].sizes);
	}
	free(f->layouts);
	handle_map_release(&f->pending_d2h);
	handle_map_release(&f->graph_corr);
	free(f->d2h_event);
	handle_map_release(&f->done_d2h);
	handle_map_release(&f->host_wait);
	free(f->host_event);
	handle_map_release(&f->host_early);
	free(f->early_ns);
	gm_strmap_clear(&f->checked);
	strbuf_release(&f->tmp);
	free(f->blob_dir);
	free(f);
}

void bundle_feed_stats(const struct bundle_feed *f,
		       struct bundle_feed_stats *st)
{
	*st = f->st;
	st->threads = 0;
	for (size_t i = 0; i < f->nr_threads; i++) {
		st->threads += f->threads[i].nr_calls > 0;
	}
}


/* ---- entries ---- */

static int on_enter(struct bundle_feed *f, const struct gm_event *ev)
{
	struct pending *t = feed_thread_of(f, ev->tid);

	if (t->active) {
		return gm_error(EVF "a call starts on thread %" PRIu32 " while "
				"event %" PRIu64 " (%s) has not returned",
				ev->index, gm_event_name(ev), ev->tid, t->index,
				gm_api_table[t->api].name);
	}
	t->active = 1;
	t->index = ev->index;
	t->host_in = ev->host_ns;
	t->api = ev->api;
	t->corr = ev->corr;
	t->flags = ev->flags;
	t->blob = ev->blob;
	t->blob_size = ev->blob_size;
	t->have_late_hash = 0;
	strbuf_reset(&t->data);
	if (ev->data_len) {
		strbuf_add(&t->data, ev->data, ev->data_len);
	}
	strbuf_reset(&t->str);
	strbuf_addstr(&t->str, ev->str);
	free(t->module_path);
	t->module_path = NULL;
	if (ev->flags & GM_RF_MODULE) {
		if (feed_first_time(f, ev->blob)) {
			strbuf_reset(&f->tmp);
			if (trace_reader_module(f->r, ev, &f->tmp) < 0) {
				return gm_error(EVF "cannot read its module "
						"image", ev->index,
						gm_event_name(ev));
			}
		}
		t->module_path = trace_reader_module_path(f->r, ev);
		if (!t->module_path) {
			return -1;
		}
	} else if ((ev->flags & GM_RF_BLOB) && feed_first_time(f, ev->blob)) {
		strbuf_reset(&f->tmp);
		if (trace_reader_payload(f->r, ev, &f->tmp) < 0) {
			return -1;
		}
	}
	if (f->tmp.alloc > (1u << 24)) {
		strbuf_release(&f->tmp);	/* do not keep a big blob */
	}
	return 0;
}


static int (*const handlers[GM_RK_COUNT])(const struct call *) = {
	[GM_RK_NOOP] = feed_do_noop,
	[GM_RK_SKIP_FLAGS] = feed_do_skip,
	[GM_RK_SKIP_LIMIT] = feed_do_skip,
	[GM_RK_SKIP_CACHE] = feed_do_skip,
	[GM_RK_CTX_RESET] = feed_do_ctx_reset,
	[GM_RK_CTX_SYNC] = feed_do_ctx_sync,
	[GM_RK_ALLOC] = feed_do_alloc,
	[GM_RK_ALLOC_PITCH] = feed_do_alloc_pitch,
	[GM_RK_FREE] = feed_do_free,
	[GM_RK_HOST_ALLOC] = feed_do_alloc,
	[GM_RK_HOST_FREE] = feed_do_free,
	[GM_RK_H2D] = feed_do_copy,
	[GM_RK_H2D_ASYNC] = feed_do_copy,
	[GM_RK_D2H] = feed_do_copy,
	[GM_RK_D2H_ASYNC] = feed_do_copy,
	[GM_RK_D2D] = feed_do_copy,
	[GM_RK_D2D_ASYNC] = feed_do_copy,
	[GM_RK_COPY] = feed_do_copy,
	[GM_RK_COPY_ASYNC] = feed_do_copy,
	[GM_RK_MEMSET] = feed_do_memset,
	[GM_RK_MEMSET_2D] = feed_do_memset_2d,
	[GM_RK_LAUNCH] = feed_do_launch,
	[GM_RK_MODULE_LOAD] = feed_do_module_load,
	[GM_RK_MODULE_UNLOAD] = feed_do_module_unload,
	[GM_RK_LIBRARY_MODULE] = feed_do_library_module,
	[GM_RK_GET_KERNEL] = feed_do_get_kernel,
	[GM_RK_KERNEL_FUNCTION] = feed_do_kernel_function,
	[GM_RK_GET_GLOBAL] = feed_do_get_global,
	[GM_RK_FUNC_ATTR] = feed_do_func_attr,
	[GM_RK_KERNEL_ATTR] = feed_do_kernel_attr,
	[GM_RK_STREAM_CREATE] = feed_do_stream_create,
	[GM_RK_STREAM_DESTROY] = feed_do_stream_destroy,
	[GM_RK_STREAM_WAIT] = feed_do_stream_wait,
	[GM_RK_STREAM_SYNC] = feed_do_stream_sync,
	[GM_RK_EVENT_CREATE] = feed_do_event_create,
	[GM_RK_EVENT_DESTROY] = feed_do_event_destroy,
	[GM_RK_EVENT_RECORD] = feed_do_event_record,
	[GM_RK_EVENT_SYNC] = feed_do_event_sync,
	[GM_RK_TEXOBJ_CREATE] = feed_do_texobj_create,
	[GM_RK_TEXOBJ_DESTROY] = feed_do_texobj_destroy,
	[GM_RK_HOST_DEVPTR] = feed_do_host_devptr,
	[GM_RK_MANAGED_ALLOC] = feed_do_managed_alloc,
	[GM_RK_PREFETCH] = feed_do_prefetch,
	[GM_RK_COPY_2D] = feed_do_copy_2d,
	[GM_RK_COPY_3D] = feed_do_copy_3d,
	[GM_RK_COPY_ARRAY] = feed_do_copy_array,
	[GM_RK_ARRAY_CREATE] = feed_do_array_create,
	[GM_RK_ARRAY_DESTROY] = feed_do_array_destroy,
	[GM_RK_ATTACH_MEM] = feed_do_attach_mem,
	[GM_RK_ADVISE] = feed_do_advise,
	[GM_RK_CAPTURE_BEGIN] = feed_do_capture_begin,
	[GM_RK_CAPTURE_END] = feed_do_capture_end,
	[GM_RK_CAPTURE_TO_GRAPH] = feed_do_capture_to_graph,
	[GM_RK_GRAPH_CREATE] = feed_do_graph_create,
	[GM_RK_GRAPH_NODE] = feed_do_graph_node,
	[GM_RK_GRAPH_DEPS] = feed_do_graph_deps,
	[GM_RK_GRAPH_INSTANTIATE] = feed_do_graph_instantiate,
	[GM_RK_GRAPH_LAUNCH] = feed_do_graph_launch,
	[GM_RK_GRAPH_UPDATE] = feed_do_graph_update,
	[GM_RK_GRAPH_CHILD_SET] = feed_do_graph_child_set,
	[GM_RK_GRAPH_KERNEL_SET] = feed_do_graph_kernel_set,
	[GM_RK_GRAPH_CLONE] = feed_do_graph_clone,
	[GM_RK_GRAPH_DESTROY] = feed_do_graph_destroy,
	[GM_RK_GRAPH_EXEC_DESTROY] = feed_do_graph_exec_destroy,
	[GM_RK_HOST_FUNC] = feed_do_host_func,
	[GM_RK_SKIP_POOL] = feed_do_skip,
	[GM_RK_VMM_RESERVE] = feed_do_vmm_reserve,
	[GM_RK_VMM_FREE] = feed_do_vmm_free,
	[GM_RK_VMM_CREATE] = feed_do_vmm_create,
	[GM_RK_VMM_RELEASE] = feed_do_vmm_release,
	[GM_RK_VMM_MAP] = feed_do_vmm_map,
	[GM_RK_VMM_UNMAP] = feed_do_vmm_unmap,
};

int bundle_feed_handles(int api)
{
	return api >= 0 && api < GM_API_COUNT &&
	       handlers[gm_api_table[api].replay] != NULL;
}

/* The call of entry @in returned with exit @x: its model call. */
static int on_call(struct bundle_feed *f, const struct pending *in,
		   const struct gm_event *x)
{
	struct call c = { f, in, x, gm_api_table[x->api].name, in->index };

	f->st.calls++;
	if (x->status != 0) {
		feed_note(&f->failed[x->api], c.ev, x->status);
		f->st.failed++;
		if (!gm_cu_result_tolerated(x->status) && !f->st.errors++) {
			f->st.first_error = c.ev;
			f->st.first_error_api = x->api;
			f->st.first_error_status = x->status;
		}
		/* An invalidated capture ends too: the stream no longer
		 * captures; the replay's capture makes a graph no one uses. */
		if (gm_api_table[x->api].replay == GM_RK_CAPTURE_END) {
			return model_capture_end(f->p, c.ev, c.api,
						 feed_stream_of(x, x->args[0]), 0);
		}
		return 0;
	}
	if (!bundle_feed_handles(x->api)) {
		feed_unsupported(f, c.ev, c.api);
		return 0;
	}
	f->st.replayed++;
	return handlers[gm_api_table[x->api].replay](&c);
}

static int on_return(struct bundle_feed *f, const struct gm_event *x)
{
	struct pending *t = feed_thread_of(f, x->tid);
	int ret;

	if (!t->active || t->api != x->api || t->corr != x->corr) {
		return gm_error(EVF "an exit without its entry", x->index,
				gm_event_name(x));
	}
	t->nr_calls++;
	if (f->host_time) {
		model_set_host_time(f->p, x->tid, t->host_in, x->host_ns);
	}
	ret = on_call(f, t, x);
	t->active = 0;
	if (ret < 0 && !strstr(gm_error_message(), "event ")) {
		/* model errors without a position get one */
		return gm_error(EVF "cannot replay this call", t->index,
				gm_api_table[x->api].name);
	}
	return ret;
}

/* ---- other kinds ---- */

static int on_d2h_hash(struct bundle_feed *f, const struct gm_event *ev)
{
	char hex[GM_HASH_HEX_LEN + 1];
	uint32_t i;

	if (handle_map_del(&f->done_d2h, ev->corr)) {
		return 0;
	}
	if (handle_map_get(&f->graph_corr, ev->corr, &i)) {
		const struct gm_ev_d2h_hash *d = GM_EVENT_AS(ev, d2h_hash);
		if (ev->flags & GM_RF_OVERWRITTEN) {
			return model_graph_result_hash(f->p, ev->index,
						       f->d2h_event[i],
						       d->dstHost, d->bytes,
						       NULL, 0);
		}
		if (ev->flags & GM_RF_UNSYNCED) {
			model_add_warning(f->p, f->d2h_event[i], "the program "
					  "never synchronized with a result of "
					  "this graph feed_launch: it is not "
					  "verified");
			return 0;
		}
		if (!(ev->flags & GM_RF_HASH)) {
			return gm_error("event %" PRIu64 " (d2h_hash): no hash "
					"recorded", ev->index);
		}
		gm_hash_hex(ev->blob, hex);
		return model_graph_result_hash(f->p, ev->index, f->d2h_event[i],
					       d->dstHost, d->bytes, hex,
					       (ev->flags & GM_RF_HOST_NODE) != 0);
	}
	if (!handle_map_get(&f->pending_d2h, ev->corr, &i)) {
		/* The copy has not returned yet (another thread synced). */
		for (size_t k = 0; k < f->nr_threads; k++) {
			struct pending *t = &f->threads[k];
			if (t->active && t->corr == ev->corr &&
			    !(ev->flags & (GM_RF_UNSYNCED |
					   GM_RF_OVERWRITTEN))) {
				t->have_late_hash = 1;
				t->late_hash = ev->blob;
				return 0;
			}
		}
		/* A copy that was skipped (failed, or of zero bytes). */
		return 0;
	}
	handle_map_del(&f->pending_d2h, ev->corr);
	if (ev->flags & GM_RF_OVERWRITTEN) {
		return model_set_result_overwritten(f->p, ev->index,
						    f->d2h_event[i]);
	}
	if (ev->flags & GM_RF_UNSYNCED) {
		model_add_warning(f->p, f->d2h_event[i], "the program never "
				  "synchronized with this asynchronous result: "
				  "it is not verified");
		return 0;
	}
	if (!(ev->flags & GM_RF_HASH)) {
		return gm_error("event %" PRIu64 " (d2h_hash): no hash recorded",
				ev->index);
	}
	gm_hash_hex(ev->blob, hex);
	return model_set_result_hash(f->p, ev->index, f->d2h_event[i], hex);
}

/* A wrapped host function ran: its duration, for its call's operation. */
static int on_host_func(struct bundle_feed *f, const struct gm_event *ev)
{
	const struct gm_ev_host_func *h = GM_EVENT_AS(ev, host_func);
	uint64_t ns = h->end > h->start ? h->end - h->start : 0;
	uint32_t i;

	if (handle_map_get(&f->host_wait, ev->corr, &i)) {
		uint64_t call_ev = f->host_event[i];
		handle_map_del(&f->host_wait, ev->corr);
		f->host_event[i] = UINT64_MAX;	/* timed */
		return model_set_host_func_ns(f->p, ev->index, call_ev, ns);
	}
	GM_ALLOC_GROW(f->early_ns, f->nr_early + 1, f->alloc_early);
	handle_map_put(&f->host_early, ev->corr, (uint32_t)f->nr_early);
	f->early_ns[f->nr_early++] = ns;
	return 0;
}

/*
 * The content of mapped or managed memory: a snapshot becomes a host
 * write before the feed_launch it precedes, a result a host read after the
 * synchronization it follows.
 */
static int on_hostmem(struct bundle_feed *f, const struct gm_event *ev)
{
	const struct gm_ev_hostmem *h = GM_EVENT_AS(ev, hostmem);
	char hex[GM_HASH_HEX_LEN + 1];

	/* The program's own access, at the moment of its event: inside the
	 * entry of the feed_launch it precedes, or the return of the
	 * synchronization it follows. */
	if (f->host_time) {
		model_set_host_time(f->p, ev->tid, ev->host_ns, ev->host_ns);
	}

	if (ev->flags & GM_RF_FAILED) {
		return gm_error("event %" PRIu64 " (hostmem): the content of "
				"0x%" PRIx64 " could not be stored during "
				"capture", ev->index, h->addr);
	}
	gm_hash_hex(ev->blob, hex);
	if (h->role == GM_HM_SNAPSHOT) {
		uint32_t id;
		char *path;
		int ret;

		if (!(ev->flags & GM_RF_BLOB) || ev->blob_size != h->bytes) {
			return gm_error("event %" PRIu64 " (hostmem): a snapshot "
					"of %" PRIu64 " bytes without its "
					"content", ev->index, h->bytes);
		}
		if (feed_first_time(f, ev->blob)) {
			strbuf_reset(&f->tmp);
			if (trace_reader_payload(f->r, ev, &f->tmp) < 0) {
				return -1;
			}
			if (f->tmp.alloc > (1u << 24)) {
				strbuf_release(&f->tmp);
			}
		}
		path = gm_path_join(f->blob_dir, hex);
		ret = model_add_blob(f->m, hex, h->bytes, path, &id);
		free(path);
		return ret < 0 ? -1 : model_add_host_fill(f->p, ev->index,
							   h->addr, h->bytes, id);
	}
	if (h->role == GM_HM_RESULT && (ev->flags & GM_RF_HASH)) {
		return model_add_host_check(f->p, ev->index, h->addr, h->bytes,
					    hex);
	}
	return gm_error("event %" PRIu64 " (hostmem): unknown role %" PRIu64,
			ev->index, h->role);
}

/*
 * A handle first seen at its feed_launch (a library such as cuFFT got it
 * through an untraced path): its layout, and with its name and module
 * the kernel itself, as if cuModuleGetFunction had named it.
 */
static int on_layout(struct bundle_feed *f, const struct gm_event *ev)
{
	const struct gm_ev_layout *l = GM_EVENT_AS(ev, layout);
	struct layout *lay;
	uint32_t i;

	if (handle_map_get(&f->layout_map, l->handle, &i)) {
		lay = &f->layouts[i];
		free(lay->offsets);
		free(lay->sizes);
	} else {
		GM_ALLOC_GROW(f->layouts, f->nr_layouts + 1, f->alloc_layouts);
		i = (uint32_t)f->nr_layouts++;
		lay = &f->layouts[i];
		handle_map_put(&f->layout_map, l->handle, i);
	}
	feed_split_layout(ev->data, ev->data_len, &lay->nr, &lay->offsets,
		     &lay->sizes);
	if (!l->module || !ev->str[0]) {
		return 0;	/* the feed_launch will say it is unknown */
	}
	return model_add_kernel(f->p, ev->index, l->handle,
				feed_module_of(f, l->module), ev->str, lay->nr,
				lay->offsets, lay->sizes);
}

/* Calls of one process only (see bundle_feed.h). */
static int check_pid(struct bundle_feed *f, const struct gm_event *ev)
{
	if (!f->have_pid) {
		f->pid = ev->pid;
		f->have_pid = 1;
		return 0;
	}
	if (ev->pid == f->pid) {
		return 0;
	}
	gm_error(EVF "process %" PRIu32 " makes CUDA calls too, after "
		 "process %" PRIu32 "; gpumix reconstructs one process per "
		 "bundle", ev->index, gm_event_name(ev), ev->pid, f->pid);
	gm_error_hint("capture a program whose CUDA work is done by one "
		      "process (run a child's CUDA work as a program of its "
		      "own)");
	return -1;
}

int bundle_feed_event(struct bundle_feed *f, const struct gm_event *ev)
{
	f->st.events++;
	switch (ev->kind) {
	case GM_EV_ENTER:
		if (check_pid(f, ev) < 0) {
			return -1;
		}
		return on_enter(f, ev);
	case GM_EV_EXIT:
		if (check_pid(f, ev) < 0) {
			return -1;
		}
		return on_return(f, ev);
	case GM_EV_UNSUPPORTED:
		if (check_pid(f, ev) < 0) {
			return -1;
		}
		feed_unsupported(f, ev->index, ev->str[0] ? ev->str : "?");
		return 0;
	case GM_EV_D2H_HASH:
		if (check_pid(f, ev) < 0) {
			return -1;
		}
		return on_d2h_hash(f, ev);
	case GM_EV_LAYOUT:
		return on_layout(f, ev);
	case GM_EV_HOSTMEM:
		if (check_pid(f, ev) < 0) {
			return -1;
		}
		return on_hostmem(f, ev);
	case GM_EV_HOST_FUNC:
		if (check_pid(f, ev) < 0) {
			return -1;
		}
		return on_host_func(f, ev);
	/* The runtime calls around driver calls, CUPTI's GPU records, the
	 * process and device: nothing to replay. */
	case GM_EV_RT_ENTER:
	case GM_EV_RT_EXIT:
	case GM_EV_ACT_KERNEL:
	case GM_EV_ACT_MEMCPY:
	case GM_EV_ACT_MEMSET:
	case GM_EV_PROCESS:
	case GM_EV_DEVICE:
		return 0;
	case GM_EV_COUNT:
		break;
	}
	return gm_error("event %" PRIu64 " has an unknown kind %d", ev->index,
			(int)ev->kind);
}

static const char *skip_reason(int api)
{
	switch (gm_api_table[api].replay) {
	case GM_RK_SKIP_LIMIT:
		return "context limits are not replayed (the replay keeps the "
		       "defaults)";
	case GM_RK_SKIP_FLAGS:
		return "context flags are not replayed (the replay keeps the "
		       "defaults)";
	case GM_RK_SKIP_POOL:
		return "memory pool settings are not applied: the replay's "
		       "stream-ordered allocations come from its bulk allocator, "
		       "which keeps freed memory for reuse (as a pool whose "
		       "release threshold is unlimited)";
	default:
		return "cache and shared memory preferences are not replayed";
	}
}

int bundle_feed_finish(struct bundle_feed *f)
{
	for (size_t i = 0; i < f->nr_threads; i++) {
		struct pending *t = &f->threads[i];
		if (t->active) {
			model_add_warning(f->p, t->index, "%s never returned "
					  "(thread %" PRIu32 "): not replayed",
					  gm_api_table[t->api].name, t->tid);
			t->active = 0;
		}
	}
	{
		uint64_t untimed = 0, first = 0;
		for (size_t i = 0; i < f->nr_host; i++) {
			if (f->host_event[i] != UINT64_MAX && !untimed++) {
				first = f->host_event[i];
			}
		}
		if (untimed) {
			model_add_warning(f->p, first, "%" PRIu64 " host "
					  "function%s never ran during the "
					  "capture (the program exited first, or "
					  "it was captured into a graph): "
					  "replayed in place, duration unknown",
					  untimed, untimed == 1 ? "" : "s");
		}
	}
	for (int a = 0; a < GM_API_COUNT; a++) {
		const struct api_note *n = &f->skipped[a];
		if (n->count) {
			model_add_warning(f->p, n->first, "%s (%" PRIu64 " call%s): "
					  "%s", gm_api_table[a].name, n->count,
					  n->count == 1 ? "" : "s",
					  skip_reason(a));
		}
	}
	for (int a = 0; a < GM_API_COUNT; a++) {
		const struct api_note *n = &f->failed[a];
		if (n->count) {
			model_add_warning(f->p, n->first, "%s (%" PRIu64 " call%s) "
					  "returned an error (the first: %" PRId32
					  ") and is not replayed",
					  gm_api_table[a].name, n->count,
					  n->count == 1 ? "" : "s", n->status);
		}
	}
	return 0;
}
