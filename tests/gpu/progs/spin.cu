// SPDX-License-Identifier: MIT
// Launches short kernels until killed (the killed-mid-capture test); says
// "running" once it has launched and synchronized a first batch.
#include <cstdio>
#include <cuda_runtime.h>
#include <unistd.h>

__global__ void tick(int *c)
{
	atomicAdd(c, 1);
}

int main()
{
	int *d;
	if (cudaMalloc(&d, sizeof(int))) {
		return 2;
	}
	for (long k = 0;; k++) {
		tick<<<1, 32>>>(d);
		if (k == 100) {
			cudaDeviceSynchronize();
			printf("running\n");
			fflush(stdout);
		}
		if (k % 1000 == 0) {
			cudaDeviceSynchronize();
			usleep(1000);
		}
	}
}
