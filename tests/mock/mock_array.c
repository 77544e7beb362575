/* SPDX-License-Identifier: MIT */
/*
 * CUDA arrays and 2-D and 3-D copies in the mock CUDA driver. An array is
 * host memory of width x height x depth elements (a height or depth of 0
 * counts as 1), each of its format's bytes times its channels, rows
 * packed; a copy moves WidthInBytes x Height x Depth bytes between host
 * memory, device memory (pitched: pitch and rows per slice) and arrays,
 * checking at the call, as CUDA does, that every row it touches lies in
 * one live allocation, in page-locked or pageable host memory, or inside
 * the array (positions and widths in whole elements), so a wrong
 * relocation, pitch or position is an error rather than a silent
 * corruption. Copies queue on their stream like the others (the
 * synchronous ones on the legacy stream, then waited for); a pageable
 * host source is staged at the call, as CUDA does. A texture object over
 * an array (mock_cuda.c) reads its elements.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_int.h"

#define ARRAY_MAGIC 0xa77a1u

struct marray {
	uint32_t magic;
	size_t width, height, depth;	/* elements, rows, slices (>= 1) */
	unsigned elem;			/* bytes per element */
	CUarray_format format;
	unsigned channels;
	uint8_t *data;
};

static unsigned format_bytes(CUarray_format f)
{
	switch (f) {
	case CU_AD_FORMAT_UNSIGNED_INT8:
	case CU_AD_FORMAT_SIGNED_INT8:
		return 1;
	case CU_AD_FORMAT_UNSIGNED_INT16:
	case CU_AD_FORMAT_SIGNED_INT16:
	case CU_AD_FORMAT_HALF:
		return 2;
	case CU_AD_FORMAT_UNSIGNED_INT32:
	case CU_AD_FORMAT_SIGNED_INT32:
	case CU_AD_FORMAT_FLOAT:
		return 4;
	default:
		return 0;
	}
}

static struct marray *array_of(CUarray h)
{
	struct marray *a = (struct marray *)h;

	return a && a->magic == ARRAY_MAGIC ? a : NULL;
}

static CUresult make(CUarray *out, size_t w, size_t h, size_t d,
		     CUarray_format f, unsigned ch, unsigned flags)
{
	unsigned eb = format_bytes(f);
	struct marray *a;

	if (!out || !w || !eb || (ch != 1 && ch != 2 && ch != 4) ||
	    (flags & ~(unsigned)(CUDA_ARRAY3D_SURFACE_LDST |
				 CUDA_ARRAY3D_TEXTURE_GATHER))) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	a = calloc(1, sizeof(*a));
	if (!a) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	a->width = w;
	a->height = h ? h : 1;
	a->depth = d ? d : 1;
	a->elem = eb * ch;
	a->format = f;
	a->channels = ch;
	a->data = calloc(a->width * a->height * a->depth, a->elem);
	if (!a->data) {
		free(a);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	a->magic = ARRAY_MAGIC;
	*out = (CUarray)a;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuArrayCreate(CUarray *pHandle,
			       const CUDA_ARRAY_DESCRIPTOR *d)
{
	if (!d) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	return make(pHandle, d->Width, d->Height, 0, d->Format, d->NumChannels,
		    0);
}

CUresult CUDAAPI cuArray3DCreate(CUarray *pHandle,
				 const CUDA_ARRAY3D_DESCRIPTOR *d)
{
	if (!d) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	return make(pHandle, d->Width, d->Height, d->Depth, d->Format,
		    d->NumChannels, d->Flags);
}

CUresult CUDAAPI cuArrayDestroy(CUarray h)
{
	struct marray *a = array_of(h);

	if (!a) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	/* As CUDA does: queued work may still use it. */
	mock_device_sync();
	a->magic = 0;
	free(a->data);
	free(a);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuArray3DGetDescriptor(CUDA_ARRAY3D_DESCRIPTOR *d, CUarray h)
{
	struct marray *a = array_of(h);

	if (!a || !d) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	memset(d, 0, sizeof(*d));
	d->Width = a->width;
	d->Height = a->height;
	d->Depth = a->depth;
	d->Format = a->format;
	d->NumChannels = a->channels;
	return CUDA_SUCCESS;
}

int mock_array_span(CUarray h, uintptr_t *base, size_t *bytes, size_t *width,
		    size_t *height)
{
	struct marray *a = array_of(h);

	if (!a) {
		return -1;
	}
	*base = (uintptr_t)a->data;
	*bytes = a->width * a->height * a->depth * a->elem;
	*width = a->width;
	*height = a->height;
	return 0;
}

/* One end of a copy, resolved: the first byte of each row is
 * base + z * slice + y * pitch. */
struct row_end {
	uint8_t *base;
	size_t pitch, slice;
};

/*
 * Resolve one end: @t, its host, device and array fields, its position
 * and pitches. Checks every row of the copy lies where it should.
 */
static int resolve(CUmemorytype t, const void *host, CUdeviceptr dev,
		   CUarray arr, size_t x, size_t y, size_t z, size_t pitch,
		   size_t height, const CUDA_MEMCPY3D *m, struct row_end *e,
		   int *is_host, const char *what)
{
	size_t rows = m->Height ? m->Height : 1, depth = m->Depth ? m->Depth : 1;

	*is_host = 0;
	if (t == CU_MEMORYTYPE_ARRAY) {
		struct marray *a = array_of(arr);
		size_t row;
		if (!a) {
			fprintf(stderr, "mock cuda: copy %s: not an array\n", what);
			return -1;
		}
		row = a->width * a->elem;
		if (x % a->elem || m->WidthInBytes % a->elem ||
		    x + m->WidthInBytes > row || y + rows > a->height ||
		    z + depth > a->depth) {
			fprintf(stderr, "mock cuda: copy %s: %zu x %zu x %zu "
				"bytes at (%zu, %zu, %zu) do not fit the "
				"array\n", what, m->WidthInBytes, rows, depth,
				x, y, z);
			return -1;
		}
		e->pitch = row;
		e->slice = row * a->height;
		e->base = a->data + x + y * row + z * e->slice;
		return 0;
	}
	if (t == CU_MEMORYTYPE_UNIFIED) {
		uintptr_t p = dev ? dev : (uintptr_t)host;
		t = mock_quietly_valid(p, 1) ? CU_MEMORYTYPE_DEVICE :
					       CU_MEMORYTYPE_HOST;
		dev = p;
		host = (const void *)p;
	}
	if (t != CU_MEMORYTYPE_HOST && t != CU_MEMORYTYPE_DEVICE) {
		return -1;
	}
	if (pitch < m->WidthInBytes && (rows > 1 || depth > 1)) {
		fprintf(stderr, "mock cuda: copy %s: pitch %zu below the width "
			"%zu\n", what, pitch, m->WidthInBytes);
		return -1;
	}
	e->pitch = pitch ? pitch : m->WidthInBytes;
	e->slice = e->pitch * (height ? height : rows);
	if (t == CU_MEMORYTYPE_HOST) {
		*is_host = 1;
		e->base = (uint8_t *)host + x + y * e->pitch + z * e->slice;
		return host ? 0 : -1;
	}
	e->base = (uint8_t *)(uintptr_t)dev + x + y * e->pitch + z * e->slice;
	/* first and last rows: one allocation */
	return mock_valid_device((uintptr_t)e->base,
				 (depth - 1) * e->slice + (rows - 1) * e->pitch +
					 m->WidthInBytes) ? 0 : -1;
}

struct nd_cmd {
	struct mock_cmd c;
	struct row_end src, dst;
	size_t width, rows, depth;
	uint8_t staged[];		/* a pageable source, packed */
};

static void nd_exec(struct mock_cmd *c)
{
	struct nd_cmd *n = (struct nd_cmd *)c;

	for (size_t z = 0; z < n->depth; z++) {
		for (size_t y = 0; y < n->rows; y++) {
			memcpy(n->dst.base + z * n->dst.slice + y * n->dst.pitch,
			       n->src.base + z * n->src.slice + y * n->src.pitch,
			       n->width);
		}
	}
}

/* A queued copy made from a staged command points into itself. */
static void nd_rebase(struct mock_cmd *copy, const struct mock_cmd *from)
{
	struct nd_cmd *n = (struct nd_cmd *)copy;
	const struct nd_cmd *f = (const struct nd_cmd *)from;

	if (f->src.base == f->staged) {
		n->src.base = n->staged;
	}
}

/* Queue the copy @m on @s, made by driver call @cbid; @stage: a
 * pageable host source is taken at the call. */
static CUresult copy3d_as(const CUDA_MEMCPY3D *m, CUstream s, uint32_t cbid,
			  int stage)
{
	uint64_t t0 = mock_now();
	struct row_end src, dst;
	int sh, dh;
	size_t rows, depth, packed;
	struct nd_cmd *n;
	CUresult r;

	if (!m || !m->WidthInBytes) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	rows = m->Height ? m->Height : 1;
	depth = m->Depth ? m->Depth : 1;
	if (m->srcLOD || m->dstLOD ||
	    resolve(m->srcMemoryType, m->srcHost, m->srcDevice, m->srcArray,
		    m->srcXInBytes, m->srcY, m->srcZ, m->srcPitch,
		    m->srcHeight, m, &src, &sh, "source") < 0 ||
	    resolve(m->dstMemoryType, m->dstHost, m->dstDevice, m->dstArray,
		    m->dstXInBytes, m->dstY, m->dstZ, m->dstPitch,
		    m->dstHeight, m, &dst, &dh, "destination") < 0) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	packed = m->WidthInBytes * rows * depth;
	sh = sh && stage && !mock_page_locked(src.base, 1);
	n = calloc(1, sizeof(*n) + (sh ? packed : 0));
	if (!n) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	n->c.exec = nd_exec;
	n->c.size = sizeof(*n) + (sh ? packed : 0);
	n->c.rebase = nd_rebase;
	n->c.call_ns = t0;
	n->c.corr = mock_api_record(cbid, t0);
	n->src = src;
	n->dst = dst;
	n->width = m->WidthInBytes;
	n->rows = rows;
	n->depth = depth;
	if (sh) {
		/* pageable: staged now, packed */
		for (size_t z = 0; z < depth; z++) {
			for (size_t y = 0; y < rows; y++) {
				memcpy(n->staged + (z * rows + y) * n->width,
				       src.base + z * src.slice + y * src.pitch,
				       n->width);
			}
		}
		n->src.base = n->staged;
		n->src.pitch = n->width;
		n->src.slice = n->width * rows;
	}
	mock_call_log("copy", packed, t0);
	r = mock_enqueue(s, &n->c);
	if (r != CUDA_SUCCESS) {
		free(n);
	}
	return r;
}

static CUresult copy3d(const CUDA_MEMCPY3D *m, CUstream s, uint32_t cbid)
{
	return copy3d_as(m, s, cbid, 1);
}

static void from_2d(const CUDA_MEMCPY2D *c, CUDA_MEMCPY3D *m)
{
	memset(m, 0, sizeof(*m));
	m->srcXInBytes = c->srcXInBytes;
	m->srcY = c->srcY;
	m->srcMemoryType = c->srcMemoryType;
	m->srcHost = c->srcHost;
	m->srcDevice = c->srcDevice;
	m->srcArray = c->srcArray;
	m->srcPitch = c->srcPitch;
	m->dstXInBytes = c->dstXInBytes;
	m->dstY = c->dstY;
	m->dstMemoryType = c->dstMemoryType;
	m->dstHost = c->dstHost;
	m->dstDevice = c->dstDevice;
	m->dstArray = c->dstArray;
	m->dstPitch = c->dstPitch;
	m->WidthInBytes = c->WidthInBytes;
	m->Height = c->Height;
	m->Depth = 1;
}

/* A synchronous copy: on the legacy stream, waited for. */
static CUresult wait_legacy(CUresult r)
{
	return r == CUDA_SUCCESS ? cuStreamSynchronize(NULL) : r;
}

CUresult CUDAAPI cuMemcpy2DAsync(const CUDA_MEMCPY2D *c, CUstream s)
{
	MOCK_API(cuMemcpy2DAsync_v2);
	CUDA_MEMCPY3D m;

	if (!c) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	from_2d(c, &m);
	return copy3d(&m, s, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DAsync_v2);
}

CUresult CUDAAPI cuMemcpy2D(const CUDA_MEMCPY2D *c)
{
	MOCK_API(cuMemcpy2D_v2);
	CUDA_MEMCPY3D m;

	if (!c) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	from_2d(c, &m);
	return wait_legacy(copy3d(&m, NULL, CUPTI_DRIVER_TRACE_CBID_cuMemcpy2D_v2));
}

CUresult CUDAAPI cuMemcpy2DUnaligned(const CUDA_MEMCPY2D *c)
{
	MOCK_API(cuMemcpy2DUnaligned_v2);
	CUDA_MEMCPY3D m;

	if (!c) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	from_2d(c, &m);
	return wait_legacy(copy3d(&m, NULL,
				  CUPTI_DRIVER_TRACE_CBID_cuMemcpy2DUnaligned_v2));
}

CUresult CUDAAPI cuMemcpy3DAsync(const CUDA_MEMCPY3D *m, CUstream s)
{
	MOCK_API(cuMemcpy3DAsync_v2);

	return copy3d(m, s, CUPTI_DRIVER_TRACE_CBID_cuMemcpy3DAsync_v2);
}

CUresult CUDAAPI cuMemcpy3D(const CUDA_MEMCPY3D *m)
{
	MOCK_API(cuMemcpy3D_v2);

	return wait_legacy(copy3d(m, NULL, CUPTI_DRIVER_TRACE_CBID_cuMemcpy3D_v2));
}

/*
 * The copies of a linear range of an array (cuMemcpyHtoA and kin): its
 * elements packed, so the range is ByteCount bytes from the offset.
 */
static uint8_t *array_range(CUarray h, size_t offset, size_t n)
{
	struct marray *a = array_of(h);
	size_t bytes;

	if (!a) {
		return NULL;
	}
	bytes = a->width * a->height * a->depth * a->elem;
	if (offset > bytes || n > bytes - offset || offset % a->elem ||
	    n % a->elem) {
		fprintf(stderr, "mock cuda: %zu bytes at offset %zu of an "
			"array of %zu\n", n, offset, bytes);
		return NULL;
	}
	return a->data + offset;
}

/* Queue a linear copy as a one-row copy on @s, or on the legacy stream
 * waited for (@sync); @stage: a pageable host source (HtoA). */
static CUresult linear_as(void *dst, const void *src, size_t n, CUstream s,
			  int sync, uint32_t cbid, int stage)
{
	CUDA_MEMCPY3D m;

	if (!dst || !src) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	memset(&m, 0, sizeof(m));
	/* host memory at both ends: the mock's device memory is the host's;
	 * the checks were made by the caller */
	m.srcMemoryType = CU_MEMORYTYPE_HOST;
	m.srcHost = src;
	m.dstMemoryType = CU_MEMORYTYPE_HOST;
	m.dstHost = dst;
	m.WidthInBytes = n;
	m.Height = 1;
	m.Depth = 1;
	return sync ? wait_legacy(copy3d_as(&m, NULL, cbid, stage)) :
		      copy3d_as(&m, s, cbid, stage);
}

static CUresult linear(void *dst, const void *src, size_t n, CUstream s,
		       int sync, uint32_t cbid)
{
	return linear_as(dst, src, n, s, sync, cbid, 0);
}

CUresult CUDAAPI cuMemcpyHtoA(CUarray dstArray, size_t dstOffset,
			      const void *srcHost, size_t n)
{
	MOCK_API(cuMemcpyHtoA_v2);

	return linear_as(array_range(dstArray, dstOffset, n), srcHost, n, NULL,
			 1, CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoA_v2, 1);
}

CUresult CUDAAPI cuMemcpyAtoH(void *dstHost, CUarray srcArray,
			      size_t srcOffset, size_t n)
{
	MOCK_API(cuMemcpyAtoH_v2);

	return linear(dstHost, array_range(srcArray, srcOffset, n), n, NULL, 1,
		      CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoH_v2);
}

CUresult CUDAAPI cuMemcpyHtoAAsync(CUarray dstArray, size_t dstOffset,
				   const void *srcHost, size_t n, CUstream s)
{
	MOCK_API(cuMemcpyHtoAAsync_v2);

	return linear_as(array_range(dstArray, dstOffset, n), srcHost, n, s, 0,
			 CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoAAsync_v2, 1);
}

CUresult CUDAAPI cuMemcpyAtoHAsync(void *dstHost, CUarray srcArray,
				   size_t srcOffset, size_t n, CUstream s)
{
	MOCK_API(cuMemcpyAtoHAsync_v2);

	return linear(dstHost, array_range(srcArray, srcOffset, n), n, s, 0,
		      CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoHAsync_v2);
}

CUresult CUDAAPI cuMemcpyDtoA(CUarray dstArray, size_t dstOffset,
			      CUdeviceptr src, size_t n)
{
	MOCK_API(cuMemcpyDtoA_v2);

	if (!mock_valid_device(src, n)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	return linear(array_range(dstArray, dstOffset, n),
		      (const void *)(uintptr_t)src, n, NULL, 1,
		      CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoA_v2);
}

CUresult CUDAAPI cuMemcpyAtoD(CUdeviceptr dst, CUarray srcArray,
			      size_t srcOffset, size_t n)
{
	MOCK_API(cuMemcpyAtoD_v2);

	if (!mock_valid_device(dst, n)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	return linear((void *)(uintptr_t)dst,
		      array_range(srcArray, srcOffset, n), n, NULL, 1,
		      CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoD_v2);
}

CUresult CUDAAPI cuMemcpyAtoA(CUarray dstArray, size_t dstOffset,
			      CUarray srcArray, size_t srcOffset, size_t n)
{
	MOCK_API(cuMemcpyAtoA_v2);

	return linear(array_range(dstArray, dstOffset, n),
		      array_range(srcArray, srcOffset, n), n, NULL, 1,
		      CUPTI_DRIVER_TRACE_CBID_cuMemcpyAtoA_v2);
}
