/* SPDX-License-Identifier: MIT */
/*
 * The kernels of one program's run alone, as a resource sweep needs them
 * (`gpumix sweep --run`, doc/gpumix-sweep.md): per kernel its time per
 * kept replay (the durations of its records inside kept replays, over
 * their number), its launches, and its resource specification from the
 * first of its records (threads per block, registers per thread, static
 * and dynamic shared memory, the physical grid: CUPTI's, what the device
 * ran, so padding and register caps show as they took effect).
 */
#ifndef GM_SWEEP_KERNELS_H
#define GM_SWEEP_KERNELS_H

#include <stddef.h>
#include <stdint.h>

#include "occupancy.h"

struct gm_sweep_kernel {
	char *name;		/* mangled, owned */
	double time_ms;		/* per kept replay */
	size_t launches;	/* records in kept replays */
	size_t same_grid;	/* of those, with grid blocks == grid_check */
	int threads, regs;
	int64_t static_smem, dynamic_smem;
};

struct gm_sweep_kernels {
	char *program;		/* owned */
	char *device_cc;	/* owned, "9.0" */
	char *device_name;	/* owned */
	struct gm_device_limits dev;	/* the run's (occupancy.h) */
	struct gm_sweep_kernel *k;	/* in the order first seen */
	size_t nr, alloc;
	unsigned sm_count;
	size_t kept;		/* kept replays */
};

/*
 * Read run @path (one program, ended ok, a kept replay) into @out (zero
 * it first). @grid_check: count each kernel's launches whose grid has
 * exactly that many blocks (0: none). Returns 0, or -1 with a cause
 * naming the run; release @out either way.
 */
int gm_sweep_kernels_read(struct gm_sweep_kernels *out, const char *path,
			  uint64_t grid_check);

/* The kernel @name of @s, or NULL. */
const struct gm_sweep_kernel *gm_sweep_kernels_find(
	const struct gm_sweep_kernels *s, const char *name);

void gm_sweep_kernels_release(struct gm_sweep_kernels *s);

#endif
