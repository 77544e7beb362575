# SPDX-License-Identifier: MIT
# A CuPy program: a raw CUDA kernel compiled at run time (NVRTC, loaded
# with cuModuleLoadData), CuPy's own elementwise and reduction kernels,
# checked against NumPy. Prints PASS or FAIL.
import sys

import cupy as cp
import numpy as np

saxpy = cp.RawKernel(r'''
extern "C" __global__ void saxpy(float a, const float *x, float *y, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) y[i] = a * x[i] + y[i];
}''', "saxpy")
n = 1 << 20
hx = (np.arange(n, dtype=np.float32) % 13) - 6
hy = (np.arange(n, dtype=np.float32) % 7) - 3
x, y = cp.asarray(hx), cp.asarray(hy)
saxpy(((n + 255) // 256,), (256,), (np.float32(2.0), x, y, np.int32(n)))
z = cp.sqrt(cp.abs(y)) + x * x
s = float(z.sum())
want = np.sqrt(np.abs(2 * hx + hy)) + hx * hx
bad = int(np.count_nonzero(np.abs(cp.asnumpy(z) - want) > 1e-3 * (1 + np.abs(want))))
bad += abs(s - float(want.sum())) > 1e-3 * abs(float(want.sum()))
print("%s cupy_raw: %d errors" % ("FAIL" if bad else "PASS", bad))
sys.exit(1 if bad else 0)
