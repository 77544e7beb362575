/* SPDX-License-Identifier: MIT */
/*
 * Building a kernel profile (common/kernel_profile.h) from run
 * directories: the kernel records of `single` runs, the programs running
 * alone, averaged per program, kernel and launch shape.
 */
#ifndef GM_PROFILE_BUILD_H
#define GM_PROFILE_BUILD_H

#include <stddef.h>

#include "kernel_profile.h"

/*
 * Add the kernels of the run directories @paths (@n of them) to @p.
 * Every run must be complete (status ok) and of a variant that replays
 * programs alone (single), and all from one GPU model. Returns 0, or -1
 * with a cause naming the run.
 */
int gm_profile_build(struct gm_kprofile *p, char *const *paths, size_t n);

#endif
