/* SPDX-License-Identifier: MIT */
/*
 * STP, ANTT and workload time (see metrics_stp.h).
 */
#include "metrics_stp.h"

#include <math.h>

static int valid(const double *alone, const double *mp, size_t n)
{
	if (!n) {
		return 0;
	}
	for (size_t i = 0; i < n; i++) {
		if (!(alone[i] > 0) || !(mp[i] > 0)) {
			return 0;
		}
	}
	return 1;
}

double gm_stp(const double *alone, const double *mp, size_t n)
{
	double s = 0;

	if (!valid(alone, mp, n)) {
		return NAN;
	}
	for (size_t i = 0; i < n; i++) {
		s += alone[i] / mp[i];
	}
	return s;
}

double gm_antt(const double *alone, const double *mp, size_t n)
{
	double s = 0;

	if (!valid(alone, mp, n)) {
		return NAN;
	}
	for (size_t i = 0; i < n; i++) {
		s += mp[i] / alone[i];
	}
	return s / (double)n;
}

double gm_workload_time(const double *mp, size_t n)
{
	double m = NAN;

	for (size_t i = 0; i < n; i++) {
		if (isnan(mp[i])) {
			return NAN;
		}
		if (isnan(m) || mp[i] > m) {
			m = mp[i];
		}
	}
	return m;
}
