// SPDX-License-Identifier: MIT
// Corpus for the elastic transformation: simple thread-indexed kernels.
// Every kernel takes (unsigned *out, const unsigned *in, unsigned n) so
// that tests/gpu/elastic_run can launch it; "gpumix-test:" lines give the
// logical launch (grid, block, dynamic shared bytes, n, out words).
//
// gpumix-test: vecadd grid=40,1,1 block=256,1,1 smem=0 n=10000 out=10240
// gpumix-test: grid_stride grid=7,1,1 block=96,1,1 smem=0 n=5000 out=5000
// gpumix-test: grid3d grid=3,4,2 block=8,4,2 smem=0 n=0 out=1536
// gpumix-test: local_array grid=9,1,1 block=128,1,1 smem=0 n=1152 out=1152
// gpumix-test: with_call grid=5,1,1 block=64,1,1 smem=0 n=320 out=320
// gpumix-test: no_ids grid=4,1,1 block=32,1,1 smem=0 n=0 out=1

// early return, 1-D grid
extern "C" __global__ void vecadd(unsigned *out, const unsigned *in, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	out[i] = in[i] * 3u + i;
}

// grid-stride loop: depends on gridDim.x * blockDim.x
extern "C" __global__ void grid_stride(unsigned *out, const unsigned *in, unsigned n)
{
	for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += gridDim.x * blockDim.x)
		out[i] = in[i] ^ (gridDim.x * 1000u + blockDim.x);
}

// 3-D grid and block: every id and dimension reaches the output
extern "C" __global__ void grid3d(unsigned *out, const unsigned *in, unsigned n)
{
	unsigned b = blockIdx.x + gridDim.x * (blockIdx.y + gridDim.y * blockIdx.z);
	unsigned t = threadIdx.x + blockDim.x * (threadIdx.y + blockDim.y * threadIdx.z);
	unsigned nt = blockDim.x * blockDim.y * blockDim.z;
	out[b * nt + t] = (blockIdx.x << 24) | (blockIdx.y << 20) | (blockIdx.z << 16) |
			  (threadIdx.x << 8) | (threadIdx.y << 4) | threadIdx.z |
			  ((gridDim.x + gridDim.y + gridDim.z) << 28);
}

// a per-thread array in local memory
extern "C" __global__ void local_array(unsigned *out, const unsigned *in, unsigned n)
{
	unsigned a[24];
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	for (int k = 0; k < 24; k++)
		a[k] = in[(i + k * 7) % n];
	unsigned s = 0;
	for (int k = 0; k < 24; k++)
		s += a[(k * 5 + i) % 24] * (k + 1);
	out[i] = s;
}

__device__ __noinline__ unsigned mix(unsigned a, unsigned b)
{
	return (a * 2654435761u) ^ (b >> 3);
}

// a call to a function that reads no special register
extern "C" __global__ void with_call(unsigned *out, const unsigned *in, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		out[i] = mix(in[i], i);
}

// reads no id at all (still transformed: one logical thread per thread)
extern "C" __global__ void no_ids(unsigned *out, const unsigned *in, unsigned n)
{
	atomicAdd(out, 1u);
}
