// SPDX-License-Identifier: MIT
// Asynchronous results synchronized through events, the host buffer
// reused right after (before any stream or context synchronization), as
// pipelined programs do: per round a kernel fills a device buffer, an
// async copy brings it to one pinned buffer, an event is recorded after
// it, and the program learns the copy is done by cudaEventSynchronize,
// by polling cudaEventQuery, or through a stream that waited for the
// event (cudaStreamWaitEvent + cudaStreamSynchronize), or by a copy on a
// blocking stream followed by an event on the legacy stream; it checks
// the data, then overwrites the buffer. The capture must hash each result
// at that synchronization (doc/bundle-format.md, d2h_hash), so that the
// replay verifies. Prints "PASS event_reuse".
#include <cstdio>
#include <cstring>
#include <cuda_runtime.h>

#define N (1 << 16)

__global__ void fill(unsigned *d, unsigned round)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < N) {
		d[i] = i * 2654435761u + round;
	}
}

int main()
{
	unsigned *d, *h;
	cudaStream_t s1, s2;
	cudaEvent_t e;
	int bad = 0;

	if (cudaMalloc(&d, N * sizeof(unsigned)) ||
	    cudaMallocHost(&h, N * sizeof(unsigned)) ||
	    cudaStreamCreate(&s1) || cudaStreamCreate(&s2) ||
	    cudaEventCreateWithFlags(&e, cudaEventDisableTiming)) {
		printf("FAIL event_reuse: setup\n");
		return 1;
	}
	for (unsigned round = 0; round < 8; round++) {
		fill<<<N / 256, 256, 0, s1>>>(d, round);
		cudaMemcpyAsync(h, d, N * sizeof(unsigned),
				cudaMemcpyDeviceToHost, s1);
		switch (round % 4) {
		case 0:
			cudaEventRecord(e, s1);
			cudaEventSynchronize(e);
			break;
		case 1:
			cudaEventRecord(e, s1);
			while (cudaEventQuery(e) == cudaErrorNotReady) {
			}
			break;
		case 2:
			cudaEventRecord(e, s1);
			cudaStreamWaitEvent(s2, e, 0);
			cudaStreamSynchronize(s2);
			break;
		case 3:
			/* the legacy stream waits for blocking s1's work */
			cudaEventRecord(e, 0);
			cudaEventSynchronize(e);
			break;
		}
		for (unsigned i = 0; i < N; i++) {
			bad += h[i] != i * 2654435761u + round;
		}
		memset(h, 0xab, N * sizeof(unsigned));	/* reused */
	}
	cudaDeviceSynchronize();
	if (bad || cudaGetLastError()) {
		printf("FAIL event_reuse: %d wrong values\n", bad);
		return 1;
	}
	printf("PASS event_reuse\n");
	return 0;
}
