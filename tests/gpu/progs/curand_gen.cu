// SPDX-License-Identifier: MIT
// A program whose kernels cuRAND launches: a seeded generator (the same
// numbers every run, so the result verifies) filling a buffer with
// uniform and normal numbers, checked for range and mean on the CPU.
// Prints PASS or FAIL.
#include <cmath>
#include <cstdio>
#include <cuda_runtime.h>
#include <curand.h>
#include <vector>

int main()
{
	const size_t n = 1 << 20;
	std::vector<float> u(n), g(n);
	float *du, *dg;
	curandGenerator_t gen;
	double su = 0, sg = 0;
	int bad = 0;

	if (cudaMalloc(&du, n * sizeof(float)) || cudaMalloc(&dg, n * sizeof(float)) ||
	    curandCreateGenerator(&gen, CURAND_RNG_PSEUDO_PHILOX4_32_10) ||
	    curandSetPseudoRandomGeneratorSeed(gen, 1234) ||
	    curandGenerateUniform(gen, du, n) ||
	    curandGenerateNormal(gen, dg, n, 0.0f, 1.0f) ||
	    cudaMemcpy(u.data(), du, n * sizeof(float), cudaMemcpyDeviceToHost) ||
	    cudaMemcpy(g.data(), dg, n * sizeof(float), cudaMemcpyDeviceToHost)) {
		fprintf(stderr, "cuda/curand call failed\n");
		return 2;
	}
	for (size_t i = 0; i < n; i++) {
		bad += !(u[i] > 0.0f && u[i] <= 1.0f);
		su += u[i];
		sg += g[i];
	}
	bad += fabs(su / n - 0.5) > 0.01;
	bad += fabs(sg / n) > 0.01;
	curandDestroyGenerator(gen);
	cudaFree(du);
	cudaFree(dg);
	printf("%s curand_gen: %d errors\n", bad ? "FAIL" : "PASS", bad);
	return bad ? 1 : 0;
}
