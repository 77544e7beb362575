// SPDX-License-Identifier: MIT
// A program whose kernels cuFFT launches (handles the driver gives it
// through an untraced path): a batch of 1-D complex transforms, forward
// then inverse, checked against the input (inverse(forward(x)) = n x).
// Prints PASS or FAIL.
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>
#include <cufft.h>
#include <vector>

int main()
{
	const int n = 4096, batch = 8;
	std::vector<cufftComplex> x(n * batch), y(n * batch);
	size_t bytes = sizeof(cufftComplex) * x.size();
	cufftComplex *d;
	cufftHandle plan;
	int bad = 0;

	for (int i = 0; i < n * batch; i++) {
		x[i].x = (float)(i % 17) - 8.0f;
		x[i].y = (float)(i % 5) - 2.0f;
	}
	if (cudaMalloc(&d, bytes) ||
	    cudaMemcpy(d, x.data(), bytes, cudaMemcpyHostToDevice) ||
	    cufftPlan1d(&plan, n, CUFFT_C2C, batch) != CUFFT_SUCCESS ||
	    cufftExecC2C(plan, d, d, CUFFT_FORWARD) != CUFFT_SUCCESS ||
	    cufftExecC2C(plan, d, d, CUFFT_INVERSE) != CUFFT_SUCCESS ||
	    cudaMemcpy(y.data(), d, bytes, cudaMemcpyDeviceToHost)) {
		fprintf(stderr, "cuda/cufft call failed\n");
		return 2;
	}
	for (int i = 0; i < n * batch; i++) {
		bad += fabsf(y[i].x / n - x[i].x) > 1e-3f ||
		       fabsf(y[i].y / n - x[i].y) > 1e-3f;
	}
	cufftDestroy(plan);
	cudaFree(d);
	printf("%s cufft_c2c: %d errors\n", bad ? "FAIL" : "PASS", bad);
	return bad ? 1 : 0;
}
