/* SPDX-License-Identifier: MIT */
/*
 * Creates the probes of the gpumix_capture provider and defines its
 * tracepoints, once, inside libgpumix-capture.so.
 */
#define LTTNG_UST_TRACEPOINT_CREATE_PROBES
#define LTTNG_UST_TRACEPOINT_DEFINE
#include "capture/gpumix_capture_tp.h"
