/* SPDX-License-Identifier: MIT */
/*
 * From a bundle's events to the replay model (see bundle_feed.h). Each
 * thread's call in progress keeps what its entry carried (argument bytes,
 * source data, the module image) until its exit, where the call becomes a
 * model call. Handles that a context reset destroyed are remembered so
 * that the program's later frees and unloads of them are harmless.
 */
#include "bundle_feed.h"

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

#define STREAM_PER_THREAD 0x2	/* CU_STREAM_PER_THREAD */
#define MAX_MEMSET_ROWS 4096	/* a pitched 2-D memset becomes row memsets */

/* "event 12 (cuMemcpyHtoD_v2): " prefix of per-call messages. */
#define EVF "event %" PRIu64 " (%s): "

/* The entry of the call a thread is in. */
struct pending {
	uint32_t tid;
	int active;
	uint64_t index;		/* entry event */
	uint64_t host_in;	/* its clean host time (format 2) */
	int api;
	uint32_t corr;
	unsigned flags;
	struct gm_hash blob;
	uint64_t blob_size;
	struct strbuf data;	/* inline bytes of the entry */
	struct strbuf str;
	char *module_path;	/* GM_RF_MODULE: the image in the bundle */
	int have_late_hash;	/* a d2h_hash that came before the exit */
	struct gm_hash late_hash;
	uint64_t nr_calls;
};

/* Handles of one kind that are live, and those a reset destroyed. */
struct live_set {
	struct handle_map live, dead;
};

/* A per-API warning: how often, and the first event. */
struct api_note {
	uint64_t count, first;
	int32_t status;
};

/* A parameter layout seen in a "layout" event. */
struct layout {
	uint32_t nr;
	uint32_t *offsets, *sizes;
};

enum live_kind { LIVE_ALLOC, LIVE_HOST, LIVE_MODULE, LIVE_STREAM, LIVE_EVENT,
		 LIVE_TEXTURE, LIVE_VMM_RES, LIVE_VMM_MEM, NR_LIVE };

struct bundle_feed {
	struct model *m;
	struct model_prog *p;
	struct trace_reader *r;
	char *blob_dir;

	uint32_t pid;
	int have_pid;
	int host_time;		/* the bundle's events carry host times */
	struct pending *threads;
	size_t nr_threads, alloc_threads, last_thread;

	struct live_set live[NR_LIVE];
	struct handle_map skipped_textures;	/* unsupported texture objects */

	struct handle_map module_alias;		/* CUmodule -> index */
	uint64_t *alias_library;
	size_t nr_alias, alloc_alias;

	struct handle_map layout_map;		/* handle -> index */
	struct layout *layouts;
	size_t nr_layouts, alloc_layouts;

	struct handle_map pending_d2h;		/* corr -> index */
	uint64_t *d2h_event;
	size_t nr_d2h, alloc_d2h;
	struct handle_map done_d2h;		/* corr of results not needed */
	struct handle_map graph_corr;		/* corr of a graph launch ->
						   index in d2h_event */

	/* Host functions: corr -> index of their call event (waiting for
	 * the host_func event that times them), and durations that came
	 * before their call returned (corr -> index into early_ns). */
	struct handle_map host_wait;
	uint64_t *host_event;
	size_t nr_host, alloc_host;
	struct handle_map host_early;
	uint64_t *early_ns;
	size_t nr_early, alloc_early;

	struct gm_strmap checked;			/* blobs and images read */
	struct api_note skipped[GM_API_COUNT];
	struct api_note failed[GM_API_COUNT];
	uint64_t warned_attr;			/* launch attribute ids */
	struct strbuf tmp;

	struct bundle_feed_stats st;
};

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

/* ---- small helpers ---- */

static struct pending *thread_of(struct bundle_feed *f, uint32_t tid)
{
	struct pending *t;

	if (f->last_thread < f->nr_threads &&
	    f->threads[f->last_thread].tid == tid) {
		return &f->threads[f->last_thread];
	}
	for (size_t i = 0; i < f->nr_threads; i++) {
		if (f->threads[i].tid == tid) {
			f->last_thread = i;
			return &f->threads[i];
		}
	}
	GM_ALLOC_GROW(f->threads, f->nr_threads + 1, f->alloc_threads);
	t = &f->threads[f->nr_threads];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	strbuf_init(&t->data, 0);
	strbuf_init(&t->str, 0);
	f->last_thread = f->nr_threads++;
	return t;
}

static void note(struct api_note *n, uint64_t ev, int32_t status)
{
	if (!n->count++) {
		n->first = ev;
		n->status = status;
	}
}

/* The stream a call means: stream 0 of a _ptds/_ptsz twin is its thread's. */
static uint64_t stream_of(const struct gm_event *x, uint64_t h)
{
	return gm_api_table[x->api].flavour != GM_FLAVOUR_LEGACY && h == 0 ?
		       STREAM_PER_THREAD : h;
}

static uint64_t module_of(const struct bundle_feed *f, uint64_t h)
{
	uint32_t i;

	return handle_map_get(&f->module_alias, h, &i) ? f->alias_library[i] : h;
}

static void live_add(struct bundle_feed *f, enum live_kind k, uint64_t h)
{
	handle_map_put(&f->live[k].live, h, 1);
	handle_map_del(&f->live[k].dead, h);
}

/*
 * A handle being destroyed: 1 when the model knows it (go on), 0 when a
 * context reset destroyed it already (nothing to do).
 */
static int live_del(struct bundle_feed *f, enum live_kind k, uint64_t h)
{
	if (handle_map_del(&f->live[k].dead, h) &&
	    !handle_map_get(&f->live[k].live, h, &(uint32_t){ 0 })) {
		return 0;
	}
	handle_map_del(&f->live[k].live, h);
	return 1;
}

static int cmp_u64(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;

	return x < y ? -1 : x > y;
}

/* The live handles of kind @k, sorted (deterministic), moved to dead. */
static size_t take_live(struct bundle_feed *f, enum live_kind k, uint64_t **out)
{
	struct handle_map *m = &f->live[k].live;
	uint64_t *v = gm_xcalloc(m->nr_used + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < m->nr_slots; i++) {
		if (m->slots[i].state == 1) {
			v[n++] = m->slots[i].key;
		}
	}
	qsort(v, n, sizeof(*v), cmp_u64);
	for (size_t i = 0; i < n; i++) {
		handle_map_del(m, v[i]);
		handle_map_put(&f->live[k].dead, v[i], 1);
	}
	*out = v;
	return n;
}

/* Destroy live handle @h of kind @k in the model. */
static int destroy_live(struct bundle_feed *f, enum live_kind k, uint64_t ev,
			const char *api, uint64_t h)
{
	struct model_prog *p = f->p;

	switch (k) {
	case LIVE_TEXTURE:
		return model_destroy_texture(p, ev, api, h);
	case LIVE_ALLOC:
		return model_add_free(p, ev, api, h);
	case LIVE_HOST:
		return model_add_host_free(p, ev, h);
	case LIVE_EVENT:
		return model_destroy_event(p, ev, h);
	case LIVE_STREAM:
		return model_destroy_stream(p, ev, h);
	case LIVE_MODULE:
		return model_unload_module(p, ev, h);
	case LIVE_VMM_RES:
		return model_vmm_free(p, ev, api, h);
	case LIVE_VMM_MEM:
		return model_vmm_release(p, ev, api, h);
	case NR_LIVE:
		break;
	}
	return 0;
}

/* A handle the program destroys: in the model too, unless a reset did. */
static int drop_live(struct bundle_feed *f, enum live_kind k, uint64_t ev,
		     const char *api, uint64_t h)
{
	if (!live_del(f, k, h)) {
		return 0;
	}
	return destroy_live(f, k, ev, api, h);
}

/*
 * cuDevicePrimaryCtxReset / cuCtxDestroy: everything the program had
 * goes away; its later frees and unloads of those handles do nothing.
 */
static int reset_context(struct bundle_feed *f, uint64_t ev, const char *api)
{
	/* textures before the memory they read, modules last */
	static const enum live_kind order[] = { LIVE_TEXTURE, LIVE_ALLOC,
		LIVE_VMM_RES, LIVE_VMM_MEM, LIVE_HOST, LIVE_EVENT, LIVE_STREAM,
		LIVE_MODULE };
	int ret = 0;

	for (size_t k = 0; k < sizeof(order) / sizeof(order[0]); k++) {
		uint64_t *v;
		size_t n = take_live(f, order[k], &v);

		for (size_t i = 0; i < n && !ret; i++) {
			ret = destroy_live(f, order[k], ev, api, v[i]);
		}
		free(v);
	}
	return ret;
}

/* Check a stored payload or image once per content. */
static int first_time(struct bundle_feed *f, struct gm_hash h)
{
	int is_new;

	gm_strmap_add(&f->checked, &h, sizeof(h), &is_new);
	return is_new;
}

/* ---- entries ---- */

static int on_enter(struct bundle_feed *f, const struct gm_event *ev)
{
	struct pending *t = thread_of(f, ev->tid);

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
		if (first_time(f, ev->blob)) {
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
	} else if ((ev->flags & GM_RF_BLOB) && first_time(f, ev->blob)) {
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

/* ---- exits: the call table ---- */

/* The host-to-device source bytes of a call as a model blob. */
static int source_blob(struct bundle_feed *f, const struct pending *in,
		       const char *api, uint64_t size, uint32_t *id)
{
	if (in->flags & GM_RF_FAILED) {
		return gm_error(EVF "its source data could not be stored during "
				"capture", in->index, api);
	}
	if (in->flags & GM_RF_BLOB) {
		char hex[GM_HASH_HEX_LEN + 1];
		char *path;
		int ret;

		if (in->blob_size != size) {
			return gm_error(EVF "its source data has %" PRIu64
					" bytes, the call copies %" PRIu64,
					in->index, api, in->blob_size, size);
		}
		gm_hash_hex(in->blob, hex);
		path = gm_path_join(f->blob_dir, hex);
		ret = model_add_blob(f->m, hex, size, path, id);
		free(path);
		return ret;
	}
	if (in->data.len != size) {
		return gm_error(EVF "its source data has %zu bytes, the call "
				"copies %" PRIu64, in->index, api, in->data.len,
				size);
	}
	return model_add_blob_bytes(f->m, in->data.buf, size, id);
}

/* A device-to-host copy's result: now, or when the program synchronizes. */
static int copy_d2h(struct bundle_feed *f, const struct pending *in,
		    const struct gm_event *x, const char *api,
		    struct model_copy *c)
{
	char hex[GM_HASH_HEX_LEN + 1];
	int later;

	c->kind = MODEL_D2H;
	c->d2h_hash = NULL;
	if (in->flags & GM_RF_HOST_WARM) {
		c->flags |= MODEL_HOST_WARM;
	}
	if (x->flags & GM_RF_HASH) {
		gm_hash_hex(x->blob, hex);
		c->d2h_hash = hex;
	} else if (in->have_late_hash) {
		gm_hash_hex(in->late_hash, hex);
		c->d2h_hash = hex;
	}
	later = !c->d2h_hash && !(c->flags & MODEL_SYNC) &&
		!model_graph_stream(f->p, c->stream);
	if (model_add_copy(f->p, in->index, api, c) < 0) {
		return -1;
	}
	if (later && c->size) {
		uint32_t i = (uint32_t)f->nr_d2h;
		GM_ALLOC_GROW(f->d2h_event, f->nr_d2h + 1, f->alloc_d2h);
		f->d2h_event[f->nr_d2h++] = in->index;
		handle_map_put(&f->pending_d2h, in->corr, i);
	}
	return 0;
}

static int copy_h2d(struct bundle_feed *f, const struct pending *in,
		    const char *api, struct model_copy *c)
{
	c->kind = MODEL_H2D;
	if (c->size && source_blob(f, in, api, c->size, &c->blob) < 0) {
		return -1;
	}
	c->blob_offset = 0;
	return model_add_copy(f->p, in->index, api, c);
}

static int memset_2d(struct bundle_feed *f, const struct pending *in,
		     const char *api, const uint64_t *a, unsigned elem,
		     uint64_t stream)
{
	/* dstDevice, dstPitch, value, Width, Height (cuda_api.def) */
	uint64_t dst = a[0], pitch = a[1], w = a[3], h = a[4];

	if (!w || !h) {
		return 0;
	}
	if (h == 1 || pitch == w * elem) {
		return model_add_memset(f->p, in->index, api, dst,
					(uint32_t)a[2], elem, w * h, stream, 0);
	}
	if (h > MAX_MEMSET_ROWS || pitch < w * elem) {
		model_add_unsupported(f->p, in->index, api);
		f->st.unsupported++;
		return 0;
	}
	for (uint64_t y = 0; y < h; y++) {
		if (model_add_memset(f->p, in->index, api, dst + y * pitch,
				     (uint32_t)a[2], elem, w, stream, 0) < 0) {
			return -1;
		}
	}
	return 0;
}

/* The kernel, grid, block, shared memory and stream every launch names
 * (struct gm_args_cuLaunchKernelEx and _cuLaunchCooperativeKernel alike). */
#define LAUNCH_SHAPE(l, a, x)                                                  \
	do {                                                                   \
		(l)->kernel = (a)->f;                                          \
		(l)->grid[0] = (uint32_t)(a)->gridDimX;                        \
		(l)->grid[1] = (uint32_t)(a)->gridDimY;                        \
		(l)->grid[2] = (uint32_t)(a)->gridDimZ;                        \
		(l)->block[0] = (uint32_t)(a)->blockDimX;                      \
		(l)->block[1] = (uint32_t)(a)->blockDimY;                      \
		(l)->block[2] = (uint32_t)(a)->blockDimZ;                      \
		(l)->smem = (uint32_t)(a)->sharedMemBytes;                     \
		(l)->stream = stream_of((x), (a)->hStream);                    \
	} while (0)

static int launch(struct bundle_feed *f, const struct pending *in,
		  const struct gm_event *x, const char *api)
{
	struct model_launch l;
	const uint8_t *params = (const uint8_t *)in->data.buf;
	size_t size = in->data.len;
	uint32_t li;

	memset(&l, 0, sizeof(l));
	if (in->flags & GM_RF_NO_LAYOUT) {
		return gm_error(EVF "the argument layout of the kernel was not "
				"known during capture", in->index, api);
	}
	if (gm_api_table[x->api].special == GM_SP_LAUNCH_EX) {
		const struct gm_args_cuLaunchKernelEx *a =
			GM_EVENT_ARGS(x, cuLaunchKernelEx);
		const CUlaunchAttribute *attrs = (const void *)params;

		if (a->attrBytes > size ||
		    a->attrBytes != a->numAttrs * sizeof(CUlaunchAttribute)) {
			return gm_error(EVF "%" PRIu64 " launch attributes in %"
					PRIu64 " of %zu recorded bytes",
					in->index, api, a->numAttrs,
					a->attrBytes, size);
		}
		LAUNCH_SHAPE(&l, a, x);
		for (uint64_t i = 0; i < a->numAttrs; i++) {
			CUlaunchAttribute at;
			memcpy(&at, (const uint8_t *)attrs + i * sizeof(at),
			       sizeof(at));
			switch (at.id) {
			case CU_LAUNCH_ATTRIBUTE_IGNORE:
				break;
			case CU_LAUNCH_ATTRIBUTE_COOPERATIVE:
				l.cooperative = at.value.cooperative != 0;
				break;
			case CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION:
				l.cluster[0] = at.value.clusterDim.x;
				l.cluster[1] = at.value.clusterDim.y;
				l.cluster[2] = at.value.clusterDim.z;
				break;
			default:
				if (at.id < 64 &&
				    !(f->warned_attr & (1ull << at.id))) {
					f->warned_attr |= 1ull << at.id;
					model_add_warning(f->p, in->index,
						"%s: launch attribute %d is "
						"not replayed", api, (int)at.id);
				}
				break;
			}
		}
		params += a->attrBytes;
		size -= a->attrBytes;
	} else {
		/* cuLaunchKernel and cuLaunchCooperativeKernel share these. */
		const struct gm_args_cuLaunchCooperativeKernel *a =
			GM_EVENT_ARGS(x, cuLaunchCooperativeKernel);

		LAUNCH_SHAPE(&l, a, x);
		l.cooperative = gm_api_table[x->api].special ==
				GM_SP_LAUNCH_COOP;
	}
	if (size > UINT32_MAX) {
		return gm_error(EVF "%zu argument bytes", in->index, api, size);
	}
	l.params = size ? params : NULL;
	l.params_size = (uint32_t)size;
	if (handle_map_get(&f->layout_map, l.kernel, &li)) {
		l.nr_params = f->layouts[li].nr;
		l.param_offsets = f->layouts[li].offsets;
		l.param_sizes = f->layouts[li].sizes;
	}
	return model_add_launch(f->p, in->index, api, &l);
}

/* Parameter layout pairs (u32 offset, u32 size) of @data. */
static void split_layout(const uint8_t *data, size_t len, uint32_t *nr,
			 uint32_t **offsets, uint32_t **sizes)
{
	uint32_t n = (uint32_t)(len / 8);

	*nr = n;
	*offsets = gm_xcalloc(n + 1, sizeof(uint32_t));
	*sizes = gm_xcalloc(n + 1, sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++) {
		memcpy(&(*offsets)[i], data + 8 * i, 4);
		memcpy(&(*sizes)[i], data + 8 * i + 4, 4);
	}
}

static int get_kernel(struct bundle_feed *f, const struct pending *in,
		      const struct gm_event *x, uint64_t handle,
		      uint64_t module)
{
	const char *name = x->str[0] ? x->str : in->str.buf;
	uint32_t nr = 0, *off = NULL, *sz = NULL;
	int ret;

	if (x->data_len) {
		split_layout(x->data, x->data_len, &nr, &off, &sz);
	}
	ret = model_add_kernel(f->p, in->index, handle, module_of(f, module),
			       name, nr, off, sz);
	free(off);
	free(sz);
	return ret;
}

static int texture(struct bundle_feed *f, const struct pending *in,
		   const struct gm_event *x, const char *api)
{
	const struct gm_args_cuTexObjectCreate *a =
		GM_EVENT_ARGS(x, cuTexObjectCreate);
	CUDA_RESOURCE_DESC rd;
	CUDA_TEXTURE_DESC td;
	struct model_texture t;

	if (in->data.len < sizeof(rd) + sizeof(td)) {
		return gm_error(EVF "%zu descriptor bytes recorded, %zu "
				"expected", in->index, api, in->data.len,
				sizeof(rd) + sizeof(td));
	}
	memcpy(&rd, in->data.buf, sizeof(rd));
	memcpy(&td, in->data.buf + sizeof(rd), sizeof(td));
	if (rd.resType != CU_RESOURCE_TYPE_LINEAR &&
	    rd.resType != CU_RESOURCE_TYPE_PITCH2D &&
	    rd.resType != CU_RESOURCE_TYPE_ARRAY) {
		/* Over a mipmapped array: those are not replayed. */
		handle_map_put(&f->skipped_textures, a->pTexObject, 1);
		model_add_unsupported(f->p, in->index,
				      "cuTexObjectCreate (over a mipmapped "
				      "array)");
		f->st.unsupported++;
		return 0;
	}
	if (a->pResViewDesc) {
		model_add_warning(f->p, in->index, "%s: the resource view "
				  "description is not replayed", api);
	}
	memset(&t, 0, sizeof(t));
	t.res_type = rd.resType;
	if (rd.resType == CU_RESOURCE_TYPE_ARRAY) {
		t.array = (uintptr_t)rd.res.array.hArray;
	} else if (rd.resType == CU_RESOURCE_TYPE_LINEAR) {
		t.addr = rd.res.linear.devPtr;
		t.format = rd.res.linear.format;
		t.channels = rd.res.linear.numChannels;
		t.size_bytes = rd.res.linear.sizeInBytes;
	} else {
		t.addr = rd.res.pitch2D.devPtr;
		t.format = rd.res.pitch2D.format;
		t.channels = rd.res.pitch2D.numChannels;
		t.width = rd.res.pitch2D.width;
		t.height = rd.res.pitch2D.height;
		t.pitch = rd.res.pitch2D.pitchInBytes;
	}
	for (int i = 0; i < 3; i++) {
		t.address_mode[i] = td.addressMode[i];
	}
	t.filter_mode = td.filterMode;
	t.flags = td.flags;
	t.max_anisotropy = td.maxAnisotropy;
	t.mipmap_filter_mode = td.mipmapFilterMode;
	t.mipmap_level_bias = td.mipmapLevelBias;
	t.min_mipmap_level_clamp = td.minMipmapLevelClamp;
	t.max_mipmap_level_clamp = td.maxMipmapLevelClamp;
	memcpy(t.border_color, td.borderColor, sizeof(t.border_color));
	if (model_add_texture(f->p, in->index, api, a->pTexObject, &t) < 0) {
		return -1;
	}
	live_add(f, LIVE_TEXTURE, a->pTexObject);
	return 0;
}

static int module_load(struct bundle_feed *f, const struct pending *in,
		       const char *api, uint64_t handle)
{
	char hex[GM_HASH_HEX_LEN + 1];

	if (!(in->flags & GM_RF_MODULE) || !in->module_path) {
		return gm_error(EVF "no module image was stored", in->index,
				api);
	}
	gm_hash_hex(in->blob, hex);
	if (model_add_module(f->p, in->index, handle, hex, in->blob_size,
			     in->module_path) < 0) {
		return -1;
	}
	live_add(f, LIVE_MODULE, handle);
	return 0;
}

static void unsupported(struct bundle_feed *f, uint64_t ev, const char *api)
{
	model_add_unsupported(f->p, ev, api);
	f->st.unsupported++;
}

/*
 * The call being turned into the model: its entry, its exit, its name and
 * the position the model's messages give. Each replay kind of cuda_api.def
 * has one handler below; rows that share a kind share the argument words
 * the handler reads (checked by the _Static_asserts beside it).
 */
struct call {
	struct bundle_feed *f;
	const struct pending *in;
	const struct gm_event *x;
	const char *api;
	uint64_t ev;
};

#define ARGS(call) GM_EVENT_ARGS(c->x, call)
#define SAME_WORD(a, b, field)                                                 \
	_Static_assert(offsetof(struct gm_args_##a, field) ==                  \
			       offsetof(struct gm_args_##b, field),            \
		       #a " and " #b ": " #field)

/* No device effect in a replay: one context, set up by the runtime. */
static int do_noop(const struct call *c)
{
	return 0;
}

/* Preferences and limits: the replay keeps the defaults. */
static int do_skip(const struct call *c)
{
	note(&c->f->skipped[c->x->api], c->ev, 0);
	return 0;
}

static int do_ctx_reset(const struct call *c)
{
	return reset_context(c->f, c->ev, c->api);
}

static int do_ctx_sync(const struct call *c)
{
	return model_add_ctx_sync(c->f->p, c->ev, c->api);
}

/* ---- memory ---- */

/*
 * Device and host allocations: the pointer and the size are the first two
 * words of every row of ALLOC and HOST_ALLOC, the pointer the first of
 * FREE and HOST_FREE.
 */
_Static_assert(offsetof(struct gm_args_cuMemAlloc_v2, dptr) == 0 &&
		       offsetof(struct gm_args_cuMemAllocAsync, dptr) == 0 &&
		       offsetof(struct gm_args_cuMemAllocAsync, bytesize) == 8 &&
		       offsetof(struct gm_args_cuMemAlloc_v2, bytesize) == 8 &&
		       offsetof(struct gm_args_cuMemAllocHost_v2, pp) == 0 &&
		       offsetof(struct gm_args_cuMemAllocHost_v2, bytesize) == 8 &&
		       offsetof(struct gm_args_cuMemHostAlloc, pp) == 0 &&
		       offsetof(struct gm_args_cuMemHostAlloc, bytesize) == 8 &&
		       offsetof(struct gm_args_cuMemHostRegister_v2, p) == 0 &&
		       offsetof(struct gm_args_cuMemHostRegister_v2, bytesize) == 8,
	       "allocations: pointer, size");
_Static_assert(offsetof(struct gm_args_cuMemFree_v2, dptr) == 0 &&
		       offsetof(struct gm_args_cuMemFreeAsync, dptr) == 0 &&
		       offsetof(struct gm_args_cuMemFreeHost, p) == 0 &&
		       offsetof(struct gm_args_cuMemHostUnregister, p) == 0,
	       "frees: the pointer first");

static int do_alloc(const struct call *c)
{
	int host = gm_api_table[c->x->api].replay == GM_RK_HOST_ALLOC;
	uint64_t ptr = c->x->args[0], size = c->x->args[1];
	int ret = host ? model_add_host_alloc(c->f->p, c->ev, ptr, size) :
			 model_add_alloc(c->f->p, c->ev, c->api, ptr, size);

	if (ret < 0) {
		return -1;
	}
	live_add(c->f, host ? LIVE_HOST : LIVE_ALLOC, ptr);
	return 0;
}

static int do_alloc_pitch(const struct call *c)
{
	const struct gm_args_cuMemAllocPitch_v2 *a = ARGS(cuMemAllocPitch_v2);

	if (model_add_alloc(c->f->p, c->ev, c->api, a->dptr,
			    a->pPitch * a->Height) < 0) {
		return -1;
	}
	live_add(c->f, LIVE_ALLOC, a->dptr);
	return 0;
}

static int do_free(const struct call *c)
{
	int host = gm_api_table[c->x->api].replay == GM_RK_HOST_FREE;

	return drop_live(c->f, host ? LIVE_HOST : LIVE_ALLOC, c->ev, c->api,
			 c->x->args[0]);
}

/* ---- virtual memory management (model_vmm.c) ---- */

static int do_vmm_reserve(const struct call *c)
{
	const struct gm_args_cuMemAddressReserve *a = ARGS(cuMemAddressReserve);

	if (model_vmm_reserve(c->f->p, c->ev, c->api, a->ptr, a->size) < 0) {
		return -1;
	}
	live_add(c->f, LIVE_VMM_RES, a->ptr);
	return 0;
}

static int do_vmm_free(const struct call *c)
{
	return drop_live(c->f, LIVE_VMM_RES, c->ev, c->api,
			 ARGS(cuMemAddressFree)->ptr);
}

static int do_vmm_create(const struct call *c)
{
	const struct gm_args_cuMemCreate *a = ARGS(cuMemCreate);

	if (model_vmm_create(c->f->p, c->ev, c->api, a->handle, a->size,
			     (unsigned)a->locType) < 0) {
		return -1;
	}
	live_add(c->f, LIVE_VMM_MEM, a->handle);
	return 0;
}

static int do_vmm_release(const struct call *c)
{
	return drop_live(c->f, LIVE_VMM_MEM, c->ev, c->api,
			 ARGS(cuMemRelease)->handle);
}

static int do_vmm_map(const struct call *c)
{
	const struct gm_args_cuMemMap *a = ARGS(cuMemMap);

	return model_vmm_map(c->f->p, c->ev, c->api, a->ptr, a->size,
			     a->offset, a->handle);
}

static int do_vmm_unmap(const struct call *c)
{
	const struct gm_args_cuMemUnmap *a = ARGS(cuMemUnmap);

	/* After a context reset, nothing is mapped any more. */
	if (!handle_map_get(&c->f->live[LIVE_VMM_RES].live, a->ptr,
			    &(uint32_t){ 0 }) &&
	    handle_map_get(&c->f->live[LIVE_VMM_RES].dead, a->ptr,
			   &(uint32_t){ 0 })) {
		return 0;
	}
	return model_vmm_unmap(c->f->p, c->ev, c->api, a->ptr, a->size);
}

/* ---- mapped and managed memory ---- */

static int do_managed_alloc(const struct call *c)
{
	const struct gm_args_cuMemAllocManaged *a = ARGS(cuMemAllocManaged);

	if (model_add_managed(c->f->p, c->ev, a->dptr, a->bytesize) < 0) {
		return -1;
	}
	/* Freed by cuMemFree like device memory (model_add_free). */
	live_add(c->f, LIVE_ALLOC, a->dptr);
	return 0;
}

static int do_host_devptr(const struct call *c)
{
	const struct gm_args_cuMemHostGetDevicePointer_v2 *a =
		ARGS(cuMemHostGetDevicePointer_v2);

	return model_alias_host(c->f->p, c->ev, a->p, a->pdptr);
}

/* GM_LOC_* of a recorded CUmemLocation (type, id). */
static unsigned where(uint64_t type)
{
	switch (type) {
	case CU_MEM_LOCATION_TYPE_DEVICE:
		return GM_LOC_DEVICE;
	case CU_MEM_LOCATION_TYPE_HOST:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA:
	case CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT:
		return GM_LOC_HOST;
	default:
		return GM_LOC_NONE;
	}
}

SAME_WORD(cuMemPrefetchAsync_v2, cuMemPrefetchAsync_v2_ptsz, hStream);
SAME_WORD(cuMemPrefetchAsync_v2, cuMemPrefetchAsync_v2_ptsz, locType);

static int do_prefetch(const struct call *c)
{
	const struct gm_args_cuMemPrefetchAsync_v2 *a =
		ARGS(cuMemPrefetchAsync_v2);

	return model_add_prefetch(c->f->p, c->ev, c->api, a->devPtr, a->count,
				  where(a->locType),
				  stream_of(c->x, a->hStream));
}

SAME_WORD(cuStreamAttachMemAsync, cuStreamAttachMemAsync_ptsz, flags);

static int do_attach_mem(const struct call *c)
{
	const struct gm_args_cuStreamAttachMemAsync *a =
		ARGS(cuStreamAttachMemAsync);

	return model_add_attach(c->f->p, c->ev, c->api, a->dptr, a->length,
				(unsigned)a->flags,
				stream_of(c->x, a->hStream));
}

static int do_advise(const struct call *c)
{
	const struct gm_args_cuMemAdvise_v2 *a = ARGS(cuMemAdvise_v2);

	return model_add_advise(c->f->p, c->ev, c->api, a->devPtr, a->count,
				(unsigned)a->advice, where(a->locType));
}

/* ---- copies ---- */

/*
 * Every copy kind has dst, src, ByteCount[, hStream] as its first words;
 * cuMemcpy and cuMemcpyAsync add the direction ("kind") after them.
 */
#define COPY_WORDS(call, d, s)                                                 \
	_Static_assert(offsetof(struct gm_args_##call, d) == 0 &&              \
			       offsetof(struct gm_args_##call, s) == 8 &&      \
			       offsetof(struct gm_args_##call, ByteCount) == 16, \
		       #call ": dst, src, ByteCount")
#define ASYNC_WORD(call)                                                       \
	_Static_assert(offsetof(struct gm_args_##call, hStream) == 24,         \
		       #call ": hStream after ByteCount")
COPY_WORDS(cuMemcpyHtoD_v2, dstDevice, srcHost);
COPY_WORDS(cuMemcpyHtoDAsync_v2, dstDevice, srcHost);
COPY_WORDS(cuMemcpyDtoH_v2, dstHost, srcDevice);
COPY_WORDS(cuMemcpyDtoHAsync_v2, dstHost, srcDevice);
COPY_WORDS(cuMemcpyDtoD_v2, dstDevice, srcDevice);
COPY_WORDS(cuMemcpyDtoDAsync_v2, dstDevice, srcDevice);
COPY_WORDS(cuMemcpy, dst, src);
COPY_WORDS(cuMemcpyAsync, dst, src);
ASYNC_WORD(cuMemcpyHtoDAsync_v2);
ASYNC_WORD(cuMemcpyDtoHAsync_v2);
ASYNC_WORD(cuMemcpyDtoDAsync_v2);
ASYNC_WORD(cuMemcpyAsync);

static int do_copy(const struct call *c)
{
	const uint64_t *w = c->x->args;
	enum gm_replay_kind k = gm_api_table[c->x->api].replay;
	int async = k == GM_RK_H2D_ASYNC || k == GM_RK_D2H_ASYNC ||
		    k == GM_RK_D2D_ASYNC || k == GM_RK_COPY_ASYNC;
	uint64_t dir = k == GM_RK_COPY ? w[3] : k == GM_RK_COPY_ASYNC ? w[4] :
		       k == GM_RK_H2D || k == GM_RK_H2D_ASYNC ? GM_COPY_H2D :
		       k == GM_RK_D2H || k == GM_RK_D2H_ASYNC ? GM_COPY_D2H :
		       GM_COPY_D2D;
	struct model_copy cp;

	memset(&cp, 0, sizeof(cp));
	cp.dst = w[0];
	cp.src = w[1];
	cp.size = w[2];
	cp.stream = stream_of(c->x, async ? w[3] : 0);
	cp.flags = async ? 0 : MODEL_SYNC;
	switch (dir) {
	case GM_COPY_H2D:
		return copy_h2d(c->f, c->in, c->api, &cp);
	case GM_COPY_D2H:
		return copy_d2h(c->f, c->in, c->x, c->api, &cp);
	case GM_COPY_D2D:
		cp.kind = MODEL_D2D;
		return model_add_copy(c->f->p, c->ev, c->api, &cp);
	case GM_COPY_H2H:
		/* No device effect; its result needs no check. */
		handle_map_put(&c->f->done_d2h, c->in->corr, 1);
		return 0;
	default:
		unsupported(c->f, c->ev, c->api);
		return 0;
	}
}

#undef COPY_WORDS
#undef ASYNC_WORD

/* ---- 2-D and 3-D copies, CUDA arrays ---- */

/*
 * The host result of a 2-D, 3-D or array copy, or its host source: the
 * source's rows packed (a blob), the result's hash now (synchronous) or
 * at the synchronization (its d2h_hash, registered like a copy's).
 */
static int copy_nd(struct bundle_feed *f, const struct pending *in,
		   const struct gm_event *x, const char *api,
		   struct model_copy_nd *c)
{
	char hex[GM_HASH_HEX_LEN + 1];
	uint64_t packed = c->width * (c->height ? c->height : 1) *
			  (c->depth ? c->depth : 1);
	int later;

	if (c->src.host && !c->dst.host && packed &&
	    source_blob(f, in, api, packed, &c->blob) < 0) {
		return -1;
	}
	c->d2h_hash = NULL;
	if (c->dst.host) {
		if (x->flags & GM_RF_HASH) {
			gm_hash_hex(x->blob, hex);
			c->d2h_hash = hex;
		} else if (in->have_late_hash) {
			gm_hash_hex(in->late_hash, hex);
			c->d2h_hash = hex;
		}
	}
	later = c->dst.host && !c->src.host && !c->d2h_hash &&
		!(c->flags & MODEL_SYNC) && packed &&
		!model_graph_stream(f->p, c->stream);
	if (model_add_copy_nd(f->p, in->index, api, c) < 0) {
		return -1;
	}
	if (later) {
		uint32_t i = (uint32_t)f->nr_d2h;
		GM_ALLOC_GROW(f->d2h_event, f->nr_d2h + 1, f->alloc_d2h);
		f->d2h_event[f->nr_d2h++] = in->index;
		handle_map_put(&f->pending_d2h, in->corr, i);
	}
	return 0;
}

/* Whether an end of memory type @type at @addr is host memory: HOST, or
 * UNIFIED at an address no device memory has. */
static int end_is_host(struct bundle_feed *f, uint64_t type, uint64_t addr)
{
	return type == CU_MEMORYTYPE_HOST ||
	       (type == CU_MEMORYTYPE_UNIFIED &&
		!model_device_address(f->p, addr));
}

/* The copy words of a 2-D row (GM_COPY2D_FIELDS) into @c. */
static void copy2d_words(struct bundle_feed *f, const uint64_t *w,
			 struct model_copy_nd *c)
{
	/* srcXInBytes, srcY, srcMemoryType, srcHost, srcDevice, srcArray,
	 * srcPitch, then the same of dst, WidthInBytes, Height */
	struct model_copy_end *e[2] = { &c->src, &c->dst };

	for (int k = 0; k < 2; k++, w += 7) {
		e[k]->type = (unsigned)w[2];
		e[k]->addr = w[2] == CU_MEMORYTYPE_HOST ? w[3] :
			     w[2] == CU_MEMORYTYPE_UNIFIED && w[4] ? w[4] :
			     w[2] == CU_MEMORYTYPE_UNIFIED ? w[3] : w[4];
		e[k]->array = w[5];
		e[k]->x = w[0];
		e[k]->y = w[1];
		e[k]->pitch = w[6];
		e[k]->host = end_is_host(f, w[2], e[k]->addr);
	}
	c->width = w[0];
	c->height = w[1];
	c->depth = 1;
}

static int do_copy_2d(const struct call *c)
{
	int a = gm_api_arg_index(c->x->api, "srcXInBytes");
	int s = gm_api_arg_index(c->x->api, "hStream");
	struct model_copy_nd nd;

	memset(&nd, 0, sizeof(nd));
	copy2d_words(c->f, c->x->args + a, &nd);
	nd.call = strstr(c->api, "Unaligned") ? GM_COPYCALL_2D_UNALIGNED :
						 GM_COPYCALL_2D;
	nd.stream = stream_of(c->x, s >= 0 ? c->x->args[s] : 0);
	nd.flags = s >= 0 ? 0 : MODEL_SYNC;
	return copy_nd(c->f, c->in, c->x, c->api, &nd);
}

static int do_copy_3d(const struct call *c)
{
	int a = gm_api_arg_index(c->x->api, "srcXInBytes");
	int s = gm_api_arg_index(c->x->api, "hStream");
	const uint64_t *w = c->x->args + a;
	struct model_copy_nd nd;
	struct model_copy_end *e[2] = { &nd.src, &nd.dst };

	memset(&nd, 0, sizeof(nd));
	/* srcXInBytes, srcY, srcZ, srcLOD, srcMemoryType, srcHost, srcDevice,
	 * srcArray, srcPitch, srcHeight, then dst's, then WidthInBytes,
	 * Height, Depth (GM_COPY3D_FIELDS) */
	for (int k = 0; k < 2; k++) {
		const uint64_t *v = w + 10 * k;
		if (v[3]) {
			unsupported(c->f, c->ev, c->api);	/* a mipmap level */
			return 0;
		}
		e[k]->type = (unsigned)v[4];
		e[k]->addr = v[4] == CU_MEMORYTYPE_HOST ? v[5] :
			     v[4] == CU_MEMORYTYPE_UNIFIED && v[6] ? v[6] :
			     v[4] == CU_MEMORYTYPE_UNIFIED ? v[5] : v[6];
		e[k]->array = v[7];
		e[k]->x = v[0];
		e[k]->y = v[1];
		e[k]->z = v[2];
		e[k]->pitch = v[8];
		e[k]->height = v[9];
		e[k]->host = end_is_host(c->f, v[4], e[k]->addr);
	}
	nd.width = w[20];
	nd.height = w[21];
	nd.depth = w[22];
	nd.call = GM_COPYCALL_3D;
	nd.stream = stream_of(c->x, s >= 0 ? c->x->args[s] : 0);
	nd.flags = s >= 0 ? 0 : MODEL_SYNC;
	return copy_nd(c->f, c->in, c->x, c->api, &nd);
}

/*
 * @bytes at linear @offset of array @h as a rectangle of its rows: within
 * one row, or whole rows. 0, or 1 when it is neither (unsupported), -1
 * for an unknown array.
 */
static int array_rect(struct bundle_feed *f, uint64_t ev, const char *api,
		      uint64_t h, uint64_t offset, uint64_t bytes,
		      struct model_copy_end *e, uint64_t *width,
		      uint64_t *height)
{
	long id = model_array_id(f->p, h);
	uint64_t row;

	if (id < 0) {
		return gm_error(EVF "unknown array 0x%" PRIx64, ev, api, h);
	}
	row = model_array_row_bytes(f->p, (uint32_t)id);
	e->type = CU_MEMORYTYPE_ARRAY;
	e->array = h;
	if (!row) {
		return 1;
	}
	if (offset % row + bytes <= row) {
		e->x = offset % row;
		e->y = offset / row;
		*width = bytes;
		*height = 1;
		return 0;
	}
	if (offset % row == 0 && bytes % row == 0) {
		e->y = offset / row;
		*width = row;
		*height = bytes / row;
		return 0;
	}
	return 1;
}

/* The linear (host or device) end of an array copy of @width x @height. */
static void linear_end(struct bundle_feed *f, unsigned type, uint64_t addr,
		       uint64_t width, struct model_copy_end *e)
{
	memset(e, 0, sizeof(*e));
	e->type = type;
	e->addr = addr;
	e->pitch = width;
	e->host = type == CU_MEMORYTYPE_HOST;
	(void)f;
}

static int do_copy_array(const struct call *c)
{
	const uint64_t *w = c->x->args;
	enum gm_special sp = gm_api_table[c->x->api].special;
	int s = gm_api_arg_index(c->x->api, "hStream");
	struct model_copy_nd nd;
	uint64_t width = 0, height = 0, w2 = 0, h2 = 0;
	int r;

	memset(&nd, 0, sizeof(nd));
	nd.call = GM_COPYCALL_3D;
	nd.depth = 1;
	nd.stream = stream_of(c->x, s >= 0 ? c->x->args[s] : 0);
	nd.flags = s >= 0 ? 0 : MODEL_SYNC;
	if (gm_api_arg_index(c->x->api, "srcArray") < 0) {
		/* HtoA, DtoA: dstArray, dstOffset, src, ByteCount */
		r = array_rect(c->f, c->ev, c->api, w[0], w[1], w[3],
			       &nd.dst, &width, &height);
		if (!r) {
			linear_end(c->f, sp == GM_SP_H2D ? CU_MEMORYTYPE_HOST :
							   CU_MEMORYTYPE_DEVICE,
				   w[2], width, &nd.src);
		}
	} else if (gm_api_arg_index(c->x->api, "dstArray") < 0) {
		/* AtoH, AtoD: dst, srcArray, srcOffset, ByteCount */
		r = array_rect(c->f, c->ev, c->api, w[1], w[2], w[3],
			       &nd.src, &width, &height);
		if (!r) {
			linear_end(c->f, sp == GM_SP_D2H ||
						 sp == GM_SP_D2H_ASYNC ?
					 CU_MEMORYTYPE_HOST :
					 CU_MEMORYTYPE_DEVICE,
				   w[0], width, &nd.dst);
		}
	} else {
		/* AtoA: dstArray, dstOffset, srcArray, srcOffset, ByteCount */
		r = array_rect(c->f, c->ev, c->api, w[0], w[1], w[4],
			       &nd.dst, &width, &height);
		if (!r) {
			r = array_rect(c->f, c->ev, c->api, w[2], w[3], w[4],
				       &nd.src, &w2, &h2);
		}
		if (!r && (w2 != width || h2 != height)) {
			r = 1;
		}
	}
	if (r < 0) {
		return -1;
	}
	if (r) {
		/* across rows, not whole ones: no rectangle of the array */
		unsupported(c->f, c->ev, c->api);
		return 0;
	}
	nd.width = width;
	nd.height = height;
	return copy_nd(c->f, c->in, c->x, c->api, &nd);
}

static int do_array_create(const struct call *c)
{
	/* pHandle, pAllocateArray, Width, Height, Depth, Format,
	 * NumChannels, Flags (both rows) */
	const uint64_t *w = c->x->args;
	struct gm_array_desc d;

	memset(&d, 0, sizeof(d));
	d.width = w[2];
	d.height = w[3];
	d.depth = w[4];
	d.format = (uint32_t)w[5];
	d.channels = (uint32_t)w[6];
	d.flags = (uint32_t)w[7];
	return model_add_array(c->f->p, c->ev, c->api, w[0], &d);
}

static int do_array_destroy(const struct call *c)
{
	return model_destroy_array(c->f->p, c->ev, c->api, c->x->args[0]);
}

/* ---- memsets: never synchronous with the host ---- */

static int do_memset(const struct call *c)
{
	const uint64_t *w = c->x->args;
	/* dstDevice, value, N, [hStream] */
	unsigned elem = strstr(c->api, "D8") ? 1 :
			strstr(c->api, "D16") ? 2 : 4;
	uint64_t s = c->x->nr_args > 3 ? w[3] : 0;

	return model_add_memset(c->f->p, c->ev, c->api, w[0], (uint32_t)w[1],
				elem, w[2], stream_of(c->x, s), 0);
}

static int do_memset_2d(const struct call *c)
{
	unsigned elem = strstr(c->api, "D2D8") ? 1 :
			strstr(c->api, "D2D16") ? 2 : 4;
	uint64_t s = c->x->nr_args > 5 ? c->x->args[5] : 0;

	return memset_2d(c->f, c->in, c->api, c->x->args, elem,
			 stream_of(c->x, s));
}

/* ---- launches and code ---- */

static int do_launch(const struct call *c)
{
	return launch(c->f, c->in, c->x, c->api);
}

/* The handle is the first word of all six loading calls. */
static int do_module_load(const struct call *c)
{
	return module_load(c->f, c->in, c->api, c->x->args[0]);
}

static int do_module_unload(const struct call *c)
{
	uint64_t h = c->x->args[0];

	if (handle_map_get(&c->f->module_alias, h, &(uint32_t){ 0 })) {
		return 0;	/* a library's module: goes with it */
	}
	return drop_live(c->f, LIVE_MODULE, c->ev, c->api, h);
}

static int do_library_module(const struct call *c)
{
	struct bundle_feed *f = c->f;
	uint32_t i = (uint32_t)f->nr_alias;

	GM_ALLOC_GROW(f->alias_library, f->nr_alias + 1, f->alloc_alias);
	f->alias_library[f->nr_alias++] =
		module_of(f, ARGS(cuLibraryGetModule)->library);
	handle_map_put(&f->module_alias, ARGS(cuLibraryGetModule)->pMod, i);
	return 0;
}

/* cuLibraryGetKernel (pKernel, library), cuModuleGetFunction (hfunc, hmod) */
_Static_assert(offsetof(struct gm_args_cuLibraryGetKernel, library) ==
		       offsetof(struct gm_args_cuModuleGetFunction, hmod),
	       "cuLibraryGetKernel and cuModuleGetFunction: the owner");

static int do_get_kernel(const struct call *c)
{
	const struct gm_args_cuLibraryGetKernel *a = ARGS(cuLibraryGetKernel);

	return get_kernel(c->f, c->in, c->x, a->pKernel, a->library);
}

static int do_kernel_function(const struct call *c)
{
	return model_alias_kernel(c->f->p, c->ev, ARGS(cuKernelGetFunction)->pFunc,
				  ARGS(cuKernelGetFunction)->kernel);
}

SAME_WORD(cuLibraryGetGlobal, cuModuleGetGlobal_v2, bytes);

static int do_get_global(const struct call *c)
{
	const uint64_t *w = c->x->args;
	/* dptr, bytes, library or module, name */
	const char *name = c->x->str[0] ? c->x->str : c->in->str.buf;

	if (!w[1]) {
		model_add_warning(c->f->p, c->ev, "%s: global '%s' has no size "
				  "recorded: copies to it cannot be "
				  "relocated", c->api, name);
		return 0;
	}
	return model_add_global(c->f->p, c->ev, module_of(c->f, w[2]), name,
				w[0], w[1]);
}

static int do_func_attr(const struct call *c)
{
	const struct gm_args_cuFuncSetAttribute *a = ARGS(cuFuncSetAttribute);

	return model_set_kernel_attr(c->f->p, c->ev, a->hfunc, (int)a->attrib,
				     (int)a->value);
}

static int do_kernel_attr(const struct call *c)
{
	const struct gm_args_cuKernelSetAttribute *a = ARGS(cuKernelSetAttribute);

	return model_set_kernel_attr(c->f->p, c->ev, a->kernel, (int)a->attrib,
				     (int)a->val);
}

/* ---- streams and events ---- */

/* cuStreamCreate (phStream, Flags), cuStreamCreateWithPriority (+priority) */
SAME_WORD(cuStreamCreate, cuStreamCreateWithPriority, phStream);
_Static_assert(offsetof(struct gm_args_cuStreamCreate, Flags) ==
		       offsetof(struct gm_args_cuStreamCreateWithPriority, flags),
	       "cuStreamCreate and cuStreamCreateWithPriority: the flags");

static int do_stream_create(const struct call *c)
{
	const uint64_t *w = c->x->args;
	int prio = c->x->nr_args > 2 ? (int)(int32_t)w[2] : 0;

	if (model_add_stream(c->f->p, c->ev, w[0],
			     (w[1] & CU_STREAM_NON_BLOCKING) != 0, prio) < 0) {
		return -1;
	}
	live_add(c->f, LIVE_STREAM, w[0]);
	return 0;
}

static int do_stream_destroy(const struct call *c)
{
	return drop_live(c->f, LIVE_STREAM, c->ev, c->api,
			 ARGS(cuStreamDestroy_v2)->hStream);
}

static int do_stream_wait(const struct call *c)
{
	return model_add_stream_wait(c->f->p, c->ev, c->api,
				     stream_of(c->x, ARGS(cuStreamWaitEvent)->hStream),
				     ARGS(cuStreamWaitEvent)->hEvent);
}

static int do_stream_sync(const struct call *c)
{
	return model_add_stream_sync(c->f->p, c->ev, c->api,
				     stream_of(c->x, ARGS(cuStreamSynchronize)->hStream));
}

static int do_event_create(const struct call *c)
{
	const struct gm_args_cuEventCreate *a = ARGS(cuEventCreate);

	if (model_add_event(c->f->p, c->ev, a->phEvent,
			    (unsigned)a->Flags) < 0) {
		return -1;
	}
	live_add(c->f, LIVE_EVENT, a->phEvent);
	return 0;
}

static int do_event_destroy(const struct call *c)
{
	return drop_live(c->f, LIVE_EVENT, c->ev, c->api,
			 ARGS(cuEventDestroy_v2)->hEvent);
}

SAME_WORD(cuEventRecord, cuEventRecordWithFlags, hEvent);
SAME_WORD(cuEventRecord, cuEventRecordWithFlags, hStream);

static int do_event_record(const struct call *c)
{
	const struct gm_args_cuEventRecord *a = ARGS(cuEventRecord);

	return model_add_event_record(c->f->p, c->ev, c->api, a->hEvent,
				      stream_of(c->x, a->hStream));
}

static int do_event_sync(const struct call *c)
{
	return model_add_event_sync(c->f->p, c->ev, c->api,
				    ARGS(cuEventSynchronize)->hEvent);
}

/* ---- host functions ---- */

/* Both rows start with the stream (cuda_api.def). */
_Static_assert(offsetof(struct gm_args_cuLaunchHostFunc, hStream) == 0 &&
		       offsetof(struct gm_args_cuStreamAddCallback, hStream) == 0,
	       "host functions: the stream first");

static int do_host_func(const struct call *c)
{
	struct bundle_feed *f = c->f;
	uint64_t ns = 0;
	uint32_t i;
	int timed = handle_map_get(&f->host_early, c->in->corr, &i);

	if (timed) {
		/* It ran (on CUDA's thread) before its call returned. */
		ns = f->early_ns[i];
		handle_map_del(&f->host_early, c->in->corr);
	}
	if (model_add_host_func(f->p, c->ev, c->api,
				stream_of(c->x, c->x->args[0]), ns) < 0) {
		return -1;
	}
	if (!timed) {
		GM_ALLOC_GROW(f->host_event, f->nr_host + 1, f->alloc_host);
		handle_map_put(&f->host_wait, c->in->corr, (uint32_t)f->nr_host);
		f->host_event[f->nr_host++] = c->ev;
	}
	return 0;
}

/* ---- texture objects ---- */

static int do_texobj_create(const struct call *c)
{
	return texture(c->f, c->in, c->x, c->api);
}

static int do_texobj_destroy(const struct call *c)
{
	uint64_t h = ARGS(cuTexObjectDestroy)->texObject;

	if (handle_map_del(&c->f->skipped_textures, h)) {
		unsupported(c->f, c->ev, c->api);
		return 0;
	}
	return drop_live(c->f, LIVE_TEXTURE, c->ev, c->api, h);
}

/* ---- CUDA graphs ---- */

#define GRAPH_MAX_DEPS 8	/* dep0..dep7 (cuda_api.def) */

/*
 * The dependencies of a node-adding call (phGraphNode, hGraph,
 * dependencies, numDependencies, ... dep0..dep7). Returns how many, or -1
 * when more were given than the trace holds (the call is unsupported).
 */
static int node_deps(const struct call *c, uint64_t *deps)
{
	int d = gm_api_arg_index(c->x->api, "dep0");
	uint64_t n = c->x->args[3];

	if (n > GRAPH_MAX_DEPS || d < 0) {
		unsupported(c->f, c->ev, c->api);
		return -1;
	}
	memcpy(deps, &c->x->args[d], n * sizeof(*deps));
	return (int)n;
}

/* A kernel node's launch: the words from "func" on, the bytes inline. */
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
 * each end, else 0 (unsupported). */
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

static int do_graph_node(const struct call *c)
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
			unsupported(f, c->ev, c->api);
			return 0;
		}
		if (model_graph_node_begin(f->p, c->ev, c->api, w[1],
					   &stream) < 0) {
			return -1;
		}
		cp.stream = stream;
		if (cp.kind == MODEL_H2D) {
			if (copy_h2d(f, c->in, c->api, &cp) < 0) {
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
			unsupported(f, c->ev, c->api);
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

static int do_capture_begin(const struct call *c)
{
	return model_capture_begin(c->f->p, c->ev, c->api,
				   stream_of(c->x, c->x->args[0]));
}

static int do_capture_to_graph(const struct call *c)
{
	const struct gm_args_cuStreamBeginCaptureToGraph *a =
		ARGS(cuStreamBeginCaptureToGraph);
	SAME_WORD(cuStreamBeginCaptureToGraph, cuStreamBeginCaptureToGraph_ptsz,
		  dep0);

	const uint64_t *edges = NULL;

	if (a->numDependencies > GRAPH_MAX_DEPS) {
		/* Reported at capture: without its edges, none of it. */
		unsupported(c->f, c->ev, c->api);
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
				      stream_of(c->x, a->hStream), a->hGraph,
				      &a->dep0, edges,
				      (unsigned)a->numDependencies);
}

static int do_capture_end(const struct call *c)
{
	return model_capture_end(c->f->p, c->ev, c->api,
				 stream_of(c->x, c->x->args[0]),
				 ARGS(cuStreamEndCapture)->phGraph);
}

static int do_graph_create(const struct call *c)
{
	return model_graph_create(c->f->p, c->ev, c->api,
				  ARGS(cuGraphCreate)->phGraph);
}

static int do_graph_deps(const struct call *c)
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
static int do_graph_instantiate(const struct call *c)
{
	return model_graph_instantiate(c->f->p, c->ev, c->api,
				       c->x->args[0], c->x->args[1]);
}

static int do_graph_launch(const struct call *c)
{
	struct bundle_feed *f = c->f;
	const struct gm_args_cuGraphLaunch *a = ARGS(cuGraphLaunch);
	uint32_t i = (uint32_t)f->nr_d2h;

	if (model_graph_launch(f->p, c->ev, c->api, a->exec,
			       stream_of(c->x, a->hStream)) < 0) {
		return -1;
	}
	GM_ALLOC_GROW(f->d2h_event, f->nr_d2h + 1, f->alloc_d2h);
	f->d2h_event[f->nr_d2h++] = c->ev;
	handle_map_put(&f->graph_corr, c->in->corr, i);
	return 0;
}

static int do_graph_update(const struct call *c)
{
	const struct gm_args_cuGraphExecUpdate_v2 *a = ARGS(cuGraphExecUpdate_v2);

	return model_graph_update(c->f->p, c->ev, c->api, a->hGraphExec,
				  a->hGraph);
}

static int do_graph_child_set(const struct call *c)
{
	const struct gm_args_cuGraphExecChildGraphNodeSetParams *a =
		ARGS(cuGraphExecChildGraphNodeSetParams);

	return model_graph_child_set(c->f->p, c->ev, c->api, a->hGraphExec,
				     a->hNode, a->childGraph);
}

static int do_graph_kernel_set(const struct call *c)
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

static int do_graph_clone(const struct call *c)
{
	return model_graph_clone(c->f->p, c->ev, c->api,
				 ARGS(cuGraphClone)->phGraphClone,
				 ARGS(cuGraphClone)->originalGraph);
}

static int do_graph_destroy(const struct call *c)
{
	return model_graph_destroy(c->f->p, c->ev, c->api, c->x->args[0], 0);
}

static int do_graph_exec_destroy(const struct call *c)
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
static int (*const handlers[GM_RK_COUNT])(const struct call *) = {
	[GM_RK_NOOP] = do_noop,
	[GM_RK_SKIP_FLAGS] = do_skip,
	[GM_RK_SKIP_LIMIT] = do_skip,
	[GM_RK_SKIP_CACHE] = do_skip,
	[GM_RK_CTX_RESET] = do_ctx_reset,
	[GM_RK_CTX_SYNC] = do_ctx_sync,
	[GM_RK_ALLOC] = do_alloc,
	[GM_RK_ALLOC_PITCH] = do_alloc_pitch,
	[GM_RK_FREE] = do_free,
	[GM_RK_HOST_ALLOC] = do_alloc,
	[GM_RK_HOST_FREE] = do_free,
	[GM_RK_H2D] = do_copy,
	[GM_RK_H2D_ASYNC] = do_copy,
	[GM_RK_D2H] = do_copy,
	[GM_RK_D2H_ASYNC] = do_copy,
	[GM_RK_D2D] = do_copy,
	[GM_RK_D2D_ASYNC] = do_copy,
	[GM_RK_COPY] = do_copy,
	[GM_RK_COPY_ASYNC] = do_copy,
	[GM_RK_MEMSET] = do_memset,
	[GM_RK_MEMSET_2D] = do_memset_2d,
	[GM_RK_LAUNCH] = do_launch,
	[GM_RK_MODULE_LOAD] = do_module_load,
	[GM_RK_MODULE_UNLOAD] = do_module_unload,
	[GM_RK_LIBRARY_MODULE] = do_library_module,
	[GM_RK_GET_KERNEL] = do_get_kernel,
	[GM_RK_KERNEL_FUNCTION] = do_kernel_function,
	[GM_RK_GET_GLOBAL] = do_get_global,
	[GM_RK_FUNC_ATTR] = do_func_attr,
	[GM_RK_KERNEL_ATTR] = do_kernel_attr,
	[GM_RK_STREAM_CREATE] = do_stream_create,
	[GM_RK_STREAM_DESTROY] = do_stream_destroy,
	[GM_RK_STREAM_WAIT] = do_stream_wait,
	[GM_RK_STREAM_SYNC] = do_stream_sync,
	[GM_RK_EVENT_CREATE] = do_event_create,
	[GM_RK_EVENT_DESTROY] = do_event_destroy,
	[GM_RK_EVENT_RECORD] = do_event_record,
	[GM_RK_EVENT_SYNC] = do_event_sync,
	[GM_RK_TEXOBJ_CREATE] = do_texobj_create,
	[GM_RK_TEXOBJ_DESTROY] = do_texobj_destroy,
	[GM_RK_HOST_DEVPTR] = do_host_devptr,
	[GM_RK_MANAGED_ALLOC] = do_managed_alloc,
	[GM_RK_PREFETCH] = do_prefetch,
	[GM_RK_COPY_2D] = do_copy_2d,
	[GM_RK_COPY_3D] = do_copy_3d,
	[GM_RK_COPY_ARRAY] = do_copy_array,
	[GM_RK_ARRAY_CREATE] = do_array_create,
	[GM_RK_ARRAY_DESTROY] = do_array_destroy,
	[GM_RK_ATTACH_MEM] = do_attach_mem,
	[GM_RK_ADVISE] = do_advise,
	[GM_RK_CAPTURE_BEGIN] = do_capture_begin,
	[GM_RK_CAPTURE_END] = do_capture_end,
	[GM_RK_CAPTURE_TO_GRAPH] = do_capture_to_graph,
	[GM_RK_GRAPH_CREATE] = do_graph_create,
	[GM_RK_GRAPH_NODE] = do_graph_node,
	[GM_RK_GRAPH_DEPS] = do_graph_deps,
	[GM_RK_GRAPH_INSTANTIATE] = do_graph_instantiate,
	[GM_RK_GRAPH_LAUNCH] = do_graph_launch,
	[GM_RK_GRAPH_UPDATE] = do_graph_update,
	[GM_RK_GRAPH_CHILD_SET] = do_graph_child_set,
	[GM_RK_GRAPH_KERNEL_SET] = do_graph_kernel_set,
	[GM_RK_GRAPH_CLONE] = do_graph_clone,
	[GM_RK_GRAPH_DESTROY] = do_graph_destroy,
	[GM_RK_GRAPH_EXEC_DESTROY] = do_graph_exec_destroy,
	[GM_RK_HOST_FUNC] = do_host_func,
	[GM_RK_SKIP_POOL] = do_skip,
	[GM_RK_VMM_RESERVE] = do_vmm_reserve,
	[GM_RK_VMM_FREE] = do_vmm_free,
	[GM_RK_VMM_CREATE] = do_vmm_create,
	[GM_RK_VMM_RELEASE] = do_vmm_release,
	[GM_RK_VMM_MAP] = do_vmm_map,
	[GM_RK_VMM_UNMAP] = do_vmm_unmap,
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
		note(&f->failed[x->api], c.ev, x->status);
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
						 stream_of(x, x->args[0]), 0);
		}
		return 0;
	}
	if (!bundle_feed_handles(x->api)) {
		unsupported(f, c.ev, c.api);
		return 0;
	}
	f->st.replayed++;
	return handlers[gm_api_table[x->api].replay](&c);
}

static int on_return(struct bundle_feed *f, const struct gm_event *x)
{
	struct pending *t = thread_of(f, x->tid);
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
					  "this graph launch: it is not "
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
 * write before the launch it precedes, a result a host read after the
 * synchronization it follows.
 */
static int on_hostmem(struct bundle_feed *f, const struct gm_event *ev)
{
	const struct gm_ev_hostmem *h = GM_EVENT_AS(ev, hostmem);
	char hex[GM_HASH_HEX_LEN + 1];

	/* The program's own access, at the moment of its event: inside the
	 * entry of the launch it precedes, or the return of the
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
		if (first_time(f, ev->blob)) {
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
 * A handle first seen at its launch (a library such as cuFFT got it
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
	split_layout(ev->data, ev->data_len, &lay->nr, &lay->offsets,
		     &lay->sizes);
	if (!l->module || !ev->str[0]) {
		return 0;	/* the launch will say it is unknown */
	}
	return model_add_kernel(f->p, ev->index, l->handle,
				module_of(f, l->module), ev->str, lay->nr,
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
		unsupported(f, ev->index, ev->str[0] ? ev->str : "?");
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
