// SPDX-License-Identifier: MIT
// Corpus for the elastic transformation: dynamic parallelism (built with
// -rdc=true): the parent is refused, the child is an ordinary kernel.
extern "C" __global__ void child(unsigned *out, const unsigned *in, unsigned n)
{
	out[blockIdx.x * blockDim.x + threadIdx.x] = n;
}

extern "C" __global__ void parent(unsigned *out, const unsigned *in, unsigned n)
{
	if (threadIdx.x == 0)
		child<<<1, 32>>>(out + blockIdx.x * 32, in, n);
}
