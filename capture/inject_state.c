/* SPDX-License-Identifier: MIT */
/*
 * The subscriber's state (see inject_state.h): where each recorded
 * call's words sit, by CUPTI callback id, and the driver entry points
 * the handlers call, resolved from the loaded libcuda. Set up once by
 * inject.c; the special cases' handlers (inject_*.c) read it, so it
 * lives below them all and none of them calls back into inject.c.
 */
#include <dlfcn.h>
#include <string.h>

#include "api.h"
#include "inject_state.h"

struct inject_state inject;

static void build_tables(void)
{
	for (int i = 0; i < GM_API_COUNT; i++) {
		const char *n = gm_api_table[i].name;
		size_t len = strlen(n);
		struct api_info *f = &inject.info[i];
		int cbid = gm_api_table[i].cbid;

		if (cbid > 0 && cbid < CUPTI_DRIVER_TRACE_CBID_SIZE) {
			inject.drv_api[cbid] = (int16_t)(i + 1);
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
#define SYM(field, name) *(void **)&inject.cu.field = dlsym(h, name)
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

void inject_state_setup(void)
{
	build_tables();
	resolve_driver();
}
