/* SPDX-License-Identifier: MIT */
/*
 * The native slowdown of a program in a co-run (gpumix corun), defined
 * once for the command's summary and the database: each run's co-run GPU
 * section over the mean of the program's alone GPU sections in the same
 * co-run, then the mean, the sample standard deviation and the extremes
 * of those ratios over the runs (over the runs of every repetition of a
 * study's co-run, each against its own alone sections).
 */
#ifndef GM_CORUN_SLOWDOWN_H
#define GM_CORUN_SLOWDOWN_H

#include <stddef.h>

struct gm_corun_slowdown {
	size_t n;		/* co-run sections */
	size_t n_alone;		/* alone sections */
	double alone_ns;	/* mean alone section */
	double corun_ns;	/* mean co-run section */
	double mean, sd, min, max;	/* of the ratios */
};

/*
 * The ratios of the @nc co-run sections @corun (ns) to the mean of the
 * @na alone sections @alone, into @out (room for @nc). Returns how many:
 * @nc, or 0 without an alone section (or a mean alone section of 0).
 */
size_t gm_corun_ratios(const double *alone, size_t na, const double *corun,
		       size_t nc, double *out);

/*
 * Mean, sample standard deviation and extremes of the @n ratios @r into
 * @s (n set; NAN without ratios, sd NAN with one; the other fields are
 * left as they are).
 */
void gm_corun_summary(const double *r, size_t n, struct gm_corun_slowdown *s);

/* Both at once, for one co-run: every field of @s. */
void gm_corun_slowdown(const double *alone, size_t na, const double *corun,
		       size_t nc, struct gm_corun_slowdown *s);

#endif
