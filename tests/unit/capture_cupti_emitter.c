/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI subscriber without a GPU: hands libgpumix-capture.so's
 * callback exactly the callback data CUPTI gives it for a small program
 * (a runtime-API program that allocates, copies in, loads its fatbin,
 * launches, copies back asynchronously and synchronizes, plus 2-D copies,
 * a non-blocking stream, a texture object, a JIT-loaded module, host
 * functions, a memory pool, virtual memory management, queries and one
 * unsupported call), with real
 * host buffers behind the pointers.
 * test_capture_cupti.c captures it and checks what the bundle holds.
 * Prints "cupti_emitter: ok" when all went through.
 */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

#include "capture_synth.h"

int gm_capture_test_init(void);
void gm_capture_test_callback(int domain, unsigned cbid, const void *data);
void gm_capture_test_layout(uint64_t handle, int is_kernel,
			    const uint32_t *pairs, uint32_t n);
void gm_capture_test_exit(void);

static uint32_t next_corr = 1000;
static uint64_t corr_data;

/* One driver or runtime call: entry callback, @before, exit callback. */
static void call(CUpti_CallbackDomain dom, unsigned cbid, const char *name,
		 void *params, int ret, void (*before_exit)(void *), void *arg)
{
	CUpti_CallbackData cb;

	memset(&cb, 0, sizeof(cb));
	cb.functionName = name;
	cb.functionParams = params;
	cb.functionReturnValue = &ret;
	cb.correlationData = &corr_data;
	cb.correlationId = next_corr++;
	cb.callbackSite = CUPTI_API_ENTER;
	gm_capture_test_callback(dom, cbid, &cb);
	if (before_exit) {
		before_exit(arg);
	}
	cb.callbackSite = CUPTI_API_EXIT;
	gm_capture_test_callback(dom, cbid, &cb);
}

/* A runtime call around one or more driver calls. */
static CUpti_CallbackData rt_cb;
static int rt_ret;

static void rt_enter(unsigned cbid, const char *name)
{
	memset(&rt_cb, 0, sizeof(rt_cb));
	rt_cb.functionName = name;
	rt_cb.functionReturnValue = &rt_ret;
	rt_cb.correlationData = &corr_data;
	rt_cb.correlationId = next_corr++;
	rt_cb.callbackSite = CUPTI_API_ENTER;
	rt_ret = 0;
	gm_capture_test_callback(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &rt_cb);
}

static void rt_exit(unsigned cbid, int ret)
{
	rt_cb.callbackSite = CUPTI_API_EXIT;
	rt_ret = ret;
	gm_capture_test_callback(CUPTI_CB_DOMAIN_RUNTIME_API, cbid, &rt_cb);
}

#define DRV(name, params, ret, before, arg)                                    \
	call(CUPTI_CB_DOMAIN_DRIVER_API, CUPTI_DRIVER_TRACE_CBID_##name, #name, \
	     params, ret, before, arg)

/* What the driver writes through output pointers, at the right moment. */
static void set_u64(void *p)
{
	uint64_t *pair = p;
	*(uint64_t *)(uintptr_t)pair[0] = pair[1];
}

/* What the program's host functions saw (copied to the device after
 * they ran, so that the test reads it from the bundle). */
static struct {
	uint64_t fn_calls, fn_arg_ok, cb_calls, cb_stream, cb_status, cb_arg_ok;
} seen;
static int fn_arg, cb_arg;
/* A result the host function reads and reuses, and one enqueued after
 * the host function (sizes unique among the emitter's results). */
static uint8_t hf_before[120], hf_after[136];

static void CUDA_CB user_fn(void *arg)
{
	seen.fn_calls++;
	seen.fn_arg_ok = arg == &fn_arg;
	synth_fill(hf_before, sizeof(hf_before), 62);	/* reused */
	/* long enough to be told apart from nothing */
	for (volatile unsigned long i = 0; i < 2000000; i++) {
	}
}

static void CUDA_CB user_cb(CUstream s, CUresult status, void *arg)
{
	seen.cb_calls++;
	seen.cb_stream = (uintptr_t)s;
	seen.cb_status = (uint64_t)status;
	seen.cb_arg_ok = arg == &cb_arg;
}

int main(void)
{
	static uint8_t h2d[3000], d2h[512], d2h2[256], d2h3[128], img2d[64 * 100];
	static uint8_t back2d[64 * 100];
	static float pa = 1.5f;
	static uint64_t pb = 0x7f0000001000ull;
	static int pn = 1000;
	void *kparams[3] = { &pa, &pb, &pn };
	CUdeviceptr dptr = 0;
	CUlibrary lib = 0;
	CUkernel kern = 0;
	CUstream ns = 0;
	CUmodule mod = 0;
	CUfunction fn = 0;
	CUtexObject tex = 0;
	uint64_t set[2];
	struct synth s;
	const void *fat;
	size_t fat_len;
	void *wrapper, *extra_img;
	static const char ptx[] = ".version 8.0\n.target sm_90\n.address_size 64\n";

	if (gm_capture_test_init()) {
		fprintf(stderr, "cupti_emitter: not under gpumix capture\n");
		return 3;
	}
	synth_fill(h2d, sizeof(h2d), 11);
	synth_fill(d2h, sizeof(d2h), 12);
	synth_fill(d2h2, sizeof(d2h2), 13);
	synth_fill(d2h3, sizeof(d2h3), 14);
	synth_fill(img2d, sizeof(img2d), 15);
	synth_fill(back2d, sizeof(back2d), 16);

	/* Queries: counted, not recorded. */
	for (int i = 0; i < 3; i++) {
		DRV(cuDeviceGetAttribute, NULL, 0, NULL, NULL);
	}

	/* cudaMalloc -> cuMemAlloc_v2 */
	rt_enter(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc_v3020");
	{
		cuMemAlloc_v2_params p = { &dptr, 4096 };
		set[0] = (uintptr_t)&dptr;
		set[1] = 0x7f0000000000ull;
		DRV(cuMemAlloc_v2, &p, CUDA_SUCCESS, set_u64, set);
	}
	rt_exit(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 0);

	/* cudaMemcpy H2D -> cuMemcpyHtoD_v2 (3000 bytes: a blob) */
	rt_enter(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, "cudaMemcpy_v3020");
	{
		cuMemcpyHtoD_v2_params p = { dptr, h2d, sizeof(h2d) };
		DRV(cuMemcpyHtoD_v2, &p, CUDA_SUCCESS, NULL, NULL);
	}
	rt_exit(CUPTI_RUNTIME_TRACE_CBID_cudaMemcpy_v3020, 0);

	/* The runtime loads its fatbin through the fatbin wrapper. */
	memset(&s, 0, sizeof(s));
	s.image = SYNTH_FATBIN_WRAPPED;
	s.seed = 21;
	wrapper = synth_image(&s, &fat, &fat_len, &extra_img);
	{
		cuLibraryLoadData_params p = { &lib, wrapper, NULL, NULL, 0, NULL,
					       NULL, 0 };
		set[0] = (uintptr_t)&lib;
		set[1] = 0xa000;
		DRV(cuLibraryLoadData, &p, CUDA_SUCCESS, set_u64, set);
	}

	/* cudaLaunchKernel -> cuLibraryGetKernel, cuLaunchKernel */
	rt_enter(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000,
		 "cudaLaunchKernel_v7000");
	{
		cuLibraryGetKernel_params p = { &kern, lib, "_Z3addfPfi" };
		static const uint32_t layout[] = { 0, 4, 8, 8, 16, 4 };
		set[0] = (uintptr_t)&kern;
		set[1] = 0xb000;
		DRV(cuLibraryGetKernel, &p, CUDA_SUCCESS, set_u64, set);
		/* No driver here to ask cuKernelGetParamInfo: give the layout. */
		gm_capture_test_layout(0xb000, 1, layout, 3);
	}
	{
		cuLaunchKernel_params p = { (CUfunction)kern, 4, 2, 1, 128, 1, 1, 0,
					    NULL, kparams, NULL };
		DRV(cuLaunchKernel, &p, CUDA_SUCCESS, NULL, NULL);
	}
	rt_exit(CUPTI_RUNTIME_TRACE_CBID_cudaLaunchKernel_v7000, 0);

	/* An async copy back on stream 0x5000, completed by an event. */
	{
		cuMemcpyDtoHAsync_v2_params p = { d2h, dptr, sizeof(d2h),
						  (CUstream)0x5000 };
		cuEventRecord_params r = { (CUevent)0x6000, (CUstream)0x5000 };
		cuEventSynchronize_params e = { (CUevent)0x6000 };
		DRV(cuMemcpyDtoHAsync_v2, &p, CUDA_SUCCESS, NULL, NULL);
		DRV(cuEventRecord, &r, CUDA_SUCCESS, NULL, NULL);
		DRV(cuEventSynchronize, &e, CUDA_SUCCESS, NULL, NULL);
	}

	/* A pitched 2-D copy from host memory (64 rows of 100, pitch 100). */
	{
		CUDA_MEMCPY2D c;
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_HOST;
		c.srcHost = img2d + 100 + 10;	/* from row 1, byte 10 */
		c.srcPitch = 100;
		c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		c.dstDevice = dptr;
		c.dstPitch = 128;
		c.WidthInBytes = 80;
		c.Height = 40;
		cuMemcpy2D_v2_params p = { &c };
		DRV(cuMemcpy2D_v2, &p, CUDA_SUCCESS, NULL, NULL);
		/* and back to host, hashed at exit */
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
		c.srcDevice = dptr;
		c.srcPitch = 128;
		c.dstMemoryType = CU_MEMORYTYPE_HOST;
		c.dstHost = back2d;
		c.dstPitch = 100;
		c.WidthInBytes = 80;
		c.Height = 40;
		DRV(cuMemcpy2D_v2, &p, CUDA_SUCCESS, NULL, NULL);
	}

	/* A non-blocking stream: a legacy sync does not complete its copy,
	 * cuStreamSynchronize does. */
	{
		cuStreamCreate_params p = { &ns, CU_STREAM_NON_BLOCKING };
		set[0] = (uintptr_t)&ns;
		set[1] = 0x7000;
		DRV(cuStreamCreate, &p, CUDA_SUCCESS, set_u64, set);
	}
	{
		cuMemcpyDtoHAsync_v2_params p = { d2h2, dptr, sizeof(d2h2), ns };
		cuMemcpyDtoH_v2_params q = { d2h3, dptr, sizeof(d2h3) };
		cuStreamSynchronize_params sy = { ns };
		DRV(cuMemcpyDtoHAsync_v2, &p, CUDA_SUCCESS, NULL, NULL);
		DRV(cuMemcpyDtoH_v2, &q, CUDA_SUCCESS, NULL, NULL);
		DRV(cuStreamSynchronize, &sy, CUDA_SUCCESS, NULL, NULL);
	}

	/* A texture object over an array. */
	{
		CUDA_RESOURCE_DESC rd;
		CUDA_TEXTURE_DESC td;
		memset(&rd, 0, sizeof(rd));
		memset(&td, 0, sizeof(td));
		rd.resType = CU_RESOURCE_TYPE_ARRAY;
		rd.res.array.hArray = (CUarray)0x8000;
		td.filterMode = CU_TR_FILTER_MODE_POINT;
		cuTexObjectCreate_params p = { &tex, &rd, &td, NULL };
		set[0] = (uintptr_t)&tex;
		set[1] = 77;
		DRV(cuTexObjectCreate, &p, CUDA_SUCCESS, set_u64, set);
	}

	/* A driver-API module from PTX, and a launch through "extra". */
	{
		cuModuleLoadData_params p = { &mod, ptx };
		cuModuleGetFunction_params g = { &fn, (CUmodule)0xc000, "k2" };
		static uint8_t argbuf[16];
		size_t argsize = sizeof(argbuf);
		void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, argbuf,
				  CU_LAUNCH_PARAM_BUFFER_SIZE, &argsize,
				  CU_LAUNCH_PARAM_END };
		synth_fill(argbuf, sizeof(argbuf), 17);
		set[0] = (uintptr_t)&mod;
		set[1] = 0xc000;
		DRV(cuModuleLoadData, &p, CUDA_SUCCESS, set_u64, set);
		set[0] = (uintptr_t)&fn;
		set[1] = 0xd000;
		DRV(cuModuleGetFunction, &g, CUDA_SUCCESS, set_u64, set);
		cuLaunchKernel_params l = { fn, 1, 1, 1, 32, 1, 1, 0, NULL, NULL,
					    extra };
		DRV(cuLaunchKernel, &l, CUDA_SUCCESS, NULL, NULL);
	}

	/* cuLaunchKernelEx with an attribute, a cooperative launch, and a
	 * context synchronization completing an async copy. */
	{
		CUlaunchAttribute attr[1];
		CUlaunchConfig cfg;
		memset(attr, 0, sizeof(attr));
		attr[0].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
		attr[0].value.cooperative = 1;
		memset(&cfg, 0, sizeof(cfg));
		cfg.gridDimX = 7;
		cfg.gridDimY = 1;
		cfg.gridDimZ = 1;
		cfg.blockDimX = 64;
		cfg.blockDimY = 1;
		cfg.blockDimZ = 1;
		cfg.sharedMemBytes = 65536;
		cfg.hStream = (CUstream)0x5000;
		cfg.attrs = attr;
		cfg.numAttrs = 1;
		cuLaunchKernelEx_params p = { &cfg, (CUfunction)kern, kparams, NULL };
		DRV(cuLaunchKernelEx, &p, CUDA_SUCCESS, NULL, NULL);
		cuLaunchCooperativeKernel_params c = { (CUfunction)kern, 2, 1, 1, 32,
						       1, 1, 0, NULL, kparams };
		DRV(cuLaunchCooperativeKernel, &c, CUDA_SUCCESS, NULL, NULL);
		cuMemcpyDtoHAsync_v2_params d = { d2h2, dptr, 32, (CUstream)0x5000 };
		DRV(cuMemcpyDtoHAsync_v2, &d, CUDA_SUCCESS, NULL, NULL);
		DRV(cuCtxSynchronize, NULL, CUDA_SUCCESS, NULL, NULL);
	}

	/*
	 * Results synchronized through events, the buffer reused right
	 * after (the hash must be the content at the first synchronization
	 * that covers the copy, not later): an event synchronization; a
	 * stream that waited for the copy's event, synchronized; an event
	 * recorded on the legacy stream after a copy on a blocking stream,
	 * queried complete; a query that says "not ready" completes nothing
	 * (the result lands later, then the event is synchronized). Each
	 * copy has its own size so that the test can tell them apart.
	 */
	{
		static uint8_t w[4][72];
		static const size_t sz[4] = { 40, 48, 56, 72 };
		CUstream s1 = (CUstream)0x5000, s2 = (CUstream)0x5200;
		cuMemcpyDtoHAsync_v2_params c;
		cuEventRecord_params r;
		cuEventSynchronize_params e;
		cuEventQuery_params q;
		cuStreamWaitEvent_params sw;
		cuStreamSynchronize_params sy;

		for (int i = 0; i < 4; i++) {
			synth_fill(w[i], sz[i], 40 + i);
		}
		c = (cuMemcpyDtoHAsync_v2_params){ w[0], dptr, sz[0], s1 };
		r = (cuEventRecord_params){ (CUevent)0x6100, s1 };
		e = (cuEventSynchronize_params){ (CUevent)0x6100 };
		DRV(cuMemcpyDtoHAsync_v2, &c, CUDA_SUCCESS, NULL, NULL);
		DRV(cuEventRecord, &r, CUDA_SUCCESS, NULL, NULL);
		DRV(cuEventSynchronize, &e, CUDA_SUCCESS, NULL, NULL);
		synth_fill(w[0], sz[0], 50);		/* reused */

		c = (cuMemcpyDtoHAsync_v2_params){ w[1], dptr, sz[1], s1 };
		r = (cuEventRecord_params){ (CUevent)0x6200, s1 };
		sw = (cuStreamWaitEvent_params){ s2, (CUevent)0x6200, 0 };
		sy = (cuStreamSynchronize_params){ s2 };
		DRV(cuMemcpyDtoHAsync_v2, &c, CUDA_SUCCESS, NULL, NULL);
		DRV(cuEventRecord, &r, CUDA_SUCCESS, NULL, NULL);
		DRV(cuStreamWaitEvent, &sw, CUDA_SUCCESS, NULL, NULL);
		DRV(cuStreamSynchronize, &sy, CUDA_SUCCESS, NULL, NULL);
		synth_fill(w[1], sz[1], 51);

		c = (cuMemcpyDtoHAsync_v2_params){ w[2], dptr, sz[2], s1 };
		r = (cuEventRecord_params){ (CUevent)0x6300, NULL };
		q = (cuEventQuery_params){ (CUevent)0x6300 };
		DRV(cuMemcpyDtoHAsync_v2, &c, CUDA_SUCCESS, NULL, NULL);
		DRV(cuEventRecord, &r, CUDA_SUCCESS, NULL, NULL);
		DRV(cuEventQuery, &q, CUDA_SUCCESS, NULL, NULL);
		synth_fill(w[2], sz[2], 52);

		c = (cuMemcpyDtoHAsync_v2_params){ w[3], dptr, sz[3], s1 };
		r = (cuEventRecord_params){ (CUevent)0x6400, s1 };
		q = (cuEventQuery_params){ (CUevent)0x6400 };
		e = (cuEventSynchronize_params){ (CUevent)0x6400 };
		DRV(cuMemcpyDtoHAsync_v2, &c, CUDA_SUCCESS, NULL, NULL);
		DRV(cuEventRecord, &r, CUDA_SUCCESS, NULL, NULL);
		DRV(cuEventQuery, &q, CUDA_ERROR_NOT_READY, NULL, NULL);
		synth_fill(w[3], sz[3], 53);		/* the copy lands */
		DRV(cuEventSynchronize, &e, CUDA_SUCCESS, NULL, NULL);
		synth_fill(w[3], sz[3], 54);
		DRV(cuCtxSynchronize, NULL, CUDA_SUCCESS, NULL, NULL);
	}

	/*
	 * Host functions: the driver calls what the parameters hold after
	 * the entry callback (here at once, as CUDA would later on a thread
	 * of its own): the program's function must run with its own
	 * argument; a stream callback gets its stream and status too. A
	 * third host function never runs (the program exits first).
	 */
	{
		cuLaunchHostFunc_params h = { (CUstream)0x5000, user_fn, &fn_arg };
		cuStreamAddCallback_params c = { (CUstream)0x5000, user_cb,
						 &cb_arg, 0 };
		cuLaunchHostFunc_params never = { NULL, user_fn, &fn_arg };
		cuMemcpyHtoD_v2_params m = { dptr, &seen, sizeof(seen) };
		cuMemcpyDtoHAsync_v2_params before = {
			hf_before, dptr, sizeof(hf_before), (CUstream)0x5000 };
		cuMemcpyDtoHAsync_v2_params after = {
			hf_after, dptr, sizeof(hf_after), (CUstream)0x5000 };
		cuStreamSynchronize_params sy = { (CUstream)0x5000 };
		synth_fill(hf_before, sizeof(hf_before), 60);
		synth_fill(hf_after, sizeof(hf_after), 61);
		DRV(cuMemcpyDtoHAsync_v2, &before, CUDA_SUCCESS, NULL, NULL);
		DRV(cuLaunchHostFunc, &h, CUDA_SUCCESS, NULL, NULL);
		DRV(cuMemcpyDtoHAsync_v2, &after, CUDA_SUCCESS, NULL, NULL);
		h.fn(h.userData);
		DRV(cuStreamSynchronize, &sy, CUDA_SUCCESS, NULL, NULL);
		DRV(cuStreamAddCallback, &c, CUDA_SUCCESS, NULL, NULL);
		c.callback(c.hStream, CUDA_ERROR_NOT_READY, c.userData);
		DRV(cuLaunchHostFunc, &never, CUDA_SUCCESS, NULL, NULL);
		DRV(cuMemcpyHtoD_v2, &m, CUDA_SUCCESS, NULL, NULL);
	}

	/*
	 * A memory pool with a release threshold, an allocation from it
	 * and its free, a trim.
	 */
	{
		CUmemPoolProps props;
		CUmemoryPool pool = 0;
		CUdeviceptr pd = 0;
		cuuint64_t thr = 64ull << 20;
		int reuse = 0;
		memset(&props, 0, sizeof(props));
		props.allocType = CU_MEM_ALLOCATION_TYPE_PINNED;
		props.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		props.location.id = 0;
		cuMemPoolCreate_params pc = { &pool, &props };
		set[0] = (uintptr_t)&pool;
		set[1] = 0xe000;
		DRV(cuMemPoolCreate, &pc, CUDA_SUCCESS, set_u64, set);
		cuMemPoolSetAttribute_params a1 = {
			pool, CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, &thr };
		cuMemPoolSetAttribute_params a2 = {
			pool, CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC, &reuse };
		DRV(cuMemPoolSetAttribute, &a1, CUDA_SUCCESS, NULL, NULL);
		DRV(cuMemPoolSetAttribute, &a2, CUDA_SUCCESS, NULL, NULL);
		cuMemAllocFromPoolAsync_params al = { &pd, 8192, pool,
						      (CUstream)0x5000 };
		set[0] = (uintptr_t)&pd;
		set[1] = 0x7f0000100000ull;
		DRV(cuMemAllocFromPoolAsync, &al, CUDA_SUCCESS, set_u64, set);
		cuMemFreeAsync_params fr = { pd, (CUstream)0x5000 };
		cuMemPoolTrimTo_params tr = { pool, 0 };
		cuMemPoolDestroy_params de = { pool };
		DRV(cuMemFreeAsync, &fr, CUDA_SUCCESS, NULL, NULL);
		DRV(cuMemPoolTrimTo, &tr, CUDA_SUCCESS, NULL, NULL);
		DRV(cuMemPoolDestroy, &de, CUDA_SUCCESS, NULL, NULL);
	}

	/*
	 * Virtual memory management: a granularity query (and the multicast
	 * one), a reservation, a physical allocation with its properties,
	 * its mapping, access, and the way back.
	 */
	{
		CUmemAllocationProp prop;
		CUmemAccessDesc acc;
		CUmemGenericAllocationHandle mh = 0;
		CUdeviceptr va = 0;
		size_t gran = 0;
		memset(&prop, 0, sizeof(prop));
		prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
		prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
		prop.location.id = 0;
		prop.requestedHandleTypes = CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR;
		memset(&acc, 0, sizeof(acc));
		acc.location = prop.location;
		acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
		cuMemGetAllocationGranularity_params gq = {
			&gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM };
		DRV(cuMemGetAllocationGranularity, &gq, CUDA_SUCCESS, NULL, NULL);
		DRV(cuMulticastGetGranularity, NULL, CUDA_SUCCESS, NULL, NULL);
		cuMemAddressReserve_params rs = { &va, 8u << 20, 0, 0, 0 };
		set[0] = (uintptr_t)&va;
		set[1] = 0x7f0040000000ull;
		DRV(cuMemAddressReserve, &rs, CUDA_SUCCESS, set_u64, set);
		cuMemCreate_params cr = { &mh, 2u << 20, &prop, 0 };
		set[0] = (uintptr_t)&mh;
		set[1] = 0xd001;
		DRV(cuMemCreate, &cr, CUDA_SUCCESS, set_u64, set);
		cuMemMap_params mp = { va, 2u << 20, 0, mh, 0 };
		DRV(cuMemMap, &mp, CUDA_SUCCESS, NULL, NULL);
		cuMemSetAccess_params ac = { va, 2u << 20, &acc, 1 };
		DRV(cuMemSetAccess, &ac, CUDA_SUCCESS, NULL, NULL);
		cuMemUnmap_params um = { va, 2u << 20 };
		DRV(cuMemUnmap, &um, CUDA_SUCCESS, NULL, NULL);
		cuMemRelease_params rl = { mh };
		DRV(cuMemRelease, &rl, CUDA_SUCCESS, NULL, NULL);
		cuMemAddressFree_params fr = { va, 8u << 20 };
		DRV(cuMemAddressFree, &fr, CUDA_SUCCESS, NULL, NULL);
	}

	/*
	 * Generic node creation (cuGraphAddNode_v2): an empty node is
	 * recorded as cuGraphAddEmptyNode; a conditional node is
	 * unsupported, by name; a node after a programmatic edge and a plain
	 * one is recorded after the plain one, its programmatic edge as the
	 * cuGraphAddDependencies_v2 that adds it.
	 */
	{
		CUgraphNodeParams np;
		CUgraphEdgeData ed;
		CUgraphNode node = 0, dep = (CUgraphNode)0xa71;
		memset(&np, 0, sizeof(np));
		np.type = CU_GRAPH_NODE_TYPE_EMPTY;
		cuGraphAddNode_v2_params gn = { &node, (CUgraph)0xa70, NULL,
						NULL, 0, &np };
		set[0] = (uintptr_t)&node;
		set[1] = 0xa72;
		DRV(cuGraphAddNode_v2, &gn, CUDA_SUCCESS, set_u64, set);
		np.type = CU_GRAPH_NODE_TYPE_CONDITIONAL;
		DRV(cuGraphAddNode_v2, &gn, CUDA_SUCCESS, NULL, NULL);
		np.type = CU_GRAPH_NODE_TYPE_EMPTY;
		CUgraphNode deps2[2] = { dep, (CUgraphNode)0xa74 };
		CUgraphEdgeData ed2[2];
		memset(ed2, 0, sizeof(ed2));
		ed2[0].type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
		ed2[0].from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
		gn.dependencies = deps2;
		gn.dependencyData = ed2;
		gn.numDependencies = 2;
		set[1] = 0xa73;
		DRV(cuGraphAddNode_v2, &gn, CUDA_SUCCESS, set_u64, set);
		(void)ed;
		/* The first form has no edge data: one plain dependency. */
		cuGraphAddNode_params g1 = { &node, (CUgraph)0xa70, &dep, 1,
					     &np };
		set[1] = 0xa75;
		DRV(cuGraphAddNode, &g1, CUDA_SUCCESS, set_u64, set);
	}

	/* A failing runtime call is recorded with its error. */
	rt_enter(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, "cudaMalloc_v3020");
	{
		CUdeviceptr none = 0;
		cuMemAlloc_v2_params p = { &none, (size_t)1 << 50 };
		DRV(cuMemAlloc_v2, &p, CUDA_ERROR_OUT_OF_MEMORY, NULL, NULL);
	}
	rt_exit(CUPTI_RUNTIME_TRACE_CBID_cudaMalloc_v3020, 2);

	/*
	 * A stream capture of a copy back (nothing arrives then: the sync
	 * inside the capture's life hashes nothing), the graph launched
	 * twice, each launch's result hashed at the sync after it, as the
	 * "GPU" wrote it.
	 */
	{
		static uint8_t gbuf[88];	/* a size no other copy has */
		CUstream gs = (CUstream)0x5400;
		CUgraph g = 0;
		CUgraphExec x = 0;
		cuStreamBeginCapture_v2_params b = { gs, CU_STREAM_CAPTURE_MODE_GLOBAL };
		cuMemcpyDtoHAsync_v2_params d = { gbuf, dptr, sizeof(gbuf), gs };
		cuStreamEndCapture_params e = { gs, &g };
		cuGraphInstantiateWithFlags_params in = { &x, (CUgraph)0x6600, 0 };
		cuGraphLaunch_params l = { (CUgraphExec)0x6700, gs };
		cuStreamSynchronize_params sy = { gs };

		DRV(cuStreamBeginCapture_v2, &b, CUDA_SUCCESS, NULL, NULL);
		DRV(cuMemcpyDtoHAsync_v2, &d, CUDA_SUCCESS, NULL, NULL);
		set[0] = (uintptr_t)&g;
		set[1] = 0x6600;
		DRV(cuStreamEndCapture, &e, CUDA_SUCCESS, set_u64, set);
		set[0] = (uintptr_t)&x;
		set[1] = 0x6700;
		DRV(cuGraphInstantiateWithFlags, &in, CUDA_SUCCESS, set_u64, set);
		for (unsigned k = 0; k < 2; k++) {
			DRV(cuGraphLaunch, &l, CUDA_SUCCESS, NULL, NULL);
			synth_fill(gbuf, sizeof(gbuf), 40 + k);
			DRV(cuStreamSynchronize, &sy, CUDA_SUCCESS, NULL, NULL);
		}
	}
	/* An explicit graph: a copy node, then an event record node; the
	 * event's synchronization delivers the copy. */
	{
		static uint8_t gbuf2[104];
		CUgraph g = 0;
		CUgraphNode n = 0, n2 = 0;
		CUgraphExec x = 0;
		CUDA_MEMCPY3D cp;
		cuGraphCreate_params c = { &g, 0 };
		cuGraphAddMemcpyNode_params m = { &n, (CUgraph)0x6800, NULL, 0,
						  &cp, NULL };
		cuGraphAddEventRecordNode_params e = { &n2, (CUgraph)0x6800,
						       (CUgraphNode *)&n, 1,
						       (CUevent)0x6900 };
		cuGraphInstantiateWithFlags_params in = { &x, (CUgraph)0x6800, 0 };
		cuGraphLaunch_params l = { (CUgraphExec)0x6a00, (CUstream)0x5400 };
		cuEventSynchronize_params es = { (CUevent)0x6900 };

		memset(&cp, 0, sizeof(cp));
		cp.srcMemoryType = CU_MEMORYTYPE_DEVICE;
		cp.srcDevice = dptr;
		cp.dstMemoryType = CU_MEMORYTYPE_HOST;
		cp.dstHost = gbuf2;
		cp.WidthInBytes = sizeof(gbuf2);
		cp.Height = cp.Depth = 1;
		set[0] = (uintptr_t)&g;
		set[1] = 0x6800;
		DRV(cuGraphCreate, &c, CUDA_SUCCESS, set_u64, set);
		set[0] = (uintptr_t)&n;
		set[1] = 0x6810;
		DRV(cuGraphAddMemcpyNode, &m, CUDA_SUCCESS, set_u64, set);
		set[0] = (uintptr_t)&n2;
		set[1] = 0x6820;
		DRV(cuGraphAddEventRecordNode, &e, CUDA_SUCCESS, set_u64, set);
		set[0] = (uintptr_t)&x;
		set[1] = 0x6a00;
		DRV(cuGraphInstantiateWithFlags, &in, CUDA_SUCCESS, set_u64, set);
		DRV(cuGraphLaunch, &l, CUDA_SUCCESS, NULL, NULL);
		synth_fill(gbuf2, sizeof(gbuf2), 50);
		DRV(cuEventSynchronize, &es, CUDA_SUCCESS, NULL, NULL);

		/* A copy node from the host: launched as made, then after
		 * the program changed its source (reported: the replay has
		 * the content of when the node was made). */
		{
			static uint8_t hsrc[24];
			CUgraphNode n3 = 0;
			cuGraphAddMemcpyNode_params m2 = {
				&n3, (CUgraph)0x6800, NULL, 0, &cp, NULL
			};
			memset(&cp, 0, sizeof(cp));
			cp.srcMemoryType = CU_MEMORYTYPE_HOST;
			cp.srcHost = hsrc;
			cp.dstMemoryType = CU_MEMORYTYPE_DEVICE;
			cp.dstDevice = dptr;
			cp.WidthInBytes = sizeof(hsrc);
			cp.Height = cp.Depth = 1;
			synth_fill(hsrc, sizeof(hsrc), 60);
			set[0] = (uintptr_t)&n3;
			set[1] = 0x6830;
			DRV(cuGraphAddMemcpyNode, &m2, CUDA_SUCCESS, set_u64, set);
			set[0] = (uintptr_t)&x;
			set[1] = 0x6b00;
			in.phGraphExec = &x;
			DRV(cuGraphInstantiateWithFlags, &in, CUDA_SUCCESS,
			    set_u64, set);
			l.hGraph = (CUgraphExec)0x6b00;
			DRV(cuGraphLaunch, &l, CUDA_SUCCESS, NULL, NULL);
			DRV(cuEventSynchronize, &es, CUDA_SUCCESS, NULL, NULL);
			hsrc[3] ^= 1;
			DRV(cuGraphLaunch, &l, CUDA_SUCCESS, NULL, NULL);
			DRV(cuEventSynchronize, &es, CUDA_SUCCESS, NULL, NULL);
		}
	}

	/* What the replay could not rebuild, reported at capture: a kernel
	 * node changed through a handle no recorded call made (a node of a
	 * captured graph found by cuGraphGetNodes), a memset node of 8-byte
	 * elements. */
	{
		cuGraphExecKernelNodeSetParams_v2_params k = {
			(CUgraphExec)0x6a00, (CUgraphNode)0x7777, NULL
		};
		CUDA_MEMSET_NODE_PARAMS mp;
		CUgraphNode n = 0;
		cuGraphAddMemsetNode_params m = { &n, (CUgraph)0x6800, NULL, 0,
						  &mp, NULL };

		memset(&mp, 0, sizeof(mp));
		mp.dst = dptr;
		mp.elementSize = 8;
		mp.width = 4;
		mp.height = 1;
		DRV(cuGraphExecKernelNodeSetParams_v2, &k, CUDA_SUCCESS, NULL,
		    NULL);
		DRV(cuGraphAddMemsetNode, &m, CUDA_SUCCESS, NULL, NULL);
	}

	/* Results into pages never touched, written, and a quarter written
	 * (the capture notes which were resident: GM_RF_HOST_WARM). */
	{
		size_t n = 16 * 4096;
		uint8_t *fresh = mmap(NULL, n, PROT_READ | PROT_WRITE,
				      MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint8_t *warm = mmap(NULL, n, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		uint8_t *part = mmap(NULL, n, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (fresh == MAP_FAILED || warm == MAP_FAILED ||
		    part == MAP_FAILED) {
			return 1;
		}
		memset(warm, 1, n);
		memset(part, 1, n / 4);
		cuMemcpyDtoH_v2_params f = { fresh, dptr, n };
		cuMemcpyDtoH_v2_params w = { warm + 100, dptr, n - 200 };
		cuMemcpyDtoH_v2_params q = { part, dptr, n };
		DRV(cuMemcpyDtoH_v2, &f, CUDA_SUCCESS, NULL, NULL);
		DRV(cuMemcpyDtoH_v2, &w, CUDA_SUCCESS, NULL, NULL);
		DRV(cuMemcpyDtoH_v2, &q, CUDA_SUCCESS, NULL, NULL);
	}

	/* An unsupported call, and an async copy never synchronized. */
	DRV(cuGraphicsMapResources, NULL, CUDA_SUCCESS, NULL, NULL);
	{
		cuMemcpyDtoHAsync_v2_params p = { d2h3, dptr, 64, NULL };
		DRV(cuMemcpyDtoHAsync_v2, &p, CUDA_SUCCESS, NULL, NULL);
	}
	gm_capture_test_exit();
	free(wrapper);
	free(extra_img);
	printf("cupti_emitter: ok\n");
	return 0;
}
