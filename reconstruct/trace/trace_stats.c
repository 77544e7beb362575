/* SPDX-License-Identifier: MIT */
/*
 * Bundle summary (see trace_stats.h). Kernels are known by handle from the
 * exits of cuLibraryGetKernel/cuModuleGetFunction/cuKernelGetFunction and
 * from layout events; launches count against the handle's name.
 */
#include "trace_stats.h"

#include "cu_result.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* Handle -> kernel index (small linear map; programs have few kernels). */
struct handle_map {
	uint64_t *handles;
	size_t *index;
	size_t nr, alloc;
};

void trace_stats_init(struct trace_stats *st)
{
	memset(st, 0, sizeof(*st));
}

void trace_stats_release(struct trace_stats *st)
{
	for (size_t i = 0; i < st->nr_kernels; i++) {
		free(st->kernels[i].name);
		free(st->kernels[i].layout);
	}
	for (size_t i = 0; i < st->nr_unsupported; i++) {
		free(st->unsupported[i].name);
	}
	free(st->kernels);
	free(st->threads);
	free(st->unsupported);
	free(st->device);
	memset(st, 0, sizeof(*st));
}

uint64_t trace_stats_thread_events(const struct trace_stats *st, uint32_t pid,
				   uint32_t tid)
{
	for (size_t i = 0; i < st->nr_threads; i++) {
		if (st->threads[i].pid == pid && st->threads[i].tid == tid) {
			return st->threads[i].events;
		}
	}
	return 0;
}

void trace_stats_count_thread(struct trace_stats *st, uint32_t pid,
			      uint32_t tid, size_t *last)
{
	if (*last < st->nr_threads && st->threads[*last].pid == pid &&
	    st->threads[*last].tid == tid) {
		st->threads[*last].events++;
		return;
	}
	for (size_t i = 0; i < st->nr_threads; i++) {
		if (st->threads[i].pid == pid && st->threads[i].tid == tid) {
			st->threads[i].events++;
			*last = i;
			return;
		}
	}
	GM_ALLOC_GROW(st->threads, st->nr_threads + 1, st->alloc_threads);
	st->threads[st->nr_threads].pid = pid;
	st->threads[st->nr_threads].tid = tid;
	st->threads[st->nr_threads].events = 1;
	*last = st->nr_threads++;
}

static size_t kernel_by_name(struct trace_stats *st, const char *name)
{
	for (size_t i = 0; i < st->nr_kernels; i++) {
		if (!strcmp(st->kernels[i].name, name)) {
			return i;
		}
	}
	GM_ALLOC_GROW(st->kernels, st->nr_kernels + 1, st->alloc_kernels);
	memset(&st->kernels[st->nr_kernels], 0, sizeof(st->kernels[0]));
	st->kernels[st->nr_kernels].name = gm_xstrdup(name);
	st->kernels[st->nr_kernels].nparams = -1;
	return st->nr_kernels++;
}

static void map_handle(struct handle_map *m, uint64_t h, size_t k)
{
	for (size_t i = 0; i < m->nr; i++) {
		if (m->handles[i] == h) {
			m->index[i] = k;
			return;
		}
	}
	if (m->nr == m->alloc) {
		m->alloc = m->alloc ? m->alloc * 2 : 64;
		m->handles = gm_xrealloc(m->handles, m->alloc * sizeof(uint64_t));
		m->index = gm_xrealloc(m->index, m->alloc * sizeof(size_t));
	}
	m->handles[m->nr] = h;
	m->index[m->nr++] = k;
}

static long lookup_handle(const struct handle_map *m, uint64_t h)
{
	for (size_t i = m->nr; i-- > 0;) {
		if (m->handles[i] == h) {
			return (long)m->index[i];
		}
	}
	return -1;
}

static void set_layout(struct trace_kernel_stat *k, const uint8_t *data,
		       size_t len)
{
	struct strbuf sb = STRBUF_INIT;
	uint32_t n = (uint32_t)(len / 8), bytes = 0;

	for (uint32_t i = 0; i < n; i++) {
		uint32_t off, size;
		memcpy(&off, data + 8 * i, 4);
		memcpy(&size, data + 8 * i + 4, 4);
		strbuf_addf(&sb, "%s%u:%u", i ? "," : "", off, size);
		if (off + size > bytes) {
			bytes = off + size;
		}
	}
	free(k->layout);
	k->layout = strbuf_detach(&sb, NULL);
	k->nparams = (int)n;
	k->param_bytes = bytes;
}

static const char *call_name(int api)
{
	return api >= 0 && api < GM_API_COUNT ? gm_api_table[api].name
					      : "(unknown call)";
}

void trace_failed_call_words(const struct trace_failed_call *c,
			     struct strbuf *sb)
{
	strbuf_addf(sb, "event %" PRIu64 " (%s) returned %" PRId32 " %s",
		    c->index, call_name(c->api), c->status,
		    gm_cu_result_name(c->status));
}

void trace_failed_call_field(const struct trace_failed_call *c,
			     struct strbuf *sb)
{
	strbuf_addf(sb, "%" PRIu64 " %s %" PRId32 " %s", c->index,
		    call_name(c->api), c->status, gm_cu_result_name(c->status));
}

static void add_unsupported(struct trace_stats *st, const char *name,
			    uint64_t index)
{
	for (size_t i = 0; i < st->nr_unsupported; i++) {
		if (!strcmp(st->unsupported[i].name, name)) {
			st->unsupported[i].count++;
			return;
		}
	}
	GM_ALLOC_GROW(st->unsupported, st->nr_unsupported + 1,
		      st->alloc_unsupported);
	st->unsupported[st->nr_unsupported].name = gm_xstrdup(name);
	st->unsupported[st->nr_unsupported].first = index;
	st->unsupported[st->nr_unsupported++].count = 1;
}

/* CU_MEMORYTYPE_HOST is 1 in cuda.h. */
#define MEMTYPE_HOST 1

static void count_bytes(struct trace_stats *st, const struct gm_event *ev)
{
	const struct gm_api_desc *d = &gm_api_table[ev->api];
	int i_n = gm_api_arg_index(ev->api, "ByteCount");
	uint64_t n = i_n >= 0 ? ev->args[i_n] : 0;

	switch (d->special) {
	case GM_SP_H2D:
		st->h2d_bytes += n;
		st->h2d_copies++;
		return;
	case GM_SP_D2H:
	case GM_SP_D2H_ASYNC:
		st->d2h_bytes += n;
		st->d2h_copies++;
		return;
	case GM_SP_MEMCPY:
	case GM_SP_MEMCPY_ASYNC: {
		unsigned kind = (unsigned)ev->args[d->nr_args - 1];
		if (kind == GM_COPY_H2D) {
			st->h2d_bytes += n;
			st->h2d_copies++;
		} else if (kind == GM_COPY_D2H) {
			st->d2h_bytes += n;
			st->d2h_copies++;
		} else if (kind == GM_COPY_D2D) {
			st->d2d_bytes += n;
			st->d2d_copies++;
		}
		return;
	}
	case GM_SP_COPY2D:
	case GM_SP_COPY2D_ASYNC:
	case GM_SP_COPY3D:
	case GM_SP_COPY3D_ASYNC: {
		int f = gm_api_arg_index(ev->api, "srcMemoryType");
		int t = gm_api_arg_index(ev->api, "dstMemoryType");
		int w = gm_api_arg_index(ev->api, "WidthInBytes");
		int h = gm_api_arg_index(ev->api, "Height");
		int z = gm_api_arg_index(ev->api, "Depth");
		uint64_t bytes = ev->args[w] * (ev->args[h] ? ev->args[h] : 1) *
				 (z >= 0 && ev->args[z] ? ev->args[z] : 1);
		if (ev->args[f] == MEMTYPE_HOST) {
			st->h2d_bytes += bytes;
			st->h2d_copies++;
		} else if (ev->args[t] == MEMTYPE_HOST) {
			st->d2h_bytes += bytes;
			st->d2h_copies++;
		} else {
			st->d2d_bytes += bytes;
			st->d2d_copies++;
		}
		return;
	}
	default:
		break;
	}
	if (i_n >= 0 && strstr(d->name, "DtoD")) {
		st->d2d_bytes += n;
		st->d2d_copies++;
	} else if (!strncmp(d->name, "cuMemset", 8)) {
		int i_w = gm_api_arg_index(ev->api, "Width");
		int i_h = gm_api_arg_index(ev->api, "Height");
		int i_c = gm_api_arg_index(ev->api, "N");
		unsigned elem = strstr(d->name, "D8") ? 1 : strstr(d->name, "D16") ? 2 : 4;
		uint64_t count = i_c >= 0 ? ev->args[i_c] :
				 ev->args[i_w] * ev->args[i_h];
		st->memset_bytes += count * elem;
		st->memsets++;
	}
}

static int is_launch(enum gm_special sp)
{
	return sp == GM_SP_LAUNCH || sp == GM_SP_LAUNCH_COOP ||
	       sp == GM_SP_LAUNCH_EX;
}

/* An entry event: the call counts, the first GPU call, launches. */
static void count_enter(struct trace_stats *st, struct handle_map *handles,
			struct handle_map *entries, const struct gm_event *ev,
			const struct gm_api_desc *d, uint64_t idx)
{
	map_handle(entries, (uint64_t)ev->pid << 32 | ev->tid,
		   (size_t)idx);
	if (!d) {
		return;
	}
	if (gm_api_gpu_op(ev->api) != GM_GPU_OP_NONE &&
	    !st->gpu_calls++) {
		st->gpu_first_ns = ev->time_ns;
		st->gpu_first_host = ev->host_ns;
		st->gpu_first_tid = ev->tid;
	}
	st->calls[ev->api]++;
	count_bytes(st, ev);
	if (is_launch(d->special)) {
		int f = gm_api_arg_index(ev->api, "f");
		long k = lookup_handle(handles, ev->args[f]);
		if (k < 0) {
			k = (long)kernel_by_name(st, "(unknown kernel)");
			map_handle(handles, ev->args[f], (size_t)k);
		}
		st->kernels[k].launches++;
		st->launches++;
	}
}

/* An exit event: the last GPU call, failed calls, kernels by handle. */
static void count_exit(struct trace_stats *st, struct handle_map *handles,
		       struct handle_map *entries, const struct gm_event *ev,
		       const struct gm_api_desc *d, uint64_t idx)
{
	if (ev->api >= 0 &&
	    gm_api_gpu_op(ev->api) != GM_GPU_OP_NONE) {
		st->gpu_last_ns = ev->time_ns;
		st->gpu_last_host = ev->host_ns;
		st->gpu_last_tid = ev->tid;
	}
	if (ev->status) {
		long in = lookup_handle(entries,
			(uint64_t)ev->pid << 32 | ev->tid);
		struct trace_failed_call fc = {
			in >= 0 ? (uint64_t)in : idx, ev->api,
			ev->status
		};
		if (!st->failed_calls++) {
			st->first_failed = fc;
		}
		if (!gm_cu_result_tolerated(ev->status) &&
		    !st->failed_bad++) {
			st->first_bad = fc;
		}
	}
	if (!d || ev->status) {
		return;
	}
	if (d->special == GM_SP_GET_KERNEL ||
	    d->special == GM_SP_GET_FUNCTION) {
		size_t k = kernel_by_name(st, ev->str);
		map_handle(handles, ev->args[0], k);
		if (ev->data_len) {
			set_layout(&st->kernels[k], ev->data,
				   ev->data_len);
		}
	} else if (ev->api == GM_API_cuKernelGetFunction) {
		long k = lookup_handle(handles, ev->args[1]);
		if (k >= 0) {
			map_handle(handles, ev->args[0], (size_t)k);
		}
	}
	if (ev->flags & GM_RF_HASH) {
		st->d2h_hashes++;
	}
}

int trace_stats_collect(struct trace_reader *r, struct trace_stats *st)
{
	struct handle_map handles = { 0 };
	const struct gm_event *ev;
	struct handle_map entries = { 0 };	/* thread -> its last entry */
	size_t last = 0;
	uint64_t idx;
	int rc;

	while ((rc = trace_reader_next(r, &ev)) > 0) {
		const struct gm_api_desc *d = ev->api >= 0 ? &gm_api_table[ev->api]
							   : NULL;
		if (!st->events++) {
			st->first_ns = ev->time_ns;
		}
		st->last_ns = ev->time_ns;
		if (ev->api >= 0 && ev->api < GM_API_COUNT) {
			st->api_used[ev->api] = 1;
		}
		trace_stats_count_thread(st, ev->pid, ev->tid, &last);
		if (st->keep && !st->keep(st->keep_ctx, ev->pid)) {
			continue;
		}
		/* Its index once the left-out processes' streams are gone. */
		idx = st->kept++;
		st->by_kind[ev->kind]++;
		if (ev->flags & GM_RF_BLOB) {
			st->blob_refs++;
			st->blob_ref_bytes += ev->blob_size;
		} else if (ev->kind == GM_EV_ENTER) {
			st->inline_bytes += ev->data_len;
		}
		if ((ev->flags & GM_RF_MODULE) && ev->kind == GM_EV_ENTER) {
			st->modules++;
			st->module_bytes += ev->blob_size;
		}
		switch (ev->kind) {
		case GM_EV_ENTER:
			count_enter(st, &handles, &entries, ev, d, idx);
			break;
		case GM_EV_EXIT:
			count_exit(st, &handles, &entries, ev, d, idx);
			break;
		case GM_EV_LAYOUT: {
			const struct gm_ev_layout *l = GM_EVENT_AS(ev, layout);
			size_t k = kernel_by_name(st, ev->str[0] ? ev->str
								 : "(unnamed)");
			map_handle(&handles, l->handle, k);
			set_layout(&st->kernels[k], ev->data, ev->data_len);
			break;
		}
		case GM_EV_D2H_HASH:
			if (ev->flags & GM_RF_OVERWRITTEN) {
				st->d2h_overwritten++;
			} else {
				st->d2h_hashes++;
			}
			break;
		case GM_EV_HOSTMEM:
			if (GM_EVENT_AS(ev, hostmem)->role == GM_HM_SNAPSHOT) {
				st->hostmem_snapshots++;
				st->hostmem_snapshot_bytes += ev->blob_size;
			} else {
				st->hostmem_results++;
			}
			break;
		case GM_EV_HOST_FUNC: {
			const struct gm_ev_host_func *h = GM_EVENT_AS(ev, host_func);
			st->host_funcs++;
			st->host_func_ns += h->end > h->start ? h->end - h->start : 0;
			break;
		}
		case GM_EV_UNSUPPORTED:
			add_unsupported(st, ev->str[0] ? ev->str : "(unnamed call)",
					idx);
			break;
		case GM_EV_ACT_KERNEL: {
			const struct gm_ev_act_kernel *a = GM_EVENT_AS(ev, act_kernel);
			size_t ki = kernel_by_name(st, ev->str);
			struct trace_kernel_stat *k = &st->kernels[ki];
			uint64_t ns = a->end > a->start ? a->end - a->start : 0;
			k->gpu_count++;
			k->gpu_ns += ns;
			if (ns > k->gpu_max_ns) {
				k->gpu_max_ns = ns;
			}
			st->act_kernel_ns += ns;
			break;
		}
		case GM_EV_ACT_MEMCPY: {
			const struct gm_ev_act_memcpy *a = GM_EVENT_AS(ev, act_memcpy);
			if (a->copyKind < 16) {
				st->act_memcpy_bytes[a->copyKind] += a->bytes;
			}
			st->act_memcpy_ns += a->end > a->start ? a->end - a->start : 0;
			break;
		}
		case GM_EV_DEVICE:
			if (!st->device) {
				const struct gm_ev_device *dv = GM_EVENT_AS(ev, device);
				st->device = gm_xstrdup(ev->str);
				st->device_cc = dv->ccMajor * 10 + dv->ccMinor;
				st->device_sms = dv->smCount;
				st->driver_version = dv->driverVersion;
			}
			break;
		default:
			break;
		}
	}
	st->discarded = trace_reader_discarded(r);
	free(handles.handles);
	free(handles.index);
	free(entries.handles);
	free(entries.index);
	return rc < 0 ? -1 : 0;
}
