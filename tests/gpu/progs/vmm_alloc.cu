// SPDX-License-Identifier: MIT
// Virtual memory management as the CUDA samples (vectorAddMMAP) and the
// growing allocators of JAX and PyTorch (expandable segments) use it: a
// reservation much larger than what is mapped; two physical allocations
// mapped next to each other with access set over both, a vector add
// whose middle vector straddles them; the segment grown by two more
// allocations and a kernel over a buffer across three of them; the last
// one unmapped and released, a new one mapped in its place and used; all
// unmapped, released and the reservation freed. Prints "PASS vmm_alloc".
#include <cstdio>
#include <cstring>
#include <cuda.h>
#include <cuda_runtime.h>

#define CU(call)                                                              \
	do {                                                                  \
		CUresult r_ = (call);                                         \
		if (r_ != CUDA_SUCCESS) {                                     \
			const char *s_ = "?";                                 \
			cuGetErrorName(r_, &s_);                              \
			fprintf(stderr, "%s: %s\n", #call, s_);               \
			return 2;                                             \
		}                                                             \
	} while (0)
#define RT(call)                                                              \
	do {                                                                  \
		cudaError_t e_ = (call);                                      \
		if (e_ != cudaSuccess) {                                      \
			fprintf(stderr, "%s: %s\n", #call,                    \
				cudaGetErrorString(e_));                      \
			return 2;                                             \
		}                                                             \
	} while (0)

#define N (1 << 20)		// floats per vector (4 MiB)
#define CHUNKS 8		// physical allocations at most

__global__ void vec_add(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		c[i] = a[i] + b[i];
	}
}

__global__ void scale_add(float *x, float f, float g, size_t n)
{
	size_t i = (size_t)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		x[i] = x[i] * f + g;
	}
}

static float h_a[N], h_b[N], h_c[N];

int main()
{
	CUmemAllocationProp prop;
	CUmemAccessDesc acc;
	CUmemGenericAllocationHandle mem[CHUNKS];
	CUdeviceptr va;
	CUdevice dev;
	size_t gran, chunk, reserve;
	int bad = 0;

	RT(cudaFree(0));	// the runtime's context, current for the driver
	CU(cuCtxGetDevice(&dev));
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	CU(cuMemGetAllocationGranularity(&gran, &prop,
					 CU_MEM_ALLOC_GRANULARITY_RECOMMENDED));
	// A chunk holds at least two vectors' worth, in whole granules.
	chunk = (2 * N * sizeof(float) + gran - 1) / gran * gran;
	reserve = 64 * chunk;	// far more than ever mapped
	CU(cuMemAddressReserve(&va, reserve, 0, 0, 0));
	memset(&acc, 0, sizeof(acc));
	acc.location = prop.location;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;

	// Two physical allocations side by side; b straddles them.
	for (int k = 0; k < 2; k++) {
		CU(cuMemCreate(&mem[k], chunk, &prop, 0));
		CU(cuMemMap(va + k * chunk, chunk, 0, mem[k], 0));
	}
	CU(cuMemSetAccess(va, 2 * chunk, &acc, 1));
	float *a = (float *)va;
	float *b = (float *)(va + chunk - N * sizeof(float) / 2);
	float *c = (float *)(va + chunk + N * sizeof(float) / 2);
	for (int i = 0; i < N; i++) {
		h_a[i] = (float)(i % 1000);
		h_b[i] = (float)(i % 333) * 2.0f;
	}
	RT(cudaMemcpy(a, h_a, sizeof(h_a), cudaMemcpyHostToDevice));
	RT(cudaMemcpy(b, h_b, sizeof(h_b), cudaMemcpyHostToDevice));
	vec_add<<<N / 256, 256>>>(a, b, c, N);
	RT(cudaGetLastError());
	RT(cudaMemcpy(h_c, c, sizeof(h_c), cudaMemcpyDeviceToHost));
	for (int i = 0; i < N && bad < 10; i++) {
		bad += h_c[i] != h_a[i] + h_b[i];
	}

	// The segment grows by two allocations; x runs across three.
	for (int k = 2; k < 4; k++) {
		CU(cuMemCreate(&mem[k], chunk, &prop, 0));
		CU(cuMemMap(va + k * chunk, chunk, 0, mem[k], 0));
		CU(cuMemSetAccess(va + k * chunk, chunk, &acc, 1));
	}
	size_t xn = 2 * chunk / sizeof(float);
	float *x = (float *)(va + chunk + chunk / 2);
	RT(cudaMemset(x, 0, xn * sizeof(float)));
	scale_add<<<(unsigned)((xn + 255) / 256), 256>>>(x, 3.0f, 1.0f, xn);
	scale_add<<<(unsigned)((xn + 255) / 256), 256>>>(x, 2.0f, 0.5f, xn);
	RT(cudaGetLastError());
	RT(cudaMemcpy(h_c, x + xn - N, sizeof(h_c), cudaMemcpyDeviceToHost));
	for (int i = 0; i < N && bad < 10; i++) {
		bad += h_c[i] != 2.5f;
	}

	// It shrinks: the last allocation goes back; a new one takes its
	// place later.
	RT(cudaDeviceSynchronize());
	CU(cuMemUnmap(va + 3 * chunk, chunk));
	CU(cuMemRelease(mem[3]));
	CU(cuMemCreate(&mem[3], chunk, &prop, 0));
	CU(cuMemMap(va + 3 * chunk, chunk, 0, mem[3], 0));
	CU(cuMemSetAccess(va + 3 * chunk, chunk, &acc, 1));
	float *y = (float *)(va + 3 * chunk);
	RT(cudaMemcpy(y, h_a, sizeof(h_a), cudaMemcpyHostToDevice));
	scale_add<<<N / 256, 256>>>(y, 0.5f, 4.0f, N);
	RT(cudaGetLastError());
	RT(cudaMemcpy(h_c, y, sizeof(h_c), cudaMemcpyDeviceToHost));
	for (int i = 0; i < N && bad < 10; i++) {
		bad += h_c[i] != h_a[i] * 0.5f + 4.0f;
	}

	RT(cudaDeviceSynchronize());
	for (int k = 0; k < 4; k++) {
		CU(cuMemUnmap(va + k * chunk, chunk));
		CU(cuMemRelease(mem[k]));
	}
	CU(cuMemAddressFree(va, reserve));
	printf("%s vmm_alloc: %d errors (granularity %zu, chunks of %zu "
	       "bytes)\n", bad ? "FAIL" : "PASS", bad, gran, chunk);
	return bad ? 1 : 0;
}
