/* SPDX-License-Identifier: MIT */
/*
 * The program's GPU code: module and library loads (their images go into
 * the module store, image.h), the kernels and functions it gets from them
 * and the parameter layout of each (offsets and sizes, asked of the
 * driver, so that a launch's arguments can be packed, inject_launch.c),
 * globals, and which loaded code the trace holds. A handle the program got
 * by a path CUPTI does not trace is found, named and described at its
 * first use (layout_discover()); one whose code the trace lacks cannot be
 * replayed and is counted as a loss at once.
 */
#include <cuda.h>
#include <cupti.h>
#include <stdint.h>
#include <string.h>

#include "api.h"
#include "emit.h"
#include "image.h"
#include "inject.h"
#include "tracking.h"

/* Kernels have at most a few hundred parameters (4 KiB of arguments). */
#define LAYOUT_MAX 1024
static __thread uint32_t tls_pairs[2 * LAYOUT_MAX];

/*
 * Read the layout of @h as a kernel (@as_kernel) or a function. Returns
 * the number of parameters, or -1 when @h is not that kind of handle.
 */
static int read_layout(uint64_t h, int as_kernel, uint32_t *pairs, int max)
{
	const struct driver_fns *cu = &inject.cu;
	int n;

	for (n = 0; n < max; n++) {
		size_t off = 0, size = 0;
		CUresult rc;
		if (as_kernel) {
			rc = cu->kernel_param_info ?
				cu->kernel_param_info((CUkernel)(uintptr_t)h,
						      (size_t)n, &off, &size) :
				CUDA_ERROR_NOT_SUPPORTED;
		} else {
			rc = cu->func_param_info ?
				cu->func_param_info((CUfunction)(uintptr_t)h,
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

/*
 * The module (CUfunction) or library (CUkernel) of handle @h, 0 when the
 * driver does not say. Libraries such as cuFFT get their functions
 * through the driver's private export table, which CUPTI does not trace:
 * the module is how reconstruct finds such a kernel's code.
 */
static uint64_t handle_module(uint64_t h, int kernel)
{
	const struct driver_fns *cu = &inject.cu;

	if (kernel && cu->kernel_library) {
		CUlibrary lib = NULL;
		if (cu->kernel_library(&lib, (CUkernel)(uintptr_t)h) ==
		    CUDA_SUCCESS) {
			return (uintptr_t)lib;
		}
	} else if (!kernel && cu->func_module) {
		CUmodule mod = NULL;
		if (cu->func_module(&mod, (CUfunction)(uintptr_t)h) ==
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

	for (size_t i = 0; inject.cu.library_module && i < n; i++) {
		CUmodule m = NULL;
		if (inject.cu.library_module(&m,
					     (CUlibrary)(uintptr_t)libs[i]) ==
			    CUDA_SUCCESS && (uintptr_t)m == mod) {
			return libs[i];
		}
	}
	return mod;
}

/* The "layout" event of handle @h (@n parameters @pairs, @kernel or a
 * function, in @module, named @name), at correlation id @corr. */
static void emit_layout(uint64_t h, int kernel, const uint32_t *pairs,
			int n, uint64_t module, const char *name,
			uint32_t corr)
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

/*
 * A handle no recorded call named (a function from a path we do not
 * track, or a handle that named another kernel before its module was
 * unloaded), seen first at a launch or at a call that names it. A handle
 * without both a name and a module or library, or of code the trace does
 * not hold (loaded through a path CUPTI does not trace), cannot be
 * replayed: a loss, so that the capture says so now rather than
 * reconstruct later.
 */
const struct gm_layout *layout_discover(uint64_t h, uint32_t corr)
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
	if (kernel && inject.cu.kernel_name) {
		inject.cu.kernel_name(&name, (CUkernel)(uintptr_t)h);
	} else if (!kernel && inject.cu.func_name) {
		inject.cu.func_name(&name, (CUfunction)(uintptr_t)h);
	}
	emit_layout(h, kernel, pairs, n, module, name, corr);
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

/*
 * Every kernel or function handle a call takes (a launch, cuKernelGetFunction,
 * an attribute): one that no recorded call named is named now, before the
 * call's event, whatever path the program got it by.
 */
void name_handles(int api, const uint64_t *a, uint32_t corr)
{
	const struct gm_api_desc *d = &gm_api_table[api];

	for (unsigned i = 0; i < d->nr_args; i++) {
		if (d->args[i].dir == GM_DIR_IN && a[i] &&
		    (d->args[i].type == GM_ARG_FUNC ||
		     d->args[i].type == GM_ARG_KERNEL) &&
		    !track_layout_get(a[i])) {
			layout_discover(a[i], corr);
		}
	}
}

void code_track(int api, const uint64_t *a)
{
	const struct gm_api_desc *d = &gm_api_table[api];

	switch (d->replay) {
	case GM_RK_MODULE_LOAD:
		/* the module or library is the first word */
		track_code_add(a[0], d->args[0].type == GM_ARG_LIBRARY);
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

/* Loads: the image (or the file's bytes) with the entry, and the path. */
static void image_file(struct sp_call *c, const char *path)
{
	if (!c->exit) {
		gm_capture_image_file(c->r, path);
		gm_capture_str(c->r, path);
	}
}

static void image(struct sp_call *c, const void *data)
{
	if (!c->exit) {
		gm_capture_image(c->r, data);
	}
}

void sp_module_file(struct sp_call *c)
{
	image_file(c, ((const cuModuleLoad_params *)c->params)->fname);
}

void sp_library_file(struct sp_call *c)
{
	image_file(c, ((const cuLibraryLoadFromFile_params *)c->params)
			      ->fileName);
}

void sp_module_data(struct sp_call *c)
{
	image(c, ((const cuModuleLoadData_params *)c->params)->image);
}

void sp_module_fatbin(struct sp_call *c)
{
	image(c, ((const cuModuleLoadFatBinary_params *)c->params)->fatCubin);
}

void sp_library_data(struct sp_call *c)
{
	image(c, ((const cuLibraryLoadData_params *)c->params)->code);
}

void sp_get_kernel(struct sp_call *c)
{
	const cuLibraryGetKernel_params *p = c->params;

	gm_capture_str(c->r, p->name);
	if (c->ok && p->pKernel) {
		layout_at_get(c->r, (uintptr_t)*p->pKernel, 1,
			      (uintptr_t)p->library);
	}
}

void sp_get_function(struct sp_call *c)
{
	const cuModuleGetFunction_params *p = c->params;

	gm_capture_str(c->r, p->name);
	if (c->ok && p->hfunc) {
		layout_at_get(c->r, (uintptr_t)*p->hfunc, 0,
			      (uintptr_t)p->hmod);
	}
}

void sp_kernel_function(struct sp_call *c)
{
	const cuKernelGetFunction_params *p = c->params;

	if (c->ok && p->pFunc) {
		track_layout_alias((uintptr_t)*p->pFunc, (uintptr_t)p->kernel);
	}
}

/*
 * cuLibraryGetGlobal, cuModuleGetGlobal: the runtime's cudaMemcpyToSymbol
 * asks for the address only (bytes == NULL): the size is asked for too,
 * so that copies into the global can be relocated. The thread's guard
 * keeps that call out of the trace.
 */
void sp_get_global(struct sp_call *c)
{
	uint64_t *a = c->a;

	/* Both rows end with "name"; read it from the argument words. */
	gm_capture_str(c->r, (const char *)(uintptr_t)a[c->f->name]);
	if (c->exit && a[0] && !a[1]) {
		CUdeviceptr d = 0;
		size_t bytes = 0;
		const char *name = (const char *)(uintptr_t)a[3];
		CUresult rc = CUDA_ERROR_NOT_SUPPORTED;
		if (c->api == GM_API_cuLibraryGetGlobal &&
		    inject.cu.library_global) {
			rc = inject.cu.library_global(&d, &bytes,
				(CUlibrary)(uintptr_t)a[2], name);
		} else if (c->api == GM_API_cuModuleGetGlobal_v2 &&
			   inject.cu.module_global) {
			rc = inject.cu.module_global(&d, &bytes,
				(CUmodule)(uintptr_t)a[2], name);
		}
		if (rc == CUDA_SUCCESS && d == (CUdeviceptr)a[0]) {
			a[1] = bytes;
		}
	}
}
