// SPDX-License-Identifier: MIT
// A program whose own CUDA calls fail: its kernel writes through a bad
// pointer (an illegal address), so the copy after it and every later call
// return 700. Like many programs it does not check, and exits 0. The
// capture must say so and gpumix reconstruct must refuse the bundle
// unless given --allow-failed-calls. Prints "DONE fault <error>".
#include <cstdio>
#include <cuda_runtime.h>

__global__ void bad_store(unsigned *p)
{
	p[threadIdx.x * 1024 * 1024] = threadIdx.x;
}

int main()
{
	unsigned *d, h[32];

	cudaMalloc(&d, sizeof(h));
	bad_store<<<1, 32>>>((unsigned *)0x10);
	cudaError_t err = cudaMemcpy(h, d, sizeof(h), cudaMemcpyDeviceToHost);
	cudaFree(d);
	printf("DONE fault %d\n", (int)err);
	return 0;
}
