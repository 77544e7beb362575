/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI subscriber of libgpumix-capture.so. CUDA loads the library
 * through CUDA_INJECTION64_PATH and calls InitializeInjection() during
 * cuInit, for static and shared cudart alike. One subscriber listens to
 * the driver API (what is recorded, described by cuda_api.def), the
 * runtime API (only to know which runtime call a driver call came from)
 * and resources (device of each new context); CUPTI activity records give
 * the GPU durations of kernels, copies and memsets (inject_activity.c).
 * This file receives every callback, fills a recorded call's argument
 * words from CUPTI's parameter struct, hands the call to the handler of
 * its special case (the table below; each handler in the file of its
 * job, inject.h) and emits its event; it also describes the process and
 * its devices, and finishes the capture at the process's exit.
 *
 * Rules (measured on CUDA 13): never call the CUDA runtime from here (the
 * program's runtime may be a static copy); driver calls made here raise
 * callbacks too, so a per-thread guard ignores them; the launch handle is
 * a CUkernel, mapped at cuLibraryGetKernel's exit.
 */
#include <cuda.h>
#include <cupti.h>
#include <limits.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "emit.h"
#include "graph_host.h"
#include "inject.h"
#include "inject_runtime.h"
#include "inject_state.h"
#include "tracking.h"

static const char *cbid_name(int runtime, unsigned cbid)
{
	const char *name = NULL;

	if (cuptiGetCallbackName(runtime ? CUPTI_CB_DOMAIN_RUNTIME_API
					 : CUPTI_CB_DOMAIN_DRIVER_API,
				 cbid, &name) != CUPTI_SUCCESS) {
		return NULL;
	}
	return name;
}

/* ---- argument words ------------------------------------------------------ */

/* Fill the argument words of @api from CUPTI's parameter struct. */
static void fill_args(int api, const void *params, int at_exit, uint64_t *a)
{
	switch (api) {
#define GM_IN(t, f) *o++ = (uint64_t)(uintptr_t)(p->f);
#define GM_OUT(t, f) *o++ = (at_exit && p->f) ? (uint64_t)(uintptr_t)(*p->f) : 0;
#define GM_X(t, f) *o++ = 0;
#define GM_FILL_(name, args)                                                   \
	case GM_API_##name: {                                                  \
		const name##_params *p = params;                               \
		uint64_t *o = a;                                               \
		args(void) o;                                                  \
		break;                                                         \
	}
#define GM_CALL(name, cls, sp, rk, args) GM_FILL_(name, args)
#define GM_CALL0(name, cls, sp, rk)
#define GM_TWIN(name, base, fl, cls, sp, rk, args) GM_FILL_(name, args)
#define GM_IGNORE(name)
#include "cuda_api.def"
#undef GM_CALL
#undef GM_CALL0
#undef GM_TWIN
#undef GM_IGNORE
#undef GM_FILL_
#undef GM_IN
#undef GM_OUT
#undef GM_X
	default:
		break;
	}
}


/* ---- special cases ------------------------------------------------------- */

/*
 * The handler of each special case (cuda_api.def's column), as
 * reconstruct/trace/bundle_feed.c dispatches by replay kind. Every kind has one
 * (specials_complete(), checked by the capture_cupti tests); kinds that
 * share a handler take the same words (the _ASYNC twins read whether
 * they synchronize from struct api_info).
 */
static sp_handler *const specials[GM_SP_COUNT] = {
	[GM_SP_NONE] = sp_none,
	[GM_SP_H2D] = sp_h2d,
	[GM_SP_D2H] = sp_d2h,
	[GM_SP_D2H_ASYNC] = sp_d2h,
	[GM_SP_MEMCPY] = sp_memcpy,
	[GM_SP_MEMCPY_ASYNC] = sp_memcpy,
	[GM_SP_COPY2D] = sp_copy2d,
	[GM_SP_COPY2D_ASYNC] = sp_copy2d,
	[GM_SP_COPY3D] = sp_copy3d,
	[GM_SP_COPY3D_ASYNC] = sp_copy3d,
	[GM_SP_LAUNCH] = sp_launch,
	[GM_SP_LAUNCH_COOP] = sp_launch_coop,
	[GM_SP_LAUNCH_EX] = sp_launch_ex,
	[GM_SP_MODULE_FILE] = sp_module_file,
	[GM_SP_MODULE_DATA] = sp_module_data,
	[GM_SP_MODULE_FATBIN] = sp_module_fatbin,
	[GM_SP_LIBRARY_DATA] = sp_library_data,
	[GM_SP_LIBRARY_FILE] = sp_library_file,
	[GM_SP_GET_KERNEL] = sp_get_kernel,
	[GM_SP_GET_FUNCTION] = sp_get_function,
	[GM_SP_GET_GLOBAL] = sp_get_global,
	[GM_SP_KERNEL_FUNCTION] = sp_kernel_function,
	[GM_SP_TENSOR_MAP] = sp_tensor_map,
	[GM_SP_TENSOR_MAP_ADDRESS] = sp_tensor_map_address,
	[GM_SP_ARRAY_CREATE] = sp_array_create,
	[GM_SP_ARRAY3D_CREATE] = sp_array3d_create,
	[GM_SP_TEXOBJ_CREATE] = sp_texobj_create,
	[GM_SP_SURFOBJ_CREATE] = sp_surfobj_create,
	[GM_SP_STREAM_CREATE] = sp_stream_create,
	[GM_SP_STREAM_SYNC] = sp_stream_sync,
	[GM_SP_CTX_SYNC] = sp_ctx_sync,
	[GM_SP_EVENT_RECORD] = sp_event_record,
	[GM_SP_EVENT_SYNC] = sp_event_sync,
	[GM_SP_FREE_HOST] = sp_free_host,
	[GM_SP_MEM_LOCATION] = sp_mem_location,
	[GM_SP_CAPTURE_BEGIN] = sp_capture_begin,
	[GM_SP_CAPTURE_END] = sp_capture_end,
	[GM_SP_GRAPH_KERNEL] = sp_graph_kernel,
	[GM_SP_GRAPH_MEMCPY] = sp_graph_memcpy,
	[GM_SP_GRAPH_MEMSET] = sp_graph_memset,
	[GM_SP_GRAPH_NODE] = sp_graph_node,
	[GM_SP_GRAPH_CHILD] = sp_graph_child,
	[GM_SP_GRAPH_DEPS] = sp_graph_deps,
	[GM_SP_GRAPH_INSTANTIATE] = sp_graph_inherit,
	[GM_SP_GRAPH_LAUNCH] = sp_graph_launch,
	[GM_SP_GRAPH_UPDATE] = sp_graph_inherit,
	[GM_SP_GRAPH_CLONE] = sp_graph_inherit,
	[GM_SP_HOST_FUNC] = sp_host_func,
	[GM_SP_MEMPOOL_CREATE] = sp_mempool_create,
	[GM_SP_MEMPOOL_ATTR] = sp_mempool_attr,
	[GM_SP_VMM_CREATE] = sp_vmm_create,
	[GM_SP_VMM_ACCESS] = sp_vmm_access,
	[GM_SP_CAPTURE_TO] = sp_capture_to,
	[GM_SP_GRAPH_CHILD_SET] = sp_graph_child_set,
};

/* Whether every special case has its handler: -1, or the first that
 * lacks one. */
static int specials_complete(void)
{
	for (int sp = 0; sp < GM_SP_COUNT; sp++) {
		if (!specials[sp]) {
			return sp;
		}
	}
	return -1;
}

/*
 * The special case of recorded call @api (callback id @cbid, data @cb)
 * at entry (@exit 0) or exit, on thread @t. @a holds the argument words,
 * @r the record being built.
 */
static void special(int api, const CUpti_CallbackData *cb, unsigned cbid,
		    int exit, struct gm_record *r, uint64_t *a,
		    struct gm_thread *t)
{
	const struct api_info *f = &inject.info[api];
	struct sp_call c = {
		.api = api,
		.cbid = cbid,
		.cb = cb,
		.params = cb->functionParams,
		.f = f,
		.r = r,
		.a = a,
		.t = t,
		.key = track_stream_key(f->stream >= 0 ? a[f->stream] : 0,
					f->per_thread, t->tid),
		.exit = exit,
		.ok = exit && r->status == CUDA_SUCCESS,
	};

	specials[gm_api_table[api].special](&c);
}

/* ---- callbacks ----------------------------------------------------------- */

/*
 * A driver API call's entry or exit on thread @t: counted, then recorded
 * with its special case when cuda_api.def lists it, reported as
 * unsupported at its entry otherwise.
 */
static void on_driver(const CUpti_CallbackData *cb, unsigned cbid,
		      struct gm_thread *t);

/*
 * After the exit of the generic node call @generic: its edges that are
 * not plain, recorded (entry and exit) as the cuGraphAddDependencies_v2
 * that adds them to the new node, with the call's correlation id.
 */
static void typed_edges(const CUpti_CallbackData *generic, struct gm_thread *t)
{
	cuGraphAddDependencies_v2_params p;
	CUpti_CallbackData e;
	CUresult ok = CUDA_SUCCESS;

	if (!graph_typed_edges(generic, &p)) {
		return;
	}
	e = *generic;
	e.functionParams = &p;
	e.functionName = "cuGraphAddDependencies_v2";
	e.functionReturnValue = &ok;
	e.callbackSite = CUPTI_API_ENTER;
	on_driver(&e, CUPTI_DRIVER_TRACE_CBID_cuGraphAddDependencies_v2, t);
	e.callbackSite = CUPTI_API_EXIT;
	on_driver(&e, CUPTI_DRIVER_TRACE_CBID_cuGraphAddDependencies_v2, t);
}

static void on_driver(const CUpti_CallbackData *cb, unsigned cbid,
		      struct gm_thread *t)
{
	int exit = cb->callbackSite == CUPTI_API_EXIT;
	uint64_t a[GM_MAX_ARGS];
	struct gm_record r = { 0 };
	const struct gm_api_desc *d;
	const CUpti_CallbackData *generic = NULL;
	int api;

	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode_v2 ||
	    cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode) {
		/* Only the _v2 form has edge data. */
		if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode_v2) {
			generic = cb;
		}
		if (graph_typed_call(&cb, &cbid, exit, t)) {
			return;
		}
	}
	if (!exit) {
		gm_capture_count_call(0, cbid);
	}
	api = cbid < CUPTI_DRIVER_TRACE_CBID_SIZE ? inject.drv_api[cbid] - 1 : -1;
	if (api < 0) {
		if (!exit) {
			unsupported_call(cb, cbid, 0, cb->functionName, t);
		}
		return;
	}
	d = &gm_api_table[api];
	r.api = (uint16_t)api;
	r.corr = cb->correlationId;
	if (exit && cb->functionReturnValue) {
		r.status = *(const CUresult *)cb->functionReturnValue;
	}
	if (d->cls == GM_CLASS_IGNORED) {
		/* Queries that report completion still complete copies. */
		if (exit && d->special != GM_SP_NONE && d->nr_args) {
			fill_args(api, cb->functionParams, exit, a);
			special(api, cb, cbid, exit, &r, a, t);
			results_run_deferred();
		}
		return;
	}
	memset(a, 0, sizeof(uint64_t) * d->nr_args);
	fill_args(api, cb->functionParams, exit, a);
	r.rt_corr = rt_context(t);
	r.args = a;
	/* An exit without outputs leaves its words to the entry (the reader
	 * copies them back): launches and copies are most of a trace. */
	r.nr_args = exit && !inject.info[api].exit_words ? 0 : (uint8_t)d->nr_args;
	if (!exit) {
		name_handles(api, a, r.corr);
	}
	special(api, cb, cbid, exit, &r, a, t);
	if (exit && r.status == CUDA_SUCCESS) {
		code_track(api, a);
	}
	gm_capture_emit(exit ? GM_EV_EXIT : GM_EV_ENTER, &r);
	results_run_deferred();
	if (generic && exit && r.status == CUDA_SUCCESS) {
		typed_edges(generic, t);
	}
}

static void on_device(const CUpti_ResourceData *rd)
{
	struct gm_record r = { 0 };
	uint64_t w[GM_NR_WORDS(gm_ev_device)] = { 0 };
	struct gm_ev_device *e = (struct gm_ev_device *)w;
	uint32_t ordinal = 0;
	char name[256] = "";
	CUdevice dev = 0;
	int v = 0;
	size_t mem = 0;

	if (cuptiGetDeviceId(rd->context, &ordinal) != CUPTI_SUCCESS) {
		return;
	}
	e->ordinal = ordinal;
	e->context = (uintptr_t)rd->context;
	if (inject.cu.device_get && inject.cu.device_get(&dev, (int)ordinal) == CUDA_SUCCESS) {
		if (inject.cu.device_name) {
			inject.cu.device_name(name, sizeof(name), dev);
		}
		if (inject.cu.device_attr) {
			inject.cu.device_attr(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
			e->ccMajor = (uint64_t)v;
			inject.cu.device_attr(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
			e->ccMinor = (uint64_t)v;
			inject.cu.device_attr(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
			e->smCount = (uint64_t)v;
		}
		if (inject.cu.device_mem && inject.cu.device_mem(&mem, dev) == CUDA_SUCCESS) {
			e->totalMem = mem;
		}
	}
	if (inject.cu.driver_version && inject.cu.driver_version(&v) == CUDA_SUCCESS) {
		e->driverVersion = (uint64_t)v;
	}
	r.args = w;
	r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_device);
	gm_capture_str(&r, name);
	gm_capture_emit(GM_EV_DEVICE, &r);
}

static void CUPTIAPI callback(void *userdata, CUpti_CallbackDomain domain,
			      CUpti_CallbackId cbid, const void *data)
{
	struct gm_thread *t;

	(void)userdata;
	if (!gm_capture_ready()) {
		return;
	}
	t = gm_capture_thread();
	if (t->guard) {
		return;		/* a driver call made by this library */
	}
	t->guard = 1;
	/* Everything up to gm_capture_own_end() is the capture's own time,
	 * left out of the program's host time (emit.h). */
	gm_capture_own_begin(t);
	switch (domain) {
	case CUPTI_CB_DOMAIN_DRIVER_API:
		on_driver(data, cbid, t);
		break;
	case CUPTI_CB_DOMAIN_RUNTIME_API: {
		const CUpti_CallbackData *cb = data;
		if (cb->callbackSite == CUPTI_API_ENTER) {
			gm_capture_count_call(1, cbid);
			rt_push(t, cb, cbid);
		} else {
			rt_pop(t, cb);
		}
		break;
	}
	case CUPTI_CB_DOMAIN_RESOURCE:
		if (cbid == CUPTI_CBID_RESOURCE_CONTEXT_CREATED) {
			on_device(data);
		}
		break;
	default:
		break;	/* only the three domains above are enabled */
	}
	gm_capture_own_end(t);
	t->guard = 0;
}

/* ---- process start and end ----------------------------------------------- */

static void emit_process(void)
{
	struct gm_record r = { 0 };
	uint64_t w[GM_NR_WORDS(gm_ev_process)] = { 0 };
	struct gm_ev_process *e = (struct gm_ev_process *)w;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	struct timespec ts;
	uint32_t version = 0;

	exe[n > 0 ? n : 0] = '\0';
	e->pid = (uint64_t)getpid();
	e->ppid = (uint64_t)getppid();
	cuptiGetTimestamp(&e->cupti_ns);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	e->monotonic_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	clock_gettime(CLOCK_REALTIME, &ts);
	e->realtime_ns = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	cuptiGetVersion(&version);
	e->cupti_version = version;
	r.args = w;
	r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_process);
	gm_capture_str(&r, exe);
	gm_capture_emit(GM_EV_PROCESS, &r);
}

static void at_exit(void)
{
	struct gm_thread *t;

	if (!gm_capture_ready()) {
		return;
	}
	t = gm_capture_thread();
	t->guard = 1;
	/* A process that dies in here is told apart from one that never
	 * got here (doc/gpumix-capture.md). */
	gm_capture_exiting();
	cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	/* Results the program never synchronized: hash what is there. */
	track_pending_complete(TRACK_SYNC_ALL, 0, emit_d2h,
			       (void *)&results_at_exit_flags);
	gm_capture_finish(cbid_name);
	t->guard = 0;
}

GM_CAPTURE_API int InitializeInjection(void)
{
	if (inject.initialised) {
		return 1;
	}
	inject.initialised = 1;
	if (gm_capture_init(NULL)) {
		/* Not under `gpumix capture` (or no bundle directory): stay out
		 * of the program's way; the capture notices the missing
		 * counter file. */
		return 1;
	}
	inject_state_setup();
	gnode_set_hooks(&graph_host_node_hooks);
	emit_process();
	if (cuptiSubscribe(&inject.sub, callback, NULL) != CUPTI_SUCCESS ||
	    cuptiEnableDomain(1, inject.sub, CUPTI_CB_DOMAIN_DRIVER_API) !=
		    CUPTI_SUCCESS ||
	    cuptiEnableDomain(1, inject.sub, CUPTI_CB_DOMAIN_RUNTIME_API) !=
		    CUPTI_SUCCESS ||
	    cuptiEnableCallback(1, inject.sub, CUPTI_CB_DOMAIN_RESOURCE,
				CUPTI_CBID_RESOURCE_CONTEXT_CREATED) !=
		    CUPTI_SUCCESS) {
		gm_capture_loss(cupti_errors);
	}
	activity_enable();
	atexit(at_exit);
	return 1;
}

/*
 * Test entry points (tests/unit/capture_cupti_emitter.c): the subscriber
 * without CUPTI underneath, so that a CPU-only test can hand callback()
 * the callback data CUPTI would, and check every special case end to end.
 */
GM_CAPTURE_API int gm_capture_test_init(void)
{
	int sp = specials_complete();

	if (sp >= 0) {
		/* A test's failure, never a program's: said where it shows. */
		fprintf(stderr, "gpumix-capture: special case %s has no "
			"handler (capture/inject.c)\n",
			gm_special_name((enum gm_special)sp));
		return -1;
	}
	if (gm_capture_init(NULL)) {
		return -1;
	}
	inject.initialised = 1;
	inject_state_setup();
	gnode_set_hooks(&graph_host_node_hooks);
	return 0;
}

GM_CAPTURE_API void gm_capture_test_callback(int domain, unsigned cbid,
					     const void *data)
{
	callback(NULL, (CUpti_CallbackDomain)domain, cbid, data);
}

GM_CAPTURE_API void gm_capture_test_layout(uint64_t handle, int is_kernel,
					   const uint32_t *pairs, uint32_t n)
{
	track_layout_put(handle, is_kernel, pairs, n, 0);
}

GM_CAPTURE_API void gm_capture_test_exit(void)
{
	track_pending_complete(TRACK_SYNC_ALL, 0, emit_d2h,
			       (void *)&results_at_exit_flags);
	gm_capture_finish(cbid_name);
}
