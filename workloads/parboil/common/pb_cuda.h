/* SPDX-License-Identifier: MIT */
/*
 * CUDA-side helpers of the suite: error checks that name the call, and the
 * "-r" resource report. The report prints, per kernel, one line that
 * doc/workloads.md and the benchmarks parse:
 *
 *   resource kernel=NAME grid=X,Y,Z block=X,Y,Z regs=R smem_static=S
 *            smem_dynamic=D blocks_per_sm=B limit=L occupancy_api=A launches=N
 *
 * B and L come from common/occupancy.c with the device's limits; A is what
 * cudaOccupancyMaxActiveBlocksPerMultiprocessor says (they must agree).
 */
#ifndef PB_CUDA_H
#define PB_CUDA_H

#include <cuda_runtime.h>
#include <stdio.h>
#include <stdlib.h>

#include "occupancy.h"
#include "pb.h"

#define PB_CHECK(call)                                                         \
	do {                                                                   \
		cudaError_t pb_e_ = (call);                                    \
		if (pb_e_ != cudaSuccess) {                                    \
			fprintf(stderr, "CUDA error at %s:%d: %s: %s\n",       \
				__FILE__, __LINE__, #call,                     \
				cudaGetErrorString(pb_e_));                    \
			exit(2);                                               \
		}                                                              \
	} while (0)

/* After a <<<>>> launch: report launch errors where they happen. */
#define PB_CHECK_LAUNCH() PB_CHECK(cudaGetLastError())

/* The H100 limits, refreshed from the device actually present. */
static inline struct gm_device_limits pb_device_limits(void)
{
	struct gm_device_limits d = gm_device_h100;
	int v, dev;

	PB_CHECK(cudaGetDevice(&dev));
	cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, dev);
	d.sm_count = v;
	cudaDeviceGetAttribute(&v, cudaDevAttrMaxThreadsPerMultiProcessor, dev);
	d.max_threads_per_sm = v;
	cudaDeviceGetAttribute(&v, cudaDevAttrMaxBlocksPerMultiprocessor, dev);
	d.max_blocks_per_sm = v;
	cudaDeviceGetAttribute(&v, cudaDevAttrMaxRegistersPerMultiprocessor, dev);
	d.regs_per_sm = v;
	cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerMultiprocessor, dev);
	d.smem_per_sm = (size_t)v;
	cudaDeviceGetAttribute(&v, cudaDevAttrMaxSharedMemoryPerBlockOptin, dev);
	d.smem_per_block_optin = (size_t)v;
	cudaDeviceGetAttribute(&v, cudaDevAttrReservedSharedMemoryPerBlock, dev);
	d.smem_reserved_per_block = (size_t)v;
	return d;
}

/*
 * Print the resource line of kernel @func (a __global__ function) as
 * launched with @grid, @block and @dyn_smem bytes, @launches times.
 */
static inline void pb_report_kernel(const void *func, const char *name,
				    dim3 grid, dim3 block, size_t dyn_smem,
				    long launches)
{
	struct cudaFuncAttributes fa;
	struct gm_device_limits dev = pb_device_limits();
	struct gm_kernel_usage k;
	struct gm_occupancy occ;
	int api = -1;
	char lim[64];

	PB_CHECK(cudaFuncGetAttributes(&fa, func));
	PB_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
		&api, func, (int)(block.x * block.y * block.z), dyn_smem));
	k.threads_per_block = (int)(block.x * block.y * block.z);
	k.regs_per_thread = fa.numRegs;
	k.smem_per_block = fa.sharedSizeBytes + dyn_smem;
	gm_occupancy_compute(&dev, &k, &occ);
	printf("resource kernel=%s grid=%u,%u,%u block=%u,%u,%u regs=%d "
	       "smem_static=%zu smem_dynamic=%zu blocks_per_sm=%d limit=%s "
	       "occupancy_api=%d launches=%ld\n",
	       name, grid.x, grid.y, grid.z, block.x, block.y, block.z,
	       fa.numRegs, (size_t)fa.sharedSizeBytes, dyn_smem,
	       occ.blocks_per_sm, gm_resource_names(occ.limiting, lim, sizeof(lim)),
	       api, launches);
}

#endif
