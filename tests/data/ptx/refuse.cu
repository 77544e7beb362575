// SPDX-License-Identifier: MIT
// Corpus for the elastic transformation: kernels that must stay as they
// are, and kernels whose returns need care.
//
// gpumix-test: early_ret_barrier grid=10,1,1 block=128,1,1 smem=0 n=1200 out=1280
// gpumix-test: pred_return grid=6,1,1 block=64,1,1 smem=0 n=300 out=384
// gpumix-test: late_return grid=10,1,1 block=128,1,1 smem=0 n=1200 out=1280
// gpumix-test: reads_ctaid_in_call grid=4,1,1 block=32,1,1 smem=0 n=0 out=128
// gpumix-test: reads_tid_in_call grid=4,1,1 block=32,1,1 smem=0 n=0 out=128
#include <cooperative_groups.h>
namespace cg = cooperative_groups;

// a divergent return before a barrier the other threads reach: refused
extern "C" __global__ void early_ret_barrier(unsigned *out, const unsigned *in, unsigned n)
{
	__shared__ unsigned s[128];
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i >= n)
		return;
	s[threadIdx.x] = in[i];
	__syncthreads();
	out[i] = s[(threadIdx.x + 1) % 128];
}

// a predicated return inside an inline-asm scope, no barrier after it
extern "C" __global__ void pred_return(unsigned *out, const unsigned *in, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	out[i] = 1;
	asm volatile("{\n\t.reg .pred p;\n\tsetp.ge.u32 p, %0, %1;\n\t@p ret;\n\t}"
		     :: "r"(i), "r"(n) : "memory");
	out[i] = in[i] + 5;
}

// divergent return after the last barrier: fine
extern "C" __global__ void late_return(unsigned *out, const unsigned *in, unsigned n)
{
	__shared__ unsigned s[128];
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	s[threadIdx.x] = i < n ? in[i] : 0;
	__syncthreads();
	if (i >= n)
		return;
	out[i] = s[127 - threadIdx.x];
}

__device__ __noinline__ unsigned block_of(void)
{
	return blockIdx.x;
}

__device__ __noinline__ unsigned thread_of(void)
{
	return threadIdx.x;
}

// a callee reads %ctaid: refused (it would see the physical id)
extern "C" __global__ void reads_ctaid_in_call(unsigned *out, const unsigned *in, unsigned n)
{
	out[block_of() * 32 + threadIdx.x % 32] = 1;
}

// a callee reads %tid: block-elastic only
extern "C" __global__ void reads_tid_in_call(unsigned *out, const unsigned *in, unsigned n)
{
	out[blockIdx.x * 32 + thread_of() % 32] = blockIdx.x;
}

// cooperative groups grid sync: refused
extern "C" __global__ void grid_sync(unsigned *out, const unsigned *in, unsigned n)
{
	cg::grid_group g = cg::this_grid();
	out[g.thread_rank()] = 1;
	g.sync();
	out[g.thread_rank()] += out[0];
}

// a hand-made global barrier (bfs style): refused
__device__ volatile unsigned g_arrived;
extern "C" __global__ void spin_barrier(unsigned *out, const unsigned *in, unsigned n)
{
	if (threadIdx.x == 0) {
		atomicAdd((unsigned *)&g_arrived, 1u);
		while (g_arrived < gridDim.x)
			;
	}
	__syncthreads();
	out[blockIdx.x] = 1;
}

// thread-block clusters: refused
extern "C" __global__ void __cluster_dims__(2, 1, 1) cluster(unsigned *out, const unsigned *in, unsigned n)
{
	cg::cluster_group c = cg::this_cluster();
	out[blockIdx.x] = c.block_rank();
	c.sync();
}

// a divergent loop with a barrier inside: refused
extern "C" __global__ void loop_barrier(unsigned *out, const unsigned *in, unsigned n)
{
	__shared__ unsigned s[128];
	unsigned k = in[threadIdx.x] % 5;
	while (k--) {
		s[threadIdx.x] = k;
		__syncthreads();
	}
	out[threadIdx.x] = s[0];
}
