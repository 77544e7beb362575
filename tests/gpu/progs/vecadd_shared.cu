// SPDX-License-Identifier: MIT
// A small runtime-API program built with -cudart shared: the capture must
// see it exactly like a static-cudart one. Prints PASS or FAIL.
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

#define CHECK(x)                                                               \
	do {                                                                   \
		cudaError_t e_ = (x);                                          \
		if (e_ != cudaSuccess) {                                       \
			fprintf(stderr, "%s: %s\n", #x, cudaGetErrorString(e_)); \
			return 2;                                              \
		}                                                              \
	} while (0)

__global__ void vecadd(const float *a, const float *b, float *c, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		c[i] = a[i] + b[i];
	}
}

int main()
{
	const int n = 1 << 20, launches = 10;
	size_t bytes = n * sizeof(float);
	float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes);
	float *c = (float *)malloc(bytes), *da, *db, *dc;
	int bad = 0;

	for (int i = 0; i < n; i++) {
		a[i] = (float)i;
		b[i] = 2.0f * i;
	}
	CHECK(cudaMalloc(&da, bytes));
	CHECK(cudaMalloc(&db, bytes));
	CHECK(cudaMalloc(&dc, bytes));
	CHECK(cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice));
	CHECK(cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice));
	for (int k = 0; k < launches; k++) {
		vecadd<<<(n + 255) / 256, 256>>>(da, db, dc, n);
		CHECK(cudaGetLastError());
	}
	CHECK(cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost));
	for (int i = 0; i < n; i++) {
		bad += c[i] != 3.0f * i;
	}
	CHECK(cudaFree(da));
	CHECK(cudaFree(db));
	CHECK(cudaFree(dc));
	printf("resource kernel=vecadd launches=%d\n", launches);
	printf("%s vecadd_shared: %d errors\n", bad ? "FAIL" : "PASS", bad);
	return bad ? 1 : 0;
}
