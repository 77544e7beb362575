/* SPDX-License-Identifier: MIT */
/*
 * The native slowdown of a program in a co-run (gpumix corun), defined
 * once for the command's summary and the database: each repetition's
 * co-run GPU section over the mean of the program's alone GPU sections,
 * then the mean, the sample standard deviation and the extremes of those
 * ratios over the repetitions.
 */
#ifndef GM_CORUN_SLOWDOWN_H
#define GM_CORUN_SLOWDOWN_H

#include <stddef.h>

struct gm_corun_slowdown {
	size_t n;		/* co-run repetitions */
	size_t n_alone;		/* alone repetitions */
	double alone_ns;	/* mean alone section */
	double corun_ns;	/* mean co-run section */
	double mean, sd, min, max;	/* of corun[k] / alone_ns */
};

/*
 * Summarise the @nc co-run sections @corun (ns) against the @na alone
 * sections @alone. With no alone or no co-run section, or a mean alone
 * section of 0, every figure is NAN (n and n_alone still count); with one
 * co-run section the standard deviation is NAN.
 */
void gm_corun_slowdown(const double *alone, size_t na, const double *corun,
		       size_t nc, struct gm_corun_slowdown *s);

#endif
