# SPDX-License-Identifier: MIT
# A CuPy FFT program: cupy.fft through its plan cache (cuFFT's kernels
# reached through the driver's export table, handed to recorded calls
# such as cuKernelGetFunction: the capture must name them, or report the
# loss), forward and inverse, 1-D batched and 2-D, repeated so that the
# cached plans run again; checked against NumPy. Prints PASS or FAIL.
import sys

import cupy as cp
import numpy as np

rng = np.random.default_rng(7)
bad = 0
for rounds in range(3):
    h1 = (rng.standard_normal((64, 4096)) +
          1j * rng.standard_normal((64, 4096))).astype(np.complex64)
    h2 = rng.standard_normal((512, 512)).astype(np.float32)
    d1 = cp.asarray(h1)
    f1 = cp.fft.fft(d1, axis=1)
    back = cp.fft.ifft(f1, axis=1)
    f2 = cp.fft.rfft2(cp.asarray(h2))
    want1 = np.fft.fft(h1, axis=1)
    want2 = np.fft.rfft2(h2)
    err1 = float(np.max(np.abs(cp.asnumpy(f1) - want1)) / np.max(np.abs(want1)))
    err2 = float(np.max(np.abs(cp.asnumpy(f2) - want2)) / np.max(np.abs(want2)))
    errb = float(np.max(np.abs(cp.asnumpy(back) - h1)))
    bad += (err1 > 1e-4) + (err2 > 1e-4) + (errb > 1e-3)
print("%s cupy_fft: %d errors" % ("FAIL" if bad else "PASS", bad))
sys.exit(1 if bad else 0)
