// SPDX-License-Identifier: MIT
// A result that is nondeterministic by nature: a kernel spins on clock64
// and writes the GPU's global timer, and the program copies it back along
// with a deterministic result. Two captures differ in the first result
// only (gpumix trace diff); a replay must fail naming that copy unless the
// program is marked nondeterministic. Prints "PASS clock_result".
#include <cstdio>
#include <cuda_runtime.h>

__global__ void timed(unsigned long long *t, unsigned *v)
{
	long long start = clock64();
	while (clock64() - start < 100000) {
	}
	unsigned long long g;
	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(g));
	if (threadIdx.x == 0) {
		t[0] = g;
		t[1] = (unsigned long long)(clock64() - start);
	}
	v[threadIdx.x] = threadIdx.x * 3 + 1;
}

int main()
{
	unsigned long long *t, ht[2];
	unsigned *v, hv[64];

	if (cudaMalloc(&t, sizeof(ht)) || cudaMalloc(&v, sizeof(hv))) {
		printf("FAIL clock_result: setup\n");
		return 1;
	}
	timed<<<1, 64>>>(t, v);
	cudaMemcpy(ht, t, sizeof(ht), cudaMemcpyDeviceToHost);
	cudaMemcpy(hv, v, sizeof(hv), cudaMemcpyDeviceToHost);
	if (cudaGetLastError() || hv[63] != 63 * 3 + 1) {
		printf("FAIL clock_result\n");
		return 1;
	}
	printf("PASS clock_result\n");
	return 0;
}
