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
 *     XLA's Trace does): a kernel and a copy back;
 *   - an outer graph of generic nodes (cuGraphAddNode_v2): a kernel, the
 *     traced graph as a child, a device-to-host copy, an empty node, each
 *     after the one before;
 *   - programmatic dependent launch: a second kernel node after the first
 *     by a programmatic edge (cuGraphAddNode_v2's edge data), a copy back
 *     after it, a third kernel node after the second by a launch-order
 *     edge (cuGraphAddDependencies_v2's edge data), and a trace into the
 *     outer graph after the third by a programmatic edge
 *     (cuStreamBeginCaptureToGraph's edge data): a kernel;
 *   - a second trace into the outer graph after its empty node (one
 *     dependency): a memset and a copy back;
 *   - the outer graph launched once per round after an ordinary kernel
 *     changed its input, the second kernel node's multiplier changed in
 *     the executable graph before each launch
 *     (cuGraphExecKernelNodeSetParams_v2), and before the last round the
 *     child node given a newly traced graph of the same shape that copies
 *     back elsewhere with another multiplier
 *     (cuGraphExecChildGraphNodeSetParams); each round synchronized and
 *     checked, the third kernel's count read back at the end.
 *
 *   cmdbuf-emitter
 *
 * Prints "cmdbuf-emitter: ok" when the program's own checks of its
 * results passed (the mock computed them).
 */
#include "mock_call.h"

#define N 1024u
#define MUL 5u
#define MUL2 11u	/* the child graph's after its update */
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

/* cuStreamBeginCaptureToGraph of @s into @g after @dep (or none), by an
 * edge of @ed (NULL: plain). */
static void trace_begin_edge(CUstream s, CUgraph g, CUgraphNode *dep,
			     const CUgraphEdgeData *ed)
{
	cuStreamBeginCaptureToGraph_params p = {
		s, g, dep, ed, dep ? 1 : 0,
		CU_STREAM_CAPTURE_MODE_THREAD_LOCAL };

	MOCK_CALL(cuStreamBeginCaptureToGraph, &p,
		  cuStreamBeginCaptureToGraph(s, g, p.dependencies, ed,
					      p.numDependencies, p.mode));
}

static void trace_begin(CUstream s, CUgraph g, CUgraphNode *dep)
{
	trace_begin_edge(s, g, dep, NULL);
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

/* cuGraphAddNode_v2 of @np in @g after @dep by an edge of @ed. */
static CUgraphNode add_node_edge(CUgraph g, CUgraphNode *dep,
				 const CUgraphEdgeData *ed,
				 CUgraphNodeParams *np)
{
	CUgraphNode n = NULL;
	cuGraphAddNode_v2_params p = { &n, g, dep, ed, 1, np };

	MOCK_CALL(cuGraphAddNode_v2, &p,
		  cuGraphAddNode(&n, g, dep, ed, 1, np));
	return n;
}

/* A kernel node's parameters: @k over N words with @args. */
static void kernel_params(CUgraphNodeParams *np, CUkernel k, void **args)
{
	memset(np, 0, sizeof(*np));
	np->type = CU_GRAPH_NODE_TYPE_KERNEL;
	np->kernel.kern = k;
	np->kernel.gridDimX = (N + 127) / 128;
	np->kernel.gridDimY = np->kernel.gridDimZ = 1;
	np->kernel.blockDimX = 128;
	np->kernel.blockDimY = np->kernel.blockDimZ = 1;
	np->kernel.kernelParams = args;
}

static void launch(CUkernel k, void **args, CUstream s)
{
	cuLaunchKernel_params p = { (CUfunction)k, (N + 127) / 128, 1, 1,
				    128, 1, 1, 0, s, args, NULL };

	MOCK_CALL(cuLaunchKernel, &p,
		  cuLaunchKernel(p.f, p.gridDimX, 1, 1, p.blockDimX, 1, 1, 0,
				 p.hStream, p.kernelParams, NULL));
}

/* cuMemcpyDtoHAsync of @n bytes from @src to @dst on @s. */
static void copy_back(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	cuMemcpyDtoHAsync_v2_params p = { dst, src, n, s };

	MOCK_CALL(cuMemcpyDtoHAsync_v2, &p, cuMemcpyDtoHAsync(dst, src, n, s));
}

/* cuMemcpyHtoDAsync of @n bytes from @src to @dst on @s. */
static void copy_in(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	cuMemcpyHtoDAsync_v2_params p = { dst, src, n, s };

	MOCK_CALL(cuMemcpyHtoDAsync_v2, &p, cuMemcpyHtoDAsync(dst, src, n, s));
}

/* A command buffer traced into a new graph: scale din by *@mul into
 * dout (@sargs), and copy dout back to @back. */
static CUgraph trace_body(CUkernel scale, void **sargs, CUdeviceptr dout,
			  unsigned *back, CUstream s)
{
	CUgraph g = graph_create();

	trace_begin(s, g, NULL);
	launch(scale, sargs, s);
	copy_back(back, dout, N * 4, s);
	trace_end(s, g);
	return g;
}

/* The whole program but the set-up: 0, or the number of wrong words. */
static int command_buffers(CUkernel scale, CUkernel incr, CUstream s)
{
	CUdeviceptr din = alloc(N * 4), dout = alloc(N * 4), dfill = alloc(N * 4),
		    dsrc = alloc(N * 4), dk2 = alloc(N * 4), dcnt = alloc(N * 4),
		    dcnt2 = alloc(N * 4);
	unsigned *in = pinned(N * 4), *out = pinned(N * 4),
		 *fill = pinned(N * 4), *outa = pinned(N * 4),
		 *outb = pinned(N * 4), *k2out = pinned(N * 4),
		 *cnt = pinned(N * 4), *cnt2 = pinned(N * 4);
	unsigned mul = MUL, kmul = 1, n = N;
	void *sargs[5] = { &dout, &din, &mul, &n, NULL };
	void *kargs[5] = { &dk2, &dsrc, &kmul, &n, NULL };
	struct span sp = { (unsigned *)(uintptr_t)din, N };
	struct span cp = { (unsigned *)(uintptr_t)dcnt, N };
	struct span cp2 = { (unsigned *)(uintptr_t)dcnt2, N };
	void *iargs[2] = { &sp, NULL };
	void *cargs[2] = { &cp, NULL };
	void *c2args[2] = { &cp2, NULL };
	CUgraph body, body2, outer;
	CUgraphNodeParams np;
	CUgraphNode k, k2, k3, child, copy, empty;
	CUgraphEdgeData ed;
	CUgraphExec e = NULL;
	int bad = 0;

	for (unsigned i = 0; i < N; i++) {
		in[i] = 7 * i;
		k2out[i] = 3 * i;
		cnt[i] = 0;
	}
	copy_in(din, in, N * 4, s);
	copy_in(dsrc, k2out, N * 4, s);
	copy_in(dcnt, cnt, N * 4, s);
	copy_in(dcnt2, cnt, N * 4, s);
	/* The traced command buffer: a kernel, a copy back. */
	body = trace_body(scale, sargs, dout, outa, s);

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

	/* Programmatic dependent launch, as XLA's kernel nodes: the second
	 * kernel reads nothing the first writes (a programmatic edge makes
	 * no memory visible), and the third counts launches. */
	memset(&ed, 0, sizeof(ed));
	ed.type = CU_GRAPH_DEPENDENCY_TYPE_PROGRAMMATIC;
	ed.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
	kernel_params(&np, scale, kargs);
	k2 = add_node_edge(outer, &k, &ed, &np);
	memset(&np, 0, sizeof(np));
	np.type = CU_GRAPH_NODE_TYPE_MEMCPY;
	np.memcpy.copyParams.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	np.memcpy.copyParams.srcDevice = dk2;
	np.memcpy.copyParams.dstMemoryType = CU_MEMORYTYPE_HOST;
	np.memcpy.copyParams.dstHost = k2out;
	np.memcpy.copyParams.WidthInBytes = N * 4;
	np.memcpy.copyParams.Height = 1;
	np.memcpy.copyParams.Depth = 1;
	add_node(outer, &k2, &np);
	kernel_params(&np, incr, cargs);
	k3 = add_node(outer, NULL, &np);
	ed.from_port = CU_GRAPH_KERNEL_NODE_PORT_LAUNCH_ORDER;
	{
		cuGraphAddDependencies_v2_params p = { outer, &k2, &k3, &ed, 1 };
		MOCK_CALL(cuGraphAddDependencies_v2, &p,
			  cuGraphAddDependencies(outer, &k2, &k3, &ed, 1));
	}
	ed.from_port = CU_GRAPH_KERNEL_NODE_PORT_PROGRAMMATIC;
	trace_begin_edge(s, outer, &k3, &ed);
	launch(incr, c2args, s);
	trace_end(s, outer);

	/* A second trace, into the outer graph after its empty node. */
	trace_begin(s, outer, &empty);
	{
		cuMemsetD32Async_params p = { dfill, FILL, N, s };
		MOCK_CALL(cuMemsetD32Async, &p,
			  cuMemsetD32Async(dfill, FILL, N, s));
	}
	copy_back(fill, dfill, N * 4, s);
	trace_end(s, outer);

	{
		cuGraphInstantiateWithFlags_params p = { &e, outer, 0 };
		MOCK_CALL(cuGraphInstantiateWithFlags, &p,
			  cuGraphInstantiateWithFlags(&e, outer, 0));
	}
	for (unsigned r = 0; r < ROUNDS; r++) {
		int last = r == ROUNDS - 1;
		if (last) {
			/* XLA's nested command buffer, traced again. */
			mul = MUL2;
			body2 = trace_body(scale, sargs, dout, outb, s);
			cuGraphExecChildGraphNodeSetParams_params p = {
				e, child, body2 };
			MOCK_CALL(cuGraphExecChildGraphNodeSetParams, &p,
				  cuGraphExecChildGraphNodeSetParams(e, child,
								     body2));
		}
		launch(incr, iargs, s);
		kmul = r + 2;
		kernel_params(&np, scale, kargs);
		{
			cuGraphExecKernelNodeSetParams_v2_params p = {
				e, k2, (CUDA_KERNEL_NODE_PARAMS *)&np.kernel };
			MOCK_CALL(cuGraphExecKernelNodeSetParams_v2, &p,
				  cuGraphExecKernelNodeSetParams(e, k2,
								 p.nodeParams));
		}
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
			unsigned want = (7 * i + 2 * (r + 1)) * (last ? MUL2 : MUL);
			bad += out[i] != want;
			bad += (last ? outb : outa)[i] != want;
			bad += fill[i] != FILL;
			bad += k2out[i] != 3 * i * (r + 2);
		}
		memset(fill, 0, N * 4);
	}
	copy_back(cnt, dcnt, N * 4, s);
	copy_back(cnt2, dcnt2, N * 4, s);
	{
		cuStreamSynchronize_params p = { s };
		MOCK_CALL(cuStreamSynchronize, &p, cuStreamSynchronize(s));
	}
	for (unsigned i = 0; i < N; i++) {
		bad += cnt[i] != ROUNDS;
		bad += cnt2[i] != ROUNDS;
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
