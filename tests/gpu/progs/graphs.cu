// SPDX-License-Identifier: MIT
// CUDA graphs the way programs use them (runtime API): a stream capture
// of a memset, three kernels and two copies back, instantiated once and
// launched in a loop (one result accumulates over the launches); then an
// explicit graph of a host-to-device copy, a memset, a kernel, a host
// function, a child graph and a copy back, with an event record node and
// an edge added afterwards, launched, its kernel node changed in the
// executable graph, then changed in the graph and the executable graph
// updated, then cloned and launched again. Every result is checked on
// the host; the lines printed are what the replay must verify. Prints
// "PASS graphs" at the end.
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define N (1 << 16)
#define BYTES (N * sizeof(unsigned))

__global__ void scale(unsigned *out, const unsigned *in, unsigned mul)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N) {
		out[i] = in[i] * mul + 7;
	}
}

__global__ void add1(unsigned *p)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N) {
		p[i] += 1;
	}
}

static int host_calls;

static void CUDART_CB on_host(void *data)
{
	++*(int *)data;
}

#define CK(x)                                                                  \
	do {                                                                   \
		cudaError_t e_ = (x);                                          \
		if (e_ != cudaSuccess) {                                       \
			printf("FAIL graphs: %s: %s (line %d)\n", #x,          \
			       cudaGetErrorString(e_), __LINE__);              \
			return 1;                                              \
		}                                                              \
	} while (0)

static int check(const char *what, const unsigned *h, const unsigned *in,
		 unsigned mul, unsigned add)
{
	unsigned long long sum = 0;

	for (unsigned i = 0; i < N; i++) {
		unsigned want = in ? in[i] * mul + 7 + add : add;
		if (h[i] != want) {
			printf("FAIL graphs: %s: element %u is %u, not %u\n",
			       what, i, h[i], want);
			return 1;
		}
		sum += h[i];
	}
	printf("%s: sum %llu\n", what, sum);
	return 0;
}

int main()
{
	unsigned *d_in, *d_out, *d_acc, *d_in2, *d_out2, *h, *h_in2, *in;
	cudaStream_t s;
	cudaEvent_t ev;
	cudaGraph_t g1, g2, g3, g4;
	cudaGraphExec_t x1, x2, x4;
	cudaGraphNode_t n1, n2, n3, n4, n5, n6, n7, c1;
	unsigned grid = N / 256, mul;
	char what[64];

	in = new unsigned[N];
	for (unsigned i = 0; i < N; i++) {
		in[i] = i * 2654435761u + 11;
	}
	CK(cudaMalloc(&d_in, BYTES));
	CK(cudaMalloc(&d_out, BYTES));
	CK(cudaMalloc(&d_acc, BYTES));
	CK(cudaMalloc(&d_in2, BYTES));
	CK(cudaMalloc(&d_out2, BYTES));
	CK(cudaMallocHost(&h, 3 * BYTES));
	CK(cudaMallocHost(&h_in2, BYTES));
	CK(cudaStreamCreate(&s));
	CK(cudaEventCreateWithFlags(&ev, cudaEventDisableTiming));
	CK(cudaMemcpy(d_in, in, BYTES, cudaMemcpyHostToDevice));
	CK(cudaMemsetAsync(d_acc, 0, BYTES, s));

	// Stream capture: nothing runs until the graph is launched.
	CK(cudaStreamBeginCapture(s, cudaStreamCaptureModeGlobal));
	CK(cudaMemsetAsync(d_out, 0, BYTES, s));
	scale<<<grid, 256, 0, s>>>(d_out, d_in, 3);
	add1<<<grid, 256, 0, s>>>(d_out);
	add1<<<grid, 256, 0, s>>>(d_acc);
	CK(cudaMemcpyAsync(h, d_out, BYTES, cudaMemcpyDeviceToHost, s));
	CK(cudaMemcpyAsync(h + N, d_acc, BYTES, cudaMemcpyDeviceToHost, s));
	CK(cudaStreamEndCapture(s, &g1));
	CK(cudaGraphInstantiate(&x1, g1, 0));
	for (unsigned k = 1; k <= 5; k++) {
		CK(cudaGraphLaunch(x1, s));
		CK(cudaStreamSynchronize(s));
		snprintf(what, sizeof(what), "captured launch %u: out", k);
		if (check(what, h, in, 3, 1)) {
			return 1;
		}
		snprintf(what, sizeof(what), "captured launch %u: acc", k);
		if (check(what, h + N, NULL, 0, k)) {
			return 1;
		}
	}

	// An explicit graph.
	memcpy(h_in2, in, BYTES);
	CK(cudaGraphCreate(&g2, 0));
	CK(cudaGraphAddMemcpyNode1D(&n1, g2, NULL, 0, d_in2, h_in2, BYTES,
				    cudaMemcpyHostToDevice));
	cudaMemsetParams mp;
	memset(&mp, 0, sizeof(mp));
	mp.dst = d_out2;
	mp.value = 0;
	mp.elementSize = 4;
	mp.width = N;
	mp.height = 1;
	CK(cudaGraphAddMemsetNode(&n2, g2, &n1, 1, &mp));
	mul = 5;
	void *args[] = { &d_out2, &d_in2, &mul };
	cudaKernelNodeParams kp;
	memset(&kp, 0, sizeof(kp));
	kp.func = (void *)scale;
	kp.gridDim = dim3(grid);
	kp.blockDim = dim3(256);
	kp.kernelParams = args;
	cudaGraphNode_t deps[2] = { n1, n2 };
	CK(cudaGraphAddKernelNode(&n3, g2, deps, 2, &kp));
	cudaHostNodeParams hp = { on_host, &host_calls };
	CK(cudaGraphAddHostNode(&n4, g2, &n3, 1, &hp));
	CK(cudaGraphCreate(&g3, 0));
	void *args1[] = { &d_out2 };
	cudaKernelNodeParams kp1;
	memset(&kp1, 0, sizeof(kp1));
	kp1.func = (void *)add1;
	kp1.gridDim = dim3(grid);
	kp1.blockDim = dim3(256);
	kp1.kernelParams = args1;
	CK(cudaGraphAddKernelNode(&c1, g3, NULL, 0, &kp1));
	CK(cudaGraphAddChildGraphNode(&n5, g2, &n4, 1, g3));
	CK(cudaGraphAddMemcpyNode1D(&n6, g2, NULL, 0, h + 2 * N, d_out2, BYTES,
				    cudaMemcpyDeviceToHost));
	CK(cudaGraphAddDependencies(g2, &n5, &n6, NULL, 1));
	CK(cudaGraphAddEventRecordNode(&n7, g2, &n6, 1, ev));
	CK(cudaGraphInstantiate(&x2, g2, 0));
	CK(cudaGraphLaunch(x2, s));
	CK(cudaStreamSynchronize(s));
	if (check("explicit graph, x5", h + 2 * N, in, 5, 1)) {
		return 1;
	}
	mul = 7;	// the executable graph's kernel node only
	CK(cudaGraphExecKernelNodeSetParams(x2, n3, &kp));
	CK(cudaGraphLaunch(x2, s));
	CK(cudaStreamSynchronize(s));
	if (check("executable node set, x7", h + 2 * N, in, 7, 1)) {
		return 1;
	}
	mul = 9;	// the graph's node, then an update of the executable
	CK(cudaGraphKernelNodeSetParams(n3, &kp));
	cudaGraphExecUpdateResultInfo info;
	CK(cudaGraphExecUpdate(x2, g2, &info));
	CK(cudaGraphLaunch(x2, s));
	CK(cudaEventSynchronize(ev));
	if (check("graph node set and exec update, x9", h + 2 * N, in, 9, 1)) {
		return 1;
	}
	CK(cudaGraphClone(&g4, g2));
	CK(cudaGraphInstantiate(&x4, g4, 0));
	CK(cudaGraphLaunch(x4, s));
	CK(cudaStreamSynchronize(s));
	if (check("clone, x9", h + 2 * N, in, 9, 1)) {
		return 1;
	}
	if (host_calls != 4) {
		printf("FAIL graphs: the host node ran %d times, not 4\n",
		       host_calls);
		return 1;
	}
	CK(cudaGraphExecDestroy(x4));
	CK(cudaGraphExecDestroy(x2));
	CK(cudaGraphExecDestroy(x1));
	CK(cudaGraphDestroy(g4));
	CK(cudaGraphDestroy(g3));
	CK(cudaGraphDestroy(g2));
	CK(cudaGraphDestroy(g1));
	CK(cudaEventDestroy(ev));
	CK(cudaStreamDestroy(s));
	CK(cudaFreeHost(h_in2));
	CK(cudaFreeHost(h));
	CK(cudaFree(d_out2));
	CK(cudaFree(d_in2));
	CK(cudaFree(d_acc));
	CK(cudaFree(d_out));
	CK(cudaFree(d_in));
	delete[] in;
	printf("PASS graphs\n");
	return 0;
}
