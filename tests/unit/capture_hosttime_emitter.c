/* SPDX-License-Identifier: MIT */
/*
 * The capture's clean host clock, without a GPU: hands
 * libgpumix-capture.so's CUPTI callback a short program (runtime calls
 * around driver calls, plain driver calls, one with a large host-to-device
 * payload that the capture hashes and stores) on a clock this program
 * drives (gm_capture_test_clock()). Every callback of the capture costs
 * exactly OWN_NS on that clock (the clock moves between the capture's
 * begin and end readings), the driver spends CALL_NS inside each call and
 * the program GAP_NS between calls; runtime wrappers spend RT_NS before
 * and after their driver call. test_capture_hosttime.c captures it and
 * checks that the events' host times hold the program's times only.
 * Prints "hosttime_emitter: ok" when all went through.
 */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "capture_hosttime.h"

int gm_capture_test_init(void);
void gm_capture_test_callback(int domain, unsigned cbid, const void *data);
void gm_capture_test_exit(void);
void gm_capture_test_clock(uint64_t (*now)(void));

/*
 * The clock: the capture reads it once when a callback begins and once
 * when it ends (emit.h). The end reading is OWN_NS after the begin
 * reading: that is the callback's cost. Between callbacks it moves only
 * when this program says so.
 */
static uint64_t now_ns = 1000000000ull;
static unsigned reads;

static uint64_t fake_clock(void)
{
	if (reads++ % 2) {
		now_ns += HT_OWN_NS;
	}
	return now_ns;
}

static uint32_t next_corr = 1;
static uint64_t corr_data;

static void driver(unsigned cbid, const char *name, void *params)
{
	CUpti_CallbackData cb;
	int ret = 0;

	memset(&cb, 0, sizeof(cb));
	cb.functionName = name;
	cb.functionParams = params;
	cb.functionReturnValue = &ret;
	cb.correlationData = &corr_data;
	cb.correlationId = next_corr++;
	cb.callbackSite = CUPTI_API_ENTER;
	gm_capture_test_callback(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &cb);
	now_ns += HT_CALL_NS;		/* the driver's own work */
	cb.callbackSite = CUPTI_API_EXIT;
	gm_capture_test_callback(CUPTI_CB_DOMAIN_DRIVER_API, cbid, &cb);
}

static void runtime(unsigned cbid, const char *name, int site)
{
	static CUpti_CallbackData cb;
	static int ret;

	if (site == CUPTI_API_ENTER) {
		memset(&cb, 0, sizeof(cb));
		cb.functionName = name;
		cb.functionReturnValue = &ret;
		cb.correlationData = &corr_data;
		cb.correlationId = next_corr++;
	}
	cb.callbackSite = site;
	gm_capture_test_callback(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &cb);
}

int main(void)
{
	static uint8_t big[HT_BIG_BYTES];
	cuMemAlloc_v2_params alloc;
	cuMemcpyHtoD_v2_params h2d;
	cuMemFree_v2_params fr;
	CUdeviceptr dptr = 0x7f0000000000ull;

	gm_capture_test_clock(fake_clock);
	if (gm_capture_test_init()) {
		fprintf(stderr, "hosttime_emitter: not under gpumix capture\n");
		return 3;
	}
	memset(big, 0x5a, sizeof(big));

	/* cudaMalloc -> cuMemAlloc_v2: runtime work before and after. */
	runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc_v3020",
		CUPTI_API_ENTER);
	now_ns += HT_RT_NS;
	memset(&alloc, 0, sizeof(alloc));
	alloc.dptr = &dptr;
	alloc.bytesize = HT_BIG_BYTES;
	driver(CUPTI_DRIVER_TRACE_CBID_cuMemAlloc_v2, "cuMemAlloc_v2", &alloc);
	now_ns += HT_RT_NS;
	runtime(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc_v3020",
		CUPTI_API_EXIT);

	/* The program's work, then a copy whose payload the capture hashes
	 * and stores (on a real clock, its largest cost). */
	now_ns += HT_GAP_NS;
	memset(&h2d, 0, sizeof(h2d));
	h2d.dstDevice = dptr;
	h2d.srcHost = big;
	h2d.ByteCount = sizeof(big);
	driver(CUPTI_DRIVER_TRACE_CBID_cuMemcpyHtoD_v2, "cuMemcpyHtoD_v2", &h2d);

	now_ns += 2 * HT_GAP_NS;
	memset(&fr, 0, sizeof(fr));
	fr.dptr = dptr;
	driver(CUPTI_DRIVER_TRACE_CBID_cuMemFree_v2, "cuMemFree_v2", &fr);

	gm_capture_test_exit();
	printf("hosttime_emitter: ok\n");
	return 0;
}
