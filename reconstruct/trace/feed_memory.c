/* SPDX-License-Identifier: MIT */
/*
 * The bundle feed's memory calls: allocations, virtual memory
 * management, mapped and managed memory, copies (2-D, 3-D, CUDA arrays)
 * and memsets.
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

int feed_do_alloc(const struct call *c)
{
	int host = gm_api_table[c->x->api].replay == GM_RK_HOST_ALLOC;
	uint64_t ptr = c->x->args[0], size = c->x->args[1];
	int ret = host ? model_add_host_alloc(c->f->p, c->ev, ptr, size) :
			 model_add_alloc(c->f->p, c->ev, c->api, ptr, size);

	if (ret < 0) {
		return -1;
	}
	feed_live_add(c->f, host ? LIVE_HOST : LIVE_ALLOC, ptr);
	return 0;
}

int feed_do_alloc_pitch(const struct call *c)
{
	const struct gm_args_cuMemAllocPitch_v2 *a = ARGS(cuMemAllocPitch_v2);

	if (model_add_alloc(c->f->p, c->ev, c->api, a->dptr,
			    a->pPitch * a->Height) < 0) {
		return -1;
	}
	feed_live_add(c->f, LIVE_ALLOC, a->dptr);
	return 0;
}

int feed_do_free(const struct call *c)
{
	int host = gm_api_table[c->x->api].replay == GM_RK_HOST_FREE;

	return feed_drop_live(c->f, host ? LIVE_HOST : LIVE_ALLOC, c->ev, c->api,
			 c->x->args[0]);
}

/* ---- virtual memory management (model_vmm.c) ---- */

int feed_do_vmm_reserve(const struct call *c)
{
	const struct gm_args_cuMemAddressReserve *a = ARGS(cuMemAddressReserve);

	if (model_vmm_reserve(c->f->p, c->ev, c->api, a->ptr, a->size) < 0) {
		return -1;
	}
	feed_live_add(c->f, LIVE_VMM_RES, a->ptr);
	return 0;
}

int feed_do_vmm_free(const struct call *c)
{
	return feed_drop_live(c->f, LIVE_VMM_RES, c->ev, c->api,
			 ARGS(cuMemAddressFree)->ptr);
}

int feed_do_vmm_create(const struct call *c)
{
	const struct gm_args_cuMemCreate *a = ARGS(cuMemCreate);

	if (model_vmm_create(c->f->p, c->ev, c->api, a->handle, a->size,
			     (unsigned)a->locType) < 0) {
		return -1;
	}
	feed_live_add(c->f, LIVE_VMM_MEM, a->handle);
	return 0;
}

int feed_do_vmm_release(const struct call *c)
{
	return feed_drop_live(c->f, LIVE_VMM_MEM, c->ev, c->api,
			 ARGS(cuMemRelease)->handle);
}

int feed_do_vmm_map(const struct call *c)
{
	const struct gm_args_cuMemMap *a = ARGS(cuMemMap);

	return model_vmm_map(c->f->p, c->ev, c->api, a->ptr, a->size,
			     a->offset, a->handle);
}

int feed_do_vmm_unmap(const struct call *c)
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

int feed_do_managed_alloc(const struct call *c)
{
	const struct gm_args_cuMemAllocManaged *a = ARGS(cuMemAllocManaged);

	if (model_add_managed(c->f->p, c->ev, a->dptr, a->bytesize) < 0) {
		return -1;
	}
	/* Freed by cuMemFree like device memory (model_add_free). */
	feed_live_add(c->f, LIVE_ALLOC, a->dptr);
	return 0;
}

int feed_do_host_devptr(const struct call *c)
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

int feed_do_prefetch(const struct call *c)
{
	const struct gm_args_cuMemPrefetchAsync_v2 *a =
		ARGS(cuMemPrefetchAsync_v2);

	return model_add_prefetch(c->f->p, c->ev, c->api, a->devPtr, a->count,
				  where(a->locType),
				  feed_stream_of(c->x, a->hStream));
}

SAME_WORD(cuStreamAttachMemAsync, cuStreamAttachMemAsync_ptsz, flags);

int feed_do_attach_mem(const struct call *c)
{
	const struct gm_args_cuStreamAttachMemAsync *a =
		ARGS(cuStreamAttachMemAsync);

	return model_add_attach(c->f->p, c->ev, c->api, a->dptr, a->length,
				(unsigned)a->flags,
				feed_stream_of(c->x, a->hStream));
}

int feed_do_advise(const struct call *c)
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

int feed_do_copy(const struct call *c)
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
	cp.stream = feed_stream_of(c->x, async ? w[3] : 0);
	cp.flags = async ? 0 : MODEL_SYNC;
	switch (dir) {
	case GM_COPY_H2D:
		return feed_copy_h2d(c->f, c->in, c->api, &cp);
	case GM_COPY_D2H:
		return feed_copy_d2h(c->f, c->in, c->x, c->api, &cp);
	case GM_COPY_D2D:
		cp.kind = MODEL_D2D;
		return model_add_copy(c->f->p, c->ev, c->api, &cp);
	case GM_COPY_H2H:
		/* No device effect; its result needs no check. */
		handle_map_put(&c->f->done_d2h, c->in->corr, 1);
		return 0;
	default:
		feed_unsupported(c->f, c->ev, c->api);
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
	    feed_source_blob(f, in, api, packed, &c->blob) < 0) {
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

int feed_do_copy_2d(const struct call *c)
{
	int a = gm_api_arg_index(c->x->api, "srcXInBytes");
	int s = gm_api_arg_index(c->x->api, "hStream");
	struct model_copy_nd nd;

	memset(&nd, 0, sizeof(nd));
	copy2d_words(c->f, c->x->args + a, &nd);
	nd.call = strstr(c->api, "Unaligned") ? GM_COPYCALL_2D_UNALIGNED :
						 GM_COPYCALL_2D;
	nd.stream = feed_stream_of(c->x, s >= 0 ? c->x->args[s] : 0);
	nd.flags = s >= 0 ? 0 : MODEL_SYNC;
	return copy_nd(c->f, c->in, c->x, c->api, &nd);
}

int feed_do_copy_3d(const struct call *c)
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
			feed_unsupported(c->f, c->ev, c->api);	/* a mipmap level */
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
	nd.stream = feed_stream_of(c->x, s >= 0 ? c->x->args[s] : 0);
	nd.flags = s >= 0 ? 0 : MODEL_SYNC;
	return copy_nd(c->f, c->in, c->x, c->api, &nd);
}

/*
 * @bytes at linear @offset of array @h as a rectangle of its rows: within
 * one row, or whole rows. 0, or 1 when it is neither (feed_unsupported), -1
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

int feed_do_copy_array(const struct call *c)
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
	nd.stream = feed_stream_of(c->x, s >= 0 ? c->x->args[s] : 0);
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
		feed_unsupported(c->f, c->ev, c->api);
		return 0;
	}
	nd.width = width;
	nd.height = height;
	return copy_nd(c->f, c->in, c->x, c->api, &nd);
}

int feed_do_array_create(const struct call *c)
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

int feed_do_array_destroy(const struct call *c)
{
	return model_destroy_array(c->f->p, c->ev, c->api, c->x->args[0]);
}

/* ---- memsets: never synchronous with the host ---- */

int feed_do_memset(const struct call *c)
{
	const uint64_t *w = c->x->args;
	/* dstDevice, value, N, [hStream] */
	unsigned elem = strstr(c->api, "D8") ? 1 :
			strstr(c->api, "D16") ? 2 : 4;
	uint64_t s = c->x->nr_args > 3 ? w[3] : 0;

	return model_add_memset(c->f->p, c->ev, c->api, w[0], (uint32_t)w[1],
				elem, w[2], feed_stream_of(c->x, s), 0);
}

int feed_do_memset_2d(const struct call *c)
{
	unsigned elem = strstr(c->api, "D2D8") ? 1 :
			strstr(c->api, "D2D16") ? 2 : 4;
	uint64_t s = c->x->nr_args > 5 ? c->x->args[5] : 0;

	return feed_memset_2d(c->f, c->in, c->api, c->x->args, elem,
			 feed_stream_of(c->x, s));
}
