/* SPDX-License-Identifier: MIT */
/*
 * Summary statistics (see stats.h). The geometric mean sums logarithms,
 * so it neither overflows nor underflows on long lists.
 */
#include "stats.h"

#include <math.h>
#include <stdlib.h>

double gm_mean(const double *v, size_t n)
{
	double s = 0;

	if (!n) {
		return NAN;
	}
	for (size_t i = 0; i < n; i++) {
		s += v[i];
	}
	return s / (double)n;
}

double gm_stddev(const double *v, size_t n)
{
	double m, s = 0;

	if (n < 2) {
		return NAN;
	}
	m = gm_mean(v, n);
	for (size_t i = 0; i < n; i++) {
		s += (v[i] - m) * (v[i] - m);
	}
	return sqrt(s / (double)(n - 1));
}

double gm_cv(const double *v, size_t n)
{
	double m = gm_mean(v, n);

	if (n < 2 || !(m > 0)) {
		return NAN;
	}
	return gm_stddev(v, n) / m;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

void gm_sort_doubles(double *v, size_t n)
{
	/* An empty array may be NULL, which qsort does not take. */
	if (n) {
		qsort(v, n, sizeof(*v), cmp_double);
	}
}

double gm_percentile_sorted(const double *v, size_t n, double p)
{
	double h, frac;
	size_t lo;

	if (!n || !(p >= 0 && p <= 100)) {
		return NAN;
	}
	h = (double)(n - 1) * p / 100.0;
	lo = (size_t)floor(h);
	if (lo >= n - 1) {
		return v[n - 1];
	}
	frac = h - (double)lo;
	return v[lo] + frac * (v[lo + 1] - v[lo]);
}

double gm_geomean(const double *v, size_t n)
{
	double s = 0;

	if (!n) {
		return NAN;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0) || !isfinite(v[i])) {
			return NAN;
		}
		s += log(v[i]);
	}
	return exp(s / (double)n);
}
