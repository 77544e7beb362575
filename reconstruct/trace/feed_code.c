/* SPDX-License-Identifier: MIT */
/*
 * The bundle feed's launches and code, streams and events, host
 * functions and texture objects.
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

/* ---- launches and code ---- */

int feed_do_launch(const struct call *c)
{
	return feed_launch(c->f, c->in, c->x, c->api);
}

/* The handle is the first word of all six loading calls. */
int feed_do_module_load(const struct call *c)
{
	return feed_module_load(c->f, c->in, c->api, c->x->args[0]);
}

int feed_do_module_unload(const struct call *c)
{
	uint64_t h = c->x->args[0];

	if (handle_map_get(&c->f->module_alias, h, &(uint32_t){ 0 })) {
		return 0;	/* a library's module: goes with it */
	}
	return feed_drop_live(c->f, LIVE_MODULE, c->ev, c->api, h);
}

int feed_do_library_module(const struct call *c)
{
	struct bundle_feed *f = c->f;
	uint32_t i = (uint32_t)f->nr_alias;

	GM_ALLOC_GROW(f->alias_library, f->nr_alias + 1, f->alloc_alias);
	f->alias_library[f->nr_alias++] =
		feed_module_of(f, ARGS(cuLibraryGetModule)->library);
	handle_map_put(&f->module_alias, ARGS(cuLibraryGetModule)->pMod, i);
	return 0;
}

/* cuLibraryGetKernel (pKernel, library), cuModuleGetFunction (hfunc, hmod) */
_Static_assert(offsetof(struct gm_args_cuLibraryGetKernel, library) ==
		       offsetof(struct gm_args_cuModuleGetFunction, hmod),
	       "cuLibraryGetKernel and cuModuleGetFunction: the owner");

int feed_do_get_kernel(const struct call *c)
{
	const struct gm_args_cuLibraryGetKernel *a = ARGS(cuLibraryGetKernel);

	return feed_get_kernel(c->f, c->in, c->x, a->pKernel, a->library);
}

int feed_do_kernel_function(const struct call *c)
{
	return model_alias_kernel(c->f->p, c->ev, ARGS(cuKernelGetFunction)->pFunc,
				  ARGS(cuKernelGetFunction)->kernel);
}

SAME_WORD(cuLibraryGetGlobal, cuModuleGetGlobal_v2, bytes);

int feed_do_get_global(const struct call *c)
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
	return model_add_global(c->f->p, c->ev, feed_module_of(c->f, w[2]), name,
				w[0], w[1]);
}

int feed_do_func_attr(const struct call *c)
{
	const struct gm_args_cuFuncSetAttribute *a = ARGS(cuFuncSetAttribute);

	return model_set_kernel_attr(c->f->p, c->ev, a->hfunc, (int)a->attrib,
				     (int)a->value);
}

int feed_do_kernel_attr(const struct call *c)
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

int feed_do_stream_create(const struct call *c)
{
	const uint64_t *w = c->x->args;
	int prio = c->x->nr_args > 2 ? (int)(int32_t)w[2] : 0;

	if (model_add_stream(c->f->p, c->ev, w[0],
			     (w[1] & CU_STREAM_NON_BLOCKING) != 0, prio) < 0) {
		return -1;
	}
	feed_live_add(c->f, LIVE_STREAM, w[0]);
	return 0;
}

int feed_do_stream_destroy(const struct call *c)
{
	return feed_drop_live(c->f, LIVE_STREAM, c->ev, c->api,
			 ARGS(cuStreamDestroy_v2)->hStream);
}

int feed_do_stream_wait(const struct call *c)
{
	return model_add_stream_wait(c->f->p, c->ev, c->api,
				     feed_stream_of(c->x, ARGS(cuStreamWaitEvent)->hStream),
				     ARGS(cuStreamWaitEvent)->hEvent);
}

int feed_do_stream_sync(const struct call *c)
{
	return model_add_op(c->f->p, c->ev, c->api, GM_OP_STREAM_SYNC,
			    feed_stream_of(c->x,
					   ARGS(cuStreamSynchronize)->hStream))
		       ? 0 : -1;
}

int feed_do_event_create(const struct call *c)
{
	const struct gm_args_cuEventCreate *a = ARGS(cuEventCreate);

	if (model_add_event(c->f->p, c->ev, a->phEvent,
			    (unsigned)a->Flags) < 0) {
		return -1;
	}
	feed_live_add(c->f, LIVE_EVENT, a->phEvent);
	return 0;
}

int feed_do_event_destroy(const struct call *c)
{
	return feed_drop_live(c->f, LIVE_EVENT, c->ev, c->api,
			 ARGS(cuEventDestroy_v2)->hEvent);
}

SAME_WORD(cuEventRecord, cuEventRecordWithFlags, hEvent);
SAME_WORD(cuEventRecord, cuEventRecordWithFlags, hStream);

int feed_do_event_record(const struct call *c)
{
	const struct gm_args_cuEventRecord *a = ARGS(cuEventRecord);

	return model_add_event_record(c->f->p, c->ev, c->api, a->hEvent,
				      feed_stream_of(c->x, a->hStream));
}

int feed_do_event_sync(const struct call *c)
{
	return model_add_op(c->f->p, c->ev, c->api, GM_OP_EVENT_SYNC,
			    ARGS(cuEventSynchronize)->hEvent) ? 0 : -1;
}

/* ---- host functions ---- */

/* Both rows start with the stream (cuda_api.def). */
_Static_assert(offsetof(struct gm_args_cuLaunchHostFunc, hStream) == 0 &&
		       offsetof(struct gm_args_cuStreamAddCallback, hStream) == 0,
	       "host functions: the stream first");

int feed_do_host_func(const struct call *c)
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
				feed_stream_of(c->x, c->x->args[0]), ns) < 0) {
		return -1;
	}
	if (!timed) {
		GM_ALLOC_GROW(f->host_event, f->nr_host + 1, f->alloc_host);
		handle_map_put(&f->host_wait, c->in->corr, (uint32_t)f->nr_host);
		f->host_event[f->nr_host++] = c->ev;
	}
	return 0;
}

/* ---- feed_texture objects ---- */

int feed_do_texobj_create(const struct call *c)
{
	return feed_texture(c->f, c->in, c->x, c->api);
}

int feed_do_texobj_destroy(const struct call *c)
{
	uint64_t h = ARGS(cuTexObjectDestroy)->texObject;

	if (handle_map_del(&c->f->skipped_textures, h)) {
		feed_unsupported(c->f, c->ev, c->api);
		return 0;
	}
	return feed_drop_live(c->f, LIVE_TEXTURE, c->ev, c->api, h);
}
