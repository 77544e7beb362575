/* SPDX-License-Identifier: MIT */
/*
 * The measured points of a resource-specification sweep (`gpumix sweep
 * --run` writes them, `--cliffs` and `gpumix analyze` read them;
 * doc/gpumix-sweep.md): DIR/points.csv, one line per point,
 *
 *   program,kernel,axis,value,time_ms,blocks_per_sm,limiting
 *
 * axis one of smem, regs, blocks; value the bytes padded, the register
 * cap or the blocks per SM; time_ms > 0 the kernel's time per replay;
 * limiting the binding resource's name (may be empty). A point is keyed
 * by program, kernel, axis and value: the sweep measures what the file
 * does not hold yet, so an interrupted sweep goes on where it stopped.
 */
#ifndef GM_SWEEP_POINTS_H
#define GM_SWEEP_POINTS_H

#include <stddef.h>
#include <stdio.h>

#define GM_SWEEP_POINTS_HEADER \
	"program,kernel,axis,value,time_ms,blocks_per_sm,limiting"

struct gm_sweep_row {
	char *program, *kernel, *axis;	/* owned */
	long value;
	double time_ms;
	int blocks_per_sm;
	char *limiting;			/* owned, "" for none */
};

struct gm_sweep_points {
	struct gm_sweep_row *rows;
	size_t nr, alloc;
};

#define GM_SWEEP_POINTS_INIT { NULL, 0, 0 }

/*
 * Append the points of @path to @p. Returns 0, or -1 with a cause naming
 * the file and line: unreadable, another header, a line that is not a
 * point (seven fields, an axis of smem, regs or blocks, numbers where
 * numbers go, a time above 0), a name with a comma or quote.
 */
int gm_sweep_points_read(struct gm_sweep_points *p, const char *path);

/* The point of @program, @kernel, @axis and @value, or NULL. */
struct gm_sweep_row *gm_sweep_points_find(const struct gm_sweep_points *p,
					  const char *program,
					  const char *kernel, const char *axis,
					  long value);

/* Add a point (copied), or replace the one with its key. */
void gm_sweep_points_set(struct gm_sweep_points *p,
			 const struct gm_sweep_row *row);

/* Write @p, header first, to @f. */
void gm_sweep_points_write(const struct gm_sweep_points *p, FILE *f);

/* Write @p to @path atomically (a temporary name, then renamed): a
 * sweep killed mid-write leaves the points before it. 0 or -1. */
int gm_sweep_points_save(const struct gm_sweep_points *p, const char *path);

void gm_sweep_points_release(struct gm_sweep_points *p);

/* Split the CSV line @line (no quoting: a sweep's files have none) at
 * its commas into exactly @n fields, in place. 0, or -1 for another
 * count. */
int gm_csv_fields(char *line, char **f, int n);

#endif
