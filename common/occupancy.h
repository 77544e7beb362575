/* SPDX-License-Identifier: MIT */
/*
 * Occupancy arithmetic for any device: how many blocks of a kernel fit on
 * one SM, which resource limits it, and what share of the GPU a grid
 * occupies. The rules (warp-granular threads, per-warp register allocation
 * units spread over sub-partitions, shared-memory allocation units plus a
 * per-block reservation) are those of NVIDIA's occupancy calculator; the
 * device limits are data, so the same code answers for an H100 and for the
 * paper's Fermi C2070. Pure functions: no CUDA calls, usable from the
 * suite, the replay runtime (BLOCKUSAGE) and the analyzer (Table 2).
 */
#ifndef GM_OCCUPANCY_H
#define GM_OCCUPANCY_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

struct gm_device_limits {
	const char *name;
	int sm_count;
	int warp_size;
	int max_threads_per_block;
	int max_threads_per_sm;
	int max_blocks_per_sm;
	int regs_per_sm;
	int regs_per_block;		/* per-block register file limit */
	int max_regs_per_thread;
	int reg_alloc_unit;		/* registers, allocated per warp */
	int reg_sub_partitions;		/* register file partitions per SM */
	size_t smem_per_sm;		/* largest carve-out, bytes */
	size_t smem_per_block;		/* without opt-in */
	size_t smem_per_block_optin;	/* with cudaFuncAttributeMaxDynamicSharedMemorySize */
	size_t smem_alloc_unit;		/* bytes */
	size_t smem_reserved_per_block;	/* driver reservation (sm_80+) */
};

/* NVIDIA H100 SXM (CC 9.0, 132 SMs) and Tesla C2070 (CC 2.0, 14 SMs). */
extern const struct gm_device_limits gm_device_h100;
extern const struct gm_device_limits gm_device_c2070;

/* What one block of a kernel asks for. */
struct gm_kernel_usage {
	int threads_per_block;
	int regs_per_thread;
	size_t smem_per_block;		/* static + dynamic bytes */
};

/* Resources, as bits so that ties can name several. */
enum gm_resource {
	GM_RES_THREADS = 1,
	GM_RES_REGISTERS = 2,
	GM_RES_SHARED = 4,
	GM_RES_BLOCKS = 8,
};

#define GM_OCC_UNLIMITED 0x7fffffff

struct gm_occupancy {
	int blocks_per_sm;		/* min of the four limits below */
	int by_threads, by_registers, by_shared, by_blocks;
	unsigned limiting;		/* GM_RES_* bits equal to blocks_per_sm */
	int threads_alloc;		/* per block, rounded to warps */
	int regs_alloc;			/* per block, after allocation units */
	size_t smem_alloc;		/* per block, after unit and reservation */
};

/*
 * Compute the occupancy of @k on @dev. Returns 0, or -1 when one block
 * cannot run at all (too many threads, registers or shared memory); then
 * @out->blocks_per_sm is 0 and @out->limiting names the culprit.
 */
int gm_occupancy_compute(const struct gm_device_limits *dev,
			 const struct gm_kernel_usage *k,
			 struct gm_occupancy *out);

/*
 * Name the resources in @mask ("registers", "shared-memory", "threads",
 * "blocks", joined with '+' on ties) into @buf; returns @buf.
 */
const char *gm_resource_names(unsigned mask, char *buf, size_t len);

/*
 * Device limits for a run: the per-SM limits and SM count from its
 * manifest, the allocation granularities from the built-in table of the
 * closest known architecture (compute capability 2.x: the C2070's;
 * anything else: the H100's, which sm_80 and later share). @name is
 * borrowed and must outlive @out.
 */
void gm_device_limits_for_run(struct gm_device_limits *out, const char *name,
			      const char *cc, int64_t sm_count,
			      int64_t max_threads_per_sm,
			      int64_t max_blocks_per_sm, int64_t regs_per_sm,
			      int64_t smem_per_sm);

#ifdef __cplusplus
}
#endif

#endif
