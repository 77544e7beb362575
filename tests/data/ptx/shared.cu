// SPDX-License-Identifier: MIT
// Corpus for the elastic transformation: shared memory, barriers, warps.
//
// gpumix-test: reduce_shared grid=37,1,1 block=256,1,1 smem=0 n=9400 out=37
// gpumix-test: dyn_shared grid=20,1,1 block=128,1,1 smem=512 n=2560 out=2560
// gpumix-test: stencil2d grid=5,6,1 block=16,8,1 smem=0 n=7680 out=7680
// gpumix-test: shuffle grid=11,1,1 block=128,1,1 smem=0 n=1408 out=44
// gpumix-test: histogram grid=16,1,1 block=192,1,1 smem=0 n=8000 out=64
// gpumix-test: ballot grid=8,1,1 block=64,1,1 smem=0 n=512 out=16
// gpumix-test: uniform_return grid=12,1,1 block=64,1,1 smem=0 n=8 out=12
// gpumix-test: named_barrier grid=6,1,1 block=128,1,1 smem=0 n=768 out=768

extern "C" __global__ void reduce_shared(unsigned *out, const unsigned *in, unsigned n)
{
	__shared__ unsigned s[256];
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? in[i] : 0;
	__syncthreads();
	for (unsigned k = blockDim.x / 2; k > 0; k >>= 1) {
		if (threadIdx.x < k)
			s[threadIdx.x] += s[threadIdx.x + k];
		__syncthreads();
	}
	if (threadIdx.x == 0)
		out[blockIdx.x] = s[0];
}

// dynamic shared memory: reverse a block's slice
extern "C" __global__ void dyn_shared(unsigned *out, const unsigned *in, unsigned n)
{
	extern __shared__ unsigned d[];
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	d[threadIdx.x] = in[i];
	__syncthreads();
	out[i] = d[blockDim.x - 1 - threadIdx.x] + blockIdx.x;
}

// 2-D blocks and grid with a shared tile and halo
extern "C" __global__ void stencil2d(unsigned *out, const unsigned *in, unsigned n)
{
	__shared__ unsigned tile[10][18];
	unsigned w = gridDim.x * blockDim.x, h = gridDim.y * blockDim.y;
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y * blockDim.y + threadIdx.y;
	for (int dy = threadIdx.y; dy < 10; dy += blockDim.y)
		for (int dx = threadIdx.x; dx < 18; dx += blockDim.x) {
			int gx = blockIdx.x * blockDim.x + dx - 1;
			int gy = blockIdx.y * blockDim.y + dy - 1;
			tile[dy][dx] = (gx >= 0 && gy >= 0 && gx < (int)w && gy < (int)h) ? in[gy * w + gx] : 0;
		}
	__syncthreads();
	unsigned tx = threadIdx.x + 1, ty = threadIdx.y + 1;
	out[y * w + x] = tile[ty][tx] * 4 + tile[ty - 1][tx] + tile[ty + 1][tx] +
			 tile[ty][tx - 1] + tile[ty][tx + 1];
}

// warp shuffles: one sum per warp
extern "C" __global__ void shuffle(unsigned *out, const unsigned *in, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned v = in[i];
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_down_sync(0xffffffffu, v, o);
	if ((threadIdx.x & 31) == 0)
		out[i / 32] = v;
}

// shared-memory atomics, then global atomics (order-independent)
extern "C" __global__ void histogram(unsigned *out, const unsigned *in, unsigned n)
{
	__shared__ unsigned bins[64];
	if (threadIdx.x < 64)
		bins[threadIdx.x] = 0;
	__syncthreads();
	for (unsigned i = blockIdx.x * blockDim.x + threadIdx.x; i < n;
	     i += blockDim.x * gridDim.x)
		atomicAdd(&bins[in[i] & 63], 1u);
	__syncthreads();
	if (threadIdx.x < 64)
		atomicAdd(&out[threadIdx.x], bins[threadIdx.x]);
}

// warp votes
extern "C" __global__ void ballot(unsigned *out, const unsigned *in, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned b = __ballot_sync(0xffffffffu, in[i] & 1);
	if ((threadIdx.x & 31) == 0)
		out[i / 32] = b ^ blockIdx.x;
}

// an early return that the whole block takes: still block-elastic
extern "C" __global__ void uniform_return(unsigned *out, const unsigned *in, unsigned n)
{
	__shared__ unsigned s[64];
	if (blockIdx.x >= n) {
		if (threadIdx.x == 0)
			out[blockIdx.x] = 7;
		return;
	}
	s[threadIdx.x] = threadIdx.x * blockIdx.x;
	__syncthreads();
	if (threadIdx.x == 0) {
		unsigned t = 0;
		for (int k = 0; k < 64; k++)
			t += s[k];
		out[blockIdx.x] = t;
	}
}

// a named barrier with a thread count: the loop tail uses another id
extern "C" __global__ void named_barrier(unsigned *out, const unsigned *in, unsigned n)
{
	__shared__ unsigned s[128];
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = in[i];
	if (threadIdx.x < 64) {
		asm volatile("bar.sync 1, 64;" ::: "memory");
		out[i] = s[63 - threadIdx.x] + blockIdx.x;
	} else {
		asm volatile("bar.sync 2, 64;" ::: "memory");
		out[i] = s[191 - threadIdx.x] + 2 * blockIdx.x;
	}
}
