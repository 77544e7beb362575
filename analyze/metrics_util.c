/* SPDX-License-Identifier: MIT */
/*
 * Running kernels and utilization (see metrics_util.h): a sweep over the
 * sorted start and end events of the clipped intervals.
 */
#include "metrics_util.h"

#include <math.h>
#include <stdlib.h>

#include "strbuf.h"

double gm_running_average(const struct gm_interval *iv, size_t n, int64_t t0,
			  int64_t t1)
{
	double busy = 0;

	if (t1 <= t0) {
		return NAN;
	}
	for (size_t i = 0; i < n; i++) {
		int64_t s = iv[i].start > t0 ? iv[i].start : t0;
		int64_t e = iv[i].end < t1 ? iv[i].end : t1;
		if (e > s) {
			busy += (double)(e - s);
		}
	}
	return busy / (double)(t1 - t0);
}

struct event {
	int64_t t;
	int64_t delta;
};

static int cmp_event(const void *a, const void *b)
{
	const struct event *x = a, *y = b;

	return x->t < y->t ? -1 : x->t > y->t;
}

double gm_utilization(const struct gm_interval *iv, const int64_t *amount,
		      size_t n, int64_t capacity, int64_t t0, int64_t t1)
{
	struct event *ev;
	size_t m = 0;
	int64_t level = 0, prev;
	double area = 0;

	if (t1 <= t0 || capacity <= 0) {
		return NAN;
	}
	ev = gm_xmalloc((2 * n + 1) * sizeof(*ev));
	for (size_t i = 0; i < n; i++) {
		int64_t s = iv[i].start > t0 ? iv[i].start : t0;
		int64_t e = iv[i].end < t1 ? iv[i].end : t1;
		if (e > s && amount[i] > 0) {
			ev[m++] = (struct event){ s, amount[i] };
			ev[m++] = (struct event){ e, -amount[i] };
		}
	}
	qsort(ev, m, sizeof(*ev), cmp_event);
	prev = t0;
	for (size_t i = 0; i < m; i++) {
		int64_t used = level < capacity ? level : capacity;
		area += (double)used * (double)(ev[i].t - prev);
		prev = ev[i].t;
		level += ev[i].delta;
	}
	free(ev);
	return area / ((double)capacity * (double)(t1 - t0));
}
