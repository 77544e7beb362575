/* SPDX-License-Identifier: MIT */
/*
 * What the benchmarks' small CUDA driver programs (bench/driver_lock/,
 * bench/host_pages/) share: CK(call), which stops the program with the
 * call, its file:line and the driver's error code when a call fails (a
 * benchmark has nothing to recover).
 */
#ifndef GM_BENCH_CUDA_H
#define GM_BENCH_CUDA_H

#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>

#define CK(x)                                                                  \
	do {                                                                   \
		CUresult r_ = (x);                                             \
		if (r_ != CUDA_SUCCESS) {                                      \
			fprintf(stderr, "%s:%d: %s failed: %d\n", __FILE__,    \
				__LINE__, #x, (int)r_);                        \
			exit(1);                                               \
		}                                                              \
	} while (0)

#endif
