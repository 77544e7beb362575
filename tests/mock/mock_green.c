/* SPDX-License-Identifier: MIT */
/*
 * Contexts and green contexts of the mock CUDA driver: the current
 * context of each thread, the device's SM resource, its split into
 * partitions, resource descriptors and green contexts, as the CUDA 13
 * driver API documents them (cuda.h, "Green Contexts"):
 *
 * - cuDeviceGetDevResource(SM) gives smCount (MOCK_CUDA_SMS, default
 *   132), minSmPartitionSize (MOCK_CUDA_SM_MIN, default 8) and
 *   smCoscheduledAlignment (MOCK_CUDA_SM_ALIGN, default 8): the guideline
 *   the documentation gives for compute capability 9.0.
 * - cuDevSmResourceSplitByCount rounds minCount up to the minimum
 *   partition and then to a multiple of the alignment, makes
 *   min(*nbGroups, smCount / size) groups of that size (*nbGroups says
 *   how many; with result NULL it only counts), and puts the SMs left
 *   (the unused groups included) in the remainder. A group or remainder
 *   cannot be split again (CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION), as
 *   the documentation says; a green context's resource can.
 * - cuDevResourceGenerateDesc takes one resource, or several from the
 *   same split (each once); anything else is
 *   CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION.
 * - cuGreenCtxCreate needs CU_GREEN_CTX_DEFAULT_STREAM; cuCtxFromGreenCtx
 *   gives the CUcontext that stands for it; cuGreenCtxStreamCreate needs
 *   CU_STREAM_NON_BLOCKING and makes a stream of that green context.
 *
 * Contexts matter where they do on a GPU: cuKernelGetFunction gives a
 * function of the calling thread's current context, streams belong to
 * the context current at their creation (or to their green context), and
 * launching a function on a stream of another context fails with
 * CUDA_ERROR_INVALID_HANDLE. Memory belongs to the device, as it does
 * with green contexts (they share the primary context's memory). A
 * thread with no current context works in the primary one. Destroying a
 * green context whose streams are not destroyed prints a warning (CUDA
 * leaks them; later calls on them fail), and those streams become
 * invalid handles.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "mock.h"
#include "mock_int.h"

#define CTX_MAGIC 0xc0c7u
#define GREEN_MAGIC 0x62ee4u
#define DESC_MAGIC 0xde5cu
#define RES_MAGIC 0x5e50u

struct mctx mock_primary_ctx = { .magic = CTX_MAGIC, .id = 1 };
static uint32_t next_ctx_id = 2;

static __thread struct mctx *current;

/* Where a resource came from, kept in its _internal_padding. */
struct res_tag {
	uint32_t magic;
	uint32_t split;		/* 0: whole (splittable), else split id */
	uint32_t index;		/* within its split */
};

struct mdesc {
	uint32_t magic;
	unsigned sms;
	struct mdesc *next;
};

struct mgreen {
	uint32_t magic;
	int destroyed;
	struct mctx ctx;
	struct mgreen *next;
};

/* Reachable, never freed: handles outlive their destroy call. */
static struct mdesc *all_descs;
static struct mgreen *all_greens;
static uint32_t next_split = 1;

static int knob(const char *name, int def)
{
	const char *v = getenv(name);

	return v && atoi(v) > 0 ? atoi(v) : def;
}

static struct res_tag *tag_of(CUdevResource *r)
{
	return (struct res_tag *)r->_internal_padding;
}

static void fill(CUdevResource *r, unsigned sms, uint32_t split,
		 uint32_t index)
{
	struct res_tag t = { RES_MAGIC, split, index };

	memset(r, 0, sizeof(*r));
	r->type = CU_DEV_RESOURCE_TYPE_SM;
	r->sm.smCount = sms;
	r->sm.minSmPartitionSize = (unsigned)knob("MOCK_CUDA_SM_MIN", 8);
	r->sm.smCoscheduledAlignment = (unsigned)knob("MOCK_CUDA_SM_ALIGN", 8);
	memcpy(tag_of(r), &t, sizeof(t));
}

struct mctx *mock_current_ctx(void)
{
	return current ? current : &mock_primary_ctx;
}

int mock_ctx_live(const struct mctx *c)
{
	return !c->green || !((const struct mgreen *)c->green)->destroyed;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	if (dev != 0) {
		return CUDA_ERROR_INVALID_DEVICE;
	}
	*pctx = (CUcontext)&mock_primary_ctx;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
	return dev == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
	struct mctx *c = (struct mctx *)ctx;

	if (c && c->magic != CTX_MAGIC) {
		return CUDA_ERROR_INVALID_CONTEXT;
	}
	if (c && !mock_ctx_live(c)) {
		return CUDA_ERROR_CONTEXT_IS_DESTROYED;
	}
	current = c;
	return CUDA_SUCCESS;
}

/* Every context, primary or green, is of the one device. */
CUresult CUDAAPI cuCtxGetDevice(CUdevice *device)
{
	*device = 0;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetDevResource(CUdevice device, CUdevResource *res,
					CUdevResourceType type)
{
	if (mock_failing("cuDeviceGetDevResource")) {
		return CUDA_ERROR_UNKNOWN;
	}
	if (device != 0) {
		return CUDA_ERROR_INVALID_DEVICE;
	}
	if (!res) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (type != CU_DEV_RESOURCE_TYPE_SM) {
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	}
	fill(res, (unsigned)knob("MOCK_CUDA_SMS", 132), 0, 0);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevSmResourceSplitByCount(CUdevResource *result,
					     unsigned int *nbGroups,
					     const CUdevResource *input,
					     CUdevResource *remaining,
					     unsigned int useFlags,
					     unsigned int minCount)
{
	struct res_tag t;
	unsigned size, fit, n;
	uint32_t split;

	if (mock_failing("cuDevSmResourceSplitByCount")) {
		return CUDA_ERROR_UNKNOWN;
	}
	if (!input || !nbGroups) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (input->type != CU_DEV_RESOURCE_TYPE_SM) {
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	}
	memcpy(&t, input->_internal_padding, sizeof(t));
	if (t.magic != RES_MAGIC) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (t.split) {
		return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
	}
	if (useFlags) {
		return CUDA_ERROR_NOT_SUPPORTED;	/* not modelled */
	}
	if (minCount > input->sm.smCount) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	size = minCount > input->sm.minSmPartitionSize ?
		       minCount : input->sm.minSmPartitionSize;
	if (input->sm.smCoscheduledAlignment > 1) {
		unsigned a = input->sm.smCoscheduledAlignment;
		size = (size + a - 1) / a * a;
	}
	if (!size) {
		size = 1;
	}
	fit = input->sm.smCount / size;
	if (!result) {
		*nbGroups = fit;
		return CUDA_SUCCESS;
	}
	n = *nbGroups < fit ? *nbGroups : fit;
	pthread_mutex_lock(&mock_lock);
	split = next_split++;
	pthread_mutex_unlock(&mock_lock);
	for (unsigned i = 0; i < n; i++) {
		fill(&result[i], size, split, i);
	}
	if (remaining) {
		fill(remaining, input->sm.smCount - n * size, split, n);
	}
	*nbGroups = n;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevResourceGenerateDesc(CUdevResourceDesc *phDesc,
					   CUdevResource *resources,
					   unsigned int nbResources)
{
	struct mdesc *d;
	unsigned sms = 0;
	struct res_tag first;

	if (mock_failing("cuDevResourceGenerateDesc")) {
		return CUDA_ERROR_UNKNOWN;
	}
	if (!phDesc || !resources || !nbResources) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	memcpy(&first, tag_of(&resources[0]), sizeof(first));
	for (unsigned i = 0; i < nbResources; i++) {
		struct res_tag t;
		memcpy(&t, tag_of(&resources[i]), sizeof(t));
		if (resources[i].type != CU_DEV_RESOURCE_TYPE_SM) {
			return CUDA_ERROR_INVALID_RESOURCE_TYPE;
		}
		if (t.magic != RES_MAGIC) {
			return CUDA_ERROR_INVALID_VALUE;
		}
		/* Several: outputs of one split, each once. */
		if (nbResources > 1 && (!t.split || t.split != first.split)) {
			return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
		}
		for (unsigned j = 0; j < i; j++) {
			struct res_tag u;
			memcpy(&u, tag_of(&resources[j]), sizeof(u));
			if (u.index == t.index) {
				return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
			}
		}
		sms += resources[i].sm.smCount;
	}
	if (!sms) {
		return CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION;
	}
	d = calloc(1, sizeof(*d));
	if (!d) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	d->magic = DESC_MAGIC;
	d->sms = sms;
	pthread_mutex_lock(&mock_lock);
	d->next = all_descs;
	all_descs = d;
	pthread_mutex_unlock(&mock_lock);
	*phDesc = (CUdevResourceDesc)d;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGreenCtxCreate(CUgreenCtx *phCtx, CUdevResourceDesc desc,
				  CUdevice dev, unsigned int flags)
{
	struct mdesc *d = (struct mdesc *)desc;
	struct mgreen *g;

	if (mock_failing("cuGreenCtxCreate")) {
		return CUDA_ERROR_UNKNOWN;
	}
	if (dev != 0) {
		return CUDA_ERROR_INVALID_DEVICE;
	}
	if (!phCtx || !d || d->magic != DESC_MAGIC ||
	    !(flags & CU_GREEN_CTX_DEFAULT_STREAM)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	g = calloc(1, sizeof(*g));
	if (!g) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	g->magic = GREEN_MAGIC;
	g->ctx.magic = CTX_MAGIC;
	g->ctx.green = g;
	g->ctx.sms = d->sms;
	pthread_mutex_lock(&mock_lock);
	g->ctx.id = next_ctx_id++;
	g->next = all_greens;
	all_greens = g;
	pthread_mutex_unlock(&mock_lock);
	*phCtx = (CUgreenCtx)g;
	return CUDA_SUCCESS;
}

static struct mgreen *green_of(CUgreenCtx h)
{
	struct mgreen *g = (struct mgreen *)h;

	return g && g->magic == GREEN_MAGIC && !g->destroyed ? g : NULL;
}

CUresult CUDAAPI cuGreenCtxDestroy(CUgreenCtx hCtx)
{
	struct mgreen *g = green_of(hCtx);
	unsigned live;

	if (!g) {
		return CUDA_ERROR_INVALID_CONTEXT;
	}
	live = mock_streams_of(&g->ctx);
	if (live) {
		fprintf(stderr, "mock cuda: green context destroyed with %u "
			"live stream%s (CUDA leaks them)\n", live,
			live == 1 ? "" : "s");
	}
	pthread_mutex_lock(&mock_lock);
	g->destroyed = 1;
	pthread_mutex_unlock(&mock_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxFromGreenCtx(CUcontext *pContext, CUgreenCtx hCtx)
{
	struct mgreen *g = green_of(hCtx);

	if (!pContext) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (!g) {
		return CUDA_ERROR_INVALID_CONTEXT;
	}
	*pContext = (CUcontext)&g->ctx;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGreenCtxGetDevResource(CUgreenCtx hCtx,
					  CUdevResource *resource,
					  CUdevResourceType type)
{
	struct mgreen *g = green_of(hCtx);

	if (!g) {
		return CUDA_ERROR_INVALID_CONTEXT;
	}
	if (!resource) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (type != CU_DEV_RESOURCE_TYPE_SM) {
		return CUDA_ERROR_INVALID_RESOURCE_TYPE;
	}
	fill(resource, g->ctx.sms, 0, 0);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGreenCtxStreamCreate(CUstream *phStream,
					CUgreenCtx greenCtx,
					unsigned int flags, int priority)
{
	struct mgreen *g = green_of(greenCtx);

	if (mock_failing("cuGreenCtxStreamCreate")) {
		return CUDA_ERROR_UNKNOWN;
	}
	if (!g) {
		return CUDA_ERROR_INVALID_CONTEXT;
	}
	if (flags != CU_STREAM_NON_BLOCKING) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	return mock_stream_create(phStream, flags, priority, &g->ctx);
}

uint32_t mock_ctx_id(CUcontext c)
{
	const struct mctx *m = c ? (const struct mctx *)c : mock_current_ctx();

	return m->magic == CTX_MAGIC ? m->id : 0;
}

unsigned mock_ctx_sms(const struct mctx *c)
{
	return c->green ? c->sms : (unsigned)knob("MOCK_CUDA_SMS", 132);
}
