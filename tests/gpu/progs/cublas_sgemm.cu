// SPDX-License-Identifier: MIT
// A program whose kernels are launched by a library (cuBLAS): SGEMM of two
// small matrices checked against the CPU. Prints PASS or FAIL.
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cublas_v2.h>
#include <cuda_runtime.h>

int main()
{
	const int n = 256;
	size_t bytes = n * n * sizeof(float);
	float *a = (float *)malloc(bytes), *b = (float *)malloc(bytes);
	float *c = (float *)malloc(bytes), *da, *db, *dc;
	float one = 1.0f, zero = 0.0f;
	cublasHandle_t h;
	int bad = 0;

	for (int i = 0; i < n * n; i++) {
		a[i] = (float)(i % 7) - 3.0f;
		b[i] = (float)(i % 5) - 2.0f;
	}
	if (cudaMalloc(&da, bytes) || cudaMalloc(&db, bytes) || cudaMalloc(&dc, bytes) ||
	    cudaMemcpy(da, a, bytes, cudaMemcpyHostToDevice) ||
	    cudaMemcpy(db, b, bytes, cudaMemcpyHostToDevice) ||
	    cublasCreate(&h) != CUBLAS_STATUS_SUCCESS ||
	    cublasSgemm(h, CUBLAS_OP_N, CUBLAS_OP_N, n, n, n, &one, da, n, db, n,
			&zero, dc, n) != CUBLAS_STATUS_SUCCESS ||
	    cudaMemcpy(c, dc, bytes, cudaMemcpyDeviceToHost)) {
		fprintf(stderr, "cuda/cublas call failed\n");
		return 2;
	}
	for (int i = 0; i < n && bad < 10; i++) {
		for (int j = 0; j < n; j++) {
			float s = 0;
			for (int k = 0; k < n; k++) {
				s += a[k * n + i] * b[j * n + k];
			}
			bad += fabsf(s - c[j * n + i]) > 1e-3f * (1 + fabsf(s));
		}
	}
	cublasDestroy(h);
	cudaFree(da);
	cudaFree(db);
	cudaFree(dc);
	printf("%s cublas_sgemm: %d errors\n", bad ? "FAIL" : "PASS", bad);
	return bad ? 1 : 0;
}
