/* SPDX-License-Identifier: MIT */
/*
 * The register axis of `gpumix sweep --run` (doc/gpumix-sweep.md): a
 * kernel's module with its registers per thread capped, reassembled by
 * ptxas from the captured PTX, for `gpumix replay --kernel-module`.
 */
#ifndef GM_CLI_SWEEP_REGS_H
#define GM_CLI_SWEEP_REGS_H

/*
 * Find the module of build @build (its modules/ directory: PTX text, or
 * a fatbin's PTX for @arch, "sm_90") whose PTX has entry @kernel, cap
 * that entry at @cap registers per thread (a .maxnreg directive: only it
 * changes, the module's other kernels and globals stay as captured),
 * assemble it for @arch with ptxas and write the cubin to @out. Sets
 * *@regs to the registers ptxas gave the kernel. Returns 0; 1 when no
 * module of the build has PTX for @kernel (a cubin-only capture: no
 * register axis, no cause recorded); -1 with a cause (ptxas missing or
 * failing, a write).
 */
int gm_sweep_regs_module(const char *build, const char *kernel,
			 const char *arch, int cap, const char *out,
			 int *regs);

#endif
