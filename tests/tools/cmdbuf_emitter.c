/* SPDX-License-Identifier: MIT */
/*
 * cmdbuf-emitter: CUDA graphs as XLA's command buffers (JAX) build
 * them, on the mock CUDA driver (tests/mock/) under `gpumix capture`,
 * through the real CUPTI subscriber of libgpumix-capture.so
 * (tests/tools/mock_call.h). Every driver call really runs on the mock,
 * so the bundle holds what a GPU capture of the same calls would, and its
 * replay on the mock must verify:
 *
 *   - a graph the program made (cuGraphCreate), filled by tracing a
 *     stream into it (cuStreamBeginCaptureToGraph, no dependencies, as
 *     XLA's Trace does): a kernel;
 *   - an outer graph of generic nodes (cuGraphAddNode_v2): a kernel, the
 *     traced graph as a child, a device-to-host copy, an empty node, each
 *     after the one before;
 *   - a second trace into the outer graph after its empty node (one
 *     dependency): a memset and a copy back;
 *   - the outer graph launched once per round after an ordinary kernel
 *     changed its input, each round synchronized and checked.
 *
 *   cmdbuf-emitter
 *
 * Prints "cmdbuf-emitter: ok" when the program's own checks of its
 * results passed (the mock computed them).
 */
#include "mock_call.h"

#define N 1024u
#define MUL 5u
#define ROUNDS 3u
#define FILL 0x5a5a5a5au

const char *mock_call_prog = "cmdbuf-emitter";
uint32_t mock_call_corr = 9000;
uint64_t mock_call_data;

/* The module: the mock runs its kernels by name, whatever the image. */
static const char ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry _Z5scalePjPKjjj(.param .u64 a, .param .u64 b,\n"
	"\t.param .u32 c, .param .u32 d)\n{\n\tret;\n}\n"
	".visible .entry _Z4incr4span(.param .align 8 .b8 s[16])\n"
	"{\n\tret;\n}\n";

struct span {
	unsigned *p;
	unsigned long long n;
};

static CUdeviceptr alloc(size_t n)
{
	CUdeviceptr d = 0;
	cuMemAlloc_v2_params p = { &d, n };

	MOCK_CALL(cuMemAlloc_v2, &p, cuMemAlloc(&d, n));
	return d;
}

static void *pinned(size_t n)
{
	void *h = NULL;
	cuMemAllocHost_v2_params p = { &h, n };

	MOCK_CALL(cuMemAllocHost_v2, &p, cuMemAllocHost(&h, n));
	return h;
}

static CUgraph graph_create(void)
{
	CUgraph g = NULL;
	cuGraphCreate_params p = { &g, 0 };

	MOCK_CALL(cuGraphCreate, &p, cuGraphCreate(&g, 0));
	return g;
}

/* cuStreamBeginCaptureToGraph of @s into @g after @dep (or none). */
static void trace_begin(CUstream s, CUgraph g, CUgraphNode *dep)
{
	cuStreamBeginCaptureToGraph_params p = {
		s, g, dep, NULL, dep ? 1 : 0,
		CU_STREAM_CAPTURE_MODE_THREAD_LOCAL };

	MOCK_CALL(cuStreamBeginCaptureToGraph, &p,
		  cuStreamBeginCaptureToGraph(s, g, p.dependencies, NULL,
					      p.numDependencies, p.mode));
}

static void trace_end(CUstream s, CUgraph g)
{
	CUgraph got = NULL;
	cuStreamEndCapture_params p = { s, &got };

	MOCK_CALL(cuStreamEndCapture, &p, cuStreamEndCapture(s, &got));
	if (got != g) {
		fprintf(stderr, "cmdbuf-emitter: the trace made another "
			"graph\n");
		exit(2);
	}
}

/* cuGraphAddNode_v2 of @np in @g after @dep (or none). */
static CUgraphNode add_node(CUgraph g, CUgraphNode *dep, CUgraphNodeParams *np)
{
	CUgraphNode n = NULL;
	cuGraphAddNode_v2_params p = { &n, g, dep, NULL, dep ? 1 : 0, np };

	MOCK_CALL(cuGraphAddNode_v2, &p,
		  cuGraphAddNode(&n, g, p.dependencies, NULL,
				 p.numDependencies, np));
	return n;
}

static void launch(CUkernel k, void **args, CUstream s)
{
	cuLaunchKernel_params p = { (CUfunction)k, (N + 127) / 128, 1, 1,
				    128, 1, 1, 0, s, args, NULL };

	MOCK_CALL(cuLaunchKernel, &p,
		  cuLaunchKernel(p.f, p.gridDimX, 1, 1, p.blockDimX, 1, 1, 0,
				 p.hStream, p.kernelParams, NULL));
}

/* The whole program but the set-up: 0, or the number of wrong words. */
static int command_buffers(CUkernel scale, CUkernel incr, CUstream s)
{
	CUdeviceptr din = alloc(N * 4), dout = alloc(N * 4), dfill = alloc(N * 4);
	unsigned *in = pinned(N * 4), *out = pinned(N * 4),
		 *fill = pinned(N * 4);
	unsigned mul = MUL, n = N;
	void *sargs[5] = { &dout, &din, &mul, &n, NULL };
	struct span sp = { (unsigned *)(uintptr_t)din, N };
	void *iargs[2] = { &sp, NULL };
	CUgraph body = graph_create(), outer;
	CUgraphNodeParams np;
	CUgraphNode k, child, copy, empty;
	CUgraphExec e = NULL;
	int bad = 0;

	for (unsigned i = 0; i < N; i++) {
		in[i] = 7 * i;
	}
	{
		cuMemcpyHtoDAsync_v2_params p = { din, in, N * 4, s };
		MOCK_CALL(cuMemcpyHtoDAsync_v2, &p,
			  cuMemcpyHtoDAsync(din, in, N * 4, s));
	}
	/* The traced command buffer: one kernel. */
	trace_begin(s, body, NULL);
	launch(scale, sargs, s);
	trace_end(s, body);

	/* The outer one, of generic nodes. */
	outer = graph_create();
	memset(&np, 0, sizeof(np));
	np.type = CU_GRAPH_NODE_TYPE_KERNEL;
	np.kernel.kern = incr;
	np.kernel.gridDimX = (N + 127) / 128;
	np.kernel.gridDimY = np.kernel.gridDimZ = 1;
	np.kernel.blockDimX = 128;
	np.kernel.blockDimY = np.kernel.blockDimZ = 1;
	np.kernel.kernelParams = iargs;
	k = add_node(outer, NULL, &np);
	memset(&np, 0, sizeof(np));
	np.type = CU_GRAPH_NODE_TYPE_GRAPH;
	np.graph.graph = body;
	child = add_node(outer, &k, &np);
	memset(&np, 0, sizeof(np));
	np.type = CU_GRAPH_NODE_TYPE_MEMCPY;
	np.memcpy.copyParams.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	np.memcpy.copyParams.srcDevice = dout;
	np.memcpy.copyParams.dstMemoryType = CU_MEMORYTYPE_HOST;
	np.memcpy.copyParams.dstHost = out;
	np.memcpy.copyParams.WidthInBytes = N * 4;
	np.memcpy.copyParams.Height = 1;
	np.memcpy.copyParams.Depth = 1;
	copy = add_node(outer, &child, &np);
	memset(&np, 0, sizeof(np));
	np.type = CU_GRAPH_NODE_TYPE_EMPTY;
	empty = add_node(outer, &copy, &np);

	/* A second trace, into the outer graph after its empty node. */
	trace_begin(s, outer, &empty);
	{
		cuMemsetD32Async_params p = { dfill, FILL, N, s };
		MOCK_CALL(cuMemsetD32Async, &p,
			  cuMemsetD32Async(dfill, FILL, N, s));
	}
	{
		cuMemcpyDtoHAsync_v2_params p = { fill, dfill, N * 4, s };
		MOCK_CALL(cuMemcpyDtoHAsync_v2, &p,
			  cuMemcpyDtoHAsync(fill, dfill, N * 4, s));
	}
	trace_end(s, outer);

	{
		cuGraphInstantiateWithFlags_params p = { &e, outer, 0 };
		MOCK_CALL(cuGraphInstantiateWithFlags, &p,
			  cuGraphInstantiateWithFlags(&e, outer, 0));
	}
	for (unsigned r = 0; r < ROUNDS; r++) {
		launch(incr, iargs, s);
		{
			cuGraphLaunch_params p = { e, s };
			MOCK_CALL(cuGraphLaunch, &p, cuGraphLaunch(e, s));
		}
		{
			cuStreamSynchronize_params p = { s };
			MOCK_CALL(cuStreamSynchronize, &p,
				  cuStreamSynchronize(s));
		}
		/* Incremented twice per round: before, and by the graph. */
		for (unsigned i = 0; i < N; i++) {
			bad += out[i] != (7 * i + 2 * (r + 1)) * MUL;
			bad += fill[i] != FILL;
		}
		memset(fill, 0, N * 4);
	}
	return bad;
}

int main(int argc, char **argv)
{
	CUcontext ctx = NULL;
	CUlibrary lib = NULL;
	CUkernel scale, incr;
	CUstream s = NULL;
	int bad;

	(void)argv;
	if (argc > 1) {
		fprintf(stderr, "usage: cmdbuf-emitter\n");
		return 2;
	}
	if (gm_capture_test_init()) {
		fprintf(stderr, "cmdbuf-emitter: not under gpumix capture\n");
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
		cuLibraryLoadData_params p = { &lib, ptx, NULL, NULL, 0,
					       NULL, NULL, 0 };
		MOCK_CALL(cuLibraryLoadData, &p,
			  cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL,
					    NULL, 0));
	}
	{
		cuLibraryGetKernel_params p = { &scale, lib, "_Z5scalePjPKjjj" };
		MOCK_CALL(cuLibraryGetKernel, &p,
			  cuLibraryGetKernel(&scale, lib, p.name));
	}
	{
		cuLibraryGetKernel_params p = { &incr, lib, "_Z4incr4span" };
		MOCK_CALL(cuLibraryGetKernel, &p,
			  cuLibraryGetKernel(&incr, lib, p.name));
	}
	{
		cuStreamCreate_params p = { &s, CU_STREAM_NON_BLOCKING };
		MOCK_CALL(cuStreamCreate, &p,
			  cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	}
	bad = command_buffers(scale, incr, s);
	gm_capture_test_exit();
	if (bad) {
		fprintf(stderr, "cmdbuf-emitter: %d wrong results\n", bad);
		return 1;
	}
	printf("cmdbuf-emitter: ok\n");
	return 0;
}
