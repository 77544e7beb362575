// SPDX-License-Identifier: MIT
// Asynchronous device-to-host copies into page-locked memory on several
// streams, with events and a reused buffer, as NVIDIA's simpleStreams and
// asyncAPI samples use them (written here):
//   - simpleStreams: rounds of a kernel on each of 4 streams
//     (cudaStreamCreate: blocking) over its quarter of a 64 MiB array,
//     then a 16 MiB asynchronous copy of each quarter into the same
//     quarter of one page-locked buffer; one event recorded on the legacy
//     stream after all rounds and synchronized; the buffer then holds the
//     last round's values. The earlier rounds' copies are overwritten
//     before any synchronization: the capture records them as no results
//     (doc/bundle-format.md, d2h_hash), the last round's verify.
//   - asyncAPI: the buffer copied in, incremented and copied back on the
//     legacy stream, an event after it polled with cudaEventQuery.
//   - a pending copy of a blocking stream overwritten by a synchronous
//     cudaMemcpy into the same buffer.
// Prints "PASS streams_reuse".
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define N (16u << 20)		/* ints: 64 MiB */
#define NSTREAMS 4
#define ROUNDS 5

__global__ void add_array(int *d, int n, int factor)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		d[i] += factor;
	}
}

#define CK(x)                                                                  \
	do {                                                                   \
		cudaError_t e_ = (x);                                          \
		if (e_ != cudaSuccess) {                                       \
			printf("FAIL streams_reuse: %s: %s\n", #x,             \
			       cudaGetErrorString(e_));                        \
			return 1;                                              \
		}                                                              \
	} while (0)

int main()
{
	const int q = N / NSTREAMS;
	cudaStream_t st[NSTREAMS];
	cudaEvent_t start, stop;
	int *d, *d2, *h, *h2;
	long bad = 0;
	float ms = 0;

	CK(cudaMalloc(&d, N * sizeof(int)));
	CK(cudaMalloc(&d2, N * sizeof(int)));
	CK(cudaMallocHost(&h, N * sizeof(int)));
	CK(cudaMallocHost(&h2, N * sizeof(int)));
	for (int i = 0; i < NSTREAMS; i++) {
		CK(cudaStreamCreate(&st[i]));
	}
	CK(cudaEventCreateWithFlags(&start, cudaEventBlockingSync));
	CK(cudaEventCreateWithFlags(&stop, cudaEventBlockingSync));

	// simpleStreams
	memset(h, 255, N * sizeof(int));
	CK(cudaMemset(d, 0, N * sizeof(int)));
	CK(cudaEventRecord(start, 0));
	for (int r = 0; r < ROUNDS; r++) {
		for (int i = 0; i < NSTREAMS; i++) {
			add_array<<<q / 512, 512, 0, st[i]>>>(d + i * q, q, 1);
		}
		for (int i = 0; i < NSTREAMS; i++) {
			CK(cudaMemcpyAsync(h + i * q, d + i * q, q * sizeof(int),
					   cudaMemcpyDeviceToHost, st[i]));
		}
	}
	CK(cudaEventRecord(stop, 0));
	CK(cudaEventSynchronize(stop));
	CK(cudaEventElapsedTime(&ms, start, stop));
	for (unsigned i = 0; i < N; i++) {
		bad += h[i] != ROUNDS;
	}

	// asyncAPI
	for (unsigned i = 0; i < N; i++) {
		h[i] = (int)(i % 1000);
	}
	CK(cudaMemcpyAsync(d, h, N * sizeof(int), cudaMemcpyHostToDevice, 0));
	add_array<<<N / 512, 512>>>(d, N, 7);
	CK(cudaMemcpyAsync(h, d, N * sizeof(int), cudaMemcpyDeviceToHost, 0));
	CK(cudaEventRecord(stop, 0));
	unsigned long polls = 0;
	while (cudaEventQuery(stop) == cudaErrorNotReady) {
		polls++;
	}
	for (unsigned i = 0; i < N; i++) {
		bad += h[i] != (int)(i % 1000) + 7;
	}

	// a synchronous copy over a pending one
	CK(cudaMemcpyAsync(d2, h, N * sizeof(int), cudaMemcpyHostToDevice,
			   st[0]));
	add_array<<<N / 512, 512, 0, st[0]>>>(d2, N, 1);
	CK(cudaMemcpyAsync(h2, d2, N * sizeof(int), cudaMemcpyDeviceToHost,
			   st[0]));
	CK(cudaMemcpy(h2, d, N * sizeof(int), cudaMemcpyDeviceToHost));
	for (unsigned i = 0; i < N; i++) {
		bad += h2[i] != (int)(i % 1000) + 7;
	}

	CK(cudaDeviceSynchronize());
	if (bad) {
		printf("FAIL streams_reuse: %ld wrong values\n", bad);
		return 1;
	}
	printf("PASS streams_reuse (%.2f ms for %d rounds, %lu polls)\n", ms,
	       ROUNDS, polls);
	return 0;
}
