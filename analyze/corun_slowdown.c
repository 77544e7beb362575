/* SPDX-License-Identifier: MIT */
/*
 * The native slowdown of a co-run program (see corun_slowdown.h).
 */
#include "corun_slowdown.h"

#include <math.h>
#include <stdlib.h>

#include "stats.h"
#include "strbuf.h"

void gm_corun_slowdown(const double *alone, size_t na, const double *corun,
		       size_t nc, struct gm_corun_slowdown *s)
{
	double *ratio;

	s->n = nc;
	s->n_alone = na;
	s->alone_ns = gm_mean(alone, na);
	s->corun_ns = gm_mean(corun, nc);
	s->mean = s->sd = s->min = s->max = NAN;
	if (!na || !nc || !(s->alone_ns > 0)) {
		return;
	}
	ratio = gm_xcalloc(nc, sizeof(*ratio));
	for (size_t k = 0; k < nc; k++) {
		ratio[k] = corun[k] / s->alone_ns;
		if (!k || ratio[k] < s->min) {
			s->min = ratio[k];
		}
		if (!k || ratio[k] > s->max) {
			s->max = ratio[k];
		}
	}
	s->mean = gm_mean(ratio, nc);
	s->sd = gm_stddev(ratio, nc);
	free(ratio);
}
