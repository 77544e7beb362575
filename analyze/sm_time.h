/* SPDX-License-Identifier: MIT */
/*
 * Who held the SMs: from the block probe's records (each block's SM,
 * program, start and end), over a window of time, the SM-time each
 * program held (the time, summed over SMs, in which at least one of its
 * blocks was on the SM: a program's blocks sharing an SM count once), the
 * part of it shared with another program's blocks on the same SM, the
 * SM-time busy and idle, and the SMs each program ever had. Intervals are
 * half-open [start, end); a block that ends when another starts does not
 * overlap it. Optionally, the union of each program's blocks on each SM
 * as segments (the report's occupancy figure and timeline tracks). Pure:
 * no database, no clock.
 */
#ifndef GM_SM_TIME_H
#define GM_SM_TIME_H

#include <stddef.h>
#include <stdint.h>

struct gm_sm_interval {
	int32_t sm, program;
	int64_t start, end;	/* ns */
};

struct gm_sm_time {
	size_t nprog;
	int64_t window_ns;	/* t1 - t0 */
	int64_t capacity_ns;	/* SMs x window */
	int64_t busy_ns;	/* SM-time with at least one block */
	int64_t shared_ns;	/* ... with blocks of two programs or more */
	int64_t *held_ns;	/* per program: with at least one of its blocks */
	int64_t *with_other_ns;	/* per program: of held, with another
				   program's blocks on the SM too */
	int64_t *sms;		/* per program: SMs it had a block on */
};

/* Segments: the union of one program's blocks on one SM, in the window. */
struct gm_sm_segments {
	struct gm_sm_interval *v;
	size_t n, alloc;
};

/*
 * Account the @n blocks @v (sorted in place) of programs 0..@nprog-1 on a
 * device of @nsm SMs over [@t0, @t1) into @out (release it with
 * gm_sm_time_release()); @nsm only sizes the capacity: SM ids need not
 * be below it (%smid is not contiguous). Blocks of a negative SM id, of
 * a program at or above @nprog, or outside the window count for nothing
 * (the parts inside the window count). When @seg is not NULL, the segments are
 * appended to it. Returns 0, or -1 (cause recorded) for an empty window.
 */
int gm_sm_time_compute(struct gm_sm_interval *v, size_t n, size_t nprog,
		       int64_t nsm, int64_t t0, int64_t t1,
		       struct gm_sm_time *out, struct gm_sm_segments *seg);

void gm_sm_time_release(struct gm_sm_time *t);

#endif
