/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI subscriber of libgpumix-capture.so. CUDA loads the library
 * through CUDA_INJECTION64_PATH and calls InitializeInjection() during
 * cuInit, for static and shared cudart alike. One subscriber listens to
 * the driver API (what is recorded, described by cuda_api.def), the
 * runtime API (only to know which runtime call a driver call came from)
 * and resources (device of each new context); CUPTI activity records give
 * the GPU durations of kernels, copies and memsets.
 *
 * Rules (measured on CUDA 13): never call the CUDA runtime from here (the
 * program's runtime may be a static copy); driver calls made here raise
 * callbacks too, so a per-thread guard ignores them; the launch handle is
 * a CUkernel, mapped at cuLibraryGetKernel's exit.
 */
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <limits.h>
#include <pthread.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "emit.h"
#include "host_resident.h"
#include "hostmem.h"
#include "graph_host.h"
#include "graph_track.h"
#include "image.h"
#include "tracking.h"

#define ACT_BUF_SIZE (8u << 20)

/* Driver entry points the callbacks use, resolved from the loaded libcuda. */
struct driver_fns {
	CUresult (*kernel_param_info)(CUkernel, size_t, size_t *, size_t *);
	CUresult (*func_param_info)(CUfunction, size_t, size_t *, size_t *);
	CUresult (*kernel_name)(const char **, CUkernel);
	CUresult (*func_name)(const char **, CUfunction);
	CUresult (*kernel_library)(CUlibrary *, CUkernel);
	CUresult (*func_module)(CUmodule *, CUfunction);
	CUresult (*library_module)(CUmodule *, CUlibrary);
	CUresult (*pointer_attr)(void *, CUpointer_attribute, CUdeviceptr);
	CUresult (*stream_is_capturing)(CUstream, CUstreamCaptureStatus *);
	CUresult (*device_get)(CUdevice *, int);
	CUresult (*device_name)(char *, int, CUdevice);
	CUresult (*device_attr)(int *, CUdevice_attribute, CUdevice);
	CUresult (*device_mem)(size_t *, CUdevice);
	CUresult (*driver_version)(int *);
	CUresult (*library_global)(CUdeviceptr *, size_t *, CUlibrary,
				   const char *);
	CUresult (*module_global)(CUdeviceptr *, size_t *, CUmodule,
				  const char *);
};

/* Where the words a special case needs sit, per call (-1: absent). */
struct api_info {
	int8_t stream, src_host, dst_host, count, fields, name;
	int8_t node_params;	/* graph calls: the node's parameter struct */
	int8_t knode, mset, deps;	/* first word of those fields */
	uint8_t async;		/* ...Async: no implicit synchronization */
	uint8_t per_thread;	/* _ptsz/_ptds: stream 0 is per-thread */
	uint8_t exit_words;	/* exits repeat the words (outputs exist) */
};

struct host_wrap;

struct inject_state {
	int initialised;
	CUpti_SubscriberHandle sub;
	struct driver_fns cu;
	int16_t drv_api[CUPTI_DRIVER_TRACE_CBID_SIZE]; /* cbid -> api + 1 */
	struct api_info info[GM_API_COUNT];
	/* Wrapped host functions that have not run (host_pending_add). */
	pthread_mutex_t host_lock;
	struct host_wrap *host_pending;
};

static struct inject_state in = { .host_lock = PTHREAD_MUTEX_INITIALIZER };

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

static void build_tables(void)
{
	for (int i = 0; i < GM_API_COUNT; i++) {
		const char *n = gm_api_table[i].name;
		size_t len = strlen(n);
		struct api_info *f = &in.info[i];
		int cbid = gm_api_table[i].cbid;

		if (cbid > 0 && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE) {
			in.drv_api[cbid] = (int16_t)(i + 1);
		}
		f->stream = (int8_t)gm_api_arg_index(i, "hStream");
		f->src_host = (int8_t)gm_api_arg_index(i, "srcHost");
		f->dst_host = (int8_t)gm_api_arg_index(i, "dstHost");
		f->count = (int8_t)gm_api_arg_index(i, "ByteCount");
		f->fields = (int8_t)gm_api_arg_index(i, "srcXInBytes");
		f->name = (int8_t)gm_api_arg_index(i, "name");
		f->node_params = (int8_t)gm_api_arg_index(i, "nodeParams");
		if (f->node_params < 0) {
			f->node_params = (int8_t)gm_api_arg_index(i, "copyParams");
		}
		if (f->node_params < 0) {
			f->node_params =
				(int8_t)gm_api_arg_index(i, "memsetParams");
		}
		f->knode = (int8_t)gm_api_arg_index(i, "func");
		f->mset = (int8_t)gm_api_arg_index(i, "dst");
		f->deps = (int8_t)gm_api_arg_index(i, "dep0");
		f->async = strstr(n, "Async") != NULL;
		for (unsigned k = 0; k < gm_api_table[i].nr_args; k++) {
			f->exit_words |= gm_api_table[i].args[k].dir != GM_DIR_IN;
		}
		f->per_thread = len > 5 && (!strcmp(n + len - 5, "_ptsz") ||
					    !strcmp(n + len - 5, "_ptds"));
	}
}

static void resolve_driver(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);

	if (!h) {
		return;
	}
#define SYM(field, name) *(void **)&in.cu.field = dlsym(h, name)
	SYM(kernel_param_info, "cuKernelGetParamInfo");
	SYM(func_param_info, "cuFuncGetParamInfo");
	SYM(kernel_name, "cuKernelGetName");
	SYM(func_name, "cuFuncGetName");
	SYM(kernel_library, "cuKernelGetLibrary");
	SYM(func_module, "cuFuncGetModule");
	SYM(library_module, "cuLibraryGetModule");
	SYM(pointer_attr, "cuPointerGetAttribute");
	SYM(stream_is_capturing, "cuStreamIsCapturing");
	SYM(device_get, "cuDeviceGet");
	SYM(device_name, "cuDeviceGetName");
	SYM(device_attr, "cuDeviceGetAttribute");
	SYM(device_mem, "cuDeviceTotalMem_v2");
	SYM(driver_version, "cuDriverGetVersion");
	SYM(library_global, "cuLibraryGetGlobal");
	SYM(module_global, "cuModuleGetGlobal_v2");
#undef SYM
	/* libcuda stays loaded for the life of the process. */
	dlclose(h);
}

/* ---- argument words -------------------------------------------------- */

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

#define ARGS(name, a) ((struct gm_args_##name *)(a))

/* ---- runtime context --------------------------------------------------- */

static void rt_push(struct gm_thread *t, const CUpti_CallbackData *cb,
		    unsigned cbid)
{
	if (t->rt_depth < GM_RT_DEPTH) {
		struct gm_rt_frame *f = &t->rt[t->rt_depth];
		f->cbid = cbid;
		f->corr = cb->correlationId;
		f->name = cb->functionName;
		f->emitted = 0;
	}
	t->rt_depth++;
}

static void rt_pop(struct gm_thread *t, const CUpti_CallbackData *cb)
{
	struct gm_rt_frame *f;
	int status = 0;

	if (t->rt_depth <= 0) {
		return;
	}
	t->rt_depth--;
	if (t->rt_depth >= GM_RT_DEPTH) {
		return;
	}
	f = &t->rt[t->rt_depth];
	if (cb->functionReturnValue) {
		status = *(const int *)cb->functionReturnValue;
	}
	/*
	 * Driver events name their runtime call by rt_corr; an rt_exit is only
	 * worth its cost (a quarter of a launch's events) when the runtime
	 * call failed.
	 */
	if (f->emitted && status) {
		struct gm_record r = { 0 };
		r.api = (uint16_t)f->cbid;
		r.corr = f->corr;
		r.rt_corr = t->rt_depth ? t->rt[t->rt_depth - 1].corr : 0;
		r.status = status;
		gm_capture_str(&r, f->name);
		gm_capture_emit(GM_EV_RT_EXIT, &r);
	}
}

/* Emit the rt_enter of every enclosing runtime call not yet emitted. */
static uint32_t rt_context(struct gm_thread *t)
{
	int depth = t->rt_depth < GM_RT_DEPTH ? t->rt_depth : GM_RT_DEPTH;

	for (int i = 0; i < depth; i++) {
		struct gm_rt_frame *f = &t->rt[i];
		if (!f->emitted) {
			struct gm_record r = { 0 };
			r.api = (uint16_t)f->cbid;
			r.corr = f->corr;
			r.rt_corr = i ? t->rt[i - 1].corr : 0;
			gm_capture_str(&r, f->name);
			gm_capture_emit(GM_EV_RT_ENTER, &r);
			f->emitted = 1;
		}
	}
	return depth ? t->rt[depth - 1].corr : 0;
}

/* ---- device-to-host results -------------------------------------------- */

/* The flags emit_d2h() adds to a result hashed at the process's exit,
 * never synchronized, and to one hashed at the start of a graph's host
 * node that follows its copy node in the launch. */
static const uint16_t at_exit_flags = GM_RF_UNSYNCED;
static const uint16_t host_node_flags = GM_RF_HOST_NODE;

/* A pending copy's d2h_hash; @ctx: NULL or record flags to add (const
 * uint16_t *, at_exit_flags or host_node_flags). */
static void emit_d2h(const struct gm_pending *p, void *ctx)
{
	struct gm_record r = { 0 };
	uint64_t w[GM_NR_WORDS(gm_ev_d2h_hash)];
	struct gm_ev_d2h_hash *d = (struct gm_ev_d2h_hash *)w;
	uint16_t extra = ctx ? *(const uint16_t *)ctx : 0;

	d->api = (uint64_t)p->api;
	d->dstHost = (uint64_t)(uintptr_t)p->span.base;
	d->bytes = gm_span_size(&p->span);
	d->stream = p->key;
	r.api = (uint16_t)p->api;
	r.corr = p->corr;
	r.args = w;
	r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_d2h_hash);
	if (p->overwritten) {
		/* The program never saw it: a later copy wrote there before
		 * a synchronization covered this one. */
		r.flags |= GM_RF_OVERWRITTEN;
		gm_capture_emit(GM_EV_D2H_HASH, &r);
		return;
	}
	if (extra & GM_RF_UNSYNCED) {
		gm_capture_warn(unsynced_d2h);
	}
	r.flags |= extra;
	gm_capture_hash(&r, &p->span);
	gm_capture_emit(GM_EV_D2H_HASH, &r);
}

/*
 * A synchronization seen at a call's exit completes pending copies after
 * that exit event is emitted, so that each d2h_hash follows the call that
 * made its result visible. One per call is enough.
 */
struct deferred {
	int have;
	enum track_sync how;
	uint64_t arg;
};

static __thread struct deferred deferred;

static void complete(enum track_sync how, uint64_t arg)
{
	deferred.have = 1;
	deferred.how = how;
	deferred.arg = arg;
}

static void complete_now(enum track_sync how, uint64_t arg)
{
	track_pending_complete(how, arg, emit_d2h, NULL);
	hostmem_sync(how, arg);
}

static void run_deferred(void)
{
	if (deferred.have) {
		deferred.have = 0;
		complete_now(deferred.how, deferred.arg);
	}
}

/* A D2H result: hashed now (sync) or when its stream synchronizes. */
static void d2h_result(struct gm_record *r, int api, const struct gm_span *s,
		       int async, uint64_t key)
{
	gm_capture_add(d2h_bytes, gm_span_size(s));
	if (!async) {
		track_pending_overwrite(s, key);
		gm_capture_hash(r, s);
		return;
	}
	/* Into a capturing stream: a node of a graph, whose launches give
	 * the results (graph_launch()). */
	if (gtrack_capture_copy(key, s)) {
		return;
	}
	if (track_pending_add(api, r->corr, key, s, NULL)) {
		gm_capture_hash(r, s);	/* no memory: best effort now */
	}
}

/* At a copy's entry: were its destination's pages touched already? */
static void host_dst_state(struct gm_record *r, const struct gm_span *s)
{
	if (host_pages_resident(s)) {
		r->flags |= GM_RF_HOST_WARM;
	}
}

/* ---- kernel parameter layouts ------------------------------------------- */

/*
 * Read the layout of @h as a kernel (@as_kernel) or a function. Returns
 * the number of parameters, or -1 when @h is not that kind of handle.
 */
static int read_layout(uint64_t h, int as_kernel, uint32_t *pairs, int max)
{
	int n;

	for (n = 0; n < max; n++) {
		size_t off = 0, size = 0;
		CUresult rc;
		if (as_kernel) {
			rc = in.cu.kernel_param_info ?
				in.cu.kernel_param_info((CUkernel)(uintptr_t)h,
							(size_t)n, &off, &size) :
				CUDA_ERROR_NOT_SUPPORTED;
		} else {
			rc = in.cu.func_param_info ?
				in.cu.func_param_info((CUfunction)(uintptr_t)h,
						      (size_t)n, &off, &size) :
				CUDA_ERROR_NOT_SUPPORTED;
		}
		if (rc != CUDA_SUCCESS) {
			if (n == 0 && rc != CUDA_ERROR_INVALID_VALUE) {
				return -1;
			}
			break;
		}
		pairs[2 * n] = (uint32_t)off;
		pairs[2 * n + 1] = (uint32_t)size;
	}
	return n;
}

/* Kernels have at most a few hundred parameters (4 KiB of arguments). */
#define LAYOUT_MAX 1024
static __thread uint32_t tls_pairs[2 * LAYOUT_MAX];

/*
 * The module (CUfunction) or library (CUkernel) of handle @h, 0 when the
 * driver does not say. Libraries such as cuFFT get their functions
 * through the driver's private export table, which CUPTI does not trace:
 * the module is how reconstruct finds such a kernel's code.
 */
static uint64_t handle_module(uint64_t h, int kernel)
{
	if (kernel && in.cu.kernel_library) {
		CUlibrary lib = NULL;
		if (in.cu.kernel_library(&lib, (CUkernel)(uintptr_t)h) ==
		    CUDA_SUCCESS) {
			return (uintptr_t)lib;
		}
	} else if (!kernel && in.cu.func_module) {
		CUmodule mod = NULL;
		if (in.cu.func_module(&mod, (CUfunction)(uintptr_t)h) ==
		    CUDA_SUCCESS) {
			return (uintptr_t)mod;
		}
	}
	return 0;
}

/*
 * The recorded library whose module is @mod (a function's module, when
 * the program got the function from a library), or @mod itself.
 */
static uint64_t library_of_module(uint64_t mod)
{
	uint64_t libs[64];
	size_t n = track_code_libraries(libs, 64);

	for (size_t i = 0; in.cu.library_module && i < n; i++) {
		CUmodule m = NULL;
		if (in.cu.library_module(&m, (CUlibrary)(uintptr_t)libs[i]) ==
			    CUDA_SUCCESS && (uintptr_t)m == mod) {
			return libs[i];
		}
	}
	return mod;
}

/*
 * Layout of a handle no recorded call named (a function from a path we do
 * not track, or a handle that named another kernel before its module was
 * unloaded), seen first at a launch or at a call that names it: find it,
 * remember it and describe it, with its name and its module or library,
 * in a "layout" event. A handle without both, or of code the trace does
 * not hold (loaded through a path CUPTI does not trace), cannot be
 * replayed: a loss, so that the capture says so now rather than
 * reconstruct later.
 */
static const struct gm_layout *layout_discover(uint64_t h, uint32_t corr)
{
	uint32_t *pairs = tls_pairs;
	const struct gm_layout *l;
	const char *name = NULL;
	uint64_t module;
	int kernel = 1, n;

	n = read_layout(h, 1, pairs, LAYOUT_MAX);
	if (n < 0) {
		kernel = 0;
		n = read_layout(h, 0, pairs, LAYOUT_MAX);
	}
	if (n < 0) {
		return NULL;
	}
	module = handle_module(h, kernel);
	if (module && !kernel && !track_code_known(module)) {
		module = library_of_module(module);
	}
	l = track_layout_put(h, kernel, pairs, (uint32_t)n, module);
	if (kernel && in.cu.kernel_name) {
		in.cu.kernel_name(&name, (CUkernel)(uintptr_t)h);
	} else if (!kernel && in.cu.func_name) {
		in.cu.func_name(&name, (CUfunction)(uintptr_t)h);
	}
	{
		struct gm_record r = { 0 };
		uint64_t w[GM_NR_WORDS(gm_ev_layout)];
		struct gm_ev_layout *e = (struct gm_ev_layout *)w;
		void *buf;

		e->handle = h;
		e->nparams = (uint64_t)n;
		e->isKernel = (uint64_t)kernel;
		e->module = module;
		if (!module || !name || !track_code_known(module)) {
			gm_capture_loss(unnamed_kernels);
		}
		r.corr = corr;
		r.args = w;
		r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_layout);
		buf = gm_capture_data(&r, (size_t)n * 2 * sizeof(uint32_t));
		if (buf) {
			memcpy(buf, pairs, (size_t)n * 2 * sizeof(uint32_t));
		}
		gm_capture_str(&r, name);
		gm_capture_emit(GM_EV_LAYOUT, &r);
	}
	return l;
}

/*
 * At cuLibraryGetKernel / cuModuleGetFunction exit: layout into @r. A
 * kernel of code the trace does not hold (@module loaded through a path
 * CUPTI does not trace) cannot be replayed: a loss.
 */
static void layout_at_get(struct gm_record *r, uint64_t h, int kernel,
			  uint64_t module)
{
	uint32_t *pairs = tls_pairs;
	int n = read_layout(h, kernel, pairs, LAYOUT_MAX);
	void *buf;

	if (!track_code_known(module)) {
		gm_capture_loss(unnamed_kernels);
	}
	if (n < 0) {
		return;
	}
	track_layout_put(h, kernel, pairs, (uint32_t)n, module);
	buf = gm_capture_data(r, (size_t)n * 2 * sizeof(uint32_t));
	if (buf) {
		memcpy(buf, pairs, (size_t)n * 2 * sizeof(uint32_t));
	}
}

/* Copy the arguments of a launch, packed at their layout offsets. */
static void launch_params(struct gm_record *r, uint64_t f, void **params,
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

/* ---- mapped and managed memory ---------------------------------------- */

/* Allocations, aliases and frees of memory the host reads and writes
 * directly (hostmem.h): the words of every row of these replay kinds. */
static void hostmem_track(int api, const uint64_t *a)
{
	switch (gm_api_table[api].replay) {
	case GM_RK_HOST_ALLOC:
		hostmem_add(a[0], a[1], GM_HM_PINNED);
		break;
	case GM_RK_MANAGED_ALLOC:
		hostmem_add(a[0], a[1], GM_HM_MANAGED);
		break;
	case GM_RK_HOST_DEVPTR:
		hostmem_alias(a[1], a[0]);	/* pdptr, p */
		break;
	case GM_RK_FREE:
		hostmem_remove(a[0]);
		break;
	default:
		break;	/* the other calls of special NONE own no memory */
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

/* ---- host functions ------------------------------------------------------ */

/*
 * A host function the program enqueued (cuLaunchHostFunc) or a stream
 * callback (cuStreamAddCallback), wrapped at the call's entry: CUDA runs
 * the trampoline, which hashes the results of the copies before it in
 * its stream (the program may read them from there on), runs the
 * program's own function with its own argument and then records how
 * long it took (a host_func event naming the call). The wrapper is freed
 * by the trampoline; one that never runs (the program exits first) stays
 * listed in in.host_pending to the process's end, and the call is in the
 * trace all the same (reconstruct warns that its duration is unknown).
 */
struct host_wrap {
	int callback;			/* cuStreamAddCallback's signature */
	CUhostFn fn;
	CUstreamCallback cb;
	void *user;
	uint32_t corr;
	uint16_t api;
	uint64_t key, position;		/* its place in its stream's work */
	struct host_wrap *prev, *next;	/* in in.host_pending */
};

/*
 * The wrappers whose function has not run are listed in in.host_pending:
 * kept reachable (a function still pending when the program exits never
 * runs, and its wrapper is not a leak), each unlinked and freed by its
 * trampoline.
 */
static void host_pending_add(struct host_wrap *w)
{
	pthread_mutex_lock(&in.host_lock);
	w->prev = NULL;
	w->next = in.host_pending;
	if (w->next) {
		w->next->prev = w;
	}
	in.host_pending = w;
	pthread_mutex_unlock(&in.host_lock);
}

static void host_pending_del(struct host_wrap *w)
{
	pthread_mutex_lock(&in.host_lock);
	if (w->prev) {
		w->prev->next = w->next;
	} else {
		in.host_pending = w->next;
	}
	if (w->next) {
		w->next->prev = w->prev;
	}
	pthread_mutex_unlock(&in.host_lock);
}

/*
 * When a host function starts, the work before it in its stream is done:
 * the program may read (and reuse) the results of the copies before it
 * from there on, so they are hashed now, as at any synchronization that
 * covers them (doc/bundle-format.md, d2h_hash).
 */
static void host_wrap_start(const struct host_wrap *w)
{
	if (gm_capture_ready()) {
		track_pending_complete_at(w->key, w->position, emit_d2h, NULL);
	}
}

static void host_wrap_done(struct host_wrap *w, uint64_t start, uint64_t end)
{
	uint64_t words[GM_NR_WORDS(gm_ev_host_func)];
	struct gm_ev_host_func *e = (struct gm_ev_host_func *)words;
	struct gm_record r = { 0 };

	/* Under a capture only; one that runs during teardown is counted
	 * like any late event (doc/gpumix-capture.md). */
	if (gm_capture_ready()) {
		e->start = start;
		e->end = end;
		r.api = w->api;
		r.corr = w->corr;
		r.args = words;
		r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_host_func);
		gm_capture_emit(GM_EV_HOST_FUNC, &r);
	}
	host_pending_del(w);
	free(w);
}

static uint64_t host_now(void)
{
	uint64_t ns = 0;

	cuptiGetTimestamp(&ns);
	return ns;
}

static void CUDA_CB host_fn_trampoline(void *arg)
{
	struct host_wrap *w = arg;
	uint64_t start;

	host_wrap_start(w);
	start = host_now();
	w->fn(w->user);
	host_wrap_done(w, start, host_now());
}

static void CUDA_CB host_cb_trampoline(CUstream s, CUresult status, void *arg)
{
	struct host_wrap *w = arg;
	uint64_t start;

	host_wrap_start(w);
	start = host_now();
	w->cb(s, status, w->user);
	host_wrap_done(w, start, host_now());
}

/*
 * At the entry of a host-function call: point its parameters at a
 * trampoline (CUDA reads them after the entry callback). Both calls put
 * the stream, the function and its argument first. Without memory the
 * call goes on unwrapped: the program is not affected, the duration is
 * not known.
 */
/* cuStreamAddCallback (a callback cannot be captured into a graph). */
static int w_is_callback(int api)
{
	return gm_api_table[api].base == GM_API_cuStreamAddCallback;
}

static void host_wrap(int api, const CUpti_CallbackData *cb, uint64_t key)
{
	cuLaunchHostFunc_params *p = (cuLaunchHostFunc_params *)cb->functionParams;
	struct host_wrap *w;

	_Static_assert(offsetof(cuLaunchHostFunc_params, fn) ==
			       offsetof(cuStreamAddCallback_params, callback) &&
		       offsetof(cuLaunchHostFunc_params, userData) ==
			       offsetof(cuStreamAddCallback_params, userData),
		       "host functions: fn and userData at the same places");
	if (!p || !p->fn) {
		return;
	}
	/* Into a capturing stream it becomes a graph's host node, which may
	 * run once per launch: wrapped as one (graph_host.h). The legacy
	 * stream is never captured, and querying it during a capture would
	 * break it. */
	if ((uintptr_t)p->hStream > 1 && in.cu.stream_is_capturing) {
		CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
		if (in.cu.stream_is_capturing(p->hStream, &cs) != CUDA_SUCCESS) {
			return;
		}
		if (cs == CU_STREAM_CAPTURE_STATUS_ACTIVE &&
		    !w_is_callback(api)) {
			struct gnode_wrap *g = gnode_wrap_new(
				p->fn, p->userData, &p->fn, &p->userData);
			if (g) {
				gtrack_capture_host(key, g);
			}
			return;
		}
		if (cs != CU_STREAM_CAPTURE_STATUS_NONE) {
			return;
		}
	}
	if (!(w = malloc(sizeof(*w)))) {
		return;
	}
	w->callback = w_is_callback(api);
	w->user = p->userData;
	w->corr = cb->correlationId;
	w->api = (uint16_t)api;
	w->key = key;
	w->position = track_position();
	/* The copies before it are seen by the program when it starts,
	 * before later copies on its stream write. */
	track_pending_watch(key, w->position);
	host_pending_add(w);
	if (w->callback) {
		cuStreamAddCallback_params *q = (void *)p;
		w->fn = NULL;
		w->cb = q->callback;
		q->callback = host_cb_trampoline;
	} else {
		w->cb = NULL;
		w->fn = p->fn;
		p->fn = host_fn_trampoline;
	}
	p->userData = w;
}

/* ---- special cases ------------------------------------------------------ */

static unsigned memory_kind(CUdeviceptr p)
{
	unsigned type = 0;

	if (!in.cu.pointer_attr ||
	    in.cu.pointer_attr(&type, CU_POINTER_ATTRIBUTE_MEMORY_TYPE, p) !=
		    CUDA_SUCCESS) {
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

/* Is one side of a 2-D/3-D copy host memory? */
static int side_is_host(unsigned type, const void *host, CUdeviceptr dev)
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

/* The descriptor words, as cuda_api.def lists them. */
#define GM_X(t, f) uint64_t f;
struct copy2d_words { GM_COPY2D_FIELDS };
struct copy3d_words { GM_COPY3D_FIELDS };
#undef GM_X

static void copy2d_fields(uint64_t *w, const CUDA_MEMCPY2D *c)
{
	struct copy2d_words *x = (struct copy2d_words *)w;

	if (!c) {
		return;
	}
	x->srcXInBytes = c->srcXInBytes;
	x->srcY = c->srcY;
	x->srcMemoryType = c->srcMemoryType;
	x->srcHost = (uintptr_t)c->srcHost;
	x->srcDevice = c->srcDevice;
	x->srcArray = (uintptr_t)c->srcArray;
	x->srcPitch = c->srcPitch;
	x->dstXInBytes = c->dstXInBytes;
	x->dstY = c->dstY;
	x->dstMemoryType = c->dstMemoryType;
	x->dstHost = (uintptr_t)c->dstHost;
	x->dstDevice = c->dstDevice;
	x->dstArray = (uintptr_t)c->dstArray;
	x->dstPitch = c->dstPitch;
	x->WidthInBytes = c->WidthInBytes;
	x->Height = c->Height;
}

static void copy3d_fields(uint64_t *w, const CUDA_MEMCPY3D *c)
{
	struct copy3d_words *x = (struct copy3d_words *)w;

	if (!c) {
		return;
	}
	x->srcXInBytes = c->srcXInBytes;
	x->srcY = c->srcY;
	x->srcZ = c->srcZ;
	x->srcLOD = c->srcLOD;
	x->srcMemoryType = c->srcMemoryType;
	x->srcHost = (uintptr_t)c->srcHost;
	x->srcDevice = c->srcDevice;
	x->srcArray = (uintptr_t)c->srcArray;
	x->srcPitch = c->srcPitch;
	x->srcHeight = c->srcHeight;
	x->dstXInBytes = c->dstXInBytes;
	x->dstY = c->dstY;
	x->dstZ = c->dstZ;
	x->dstLOD = c->dstLOD;
	x->dstMemoryType = c->dstMemoryType;
	x->dstHost = (uintptr_t)c->dstHost;
	x->dstDevice = c->dstDevice;
	x->dstArray = (uintptr_t)c->dstArray;
	x->dstPitch = c->dstPitch;
	x->dstHeight = c->dstHeight;
	x->WidthInBytes = c->WidthInBytes;
	x->Height = c->Height;
	x->Depth = c->Depth;
}

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

/* The host source of a 3D copy as a span; 0 when the source is not host
 * memory. */
static int copy3d_host_src(const CUDA_MEMCPY3D *c, struct gm_span *s)
{
	if (!side_is_host(c->srcMemoryType, c->srcHost, c->srcDevice)) {
		return 0;
	}
	*s = span3d(side_ptr(c->srcMemoryType, c->srcHost, c->srcDevice),
		    c->srcXInBytes, c->srcY, c->srcZ, c->srcPitch, c->srcHeight,
		    c->WidthInBytes, c->Height, c->Depth);
	return 1;
}

/* The host destination of a 3D copy, likewise. */
static int copy3d_host_dst(const CUDA_MEMCPY3D *c, struct gm_span *s)
{
	if (!side_is_host(c->dstMemoryType, c->dstHost, c->dstDevice)) {
		return 0;
	}
	*s = span3d(side_ptr(c->dstMemoryType, c->dstHost, c->dstDevice),
		    c->dstXInBytes, c->dstY, c->dstZ, c->dstPitch, c->dstHeight,
		    c->WidthInBytes, c->Height, c->Depth);
	return 1;
}

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

/* ---- CUDA graphs ---------------------------------------------------------- */

static void on_unsupported(const CUpti_CallbackData *cb, unsigned cbid,
			   int runtime, struct gm_thread *t);
static void unsupported_named(const CUpti_CallbackData *cb, unsigned cbid,
			      const char *name, struct gm_thread *t);

/* What a graph launch whose host sources changed is reported as, before
 * the launch and while a host node of the launch ran. */
#define GRAPH_SOURCE_CHANGED "cuGraphLaunch.changed_host_source"
#define GRAPH_HOST_NODE_CHANGED "cuGraphLaunch.host_node_changed_source"

/* Dependencies of a new node: the first GRAPH_MAX_DEPS as words. */
#define GRAPH_MAX_DEPS 8

/* Whether the @n edges of @ed (may be NULL) are plain ones: full
 * completion, the only kind the replay's edges are. */
static int edges_plain(const CUgraphEdgeData *ed, uint64_t n)
{
	static const CUgraphEdgeData plain;

	for (uint64_t i = 0; ed && i < n; i++) {
		if (memcmp(&ed[i], &plain, sizeof(plain))) {
			return 0;
		}
	}
	return 1;
}

/* The typed call a generic node becomes (generic_node()). */
union typed_params {
	cuGraphAddKernelNode_v2_params kernel;
	cuGraphAddMemcpyNode_params memcpy;
	cuGraphAddMemsetNode_params memset;
	cuGraphAddHostNode_params host;
	cuGraphAddChildGraphNode_params child;
	cuGraphAddEmptyNode_params empty;
	cuGraphAddEventRecordNode_params record;
	cuGraphAddEventWaitNode_params wait;
};

/* The unsupported names of the node kinds that have no typed call here. */
static const char *generic_unsupported(CUgraphNodeType type)
{
	switch (type) {
	case CU_GRAPH_NODE_TYPE_CONDITIONAL:
		return "cuGraphAddNode_v2.conditional";
	case CU_GRAPH_NODE_TYPE_MEM_ALLOC:
	case CU_GRAPH_NODE_TYPE_MEM_FREE:
		return "cuGraphAddNode_v2.memory";
	case CU_GRAPH_NODE_TYPE_EXT_SEMAS_SIGNAL:
	case CU_GRAPH_NODE_TYPE_EXT_SEMAS_WAIT:
		return "cuGraphAddNode_v2.external_semaphore";
	case CU_GRAPH_NODE_TYPE_BATCH_MEM_OP:
		return "cuGraphAddNode_v2.batch_mem_op";
	default:
		return "cuGraphAddNode_v2.unknown_kind";
	}
}

/*
 * cuGraphAddNode_v2 and cuGraphAddNode (generic node creation): the node
 * is recorded as the typed call that makes the same node, whose words the
 * reader knows (the node parameter unions begin as the typed calls'
 * structs do). Fills @out (the callback data, pointing at @p) and returns
 * the typed call's callback id; 0 with *@why the unsupported name for a
 * node of another kind, or dependencies of other edge kinds.
 */
static unsigned generic_node(const CUpti_CallbackData *cb, unsigned cbid,
			     CUpti_CallbackData *out, union typed_params *p,
			     const char **why)
{
	CUgraphNode *ph;
	CUgraph g;
	const CUgraphNode *deps;
	const CUgraphEdgeData *ed = NULL;
	size_t n;
	CUgraphNodeParams *np;

	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode_v2) {
		const cuGraphAddNode_v2_params *v = cb->functionParams;
		ph = v->phGraphNode;
		g = v->hGraph;
		deps = v->dependencies;
		ed = v->dependencyData;
		n = v->numDependencies;
		np = v->nodeParams;
	} else {
		const cuGraphAddNode_params *v = cb->functionParams;
		ph = v->phGraphNode;
		g = v->hGraph;
		deps = v->dependencies;
		n = v->numDependencies;
		np = v->nodeParams;
	}
	*out = *cb;
	out->functionParams = p;
	memset(p, 0, sizeof(*p));
	/* Every typed struct begins phGraphNode, hGraph, deps, count. */
	p->empty.phGraphNode = ph;
	p->empty.hGraph = g;
	p->empty.dependencies = deps;
	p->empty.numDependencies = n;
	if (!edges_plain(ed, n)) {
		*why = "cuGraphAddNode_v2.edge_data";
		return 0;
	}
	if (!np) {
		*why = "cuGraphAddNode_v2.unknown_kind";
		return 0;
	}
	switch (np->type) {
	case CU_GRAPH_NODE_TYPE_KERNEL:
		p->kernel.nodeParams =
			(const CUDA_KERNEL_NODE_PARAMS *)&np->kernel;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddKernelNode_v2;
	case CU_GRAPH_NODE_TYPE_MEMCPY:
		p->memcpy.copyParams = &np->memcpy.copyParams;
		p->memcpy.ctx = np->memcpy.copyCtx;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddMemcpyNode;
	case CU_GRAPH_NODE_TYPE_MEMSET:
		p->memset.memsetParams =
			(const CUDA_MEMSET_NODE_PARAMS *)&np->memset;
		p->memset.ctx = np->memset.ctx;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddMemsetNode;
	case CU_GRAPH_NODE_TYPE_HOST:
		p->host.nodeParams = (const CUDA_HOST_NODE_PARAMS *)&np->host;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddHostNode;
	case CU_GRAPH_NODE_TYPE_GRAPH:
		p->child.childGraph = np->graph.graph;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddChildGraphNode;
	case CU_GRAPH_NODE_TYPE_EMPTY:
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddEmptyNode;
	case CU_GRAPH_NODE_TYPE_EVENT_RECORD:
		p->record.event = np->eventRecord.event;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddEventRecordNode;
	case CU_GRAPH_NODE_TYPE_WAIT_EVENT:
		p->wait.event = np->eventWait.event;
		return CUPTI_DRIVER_TRACE_CBID_cuGraphAddEventWaitNode;
	default:
		*why = generic_unsupported(np->type);
		return 0;
	}
}

static void graph_deps(const struct api_info *f, uint64_t *a,
		       const CUpti_CallbackData *cb, unsigned cbid,
		       struct gm_thread *t, int exit)
{
	/* Every node-adding row begins phGraphNode, hGraph, dependencies,
	 * numDependencies (cuda_api.def). */
	const CUgraphNode *deps = (const CUgraphNode *)(uintptr_t)a[2];
	uint64_t n = a[3];

	for (uint64_t i = 0; deps && i < n && i < GRAPH_MAX_DEPS; i++) {
		a[f->deps + i] = (uintptr_t)deps[i];
	}
	if (!exit && n > GRAPH_MAX_DEPS) {
		on_unsupported(cb, cbid, 0, t);	/* the replay would lose edges */
	}
	if (exit && a[0]) {
		gtrack_node_made(a[0]);		/* phGraphNode, at exit */
	}
}

/* A node a recorded call made, at its successful exit: what the capture
 * follows of it (@what) and its edges (graph_track.h). */
static void graph_node_made(const uint64_t *a, const struct gtrack_node *what)
{
	gtrack_graph_node(a[1], a[0], (const uint64_t *)(uintptr_t)a[2],
			  (size_t)a[3], what);
}

/* A node followed for its edges only. */
static const struct gtrack_node other_node = { GTRACK_OTHER, { 0 }, 0,
					      { 0, 0 }, NULL };

/*
 * cuGraphAddHostNode: at entry, the node is made with the capture's
 * trampoline (graph_host.h) instead of the program's function, through a
 * parameter struct of the wrapper's (the program's stays as it was); at
 * exit, the node is followed as a host node. The entry passes the wrapper
 * to the exit in the call's correlation data.
 */
struct host_node_params {
	CUDA_HOST_NODE_PARAMS p;
	struct gnode_wrap *w;
};

static void graph_host_node(const CUpti_CallbackData *cb, uint64_t *a,
			    int exit, int ok)
{
	cuGraphAddHostNode_params *p = (void *)cb->functionParams;
	struct host_node_params *hp;

	if (!exit) {
		*cb->correlationData = 0;
		if (!p || !p->nodeParams || !p->nodeParams->fn ||
		    !(hp = calloc(1, sizeof(*hp)))) {
			return;
		}
		hp->p = *p->nodeParams;
		hp->w = gnode_wrap_new(hp->p.fn, hp->p.userData, &hp->p.fn,
				       &hp->p.userData);
		if (!hp->w) {
			free(hp);
			return;
		}
		p->nodeParams = &hp->p;
		*cb->correlationData = (uintptr_t)hp;
		return;
	}
	hp = (struct host_node_params *)(uintptr_t)*cb->correlationData;
	if (ok) {
		struct gtrack_node n = other_node;
		if (hp) {
			n.kind = GTRACK_HOST;
			n.host = hp->w;
		}
		graph_node_made(a, &n);
	}
	/* The driver copied the parameters; the wrapper lives on (a failed
	 * call's is never run). */
	free(hp);
}

/* CUmemorytype */
#define MT_HOST 1
#define MT_DEVICE 2
#define MT_UNIFIED 4

/*
 * What reconstruct rebuilds of a memcpy node (reconstruct/bundle_feed.c,
 * node_copy()): one contiguous run, host or device at each end, not host
 * to host. Reported at capture otherwise.
 */
static int copy_node_ok(const CUDA_MEMCPY3D *c)
{
	size_t w = c->WidthInBytes, h = c->Height ? c->Height : 1,
	       d = c->Depth ? c->Depth : 1;
	int sh = side_is_host(c->srcMemoryType, c->srcHost, c->srcDevice),
	    dh = side_is_host(c->dstMemoryType, c->dstHost, c->dstDevice);

	if ((c->srcMemoryType != MT_HOST && c->srcMemoryType != MT_DEVICE &&
	     c->srcMemoryType != MT_UNIFIED) ||
	    (c->dstMemoryType != MT_HOST && c->dstMemoryType != MT_DEVICE &&
	     c->dstMemoryType != MT_UNIFIED) || (sh && dh)) {
		return 0;
	}
	return h * d == 1 || (c->srcPitch == w && c->dstPitch == w &&
			      (d == 1 || (c->srcHeight == h &&
					  c->dstHeight == h)));
}

/* A kernel node's parameters, recorded like a launch's. */
static void graph_kernel(const struct api_info *f, uint64_t *a,
			 struct gm_record *r, int exit)
{
	const CUDA_KERNEL_NODE_PARAMS *np =
		(const void *)(uintptr_t)a[f->node_params];
	uint64_t *k = &a[f->knode];
	uint64_t fn;

	if (!np) {
		return;
	}
	fn = np->func ? (uintptr_t)np->func : (uintptr_t)np->kern;
	k[0] = fn;
	k[1] = np->gridDimX;
	k[2] = np->gridDimY;
	k[3] = np->gridDimZ;
	k[4] = np->blockDimX;
	k[5] = np->blockDimY;
	k[6] = np->blockDimZ;
	k[7] = np->sharedMemBytes;
	if (!exit) {
		launch_params(r, fn, np->kernelParams, np->extra, 0);
	}
}

static void graph_memcpy(const struct api_info *f, uint64_t *a,
			 struct gm_record *r, int exit, int ok,
			 const CUpti_CallbackData *cb, unsigned cbid,
			 struct gm_thread *t)
{
	const CUDA_MEMCPY3D *c = (const void *)(uintptr_t)a[f->node_params];
	struct gm_span s;

	copy3d_fields(&a[f->fields], c);
	if (!c) {
		if (ok) {
			graph_node_made(a, &other_node);
		}
		return;
	}
	if (!exit && !copy_node_ok(c)) {
		on_unsupported(cb, cbid, 0, t);
	}
	/* A host source is read at each launch; what the replay has is its
	 * content when the node was made (doc/graphs.md): a launch that
	 * finds it changed is reported (graph_launch()). */
	if (copy3d_host_src(c, &s)) {
		if (!exit) {
			gm_capture_add(h2d_bytes, gm_span_size(&s));
			gm_capture_payload(r, &s, GM_INLINE_MAX);
		}
		if (ok) {
			struct gtrack_node n = other_node;
			n.kind = GTRACK_SOURCE;
			n.span = s;
			graph_node_made(a, &n);
		}
	} else if (ok && copy3d_host_dst(c, &s)) {
		struct gtrack_node n = other_node;
		n.kind = GTRACK_COPY;
		n.span = s;
		graph_node_made(a, &n);
	} else if (ok) {
		graph_node_made(a, &other_node);
	}
}

static void graph_memset(const struct api_info *f, uint64_t *a,
			 const CUpti_CallbackData *cb, unsigned cbid,
			 struct gm_thread *t, int exit)
{
	const CUDA_MEMSET_NODE_PARAMS *m =
		(const void *)(uintptr_t)a[f->node_params];
	uint64_t *w = &a[f->mset];

	/* Reconstruct rebuilds 1, 2 and 4-byte elements in rows without
	 * padding (bundle_feed.c): reported at capture otherwise. */
	if (m && !exit &&
	    ((m->elementSize != 1 && m->elementSize != 2 &&
	      m->elementSize != 4) ||
	     (m->height > 1 && m->pitch != m->width * m->elementSize))) {
		on_unsupported(cb, cbid, 0, t);
	}
	if (m) {
		w[0] = m->dst;
		w[1] = m->pitch;
		w[2] = m->value;
		w[3] = m->elementSize;
		w[4] = m->width;
		w[5] = m->height;
	}
}

/* cuGraphAddDependencies: the edges as (from, to) pairs of words. */
static void graph_edges(struct gm_record *r, uint64_t *a)
{
	const struct gm_args_cuGraphAddDependencies_v2 *x =
		ARGS(cuGraphAddDependencies_v2, a);
	const CUgraphNode *from = (const void *)(uintptr_t)x->from;
	const CUgraphNode *to = (const void *)(uintptr_t)x->to;
	uint64_t n = x->numDependencies;
	uint64_t *buf;

	if (!from || !to || !n || n > (1u << 20) ||
	    !(buf = gm_capture_data(r, (size_t)n * 16))) {
		return;
	}
	for (uint64_t i = 0; i < n; i++) {
		buf[2 * i] = (uintptr_t)from[i];
		buf[2 * i + 1] = (uintptr_t)to[i];
	}
}

/* cuGraphAddDependencies, at its successful exit: the edges, followed. */
static void graph_edges_made(const uint64_t *a)
{
	const struct gm_args_cuGraphAddDependencies_v2 *x =
		ARGS(cuGraphAddDependencies_v2, a);
	const CUgraphNode *from = (const void *)(uintptr_t)x->from;
	const CUgraphNode *to = (const void *)(uintptr_t)x->to;
	uint64_t n = x->numDependencies;
	uint64_t *pairs;

	if (!from || !to || !n || n > (1u << 20) ||
	    !(pairs = malloc((size_t)n * 2 * sizeof(*pairs)))) {
		return;
	}
	for (uint64_t i = 0; i < n; i++) {
		pairs[2 * i] = (uintptr_t)from[i];
		pairs[2 * i + 1] = (uintptr_t)to[i];
	}
	gtrack_graph_edges(x->hGraph, pairs, (size_t)n);
	free(pairs);
}

/*
 * What a graph launch's entry set up, undone at its exit if the launch
 * failed: the pending copies (by sequence number) and the host-node runs
 * it announced. (Another pending copy it overwrote stays overwritten: a
 * lost check, never a wrong one.)
 */
struct launch_setup {
	uint64_t *seqs;
	size_t nr_seqs;
	struct gnode_wrap **wraps;
	struct gnode_run **runs;
	size_t nr_runs;
};

static void launch_setup_free(struct launch_setup *ls)
{
	if (ls) {
		free(ls->seqs);
		free(ls->wraps);
		free(ls->runs);
		free(ls);
	}
}

static void drop_pending(const struct gm_pending *p, void *ctx)
{
	(void)p;
	(void)ctx;
}

/* cuGraphLaunch failed: its copies deliver nothing, its nodes never run. */
static void launch_setup_undo(struct launch_setup *ls)
{
	track_pending_complete_seqs(ls->seqs, ls->nr_seqs, drop_pending, NULL);
	for (size_t i = 0; i < ls->nr_runs; i++) {
		if (ls->runs[i]) {
			gnode_cancel(ls->wraps[i], ls->runs[i]);
		}
	}
}

/*
 * A graph launch of @exec on stream @key, made at correlation id @corr,
 * at the entry of its call (CUDA's thread may run a host node of it
 * before the call returns): its copy nodes deliver at the next
 * synchronization that covers the launch, or at the start of a host node
 * that follows them (graph_host.h); its event record nodes are recorded
 * after the copies made before them. What it set up goes to *@setup
 * (NULL without memory: a failed launch then leaves it). Returns 1 when
 * a host source changed since its node was made (the replay would copy
 * what was recorded).
 */
static int graph_launch(int api, uint32_t corr, uint64_t key, uint64_t exec,
			struct launch_setup **setup)
{
	struct gtrack_launch v;
	uint64_t position = track_position();	/* before its copies */
	uint64_t *seq = NULL, *mine = NULL;
	struct gtrack_node *src = NULL;
	struct launch_setup *ls;
	size_t nr_src = 0;
	int changed = 0, hosts = 0;

	*setup = NULL;
	if (!gtrack_launch_view(exec, &v)) {
		return 0;
	}
	for (unsigned i = 0; i < v.nr; i++) {
		hosts += v.nodes[i].kind == GTRACK_HOST;
	}
	seq = calloc(v.nr + 1, sizeof(*seq));
	ls = calloc(1, sizeof(*ls));
	if (ls) {
		ls->seqs = calloc(v.nr + 1, sizeof(*ls->seqs));
		ls->wraps = calloc((size_t)hosts + 1, sizeof(*ls->wraps));
		ls->runs = calloc((size_t)hosts + 1, sizeof(*ls->runs));
		if (!ls->seqs || !ls->wraps || !ls->runs) {
			launch_setup_free(ls);
			ls = NULL;
		}
	}
	if (hosts) {
		mine = calloc(v.nr + 1, sizeof(*mine));
		src = calloc(v.nr, sizeof(*src));
	}
	for (unsigned i = 0; i < v.nr; i++) {
		const struct gtrack_node *n = &v.nodes[i];
		struct gm_pending now;
		struct gm_hash h;

		switch (n->kind) {
		case GTRACK_EVENT:
			track_event_record(n->event, key);
			break;
		case GTRACK_SOURCE:
			if (gm_span_hash(&n->span, &h) == 0 &&
			    (h.hi != n->hash.hi || h.lo != n->hash.lo)) {
				changed = 1;
			}
			if (src) {
				src[nr_src++] = *n;
			}
			break;
		case GTRACK_COPY:
			gm_capture_add(d2h_bytes, gm_span_size(&n->span));
			if (track_pending_add(api, corr, key, &n->span,
					      seq ? &seq[i] : NULL) == 0) {
				if (seq && ls) {
					ls->seqs[ls->nr_seqs++] = seq[i];
				}
				break;
			}
			/* no memory: hash at once, best effort */
			memset(&now, 0, sizeof(now));
			now.api = api;
			now.corr = corr;
			now.key = key;
			now.span = n->span;
			emit_d2h(&now, NULL);
			break;
		case GTRACK_HOST:
		case GTRACK_OTHER:
			break;
		}
	}
	for (unsigned i = 0; hosts && i < v.nr; i++) {
		struct gnode_run *run;
		size_t k = 0;

		if (v.nodes[i].kind != GTRACK_HOST) {
			continue;
		}
		for (uint32_t c = 0; seq && mine && v.first && c < v.count[i];
		     c++) {
			mine[k++] = seq[v.copies[v.first[i] + c]];
		}
		run = gnode_expect(v.nodes[i].host, key, position, corr, mine,
				   k, src, nr_src);
		if (ls) {
			ls->wraps[ls->nr_runs] = v.nodes[i].host;
			ls->runs[ls->nr_runs++] = run;
		}
		/* What it completes is seen before later copies on the
		 * launch's stream write. */
		track_pending_watch(key, position);
		track_pending_watch_seqs(key, mine, k);
	}
	free(seq);
	free(mine);
	free(src);
	gtrack_launch_release(&v);
	*setup = ls;
	return changed;
}

/* The hooks of graph host nodes (graph_host.h). */
static void host_node_start(uint64_t key, uint64_t position,
			    const uint64_t *seqs, size_t nr_seqs)
{
	track_pending_complete_at(key, position, emit_d2h, NULL);
	track_pending_complete_seqs(seqs, nr_seqs, emit_d2h,
				    (void *)&host_node_flags);
}

static void host_node_changed(uint32_t corr);

static const struct gnode_hooks host_node_hooks = {
	.start = host_node_start,
	.changed = host_node_changed,
	.ready = gm_capture_ready,
};

/*
 * The special case of a recorded call at entry (@exit 0) or exit. @a holds
 * the argument words, @r the record being built.
 */
static void special(int api, const CUpti_CallbackData *cb, unsigned cbid,
		    int exit, struct gm_record *r, uint64_t *a,
		    struct gm_thread *t)
{
	const struct gm_api_desc *d = &gm_api_table[api];
	const struct api_info *f = &in.info[api];
	const void *params = cb->functionParams;
	int ok = exit && r->status == CUDA_SUCCESS;
	int async = f->async;
	uint64_t key = track_stream_key(f->stream >= 0 ? a[f->stream] : 0,
					f->per_thread, t->tid);

	switch (d->special) {
	case GM_SP_NONE:
		/* A stream waiting for an event: its syncs now cover the
		 * event's copies. Keyed by id, not a GM_SP_ case: the special
		 * is part of the api-table signature of committed bundles. */
		if (ok && (api == GM_API_cuStreamWaitEvent ||
			   api == GM_API_cuStreamWaitEvent_ptsz)) {
			track_stream_wait(key, a[1]);
			gtrack_stream_wait(key, a[1]);
		}
		if (ok && (api == GM_API_cuGraphDestroy ||
			   api == GM_API_cuGraphExecDestroy)) {
			gtrack_forget(a[0]);
		}
		if (ok) {
			hostmem_track(api, a);
		}
		break;
	case GM_SP_H2D:
		if (!exit) {
			struct gm_span sp = gm_span_bytes(
				(const void *)(uintptr_t)a[f->src_host],
				a[f->count]);
			gm_capture_add(h2d_bytes, a[f->count]);
			gm_capture_payload(r, &sp, GM_INLINE_MAX);
			if (async) {
				gtrack_capture_source(key, &sp);
			}
		} else if (ok && !async) {
			complete(TRACK_SYNC_LEGACY, 0);
		}
		break;
	case GM_SP_D2H:
	case GM_SP_D2H_ASYNC: {
		struct gm_span sp = gm_span_bytes(
			(const void *)(uintptr_t)a[f->dst_host], a[f->count]);
		if (!exit) {
			host_dst_state(r, &sp);
		}
		if (ok) {
			if (!async) {
				complete(TRACK_SYNC_LEGACY, 0);
			}
			d2h_result(r, api, &sp, async, key);
		}
		break;
	}
	case GM_SP_MEMCPY:
	case GM_SP_MEMCPY_ASYNC: {
		/* Every MEMCPY row starts with dst, src, ByteCount. */
		struct gm_args_cuMemcpy *x = ARGS(cuMemcpy, a);
		unsigned kind;
		uint64_t *kp = &a[gm_api_table[api].nr_args - 1];
		if (!exit) {
			kind = copy_kind(x->dst, x->src);
			*cb->correlationData = kind;
		} else {
			kind = (unsigned)*cb->correlationData;
		}
		*kp = kind;
		if (!exit && (kind == GM_COPY_D2H || kind == GM_COPY_H2H)) {
			struct gm_span s = gm_span_bytes(
				(const void *)(uintptr_t)x->dst, x->ByteCount);
			host_dst_state(r, &s);
		}
		if (!exit && (kind == GM_COPY_H2D || kind == GM_COPY_H2H)) {
			struct gm_span s = gm_span_bytes(
				(const void *)(uintptr_t)x->src, x->ByteCount);
			gm_capture_add(h2d_bytes, x->ByteCount);
			gm_capture_payload(r, &s, GM_INLINE_MAX);
			if (async) {
				gtrack_capture_source(key, &s);
			}
		}
		if (ok) {
			if (!async) {
				complete(TRACK_SYNC_LEGACY, 0);
			}
			if (kind == GM_COPY_D2H || kind == GM_COPY_H2H) {
				struct gm_span s = gm_span_bytes(
					(const void *)(uintptr_t)x->dst,
					x->ByteCount);
				d2h_result(r, api, &s, async, key);
			}
		}
		break;
	}
	case GM_SP_COPY2D:
	case GM_SP_COPY2D_ASYNC: {
		const CUDA_MEMCPY2D *c = ((const cuMemcpy2D_v2_params *)params)->pCopy;
		copy2d_fields(&a[f->fields], c);
		if (!c) {
			break;
		}
		if (!exit && side_is_host(c->srcMemoryType, c->srcHost, c->srcDevice)) {
			struct gm_span s = span2d(
				side_ptr(c->srcMemoryType, c->srcHost, c->srcDevice),
				c->srcXInBytes, c->srcY, c->srcPitch,
				c->WidthInBytes, c->Height);
			gm_capture_add(h2d_bytes, gm_span_size(&s));
			gm_capture_payload(r, &s, GM_INLINE_MAX);
		}
		if (ok) {
			if (!async) {
				complete(TRACK_SYNC_LEGACY, 0);
			}
			if (side_is_host(c->dstMemoryType, c->dstHost, c->dstDevice)) {
				struct gm_span s = span2d(
					side_ptr(c->dstMemoryType, c->dstHost,
						 c->dstDevice),
					c->dstXInBytes, c->dstY, c->dstPitch,
					c->WidthInBytes, c->Height);
				d2h_result(r, api, &s, async, key);
			}
		}
		break;
	}
	case GM_SP_COPY3D:
	case GM_SP_COPY3D_ASYNC: {
		const CUDA_MEMCPY3D *c = ((const cuMemcpy3D_v2_params *)params)->pCopy;
		copy3d_fields(&a[f->fields], c);
		if (!c) {
			break;
		}
		struct gm_span s;
		if (!exit && copy3d_host_src(c, &s)) {
			gm_capture_add(h2d_bytes, gm_span_size(&s));
			gm_capture_payload(r, &s, GM_INLINE_MAX);
		}
		if (ok) {
			if (!async) {
				complete(TRACK_SYNC_LEGACY, 0);
			}
			if (copy3d_host_dst(c, &s)) {
				d2h_result(r, api, &s, async, key);
			}
		}
		break;
	}
	case GM_SP_LAUNCH: {
		const cuLaunchKernel_params *p = params;
		if (!exit) {
			launch_params(r, (uintptr_t)p->f, p->kernelParams,
				      p->extra, 0);
			launch_hostmem(r, 0, key);
		}
		break;
	}
	case GM_SP_LAUNCH_COOP: {
		const cuLaunchCooperativeKernel_params *p = params;
		if (!exit) {
			launch_params(r, (uintptr_t)p->f, p->kernelParams, NULL, 0);
			launch_hostmem(r, 0, key);
		}
		break;
	}
	case GM_SP_LAUNCH_EX: {
		const cuLaunchKernelEx_params *p = params;
		struct gm_args_cuLaunchKernelEx *x = ARGS(cuLaunchKernelEx, a);
		const CUlaunchConfig *c = p->config;
		size_t attr_bytes;
		if (!c) {
			break;
		}
		attr_bytes = (size_t)c->numAttrs * sizeof(CUlaunchAttribute);
		x->gridDimX = c->gridDimX;
		x->gridDimY = c->gridDimY;
		x->gridDimZ = c->gridDimZ;
		x->blockDimX = c->blockDimX;
		x->blockDimY = c->blockDimY;
		x->blockDimZ = c->blockDimZ;
		x->sharedMemBytes = c->sharedMemBytes;
		x->hStream = (uintptr_t)c->hStream;
		x->numAttrs = c->numAttrs;
		x->attrBytes = attr_bytes;
		if (!exit) {
			launch_params(r, (uintptr_t)p->f, p->kernelParams,
				      p->extra, attr_bytes);
			if (r->data && attr_bytes && c->attrs) {
				memcpy((void *)r->data, c->attrs, attr_bytes);
			}
			launch_hostmem(r, attr_bytes,
				       track_stream_key((uintptr_t)c->hStream,
							f->per_thread, t->tid));
		}
		break;
	}
	case GM_SP_MODULE_FILE:
		if (!exit) {
			const char *f = ((const cuModuleLoad_params *)params)->fname;
			gm_capture_image_file(r, f);
			gm_capture_str(r, f);
		}
		break;
	case GM_SP_LIBRARY_FILE:
		if (!exit) {
			const char *f = ((const cuLibraryLoadFromFile_params *)params)
						->fileName;
			gm_capture_image_file(r, f);
			gm_capture_str(r, f);
		}
		break;
	case GM_SP_MODULE_DATA:
		if (!exit) {
			gm_capture_image(r, ((const cuModuleLoadData_params *)params)
						    ->image);
		}
		break;
	case GM_SP_MODULE_FATBIN:
		if (!exit) {
			gm_capture_image(
				r, ((const cuModuleLoadFatBinary_params *)params)
					   ->fatCubin);
		}
		break;
	case GM_SP_LIBRARY_DATA:
		if (!exit) {
			gm_capture_image(r, ((const cuLibraryLoadData_params *)params)
						    ->code);
		}
		break;
	case GM_SP_GET_KERNEL: {
		const cuLibraryGetKernel_params *p = params;
		gm_capture_str(r, p->name);
		if (ok && p->pKernel) {
			layout_at_get(r, (uintptr_t)*p->pKernel, 1,
				      (uintptr_t)p->library);
		}
		break;
	}
	case GM_SP_GET_FUNCTION: {
		const cuModuleGetFunction_params *p = params;
		gm_capture_str(r, p->name);
		if (ok && p->hfunc) {
			layout_at_get(r, (uintptr_t)*p->hfunc, 0,
				      (uintptr_t)p->hmod);
		}
		break;
	}
	case GM_SP_KERNEL_FUNCTION: {
		const cuKernelGetFunction_params *p = params;
		if (ok && p->pFunc) {
			track_layout_alias((uintptr_t)*p->pFunc, (uintptr_t)p->kernel);
		}
		break;
	}
	case GM_SP_TENSOR_MAP: {
		const cuTensorMapEncodeTiled_params *p = params;
		unsigned rank = p->tensorRank;
		char *buf;
		if (!exit && rank >= 1 && rank <= 5 && p->globalDim && p->boxDim &&
		    p->elementStrides &&
		    (buf = gm_capture_data(r, 8 * rank + 8 * (rank - 1) + 8 * rank))) {
			memcpy(buf, p->globalDim, 8 * rank);
			buf += 8 * rank;
			if (rank > 1 && p->globalStrides) {
				memcpy(buf, p->globalStrides, 8 * (rank - 1));
			}
			buf += 8 * (rank - 1);
			memcpy(buf, p->boxDim, 4 * rank);
			memcpy(buf + 4 * rank, p->elementStrides, 4 * rank);
		} else if (ok && p->tensorMap &&
			   (buf = gm_capture_data(r, sizeof(CUtensorMap)))) {
			memcpy(buf, p->tensorMap, sizeof(CUtensorMap));
		}
		break;
	}
	case GM_SP_TENSOR_MAP_ADDRESS: {
		const cuTensorMapReplaceAddress_params *p = params;
		char *buf;
		if (ok && p->tensorMap &&
		    (buf = gm_capture_data(r, sizeof(CUtensorMap)))) {
			memcpy(buf, p->tensorMap, sizeof(CUtensorMap));
		}
		break;
	}
	case GM_SP_GET_GLOBAL:
		/* Both rows end with "name"; read it from the argument words. */
		gm_capture_str(r, (const char *)(uintptr_t)a[f->name]);
		/* The runtime's cudaMemcpyToSymbol asks for the address only
		 * (bytes == NULL): ask for the size too, so that copies into
		 * the global can be relocated. The thread's guard keeps this
		 * call out of the trace. */
		if (exit && a[0] && !a[1]) {
			CUdeviceptr d = 0;
			size_t bytes = 0;
			const char *name = (const char *)(uintptr_t)a[3];
			CUresult rc = CUDA_ERROR_NOT_SUPPORTED;
			if (api == GM_API_cuLibraryGetGlobal && in.cu.library_global) {
				rc = in.cu.library_global(&d, &bytes,
					(CUlibrary)(uintptr_t)a[2], name);
			} else if (api == GM_API_cuModuleGetGlobal_v2 &&
				   in.cu.module_global) {
				rc = in.cu.module_global(&d, &bytes,
					(CUmodule)(uintptr_t)a[2], name);
			}
			if (rc == CUDA_SUCCESS && d == (CUdeviceptr)a[0]) {
				a[1] = bytes;
			}
		}
		break;
	case GM_SP_ARRAY_CREATE: {
		const CUDA_ARRAY_DESCRIPTOR *c =
			((const cuArrayCreate_v2_params *)params)->pAllocateArray;
		struct gm_args_cuArrayCreate_v2 *x = ARGS(cuArrayCreate_v2, a);
		if (c) {
			x->Width = c->Width;
			x->Height = c->Height;
			x->Format = c->Format;
			x->NumChannels = c->NumChannels;
		}
		break;
	}
	case GM_SP_ARRAY3D_CREATE: {
		const CUDA_ARRAY3D_DESCRIPTOR *c =
			((const cuArray3DCreate_v2_params *)params)->pAllocateArray;
		struct gm_args_cuArray3DCreate_v2 *x = ARGS(cuArray3DCreate_v2, a);
		if (c) {
			x->Width = c->Width;
			x->Height = c->Height;
			x->Depth = c->Depth;
			x->Format = c->Format;
			x->NumChannels = c->NumChannels;
			x->Flags = c->Flags;
		}
		break;
	}
	case GM_SP_TEXOBJ_CREATE: {
		const cuTexObjectCreate_params *p = params;
		struct gm_args_cuTexObjectCreate *x = ARGS(cuTexObjectCreate, a);
		size_t n = sizeof(CUDA_RESOURCE_DESC) + sizeof(CUDA_TEXTURE_DESC) +
			   (p->pResViewDesc ? sizeof(CUDA_RESOURCE_VIEW_DESC) : 0);
		char *buf;
		res_fields(&x->resType, &x->resArray, &x->resDevPtr, p->pResDesc);
		if (!exit && (buf = gm_capture_data(r, n))) {
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
				memcpy(buf, p->pResViewDesc,
				       sizeof(CUDA_RESOURCE_VIEW_DESC));
			}
		}
		break;
	}
	case GM_SP_SURFOBJ_CREATE: {
		const cuSurfObjectCreate_params *p = params;
		struct gm_args_cuSurfObjectCreate *x = ARGS(cuSurfObjectCreate, a);
		char *buf;
		res_fields(&x->resType, &x->resArray, &x->resDevPtr, p->pResDesc);
		if (!exit && p->pResDesc &&
		    (buf = gm_capture_data(r, sizeof(CUDA_RESOURCE_DESC)))) {
			memcpy(buf, p->pResDesc, sizeof(CUDA_RESOURCE_DESC));
		}
		break;
	}
	case GM_SP_STREAM_CREATE:
		if (ok) {
			/* phStream is the first word, the flags the second. */
			track_stream_flags(a[0], (unsigned)a[1]);
		}
		break;
	case GM_SP_STREAM_SYNC:
		if (ok) {
			complete(key == 0 ? TRACK_SYNC_LEGACY : TRACK_SYNC_STREAM,
				 key);
		}
		break;
	case GM_SP_CTX_SYNC:
		if (ok) {
			complete(TRACK_SYNC_ALL, 0);
		}
		break;
	case GM_SP_EVENT_RECORD: {
		const cuEventRecord_params *p = params;
		if (ok) {
			track_event_record((uintptr_t)p->hEvent, key);
			gtrack_event_record((uintptr_t)p->hEvent, key);
		}
		break;
	}
	case GM_SP_EVENT_SYNC:
		if (ok) {
			complete(TRACK_SYNC_EVENT, a[0]);
		}
		break;
	case GM_SP_HOST_FUNC:
		if (!exit) {
			host_wrap(api, cb, key);
		}
		break;
	case GM_SP_MEMPOOL_CREATE: {
		const CUmemPoolProps *c =
			((const cuMemPoolCreate_params *)params)->poolProps;
		struct gm_args_cuMemPoolCreate *x = ARGS(cuMemPoolCreate, a);
		if (c) {
			x->allocType = c->allocType;
			x->handleTypes = c->handleTypes;
			x->locationType = c->location.type;
			x->locationId = (uint64_t)(int64_t)c->location.id;
		}
		break;
	}
	case GM_SP_MEMPOOL_ATTR: {
		const cuMemPoolSetAttribute_params *p = params;
		struct gm_args_cuMemPoolSetAttribute *x =
			ARGS(cuMemPoolSetAttribute, a);
		if (!p->value) {
			break;
		}
		/* The reuse flags are ints, the thresholds and counters
		 * cuuint64_t (cuda.h). */
		if (p->attr == CU_MEMPOOL_ATTR_REUSE_FOLLOW_EVENT_DEPENDENCIES ||
		    p->attr == CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC ||
		    p->attr == CU_MEMPOOL_ATTR_REUSE_ALLOW_INTERNAL_DEPENDENCIES) {
			x->val = (uint64_t)*(const int *)p->value;
		} else {
			x->val = *(const cuuint64_t *)p->value;
		}
		break;
	}
	case GM_SP_VMM_CREATE: {
		const CUmemAllocationProp *c =
			((const cuMemCreate_params *)params)->prop;
		struct gm_args_cuMemCreate *x = ARGS(cuMemCreate, a);
		if (c) {
			x->propType = c->type;
			x->locType = c->location.type;
			x->locId = (uint64_t)(int64_t)c->location.id;
			x->handleTypes = c->requestedHandleTypes;
		}
		break;
	}
	case GM_SP_VMM_ACCESS: {
		const cuMemSetAccess_params *p = params;
		struct gm_args_cuMemSetAccess *x = ARGS(cuMemSetAccess, a);
		if (p->desc && p->count) {
			x->locType = p->desc[0].location.type;
			x->locId = (uint64_t)(int64_t)p->desc[0].location.id;
			x->access = p->desc[0].flags;
		}
		break;
	}
	case GM_SP_FREE_HOST:
		/* Freeing page-locked memory synchronizes the device. */
		if (!exit) {
			complete_now(TRACK_SYNC_ALL, 0);
		} else if (ok) {
			hostmem_remove(a[0]);
		}
		break;
	case GM_SP_MEM_LOCATION: {
		/* cuMemPrefetchAsync_v2 and cuMemAdvise_v2 both name it
		 * "location"; its two words end the row. */
		const CUmemLocation *loc = api == GM_API_cuMemAdvise_v2 ?
			&((const cuMemAdvise_v2_params *)params)->location :
			&((const cuMemPrefetchAsync_v2_params *)params)->location;
		a[d->nr_args - 2] = (uint64_t)loc->type;
		a[d->nr_args - 1] = (uint64_t)(int64_t)loc->id;
		/* A prefetch to the device follows the host's writes: the
		 * replay writes the content before it, not after it (where
		 * the kernel would fault the pages back). */
		if (!exit && api != GM_API_cuMemAdvise_v2 &&
		    loc->type == CU_MEM_LOCATION_TYPE_DEVICE) {
			hostmem_launch(&a[0], sizeof(a[0]), key, r->corr);
		}
		break;
	}
	case GM_SP_CAPTURE_BEGIN:
		if (ok) {
			gtrack_begin(key);
		}
		break;
	case GM_SP_CAPTURE_TO: {
		/* The dependencies are nodes of the graph: as a node's. */
		const CUgraphNode *deps = (const CUgraphNode *)(uintptr_t)a[2];
		const CUgraphEdgeData *ed = (const void *)(uintptr_t)a[3];
		uint64_t n = a[4];
		for (uint64_t i = 0; deps && i < n && i < GRAPH_MAX_DEPS; i++) {
			a[f->deps + i] = (uintptr_t)deps[i];
		}
		if (!exit && (n > GRAPH_MAX_DEPS || !edges_plain(ed, n))) {
			on_unsupported(cb, cbid, 0, t);
		}
		if (ok) {
			gtrack_begin_to(key, a[1]);
		}
		break;
	}
	case GM_SP_CAPTURE_END:
		/* A failed end (an invalidated capture) ends it too. */
		if (exit) {
			gtrack_end(key, ok ? a[1] : 0);
			if (!ok) {
				gtrack_forget(0);
			}
		}
		break;
	case GM_SP_GRAPH_KERNEL:
		if (f->deps >= 0) {
			graph_deps(f, a, cb, cbid, t, exit);
			if (ok) {
				graph_node_made(a, &other_node);
			}
		} else if (!exit) {
			/* cuGraph[Exec]KernelNodeSetParams: the node must be
			 * one the replay makes (not one of a captured graph
			 * that a query found). */
			uint64_t node = a[gm_api_arg_index(api, "hNode")];
			if (!gtrack_node_known(node)) {
				on_unsupported(cb, cbid, 0, t);
			}
		}
		graph_kernel(f, a, r, exit);
		break;
	case GM_SP_GRAPH_MEMCPY:
		graph_deps(f, a, cb, cbid, t, exit);
		graph_memcpy(f, a, r, exit, ok, cb, cbid, t);
		break;
	case GM_SP_GRAPH_MEMSET:
		graph_deps(f, a, cb, cbid, t, exit);
		graph_memset(f, a, cb, cbid, t, exit);
		if (ok) {
			graph_node_made(a, &other_node);
		}
		break;
	case GM_SP_GRAPH_NODE:
		graph_deps(f, a, cb, cbid, t, exit);
		if (api == GM_API_cuGraphAddHostNode) {
			graph_host_node(cb, a, exit, ok);
		} else if (ok && api == GM_API_cuGraphAddEventRecordNode) {
			struct gtrack_node n = other_node;
			n.kind = GTRACK_EVENT;
			n.event = ARGS(cuGraphAddEventRecordNode, a)->event;
			graph_node_made(a, &n);
		} else if (ok) {
			graph_node_made(a, &other_node);
		}
		break;
	case GM_SP_GRAPH_CHILD:
		graph_deps(f, a, cb, cbid, t, exit);
		if (ok) {
			gtrack_graph_child(a[1], a[0],
					   (const uint64_t *)(uintptr_t)a[2],
					   (size_t)a[3],
					   ARGS(cuGraphAddChildGraphNode, a)
						   ->childGraph);
		}
		break;
	case GM_SP_GRAPH_DEPS:
		if (!exit) {
			graph_edges(r, a);
		} else if (ok) {
			graph_edges_made(a);
		}
		break;
	case GM_SP_GRAPH_INSTANTIATE:
	case GM_SP_GRAPH_CLONE:
	case GM_SP_GRAPH_UPDATE:
		/* The new handle first, the graph second (every row). */
		if (ok) {
			gtrack_inherit(a[0], a[1]);
		}
		break;
	case GM_SP_GRAPH_LAUNCH: {
		struct launch_setup *ls;

		a[0] = params ? (uintptr_t)*(const CUgraphExec *)params : 0;
		if (!exit) {
			/* Before the driver runs any of it (graph_launch()). The
			 * replay copies what the node was made with. */
			if (graph_launch(api, r->corr, key, a[0], &ls)) {
				unsupported_named(cb, cbid, GRAPH_SOURCE_CHANGED,
						  t);
			}
			*cb->correlationData = (uintptr_t)ls;
			break;
		}
		ls = (struct launch_setup *)(uintptr_t)*cb->correlationData;
		if (ls && !ok) {
			launch_setup_undo(ls);
		}
		launch_setup_free(ls);
		break;
	}
	case GM_SP_COUNT:
		break;
	}
}

/* ---- callbacks ---------------------------------------------------------- */

/* An unsupported event named @name for the call at @corr (callback id
 * @cbid) inside runtime call @rt_corr (0: none). */
static void emit_unsupported_at(uint32_t corr, uint32_t rt_corr,
				unsigned cbid, int runtime, const char *name)
{
	struct gm_record r = { 0 };
	uint64_t w[GM_NR_WORDS(gm_ev_unsupported)];
	struct gm_ev_unsupported *u = (struct gm_ev_unsupported *)w;

	u->cbid = cbid;
	u->domain = runtime ? CUPTI_CB_DOMAIN_RUNTIME_API
			    : CUPTI_CB_DOMAIN_DRIVER_API;
	r.api = (uint16_t)cbid;
	r.flags = runtime ? GM_RF_RUNTIME : 0;
	r.corr = corr;
	r.rt_corr = rt_corr;
	r.args = w;
	r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_unsupported);
	gm_capture_str(&r, name);
	gm_capture_loss(unsupported_calls);
	gm_capture_emit(GM_EV_UNSUPPORTED, &r);
}

/* An unsupported event named @name for the call of @cb. */
static void emit_unsupported(const CUpti_CallbackData *cb, unsigned cbid,
			     int runtime, const char *name, struct gm_thread *t)
{
	emit_unsupported_at(cb->correlationId, rt_context(t), cbid, runtime,
			    name);
}

/*
 * A graph host node changed a host-to-device source of its graph while
 * it ran (on CUDA's thread): the replay copies what the node was made
 * with at every launch, so the launch at @corr is reported.
 */
static void host_node_changed(uint32_t corr)
{
	emit_unsupported_at(corr, 0, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, 0,
			    GRAPH_HOST_NODE_CHANGED);
}

static void on_unsupported(const CUpti_CallbackData *cb, unsigned cbid,
			   int runtime, struct gm_thread *t)
{
	emit_unsupported(cb, cbid, runtime, cb->functionName, t);
}

/* A recorded call whose use here the replay cannot reproduce. */
static void unsupported_named(const CUpti_CallbackData *cb, unsigned cbid,
			      const char *name, struct gm_thread *t)
{
	emit_unsupported(cb, cbid, 0, name, t);
}

/*
 * Every kernel or function handle a call takes (a launch, cuKernelGetFunction,
 * an attribute): one that no recorded call named is named now, before the
 * call's event (layout_discover()), whatever path the program got it by.
 */
static void name_handles(int api, const uint64_t *a, uint32_t corr)
{
	const struct gm_api_desc *d = &gm_api_table[api];

	for (unsigned i = 0; i < d->nr_args; i++) {
		if (d->args[i].dir == GM_DIR_IN && a[i] &&
		    (d->args[i].type == GM_T_FUNC ||
		     d->args[i].type == GM_T_KERNEL) &&
		    !track_layout_get(a[i])) {
			layout_discover(a[i], corr);
		}
	}
}

/* The code the trace holds: loads, a library's module, unloads. */
static void code_track(int api, const uint64_t *a)
{
	const struct gm_api_desc *d = &gm_api_table[api];

	switch (d->replay) {
	case GM_RK_MODULE_LOAD:
		/* the module or library is the first word */
		track_code_add(a[0], d->args[0].type == GM_T_LIBRARY);
		break;
	case GM_RK_LIBRARY_MODULE:
		track_code_add(a[0], 0);
		break;
	case GM_RK_MODULE_UNLOAD:
		track_code_del(a[0]);
		break;
	default:
		break;	/* the other calls load and unload no code */
	}
}

static void on_driver(const CUpti_CallbackData *cb, unsigned cbid,
		      struct gm_thread *t)
{
	int exit = cb->callbackSite == CUPTI_API_EXIT;
	uint64_t a[GM_MAX_ARGS];
	struct gm_record r = { 0 };
	const struct gm_api_desc *d;
	int api;

	if (cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode_v2 ||
	    cbid == CUPTI_DRIVER_TRACE_CBID_cuGraphAddNode) {
		static __thread union typed_params tp;
		static __thread CUpti_CallbackData tcb;
		const char *why = NULL;
		unsigned typed = generic_node(cb, cbid, &tcb, &tp, &why);
		if (!typed) {
			if (!exit) {
				gm_capture_count_call(0, cbid);
				unsupported_named(cb, cbid, why, t);
			}
			return;
		}
		/* Recorded, and counted, as the typed call. */
		cb = &tcb;
		cbid = typed;
	}
	if (!exit) {
		gm_capture_count_call(0, cbid);
	}
	api = cbid < CUPTI_DRIVER_TRACE_CBID_SIZE ? in.drv_api[cbid] - 1 : -1;
	if (api < 0) {
		if (!exit) {
			on_unsupported(cb, cbid, 0, t);
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
			run_deferred();
		}
		return;
	}
	memset(a, 0, sizeof(uint64_t) * d->nr_args);
	fill_args(api, cb->functionParams, exit, a);
	r.rt_corr = rt_context(t);
	r.args = a;
	/* An exit without outputs leaves its words to the entry (the reader
	 * copies them back): launches and copies are most of a trace. */
	r.nr_args = exit && !in.info[api].exit_words ? 0 : (uint8_t)d->nr_args;
	if (!exit) {
		name_handles(api, a, r.corr);
	}
	special(api, cb, cbid, exit, &r, a, t);
	if (exit && r.status == CUDA_SUCCESS) {
		code_track(api, a);
	}
	gm_capture_emit(exit ? GM_EV_EXIT : GM_EV_ENTER, &r);
	run_deferred();
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
	if (in.cu.device_get && in.cu.device_get(&dev, (int)ordinal) == CUDA_SUCCESS) {
		if (in.cu.device_name) {
			in.cu.device_name(name, sizeof(name), dev);
		}
		if (in.cu.device_attr) {
			in.cu.device_attr(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, dev);
			e->ccMajor = (uint64_t)v;
			in.cu.device_attr(&v, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, dev);
			e->ccMinor = (uint64_t)v;
			in.cu.device_attr(&v, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, dev);
			e->smCount = (uint64_t)v;
		}
		if (in.cu.device_mem && in.cu.device_mem(&mem, dev) == CUDA_SUCCESS) {
			e->totalMem = mem;
		}
	}
	if (in.cu.driver_version && in.cu.driver_version(&v) == CUDA_SUCCESS) {
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

/*
 * CUPTI's buffer callbacks run on its own thread, but may run on a
 * program thread inside a driver call: their time is the capture's too.
 * Returns 1 when this call opened the bracket.
 */
static int own_open(void)
{
	struct gm_thread *t;

	if (!gm_capture_ready()) {
		return 0;
	}
	t = gm_capture_thread();
	if (t->in_own) {
		return 0;
	}
	gm_capture_own_begin(t);
	return 1;
}

static void own_close(int opened)
{
	if (opened) {
		gm_capture_own_end(gm_capture_thread());
	}
}

/* ---- activity ------------------------------------------------------------ */

static void emit_activity(CUpti_Activity *rec)
{
	struct gm_record r = { 0 };
	uint64_t w[GM_NR_WORDS(gm_ev_act_kernel)] = { 0 };

	r.args = w;
	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
	case CUPTI_ACTIVITY_KIND_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const void *)rec;
		struct gm_ev_act_kernel *e = (struct gm_ev_act_kernel *)w;
		e->start = k->start;
		e->end = k->end;
		e->corr = k->correlationId;
		e->device = k->deviceId;
		e->context = k->contextId;
		e->stream = k->streamId;
		e->gridX = (uint64_t)k->gridX;
		e->gridY = (uint64_t)k->gridY;
		e->gridZ = (uint64_t)k->gridZ;
		e->blockX = (uint64_t)k->blockX;
		e->blockY = (uint64_t)k->blockY;
		e->blockZ = (uint64_t)k->blockZ;
		e->staticSmem = (uint64_t)k->staticSharedMemory;
		e->dynamicSmem = (uint64_t)k->dynamicSharedMemory;
		e->registers = k->registersPerThread;
		e->queued = k->queued;
		e->submitted = k->submitted;
		e->launchType = k->launchType;
		r.corr = k->correlationId;
		r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_act_kernel);
		gm_capture_str(&r, k->name);
		gm_capture_emit(GM_EV_ACT_KERNEL, &r);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const void *)rec;
		struct gm_ev_act_memcpy *e = (struct gm_ev_act_memcpy *)w;
		e->start = m->start;
		e->end = m->end;
		e->corr = m->correlationId;
		e->device = m->deviceId;
		e->context = m->contextId;
		e->stream = m->streamId;
		e->bytes = m->bytes;
		e->copyKind = m->copyKind;
		e->srcKind = m->srcKind;
		e->dstKind = m->dstKind;
		r.corr = m->correlationId;
		r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_act_memcpy);
		gm_capture_emit(GM_EV_ACT_MEMCPY, &r);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const void *)rec;
		struct gm_ev_act_memset *e = (struct gm_ev_act_memset *)w;
		e->start = m->start;
		e->end = m->end;
		e->corr = m->correlationId;
		e->device = m->deviceId;
		e->context = m->contextId;
		e->stream = m->streamId;
		e->bytes = m->bytes;
		e->value = m->value;
		r.corr = m->correlationId;
		r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_act_memset);
		gm_capture_emit(GM_EV_ACT_MEMSET, &r);
		break;
	}
	default:
		/* Only the kinds enabled in enable_activity() arrive. */
		gm_capture_loss(cupti_errors);
		break;
	}
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size,
				      size_t *max_records)
{
	int own = own_open();

	*buf = aligned_alloc(8, ACT_BUF_SIZE);
	*size = *buf ? ACT_BUF_SIZE : 0;
	*max_records = 0;
	if (!*buf) {
		gm_capture_loss(cupti_errors);
	}
	own_close(own);
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream,
				      uint8_t *buf, size_t size, size_t valid)
{
	CUpti_Activity *rec = NULL;
	size_t dropped = 0;
	CUptiResult rc;
	int own = own_open();

	(void)size;
	while ((rc = cuptiActivityGetNextRecord(buf, valid, &rec)) ==
	       CUPTI_SUCCESS) {
		emit_activity(rec);
	}
	if (rc != CUPTI_ERROR_MAX_LIMIT_REACHED) {
		gm_capture_loss(cupti_errors);
	}
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) ==
		    CUPTI_SUCCESS && dropped) {
		gm_capture_add(loss.cupti_dropped, dropped);
	}
	free(buf);
	own_close(own);
}

static void enable_activity(void)
{
	if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) !=
	    CUPTI_SUCCESS) {
		gm_capture_loss(cupti_errors);
		return;
	}
	if (cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) !=
		    CUPTI_SUCCESS ||
	    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY) != CUPTI_SUCCESS ||
	    cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET) != CUPTI_SUCCESS) {
		gm_capture_loss(cupti_errors);
	}
}

/* ---- process start and end ---------------------------------------------- */

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
			       (void *)&at_exit_flags);
	gm_capture_finish(cbid_name);
	t->guard = 0;
}

GM_CAPTURE_API int InitializeInjection(void)
{
	if (in.initialised) {
		return 1;
	}
	in.initialised = 1;
	if (gm_capture_init(NULL)) {
		/* Not under `gpumix capture` (or no bundle directory): stay out
		 * of the program's way; the capture notices the missing
		 * counter file. */
		return 1;
	}
	build_tables();
	resolve_driver();
	gnode_set_hooks(&host_node_hooks);
	emit_process();
	if (cuptiSubscribe(&in.sub, callback, NULL) != CUPTI_SUCCESS ||
	    cuptiEnableDomain(1, in.sub, CUPTI_CB_DOMAIN_DRIVER_API) !=
		    CUPTI_SUCCESS ||
	    cuptiEnableDomain(1, in.sub, CUPTI_CB_DOMAIN_RUNTIME_API) !=
		    CUPTI_SUCCESS ||
	    cuptiEnableCallback(1, in.sub, CUPTI_CB_DOMAIN_RESOURCE,
				CUPTI_CBID_RESOURCE_CONTEXT_CREATED) !=
		    CUPTI_SUCCESS) {
		gm_capture_loss(cupti_errors);
	}
	enable_activity();
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
	if (gm_capture_init(NULL)) {
		return -1;
	}
	in.initialised = 1;
	build_tables();
	resolve_driver();
	gnode_set_hooks(&host_node_hooks);
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
			       (void *)&at_exit_flags);
	gm_capture_finish(cbid_name);
}
