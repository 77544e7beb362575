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
#include <stdlib.h>
#include <string.h>

#include "cu_result.h"
#include "error.h"
#include "fs.h"
#include "handle_map.h"
#include "hash.h"
#include "intern.h"
#include "model.h"
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
		 LIVE_TEXTURE, NR_LIVE };

struct bundle_feed {
	struct model *m;
	struct model_prog *p;
	struct trace_reader *r;
	char *blob_dir;

	uint32_t pid;
	int have_pid;
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

	struct intern checked;			/* blobs and images read */
	struct api_note skipped[GM_API_COUNT];
	struct api_note failed[GM_API_COUNT];
	uint8_t per_thread[GM_API_COUNT];
	uint64_t warned_attr;			/* launch attribute ids */
	struct strbuf tmp;

	struct bundle_feed_stats st;
};

/* ---- set-up ---- */

static int ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

struct bundle_feed *bundle_feed_new(struct model *m, struct model_prog *p,
				    struct trace_reader *r)
{
	struct bundle_feed *f = gm_xcalloc(1, sizeof(*f));

	f->m = m;
	f->p = p;
	f->r = r;
	f->blob_dir = gm_path_join(trace_reader_dir(r), "blobs");
	for (int a = 0; a < GM_API_COUNT; a++) {
		const char *n = gm_api_table[a].name;
		f->per_thread[a] = ends_with(n, "_ptsz") || ends_with(n, "_ptds");
	}
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
	free(f->d2h_event);
	handle_map_release(&f->done_d2h);
	intern_release(&f->checked);
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

static uint64_t stream_of(const struct bundle_feed *f, int api, uint64_t h)
{
	return f->per_thread[api] && h == 0 ? STREAM_PER_THREAD : h;
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

/*
 * cuDevicePrimaryCtxReset / cuCtxDestroy: everything the program had
 * goes away; its later frees and unloads of those handles do nothing.
 */
static int reset_context(struct bundle_feed *f, uint64_t ev, const char *api)
{
	struct model_prog *p = f->p;
	uint64_t *v;
	size_t n;
	int ret = 0;

	n = take_live(f, LIVE_TEXTURE, &v);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = model_destroy_texture(p, ev, api, v[i]);
	}
	free(v);
	n = take_live(f, LIVE_ALLOC, &v);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = model_add_free(p, ev, api, v[i]);
	}
	free(v);
	n = take_live(f, LIVE_HOST, &v);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = model_add_host_free(p, ev, v[i]);
	}
	free(v);
	n = take_live(f, LIVE_EVENT, &v);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = model_destroy_event(p, ev, v[i]);
	}
	free(v);
	n = take_live(f, LIVE_STREAM, &v);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = model_destroy_stream(p, ev, v[i]);
	}
	free(v);
	n = take_live(f, LIVE_MODULE, &v);
	for (size_t i = 0; i < n && !ret; i++) {
		ret = model_unload_module(p, ev, v[i]);
	}
	free(v);
	return ret;
}

/* Check a stored payload or image once per content. */
static int first_time(struct bundle_feed *f, struct gm_hash h)
{
	int is_new;

	intern_add(&f->checked, &h, sizeof(h), &is_new);
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
	if (x->flags & GM_RF_HASH) {
		gm_hash_hex(x->blob, hex);
		c->d2h_hash = hex;
	} else if (in->have_late_hash) {
		gm_hash_hex(in->late_hash, hex);
		c->d2h_hash = hex;
	}
	later = !c->d2h_hash && !(c->flags & MODEL_SYNC);
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
	if (x->api == GM_API_cuLaunchKernelEx ||
	    x->api == GM_API_cuLaunchKernelEx_ptsz) {
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
		l.kernel = a->f;
		l.grid[0] = (uint32_t)a->gridDimX;
		l.grid[1] = (uint32_t)a->gridDimY;
		l.grid[2] = (uint32_t)a->gridDimZ;
		l.block[0] = (uint32_t)a->blockDimX;
		l.block[1] = (uint32_t)a->blockDimY;
		l.block[2] = (uint32_t)a->blockDimZ;
		l.smem = (uint32_t)a->sharedMemBytes;
		l.stream = stream_of(f, x->api, a->hStream);
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

		l.kernel = a->f;
		l.grid[0] = (uint32_t)a->gridDimX;
		l.grid[1] = (uint32_t)a->gridDimY;
		l.grid[2] = (uint32_t)a->gridDimZ;
		l.block[0] = (uint32_t)a->blockDimX;
		l.block[1] = (uint32_t)a->blockDimY;
		l.block[2] = (uint32_t)a->blockDimZ;
		l.smem = (uint32_t)a->sharedMemBytes;
		l.stream = stream_of(f, x->api, a->hStream);
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
	    rd.resType != CU_RESOURCE_TYPE_PITCH2D) {
		/* Over a CUDA array: arrays are not replayed. */
		handle_map_put(&f->skipped_textures, a->pTexObject, 1);
		model_add_unsupported(f->p, in->index,
				      "cuTexObjectCreate (over a CUDA array)");
		f->st.unsupported++;
		return 0;
	}
	if (a->pResViewDesc) {
		model_add_warning(f->p, in->index, "%s: the resource view "
				  "description is not replayed", api);
	}
	memset(&t, 0, sizeof(t));
	t.res_type = rd.resType;
	if (rd.resType == CU_RESOURCE_TYPE_LINEAR) {
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

#define ARGS(call) GM_EVENT_ARGS(x, call)

/* The call of entry @in returned with exit @x: its model call. */
static int on_call(struct bundle_feed *f, const struct pending *in,
		   const struct gm_event *x)
{
	struct model_prog *p = f->p;
	const char *api = gm_api_table[x->api].name;
	uint64_t ev = in->index;
	struct model_copy c;

	f->st.calls++;
	if (x->status != 0) {
		note(&f->failed[x->api], ev, x->status);
		f->st.failed++;
		if (!gm_cu_result_tolerated(x->status) && !f->st.errors++) {
			f->st.first_error = ev;
			f->st.first_error_api = x->api;
			f->st.first_error_status = x->status;
		}
		return 0;
	}
	f->st.replayed++;
	memset(&c, 0, sizeof(c));
	switch (x->api) {
	/* No device effect in a replay: one context, set up by the runtime. */
	case GM_API_cuInit:
	case GM_API_cuDevicePrimaryCtxRetain:
	case GM_API_cuDevicePrimaryCtxRelease_v2:
	case GM_API_cuCtxCreate_v2:
	case GM_API_cuCtxCreate_v4:
	case GM_API_cuCtxSetCurrent:
	case GM_API_cuCtxPushCurrent_v2:
	case GM_API_cuCtxPopCurrent_v2:
	case GM_API_cuMemHostGetDevicePointer_v2:
		return 0;
	/* Preferences and limits: the replay keeps the defaults. */
	case GM_API_cuDevicePrimaryCtxSetFlags_v2:
	case GM_API_cuCtxSetLimit:
	case GM_API_cuCtxSetCacheConfig:
	case GM_API_cuCtxSetSharedMemConfig:
	case GM_API_cuCtxSetFlags:
	case GM_API_cuFuncSetCacheConfig:
	case GM_API_cuFuncSetSharedMemConfig:
	case GM_API_cuKernelSetCacheConfig:
		note(&f->skipped[x->api], ev, 0);
		return 0;
	case GM_API_cuDevicePrimaryCtxReset_v2:
	case GM_API_cuCtxDestroy_v2:
		return reset_context(f, ev, api);
	case GM_API_cuCtxSynchronize:
	case GM_API_cuCtxSynchronize_v2:
		return model_add_ctx_sync(p, ev, api);

	/* ---- memory ---- */
	case GM_API_cuMemAlloc_v2:
		if (model_add_alloc(p, ev, api, ARGS(cuMemAlloc_v2)->dptr,
				    ARGS(cuMemAlloc_v2)->bytesize) < 0) {
			return -1;
		}
		live_add(f, LIVE_ALLOC, ARGS(cuMemAlloc_v2)->dptr);
		return 0;
	case GM_API_cuMemAllocPitch_v2: {
		const struct gm_args_cuMemAllocPitch_v2 *a =
			ARGS(cuMemAllocPitch_v2);
		if (model_add_alloc(p, ev, api, a->dptr,
				    a->pPitch * a->Height) < 0) {
			return -1;
		}
		live_add(f, LIVE_ALLOC, a->dptr);
		return 0;
	}
	case GM_API_cuMemAllocAsync:
	case GM_API_cuMemAllocAsync_ptsz:
		if (model_add_alloc(p, ev, api, ARGS(cuMemAllocAsync)->dptr,
				    ARGS(cuMemAllocAsync)->bytesize) < 0) {
			return -1;
		}
		live_add(f, LIVE_ALLOC, ARGS(cuMemAllocAsync)->dptr);
		return 0;
	case GM_API_cuMemFree_v2:
	case GM_API_cuMemFreeAsync:
	case GM_API_cuMemFreeAsync_ptsz:
		/* dptr is the first word of all three */
		if (!live_del(f, LIVE_ALLOC, x->args[0])) {
			return 0;
		}
		return model_add_free(p, ev, api, x->args[0]);
	case GM_API_cuMemAllocHost_v2:
		if (model_add_host_alloc(p, ev, ARGS(cuMemAllocHost_v2)->pp,
					 ARGS(cuMemAllocHost_v2)->bytesize) < 0) {
			return -1;
		}
		live_add(f, LIVE_HOST, ARGS(cuMemAllocHost_v2)->pp);
		return 0;
	case GM_API_cuMemHostAlloc:
		if (model_add_host_alloc(p, ev, ARGS(cuMemHostAlloc)->pp,
					 ARGS(cuMemHostAlloc)->bytesize) < 0) {
			return -1;
		}
		live_add(f, LIVE_HOST, ARGS(cuMemHostAlloc)->pp);
		return 0;
	case GM_API_cuMemHostRegister_v2:
		if (model_add_host_alloc(p, ev, ARGS(cuMemHostRegister_v2)->p,
					 ARGS(cuMemHostRegister_v2)->bytesize) < 0) {
			return -1;
		}
		live_add(f, LIVE_HOST, ARGS(cuMemHostRegister_v2)->p);
		return 0;
	case GM_API_cuMemFreeHost:
	case GM_API_cuMemHostUnregister:
		if (!live_del(f, LIVE_HOST, x->args[0])) {
			return 0;
		}
		return model_add_host_free(p, ev, x->args[0]);

	/* ---- copies ---- */
	case GM_API_cuMemcpyHtoD_v2:
	case GM_API_cuMemcpyHtoD_v2_ptds:
		c.dst = ARGS(cuMemcpyHtoD_v2)->dstDevice;
		c.src = ARGS(cuMemcpyHtoD_v2)->srcHost;
		c.size = ARGS(cuMemcpyHtoD_v2)->ByteCount;
		c.stream = stream_of(f, x->api, 0);
		c.flags = MODEL_SYNC;
		return copy_h2d(f, in, api, &c);
	case GM_API_cuMemcpyHtoDAsync_v2:
	case GM_API_cuMemcpyHtoDAsync_v2_ptsz:
		c.dst = ARGS(cuMemcpyHtoDAsync_v2)->dstDevice;
		c.src = ARGS(cuMemcpyHtoDAsync_v2)->srcHost;
		c.size = ARGS(cuMemcpyHtoDAsync_v2)->ByteCount;
		c.stream = stream_of(f, x->api,
				     ARGS(cuMemcpyHtoDAsync_v2)->hStream);
		return copy_h2d(f, in, api, &c);
	case GM_API_cuMemcpyDtoH_v2:
	case GM_API_cuMemcpyDtoH_v2_ptds:
		c.dst = ARGS(cuMemcpyDtoH_v2)->dstHost;
		c.src = ARGS(cuMemcpyDtoH_v2)->srcDevice;
		c.size = ARGS(cuMemcpyDtoH_v2)->ByteCount;
		c.stream = stream_of(f, x->api, 0);
		c.flags = MODEL_SYNC;
		return copy_d2h(f, in, x, api, &c);
	case GM_API_cuMemcpyDtoHAsync_v2:
	case GM_API_cuMemcpyDtoHAsync_v2_ptsz:
		c.dst = ARGS(cuMemcpyDtoHAsync_v2)->dstHost;
		c.src = ARGS(cuMemcpyDtoHAsync_v2)->srcDevice;
		c.size = ARGS(cuMemcpyDtoHAsync_v2)->ByteCount;
		c.stream = stream_of(f, x->api,
				     ARGS(cuMemcpyDtoHAsync_v2)->hStream);
		return copy_d2h(f, in, x, api, &c);
	case GM_API_cuMemcpyDtoD_v2:
	case GM_API_cuMemcpyDtoD_v2_ptds:
		c.kind = MODEL_D2D;
		c.dst = ARGS(cuMemcpyDtoD_v2)->dstDevice;
		c.src = ARGS(cuMemcpyDtoD_v2)->srcDevice;
		c.size = ARGS(cuMemcpyDtoD_v2)->ByteCount;
		c.stream = stream_of(f, x->api, 0);
		c.flags = MODEL_SYNC;
		return model_add_copy(p, ev, api, &c);
	case GM_API_cuMemcpyDtoDAsync_v2:
	case GM_API_cuMemcpyDtoDAsync_v2_ptsz:
		c.kind = MODEL_D2D;
		c.dst = ARGS(cuMemcpyDtoDAsync_v2)->dstDevice;
		c.src = ARGS(cuMemcpyDtoDAsync_v2)->srcDevice;
		c.size = ARGS(cuMemcpyDtoDAsync_v2)->ByteCount;
		c.stream = stream_of(f, x->api,
				     ARGS(cuMemcpyDtoDAsync_v2)->hStream);
		return model_add_copy(p, ev, api, &c);
	case GM_API_cuMemcpy:
	case GM_API_cuMemcpy_ptds:
	case GM_API_cuMemcpyAsync:
	case GM_API_cuMemcpyAsync_ptsz: {
		int async = x->api == GM_API_cuMemcpyAsync ||
			    x->api == GM_API_cuMemcpyAsync_ptsz;
		/* dst, src, ByteCount, [hStream,] kind */
		uint64_t kind = x->args[async ? 4 : 3];
		c.dst = x->args[0];
		c.src = x->args[1];
		c.size = x->args[2];
		c.stream = stream_of(f, x->api, async ? x->args[3] : 0);
		c.flags = async ? 0 : MODEL_SYNC;
		switch (kind) {
		case GM_COPY_H2D:
			return copy_h2d(f, in, api, &c);
		case GM_COPY_D2H:
			return copy_d2h(f, in, x, api, &c);
		case GM_COPY_D2D:
			c.kind = MODEL_D2D;
			return model_add_copy(p, ev, api, &c);
		case GM_COPY_H2H:
			/* No device effect; its result needs no check. */
			handle_map_put(&f->done_d2h, in->corr, 1);
			return 0;
		default:
			unsupported(f, ev, api);
			return 0;
		}
	}

	/* ---- memsets: never synchronous with the host ---- */
	case GM_API_cuMemsetD8_v2:
	case GM_API_cuMemsetD8_v2_ptds:
	case GM_API_cuMemsetD16_v2:
	case GM_API_cuMemsetD16_v2_ptds:
	case GM_API_cuMemsetD32_v2:
	case GM_API_cuMemsetD32_v2_ptds:
	case GM_API_cuMemsetD8Async:
	case GM_API_cuMemsetD8Async_ptsz:
	case GM_API_cuMemsetD16Async:
	case GM_API_cuMemsetD16Async_ptsz:
	case GM_API_cuMemsetD32Async:
	case GM_API_cuMemsetD32Async_ptsz: {
		/* dstDevice, value, N, [hStream] */
		unsigned elem = strstr(api, "D8") ? 1 : strstr(api, "D16") ? 2 : 4;
		uint64_t s = x->nr_args > 3 ? x->args[3] : 0;
		return model_add_memset(p, ev, api, x->args[0],
					(uint32_t)x->args[1], elem, x->args[2],
					stream_of(f, x->api, s), 0);
	}
	case GM_API_cuMemsetD2D8_v2:
	case GM_API_cuMemsetD2D8_v2_ptds:
	case GM_API_cuMemsetD2D16_v2:
	case GM_API_cuMemsetD2D16_v2_ptds:
	case GM_API_cuMemsetD2D32_v2:
	case GM_API_cuMemsetD2D32_v2_ptds:
	case GM_API_cuMemsetD2D8Async:
	case GM_API_cuMemsetD2D8Async_ptsz:
	case GM_API_cuMemsetD2D16Async:
	case GM_API_cuMemsetD2D16Async_ptsz:
	case GM_API_cuMemsetD2D32Async:
	case GM_API_cuMemsetD2D32Async_ptsz: {
		unsigned elem = strstr(api, "D2D8") ? 1 :
				strstr(api, "D2D16") ? 2 : 4;
		uint64_t s = x->nr_args > 5 ? x->args[5] : 0;
		return memset_2d(f, in, api, x->args, elem,
				 stream_of(f, x->api, s));
	}

	/* ---- launches ---- */
	case GM_API_cuLaunchKernel:
	case GM_API_cuLaunchKernel_ptsz:
	case GM_API_cuLaunchCooperativeKernel:
	case GM_API_cuLaunchCooperativeKernel_ptsz:
	case GM_API_cuLaunchKernelEx:
	case GM_API_cuLaunchKernelEx_ptsz:
		return launch(f, in, x, api);

	/* ---- code ---- */
	case GM_API_cuModuleLoad:
	case GM_API_cuModuleLoadData:
	case GM_API_cuModuleLoadDataEx:
	case GM_API_cuModuleLoadFatBinary:
	case GM_API_cuLibraryLoadData:
	case GM_API_cuLibraryLoadFromFile:
		/* the handle is the first word of all six */
		return module_load(f, in, api, x->args[0]);
	case GM_API_cuModuleUnload:
	case GM_API_cuLibraryUnload:
		if (handle_map_get(&f->module_alias, x->args[0],
				   &(uint32_t){ 0 })) {
			return 0;	/* a library's module: goes with it */
		}
		if (!live_del(f, LIVE_MODULE, x->args[0])) {
			return 0;
		}
		return model_unload_module(p, ev, x->args[0]);
	case GM_API_cuLibraryGetModule: {
		uint32_t i = (uint32_t)f->nr_alias;
		GM_ALLOC_GROW(f->alias_library, f->nr_alias + 1, f->alloc_alias);
		f->alias_library[f->nr_alias++] =
			module_of(f, ARGS(cuLibraryGetModule)->library);
		handle_map_put(&f->module_alias, ARGS(cuLibraryGetModule)->pMod,
			       i);
		return 0;
	}
	case GM_API_cuLibraryGetKernel:
		return get_kernel(f, in, x, ARGS(cuLibraryGetKernel)->pKernel,
				  ARGS(cuLibraryGetKernel)->library);
	case GM_API_cuModuleGetFunction:
		return get_kernel(f, in, x, ARGS(cuModuleGetFunction)->hfunc,
				  ARGS(cuModuleGetFunction)->hmod);
	case GM_API_cuKernelGetFunction:
		return model_alias_kernel(p, ev, ARGS(cuKernelGetFunction)->pFunc,
					  ARGS(cuKernelGetFunction)->kernel);
	case GM_API_cuLibraryGetGlobal:
	case GM_API_cuModuleGetGlobal_v2: {
		/* dptr, bytes, library or module, name */
		const char *name = x->str[0] ? x->str : in->str.buf;
		if (!x->args[1]) {
			model_add_warning(p, ev, "%s: global '%s' has no size "
					  "recorded: copies to it cannot be "
					  "relocated", api, name);
			return 0;
		}
		return model_add_global(p, ev, module_of(f, x->args[2]), name,
					x->args[0], x->args[1]);
	}
	case GM_API_cuFuncSetAttribute:
		return model_set_kernel_attr(p, ev, ARGS(cuFuncSetAttribute)->hfunc,
					     (int)ARGS(cuFuncSetAttribute)->attrib,
					     (int)ARGS(cuFuncSetAttribute)->value);
	case GM_API_cuKernelSetAttribute:
		return model_set_kernel_attr(p, ev,
					     ARGS(cuKernelSetAttribute)->kernel,
					     (int)ARGS(cuKernelSetAttribute)->attrib,
					     (int)ARGS(cuKernelSetAttribute)->val);

	/* ---- streams and events ---- */
	case GM_API_cuStreamCreate:
		if (model_add_stream(p, ev, ARGS(cuStreamCreate)->phStream,
				     (ARGS(cuStreamCreate)->Flags &
				      CU_STREAM_NON_BLOCKING) != 0, 0) < 0) {
			return -1;
		}
		live_add(f, LIVE_STREAM, ARGS(cuStreamCreate)->phStream);
		return 0;
	case GM_API_cuStreamCreateWithPriority: {
		const struct gm_args_cuStreamCreateWithPriority *a =
			ARGS(cuStreamCreateWithPriority);
		if (model_add_stream(p, ev, a->phStream,
				     (a->flags & CU_STREAM_NON_BLOCKING) != 0,
				     (int)(int32_t)a->priority) < 0) {
			return -1;
		}
		live_add(f, LIVE_STREAM, a->phStream);
		return 0;
	}
	case GM_API_cuStreamDestroy_v2:
		if (!live_del(f, LIVE_STREAM, x->args[0])) {
			return 0;
		}
		return model_destroy_stream(p, ev, x->args[0]);
	case GM_API_cuStreamWaitEvent:
	case GM_API_cuStreamWaitEvent_ptsz:
		return model_add_stream_wait(
			p, ev, api,
			stream_of(f, x->api, ARGS(cuStreamWaitEvent)->hStream),
			ARGS(cuStreamWaitEvent)->hEvent);
	case GM_API_cuStreamSynchronize:
	case GM_API_cuStreamSynchronize_ptsz:
		return model_add_stream_sync(
			p, ev, api,
			stream_of(f, x->api, ARGS(cuStreamSynchronize)->hStream));
	case GM_API_cuEventCreate:
		if (model_add_event(p, ev, ARGS(cuEventCreate)->phEvent,
				    (unsigned)ARGS(cuEventCreate)->Flags) < 0) {
			return -1;
		}
		live_add(f, LIVE_EVENT, ARGS(cuEventCreate)->phEvent);
		return 0;
	case GM_API_cuEventDestroy_v2:
		if (!live_del(f, LIVE_EVENT, x->args[0])) {
			return 0;
		}
		return model_destroy_event(p, ev, x->args[0]);
	case GM_API_cuEventRecord:
	case GM_API_cuEventRecord_ptsz:
	case GM_API_cuEventRecordWithFlags:
	case GM_API_cuEventRecordWithFlags_ptsz:
		/* hEvent, hStream, [flags] */
		return model_add_event_record(p, ev, api, x->args[0],
					      stream_of(f, x->api, x->args[1]));
	case GM_API_cuEventSynchronize:
		return model_add_event_sync(p, ev, api,
					    ARGS(cuEventSynchronize)->hEvent);

	/* ---- texture objects ---- */
	case GM_API_cuTexObjectCreate:
		return texture(f, in, x, api);
	case GM_API_cuTexObjectDestroy:
		if (handle_map_del(&f->skipped_textures, x->args[0])) {
			unsupported(f, ev, api);
			return 0;
		}
		if (!live_del(f, LIVE_TEXTURE, x->args[0])) {
			return 0;
		}
		return model_destroy_texture(p, ev, api, x->args[0]);

	/*
	 * Not replayed yet: CUDA arrays and copies to and from them, 2-D
	 * and 3-D copies, surfaces, tensor maps; and any call added to
	 * cuda_api.def without a model call here.
	 */
	default:
		f->st.replayed--;
		unsupported(f, ev, api);
		return 0;
	}
}

#undef ARGS

static int on_return(struct bundle_feed *f, const struct gm_event *x)
{
	struct pending *t = thread_of(f, x->tid);
	int ret;

	if (!t->active || t->api != x->api || t->corr != x->corr) {
		return gm_error(EVF "an exit without its entry", x->index,
				gm_event_name(x));
	}
	t->nr_calls++;
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
	if (!handle_map_get(&f->pending_d2h, ev->corr, &i)) {
		/* The copy has not returned yet (another thread synced). */
		for (size_t k = 0; k < f->nr_threads; k++) {
			struct pending *t = &f->threads[k];
			if (t->active && t->corr == ev->corr &&
			    !(ev->flags & GM_RF_UNSYNCED)) {
				t->have_late_hash = 1;
				t->late_hash = ev->blob;
				return 0;
			}
		}
		/* A copy that was skipped (failed, or of zero bytes). */
		return 0;
	}
	handle_map_del(&f->pending_d2h, ev->corr);
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

static void on_layout(struct bundle_feed *f, const struct gm_event *ev)
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
		on_layout(f, ev);
		return 0;
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
	switch (api) {
	case GM_API_cuCtxSetLimit:
		return "context limits are not replayed (the replay keeps the "
		       "defaults)";
	case GM_API_cuDevicePrimaryCtxSetFlags_v2:
	case GM_API_cuCtxSetFlags:
		return "context flags are not replayed (the replay keeps the "
		       "defaults)";
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
