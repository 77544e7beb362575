/* SPDX-License-Identifier: MIT */
/*
 * SM-scalability curves (`gpumix scale`, doc/gpumix-scale.md): a
 * program's replay time, and each of its kernels' GPU time per replay,
 * against the number of SMs it ran on, from run directories of the
 * program replayed alone in green partitions of several sizes (and once
 * on the whole GPU). The knee of a curve is the smallest SM count whose
 * time is within a tolerance (5%) of the time on the most SMs ([S4]'s
 * "efficient region", PAPER-NOTES.md 2.4).
 */
#ifndef GM_SCALE_CURVE_H
#define GM_SCALE_CURVE_H

#include <stddef.h>
#include <stdio.h>

#define GM_SCALE_KNEE_TOLERANCE 0.05

struct gm_scale_point {
	unsigned sms;
	double ms;		/* mean time per kept replay */
};

struct gm_scale_curve {
	char *program;
	char *kernel;		/* mangled name; NULL: the whole program */
	struct gm_scale_point *pts;	/* sorted by sms once complete */
	size_t nr, alloc;
};

struct gm_scale {
	struct gm_scale_curve *curves;	/* program curve first, then its
					   kernels, in the order first seen */
	size_t nr, alloc;
};

#define GM_SCALE_INIT { NULL, 0, 0 }

/*
 * Add the points of run directory @path, one program replayed alone on
 * @sms SMs: the mean of its kept replays' times (end - start - io) to its
 * program curve, and per kernel the GPU time of its kernel records inside
 * kept replays divided by the number of kept replays. Fails, with a cause
 * naming the run, when it cannot be read, did not end ok, or has other
 * than one program or no kept replay.
 */
int gm_scale_add_run(struct gm_scale *s, const char *path, unsigned sms);

/* Add one point (tests, and gm_scale_add_run). */
void gm_scale_add_point(struct gm_scale *s, const char *program,
			const char *kernel, unsigned sms, double ms);

/* Sort every curve's points by SM count. */
void gm_scale_sort(struct gm_scale *s);

/*
 * The knee of @c (sorted): the smallest SM count whose time is at most
 * (1 + @tolerance) times the time on the curve's largest SM count, in
 * *@knee, and that time in *@full_ms. Returns 0, or -1 for an empty
 * curve.
 */
int gm_scale_knee(const struct gm_scale_curve *c, double tolerance,
		  unsigned *knee, double *full_ms);

/*
 * Write the curves: @csv as "program,kernel,sms,time_ms,speedup,
 * efficiency,of_full" (speedup over the smallest partition, efficiency =
 * speedup per SM added, of_full = time / time on the most SMs; kernel
 * empty for the program), @knees as "program,kernel,knee_sms,full_sms,
 * full_ms", @md as one Markdown table per program (a row per curve, a
 * column per SM count, in ms, and the knee). Any may be NULL.
 */
void gm_scale_write(const struct gm_scale *s, FILE *csv, FILE *knees,
		    FILE *md);

/* Free what @s owns. */
void gm_scale_release(struct gm_scale *s);

#endif
