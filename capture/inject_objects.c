/* SPDX-License-Identifier: MIT */
/*
 * Objects a call describes by a struct it points to: CUDA arrays,
 * texture and surface objects, tensor maps, memory pools and their
 * attributes, physical allocations and their access (virtual memory
 * management). The fields the replay needs become argument words of the
 * call (cuda_api.def marks them GM_X); what the replay passes back whole
 * (resource and texture descriptors, tensor map dimensions and the
 * encoded map) goes into the event's data.
 */
#include <cuda.h>
#include <cupti.h>
#include <stdint.h>
#include <string.h>

#include "api.h"
#include "emit.h"
#include "inject.h"

void sp_array_create(struct sp_call *c)
{
	const CUDA_ARRAY_DESCRIPTOR *p =
		((const cuArrayCreate_v2_params *)c->params)->pAllocateArray;
	struct gm_args_cuArrayCreate_v2 *x = ARGS(cuArrayCreate_v2, c->a);

	if (p) {
		x->Width = p->Width;
		x->Height = p->Height;
		x->Format = p->Format;
		x->NumChannels = p->NumChannels;
	}
}

void sp_array3d_create(struct sp_call *c)
{
	const CUDA_ARRAY3D_DESCRIPTOR *p =
		((const cuArray3DCreate_v2_params *)c->params)->pAllocateArray;
	struct gm_args_cuArray3DCreate_v2 *x = ARGS(cuArray3DCreate_v2, c->a);

	if (p) {
		x->Width = p->Width;
		x->Height = p->Height;
		x->Depth = p->Depth;
		x->Format = p->Format;
		x->NumChannels = p->NumChannels;
		x->Flags = p->Flags;
	}
}

/* The resource a texture or surface object reads: its kind and its
 * array or device pointer. */
static void res_fields(uint64_t *resType, uint64_t *resArray,
		       uint64_t *resDevPtr, const CUDA_RESOURCE_DESC *d)
{
	if (!d) {
		return;
	}
	*resType = d->resType;
	if (d->resType == CU_RESOURCE_TYPE_ARRAY) {
		*resArray = (uintptr_t)d->res.array.hArray;
	} else if (d->resType == CU_RESOURCE_TYPE_MIPMAPPED_ARRAY) {
		*resArray = (uintptr_t)d->res.mipmap.hMipmappedArray;
	} else if (d->resType == CU_RESOURCE_TYPE_LINEAR) {
		*resDevPtr = d->res.linear.devPtr;
	} else if (d->resType == CU_RESOURCE_TYPE_PITCH2D) {
		*resDevPtr = d->res.pitch2D.devPtr;
	}
}

/* The data: the resource, texture and (zeros without one) view
 * descriptors, in that order. */
void sp_texobj_create(struct sp_call *c)
{
	const cuTexObjectCreate_params *p = c->params;
	struct gm_args_cuTexObjectCreate *x = ARGS(cuTexObjectCreate, c->a);
	size_t n = sizeof(CUDA_RESOURCE_DESC) + sizeof(CUDA_TEXTURE_DESC) +
		   (p->pResViewDesc ? sizeof(CUDA_RESOURCE_VIEW_DESC) : 0);
	char *buf;

	res_fields(&x->resType, &x->resArray, &x->resDevPtr, p->pResDesc);
	if (c->exit || !(buf = gm_capture_data(c->r, n))) {
		return;
	}
	memset(buf, 0, n);
	if (p->pResDesc) {
		memcpy(buf, p->pResDesc, sizeof(CUDA_RESOURCE_DESC));
	}
	buf += sizeof(CUDA_RESOURCE_DESC);
	if (p->pTexDesc) {
		memcpy(buf, p->pTexDesc, sizeof(CUDA_TEXTURE_DESC));
	}
	buf += sizeof(CUDA_TEXTURE_DESC);
	if (p->pResViewDesc) {
		memcpy(buf, p->pResViewDesc, sizeof(CUDA_RESOURCE_VIEW_DESC));
	}
}

void sp_surfobj_create(struct sp_call *c)
{
	const cuSurfObjectCreate_params *p = c->params;
	struct gm_args_cuSurfObjectCreate *x = ARGS(cuSurfObjectCreate, c->a);
	char *buf;

	res_fields(&x->resType, &x->resArray, &x->resDevPtr, p->pResDesc);
	if (!c->exit && p->pResDesc &&
	    (buf = gm_capture_data(c->r, sizeof(CUDA_RESOURCE_DESC)))) {
		memcpy(buf, p->pResDesc, sizeof(CUDA_RESOURCE_DESC));
	}
}

/* The encoded map at a successful exit into @c's data. */
static void tensor_map_out(struct sp_call *c, const CUtensorMap *map)
{
	char *buf;

	if (c->ok && map && (buf = gm_capture_data(c->r, sizeof(*map)))) {
		memcpy(buf, map, sizeof(*map));
	}
}

/*
 * cuTensorMapEncodeTiled: at the entry the global dimensions, strides
 * (rank - 1 of them), box and element strides; at the exit the map.
 */
void sp_tensor_map(struct sp_call *c)
{
	const cuTensorMapEncodeTiled_params *p = c->params;
	unsigned rank = p->tensorRank;
	char *buf;

	if (!c->exit && rank >= 1 && rank <= 5 && p->globalDim && p->boxDim &&
	    p->elementStrides &&
	    (buf = gm_capture_data(c->r, 8 * rank + 8 * (rank - 1) +
					       8 * rank))) {
		memcpy(buf, p->globalDim, 8 * rank);
		buf += 8 * rank;
		if (rank > 1 && p->globalStrides) {
			memcpy(buf, p->globalStrides, 8 * (rank - 1));
		}
		buf += 8 * (rank - 1);
		memcpy(buf, p->boxDim, 4 * rank);
		memcpy(buf + 4 * rank, p->elementStrides, 4 * rank);
	} else {
		tensor_map_out(c, p->tensorMap);
	}
}

void sp_tensor_map_address(struct sp_call *c)
{
	tensor_map_out(c, ((const cuTensorMapReplaceAddress_params *)c->params)
				  ->tensorMap);
}

void sp_mempool_create(struct sp_call *c)
{
	const CUmemPoolProps *p =
		((const cuMemPoolCreate_params *)c->params)->poolProps;
	struct gm_args_cuMemPoolCreate *x = ARGS(cuMemPoolCreate, c->a);

	if (p) {
		x->allocType = p->allocType;
		x->handleTypes = p->handleTypes;
		x->locationType = p->location.type;
		x->locationId = (uint64_t)(int64_t)p->location.id;
	}
}

void sp_mempool_attr(struct sp_call *c)
{
	const cuMemPoolSetAttribute_params *p = c->params;
	struct gm_args_cuMemPoolSetAttribute *x =
		ARGS(cuMemPoolSetAttribute, c->a);

	if (!p->value) {
		return;
	}
	/* The reuse flags are ints, the thresholds and counters cuuint64_t
	 * (cuda.h). */
	if (p->attr == CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES ||
	    p->attr == CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC ||
	    p->attr == CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES) {
		x->val = (uint64_t)*(const int *)p->value;
	} else {
		x->val = *(const cuuint64_t *)p->value;
	}
}

void sp_vmm_create(struct sp_call *c)
{
	const CUmemAllocationProp *p =
		((const cuMemCreate_params *)c->params)->prop;
	struct gm_args_cuMemCreate *x = ARGS(cuMemCreate, c->a);

	if (p) {
		x->propType = p->type;
		x->locType = p->location.type;
		x->locId = (uint64_t)(int64_t)p->location.id;
		x->handleTypes = p->requestedHandleTypes;
	}
}

/* The words of the first access descriptor. */
void sp_vmm_access(struct sp_call *c)
{
	const cuMemSetAccess_params *p = c->params;
	struct gm_args_cuMemSetAccess *x = ARGS(cuMemSetAccess, c->a);

	if (p->desc && p->count) {
		x->locType = p->desc[0].location.type;
		x->locId = (uint64_t)(int64_t)p->desc[0].location.id;
		x->access = p->desc[0].flags;
	}
}
