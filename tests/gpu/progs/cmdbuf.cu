// SPDX-License-Identifier: MIT
// CUDA graphs as XLA's command buffers (JAX) build them: a graph the
// program made, filled by tracing a stream into it
// (cudaStreamBeginCaptureToGraph, no dependencies: a kernel and a copy
// back); an outer graph of generic nodes (cudaGraphAddNode: a kernel, the
// traced graph as a child, a copy back, an empty node, each after the one
// before); programmatic dependent launch (a kernel node after the first
// by a programmatic edge of cudaGraphAddNode, a copy back after it, a
// third kernel node after the second by a launch-completion edge of
// cudaGraphAddDependencies, a trace into the outer graph after the third
// by a programmatic edge of cudaStreamBeginCaptureToGraph: a kernel
// counting launches too); a second trace into the outer graph after
// its empty node (a memset and a copy back); the outer graph launched once
// per round after an ordinary kernel changed its input, the second kernel
// node's multiplier changed in the executable graph before each launch
// (cudaGraphExecKernelNodeSetParams), and before the last round the child
// node given a newly traced graph of the same shape that copies back
// elsewhere with another multiplier (cudaGraphExecChildGraphNodeSetParams);
// each round synchronized and checked, the launches counted by the third
// kernel. Prints "PASS cmdbuf".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define N (1 << 16)
#define MUL 5u
#define MUL2 11u
#define ROUNDS 4

#define CHECK(call)                                                           \
	do {                                                                  \
		cudaError_t e_ = (call);                                      \
		if (e_ != cudaSuccess) {                                      \
			fprintf(stderr, "%s: %s\n", #call,                    \
				cudaGetErrorString(e_));                      \
			return 2;                                             \
		}                                                             \
	} while (0)

__global__ void scale(unsigned *out, const unsigned *in, unsigned mul, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		out[i] = in[i] * mul;
	}
}

__global__ void incr(unsigned *p, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		p[i] += 1;
	}
}

// A command buffer traced into a new graph: @mul times din into dout,
// copied back to @back. NULL on an error (printed).
static cudaGraph_t trace_body(cudaStream_t s, unsigned *dout,
			      const unsigned *din, unsigned mul, unsigned *back)
{
	cudaGraph_t g, got;
	cudaError_t e;

	if ((e = cudaGraphCreate(&g, 0)) != cudaSuccess ||
	    (e = cudaStreamBeginCaptureToGraph(
		     s, g, NULL, NULL, 0, cudaStreamCaptureModeThreadLocal)) !=
		    cudaSuccess) {
		fprintf(stderr, "trace: %s\n", cudaGetErrorString(e));
		return NULL;
	}
	scale<<<N / 256, 256, 0, s>>>(dout, din, mul, N);
	cudaMemcpyAsync(back, dout, N * 4, cudaMemcpyDeviceToHost, s);
	if ((e = cudaStreamEndCapture(s, &got)) != cudaSuccess || got != g) {
		fprintf(stderr, "trace: %s\n", e != cudaSuccess ?
			cudaGetErrorString(e) : "the trace made another graph");
		return NULL;
	}
	return g;
}

static void kernel_node(cudaGraphNodeParams &np, void *fn, void **args)
{
	memset(&np, 0, sizeof(np));
	np.type = cudaGraphNodeTypeKernel;
	np.kernel.func = fn;
	np.kernel.gridDim = dim3(N / 256);
	np.kernel.blockDim = dim3(256);
	np.kernel.kernelParams = args;
}

int main()
{
	unsigned *din, *dout, *dfill, *dsrc, *dk2, *dcnt, *dcnt2, *in, *out,
		*fill, *outa, *outb, *k2out, *cnt;
	cudaStream_t s;
	cudaGraph_t body, body2 = NULL, outer, got;
	cudaGraphNode_t k, k2, k3, child, copy, empty;
	cudaGraphExec_t exec;
	cudaGraphEdgeData ed;
	// (a union of members with constructors: no default constructor)
	cudaGraphNodeParams &np =
		*(cudaGraphNodeParams *)calloc(1, sizeof(cudaGraphNodeParams));
	unsigned kmul = 1;
	int n = N, bad = 0;
	void *iargs[] = { &din, &n };
	void *cargs[] = { &dcnt, &n };
	void *kargs[] = { &dk2, &dsrc, &kmul, &n };

	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&din, N * 4));
	CHECK(cudaMalloc(&dout, N * 4));
	CHECK(cudaMalloc(&dfill, N * 4));
	CHECK(cudaMallocHost(&in, N * 4));
	CHECK(cudaMallocHost(&out, N * 4));
	CHECK(cudaMallocHost(&fill, N * 4));
	CHECK(cudaMalloc(&dsrc, N * 4));
	CHECK(cudaMalloc(&dk2, N * 4));
	CHECK(cudaMalloc(&dcnt, N * 4));
	CHECK(cudaMalloc(&dcnt2, N * 4));
	CHECK(cudaMallocHost(&outa, N * 4));
	CHECK(cudaMallocHost(&outb, N * 4));
	CHECK(cudaMallocHost(&k2out, N * 4));
	CHECK(cudaMallocHost(&cnt, N * 4));
	for (int i = 0; i < N; i++) {
		in[i] = 7u * i;
		k2out[i] = 3u * i;
	}
	CHECK(cudaMemcpyAsync(din, in, N * 4, cudaMemcpyHostToDevice, s));
	CHECK(cudaMemcpyAsync(dsrc, k2out, N * 4, cudaMemcpyHostToDevice, s));
	CHECK(cudaMemsetAsync(dcnt, 0, N * 4, s));
	CHECK(cudaMemsetAsync(dcnt2, 0, N * 4, s));

	// The traced command buffer: a kernel, a copy back.
	if (!(body = trace_body(s, dout, din, MUL, outa))) {
		return 2;
	}

	// The outer one, of generic nodes.
	CHECK(cudaGraphCreate(&outer, 0));
	memset(&np, 0, sizeof(np));
	np.type = cudaGraphNodeTypeKernel;
	np.kernel.func = (void *)incr;
	np.kernel.gridDim = dim3(N / 256);
	np.kernel.blockDim = dim3(256);
	np.kernel.kernelParams = iargs;
	CHECK(cudaGraphAddNode(&k, outer, NULL, NULL, 0, &np));
	memset(&np, 0, sizeof(np));
	np.type = cudaGraphNodeTypeGraph;
	np.graph.graph = body;
	CHECK(cudaGraphAddNode(&child, outer, &k, NULL, 1, &np));
	memset(&np, 0, sizeof(np));
	np.type = cudaGraphNodeTypeMemcpy;
	np.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(dout, N * 4, N * 4, 1);
	np.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(out, N * 4, N * 4, 1);
	np.memcpy.copyParams.extent = make_cudaExtent(N * 4, 1, 1);
	np.memcpy.copyParams.kind = cudaMemcpyDeviceToHost;
	CHECK(cudaGraphAddNode(&copy, outer, &child, NULL, 1, &np));
	memset(&np, 0, sizeof(np));
	np.type = cudaGraphNodeTypeEmpty;
	CHECK(cudaGraphAddNode(&empty, outer, &copy, NULL, 1, &np));

	// Programmatic dependent launch, as XLA's kernel nodes: the second
	// kernel reads nothing the first writes (a programmatic edge makes
	// no memory visible), the third counts launches.
	memset(&ed, 0, sizeof(ed));
	ed.type = cudaGraphDependencyTypeProgrammatic;
	ed.from_port = cudaGraphKernelNodePortProgrammatic;
	kernel_node(np, (void *)scale, kargs);
	CHECK(cudaGraphAddNode(&k2, outer, &k, &ed, 1, &np));
	memset(&np, 0, sizeof(np));
	np.type = cudaGraphNodeTypeMemcpy;
	np.memcpy.copyParams.srcPtr = make_cudaPitchedPtr(dk2, N * 4, N * 4, 1);
	np.memcpy.copyParams.dstPtr = make_cudaPitchedPtr(k2out, N * 4, N * 4, 1);
	np.memcpy.copyParams.extent = make_cudaExtent(N * 4, 1, 1);
	np.memcpy.copyParams.kind = cudaMemcpyDeviceToHost;
	CHECK(cudaGraphAddNode(&copy, outer, &k2, NULL, 1, &np));
	kernel_node(np, (void *)incr, cargs);
	CHECK(cudaGraphAddNode(&k3, outer, NULL, NULL, 0, &np));
	ed.from_port = cudaGraphKernelNodePortLaunchCompletion;
	CHECK(cudaGraphAddDependencies(outer, &k2, &k3, &ed, 1));
	ed.from_port = cudaGraphKernelNodePortProgrammatic;
	CHECK(cudaStreamBeginCaptureToGraph(s, outer, &k3, &ed, 1,
					    cudaStreamCaptureModeThreadLocal));
	incr<<<N / 256, 256, 0, s>>>(dcnt2, N);
	CHECK(cudaStreamEndCapture(s, &got));

	// A second trace, into the outer graph after its empty node.
	CHECK(cudaStreamBeginCaptureToGraph(s, outer, &empty, NULL, 1,
					    cudaStreamCaptureModeThreadLocal));
	CHECK(cudaMemsetAsync(dfill, 0x5a, N * 4, s));
	CHECK(cudaMemcpyAsync(fill, dfill, N * 4, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamEndCapture(s, &got));

	CHECK(cudaGraphInstantiate(&exec, outer, 0));
	for (int r = 0; r < ROUNDS; r++) {
		int last = r == ROUNDS - 1;
		cudaKernelNodeParams kp = {};
		if (last) {
			// XLA's nested command buffer, traced again.
			if (!(body2 = trace_body(s, dout, din, MUL2, outb))) {
				return 2;
			}
			CHECK(cudaGraphExecChildGraphNodeSetParams(exec, child,
								   body2));
		}
		incr<<<N / 256, 256, 0, s>>>(din, N);
		kmul = r + 2;
		kp.func = (void *)scale;
		kp.gridDim = dim3(N / 256);
		kp.blockDim = dim3(256);
		kp.kernelParams = kargs;
		CHECK(cudaGraphExecKernelNodeSetParams(exec, k2, &kp));
		CHECK(cudaGraphLaunch(exec, s));
		CHECK(cudaStreamSynchronize(s));
		// Incremented twice per round: before, and by the graph.
		for (int i = 0; i < N && bad < 10; i++) {
			unsigned want = (7u * i + 2u * (r + 1)) *
					(last ? MUL2 : MUL);
			bad += out[i] != want;
			bad += (last ? outb : outa)[i] != want;
			bad += fill[i] != 0x5a5a5a5au;
			bad += k2out[i] != 3u * i * (r + 2);
		}
		memset(fill, 0, N * 4);
	}
	CHECK(cudaMemcpyAsync(cnt, dcnt, N * 4, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	for (int i = 0; i < N && bad < 10; i++) {
		bad += cnt[i] != ROUNDS;
	}
	CHECK(cudaMemcpyAsync(cnt, dcnt2, N * 4, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	for (int i = 0; i < N && bad < 10; i++) {
		bad += cnt[i] != ROUNDS;
	}
	cudaGraphExecDestroy(exec);
	cudaGraphDestroy(outer);
	cudaGraphDestroy(body2);
	cudaGraphDestroy(body);
	printf("%s cmdbuf: %d errors\n", bad ? "FAIL" : "PASS", bad);
	return bad ? 1 : 0;
}
