/* SPDX-License-Identifier: MIT */
/*
 * Time-weighted utilization over a run's span [t0, t1) (the first replay
 * start to the last replay end), idle time included, as the paper's Figs.
 * 12 and 13 need. Kernel intervals are half-open and clipped to the span.
 */
#ifndef GM_METRICS_UTIL_H
#define GM_METRICS_UTIL_H

#include <stddef.h>
#include <stdint.h>

#include "metrics_overlap.h"

/*
 * Average number of running kernels over [t0, t1): the sum of the
 * clipped kernel durations divided by t1 - t0 (the integral of the
 * running count). NAN when t1 <= t0.
 */
double gm_running_average(const struct gm_interval *iv, size_t n, int64_t t0,
			  int64_t t1);

/*
 * Average of min(capacity, sum of @amount[i] over the kernels running at
 * t) / capacity over t in [t0, t1): the share of a resource in use, with
 * the instantaneous sum capped at the capacity (the residency estimate
 * assumes each kernel's blocks as if it ran alone, so co-running kernels
 * could otherwise add up to more than the GPU has). Integer amounts keep
 * the sweep exact. NAN when t1 <= t0 or capacity <= 0.
 */
double gm_utilization(const struct gm_interval *iv, const int64_t *amount,
		      size_t n, int64_t capacity, int64_t t0, int64_t t1);

#endif
