/* SPDX-License-Identifier: MIT */
/*
 * streams-emitter: asynchronous device-to-host copies into page-locked
 * memory on several streams, events and a reused buffer (the pattern of
 * NVIDIA's simpleStreams and asyncAPI samples), on the mock CUDA driver
 * under `gpumix capture` through the real CUPTI subscriber
 * (tests/tools/mock_call.h):
 *
 *   - rounds of: a kernel on each of 4 blocking streams over its quarter
 *     of a device array, then an asynchronous copy of each quarter into
 *     the same quarter of one page-locked buffer on the same stream; one
 *     event recorded on the legacy stream after all rounds and
 *     synchronized, then the buffer is checked: each round's copies
 *     overwrote the previous round's before any synchronization, so only
 *     the last round's results are the program's;
 *   - asyncAPI: a copy in, a kernel and a copy back into the same buffer
 *     on the legacy stream, an event after them polled with cuEventQuery
 *     until done;
 *   - an asynchronous copy on a blocking stream into a buffer that a
 *     synchronous copy then overwrites (after it, as the legacy stream
 *     waits for the blocking streams) before the program looked;
 *   - a pipeline: rounds of a kernel, a copy into one staging buffer and
 *     a host function that consumes it, on one stream, synchronized once
 *     at the end: each round's copy is seen by its host function before
 *     the next round's copy writes, so none is overwritten.
 *
 *   streams-emitter [--fatbin F]
 *
 * With --fatbin (tests/gpu/replay_kernels.cu's) the bundle also replays on
 * a GPU. Prints "streams-emitter: ok" when the program's own checks of its
 * results passed (the mock computed them).
 */
#include "mock_call.h"

#define N 4096u
#define NSTREAMS 4u
#define ROUNDS 3u

const char *mock_call_prog = "streams-emitter";
uint32_t mock_call_corr = 9000;
uint64_t mock_call_data;

static const char ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry _Z4incr4span(.param .align 8 .b8 s[16])\n"
	"{\n\tret;\n}\n";

struct span {
	unsigned *p;
	unsigned long long n;
};

static CUkernel incr;

/* The pipeline's host function: sums the staging buffer. */
struct consumer {
	const unsigned *staging;
	unsigned long long sums[8];
	unsigned n;
};

static void CUDA_CB consume(void *arg)
{
	struct consumer *c = arg;
	unsigned long long s = 0;

	for (unsigned i = 0; i < N; i++) {
		s += c->staging[i];
	}
	if (c->n < 8) {
		c->sums[c->n] = s;
	}
	c->n++;
}

static void launch_incr(CUdeviceptr d, unsigned n, CUstream s)
{
	struct span sp = { (unsigned *)(uintptr_t)d, n };
	void *args[2] = { &sp, NULL };
	cuLaunchKernel_params p = { (CUfunction)incr, (n + 127) / 128, 1, 1,
				    128, 1, 1, 0, s, args, NULL };

	MOCK_CALL(cuLaunchKernel, &p,
		  cuLaunchKernel(p.f, p.gridDimX, 1, 1, 128, 1, 1, 0, s, args,
				 NULL));
}

static void d2h_async(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	cuMemcpyDtoHAsync_v2_params p = { dst, src, n, s };

	MOCK_CALL(cuMemcpyDtoHAsync_v2, &p, cuMemcpyDtoHAsync(dst, src, n, s));
}

static void h2d_async(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	cuMemcpyHtoDAsync_v2_params p = { dst, src, n, s };

	MOCK_CALL(cuMemcpyHtoDAsync_v2, &p, cuMemcpyHtoDAsync(dst, src, n, s));
}

static void record(CUevent e, CUstream s)
{
	cuEventRecord_params p = { e, s };

	MOCK_CALL(cuEventRecord, &p, cuEventRecord(e, s));
}

static CUevent event(void)
{
	CUevent e = NULL;
	cuEventCreate_params p = { &e, CU_EVENT_DEFAULT };

	MOCK_CALL(cuEventCreate, &p, cuEventCreate(&e, CU_EVENT_DEFAULT));
	return e;
}

static CUstream stream(unsigned flags)
{
	CUstream s = NULL;
	cuStreamCreate_params p = { &s, flags };

	MOCK_CALL(cuStreamCreate, &p, cuStreamCreate(&s, flags));
	return s;
}

/* cuEventQuery until the event has completed (a query that finds the
 * work not done fails with CUDA_ERROR_NOT_READY: not an error here). */
static void poll_event(CUevent e)
{
	CUpti_CallbackData cb;
	cuEventQuery_params p = { e };
	CUresult ret;

	do {
		memset(&cb, 0, sizeof(cb));
		cb.functionName = "cuEventQuery";
		cb.functionParams = &p;
		cb.functionReturnValue = &ret;
		cb.correlationData = &mock_call_data;
		cb.correlationId = mock_call_corr++;
		cb.callbackSite = CUPTI_API_ENTER;
		gm_capture_test_callback(CUPTI_CB_DOMAIN_DRIVER_API,
					 CUPTI_DRIVER_TRACE_CBID_cuEventQuery,
					 &cb);
		ret = cuEventQuery(e);
		cb.callbackSite = CUPTI_API_EXIT;
		gm_capture_test_callback(CUPTI_CB_DOMAIN_DRIVER_API,
					 CUPTI_DRIVER_TRACE_CBID_cuEventQuery,
					 &cb);
	} while (ret == CUDA_ERROR_NOT_READY);
	if (ret != CUDA_SUCCESS) {
		fprintf(stderr, "streams-emitter: cuEventQuery failed: %d\n",
			(int)ret);
		exit(2);
	}
}

/* The whole of file @path (malloc'd), or NULL. */
static void *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 &&
	    !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (f) {
		fclose(f);
	}
	return buf;
}

int main(int argc, char **argv)
{
	const void *image = ptx;
	CUcontext ctx = NULL;
	CUlibrary lib = NULL;
	CUstream st[NSTREAMS];
	CUevent start, stop;
	CUdeviceptr d = 0, d2 = 0;
	unsigned *h = NULL, *h2 = NULL;
	const unsigned q = N / NSTREAMS;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--fatbin")) {
			if (!(image = read_all(argv[++i]))) {
				fprintf(stderr, "streams-emitter: cannot read "
					"'%s'\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: streams-emitter [--fatbin F]\n");
			return 2;
		}
	}
	if (gm_capture_test_init()) {
		fprintf(stderr, "streams-emitter: not under gpumix capture\n");
		return 3;
	}
	cuInit(0);
	{
		cuDevicePrimaryCtxRetain_params p = { &ctx, 0 };
		MOCK_CALL(cuDevicePrimaryCtxRetain, &p,
			  cuDevicePrimaryCtxRetain(&ctx, 0));
	}
	cuCtxSetCurrent(ctx);
	{
		cuLibraryLoadData_params p = { &lib, image, NULL, NULL, 0,
					       NULL, NULL, 0 };
		MOCK_CALL(cuLibraryLoadData, &p,
			  cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL,
					    NULL, 0));
	}
	{
		cuLibraryGetKernel_params p = { &incr, lib, "_Z4incr4span" };
		MOCK_CALL(cuLibraryGetKernel, &p,
			  cuLibraryGetKernel(&incr, lib, p.name));
	}
	{
		cuMemAlloc_v2_params p = { &d, N * 4 };
		MOCK_CALL(cuMemAlloc_v2, &p, cuMemAlloc(&d, N * 4));
	}
	{
		cuMemAllocHost_v2_params p = { (void **)&h, N * 4 };
		MOCK_CALL(cuMemAllocHost_v2, &p,
			  cuMemAllocHost((void **)&h, N * 4));
	}
	for (unsigned i = 0; i < NSTREAMS; i++) {
		st[i] = stream(0);	/* cudaStreamCreate: blocking */
	}
	start = event();
	stop = event();

	/* ---- simpleStreams: one buffer, every round's copies ---- */
	{
		cuMemsetD32_v2_params p = { d, 0, N };
		MOCK_CALL(cuMemsetD32_v2, &p, cuMemsetD32(d, 0, N));
	}
	memset(h, 0xff, N * 4);
	record(start, NULL);
	for (unsigned r = 0; r < ROUNDS; r++) {
		for (unsigned i = 0; i < NSTREAMS; i++) {
			launch_incr(d + i * q * 4, q, st[i]);
		}
		for (unsigned i = 0; i < NSTREAMS; i++) {
			d2h_async(h + i * q, d + i * q * 4, q * 4, st[i]);
		}
	}
	record(stop, NULL);
	{
		cuEventSynchronize_params p = { stop };
		MOCK_CALL(cuEventSynchronize, &p, cuEventSynchronize(stop));
	}
	for (unsigned i = 0; i < N; i++) {
		bad += h[i] != ROUNDS;
	}

	/* ---- asyncAPI: in and back out of one buffer, an event polled ---- */
	for (unsigned i = 0; i < N; i++) {
		h[i] = 3 * i;
	}
	h2d_async(d, h, N * 4, NULL);
	launch_incr(d, N, NULL);
	d2h_async(h, d, N * 4, NULL);
	record(stop, NULL);
	poll_event(stop);
	for (unsigned i = 0; i < N; i++) {
		bad += h[i] != 3 * i + 1;
	}

	/* ---- a synchronous copy overwrites a pending one: the legacy
	 * stream waits for the blocking stream's copy, then copies over
	 * its result before returning ---- */
	{
		cuMemAlloc_v2_params p = { &d2, N * 4 };
		MOCK_CALL(cuMemAlloc_v2, &p, cuMemAlloc(&d2, N * 4));
	}
	{
		cuMemAllocHost_v2_params p = { (void **)&h2, N * 4 };
		MOCK_CALL(cuMemAllocHost_v2, &p,
			  cuMemAllocHost((void **)&h2, N * 4));
	}
	h2d_async(d2, h, N * 4, st[0]);
	launch_incr(d2, N, st[0]);
	d2h_async(h2, d2, N * 4, st[0]);
	{
		cuMemcpyDtoH_v2_params p = { h2, d, N * 4 };
		MOCK_CALL(cuMemcpyDtoH_v2, &p, cuMemcpyDtoH(h2, d, N * 4));
	}
	for (unsigned i = 0; i < N; i++) {
		bad += h2[i] != 3 * i + 1;
	}

	/* ---- a pipeline through one staging buffer ---- */
	{
		struct consumer c = { h2, { 0 }, 0 };
		unsigned long long base = 0;

		for (unsigned i = 0; i < N; i++) {
			base += 3 * i + 1;
		}
		for (unsigned r = 0; r < 3; r++) {
			launch_incr(d, N, st[1]);
			d2h_async(h2, d, N * 4, st[1]);
			cuLaunchHostFunc_params p = { st[1], consume, &c };
			MOCK_CALL(cuLaunchHostFunc, &p,
				  cuLaunchHostFunc(p.hStream, p.fn, p.userData));
		}
		{
			cuStreamSynchronize_params p = { st[1] };
			MOCK_CALL(cuStreamSynchronize, &p,
				  cuStreamSynchronize(st[1]));
		}
		bad += c.n != 3;
		for (unsigned r = 0; r < 3 && r < c.n; r++) {
			bad += c.sums[r] != base + (unsigned long long)(r + 1) * N;
		}
	}
	gm_capture_test_exit();
	if (bad) {
		fprintf(stderr, "streams-emitter: %d wrong results\n", bad);
		return 1;
	}
	printf("streams-emitter: ok\n");
	return 0;
}
