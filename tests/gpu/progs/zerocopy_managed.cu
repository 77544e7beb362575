// SPDX-License-Identifier: MIT
// Zero-copy (mapped pinned) and managed memory, used the way real code
// does, with the host writing inputs and reading results outside any CUDA
// call:
// - cudaHostAlloc(cudaHostAllocMapped) + cudaHostGetDevicePointer: per
//   round the host writes the input, a kernel reads it and writes its
//   output into mapped memory, the host reads it after
//   cudaDeviceSynchronize; the last round leaves the input as it was;
// - a cudaMallocHost buffer handed to a kernel at its host address (on a
//   64-bit unified-addressing system every pinned buffer is
//   device-accessible);
// - cudaMallocManaged: initialised by the host, attached to the stream
//   (cudaStreamAttachMemAsync), cudaMemAdvise and
//   cudaMemPrefetchAsync to the GPU, kernels in a loop on a stream, the
//   host checks after cudaStreamSynchronize, prefetches back, changes the
//   data and runs more kernels.
// Every result is checked against a CPU reference. Prints
// "PASS zerocopy_managed <checksum>".
#include <cstdio>
#include <cuda_runtime.h>

#define N (1 << 20)

__global__ void affine(unsigned *out, const unsigned *in, unsigned a,
		       unsigned b, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		out[i] = in[i] * a + b;
	}
}

__global__ void step(unsigned *x, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		x[i] = (x[i] * 3u + i) % 65521u;
	}
}

static unsigned cpu_step(unsigned x, unsigned i)
{
	return (x * 3u + i) % 65521u;
}

#define CHECK(call)                                                            \
	do {                                                                   \
		cudaError_t e_ = (call);                                       \
		if (e_ != cudaSuccess) {                                       \
			printf("FAIL zerocopy_managed: %s: %s\n", #call,       \
			       cudaGetErrorString(e_));                        \
			return 1;                                              \
		}                                                              \
	} while (0)

int main()
{
	unsigned *in, *out, *din, *dout, *plain, *m;
	unsigned long long sum = 0;
	cudaStream_t s;
	unsigned bad = 0;
	const unsigned blocks = (N + 255) / 256;
	static unsigned ref[N];

	CHECK(cudaSetDeviceFlags(cudaDeviceMapHost));
	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));

	// Zero-copy through mapped pointers.
	CHECK(cudaHostAlloc(&in, N * sizeof(unsigned), cudaHostAllocMapped));
	CHECK(cudaHostAlloc(&out, N * sizeof(unsigned), cudaHostAllocMapped));
	CHECK(cudaHostGetDevicePointer(&din, in, 0));
	CHECK(cudaHostGetDevicePointer(&dout, out, 0));
	for (unsigned round = 0; round < 4; round++) {
		unsigned r = round < 3 ? round : 2;	// round 3: input unchanged
		for (unsigned i = 0; round < 3 && i < N; i++) {
			in[i] = i * 2654435761u + r;
		}
		affine<<<blocks, 256>>>(dout, din, 5u + round, round, N);
		CHECK(cudaGetLastError());
		CHECK(cudaDeviceSynchronize());
		for (unsigned i = 0; i < N; i++) {
			unsigned want = (i * 2654435761u + r) * (5u + round) + round;
			bad += out[i] != want;
			sum += out[i];
		}
	}

	// A cudaMallocHost buffer at its host address.
	CHECK(cudaMallocHost(&plain, N * sizeof(unsigned)));
	for (unsigned i = 0; i < N; i++) {
		plain[i] = i ^ 0x5a5a5a5au;
	}
	affine<<<blocks, 256, 0, s>>>(plain, plain, 7u, 1u, N);
	CHECK(cudaGetLastError());
	CHECK(cudaStreamSynchronize(s));
	for (unsigned i = 0; i < N; i++) {
		bad += plain[i] != (i ^ 0x5a5a5a5au) * 7u + 1u;
		sum += plain[i];
	}

	// Managed memory.
	CHECK(cudaMallocManaged(&m, N * sizeof(unsigned)));
	for (unsigned i = 0; i < N; i++) {
		m[i] = ref[i] = i % 1000u;
	}
	// The stream's own memory: the host may use it while other streams
	// run, once this one is synchronized.
	CHECK(cudaStreamAttachMemAsync(s, m, 0, cudaMemAttachSingle));
	{
		cudaMemLocation dev = { cudaMemLocationTypeDevice, 0 };
		CHECK(cudaMemAdvise(m, N * sizeof(unsigned),
				    cudaMemAdviseSetPreferredLocation, dev));
		CHECK(cudaMemPrefetchAsync(m, N * sizeof(unsigned), dev, 0, s));
	}
	for (unsigned it = 0; it < 10; it++) {
		step<<<blocks, 256, 0, s>>>(m, N);
	}
	CHECK(cudaGetLastError());
	CHECK(cudaStreamSynchronize(s));
	for (unsigned i = 0; i < N; i++) {
		for (unsigned it = 0; it < 10; it++) {
			ref[i] = cpu_step(ref[i], i);
		}
		bad += m[i] != ref[i];
		sum += m[i];
	}
	{
		cudaMemLocation host = { cudaMemLocationTypeHost, 0 };
		CHECK(cudaMemPrefetchAsync(m, N * sizeof(unsigned), host, 0, s));
		CHECK(cudaStreamSynchronize(s));
	}
	for (unsigned i = 0; i < N; i += 3) {
		m[i] += 7u;
		ref[i] += 7u;
	}
	for (unsigned it = 0; it < 3; it++) {
		step<<<blocks, 256>>>(m, N);
	}
	CHECK(cudaGetLastError());
	CHECK(cudaDeviceSynchronize());
	for (unsigned i = 0; i < N; i++) {
		for (unsigned it = 0; it < 3; it++) {
			ref[i] = cpu_step(ref[i], i);
		}
		bad += m[i] != ref[i];
		sum += m[i];
	}

	CHECK(cudaFree(m));
	CHECK(cudaFreeHost(plain));
	CHECK(cudaFreeHost(out));
	CHECK(cudaFreeHost(in));
	CHECK(cudaStreamDestroy(s));
	if (bad) {
		printf("FAIL zerocopy_managed: %u wrong results\n", bad);
		return 1;
	}
	printf("PASS zerocopy_managed %llu\n", sum);
	return 0;
}
