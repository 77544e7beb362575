/* SPDX-License-Identifier: MIT */
/*
 * Replay-time percentiles and their slowdown (see metrics_latency.h).
 */
#include "metrics_latency.h"

#include <math.h>

#include "stats.h"

const double gm_latency_pcts[GM_LAT_PCTS] = {
	[GM_LAT_P50] = 50,
	[GM_LAT_P95] = 95,
	[GM_LAT_P99] = 99,
};

void gm_latency_from_times(struct gm_latency *l, double *t, size_t n)
{
	gm_sort_doubles(t, n);
	l->n = n;
	for (int k = 0; k < GM_LAT_PCTS; k++) {
		l->p[k] = gm_percentile_sorted(t, n, gm_latency_pcts[k]);
		l->slowdown[k] = NAN;
	}
}

void gm_latency_slowdown(struct gm_latency *l, const struct gm_latency *alone)
{
	for (int k = 0; k < GM_LAT_PCTS; k++) {
		l->slowdown[k] = alone && l->p[k] > 0 && alone->p[k] > 0
			? l->p[k] / alone->p[k] : NAN;
	}
}
