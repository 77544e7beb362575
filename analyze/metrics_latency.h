/* SPDX-License-Identifier: MIT */
/*
 * Latency of one program in one run: percentiles of its kept replay
 * times and their slowdown against the program's alone run. STP and ANTT
 * average the programs' mean times; a latency-critical job asks instead
 * how slow its slow replays get, which is what these answer.
 *
 * Percentiles are gm_percentile_sorted()'s (linear interpolation between
 * closest ranks, Hyndman & Fan type 7; doc/database.md, "Statistics").
 * The slowdown at percentile p is p(replays in this run) / p(replays of
 * the same program in its alone run): the same statistic on both sides,
 * so a program that is only noisy alone is not counted as slowed down.
 */
#ifndef GM_METRICS_LATENCY_H
#define GM_METRICS_LATENCY_H

#include <stddef.h>

enum gm_latency_pct {
	GM_LAT_P50,
	GM_LAT_P95,
	GM_LAT_P99,
	GM_LAT_PCTS
};

/* The percentile (0..100) of each enum gm_latency_pct: 50, 95, 99. */
extern const double gm_latency_pcts[GM_LAT_PCTS];

struct gm_latency {
	size_t n;			/* replay times it was computed from */
	double p[GM_LAT_PCTS];		/* ns; NAN when @n is 0 */
	double slowdown[GM_LAT_PCTS];	/* p / the alone run's p; NAN: none */
};

/*
 * Fill @l's percentiles from the @n replay times @t (sorted in place);
 * the slowdowns are set to NAN.
 */
void gm_latency_from_times(struct gm_latency *l, double *t, size_t n);

/*
 * Set @l's slowdowns against @alone (the same program's latency in its
 * alone run; NULL: none): p / alone p where both are positive, NAN
 * otherwise.
 */
void gm_latency_slowdown(struct gm_latency *l, const struct gm_latency *alone);

#endif
