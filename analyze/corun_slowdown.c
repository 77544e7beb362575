/* SPDX-License-Identifier: MIT */
/*
 * The native slowdown of a co-run program (see corun_slowdown.h).
 */
#include "corun_slowdown.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"
#include "strbuf.h"

size_t gm_corun_ratios(const double *alone, size_t na, const double *corun,
		       size_t nc, double *out)
{
	double mean = gm_mean(alone, na);

	if (!na || !(mean > 0)) {
		return 0;
	}
	for (size_t k = 0; k < nc; k++) {
		out[k] = corun[k] / mean;
	}
	return nc;
}

void gm_corun_summary(const double *r, size_t n, struct gm_corun_slowdown *s)
{
	s->n = n;
	s->mean = gm_mean(r, n);
	s->sd = gm_stddev(r, n);
	s->min = s->max = NAN;
	for (size_t k = 0; k < n; k++) {
		if (!k || r[k] < s->min) {
			s->min = r[k];
		}
		if (!k || r[k] > s->max) {
			s->max = r[k];
		}
	}
}

void gm_corun_slowdown(const double *alone, size_t na, const double *corun,
		       size_t nc, struct gm_corun_slowdown *s)
{
	double *ratio = gm_xcalloc(nc + 1, sizeof(*ratio));
	size_t n = gm_corun_ratios(alone, na, corun, nc, ratio);

	s->n_alone = na;
	s->alone_ns = gm_mean(alone, na);
	s->corun_ns = gm_mean(corun, nc);
	gm_corun_summary(ratio, n, s);
	s->n = nc;
	free(ratio);
}
