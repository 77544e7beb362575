/* SPDX-License-Identifier: MIT */
/*
 * A sweep's per-kernel knobs at module load (doc/gpumix-sweep.md):
 * --kernel-module loads a kernel's module from a reassembled file,
 * --smem-pad adds dynamic shared memory to a kernel's launches; a
 * cooperative launch that either leaves without room is a point that
 * cannot exist.
 */
#ifndef GPUMIX_REPLAY_KERNEL_KNOBS_H
#define GPUMIX_REPLAY_KERNEL_KNOBS_H

#include <stdint.h>

struct gm_prog;

/* The --kernel-module file module @m of @p is loaded from, or NULL;
 * -1 in *@err when two files claim one module. */
const char *gm_kernel_module_file(struct gm_prog *p, uint32_t m, int *err);
/* Load module @i of @p from @path into p->libs[i]. 0 or -1. */
int gm_load_kernel_module(struct gm_prog *p, uint32_t i, const char *path);
/* Note kernel @i's --smem-pad in p->smem_pad. */
void gm_smem_pad_setup(struct gm_prog *p, uint32_t i);
/* Let padded kernel @i take its largest launch's shared memory; after the
 * captured attributes, whose own opt-in it must not lose to. 0 or -1. */
int gm_smem_pad_optin(struct gm_prog *p, uint32_t i);
/* With a knob on kernel @i (--smem-pad, --kernel-module): -1 (cause,
 * p->run->no_point set when it is the run's first failure) when one of
 * its cooperative launches would not be resident whole, else 0. */
int gm_knob_cooperative_check(struct gm_prog *p, uint32_t i);

#endif
