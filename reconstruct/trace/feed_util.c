/* SPDX-License-Identifier: MIT */
/*
 * The helpers of the bundle feed's handlers: threads, live handles,
 * context resets, the exits' source data, copies, launches, kernels,
 * textures and modules, unsupported calls, and the handlers of calls
 * without a device effect.
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

/* ---- small helpers ---- */

struct pending *feed_thread_of(struct bundle_feed *f, uint32_t tid)
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

void feed_note(struct api_note *n, uint64_t ev, int32_t status)
{
	if (!n->count++) {
		n->first = ev;
		n->status = status;
	}
}

/* The stream a call means: stream 0 of a _ptds/_ptsz twin is its thread's. */
uint64_t feed_stream_of(const struct gm_event *x, uint64_t h)
{
	return gm_api_table[x->api].flavour != GM_FLAVOUR_LEGACY && h == 0 ?
		       STREAM_PER_THREAD : h;
}

uint64_t feed_module_of(const struct bundle_feed *f, uint64_t h)
{
	uint32_t i;

	return handle_map_get(&f->module_alias, h, &i) ? f->alias_library[i] : h;
}

void feed_live_add(struct bundle_feed *f, enum live_kind k, uint64_t h)
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
int feed_drop_live(struct bundle_feed *f, enum live_kind k, uint64_t ev,
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
int feed_first_time(struct bundle_feed *f, struct gm_hash h)
{
	int is_new;

	gm_strmap_add(&f->checked, &h, sizeof(h), &is_new);
	return is_new;
}


/* ---- exits: the call table ---- */

/* The host-to-device source bytes of a call as a model blob. */
int feed_source_blob(struct bundle_feed *f, const struct pending *in,
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
int feed_copy_d2h(struct bundle_feed *f, const struct pending *in,
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

int feed_copy_h2d(struct bundle_feed *f, const struct pending *in,
		    const char *api, struct model_copy *c)
{
	c->kind = MODEL_H2D;
	if (c->size && feed_source_blob(f, in, api, c->size, &c->blob) < 0) {
		return -1;
	}
	c->blob_offset = 0;
	return model_add_copy(f->p, in->index, api, c);
}

int feed_memset_2d(struct bundle_feed *f, const struct pending *in,
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

/* The kernel, grid, block, shared memory and stream every feed_launch names
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
		(l)->stream = feed_stream_of((x), (a)->hStream);                    \
	} while (0)

int feed_launch(struct bundle_feed *f, const struct pending *in,
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
			return gm_error(EVF "%" PRIu64 " feed_launch attributes in %"
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
						"%s: feed_launch attribute %d is "
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
void feed_split_layout(const uint8_t *data, size_t len, uint32_t *nr,
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

int feed_get_kernel(struct bundle_feed *f, const struct pending *in,
		      const struct gm_event *x, uint64_t handle,
		      uint64_t module)
{
	const char *name = x->str[0] ? x->str : in->str.buf;
	uint32_t nr = 0, *off = NULL, *sz = NULL;
	int ret;

	if (x->data_len) {
		feed_split_layout(x->data, x->data_len, &nr, &off, &sz);
	}
	ret = model_add_kernel(f->p, in->index, handle, feed_module_of(f, module),
			       name, nr, off, sz);
	free(off);
	free(sz);
	return ret;
}

int feed_texture(struct bundle_feed *f, const struct pending *in,
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
	feed_live_add(f, LIVE_TEXTURE, a->pTexObject);
	return 0;
}

int feed_module_load(struct bundle_feed *f, const struct pending *in,
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
	feed_live_add(f, LIVE_MODULE, handle);
	return 0;
}

void feed_unsupported(struct bundle_feed *f, uint64_t ev, const char *api)
{
	model_add_unsupported(f->p, ev, api);
	f->st.unsupported++;
}



/* No device effect in a replay: one context, set up by the runtime. */
int feed_do_noop(const struct call *c)
{
	return 0;
}

/* Preferences and limits: the replay keeps the defaults. */
int feed_do_skip(const struct call *c)
{
	feed_note(&c->f->skipped[c->x->api], c->ev, 0);
	return 0;
}

int feed_do_ctx_reset(const struct call *c)
{
	return reset_context(c->f, c->ev, c->api);
}

int feed_do_ctx_sync(const struct call *c)
{
	return model_add_op(c->f->p, c->ev, c->api, GM_OP_CTX_SYNC) ? 0 : -1;
}
