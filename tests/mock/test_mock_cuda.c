/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the mock CUDA driver's stream semantics (mock_cuda.c,
 * mock_device.c), linked against the mock libcuda.so.1 itself: work runs
 * later on the device thread, results read without synchronizing are
 * stale, a missing cross-stream dependency shows, events, waits and
 * synchronizations order work, parameter values and pageable sources are
 * taken at the call, host-mapped completion flags are set, and activity
 * records carry the times the work ran; CUDA graphs (capture, explicit
 * graphs, launch, update, clone); dynamic shared memory limits, checked
 * at launch, and the occupancy they give. The latency is raised (20 ms) so
 * that "not run yet" does not depend on the machine's speed.
 */
#include <stdatomic.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include <cuda.h>
#include <cupti.h>

#include "elastic_abi.h"
#include "mock.h"
#include "tests/unit/test.h"

#define N 4096
#define BYTES (N * 4)

static CUfunction scale_fn, incr_fn;

static void fill(unsigned *p, unsigned v)
{
	for (int i = 0; i < N; i++) {
		p[i] = v + (unsigned)i;
	}
}

static int all_are(const unsigned *p, unsigned v)
{
	for (int i = 0; i < N; i++) {
		if (p[i] != v + (unsigned)i) {
			return 0;
		}
	}
	return 1;
}

/* out[i] = in[i] * mul (c_add is 0) */
static CUresult scale(CUdeviceptr out, CUdeviceptr in, unsigned mul,
		      CUstream s)
{
	unsigned n = N;
	void *args[] = { &out, &in, &mul, &n, NULL };

	return cuLaunchKernel(scale_fn, N / 256, 1, 1, 256, 1, 1, 0, s, args,
			      NULL);
}

static CUresult incr(CUdeviceptr p, CUstream s)
{
	struct {
		uint64_t p, n;
	} span = { p, N };
	void *args[] = { &span, NULL };

	return cuLaunchKernel(incr_fn, N / 256, 1, 1, 256, 1, 1, 0, s, args,
			      NULL);
}

static void test_async_copies(CUstream a)
{
	unsigned *host = malloc(BYTES), *pinned, *back = malloc(BYTES);
	CUdeviceptr d;

	CHECK_INT(cuMemAlloc(&d, BYTES), CUDA_SUCCESS, "cuMemAlloc");
	CHECK_INT(cuMemHostAlloc((void **)&pinned, BYTES, 0), CUDA_SUCCESS,
		  "cuMemHostAlloc");

	fill(host, 100);
	CHECK_INT(cuMemcpyHtoDAsync(d, host, BYTES, a), CUDA_SUCCESS,
		  "pageable host-to-device copy queued");
	fill(host, 200);	/* too late: the source was staged */
	memset(back, 0, BYTES);
	CHECK_INT(cuMemcpyDtoHAsync(back, d, BYTES, a), CUDA_SUCCESS,
		  "device-to-host copy queued");
	CHECK(back[0] == 0 && back[N - 1] == 0,
	      "a result read without synchronizing is stale");
	CHECK_INT(cuStreamQuery(a), CUDA_ERROR_NOT_READY,
		  "cuStreamQuery: not ready");
	CHECK_INT(cuStreamSynchronize(a), CUDA_SUCCESS, "cuStreamSynchronize");
	CHECK_INT(cuStreamQuery(a), CUDA_SUCCESS, "cuStreamQuery: done");
	CHECK(all_are(back, 100), "a pageable source is taken at the call");

	fill(pinned, 300);
	CHECK_INT(cuMemcpyHtoDAsync(d, pinned, BYTES, a), CUDA_SUCCESS,
		  "page-locked host-to-device copy queued");
	fill(pinned, 400);	/* in time: read when the copy runs */
	CHECK_INT(cuMemcpyDtoHAsync(back, d, BYTES, a), CUDA_SUCCESS,
		  "device-to-host copy queued");
	CHECK_INT(cuCtxSynchronize(), CUDA_SUCCESS, "cuCtxSynchronize");
	CHECK(all_are(back, 400), "a page-locked source is read when it runs");

	CHECK_INT(cuMemFreeHost(pinned), CUDA_SUCCESS, "cuMemFreeHost");
	CHECK_INT(cuMemFree(d), CUDA_SUCCESS, "cuMemFree");
	free(host);
	free(back);
}

/* A host function that records what it saw of the device's work. */
struct host_seen {
	const unsigned *back;
	unsigned first;		/* back[0] when it ran */
	atomic_int runs;
};

static void CUDA_CB host_probe(void *arg)
{
	struct host_seen *h = arg;

	h->first = h->back[0];
	atomic_fetch_add(&h->runs, 1);
}

/*
 * A host function runs in its stream's order: after the copy before it
 * (it sees the copy's result), and the stream is done only once it ran.
 */
static void test_host_func(CUstream a)
{
	unsigned *host = malloc(BYTES), *pinned;
	struct host_seen h = { 0 };
	CUdeviceptr d;

	CHECK_INT(cuMemAlloc(&d, BYTES), CUDA_SUCCESS, "cuMemAlloc");
	CHECK_INT(cuMemHostAlloc((void **)&pinned, BYTES, 0), CUDA_SUCCESS,
		  "cuMemHostAlloc");
	memset(pinned, 0, BYTES);
	h.back = pinned;
	fill(host, 500);
	CHECK_INT(cuMemcpyHtoDAsync(d, host, BYTES, a), CUDA_SUCCESS,
		  "copy in queued");
	CHECK_INT(cuMemcpyDtoHAsync(pinned, d, BYTES, a), CUDA_SUCCESS,
		  "copy back queued");
	CHECK_INT(cuLaunchHostFunc(a, host_probe, &h), CUDA_SUCCESS,
		  "cuLaunchHostFunc queued");
	CHECK_INT(atomic_load(&h.runs), 0, "the host function has not run "
		  "at the call");
	CHECK_INT(cuStreamQuery(a), CUDA_ERROR_NOT_READY,
		  "the stream is not done while it waits");
	CHECK_INT(cuStreamSynchronize(a), CUDA_SUCCESS, "cuStreamSynchronize");
	CHECK_INT(atomic_load(&h.runs), 1, "it ran once");
	CHECK_INT(h.first, 500, "after the copy before it in the stream");
	CHECK_INT(cuLaunchHostFunc(a, NULL, &h), CUDA_ERROR_INVALID_VALUE,
		  "no function: an invalid value");
	CHECK_INT(cuMemFreeHost(pinned), CUDA_SUCCESS, "cuMemFreeHost");
	CHECK_INT(cuMemFree(d), CUDA_SUCCESS, "cuMemFree");
	free(host);
}

/*
 * A kernel on @b that reads what a copy on @a wrote: right with the
 * event wait, and reading the old data without it.
 */
static void test_cross_stream(CUstream a, CUstream b, CUevent e)
{
	unsigned *host = malloc(BYTES), *back = malloc(BYTES);
	CUdeviceptr in, out;

	cuMemAlloc(&in, BYTES);
	cuMemAlloc(&out, BYTES);
	fill(host, 0);
	cuMemcpyHtoDAsync(in, host, BYTES, a);
	cuStreamSynchronize(a);
	fill(host, 1000);

	cuMemcpyHtoDAsync(in, host, BYTES, a);
	CHECK_INT(cuEventRecord(e, a), CUDA_SUCCESS, "cuEventRecord");
	CHECK_INT(cuEventQuery(e), CUDA_ERROR_NOT_READY,
		  "cuEventQuery: not ready before the work ran");
	CHECK_INT(cuStreamWaitEvent(b, e, 0), CUDA_SUCCESS,
		  "cuStreamWaitEvent");
	scale(out, in, 1, b);
	cuMemcpyDtoHAsync(back, out, BYTES, b);
	CHECK_INT(cuStreamSynchronize(b), CUDA_SUCCESS,
		  "synchronize the waiting stream");
	CHECK(all_are(back, 1000), "the wait ordered the kernel after the copy");
	CHECK_INT(cuEventQuery(e), CUDA_SUCCESS,
		  "cuEventQuery: done once the work before it ran");

	fill(host, 2000);
	cuMemcpyHtoDAsync(in, host, BYTES, a);
	scale(out, in, 1, b);
	cuMemcpyDtoHAsync(back, out, BYTES, b);
	cuStreamSynchronize(b);
	CHECK(all_are(back, 1000),
	      "without the wait the kernel ran first and saw the old data");
	cuCtxSynchronize();

	/* A device-to-host copy racing a kernel on another stream. */
	incr(out, a);		/* out = 1001 + i */
	cuEventRecord(e, a);
	cuStreamWaitEvent(b, e, 0);
	cuMemcpyDtoHAsync(back, out, BYTES, b);
	cuStreamSynchronize(b);
	CHECK(all_are(back, 1001), "a copy waits for the kernel it must follow");
	incr(out, a);		/* out = 1002 + i */
	cuMemcpyDtoHAsync(back, out, BYTES, b);
	cuStreamSynchronize(b);
	CHECK(all_are(back, 1001), "and copies the old data without the wait");
	cuCtxSynchronize();

	cuMemFree(in);
	cuMemFree(out);
	free(host);
	free(back);
}

static void test_events(CUstream a, CUevent e, CUevent e2)
{
	unsigned *host = malloc(BYTES), *back = malloc(BYTES);
	CUdeviceptr d;
	CUevent fresh;
	float ms = -1;

	cuEventCreate(&fresh, 0);
	CHECK_INT(cuEventQuery(fresh), CUDA_SUCCESS,
		  "an event never recorded is complete");
	CHECK_INT(cuEventSynchronize(fresh), CUDA_SUCCESS,
		  "and synchronizing with it returns");
	cuMemAlloc(&d, BYTES);
	fill(host, 7);
	uint64_t t0 = mock_now();
	cuEventRecord(e, a);
	cuMemcpyHtoDAsync(d, host, BYTES, a);
	memset(back, 0, BYTES);
	cuMemcpyDtoHAsync(back, d, BYTES, a);
	cuEventRecord(e2, a);
	CHECK_INT(cuEventSynchronize(e2), CUDA_SUCCESS, "cuEventSynchronize");
	uint64_t t1 = mock_now();
	CHECK(all_are(back, 7), "it waited for the work before the event");
	CHECK_INT(cuEventElapsedTime(&ms, e, e2), CUDA_SUCCESS,
		  "cuEventElapsedTime");
	/* Between the calls that bound it on the same clock (+1 us for the
	 * float), however long a loaded machine made them. */
	CHECK(ms >= 0 && ms <= (t1 - t0) / 1e6 + 1e-3,
	      "the elapsed time lies within the calls around the events");
	CHECK_INT(cuEventElapsedTime(&ms, e, fresh), CUDA_ERROR_INVALID_HANDLE,
		  "no elapsed time to an event never recorded");

	/* Re-recording moves the event; a wait keeps the old position. */
	cuMemsetD32Async(d, 5, N, a);
	cuEventRecord(e2, a);
	CHECK_INT(cuEventQuery(e2), CUDA_ERROR_NOT_READY,
		  "a re-recorded event is not ready again");
	cuStreamSynchronize(a);
	CHECK_INT(cuEventQuery(e2), CUDA_SUCCESS, "until its new position ran");
	cuEventDestroy(fresh);
	CHECK_INT(cuEventQuery(fresh), CUDA_ERROR_INVALID_HANDLE,
		  "a destroyed event is an invalid handle");
	cuMemFree(d);
	free(host);
	free(back);
}

/* The legacy default stream waits for blocking streams only. */
static void test_legacy(CUstream blocking, CUstream nonblocking)
{
	unsigned *host = malloc(BYTES), *back = malloc(BYTES);
	CUdeviceptr in, out;

	cuMemAlloc(&in, BYTES);
	cuMemAlloc(&out, BYTES);
	fill(host, 10);
	cuMemcpyHtoDAsync(in, host, BYTES, NULL);
	cuMemsetD32Async(out, 0, N, NULL);
	cuStreamSynchronize(NULL);

	scale(out, in, 2, blocking);	/* out = 20 + 2i */
	cuMemcpyDtoHAsync(back, out, BYTES, NULL);
	cuStreamSynchronize(NULL);
	CHECK(back[1] == 22 && back[N - 1] == 20 + 2 * (N - 1),
	      "legacy stream work waits for a blocking stream's");
	incr(out, NULL);		/* out = 21 + 2i */
	cuMemcpyDtoHAsync(back, out, BYTES, blocking);
	cuStreamSynchronize(blocking);
	CHECK(back[1] == 23, "blocking stream work waits for the legacy stream's");
	cuCtxSynchronize();

	scale(out, in, 3, nonblocking);	/* out = 30 + 3i */
	cuMemcpyDtoHAsync(back, out, BYTES, NULL);
	cuStreamSynchronize(NULL);
	CHECK(back[1] == 23, "but not for a non-blocking stream's");
	cuCtxSynchronize();
	cuMemFree(in);
	cuMemFree(out);
	free(host);
	free(back);
}

static void test_params(CUstream a)
{
	unsigned *host = malloc(BYTES), *back = malloc(BYTES);
	CUdeviceptr in, out;
	unsigned mul = 5, n = N;
	uint8_t buf[24];
	size_t size = sizeof(buf);
	void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, buf,
			  CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
			  CU_LAUNCH_PARAM_END };
	void *args[] = { &out, &in, &mul, &n, NULL };

	cuMemAlloc(&in, BYTES);
	cuMemAlloc(&out, BYTES);
	fill(host, 1);
	cuMemcpyHtoDAsync(in, host, BYTES, a);
	CHECK_INT(cuLaunchKernel(scale_fn, N / 256, 1, 1, 256, 1, 1, 0, a,
				 args, NULL), CUDA_SUCCESS, "launch");
	mul = 9;	/* the caller reuses its argument memory at once */
	cuMemcpyDtoHAsync(back, out, BYTES, a);
	cuStreamSynchronize(a);
	CHECK(back[0] == 5 && back[1] == 10,
	      "parameter values are taken at the launch");

	memcpy(buf, &out, 8);
	memcpy(buf + 8, &in, 8);
	memcpy(buf + 16, &mul, 4);
	memcpy(buf + 20, &n, 4);
	CHECK_INT(cuLaunchKernel(scale_fn, N / 256, 1, 1, 256, 1, 1, 0, a,
				 NULL, extra), CUDA_SUCCESS,
		  "launch with a parameter buffer");
	memset(buf, 0, sizeof(buf));
	cuMemcpyDtoHAsync(back, out, BYTES, a);
	cuStreamSynchronize(a);
	CHECK(back[0] == 9 && back[1] == 18, "and the buffer is taken too");
	CHECK_INT(cuLaunchKernel(scale_fn, 0, 1, 1, 256, 1, 1, 0, a, args,
				 NULL), CUDA_ERROR_INVALID_VALUE,
		  "an empty grid is refused at the call");
	cuMemFree(in);
	cuMemFree(out);
	free(host);
	free(back);
}

static void test_done_flag(CUstream a)
{
	unsigned *host = malloc(BYTES), *back = malloc(BYTES);
	uint32_t *mapped, *plain = malloc(8);
	CUdeviceptr in, out, dflag, count;
	unsigned mul = 2, n = N;
	struct gm_elastic_args el;
	uint32_t grid[3] = { N / 256, 1, 1 }, block[3] = { 256, 1, 1 };
	void *args[] = { &out, &in, &mul, &n, &el };
	uint64_t t0;

	cuMemAlloc(&in, BYTES);
	cuMemAlloc(&out, BYTES);
	cuMemAlloc(&count, 4);
	cuMemsetD32Async(count, 0, 1, a);
	fill(host, 3);
	cuMemcpyHtoDAsync(in, host, BYTES, a);
	CHECK_INT(cuMemHostAlloc((void **)&mapped, 8, 0), CUDA_SUCCESS,
		  "page-locked memory");
	CHECK_INT(cuMemHostGetDevicePointer(&dflag, mapped, 0),
		  CUDA_ERROR_INVALID_VALUE, "is not mapped without DEVICEMAP");
	cuMemFreeHost(mapped);
	CHECK_INT(cuMemHostAlloc((void **)&mapped, 8,
				 CU_MEMHOSTALLOC_DEVICEMAP), CUDA_SUCCESS,
		  "host-mapped memory");
	CHECK_INT(cuMemHostGetDevicePointer(&dflag, mapped + 1, 0),
		  CUDA_SUCCESS, "cuMemHostGetDevicePointer");
	CHECK(dflag == (CUdeviceptr)(uintptr_t)(mapped + 1),
	      "at the same address");
	mapped[1] = 0;

	gm_elastic_args_identity(&el, grid, block);
	el.done_flag = (uint64_t)(uintptr_t)plain;
	el.done_count = count;
	CHECK_INT(cuLaunchKernel(scale_fn, 4, 1, 1, 256, 1, 1, 0, a, args,
				 NULL), CUDA_ERROR_INVALID_VALUE,
		  "a done flag outside device memory is refused");
	el.done_flag = dflag;
	CHECK_INT(cuLaunchKernel(scale_fn, 4, 1, 1, 256, 1, 1, 0, a, args,
				 NULL), CUDA_SUCCESS,
		  "elastic launch with a done flag on 4 physical blocks");
	el.done_flag = 0;	/* taken at the call */
	CHECK(__atomic_load_n(&mapped[1], __ATOMIC_ACQUIRE) == 0,
	      "the flag is not set at the call");
	t0 = mock_now();
	while (!__atomic_load_n(&mapped[1], __ATOMIC_ACQUIRE) &&
	       mock_now() - t0 < 5000000000ull) {
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
	CHECK(mapped[1] == 1, "the flag is set when the kernel has run");
	cuMemcpyDtoHAsync(back, out, BYTES, a);
	cuMemcpyDtoHAsync(plain, count, 4, a);
	cuStreamSynchronize(a);
	CHECK(back[0] == 6 && back[N - 1] == 2 * (3 + N - 1),
	      "the whole logical grid ran");
	CHECK_INT(plain[0], 0, "and the count is back to 0");
	cuMemFreeHost(mapped);
	cuMemFree(in);
	cuMemFree(out);
	cuMemFree(count);
	free(plain);
	free(host);
	free(back);
}

static void test_records(CUstream a)
{
	static uint8_t buf[1 << 16];
	size_t n, at = 0;
	CUdeviceptr d;
	uint64_t t0;
	int kernels = 0, copies = 0, late = 0, stream_ok = 1;

	mock_enable_kind(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	mock_enable_kind(CUPTI_ACTIVITY_KIND_MEMCPY);
	mock_take_records(buf, sizeof(buf));
	cuMemAlloc(&d, BYTES);
	t0 = mock_now();
	cuMemsetD32Async(d, 1, N, a);
	incr(d, a);
	cuMemcpyDtoHAsync(buf, d, 4, a);
	CHECK_INT(mock_pending_records(), 0, "no device record before it ran");
	/* poll, as a host waiting for a flag would: latency applies */
	while (cuStreamQuery(a) == CUDA_ERROR_NOT_READY) {
		struct timespec ts = { 0, 100000 };
		nanosleep(&ts, NULL);
	}
	n = mock_take_records(buf, sizeof(buf));
	while (at < n) {
		const CUpti_Activity *r = (const void *)(buf + at);
		if (r->kind == CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL) {
			const CUpti_ActivityKernel10 *k = (const void *)r;
			kernels++;
			late += k->start >= t0 + 20000000ull;
			stream_ok &= k->streamId == mock_stream_id(a);
		} else if (r->kind == CUPTI_ACTIVITY_KIND_MEMCPY) {
			const CUpti_ActivityMemcpy6 *m = (const void *)r;
			copies++;
			late += m->start >= t0 + 20000000ull;
			stream_ok &= m->streamId == mock_stream_id(a);
		}
		at += (mock_record_size(r->kind) + 7) & ~(size_t)7;
	}
	CHECK_INT(kernels, 1, "one kernel record");
	CHECK_INT(copies, 1, "one copy record");
	CHECK_INT(late, 2, "both started after the latency, when they ran");
	CHECK(stream_ok, "naming the stream they ran on");
	cuMemFree(d);
}

/*
 * Green contexts as the CUDA 13 documentation describes them: the SM
 * resource, a split that rounds and aligns its size and leaves a
 * remainder, descriptors of one split's groups, green contexts and their
 * streams, and functions that belong to one context.
 */
static void test_green(CUlibrary lib)
{
	CUdevResource dev, groups[40], rem, other[2], res;
	CUdevResourceDesc desc;
	CUgreenCtx g;
	CUcontext gctx, primary;
	CUstream gs, ps;
	CUkernel k;
	CUfunction gf;
	CUdeviceptr d;
	unsigned nb;

	CHECK_INT(cuDeviceGetDevResource(0, &dev, CU_DEV_RESOURCE_TYPE_SM),
		  CUDA_SUCCESS, "cuDeviceGetDevResource");
	CHECK(dev.sm.smCount == 132 && dev.sm.minSmPartitionSize == 8 &&
	      dev.sm.smCoscheduledAlignment == 8,
	      "132 SMs, minimum partition 8, alignment 8 (the cc 9.0 guideline)");
	CHECK_INT(cuDeviceGetDevResource(0, &dev, (CUdevResourceType)7),
		  CUDA_ERROR_INVALID_RESOURCE_TYPE, "only SM resources");
	nb = 0;
	CHECK_INT(cuDevSmResourceSplitByCount(NULL, &nb, &dev, NULL, 0, 8),
		  CUDA_SUCCESS, "a split with no result counts");
	CHECK_INT(nb, 16, "16 groups of 8 fit in 132 SMs");
	nb = 40;
	CHECK_INT(cuDevSmResourceSplitByCount(groups, &nb, &dev, &rem, 0, 12),
		  CUDA_SUCCESS, "a split of 12");
	CHECK(nb == 8 && groups[0].sm.smCount == 16 && rem.sm.smCount == 4,
	      "12 rounds up to 16 (alignment 8): 8 groups and 4 SMs left");
	nb = 3;
	cuDevSmResourceSplitByCount(groups, &nb, &dev, &rem, 0, 8);
	CHECK(nb == 3 && rem.sm.smCount == 108,
	      "fewer groups asked: the SMs left are the remainder");
	nb = 2;
	CHECK_INT(cuDevSmResourceSplitByCount(other, &nb, &groups[0], NULL, 0, 8),
		  CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
		  "a group cannot be split again");
	CHECK_INT(cuDevSmResourceSplitByCount(other, &nb, &dev, NULL, 0, 200),
		  CUDA_ERROR_INVALID_VALUE, "minCount above the SM count");
	nb = 2;
	cuDevSmResourceSplitByCount(other, &nb, &dev, NULL, 0, 8);
	res = other[0];
	groups[2] = res;
	CHECK_INT(cuDevResourceGenerateDesc(&desc, groups + 1, 2),
		  CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION,
		  "groups of two splits cannot share a descriptor");
	groups[2] = groups[1];
	CHECK_INT(cuDevResourceGenerateDesc(&desc, groups + 1, 2),
		  CUDA_ERROR_INVALID_RESOURCE_CONFIGURATION, "nor a group twice");
	nb = 3;
	cuDevSmResourceSplitByCount(groups, &nb, &dev, &rem, 0, 8);
	CHECK_INT(cuDevResourceGenerateDesc(&desc, groups, 3), CUDA_SUCCESS,
		  "three groups of one split in one descriptor");
	CHECK_INT(cuGreenCtxCreate(&g, desc, 0, 0), CUDA_ERROR_INVALID_VALUE,
		  "cuGreenCtxCreate needs CU_GREEN_CTX_DEFAULT_STREAM");
	CHECK_INT(cuGreenCtxCreate(&g, desc, 0, CU_GREEN_CTX_DEFAULT_STREAM),
		  CUDA_SUCCESS, "cuGreenCtxCreate");
	cuGreenCtxGetDevResource(g, &res, CU_DEV_RESOURCE_TYPE_SM);
	CHECK_INT(res.sm.smCount, 24, "its resource: the three groups' 24 SMs");
	CHECK_INT(cuGreenCtxStreamCreate(&gs, g, 0, 0), CUDA_ERROR_INVALID_VALUE,
		  "cuGreenCtxStreamCreate needs CU_STREAM_NON_BLOCKING");
	CHECK_INT(cuGreenCtxStreamCreate(&gs, g, CU_STREAM_NON_BLOCKING, 0),
		  CUDA_SUCCESS, "a stream of the green context");
	CHECK_INT(cuCtxFromGreenCtx(&gctx, g), CUDA_SUCCESS, "cuCtxFromGreenCtx");
	cuDevicePrimaryCtxRetain(&primary, 0);
	cuStreamCreate(&ps, CU_STREAM_NON_BLOCKING);
	cuMemAlloc(&d, 4 * N);
	{
		CUdeviceptr in = d;
		unsigned mul = 1, n = N;
		void *args[] = { &d, &in, &mul, &n, NULL };
		CHECK_INT(cuLaunchKernel(scale_fn, N / 256, 1, 1, 256, 1, 1, 0,
					 gs, args, NULL),
			  CUDA_ERROR_INVALID_HANDLE,
			  "a primary-context function on a green stream fails");
		cuCtxSetCurrent(gctx);
		cuLibraryGetKernel(&k, lib, "_Z5scalePjPKjjj");
		cuKernelGetFunction(&gf, k);
		CHECK(gf != scale_fn, "in the green context: another function");
		CHECK_INT(cuLaunchKernel(gf, N / 256, 1, 1, 256, 1, 1, 0, gs,
					 args, NULL),
			  CUDA_SUCCESS, "which launches on its green stream, on "
			  "memory of the primary context");
		CHECK_INT(cuLaunchKernel(gf, N / 256, 1, 1, 256, 1, 1, 0, ps,
					 args, NULL),
			  CUDA_ERROR_INVALID_HANDLE, "but not on a primary stream");
		CHECK_INT(cuLaunchKernel((CUfunction)k, N / 256, 1, 1, 256, 1,
					 1, 0, ps, args, NULL),
			  CUDA_SUCCESS, "a CUkernel launches in any stream's context");
		cuCtxSetCurrent(primary);
	}
	cuStreamSynchronize(gs);
	cuStreamSynchronize(ps);
	cuMemFree(d);
	CHECK_INT(cuStreamDestroy(gs), CUDA_SUCCESS, "its stream destroyed first");
	CHECK_INT(cuGreenCtxDestroy(g), CUDA_SUCCESS, "cuGreenCtxDestroy");
	CHECK_INT(cuCtxSetCurrent(gctx), CUDA_ERROR_CONTEXT_IS_DESTROYED,
		  "a destroyed green context cannot be made current");
	cuStreamDestroy(ps);
}

/*
 * Managed memory: one address for host and kernels, prefetch and advice
 * only on it; page-locked memory without DEVICEMAP is device-accessible
 * (unified addressing); parameter layouts as cuKernelGetParamInfo gives.
 */
static void test_managed(CUstream a, CUkernel k_scale)
{
	CUmemLocation dev = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
	CUmemLocation bad = { CU_MEM_LOCATION_TYPE_DEVICE, 3 };
	CUdeviceptr m, d;
	unsigned *pinned;
	size_t off = 0, size = 0;

	CHECK_INT(cuMemAllocManaged(&m, BYTES, 0), CUDA_ERROR_INVALID_VALUE,
		  "cuMemAllocManaged: flags must say how it attaches");
	CHECK_INT(cuMemAllocManaged(&m, BYTES, CU_MEM_ATTACH_GLOBAL),
		  CUDA_SUCCESS, "cuMemAllocManaged");
	CHECK(((unsigned *)(uintptr_t)m)[0] == 0 &&
	      ((unsigned *)(uintptr_t)m)[N - 1] == 0, "zero-filled");
	fill((unsigned *)(uintptr_t)m, 10);	/* the host writes it */
	CHECK_INT(cuMemAdvise(m, BYTES, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
			      dev), CUDA_SUCCESS, "cuMemAdvise");
	CHECK_INT(cuMemAdvise(m, BYTES, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
			      bad), CUDA_ERROR_INVALID_VALUE,
		  "cuMemAdvise: no such device");
	CHECK_INT(cuMemPrefetchAsync(m, BYTES, dev, 0, a), CUDA_SUCCESS,
		  "cuMemPrefetchAsync");
	CHECK_INT(incr(m, a), CUDA_SUCCESS, "a kernel on managed memory");
	cuStreamSynchronize(a);
	CHECK(all_are((unsigned *)(uintptr_t)m, 11), "the host reads its result");
	CHECK_INT(cuMemAlloc(&d, BYTES), CUDA_SUCCESS, "cuMemAlloc");
	CHECK_INT(cuMemPrefetchAsync(d, BYTES, dev, 0, a),
		  CUDA_ERROR_INVALID_VALUE, "no prefetch of device memory");
	CHECK_INT(cuMemAdvise(d, BYTES, CU_MEM_ADVISE_SET_READ_MOSTLY, dev),
		  CUDA_ERROR_INVALID_VALUE, "no advice on device memory");
	cuMemFree(d);
	CHECK_INT(cuMemFree(m), CUDA_SUCCESS, "cuMemFree of managed memory");

	CHECK_INT(cuMemAllocHost((void **)&pinned, BYTES), CUDA_SUCCESS,
		  "cuMemAllocHost");
	fill(pinned, 20);
	CHECK_INT(incr((CUdeviceptr)(uintptr_t)pinned, a), CUDA_SUCCESS,
		  "a kernel on page-locked memory at its host address");
	cuStreamSynchronize(a);
	CHECK(all_are(pinned, 21), "... writes it");
	cuMemFreeHost(pinned);

	CHECK(cuKernelGetParamInfo(k_scale, 2, &off, &size) == CUDA_SUCCESS &&
	      off == 16 && size == 4, "cuKernelGetParamInfo");
	CHECK_INT(cuKernelGetParamInfo(k_scale, 4, &off, &size),
		  CUDA_ERROR_INVALID_VALUE, "... past the last parameter");
}

/*
 * The device address space and virtual memory management: addresses are
 * handed out first fit from one region (the same in every process), a
 * reservation lands at its hint when nothing is in the way and elsewhere
 * when something is; mapped memory is device memory only once its access
 * is set, two adjacent mappings are one range, physical memory keeps its
 * content from one mapping to the next, and unmapped memory is not
 * device memory any more.
 */
/* Where [@at, @at + 1) is mapped per /proc/self/maps: whether its line
 * names @what. */
static int maps_name(uint64_t at, const char *what)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	int found = 0;

	while (f && fgets(line, sizeof(line), f)) {
		unsigned long long lo, hi;
		if (sscanf(line, "%llx-%llx", &lo, &hi) == 2 && at >= lo &&
		    at < hi) {
			found = strstr(line, what) != NULL;
		}
	}
	if (f) {
		fclose(f);
	}
	return found;
}

/* Under unified addressing a hinted reservation is not given where the
 * process has anything mapped: the driver's own memory at cuInit
 * (MOCK_CUDA_OCCUPY, set before cuInit by main) or any mmap. */
static void test_occupied(void)
{
	const uint64_t gran = 2u << 20, drv = 0x300000000000ull,
		       host = 0x300100000000ull;
	CUdeviceptr r = 0;
	void *p;

	CHECK(maps_name(drv, "/memfd:mock-cuda-driver"),
	      "MOCK_CUDA_OCCUPY=init: cuInit mapped its region at ADDR");
	CHECK(maps_name(drv + (1u << 30) - 1, "/memfd:mock-cuda-driver") &&
		      !maps_name(drv + (1u << 30), "/memfd:mock-cuda-driver"),
	      "... BYTES of it");
	CHECK_INT(cuMemAddressReserve(&r, gran, 0, drv + gran, 0),
		  CUDA_SUCCESS, "a hint inside the driver's region");
	CHECK(r && r != drv + gran, "... lands elsewhere");
	cuMemAddressFree(r, gran);
	p = mmap((void *)(uintptr_t)host, gran, PROT_NONE,
		 MAP_PRIVATE | MAP_ANONYMOUS | MAP_FIXED_NOREPLACE, -1, 0);
	CHECK(p == (void *)(uintptr_t)host, "an mmap of the process");
	CHECK_INT(cuMemAddressReserve(&r, gran, 0, host, 0), CUDA_SUCCESS,
		  "a hint over it");
	CHECK(r && r != host, "... lands elsewhere");
	cuMemAddressFree(r, gran);
	munmap(p, gran);
	CHECK_INT(cuMemAddressReserve(&r, gran, 0, host, 0), CUDA_SUCCESS,
		  "the same hint once unmapped");
	CHECK(r == host, "... lands there");
	cuMemAddressFree(r, gran);
}

static void test_vmm(CUstream a)
{
	CUmemAllocationProp prop;
	CUmemAccessDesc acc;
	CUmemGenericAllocationHandle h1, h2;
	CUdeviceptr d, d2, r, r2, r3;
	size_t gran = 0;
	static unsigned host[N];
	unsigned *v;

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = 0;
	memset(&acc, 0, sizeof(acc));
	acc.location = prop.location;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	CHECK(cuMemGetAllocationGranularity(&gran, &prop,
					     CU_MEM_ALLOC_GRANULARITY_MINIMUM) ==
		      CUDA_SUCCESS && gran == 2u << 20,
	      "cuMemGetAllocationGranularity: 2 MiB");
	CHECK_INT(cuMemAlloc(&d, BYTES), CUDA_SUCCESS, "cuMemAlloc");
	cuMemFree(d);
	CHECK_INT(cuMemAlloc(&d2, BYTES), CUDA_SUCCESS, "cuMemAlloc again");
	CHECK(d2 == d, "a freed address is handed out again (first fit)");
	cuMemFree(d2);

	CHECK_INT(cuMemAddressReserve(&r, 8 * gran, 0, 0x200100000000ull, 0),
		  CUDA_SUCCESS, "cuMemAddressReserve at a free hint");
	CHECK(r == 0x200100000000ull, "... lands there");
	CHECK_INT(cuMemAddressReserve(&r2, 4 * gran, 0, r + gran, 0),
		  CUDA_SUCCESS, "a hint inside a reservation");
	CHECK(r2 != r + gran && (r2 + 4 * gran <= r || r2 >= r + 8 * gran),
	      "... lands elsewhere");
	CHECK_INT(cuMemAddressFree(r2, 4 * gran), CUDA_SUCCESS,
		  "cuMemAddressFree");
	CHECK_INT(cuMemAlloc(&d, BYTES), CUDA_SUCCESS, "cuMemAlloc");
	CHECK_INT(cuMemAddressReserve(&r3, 2 * gran, 0, d & ~(gran - 1), 0),
		  CUDA_SUCCESS, "a hint over cuMemAlloc memory");
	CHECK(r3 != (d & ~(gran - 1)), "... lands elsewhere");
	cuMemAddressFree(r3, 2 * gran);
	cuMemFree(d);

	CHECK_INT(cuMemCreate(&h1, gran, &prop, 0), CUDA_SUCCESS, "cuMemCreate");
	CHECK_INT(cuMemCreate(&h2, gran, &prop, 0), CUDA_SUCCESS,
		  "cuMemCreate again");
	CHECK_INT(cuMemCreate(&h2, gran / 2, &prop, 0), CUDA_ERROR_INVALID_VALUE,
		  "cuMemCreate: whole granules");
	CHECK_INT(cuMemMap(r + 3 * gran, gran, 0, h1, 0), CUDA_SUCCESS,
		  "cuMemMap");
	CHECK_INT(cuMemMap(r + 4 * gran, gran, 0, h2, 0), CUDA_SUCCESS,
		  "cuMemMap next to it");
	CHECK_INT(cuMemMap(r + 3 * gran, gran, 0, h2, 0),
		  CUDA_ERROR_INVALID_VALUE, "cuMemMap over a mapping");
	CHECK_INT(cuMemMap(r + 8 * gran, gran, 0, h2, 0),
		  CUDA_ERROR_INVALID_VALUE, "cuMemMap outside a reservation");
	fill(host, 5);
	CHECK_INT(cuMemcpyHtoDAsync(r + 4 * gran - BYTES / 2, host, BYTES, a),
		  CUDA_ERROR_INVALID_VALUE,
		  "mapped memory without access is not device memory");
	CHECK_INT(cuMemSetAccess(r + 3 * gran, 2 * gran, &acc, 1), CUDA_SUCCESS,
		  "cuMemSetAccess over both mappings");
	CHECK_INT(cuMemcpyHtoDAsync(r + 4 * gran - BYTES / 2, host, BYTES, a),
		  CUDA_SUCCESS, "a copy across the two mappings");
	CHECK_INT(incr(r + 4 * gran - BYTES / 2, a), CUDA_SUCCESS,
		  "... a kernel across them");
	cuStreamSynchronize(a);
	v = (unsigned *)(uintptr_t)(r + 4 * gran - BYTES / 2);
	CHECK(all_are(v, 6), "... reads and writes both");
	CHECK_INT(cuMemUnmap(r + 4 * gran, gran), CUDA_SUCCESS, "cuMemUnmap");
	CHECK_INT(cuMemcpyHtoDAsync(r + 4 * gran - BYTES / 2, host, BYTES, a),
		  CUDA_ERROR_INVALID_VALUE, "unmapped memory is not device memory");
	CHECK_INT(cuMemMap(r, gran, 0, h2, 0), CUDA_SUCCESS,
		  "cuMemMap of the same memory elsewhere");
	CHECK_INT(cuMemSetAccess(r, gran, &acc, 1), CUDA_SUCCESS,
		  "cuMemSetAccess");
	v = (unsigned *)(uintptr_t)r;
	CHECK(v[0] == 6 + N / 2 && v[N / 2 - 1] == 6 + N - 1,
	      "... its content came along");
	CHECK_INT(cuMemAddressFree(r, 8 * gran), CUDA_ERROR_INVALID_VALUE,
		  "no cuMemAddressFree of mapped memory");
	CHECK_INT(cuMemUnmap(r, 2 * gran), CUDA_ERROR_INVALID_VALUE,
		  "cuMemUnmap: whole mappings only");
	CHECK_INT(cuMemRelease(h1), CUDA_SUCCESS, "cuMemRelease of mapped memory");
	CHECK_INT(cuMemRelease(h2), CUDA_SUCCESS, "... and of the other");
	CHECK_INT(cuMemUnmap(r, gran), CUDA_SUCCESS, "cuMemUnmap");
	CHECK_INT(cuMemUnmap(r + 3 * gran, gran), CUDA_SUCCESS, "cuMemUnmap");
	CHECK_INT(cuMemAddressFree(r, 8 * gran), CUDA_SUCCESS,
		  "cuMemAddressFree");
}

static CUDA_KERNEL_NODE_PARAMS scale_node(void **args)
{
	CUDA_KERNEL_NODE_PARAMS kp;

	memset(&kp, 0, sizeof(kp));
	kp.func = scale_fn;
	kp.gridDimX = N / 256;
	kp.gridDimY = kp.gridDimZ = 1;
	kp.blockDimX = 256;
	kp.blockDimY = kp.blockDimZ = 1;
	kp.kernelParams = args;
	return kp;
}

/*
 * CUDA graphs: work queued on a capturing stream does not run (and the
 * stream cannot be synchronized) until the graph is launched, then at
 * every launch, with the values taken at capture; a stream joins a
 * capture through an event; an executable graph keeps its own nodes (a
 * later change of the graph reaches it only through cuGraphExecUpdate);
 * a clone is independent; dependencies order the nodes of an explicit
 * graph whatever the order they were added in.
 */
static void test_graphs(CUstream a, CUstream b, CUevent e)
{
	unsigned *pinned, *back = malloc(BYTES);
	CUdeviceptr in, out;
	CUgraph g, g2, clone;
	CUgraphExec x, x2;
	CUgraphNode kn, cn, mn, deps[1];
	CUstreamCaptureStatus st;
	CUgraphExecUpdateResultInfo info;
	CUDA_KERNEL_NODE_PARAMS kp;
	CUDA_MEMCPY3D cp;
	CUDA_MEMSET_NODE_PARAMS ms;
	unsigned mul = 2, n = N;
	void *args[] = { &out, &in, &mul, &n, NULL };

	cuMemAlloc(&in, BYTES);
	cuMemAlloc(&out, BYTES);
	cuMemHostAlloc((void **)&pinned, BYTES, 0);
	fill(pinned, 10);
	cuMemcpyHtoDAsync(in, pinned, BYTES, a);
	cuStreamSynchronize(a);

	/* stream capture */
	CHECK_INT(cuStreamBeginCapture(a, CU_STREAM_CAPTURE_MODE_GLOBAL),
		  CUDA_SUCCESS, "cuStreamBeginCapture");
	cuStreamIsCapturing(a, &st);
	CHECK(st == CU_STREAM_CAPTURE_STATUS_ACTIVE, "the stream captures");
	CHECK_INT(cuMemsetD32Async(out, 0, N, a), CUDA_SUCCESS,
		  "a memset into the capture");
	CHECK_INT(scale(out, in, 3, a), CUDA_SUCCESS, "a launch into the capture");
	CHECK_INT(cuEventRecord(e, a), CUDA_SUCCESS, "an event in the capture");
	CHECK_INT(cuStreamWaitEvent(b, e, 0), CUDA_SUCCESS,
		  "another stream waits on it");
	cuStreamIsCapturing(b, &st);
	CHECK(st == CU_STREAM_CAPTURE_STATUS_ACTIVE, "... and joins the capture");
	CHECK_INT(incr(out, b), CUDA_SUCCESS, "a launch on the joined stream");
	CHECK_INT(cuMemcpyDtoHAsync(pinned, out, BYTES, b), CUDA_SUCCESS,
		  "a copy back into the capture");
	CHECK_INT(cuStreamSynchronize(a), CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED,
		  "a capturing stream cannot be synchronized");
	CHECK_INT(cuStreamEndCapture(a, &g), CUDA_SUCCESS, "cuStreamEndCapture");
	cuStreamIsCapturing(b, &st);
	CHECK(st == CU_STREAM_CAPTURE_STATUS_NONE, "the joined stream left it");
	cuCtxSynchronize();
	CHECK(all_are(pinned, 10), "nothing captured ran");
	CHECK_INT(cuGraphInstantiate(&x, g, 0), CUDA_SUCCESS, "instantiate");
	for (unsigned k = 0; k < 3; k++) {
		fill(pinned, 0);
		CHECK_INT(cuGraphLaunch(x, a), CUDA_SUCCESS, "cuGraphLaunch");
		CHECK(pinned[5] == 5, "a launch runs later, like other work");
		cuStreamSynchronize(a);
		CHECK(pinned[0] == 10 * 3 + 1,
		      "each launch runs the captured work");
	}
	{
		int ok = 1;
		for (int i = 0; i < N; i++) {
			ok &= pinned[i] == (10u + (unsigned)i) * 3 + 1;
		}
		CHECK(ok, "with the arguments of the capture");
	}

	/* an explicit graph, nodes added out of order, edges later */
	CHECK_INT(cuGraphCreate(&g2, 0), CUDA_SUCCESS, "cuGraphCreate");
	memset(&cp, 0, sizeof(cp));
	cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	cp.srcDevice = out;
	cp.dstMemoryType = CU_MEMORYTYPE_HOST;
	cp.dstHost = back;
	cp.WidthInBytes = BYTES;
	cp.Height = cp.Depth = 1;
	CHECK_INT(cuGraphAddMemcpyNode(&cn, g2, NULL, 0, &cp, NULL),
		  CUDA_SUCCESS, "a copy node");
	memset(&ms, 0, sizeof(ms));
	ms.dst = out;
	ms.value = 7;
	ms.elementSize = 4;
	ms.width = N;
	ms.height = 1;
	CHECK_INT(cuGraphAddMemsetNode(&mn, g2, NULL, 0, &ms, NULL),
		  CUDA_SUCCESS, "a memset node");
	kp = scale_node(args);
	mul = 5;
	deps[0] = mn;
	CHECK_INT(cuGraphAddKernelNode(&kn, g2, deps, 1, &kp), CUDA_SUCCESS,
		  "a kernel node after the memset");
	mul = 99;	/* taken at the call */
	CHECK_INT(cuGraphAddDependencies(g2, &kn, &cn, NULL, 1), CUDA_SUCCESS,
		  "the copy after the kernel, added later");
	CHECK_INT(cuGraphAddDependencies(g2, &cn, &mn, NULL, 1), CUDA_SUCCESS,
		  "a cycle can be made...");
	CHECK_INT(cuGraphInstantiate(&x2, g2, 0), CUDA_ERROR_INVALID_VALUE,
		  "... but not instantiated");
	cuGraphDestroy(g2);
	cuGraphCreate(&g2, 0);
	cuGraphAddMemcpyNode(&cn, g2, NULL, 0, &cp, NULL);
	cuGraphAddMemsetNode(&mn, g2, NULL, 0, &ms, NULL);
	mul = 5;
	cuGraphAddKernelNode(&kn, g2, &mn, 1, &kp);
	cuGraphAddDependencies(g2, &kn, &cn, NULL, 1);
	CHECK_INT(cuGraphInstantiate(&x2, g2, 0), CUDA_SUCCESS,
		  "instantiate the explicit graph");
	CHECK_INT(cuGraphLaunch(x2, a), CUDA_SUCCESS, "launch it");
	cuStreamSynchronize(a);
	CHECK(back[3] == (10u + 3) * 5, "the copy ran after the kernel");

	mul = 6;
	CHECK_INT(cuGraphKernelNodeSetParams(kn, &kp), CUDA_SUCCESS,
		  "the graph's kernel node changed");
	cuGraphLaunch(x2, a);
	cuStreamSynchronize(a);
	CHECK(back[3] == (10u + 3) * 5, "the executable graph did not change");
	CHECK_INT(cuGraphClone(&clone, g2), CUDA_SUCCESS, "cuGraphClone");
	CHECK_INT(cuGraphExecUpdate(x2, g2, &info), CUDA_SUCCESS,
		  "cuGraphExecUpdate");
	cuGraphLaunch(x2, a);
	cuStreamSynchronize(a);
	CHECK(back[3] == (10u + 3) * 6, "after the update it did");
	mul = 8;
	CHECK_INT(cuGraphExecKernelNodeSetParams(x2, kn, &kp), CUDA_SUCCESS,
		  "the executable's kernel node changed");
	cuGraphLaunch(x2, a);
	cuStreamSynchronize(a);
	CHECK(back[3] == (10u + 3) * 8, "the executable runs it");
	cuGraphDestroy(g2);
	cuGraphExecDestroy(x2);
	CHECK_INT(cuGraphInstantiate(&x2, clone, 0), CUDA_SUCCESS,
		  "the clone outlives its original");
	cuGraphLaunch(x2, a);
	cuStreamSynchronize(a);
	CHECK(back[3] == (10u + 3) * 6, "and holds the nodes it was cloned with");
	CHECK_INT(cuGraphExecUpdate(x2, g, &info),
		  CUDA_ERROR_GRAPH_EXEC_UPDATE_FAILURE,
		  "an update to another topology fails");

	cuGraphExecDestroy(x2);
	cuGraphExecDestroy(x);
	cuGraphDestroy(clone);
	cuGraphDestroy(g);
	cuMemFreeHost(pinned);
	cuMemFree(in);
	cuMemFree(out);
	free(back);
}

/*
 * Edges of a programmatic dependent launch (XLA's command buffers): taken
 * between kernel nodes as CUDA documents them, refused otherwise; a child
 * graph node of an executable graph takes another graph of the same
 * shape (cuGraphExecChildGraphNodeSetParams), not one of another.
 */
static void test_graph_edges(CUstream a)
{
	unsigned *back = malloc(BYTES);
	CUdeviceptr in, out;
	CUgraph g, body, body2, odd;
	CUgraphExec x;
	CUgraphNode k1, k2, k3, child, cn, empty;
	CUgraphNodeParams np;
	CUgraphEdgeData ed;
	CUDA_KERNEL_NODE_PARAMS kp;
	CUDA_MEMCPY3D cp;
	unsigned mul = 2, n = N;
	void *args[] = { &out, &in, &mul, &n, NULL };

	cuMemAlloc(&in, BYTES);
	cuMemAlloc(&out, BYTES);
	fill(back, 10);
	cuMemcpyHtoDAsync(in, back, BYTES, a);
	cuStreamSynchronize(a);
	memset(&cp, 0, sizeof(cp));
	cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	cp.srcDevice = out;
	cp.dstMemoryType = CU_MEMORYTYPE_HOST;
	cp.dstHost = back;
	cp.WidthInBytes = BYTES;
	cp.Height = cp.Depth = 1;

	cuGraphCreate(&g, 0);
	kp = scale_node(args);
	cuGraphAddKernelNode(&k1, g, NULL, 0, &kp);
	cuGraphAddEmptyNode(&empty, g, NULL, 0);
	memset(&np, 0, sizeof(np));
	np.type = CU_GRAPH_NODE_TYPE_KERNEL;
	memcpy(&np.kernel, &kp, sizeof(kp));
	memset(&ed, 0, sizeof(ed));
	ed.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
	ed.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
	CHECK_INT(cuGraphAddNode(&k2, g, &empty, &ed, 1, &np),
		  CUDA_ERROR_INVALID_VALUE,
		  "no programmatic edge from a node that is not a kernel");
	CHECK_INT(cuGraphAddNode(&k2, g, &k1, &ed, 1, &np), CUDA_SUCCESS,
		  "a programmatic edge between kernel nodes");
	ed.from_port = CU_GRAPH_KERNEL_NODE_PORT_DEFAULT;
	CHECK_INT(cuGraphAddNode(&k3, g, &k2, &ed, 1, &np),
		  CUDA_ERROR_INVALID_VALUE,
		  "a programmatic edge from the completion port is refused");
	ed.type = CU_GRAPH_DEPENDENCY_TYPE_DEFAULT;
	ed.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
	CHECK_INT(cuGraphAddNode(&k3, g, &k2, &ed, 1, &np),
		  CUDA_ERROR_INVALID_VALUE,
		  "the programmatic port with a plain edge is refused");
	ed.from_port = 0;
	ed.to_port = 1;
	CHECK_INT(cuGraphAddNode(&k3, g, &k2, &ed, 1, &np),
		  CUDA_ERROR_INVALID_VALUE, "no node has an input port");
	cuGraphAddKernelNode(&k3, g, NULL, 0, &kp);
	memset(&ed, 0, sizeof(ed));
	ed.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
	ed.from_port = CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER;
	CHECK_INT(cuGraphAddDependencies(g, &k2, &empty, &ed, 1),
		  CUDA_ERROR_INVALID_VALUE,
		  "cuGraphAddDependencies: no programmatic edge to an empty node");
	CHECK_INT(cuGraphAddDependencies(g, &k2, &k3, &ed, 1), CUDA_SUCCESS,
		  "... a launch-order one between kernel nodes");
	ed.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
	CHECK_INT(cuStreamBeginCaptureToGraph(a, g, &empty, &ed, 1,
					      CU_STREAM_CAPTURE_MODE_GLOBAL),
		  CUDA_ERROR_INVALID_VALUE,
		  "no capture after a programmatic edge from an empty node");
	CHECK_INT(cuStreamBeginCaptureToGraph(a, g, &k3, &ed, 1,
					      CU_STREAM_CAPTURE_MODE_GLOBAL),
		  CUDA_SUCCESS, "a capture after one from a kernel node");
	CHECK_INT(cuMemsetD32Async(out, 0, N, a), CUDA_ERROR_INVALID_VALUE,
		  "... whose first node must be a kernel");
	CHECK_INT(scale(out, in, 2, a), CUDA_SUCCESS, "... as a launch is");
	CHECK_INT(cuStreamEndCapture(a, &body), CUDA_SUCCESS,
		  "cuStreamEndCapture");

	/* a child graph, then another of the same shape, then not */
	cuGraphCreate(&body, 0);
	cuGraphAddKernelNode(&k1, body, NULL, 0, &kp);
	cuGraphAddMemcpyNode(&cn, body, &k1, 1, &cp, NULL);
	cuGraphAddChildGraphNode(&child, g, &k3, 1, body);
	CHECK_INT(cuGraphInstantiate(&x, g, 0), CUDA_SUCCESS,
		  "instantiate a graph of programmatic edges");
	cuGraphLaunch(x, a);
	cuStreamSynchronize(a);
	CHECK(back[3] == (10u + 3) * 2, "the child ran");
	mul = 7;
	cuGraphCreate(&body2, 0);
	cuGraphAddKernelNode(&k1, body2, NULL, 0, &kp);
	cuGraphAddMemcpyNode(&cn, body2, &k1, 1, &cp, NULL);
	cuGraphCreate(&odd, 0);
	cuGraphAddKernelNode(&k1, odd, NULL, 0, &kp);
	CHECK_INT(cuGraphExecChildGraphNodeSetParams(x, child, odd),
		  CUDA_ERROR_INVALID_VALUE,
		  "a child graph of another topology is refused");
	CHECK_INT(cuGraphExecChildGraphNodeSetParams(x, k3, body2),
		  CUDA_ERROR_INVALID_VALUE, "... so is a node that is no child");
	cuGraphLaunch(x, a);
	cuStreamSynchronize(a);
	CHECK(back[3] == (10u + 3) * 2, "the executable graph did not change");
	CHECK_INT(cuGraphExecChildGraphNodeSetParams(x, child, body2),
		  CUDA_SUCCESS, "cuGraphExecChildGraphNodeSetParams");
	cuGraphLaunch(x, a);
	cuStreamSynchronize(a);
	CHECK(back[3] == (10u + 3) * 7, "the executable runs the new child");

	cuGraphExecDestroy(x);
	cuGraphDestroy(odd);
	cuGraphDestroy(body2);
	cuGraphDestroy(body);
	cuGraphDestroy(g);
	cuMemFree(in);
	cuMemFree(out);
	free(back);
}

/*
 * Dynamic shared memory as the driver checks it: 48 KiB without opting
 * in, a launch above the function's limit refused, the limit set by
 * cuFuncSetAttribute (refused above the device's opt-in per block, and
 * lowered as well as raised), the occupancy counting shared memory, a
 * cooperative launch that padding makes too large refused.
 */
static void test_shared_memory(CUstream a, CUlibrary lib)
{
	CUdeviceptr in, out;
	unsigned mul = 2, n = N;
	void *args[] = { &out, &in, &mul, &n, NULL };
	CUlaunchAttribute coop = { .id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE,
				   .value.cooperative = 1 };
	CUlaunchConfig cfg = { .gridDimX = 132 * 8, .gridDimY = 1,
			       .gridDimZ = 1, .blockDimX = 256, .blockDimY = 1,
			       .blockDimZ = 1, .hStream = a, .attrs = &coop,
			       .numAttrs = 1 };
	CUfunction f;
	CUkernel k;
	int v = 0;

	/* A function of its own: its limit starts at 48 KiB. */
	CHECK_INT(cuLibraryGetKernel(&k, lib, "_Z5scalePjPKjjj"), CUDA_SUCCESS,
		  "cuLibraryGetKernel");
	CHECK_INT(cuKernelGetFunction(&f, k), CUDA_SUCCESS,
		  "cuKernelGetFunction");
	CHECK_INT(cuDeviceGetAttribute(
			  &v, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN,
			  0),
		  CUDA_SUCCESS, "the opt-in limit per block");
	CHECK_INT(v, 232448, "an H100's");
	CHECK_INT(cuFuncGetAttribute(
			  &v, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, f),
		  CUDA_SUCCESS, "cuFuncGetAttribute");
	CHECK_INT(v, 49152, "a function may take 48 KiB until it opts in");
	cuMemAlloc(&in, BYTES);
	cuMemAlloc(&out, BYTES);
	CHECK_INT(cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 49152, a, args,
				 NULL),
		  CUDA_SUCCESS, "48 KiB of dynamic shared memory: launched");
	CHECK_INT(cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 49153, a, args,
				 NULL),
		  CUDA_ERROR_INVALID_VALUE, "one byte more: refused");
	CHECK_INT(cuLaunchKernel((CUfunction)k, N / 256, 1, 1, 256, 1, 1,
				 49153, a, args, NULL),
		  CUDA_ERROR_INVALID_VALUE, "the CUkernel too (its function's limit)");
	CHECK_INT(cuFuncSetAttribute(
			  f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
			  232449),
		  CUDA_ERROR_INVALID_VALUE, "an opt-in above the device's: refused");
	CHECK_INT(cuFuncSetAttribute(
			  f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
			  115713),
		  CUDA_SUCCESS, "an opt-in to 115713 bytes");
	CHECK_INT(cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 115713, a, args,
				 NULL),
		  CUDA_SUCCESS, "a launch of 115713 bytes then runs");
	CHECK_INT(cuFuncSetAttribute(
			  f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
			  98304),
		  CUDA_SUCCESS, "the limit set lower again (as a program's own)");
	CHECK_INT(cuLaunchKernel(f, N / 256, 1, 1, 256, 1, 1, 115713, a, args,
				 NULL),
		  CUDA_ERROR_INVALID_VALUE, "the same launch is refused");
	CHECK_INT(cuFuncSetAttribute(f, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
				     232448),
		  CUDA_SUCCESS, "the most the device allows");

	/* Occupancy: 8 blocks of 256 threads by threads, fewer by shared
	 * memory (a block's bytes plus the reserved KiB, in 128-byte units,
	 * of 233472 per SM). */
	CHECK_INT(cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, f, 256, 0),
		  CUDA_SUCCESS, "occupancy");
	CHECK_INT(v, 8, "8 blocks of 256 threads without shared memory");
	cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, f, 256, 57345);
	CHECK_INT(v, 3, "3 with 57345 bytes (58496 a block)");
	cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, f, 256, 57344);
	CHECK_INT(v, 4, "4 with 57344 bytes (58368 a block)");
	cuOccupancyMaxActiveBlocksPerMultiprocessor(&v, f, 256, 232449);
	CHECK_INT(v, 0, "none above the opt-in limit");

	/* A cooperative grid of 8 blocks per SM: resident without padding,
	 * too large with it. */
	CHECK_INT(cuLaunchKernelEx(&cfg, f, args, NULL), CUDA_SUCCESS,
		  "a cooperative grid of 8 blocks per SM");
	cfg.sharedMemBytes = 57345;
	CHECK_INT(cuLaunchKernelEx(&cfg, f, args, NULL),
		  CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE,
		  "padded to 3 blocks per SM: too large");
	cfg.sharedMemBytes = 232449;
	CHECK_INT(cuLaunchKernelEx(&cfg, f, args, NULL), CUDA_ERROR_INVALID_VALUE,
		  "above the function's limit: refused before residency");
	CHECK_INT(cuStreamSynchronize(a), CUDA_SUCCESS, "the launches ran");
	cuMemFree(in);
	cuMemFree(out);
}

int main(void)
{
	CUstream a, b, blocking;
	CUlibrary lib;
	CUkernel k, k_scale;
	CUevent e, e2;

	/* Slow enough that "not run yet" holds on any machine. */
	setenv("MOCK_CUDA_LATENCY_US", "20000", 1);
	/* The driver's own memory at cuInit (test_occupied). */
	setenv("MOCK_CUDA_OCCUPY", "init:0x300000000000:0x40000000", 1);
	CHECK_INT(cuInit(0), CUDA_SUCCESS, "cuInit");
	CHECK_INT(cuLibraryLoadData(&lib, "", NULL, NULL, 0, NULL, NULL, 0),
		  CUDA_SUCCESS, "cuLibraryLoadData");
	cuLibraryGetKernel(&k, lib, "_Z5scalePjPKjjj");
	cuKernelGetFunction(&scale_fn, k);
	k_scale = k;
	cuLibraryGetKernel(&k, lib, "_Z4incr4span");
	cuKernelGetFunction(&incr_fn, k);
	cuStreamCreate(&a, CU_STREAM_NON_BLOCKING);
	cuStreamCreate(&b, CU_STREAM_NON_BLOCKING);
	cuStreamCreate(&blocking, 0);
	cuEventCreate(&e, CU_EVENT_DISABLE_TIMING);
	cuEventCreate(&e2, 0);

	test_async_copies(a);
	test_cross_stream(a, b, e);
	cuEventDestroy(e);
	cuEventCreate(&e, 0);
	test_events(a, e, e2);
	test_legacy(blocking, a);
	test_params(a);
	test_done_flag(a);
	test_records(a);
	test_host_func(a);
	test_green(lib);
	test_managed(a, k_scale);
	test_vmm(a);
	test_occupied();
	test_graphs(a, b, e);
	test_graph_edges(a);
	test_shared_memory(a, lib);

	CHECK_INT(cuStreamDestroy(b), CUDA_SUCCESS, "cuStreamDestroy");
	CHECK_INT(cuStreamSynchronize(b), CUDA_ERROR_INVALID_HANDLE,
		  "a destroyed stream is an invalid handle");
	return test_done();
}
