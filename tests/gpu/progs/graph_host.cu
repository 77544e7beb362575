// SPDX-License-Identifier: MIT
// CUDA graphs with host nodes, as NVIDIA's simpleCudaGraphs and
// jacobiCudaGraphs samples use them (written here):
//   - a reduction of 1M floats into a double, built by hand: an input
//     copy node, memset nodes, a block-reduction kernel and a final one,
//     a copy node of the double into a pageable host variable and a host
//     node after it that checks the value and resets it to 0 (as the
//     sample's callback does); launched 3 times, then synchronized;
//     cloned, the clone launched 3 times;
//   - the same built by stream capture over three streams (a fork and
//     joins through events), the host node a cudaLaunchHostFunc, and a
//     cudaFree of a scratch buffer while the capture runs (relaxed mode,
//     as framework allocators free);
//   - a Jacobi-like iteration: the executable graph's kernel node
//     arguments swapped before each launch
//     (cudaGraphExecKernelNodeSetParams), a memset node of the residual,
//     its copy node, each launch synchronized and its residual read.
// Prints "PASS graph_host".
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define N (1 << 20)
#define THREADS 256
#define BLOCKS 256
#define LAUNCHES 3

__global__ void reduce(const float *in, double *part, int n)
{
	__shared__ double s[THREADS];
	double v = 0;
	for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += gridDim.x * blockDim.x) {
		v += in[i];
	}
	s[threadIdx.x] = v;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k /= 2) {
		if (threadIdx.x < k) {
			s[threadIdx.x] += s[threadIdx.x + k];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		part[blockIdx.x] = s[0];
	}
}

__global__ void reduce_final(const double *part, double *result, int n)
{
	__shared__ double s[THREADS];
	double v = 0;
	for (int i = threadIdx.x; i < n; i += blockDim.x) {
		v += part[i];
	}
	s[threadIdx.x] = v;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k /= 2) {
		if (threadIdx.x < k) {
			s[threadIdx.x] += s[threadIdx.x + k];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		*result += s[0];	/* the result was memset to 0 */
	}
}

// x_new = (x + b) / 2 elementwise; the residual |x_new - x| summed.
__global__ void relax(const double *x, double *x_new, const double *b,
		      double *residual, int n)
{
	__shared__ double s[THREADS];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	double r = 0;
	if (i < n) {
		x_new[i] = (x[i] + b[i]) / 2;
		r = fabs(x_new[i] - x[i]);
	}
	s[threadIdx.x] = r;
	__syncthreads();
	for (int k = blockDim.x / 2; k > 0; k /= 2) {
		if (threadIdx.x < k) {
			s[threadIdx.x] += s[threadIdx.x + k];
		}
		__syncthreads();
	}
	if (threadIdx.x == 0) {
		atomicAdd(residual, s[0]);	/* (order: not bitwise stable
						   in general; here exact) */
	}
}

struct seen {
	double *result;		// where the copy node writes
	double expect;
	int calls, bad;
};

static void CUDART_CB check_and_reset(void *arg)
{
	seen *s = (seen *)arg;
	s->calls++;
	s->bad += *s->result != s->expect;
	*s->result = 0.0;	// as simpleCudaGraphs' callback does
}

#define CK(x)                                                                  \
	do {                                                                   \
		cudaError_t e_ = (x);                                          \
		if (e_ != cudaSuccess) {                                       \
			printf("FAIL graph_host: %s: %s\n", #x,                \
			       cudaGetErrorString(e_));                        \
			return 1;                                              \
		}                                                              \
	} while (0)

static cudaMemcpy3DParms copy1d(void *dst, const void *src, size_t bytes,
				cudaMemcpyKind kind)
{
	cudaMemcpy3DParms p;
	memset(&p, 0, sizeof(p));
	p.srcPtr = make_cudaPitchedPtr((void *)src, bytes, bytes, 1);
	p.dstPtr = make_cudaPitchedPtr(dst, bytes, bytes, 1);
	p.extent = make_cudaExtent(bytes, 1, 1);
	p.kind = kind;
	return p;
}

static cudaMemsetParams zero_doubles(void *dst, size_t n)
{
	cudaMemsetParams m;
	memset(&m, 0, sizeof(m));
	m.dst = dst;
	m.value = 0;
	m.elementSize = sizeof(float);	// at most 4 bytes: 2 per double
	m.width = 2 * n;
	m.height = 1;
	return m;
}

int main()
{
	float *in_h, *in_d;
	double *part_d, *res_d, result_h = 0, result2_h = 0, expect = 0;
	cudaStream_t s0, s1, s2, s3;
	int bad = 0;

	CK(cudaMallocHost(&in_h, N * sizeof(float)));
	for (int i = 0; i < N; i++) {
		in_h[i] = (float)(i % 7);
		expect += in_h[i];
	}
	CK(cudaMalloc(&in_d, N * sizeof(float)));
	CK(cudaMalloc(&part_d, BLOCKS * sizeof(double)));
	CK(cudaMalloc(&res_d, sizeof(double)));
	CK(cudaStreamCreate(&s0));
	CK(cudaStreamCreate(&s1));
	CK(cudaStreamCreate(&s2));
	CK(cudaStreamCreate(&s3));

	// ---- by hand ----
	seen hs = { &result_h, expect, 0, 0 };
	{
		cudaGraph_t g, clone;
		cudaGraphExec_t e, ce;
		cudaGraphNode_t cp, ms1, ms2, k1, k2, back, host;
		cudaMemcpy3DParms in = copy1d(in_d, in_h, N * sizeof(float),
					      cudaMemcpyHostToDevice);
		cudaMemcpy3DParms out = copy1d(&result_h, res_d, sizeof(double),
					       cudaMemcpyDeviceToHost);
		cudaMemsetParams m1 = zero_doubles(part_d, BLOCKS);
		cudaMemsetParams m2 = zero_doubles(res_d, 1);
		int n = N, nb = BLOCKS;
		void *a1[] = { &in_d, &part_d, &n };
		void *a2[] = { &part_d, &res_d, &nb };
		cudaKernelNodeParams kp;
		cudaHostNodeParams hp = { check_and_reset, &hs };

		CK(cudaGraphCreate(&g, 0));
		CK(cudaGraphAddMemcpyNode(&cp, g, NULL, 0, &in));
		CK(cudaGraphAddMemsetNode(&ms1, g, NULL, 0, &m1));
		CK(cudaGraphAddMemsetNode(&ms2, g, NULL, 0, &m2));
		cudaGraphNode_t d1[] = { cp, ms1 };
		memset(&kp, 0, sizeof(kp));
		kp.func = (void *)reduce;
		kp.gridDim = dim3(BLOCKS);
		kp.blockDim = dim3(THREADS);
		kp.kernelParams = a1;
		CK(cudaGraphAddKernelNode(&k1, g, d1, 2, &kp));
		cudaGraphNode_t d2[] = { k1, ms2 };
		kp.func = (void *)reduce_final;
		kp.gridDim = dim3(1);
		kp.kernelParams = a2;
		CK(cudaGraphAddKernelNode(&k2, g, d2, 2, &kp));
		CK(cudaGraphAddMemcpyNode(&back, g, &k2, 1, &out));
		CK(cudaGraphAddHostNode(&host, g, &back, 1, &hp));
		CK(cudaGraphInstantiate(&e, g, 0));
		CK(cudaGraphClone(&clone, g));
		CK(cudaGraphInstantiate(&ce, clone, 0));
		for (int i = 0; i < LAUNCHES; i++) {
			CK(cudaGraphLaunch(e, s0));
		}
		CK(cudaStreamSynchronize(s0));
		for (int i = 0; i < LAUNCHES; i++) {
			CK(cudaGraphLaunch(ce, s0));
		}
		CK(cudaStreamSynchronize(s0));
		bad += hs.calls != 2 * LAUNCHES || hs.bad || result_h != 0;
		CK(cudaGraphExecDestroy(ce));
		CK(cudaGraphExecDestroy(e));
		CK(cudaGraphDestroy(clone));
		CK(cudaGraphDestroy(g));
	}

	// ---- by stream capture, a free during it ----
	seen cs = { &result2_h, expect, 0, 0 };
	{
		cudaGraph_t g;
		cudaGraphExec_t e;
		cudaEvent_t fork, j1, j2;
		void *scratch;
		CK(cudaMalloc(&scratch, 1 << 20));
		CK(cudaEventCreate(&fork));
		CK(cudaEventCreate(&j1));
		CK(cudaEventCreate(&j2));
		CK(cudaStreamBeginCapture(s1, cudaStreamCaptureModeRelaxed));
		CK(cudaEventRecord(fork, s1));
		CK(cudaStreamWaitEvent(s2, fork, 0));
		CK(cudaStreamWaitEvent(s3, fork, 0));
		CK(cudaMemcpyAsync(in_d, in_h, N * sizeof(float),
				   cudaMemcpyDefault, s1));
		CK(cudaMemsetAsync(part_d, 0, BLOCKS * sizeof(double), s2));
		CK(cudaEventRecord(j1, s2));
		CK(cudaMemsetAsync(res_d, 0, sizeof(double), s3));
		CK(cudaEventRecord(j2, s3));
		CK(cudaFree(scratch));	// the allocator gives memory back
		CK(cudaStreamWaitEvent(s1, j1, 0));
		reduce<<<BLOCKS, THREADS, 0, s1>>>(in_d, part_d, N);
		CK(cudaStreamWaitEvent(s1, j2, 0));
		reduce_final<<<1, THREADS, 0, s1>>>(part_d, res_d, BLOCKS);
		CK(cudaMemcpyAsync(&result2_h, res_d, sizeof(double),
				   cudaMemcpyDefault, s1));
		CK(cudaLaunchHostFunc(s1, check_and_reset, &cs));
		CK(cudaStreamEndCapture(s1, &g));
		CK(cudaGraphInstantiate(&e, g, 0));
		for (int i = 0; i < LAUNCHES; i++) {
			CK(cudaGraphLaunch(e, s0));
		}
		CK(cudaStreamSynchronize(s0));
		bad += cs.calls != LAUNCHES || cs.bad || result2_h != 0;
		CK(cudaGraphExecDestroy(e));
		CK(cudaGraphDestroy(g));
	}

	// ---- Jacobi-like: kernel node arguments swapped per launch ----
	{
		const int n = 1 << 16;
		double *x, *xn, *b, *resid_d, resid = 0, *x_h;
		cudaGraph_t g;
		cudaGraphExec_t e;
		cudaGraphNode_t ms, k, back;
		CK(cudaMallocHost(&x_h, n * sizeof(double)));
		for (int i = 0; i < n; i++) {
			x_h[i] = 1024.0 * (i % 5);
		}
		CK(cudaMalloc(&x, n * sizeof(double)));
		CK(cudaMalloc(&xn, n * sizeof(double)));
		CK(cudaMalloc(&b, n * sizeof(double)));
		CK(cudaMalloc(&resid_d, sizeof(double)));
		CK(cudaMemcpy(x, x_h, n * sizeof(double), cudaMemcpyHostToDevice));
		CK(cudaMemset(b, 0, n * sizeof(double)));
		cudaMemsetParams m = zero_doubles(resid_d, 1);
		cudaMemcpy3DParms out = copy1d(&resid, resid_d, sizeof(double),
					       cudaMemcpyDeviceToHost);
		int nn = n;
		void *a0[] = { &x, &xn, &b, &resid_d, &nn };
		void *a1[] = { &xn, &x, &b, &resid_d, &nn };
		cudaKernelNodeParams p0, p1;
		memset(&p0, 0, sizeof(p0));
		p0.func = (void *)relax;
		p0.gridDim = dim3((n + THREADS - 1) / THREADS);
		p0.blockDim = dim3(THREADS);
		p0.kernelParams = a0;
		p1 = p0;
		p1.kernelParams = a1;
		CK(cudaGraphCreate(&g, 0));
		CK(cudaGraphAddMemsetNode(&ms, g, NULL, 0, &m));
		CK(cudaGraphAddKernelNode(&k, g, &ms, 1, &p0));
		CK(cudaGraphAddMemcpyNode(&back, g, &k, 1, &out));
		CK(cudaGraphInstantiate(&e, g, 0));
		double last = 1e300;
		for (int it = 0; it < 6; it++) {
			CK(cudaGraphExecKernelNodeSetParams(e, k,
							    (it & 1) ? &p1 : &p0));
			CK(cudaGraphLaunch(e, s0));
			CK(cudaStreamSynchronize(s0));
			bad += !(resid < last);	// halves every iteration
			last = resid;
		}
		CK(cudaGraphExecDestroy(e));
		CK(cudaGraphDestroy(g));
	}

	CK(cudaDeviceSynchronize());
	if (bad) {
		printf("FAIL graph_host: %d wrong results (host nodes saw %d "
		       "and %d bad values)\n", bad, hs.bad, cs.bad);
		return 1;
	}
	printf("PASS graph_host (sum %.0f)\n", expect);
	return 0;
}
