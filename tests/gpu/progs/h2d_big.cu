// SPDX-License-Identifier: MIT
// The capture-throughput benchmark: R host-to-device copies of M MiB
// (distinct contents when -d, identical otherwise), timed on the host;
// prints "bytes=B seconds=S".
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>

int main(int argc, char **argv)
{
	size_t mib = argc > 1 ? (size_t)atol(argv[1]) : 256;
	int reps = argc > 2 ? atoi(argv[2]) : 4;
	int distinct = argc > 3 && !strcmp(argv[3], "-d");
	size_t bytes = mib << 20;
	char *h = (char *)malloc(bytes), *d;
	for (size_t i = 0; i < bytes; i++) {
		h[i] = (char)(i * 31);
	}
	if (cudaMalloc(&d, bytes)) {
		return 2;
	}
	auto t0 = std::chrono::steady_clock::now();
	for (int r = 0; r < reps; r++) {
		if (distinct) {
			h[0] = (char)r;	// a different buffer: no deduplication
		}
		if (cudaMemcpy(d, h, bytes, cudaMemcpyHostToDevice)) {
			return 2;
		}
	}
	auto t1 = std::chrono::steady_clock::now();
	printf("bytes=%zu seconds=%.6f\n", bytes * reps,
	       std::chrono::duration<double>(t1 - t0).count());
	cudaFree(d);
	return 0;
}
