// SPDX-License-Identifier: MIT
// The per-call cost benchmark: N launches of an empty kernel and one
// synchronization, timed on the host; prints "launches=N seconds=S".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cuda_runtime.h>

__global__ void empty(int x)
{
	(void)x;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	empty<<<1, 32>>>(0);	// module load and first-launch costs
	if (cudaDeviceSynchronize()) {
		return 2;
	}
	auto t0 = std::chrono::steady_clock::now();
	for (long i = 0; i < n; i++) {
		empty<<<1, 32>>>((int)i);
	}
	if (cudaDeviceSynchronize()) {
		return 2;
	}
	auto t1 = std::chrono::steady_clock::now();
	printf("launches=%ld seconds=%.6f\n", n,
	       std::chrono::duration<double>(t1 - t0).count());
	return 0;
}
