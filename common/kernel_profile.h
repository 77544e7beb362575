/* SPDX-License-Identifier: MIT */
/*
 * Kernel profiles: what the elastic variant's policies and timeslicing
 * need to know about each kernel, measured on the machine in use from
 * the programs' `single` runs (`gpumix profile`, doc/gpumix-profile.md),
 * and read by the replay (`--profile FILE`). One row per program, kernel
 * and launch shape:
 *
 *   # gpumix-profile 1
 *   program  kernel  grid_blocks  block_threads  regs  static_smem
 *            dynamic_smem  launches  mean_ns  device
 *
 * tab-separated, kernel names mangled, the device's name in every row
 * (profiles from another GPU model are refused by the replay).
 */
#ifndef GM_KERNEL_PROFILE_H
#define GM_KERNEL_PROFILE_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#define GM_PROFILE_FORMAT "gpumix-profile 1"

struct gm_kprofile_row {
	char *program, *kernel, *device;
	uint64_t grid_blocks;
	uint32_t block_threads;
	uint32_t regs;
	uint64_t static_smem, dynamic_smem;
	uint64_t launches;
	double mean_ns;
};

struct gm_kprofile {
	struct gm_kprofile_row *rows;
	size_t nr, alloc;
};

/*
 * Read @path into @p (empty first). Returns 0, or -1 with a cause naming
 * the file and line for a missing file, a wrong header or a bad row.
 */
int gm_kprofile_read(struct gm_kprofile *p, const char *path);

/* Write @p to @f, rows as they are. Returns 0 or -1 (write error). */
int gm_kprofile_write(const struct gm_kprofile *p, FILE *f);

/*
 * Add @launches launches of mean duration @mean_ns to the row of
 * (@program, @kernel, shape), creating it. The strings are copied.
 */
void gm_kprofile_add(struct gm_kprofile *p, const char *program,
		     const char *kernel, const char *device,
		     uint64_t grid_blocks, uint32_t block_threads,
		     uint32_t regs, uint64_t static_smem,
		     uint64_t dynamic_smem, uint64_t launches, double mean_ns);

/*
 * The row of @program's @kernel with @grid_blocks blocks, else the row
 * of that kernel with the most launches (any grid), else NULL. A copy
 * "lbm#2" (common/instance_name.h) that has no rows of its own takes
 * those of "lbm".
 */
const struct gm_kprofile_row *
gm_kprofile_find(const struct gm_kprofile *p, const char *program,
		 const char *kernel, uint64_t grid_blocks);

/* Sort rows by program, kernel, grid (deterministic output). */
void gm_kprofile_sort(struct gm_kprofile *p);

void gm_kprofile_release(struct gm_kprofile *p);

#endif
