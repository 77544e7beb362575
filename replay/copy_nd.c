/* SPDX-License-Identifier: MIT */
/*
 * 2-D and 3-D copies and CUDA arrays in the replay (see copy_nd.h).
 */
#include "copy_nd.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cu_check.h"
#include "error.h"
#include "replay_int.h"

int gm_arrays_init(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;

	if (!d->nr_arrays) {
		return 0;
	}
	p->arrays = gm_xcalloc(d->nr_arrays, sizeof(*p->arrays));
	p->array_live = gm_xcalloc(d->nr_arrays, 1);
	for (uint32_t i = 0; i < d->nr_arrays; i++) {
		const struct gm_array_desc *a = &d->arrays[i];
		CUDA_ARRAY3D_DESCRIPTOR ad;

		memset(&ad, 0, sizeof(ad));
		ad.Width = a->width;
		ad.Height = a->height;
		ad.Depth = a->depth;
		ad.Format = (CUarray_format)a->format;
		ad.NumChannels = a->channels;
		ad.Flags = a->flags;
		if (CU_CHECK(cuArray3DCreate(&p->arrays[i], &ad))) {
			return gm_error("array %" PRIu32 " (%" PRIu64 " x %"
					PRIu64 " x %" PRIu64 ", format %" PRIu32
					", %" PRIu32 " channels)", i, a->width,
					a->height, a->depth, a->format,
					a->channels);
		}
	}
	return 0;
}

void gm_arrays_reset(struct gm_prog *p)
{
	if (p->array_live) {
		memset(p->array_live, 0, p->d->nr_arrays);
	}
}

void gm_arrays_release(struct gm_prog *p)
{
	for (uint32_t i = 0; p->arrays && i < p->d->nr_arrays; i++) {
		if (p->arrays[i]) {
			cuArrayDestroy(p->arrays[i]);
		}
	}
	free(p->arrays);
	free(p->array_live);
	p->arrays = NULL;
	p->array_live = NULL;
}

int gm_array_op(struct gm_prog *p, const struct gm_op *op, uint64_t index)
{
	int create = op->code == GM_OP_ARRAY_CREATE;

	if (op->a >= p->d->nr_arrays) {
		return gm_error("no array %" PRIu32, op->a);
	}
	if (p->array_live[op->a] == create) {
		return gm_error("array %" PRIu32 " is %s live", op->a,
				create ? "already" : "not");
	}
	p->array_live[op->a] = (uint8_t)create;
	return 0;
}

/* One end of @c's copy into the driver's fields; @host: the op's host
 * data there (rows packed). */
static int end(struct gm_prog *p, const struct gm_copy_desc *c,
	       const struct gm_copy_end *e, const void *host,
	       CUmemorytype *type, const void **h, CUdeviceptr *dev,
	       CUarray *arr, size_t *x, size_t *y, size_t *z, size_t *pitch,
	       size_t *height)
{
	uint64_t depth = c->depth ? c->depth : 1;
	uint64_t rows = c->height ? c->height : 1;

	switch (e->kind) {
	case GM_END_HOST:
		*type = CU_MEMORYTYPE_HOST;
		*h = host;
		*pitch = c->width;
		*height = rows;
		return 0;
	case GM_END_DEVICE: {
		uint64_t slice = e->pitch * (e->height ? e->height : rows);
		uint64_t extent = (e->z + depth - 1) * slice +
				  (e->y + rows - 1) * e->pitch + e->x + c->width;
		*type = CU_MEMORYTYPE_DEVICE;
		if (gm_resolve(p, e->ref, e->offset, extent, dev) < 0) {
			return -1;
		}
		*x = e->x;
		*y = e->y;
		*z = e->z;
		*pitch = e->pitch;
		*height = e->height;
		return 0;
	}
	case GM_END_ARRAY:
		*type = CU_MEMORYTYPE_ARRAY;
		if (!(*arr = gm_array_live(p, e->ref))) {
			return -1;
		}
		*x = e->x;
		*y = e->y;
		*z = e->z;
		return 0;
	}
	return gm_error("bad copy end kind %" PRIu32, e->kind);
}

int gm_copy_nd_prepare(struct gm_prog *p, const struct gm_op *op,
		       struct gm_copy_nd *out)
{
	const struct gm_copy_desc *c;
	const void *in = NULL;
	void *outh = NULL;
	CUDA_MEMCPY3D *m = &out->m;

	if (op->a >= p->d->nr_copydescs) {
		return gm_error("no copy description %" PRIu32, op->a);
	}
	c = &p->d->copydescs[op->a];
	if (op->code == GM_OP_COPY_IN) {
		in = (const uint8_t *)p->run->blob_host[op->b] + op->y;
	} else if (op->code == GM_OP_COPY_OUT) {
		outh = ((op->flags & GM_F_PINNED) ? p->arena_pinned :
						    p->arena) + op->y;
	}
	memset(out, 0, sizeof(*out));
	out->call = c->call;
	if (end(p, c, &c->src, in, &m->srcMemoryType, &m->srcHost,
		&m->srcDevice, &m->srcArray, &m->srcXInBytes, &m->srcY,
		&m->srcZ, &m->srcPitch, &m->srcHeight) < 0 ||
	    end(p, c, &c->dst, outh, &m->dstMemoryType,
		(const void **)&m->dstHost, &m->dstDevice, &m->dstArray,
		&m->dstXInBytes, &m->dstY, &m->dstZ, &m->dstPitch,
		&m->dstHeight) < 0) {
		return -1;
	}
	m->WidthInBytes = c->width;
	m->Height = c->height ? c->height : 1;
	m->Depth = c->depth ? c->depth : 1;
	return 0;
}

/* The 2-D form of @m (its first slice). */
static void to_2d(const CUDA_MEMCPY3D *m, CUDA_MEMCPY2D *c)
{
	memset(c, 0, sizeof(*c));
	c->srcXInBytes = m->srcXInBytes;
	c->srcY = m->srcY;
	c->srcMemoryType = m->srcMemoryType;
	c->srcHost = m->srcHost;
	c->srcDevice = m->srcDevice;
	c->srcArray = m->srcArray;
	c->srcPitch = m->srcPitch;
	c->dstXInBytes = m->dstXInBytes;
	c->dstY = m->dstY;
	c->dstMemoryType = m->dstMemoryType;
	c->dstHost = m->dstHost;
	c->dstDevice = m->dstDevice;
	c->dstArray = m->dstArray;
	c->dstPitch = m->dstPitch;
	c->WidthInBytes = m->WidthInBytes;
	c->Height = m->Height;
}

int gm_copy_nd_issue(const struct gm_copy_nd *c, CUstream st)
{
	CUDA_MEMCPY2D two;

	switch (c->call) {
	case GM_COPYCALL_2D:
		to_2d(&c->m, &two);
		return CU_CHECK(cuMemcpy2DAsync(&two, st));
	case GM_COPYCALL_2D_UNALIGNED:
		/* No asynchronous form: the program's call was synchronous
		 * (the caller synchronized the stream before). */
		to_2d(&c->m, &two);
		return CU_CHECK(cuMemcpy2DUnaligned(&two));
	case GM_COPYCALL_3D:
		return CU_CHECK(cuMemcpy3DAsync(&c->m, st));
	}
	return gm_error("bad copy call %" PRIu32, c->call);
}

int gm_copy_nd_is_op(unsigned code)
{
	return code == GM_OP_COPY_IN || code == GM_OP_COPY_OUT ||
	       code == GM_OP_COPY_DEV;
}
