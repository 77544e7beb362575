// SPDX-License-Identifier: MIT
//
// Kernels for the replay GPU tests (tests/gpu/replay_*.sh): built with
// `nvcc -fatbin -arch=sm_90` and replayed from hand-built models written
// by build/tests/gen-workload (tests/tools/gen_workload.c), which knows
// their mangled names and parameter layouts.

__constant__ unsigned c_add;

struct span {
	unsigned *p;
	unsigned long long n;
};

// _Z5scalePjPKjjj: params at 0, 8, 16, 20
__global__ void scale(unsigned *out, const unsigned *in, unsigned mul,
		      unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		out[i] = in[i] * mul + c_add;
	}
}

// A device pointer the host stores with cudaMemcpyToSymbol (as cuFFT
// stores its twiddle table's address): the replay must store its own.
__device__ unsigned *g_out;

// _Z9scale_gblPKjjj: params at 0, 8, 12; writes through g_out
__global__ void scale_gbl(const unsigned *in, unsigned mul, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		g_out[i] = in[i] * mul + c_add;
	}
}

// Batched, as cuBLAS's *Batched calls: tables of device pointers in device
// memory, one slice of n elements per entry; thread i works on element
// i % n of slice i / n.
// _Z10scale_ptrsPKPjPKPKjjj: params at 0, 8, 16, 20
__global__ void scale_ptrs(unsigned *const *outs, const unsigned *const *ins,
			   unsigned mul, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	unsigned b = i / n, j = i % n;

	outs[b][j] = ins[b][j] * mul + c_add;
}

// _Z4incr4span: one 16-byte struct parameter holding a pointer
__global__ void incr(span s)
{
	unsigned long long i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < s.n) {
		s.p[i] += 1;
	}
}

// _Z8tex_copyPjyj: a texture object parameter
__global__ void tex_copy(unsigned *out, cudaTextureObject_t t, unsigned n)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		out[i] = tex1Dfetch<unsigned>(t, i);
	}
}

// _Z10tex2d_copyPjyjj: a texture object over a CUDA array of 32-bit
// elements, read at element coordinates (point sampling)
__global__ void tex2d_copy(unsigned *out, cudaTextureObject_t t, unsigned w,
			   unsigned h)
{
	unsigned i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < w * h) {
		out[i] = tex2D<unsigned>(t, i % w, i / w);
	}
}

// _Z4spinPVj: never returns unless *flag becomes non-zero (watchdog test)
__global__ void spin(volatile unsigned *flag)
{
	while (*flag == 0) {
	}
}
