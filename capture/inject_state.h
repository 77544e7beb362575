/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI subscriber's state (inject_state.c), internal to
 * libgpumix-capture.so: per recorded call where the words its special
 * case needs sit, the driver API's callback ids mapped to calls, and
 * the driver entry points the handlers use. inject.c sets it up once;
 * every file of the subscriber reads it.
 */
#ifndef GM_CAPTURE_INJECT_STATE_H
#define GM_CAPTURE_INJECT_STATE_H

#include <cuda.h>
#include <cupti.h>
#include <stdint.h>

#include "api.h"

/* Driver entry points the callbacks use, resolved from the loaded libcuda
 * (NULL: this driver has none). */
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

/* The subscriber's state, set up once by InitializeInjection (inject.c). */
struct inject_state {
	int initialised;
	CUpti_SubscriberHandle sub;
	struct driver_fns cu;
	int16_t drv_api[CUPTI_DRIVER_TRACE_CBID_SIZE]; /* cbid -> api + 1 */
	struct api_info info[GM_API_COUNT];
};

extern struct inject_state inject;

/* Fill inject.info, inject.drv_api and inject.cu (entry points this
 * driver lacks stay NULL). Once, before the first callback. */
void inject_state_setup(void);

#endif
