/* SPDX-License-Identifier: MIT */
/*
 * The copies a program makes (cuMemcpy*, contiguous, 2-D and 3-D): the
 * host-to-device payloads go into the blob store, device-to-host results
 * are hashed when the program may read them (inject_results.c), and a
 * unified-addressing copy gets its direction, found from its pointers,
 * as an argument word. The words of 2-D and 3-D descriptors come from
 * cuda_api.def's field lists, whose names are CUDA's. A copy into a
 * capturing stream becomes a node of a graph (graph_track.h).
 */
#include <cuda.h>
#include <cupti.h>
#include <stdint.h>

#include "api.h"
#include "emit.h"
#include "graph_track.h"
#include "inject.h"

static unsigned memory_kind(CUdeviceptr p)
{
	unsigned type = 0;

	if (!inject.cu.pointer_attr ||
	    inject.cu.pointer_attr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE,
				   p) != CUDA_SUCCESS) {
		return CU_MEMORYTYPE_HOST;	/* pageable host memory */
	}
	return type;
}

static unsigned copy_kind(CUdeviceptr dst, CUdeviceptr src)
{
	int dh = memory_kind(dst) == CU_MEMORYTYPE_HOST;
	int sh = memory_kind(src) == CU_MEMORYTYPE_HOST;

	if (sh && dh) {
		return GM_COPY_H2H;
	}
	return sh ? GM_COPY_H2D : dh ? GM_COPY_D2H : GM_COPY_D2D;
}

int side_is_host(unsigned type, const void *host, CUdeviceptr dev)
{
	if (type == CU_MEMORYTYPE_HOST) {
		return 1;
	}
	if (type == CU_MEMORYTYPE_UNIFIED) {
		return memory_kind(dev ? dev : (CUdeviceptr)(uintptr_t)host) ==
		       CU_MEMORYTYPE_HOST;
	}
	return 0;
}

static const void *side_ptr(unsigned type, const void *host, CUdeviceptr dev)
{
	return type == CU_MEMORYTYPE_UNIFIED && dev ? (const void *)(uintptr_t)dev
						    : host;
}

/* The descriptor words, one a field as cuda_api.def lists them. */
#define GM_X(t, f) *w++ = (uint64_t)(uintptr_t)c->f;

static void copy2d_fields(uint64_t *w, const CUDA_MEMCPY2D *c)
{
	if (c) {
		GM_COPY2D_FIELDS
	}
}

void copy3d_fields(uint64_t *w, const CUDA_MEMCPY3D *c)
{
	if (c) {
		GM_COPY3D_FIELDS
	}
}

#undef GM_X

static struct gm_span span2d(const void *base, size_t x, size_t y,
			     size_t pitch, size_t width, size_t height)
{
	struct gm_span s;

	s.base = (const char *)base + y * pitch + x;
	s.width = width;
	s.height = height ? height : 1;
	s.depth = 1;
	s.pitch = pitch ? pitch : width;
	s.slice_pitch = s.pitch * s.height;
	return s;
}

static struct gm_span span3d(const void *base, size_t x, size_t y, size_t z,
			     size_t pitch, size_t height_stride, size_t width,
			     size_t height, size_t depth)
{
	struct gm_span s;

	s.pitch = pitch ? pitch : width;
	s.slice_pitch = s.pitch * (height_stride ? height_stride : height);
	s.base = (const char *)base + z * s.slice_pitch + y * s.pitch + x;
	s.width = width;
	s.height = height ? height : 1;
	s.depth = depth ? depth : 1;
	return s;
}

int copy3d_host_src(const CUDA_MEMCPY3D *c, struct gm_span *s)
{
	if (!side_is_host(c->srcMemoryType, c->srcHost, c->srcDevice)) {
		return 0;
	}
	*s = span3d(side_ptr(c->srcMemoryType, c->srcHost, c->srcDevice),
		    c->srcXInBytes, c->srcY, c->srcZ, c->srcPitch, c->srcHeight,
		    c->WidthInBytes, c->Height, c->Depth);
	return 1;
}

int copy3d_host_dst(const CUDA_MEMCPY3D *c, struct gm_span *s)
{
	if (!side_is_host(c->dstMemoryType, c->dstHost, c->dstDevice)) {
		return 0;
	}
	*s = span3d(side_ptr(c->dstMemoryType, c->dstHost, c->dstDevice),
		    c->dstXInBytes, c->dstY, c->dstZ, c->dstPitch, c->dstHeight,
		    c->WidthInBytes, c->Height, c->Depth);
	return 1;
}

/* A host source of @c's call: counted, and its bytes stored with the
 * event; the payload of an asynchronous copy into a capturing stream is
 * also what its node was made with (@capture). */
static void host_source(struct sp_call *c, const struct gm_span *s,
			int capture)
{
	gm_capture_add(h2d_bytes, gm_span_size(s));
	gm_capture_payload(c->r, s, GM_INLINE_MAX);
	if (capture && c->f->async) {
		gtrack_capture_source(c->key, s);
	}
}

/* A host destination of @c's call, at its successful exit: a result. */
static void host_result(struct sp_call *c, const struct gm_span *s)
{
	d2h_result(c->r, c->api, s, c->f->async, c->key);
}

/* At the successful exit of a synchronous copy: it synchronized. */
static void copy_done(const struct sp_call *c)
{
	if (!c->f->async) {
		results_complete(TRACK_SYNC_LEGACY, 0);
	}
}

void sp_h2d(struct sp_call *c)
{
	const struct api_info *f = c->f;

	if (!c->exit) {
		struct gm_span sp = gm_span_bytes(
			(const void *)(uintptr_t)c->a[f->src_host],
			c->a[f->count]);
		host_source(c, &sp, 1);
	} else if (c->ok) {
		copy_done(c);
	}
}

/* Also D2H_ASYNC. */
void sp_d2h(struct sp_call *c)
{
	const struct api_info *f = c->f;
	struct gm_span sp = gm_span_bytes(
		(const void *)(uintptr_t)c->a[f->dst_host], c->a[f->count]);

	if (!c->exit) {
		host_dst_state(c->r, &sp);
	}
	if (c->ok) {
		copy_done(c);
		host_result(c, &sp);
	}
}

/* Also MEMCPY_ASYNC: unified addressing, the direction a word of its own
 * (the last), found at the entry and passed to the exit. */
void sp_memcpy(struct sp_call *c)
{
	/* Every MEMCPY row starts with dst, src, ByteCount. */
	struct gm_args_cuMemcpy *x = ARGS(cuMemcpy, c->a);
	const void *dst = (const void *)(uintptr_t)x->dst;
	const void *src = (const void *)(uintptr_t)x->src;
	uint64_t *kp = &c->a[gm_api_table[c->api].nr_args - 1];
	unsigned kind;

	if (!c->exit) {
		kind = copy_kind(x->dst, x->src);
		*c->cb->correlationData = kind;
	} else {
		kind = (unsigned)*c->cb->correlationData;
	}
	*kp = kind;
	if (!c->exit && (kind == GM_COPY_D2H || kind == GM_COPY_H2H)) {
		struct gm_span s = gm_span_bytes(dst, x->ByteCount);
		host_dst_state(c->r, &s);
	}
	if (!c->exit && (kind == GM_COPY_H2D || kind == GM_COPY_H2H)) {
		struct gm_span s = gm_span_bytes(src, x->ByteCount);
		host_source(c, &s, 1);
	}
	if (c->ok) {
		copy_done(c);
		if (kind == GM_COPY_D2H || kind == GM_COPY_H2H) {
			struct gm_span s = gm_span_bytes(dst, x->ByteCount);
			host_result(c, &s);
		}
	}
}

/* Also COPY2D_ASYNC. */
void sp_copy2d(struct sp_call *c)
{
	const CUDA_MEMCPY2D *p =
		((const cuMemcpy2D_v2_params *)c->params)->pCopy;

	copy2d_fields(&c->a[c->f->fields], p);
	if (!p) {
		return;
	}
	if (!c->exit &&
	    side_is_host(p->srcMemoryType, p->srcHost, p->srcDevice)) {
		struct gm_span s = span2d(
			side_ptr(p->srcMemoryType, p->srcHost, p->srcDevice),
			p->srcXInBytes, p->srcY, p->srcPitch, p->WidthInBytes,
			p->Height);
		host_source(c, &s, 0);
	}
	if (c->ok) {
		copy_done(c);
		if (side_is_host(p->dstMemoryType, p->dstHost, p->dstDevice)) {
			struct gm_span s = span2d(
				side_ptr(p->dstMemoryType, p->dstHost,
					 p->dstDevice),
				p->dstXInBytes, p->dstY, p->dstPitch,
				p->WidthInBytes, p->Height);
			host_result(c, &s);
		}
	}
}

/* Also COPY3D_ASYNC. */
void sp_copy3d(struct sp_call *c)
{
	const CUDA_MEMCPY3D *p =
		((const cuMemcpy3D_v2_params *)c->params)->pCopy;
	struct gm_span s;

	copy3d_fields(&c->a[c->f->fields], p);
	if (!p) {
		return;
	}
	if (!c->exit && copy3d_host_src(p, &s)) {
		host_source(c, &s, 0);
	}
	if (c->ok) {
		copy_done(c);
		if (copy3d_host_dst(p, &s)) {
			host_result(c, &s);
		}
	}
}
