/* SPDX-License-Identifier: MIT */
/*
 * Kernel launches (cuLaunchKernel, cuLaunchCooperativeKernel,
 * cuLaunchKernelEx): the arguments are stored with the entry event,
 * packed at the offsets of the kernel's parameter layout (inject_code.c),
 * behind the launch attributes for cuLaunchKernelEx, whose configuration
 * struct also gives the words of the grid, block and stream. The
 * arguments that point into mapped or managed memory tell hostmem.h
 * which host pages the kernel may read.
 */
#include <cuda.h>
#include <cupti.h>
#include <stdint.h>
#include <string.h>

#include "api.h"
#include "emit.h"
#include "hostmem.h"
#include "inject.h"
#include "tracking.h"

void launch_params(struct gm_record *r, uint64_t f, void **params,
		   void **extra, size_t prefix)
{
	const struct gm_layout *l;
	char *buf;

	if (extra && !params) {
		void *ptr = NULL;
		size_t size = 0;
		for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
			if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
				ptr = extra[i + 1];
			} else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
				size = *(size_t *)extra[i + 1];
			}
		}
		buf = gm_capture_data(r, prefix + size);
		if (buf && ptr) {
			memcpy(buf + prefix, ptr, size);
		}
		return;
	}
	l = track_layout_get(f);
	if (!l) {
		l = layout_discover(f, r->corr);
	}
	if (!l) {
		r->flags |= GM_RF_NO_LAYOUT;
		gm_capture_loss(unknown_layouts);
		return;
	}
	buf = gm_capture_data(r, prefix + l->size);
	if (!buf) {
		return;
	}
	if (l->size) {
		memset(buf + prefix, 0, l->size);
	}
	for (uint32_t i = 0; params && i < l->nparams; i++) {
		memcpy(buf + prefix + l->pairs[2 * i], params[i],
		       l->pairs[2 * i + 1]);
	}
}

/* After a launch's arguments are packed into @r (behind @prefix bytes). */
static void launch_hostmem(const struct gm_record *r, size_t prefix,
			   uint64_t key)
{
	if (r->data && r->data_len > prefix) {
		hostmem_launch((const uint8_t *)r->data + prefix,
			       r->data_len - prefix, key, r->corr);
	}
}

void sp_launch(struct sp_call *c)
{
	const cuLaunchKernel_params *p = c->params;

	if (!c->exit) {
		launch_params(c->r, (uintptr_t)p->f, p->kernelParams, p->extra,
			      0);
		launch_hostmem(c->r, 0, c->key);
	}
}

void sp_launch_coop(struct sp_call *c)
{
	const cuLaunchCooperativeKernel_params *p = c->params;

	if (!c->exit) {
		launch_params(c->r, (uintptr_t)p->f, p->kernelParams, NULL, 0);
		launch_hostmem(c->r, 0, c->key);
	}
}

/* cuLaunchKernelEx: the words of its configuration, its attributes
 * before its arguments in the data. */
void sp_launch_ex(struct sp_call *c)
{
	const cuLaunchKernelEx_params *p = c->params;
	struct gm_args_cuLaunchKernelEx *x = ARGS(cuLaunchKernelEx, c->a);
	const CUlaunchConfig *cf = p->config;
	size_t attr_bytes;

	if (!cf) {
		return;
	}
	attr_bytes = (size_t)cf->numAttrs * sizeof(CUlaunchAttribute);
	x->gridDimX = cf->gridDimX;
	x->gridDimY = cf->gridDimY;
	x->gridDimZ = cf->gridDimZ;
	x->blockDimX = cf->blockDimX;
	x->blockDimY = cf->blockDimY;
	x->blockDimZ = cf->blockDimZ;
	x->sharedMemBytes = cf->sharedMemBytes;
	x->hStream = (uintptr_t)cf->hStream;
	x->numAttrs = cf->numAttrs;
	x->attrBytes = attr_bytes;
	if (!c->exit) {
		launch_params(c->r, (uintptr_t)p->f, p->kernelParams, p->extra,
			      attr_bytes);
		if (c->r->data && attr_bytes && cf->attrs) {
			memcpy((void *)c->r->data, cf->attrs, attr_bytes);
		}
		launch_hostmem(c->r, attr_bytes,
			       track_stream_key((uintptr_t)cf->hStream,
						c->f->per_thread, c->t->tid));
	}
}
