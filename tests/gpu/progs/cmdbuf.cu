// SPDX-License-Identifier: MIT
// CUDA graphs as XLA's command buffers (JAX) build them: a graph the
// program made, filled by tracing a stream into it
// (cudaStreamBeginCaptureToGraph, no dependencies); an outer graph of
// generic nodes (cudaGraphAddNode: a kernel, the traced graph as a child,
// a copy back, an empty node, each after the one before); a second trace
// into the outer graph after its empty node (a memset and a copy back);
// the outer graph launched once per round after an ordinary kernel
// changed its input, each round synchronized and checked. Prints
// "PASS cmdbuf".
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

#define N (1 << 16)
#define MUL 5u
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

int main()
{
	unsigned *din, *dout, *dfill, *in, *out, *fill;
	cudaStream_t s;
	cudaGraph_t body, outer, got;
	cudaGraphNode_t k, child, copy, empty;
	cudaGraphExec_t exec;
	// (a union of members with constructors: no default constructor)
	cudaGraphNodeParams &np =
		*(cudaGraphNodeParams *)calloc(1, sizeof(cudaGraphNodeParams));
	unsigned mul = MUL;
	int n = N, bad = 0;
	void *iargs[] = { &din, &n };

	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaMalloc(&din, N * 4));
	CHECK(cudaMalloc(&dout, N * 4));
	CHECK(cudaMalloc(&dfill, N * 4));
	CHECK(cudaMallocHost(&in, N * 4));
	CHECK(cudaMallocHost(&out, N * 4));
	CHECK(cudaMallocHost(&fill, N * 4));
	for (int i = 0; i < N; i++) {
		in[i] = 7u * i;
	}
	CHECK(cudaMemcpyAsync(din, in, N * 4, cudaMemcpyHostToDevice, s));

	// The traced command buffer: one kernel.
	CHECK(cudaGraphCreate(&body, 0));
	CHECK(cudaStreamBeginCaptureToGraph(s, body, NULL, NULL, 0,
					    cudaStreamCaptureModeThreadLocal));
	scale<<<N / 256, 256, 0, s>>>(dout, din, mul, N);
	CHECK(cudaStreamEndCapture(s, &got));
	if (got != body) {
		fprintf(stderr, "the trace made another graph\n");
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

	// A second trace, into the outer graph after its empty node.
	CHECK(cudaStreamBeginCaptureToGraph(s, outer, &empty, NULL, 1,
					    cudaStreamCaptureModeThreadLocal));
	CHECK(cudaMemsetAsync(dfill, 0x5a, N * 4, s));
	CHECK(cudaMemcpyAsync(fill, dfill, N * 4, cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamEndCapture(s, &got));

	CHECK(cudaGraphInstantiate(&exec, outer, 0));
	for (int r = 0; r < ROUNDS; r++) {
		incr<<<N / 256, 256, 0, s>>>(din, N);
		CHECK(cudaGraphLaunch(exec, s));
		CHECK(cudaStreamSynchronize(s));
		// Incremented twice per round: before, and by the graph.
		for (int i = 0; i < N && bad < 10; i++) {
			bad += out[i] != (7u * i + 2u * (r + 1)) * MUL;
			bad += fill[i] != 0x5a5a5a5au;
		}
		memset(fill, 0, N * 4);
	}
	cudaGraphExecDestroy(exec);
	cudaGraphDestroy(outer);
	cudaGraphDestroy(body);
	printf("%s cmdbuf: %d errors\n", bad ? "FAIL" : "PASS", bad);
	return bad ? 1 : 0;
}
