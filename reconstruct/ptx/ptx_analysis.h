/* SPDX-License-Identifier: MIT */
/*
 * Which kernels of a PTX module can be made elastic, and how. For every
 * .entry this decides one of three classes:
 *   - thread-elastic: no shared memory, no barriers, no warp-level
 *     operations (own or in called functions), so both the number of
 *     physical blocks and the threads per physical block may change
 *     (Listing 1 of the paper, corrected);
 *   - block-elastic: the physical block keeps the logical block's shape and
 *     only the number of physical blocks changes; each physical block runs
 *     whole logical blocks one after another;
 *   - not elastic, with the reason (grid sync or cooperative launch,
 *     clusters, dynamic parallelism, an early return before a barrier that
 *     other threads still reach, spin loops on memory, anything this code
 *     does not understand). Such kernels run unmodified.
 * The analysis is conservative: when in doubt, it refuses.
 */
#ifndef GM_PTX_ANALYSIS_H
#define GM_PTX_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "elastic_abi.h"
#include "ptx_module.h"

/* Feature bits of a function (own code, then with its callees). */
enum {
	GM_PTX_F_CTAID = 1 << 0,	/* reads %ctaid or %nctaid */
	GM_PTX_F_TID = 1 << 1,		/* reads %tid or %ntid */
	GM_PTX_F_SHARED = 1 << 2,	/* uses shared memory */
	GM_PTX_F_BARRIER = 1 << 3,	/* CTA barrier (bar, barrier) */
	GM_PTX_F_WARP = 1 << 4,		/* warp-level op or %laneid/%warpid */
	GM_PTX_F_WARPSYNC = 1 << 5,	/* warp-synchronous op (shfl.sync...) */
	GM_PTX_F_CLUSTER = 1 << 6,	/* thread-block clusters */
	GM_PTX_F_GRIDSYNC = 1 << 7,	/* %envreg: cooperative grid sync */
	GM_PTX_F_DEVRT = 1 << 8,	/* device runtime: dynamic parallelism */
	GM_PTX_F_INDIRECT = 1 << 9,	/* indirect call */
	GM_PTX_F_UNKNOWN = 1 << 10,	/* an instruction not understood */
	GM_PTX_F_SPIN = 1 << 11,	/* loop spinning on memory */
	GM_PTX_F_BARRIER_VAR = 1 << 12,	/* barrier id in a register */
	GM_PTX_F_BARRIER0_COUNT = 1 << 13, /* barrier 0 with a thread count */
	GM_PTX_F_SREG_VECTOR = 1 << 14,	/* %ctaid/%tid read as a vector */
	GM_PTX_F_EXIT = 1 << 15,	/* ret or exit in the kernel body */
};

struct gm_ptx_kernel_info {
	char *name;
	const struct gm_ptx_func *func;	/* borrowed from the module */
	enum gm_elastic_class cls;
	char reason[256];	/* why not elastic, or why not thread-elastic */
	unsigned features;	/* GM_PTX_F_*, callees included */
	unsigned barrier_ids;	/* bit i: barrier i is used */
	int tail_barrier;	/* barrier id before reusing the block, -1: none */
	int reqntid;		/* .reqntid present */
};

struct gm_ptx_analysis {
	struct gm_ptx_kernel_info *kernels;
	size_t nr_kernels, alloc;
};

/*
 * Classify every kernel (.entry with a body) of @m into @out, in module
 * order. Returns 0, or -1 (cause recorded) only for malformed input that
 * the parser accepted but the analysis cannot follow; a kernel it merely
 * does not understand is classified GM_ELASTIC_NONE with the reason.
 * Release @out with gm_ptx_analysis_release() either way.
 */
int gm_ptx_analyze(const struct gm_ptx_module *m, struct gm_ptx_analysis *out);

/* Free the kernel list of @a and zero it. */
void gm_ptx_analysis_release(struct gm_ptx_analysis *a);

/*
 * Which special register token @i of @m names, as one of the GM_PTX_SREG_*
 * values below with the component (0 x, 1 y, 2 z) in *@comp, or
 * GM_PTX_SREG_NONE. A vector read ("%ctaid") gives comp -1.
 */
enum gm_ptx_sreg {
	GM_PTX_SREG_NONE,
	GM_PTX_SREG_CTAID,
	GM_PTX_SREG_NCTAID,
	GM_PTX_SREG_TID,
	GM_PTX_SREG_NTID,
	GM_PTX_SREG_OTHER,	/* any other %name known to PTX */
};
enum gm_ptx_sreg gm_ptx_sreg_of(const struct gm_ptx_module *m, uint32_t i,
				int *comp);

#endif
