/* SPDX-License-Identifier: MIT */
/*
 * Summary statistics used by every table: mean, percentiles and geometric
 * mean, with the edge cases fixed once (doc/database.md, "Statistics"):
 * an empty sample gives NAN, which the report prints as "n/a".
 */
#ifndef GM_STATS_H
#define GM_STATS_H

#include <stddef.h>

/* Arithmetic mean of @n values; NAN when @n is 0. */
double gm_mean(const double *v, size_t n);

/*
 * Sample standard deviation of @n values (divisor n - 1); NAN when @n is
 * below 2.
 */
double gm_stddev(const double *v, size_t n);

/*
 * Coefficient of variation: gm_stddev() / gm_mean(), the spread of
 * repeated measurements relative to their size; NAN when @n is below 2 or
 * the mean is not positive.
 */
double gm_cv(const double *v, size_t n);

/* Sort @n values ascending, in place (NANs must not be present). */
void gm_sort_doubles(double *v, size_t n);

/*
 * The @p-th percentile (0..100) of @n values already sorted ascending,
 * by linear interpolation between closest ranks (Hyndman & Fan type 7,
 * numpy's default): h = (n-1)p/100, x[floor h] + (h - floor h) *
 * (x[floor h + 1] - x[floor h]). One value is every percentile of itself;
 * the median of an even count is the mean of the middle two; NAN when @n
 * is 0 or @p is outside [0, 100].
 */
double gm_percentile_sorted(const double *v, size_t n, double p);

/*
 * Geometric mean of @n positive values; NAN when @n is 0 or a value is
 * not positive (or not finite).
 */
double gm_geomean(const double *v, size_t n);

#endif
