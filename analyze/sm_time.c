/* SPDX-License-Identifier: MIT */
/*
 * SM-time accounting (see sm_time.h): per SM, a sweep over the blocks'
 * start and end events in time order (ends first at equal times:
 * half-open intervals), with a count of each program's blocks on the SM.
 */
#include "sm_time.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

struct event {
	int64_t t;
	int32_t program;
	int32_t delta;		/* +1 start, -1 end */
};

static int cmp_block(const void *x, const void *y)
{
	const struct gm_sm_interval *a = x, *b = y;

	if (a->sm != b->sm) {
		return a->sm < b->sm ? -1 : 1;
	}
	return a->start < b->start ? -1 : a->start > b->start;
}

static int cmp_event(const void *x, const void *y)
{
	const struct event *a = x, *b = y;

	if (a->t != b->t) {
		return a->t < b->t ? -1 : 1;
	}
	return a->delta - b->delta;	/* ends (-1) before starts (+1) */
}

/* One SM's blocks @v[0..n): add to @out and @seg. */
static void sweep(const struct gm_sm_interval *v, size_t n, size_t nprog,
		  int64_t t0, int64_t t1, struct gm_sm_time *out,
		  struct gm_sm_segments *seg, struct event *ev, int64_t *cnt,
		  int64_t *open, int64_t *held_here, int64_t *last_seg)
{
	size_t ne = 0, active = 0;
	int64_t last = t0;

	for (size_t i = 0; i < n; i++) {
		int64_t s = v[i].start > t0 ? v[i].start : t0;
		int64_t e = v[i].end < t1 ? v[i].end : t1;
		if (v[i].program < 0 || (size_t)v[i].program >= nprog || s >= e) {
			continue;
		}
		ev[ne++] = (struct event){ s, v[i].program, +1 };
		ev[ne++] = (struct event){ e, v[i].program, -1 };
	}
	qsort(ev, ne, sizeof(*ev), cmp_event);
	memset(cnt, 0, nprog * sizeof(*cnt));
	memset(held_here, 0, nprog * sizeof(*held_here));
	for (size_t q = 0; q < nprog; q++) {
		last_seg[q] = -1;
	}
	for (size_t i = 0; i < ne; i++) {
		int64_t dt = ev[i].t - last;
		int32_t p = ev[i].program;
		if (dt > 0 && active) {
			out->busy_ns += dt;
			if (active >= 2) {
				out->shared_ns += dt;
			}
			for (size_t q = 0; q < nprog; q++) {
				if (cnt[q]) {
					out->held_ns[q] += dt;
					held_here[q] += dt;
					if (active >= 2) {
						out->with_other_ns[q] += dt;
					}
				}
			}
		}
		last = ev[i].t;
		if (ev[i].delta > 0) {
			if (!cnt[p]++) {
				active++;
				open[p] = ev[i].t;
			}
		} else if (!--cnt[p]) {
			active--;
			if (seg && last_seg[p] >= 0 &&
			    seg->v[last_seg[p]].end == open[p]) {
				/* back to back: one segment */
				seg->v[last_seg[p]].end = ev[i].t;
			} else if (seg) {
				GM_ALLOC_GROW(seg->v, seg->n + 1, seg->alloc);
				last_seg[p] = (int64_t)seg->n;
				seg->v[seg->n++] = (struct gm_sm_interval){
					v[0].sm, p, open[p], ev[i].t };
			}
		}
	}
	for (size_t q = 0; q < nprog; q++) {
		out->sms[q] += held_here[q] > 0;
	}
}

int gm_sm_time_compute(struct gm_sm_interval *v, size_t n, size_t nprog,
		       int64_t nsm, int64_t t0, int64_t t1,
		       struct gm_sm_time *out, struct gm_sm_segments *seg)
{
	struct event *ev;
	int64_t *cnt, *open, *held_here, *last_seg;

	memset(out, 0, sizeof(*out));
	if (t1 <= t0) {
		return gm_error("an empty window for the SM-time");
	}
	out->nprog = nprog;
	out->window_ns = t1 - t0;
	out->capacity_ns = nsm * (t1 - t0);
	out->held_ns = gm_xcalloc(nprog + 1, sizeof(int64_t));
	out->with_other_ns = gm_xcalloc(nprog + 1, sizeof(int64_t));
	out->sms = gm_xcalloc(nprog + 1, sizeof(int64_t));
	if (n) {
		qsort(v, n, sizeof(*v), cmp_block);
	}
	ev = gm_xmalloc((2 * n + 1) * sizeof(*ev));
	cnt = gm_xcalloc(nprog + 1, sizeof(*cnt));
	open = gm_xcalloc(nprog + 1, sizeof(*open));
	held_here = gm_xcalloc(nprog + 1, sizeof(*held_here));
	last_seg = gm_xcalloc(nprog + 1, sizeof(*last_seg));
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && v[j].sm == v[i].sm) {
			j++;
		}
		if (v[i].sm >= 0) {
			sweep(v + i, j - i, nprog, t0, t1, out, seg, ev, cnt,
			      open, held_here, last_seg);
		}
		i = j;
	}
	free(ev);
	free(cnt);
	free(open);
	free(held_here);
	free(last_seg);
	return 0;
}

void gm_sm_time_release(struct gm_sm_time *t)
{
	free(t->held_ns);
	free(t->with_other_ns);
	free(t->sms);
	memset(t, 0, sizeof(*t));
}
