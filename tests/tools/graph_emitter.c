/* SPDX-License-Identifier: MIT */
/*
 * graph-emitter: CUDA graphs as public programs use them, on the mock CUDA
 * driver (tests/mock/) under `gpumix capture`, through the real CUPTI
 * subscriber of libgpumix-capture.so (tests/tools/mock_call.h). Every
 * driver call really runs on the mock, whose kernels compute the results
 * on the host, so the bundle holds what a GPU capture of the same calls
 * would, and its replay on the mock must verify:
 *
 *   - a stream capture during which the program frees an allocation it
 *     no longer needs (cuMemFree while the stream captures, as framework
 *     allocators do), launched once per round after an ordinary kernel
 *     changed its input, each round synchronized;
 *   - NVIDIA's simpleCudaGraphs, built by hand: a host-to-device copy
 *     node, a memset node, a "reduction" kernel and an accumulating one,
 *     device-to-host copy nodes of both results into one pageable buffer
 *     and a host node after them that reads the results and resets the
 *     buffer to 0; a copy node no host node follows; launched three
 *     times, then synchronized; cloned, the clone launched three times;
 *   - the same built by stream capture over two streams (a fork and a
 *     join through events), the host node a cudaLaunchHostFunc;
 *   - jacobiCudaGraphs: the kernel node's arguments swapped in the
 *     executable graph before each launch (cuGraphExecKernelNodeSetParams),
 *     each launch synchronized and its result read.
 *
 *   graph-emitter [--fatbin F] [--host-writes-source]
 *
 * --host-writes-source: the manual graph's host node also rewrites the
 * host source of the graph's host-to-device copy (the capture must
 * report it: the replay copies what the node was made with).
 *
 * With --fatbin (tests/gpu/replay_kernels.cu's), the bundle also replays
 * on a GPU (tests/data/reconstruct/make-bundles.sh). Prints
 * "graph-emitter: ok" when the program's own checks of its results passed
 * (the mock computed them).
 */
#include "mock_call.h"

#define N 1024u
#define MUL 3u
#define ROUNDS 3u

const char *mock_call_prog = "graph-emitter";
uint32_t mock_call_corr = 7000;
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

static void launch(CUkernel k, void **args, CUstream s)
{
	cuLaunchKernel_params p = { (CUfunction)k, (N + 127) / 128, 1, 1,
				    128, 1, 1, 0, s, args, NULL };

	MOCK_CALL(cuLaunchKernel, &p,
		  cuLaunchKernel(p.f, p.gridDimX, 1, 1, p.blockDimX, 1, 1, 0,
				 p.hStream, p.kernelParams, NULL));
}

static void sync_stream(CUstream s)
{
	cuStreamSynchronize_params p = { s };

	MOCK_CALL(cuStreamSynchronize, &p, cuStreamSynchronize(s));
}

static CUdeviceptr alloc(size_t n)
{
	CUdeviceptr d = 0;
	cuMemAlloc_v2_params p = { &d, n };

	MOCK_CALL(cuMemAlloc_v2, &p, cuMemAlloc(&d, n));
	return d;
}

static void dfree(CUdeviceptr d)
{
	cuMemFree_v2_params p = { d };

	MOCK_CALL(cuMemFree_v2, &p, cuMemFree(d));
}

static void *pinned(size_t n)
{
	void *h = NULL;
	cuMemAllocHost_v2_params p = { &h, n };

	MOCK_CALL(cuMemAllocHost_v2, &p, cuMemAllocHost(&h, n));
	return h;
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

static CUstream stream(void)
{
	CUstream s = NULL;
	cuStreamCreate_params p = { &s, CU_STREAM_NON_BLOCKING };

	MOCK_CALL(cuStreamCreate, &p, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	return s;
}

static CUgraphExec instantiate(CUgraph g)
{
	CUgraphExec e = NULL;
	cuGraphInstantiateWithFlags_params p = { &e, g, 0 };

	MOCK_CALL(cuGraphInstantiateWithFlags, &p,
		  cuGraphInstantiateWithFlags(&e, g, 0));
	return e;
}

static void graph_launch(CUgraphExec e, CUstream s)
{
	cuGraphLaunch_params p = { e, s };

	MOCK_CALL(cuGraphLaunch, &p, cuGraphLaunch(e, s));
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

struct prog {
	CUkernel scale, incr;
	CUstream s1, s2;
	int host_writes_source;
};

static CUgraph graph_create(void)
{
	CUgraph g = NULL;
	cuGraphCreate_params p = { &g, 0 };

	MOCK_CALL(cuGraphCreate, &p, cuGraphCreate(&g, 0));
	return g;
}

static CUgraphNode memcpy_node(CUgraph g, const CUgraphNode *deps, size_t n,
			       const CUDA_MEMCPY3D *c)
{
	CUgraphNode node = NULL;
	cuGraphAddMemcpyNode_params p = { &node, g, deps, n, c, NULL };

	MOCK_CALL(cuGraphAddMemcpyNode, &p,
		  cuGraphAddMemcpyNode(&node, g, deps, n, c, NULL));
	return node;
}

/* A device-to-host copy node of @bytes from @src to @dst. */
static CUgraphNode d2h_node(CUgraph g, const CUgraphNode *deps, size_t n,
			    void *dst, CUdeviceptr src, size_t bytes)
{
	CUDA_MEMCPY3D c;

	memset(&c, 0, sizeof(c));
	c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
	c.srcDevice = src;
	c.srcPitch = bytes;
	c.srcHeight = 1;
	c.dstMemoryType = CU_MEMORYTYPE_HOST;
	c.dstHost = dst;
	c.dstPitch = bytes;
	c.dstHeight = 1;
	c.WidthInBytes = bytes;
	c.Height = 1;
	c.Depth = 1;
	return memcpy_node(g, deps, n, &c);
}

static CUgraphNode h2d_node(CUgraph g, CUdeviceptr dst, const void *src,
			    size_t bytes)
{
	CUDA_MEMCPY3D c;

	memset(&c, 0, sizeof(c));
	c.srcMemoryType = CU_MEMORYTYPE_HOST;
	c.srcHost = src;
	c.srcPitch = bytes;
	c.srcHeight = 1;
	c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
	c.dstDevice = dst;
	c.dstPitch = bytes;
	c.dstHeight = 1;
	c.WidthInBytes = bytes;
	c.Height = 1;
	c.Depth = 1;
	return memcpy_node(g, NULL, 0, &c);
}

static CUgraphNode memset_node(CUgraph g, CUdeviceptr dst, size_t words)
{
	CUgraphNode node = NULL;
	CUDA_MEMSET_NODE_PARAMS m = { dst, 0, 0, 4, words, 1 };
	cuGraphAddMemsetNode_params p = { &node, g, NULL, 0, &m, NULL };

	MOCK_CALL(cuGraphAddMemsetNode, &p,
		  cuGraphAddMemsetNode(&node, g, NULL, 0, &m, NULL));
	return node;
}

static void kparams(CUDA_KERNEL_NODE_PARAMS *k, CUkernel f, unsigned n,
		    void **args)
{
	memset(k, 0, sizeof(*k));
	k->func = (CUfunction)f;
	k->gridDimX = (n + 127) / 128;
	k->gridDimY = k->gridDimZ = 1;
	k->blockDimX = 128;
	k->blockDimY = k->blockDimZ = 1;
	k->kernelParams = args;
}

static CUgraphNode kernel_node(CUgraph g, const CUgraphNode *deps, size_t n,
			       const CUDA_KERNEL_NODE_PARAMS *k)
{
	CUgraphNode node = NULL;
	cuGraphAddKernelNode_v2_params p = { &node, g, deps, n, k };

	MOCK_CALL(cuGraphAddKernelNode_v2, &p,
		  cuGraphAddKernelNode(&node, g, deps, n, k));
	return node;
}

static CUgraphNode host_node(CUgraph g, const CUgraphNode *deps, size_t n,
			     CUhostFn fn, void *arg)
{
	CUgraphNode node = NULL;
	CUDA_HOST_NODE_PARAMS h = { fn, arg };
	cuGraphAddHostNode_params p = { &node, g, deps, n, &h };

	/* (the capture may hand the driver parameters of its own) */
	MOCK_CALL(cuGraphAddHostNode, &p,
		  cuGraphAddHostNode(&node, g, deps, n, p.nodeParams));
	return node;
}

static void record(CUevent e, CUstream s)
{
	cuEventRecord_params p = { e, s };

	MOCK_CALL(cuEventRecord, &p, cuEventRecord(e, s));
}

static void wait_event(CUstream s, CUevent e)
{
	cuStreamWaitEvent_params p = { s, e, 0 };

	MOCK_CALL(cuStreamWaitEvent, &p, cuStreamWaitEvent(s, e, 0));
}

static CUevent event(void)
{
	CUevent e = NULL;
	cuEventCreate_params p = { &e, CU_EVENT_DISABLE_TIMING };

	MOCK_CALL(cuEventCreate, &p,
		  cuEventCreate(&e, CU_EVENT_DISABLE_TIMING));
	return e;
}

/*
 * A stream capture during which the program frees an allocation: the
 * graph scales the input into the output and copies it back; between
 * launches an ordinary kernel increments the input.
 */
static int capture_with_free(struct prog *pr)
{
	CUdeviceptr din = alloc(N * 4), dout = alloc(N * 4),
		    scratch = alloc(N * 4);
	unsigned *in = pinned(N * 4), *out = pinned(N * 4);
	unsigned mul = MUL, n = N;
	void *sargs[5] = { &dout, &din, &mul, &n, NULL };
	struct span sp = { (unsigned *)(uintptr_t)din, N };
	void *iargs[2] = { &sp, NULL };
	CUgraph g = NULL;
	CUgraphExec e;
	int bad = 0;

	for (unsigned i = 0; i < N; i++) {
		in[i] = 11 * i;
	}
	h2d_async(din, in, N * 4, pr->s1);
	/* Work on the other stream, which a free waits for. */
	h2d_async(scratch, in, N * 4, pr->s2);
	sync_stream(pr->s1);
	{
		cuStreamBeginCapture_v2_params p = {
			pr->s1, CU_STREAM_CAPTURE_MODE_RELAXED };
		MOCK_CALL(cuStreamBeginCapture_v2, &p,
			  cuStreamBeginCapture(pr->s1,
					       CU_STREAM_CAPTURE_MODE_RELAXED));
	}
	launch(pr->scale, sargs, pr->s1);
	/* The allocator gives back memory while the stream captures. */
	dfree(scratch);
	d2h_async(out, dout, N * 4, pr->s1);
	{
		cuStreamEndCapture_params p = { pr->s1, &g };
		MOCK_CALL(cuStreamEndCapture, &p, cuStreamEndCapture(pr->s1, &g));
	}
	e = instantiate(g);
	for (unsigned r = 0; r < ROUNDS; r++) {
		launch(pr->incr, iargs, pr->s1);
		graph_launch(e, pr->s1);
		sync_stream(pr->s1);
		for (unsigned i = 0; i < N; i++) {
			bad += out[i] != (11 * i + r + 1) * MUL;
		}
	}
	dfree(din);
	dfree(dout);
	return bad;
}

/*
 * The host node of the reduction graphs: what simpleCudaGraphs's
 * callback does (print the result, reset it), keeping what it saw.
 */
struct seen {
	unsigned *res;		/* the copy nodes' destination, 4 words */
	unsigned log[8][4];
	unsigned n;
	unsigned *source;	/* --host-writes-source: rewritten */
};

static void CUDA_CB consume(void *arg)
{
	struct seen *s = arg;

	if (s->n < 8) {
		memcpy(s->log[s->n], s->res, sizeof(s->log[0]));
	}
	s->n++;
	memset(s->res, 0, 4 * sizeof(unsigned));
	if (s->source) {
		s->source[0] += 1000;
	}
}

/* What launch @k (from 1) of a reduction graph delivered: the reduction
 * of the two inputs and the accumulator, incremented once per launch. */
static int check_seen(const struct seen *s, unsigned launches,
		      const unsigned *in)
{
	int bad = s->n != launches;

	for (unsigned k = 0; k < launches && k < 8; k++) {
		bad += s->log[k][0] != in[0] * MUL ||
		       s->log[k][1] != in[1] * MUL ||
		       s->log[k][2] != k + 1 || s->log[k][3] != k + 1;
	}
	for (unsigned i = 0; i < 4; i++) {
		bad += s->res[i] != 0;	/* the host node reset them */
	}
	return bad;
}

/*
 * simpleCudaGraphs, by hand: an input copied in, a result memset, a
 * reduction (scale) and an accumulator (incr), both results copied back
 * into one pageable buffer, a host node after the copies, and a copy of
 * the reduction elsewhere that no host node follows. Launched three
 * times, synchronized; cloned, the clone likewise.
 */
static int manual_graph(struct prog *pr)
{
	CUdeviceptr din = alloc(N * 4), dres = alloc(8), dacc = alloc(8);
	unsigned *in = pinned(N * 4), res[4] = { 0 }, side[2] = { 0 };
	unsigned mul = MUL, two = 2;
	void *sargs[5] = { &dres, &din, &mul, &two, NULL };
	struct span acc = { (unsigned *)(uintptr_t)dacc, 2 };
	void *iargs[2] = { &acc, NULL };
	struct seen seen = { res, { { 0 } }, 0, NULL };
	CUDA_KERNEL_NODE_PARAMS kp;
	CUgraphNode cp, ms, red, ac, c1, c2, deps[2];
	CUgraph g, cg = NULL;
	CUgraphExec e, ce;
	unsigned in0[2];
	int bad = 0;

	for (unsigned i = 0; i < N; i++) {
		in[i] = 5 + i;
	}
	memcpy(in0, in, sizeof(in0));
	if (pr->host_writes_source) {
		seen.source = in;
	}
	{
		cuMemsetD32Async_params p = { dacc, 0, 2, pr->s1 };
		MOCK_CALL(cuMemsetD32Async, &p,
			  cuMemsetD32Async(dacc, 0, 2, pr->s1));
	}
	g = graph_create();
	cp = h2d_node(g, din, in, N * 4);
	ms = memset_node(g, dres, 2);
	deps[0] = cp;
	deps[1] = ms;
	kparams(&kp, pr->scale, 2, sargs);
	red = kernel_node(g, deps, 2, &kp);
	kparams(&kp, pr->incr, 2, iargs);
	ac = kernel_node(g, &red, 1, &kp);
	c1 = d2h_node(g, &ac, 1, res, dres, 8);
	c2 = d2h_node(g, &ac, 1, res + 2, dacc, 8);
	d2h_node(g, &ac, 1, side, dres, 8);	/* no host node follows it */
	deps[0] = c1;
	deps[1] = c2;
	host_node(g, deps, 2, consume, &seen);
	e = instantiate(g);
	{
		cuGraphClone_params p = { &cg, g };
		MOCK_CALL(cuGraphClone, &p, cuGraphClone(&cg, g));
	}
	ce = instantiate(cg);
	for (unsigned r = 0; r < 3; r++) {
		graph_launch(e, pr->s1);
	}
	sync_stream(pr->s1);
	for (unsigned r = 0; r < 3; r++) {
		graph_launch(ce, pr->s1);
	}
	sync_stream(pr->s1);
	if (!pr->host_writes_source) {
		bad += check_seen(&seen, 6, in0);
		bad += side[0] != in0[0] * MUL || side[1] != in0[1] * MUL;
	}
	return bad;
}

/*
 * The same by stream capture over two streams: a fork through an event,
 * the memset on the second stream, a join, the host node a
 * cuLaunchHostFunc. Launched three times, then synchronized.
 */
static int captured_graph(struct prog *pr)
{
	CUdeviceptr din = alloc(N * 4), dres = alloc(8), dacc = alloc(8);
	unsigned *in = pinned(N * 4), res[4] = { 0 };
	unsigned mul = MUL, two = 2;
	void *sargs[5] = { &dres, &din, &mul, &two, NULL };
	struct span acc = { (unsigned *)(uintptr_t)dacc, 2 };
	void *iargs[2] = { &acc, NULL };
	struct seen seen = { res, { { 0 } }, 0, NULL };
	CUevent fork = event(), join = event();
	CUgraph g = NULL;
	CUgraphExec e;
	unsigned in0[2];

	for (unsigned i = 0; i < N; i++) {
		in[i] = 9 + 2 * i;
	}
	memcpy(in0, in, sizeof(in0));
	{
		cuMemsetD32Async_params p = { dacc, 0, 2, pr->s1 };
		MOCK_CALL(cuMemsetD32Async, &p,
			  cuMemsetD32Async(dacc, 0, 2, pr->s1));
	}
	{
		cuStreamBeginCapture_v2_params p = {
			pr->s1, CU_STREAM_CAPTURE_MODE_GLOBAL };
		MOCK_CALL(cuStreamBeginCapture_v2, &p,
			  cuStreamBeginCapture(pr->s1,
					       CU_STREAM_CAPTURE_MODE_GLOBAL));
	}
	record(fork, pr->s1);
	wait_event(pr->s2, fork);
	h2d_async(din, in, N * 4, pr->s1);
	{
		cuMemsetD32Async_params p = { dres, 0, 2, pr->s2 };
		MOCK_CALL(cuMemsetD32Async, &p,
			  cuMemsetD32Async(dres, 0, 2, pr->s2));
	}
	record(join, pr->s2);
	wait_event(pr->s1, join);
	launch(pr->scale, sargs, pr->s1);
	launch(pr->incr, iargs, pr->s1);
	d2h_async(res, dres, 8, pr->s1);
	d2h_async(res + 2, dacc, 8, pr->s1);
	{
		cuLaunchHostFunc_params p = { pr->s1, consume, &seen };
		/* (the capture may wrap the function) */
		MOCK_CALL(cuLaunchHostFunc, &p,
			  cuLaunchHostFunc(p.hStream, p.fn, p.userData));
	}
	{
		cuStreamEndCapture_params p = { pr->s1, &g };
		MOCK_CALL(cuStreamEndCapture, &p, cuStreamEndCapture(pr->s1, &g));
	}
	e = instantiate(g);
	for (unsigned r = 0; r < 3; r++) {
		graph_launch(e, pr->s1);
	}
	sync_stream(pr->s1);
	return check_seen(&seen, 3, in0);
}

/*
 * jacobiCudaGraphs: the kernel node's arguments swapped in the executable
 * graph before each launch (two buffers, one incremented per launch), a
 * copy node of the first buffer's head, each launch synchronized and its
 * result read by the program.
 */
static int set_params_graph(struct prog *pr)
{
	CUdeviceptr xa = alloc(N * 4), xb = alloc(N * 4);
	unsigned *init = pinned(N * 4), sum[2];
	struct span sa = { (unsigned *)(uintptr_t)xa, N },
		    sb = { (unsigned *)(uintptr_t)xb, N };
	void *aargs[2] = { &sa, NULL }, *bargs[2] = { &sb, NULL };
	CUDA_KERNEL_NODE_PARAMS ka, kb;
	CUgraphNode kn;
	CUgraph g;
	CUgraphExec e;
	unsigned a = 0;
	int bad = 0;

	for (unsigned i = 0; i < N; i++) {
		init[i] = 100 * i;
	}
	h2d_async(xa, init, N * 4, pr->s1);
	h2d_async(xb, init, N * 4, pr->s1);
	sync_stream(pr->s1);
	g = graph_create();
	kparams(&ka, pr->incr, N, aargs);
	kparams(&kb, pr->incr, N, bargs);
	kn = kernel_node(g, NULL, 0, &ka);
	d2h_node(g, &kn, 1, sum, xa, 8);
	e = instantiate(g);
	for (unsigned k = 0; k < 4; k++) {
		cuGraphExecKernelNodeSetParams_v2_params p = {
			e, kn, (k & 1) ? &kb : &ka };
		MOCK_CALL(cuGraphExecKernelNodeSetParams_v2, &p,
			  cuGraphExecKernelNodeSetParams(e, kn, p.nodeParams));
		graph_launch(e, pr->s1);
		sync_stream(pr->s1);
		a += !(k & 1);
		bad += sum[0] != a || sum[1] != 100 + a;
	}
	return bad;
}

int main(int argc, char **argv)
{
	const void *image = ptx;
	CUcontext ctx = NULL;
	CUlibrary lib = NULL;
	struct prog pr = { 0 };
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--fatbin")) {
			if (!(image = read_all(argv[++i]))) {
				fprintf(stderr, "graph-emitter: cannot read "
					"'%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--host-writes-source")) {
			pr.host_writes_source = 1;
		} else {
			fprintf(stderr, "usage: graph-emitter [--fatbin F] "
				"[--host-writes-source]\n");
			return 2;
		}
	}
	if (gm_capture_test_init()) {
		fprintf(stderr, "graph-emitter: not under gpumix capture\n");
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
		cuLibraryGetKernel_params p = { &pr.scale, lib,
						"_Z5scalePjPKjjj" };
		MOCK_CALL(cuLibraryGetKernel, &p,
			  cuLibraryGetKernel(&pr.scale, lib, p.name));
	}
	{
		cuLibraryGetKernel_params p = { &pr.incr, lib, "_Z4incr4span" };
		MOCK_CALL(cuLibraryGetKernel, &p,
			  cuLibraryGetKernel(&pr.incr, lib, p.name));
	}
	pr.s1 = stream();
	pr.s2 = stream();

	bad += capture_with_free(&pr);
	bad += manual_graph(&pr);
	if (!pr.host_writes_source) {
		bad += captured_graph(&pr);
		bad += set_params_graph(&pr);
	}

	gm_capture_test_exit();
	if (bad) {
		fprintf(stderr, "graph-emitter: %d wrong results\n", bad);
		return 1;
	}
	printf("graph-emitter: ok\n");
	return 0;
}
