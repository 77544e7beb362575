/* SPDX-License-Identifier: MIT */
/*
 * The elastic transformation of a PTX module. Every kernel that
 * ptx_analysis.h classifies as elastic gets one more parameter (the
 * struct gm_elastic_args of common/elastic_abi.h) and a loop: the physical
 * grid, of any size, walks the logical blocks [offset, offset+limit);
 * reads of %ctaid/%nctaid give logical values (and %tid/%ntid too for
 * thread-elastic kernels, which also walk logical threads with any
 * physical block size); ret jumps to the loop tail, which waits at a CTA
 * barrier before the next logical block reuses shared memory. After the
 * loop, when done_flag is set, the last physical block to finish
 * publishes completion (the paper's Listing 2, corrected: a barrier so
 * that the whole block is done, one thread fences and counts, the last
 * one resets the counter, fences system-wide and sets the flag). When
 * the launch passes a probe buffer, every logical block also records its
 * SM, start time and duration there (struct gm_probe_rec).
 * Kernels that are not elastic, and everything else in the module, are
 * written back unchanged. The text starts with one comment line per
 * kernel, "// gpumix-elastic-kernel: <name> <class>", so that whoever
 * loads it knows which kernels take the extra parameter and may change
 * their block size.
 */
#ifndef GM_PTX_ELASTIC_H
#define GM_PTX_ELASTIC_H

#include "ptx_analysis.h"
#include "ptx_module.h"

struct strbuf;

/*
 * A register limit for one kernel: a .maxnreg directive added, or
 * replacing the kernel's own.
 */
struct gm_ptx_reg_cap {
	const char *kernel;
	int maxnreg;
};

struct gm_ptx_elastic_options {
	int block_only;		/* make thread-elastic kernels block-elastic */
	const struct gm_ptx_reg_cap *reg_caps;
	size_t nr_reg_caps;
};

/*
 * The register limit that keeps a transformed kernel's occupancy that of
 * the original, which used @original_regs registers per thread: rounded
 * up to the allocation granularity (8 per thread: 256 per warp, sm_80 and
 * later), and never below 32, which leaves full occupancy on an H100
 * whatever the block size.
 */
int gm_ptx_register_cap(int original_regs);

/*
 * Write the transformed text of @m to @out, using the classification @a
 * of the same module (gm_ptx_analyze()). @opt may be NULL. Returns the
 * number of kernels transformed, or -1 with a recorded error (a module
 * with 32-bit addressing, whose kernels all stay unmodified, is not an
 * error: it returns 0 and marks them not elastic in @a).
 */
int gm_ptx_elastic_transform(const struct gm_ptx_module *m,
			     struct gm_ptx_analysis *a,
			     const struct gm_ptx_elastic_options *opt,
			     struct strbuf *out);

#endif
