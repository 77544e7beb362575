/* SPDX-License-Identifier: MIT */
/*
 * 95% confidence intervals, the one place every table, figure and stored
 * interval of gpumix gets them from (doc/database.md, "Intervals"): the
 * mean of a sample with a Student-t interval or a percentile bootstrap
 * (seeded, so the same seed gives the same interval), the same on the
 * log scale for ratios and geometric means, and the ratio of two
 * independent samples' geometric means (Welch) for comparing two studies.
 * The sample is the repetitions of a measurement: values that are not
 * independent (the replays inside one process) must not be given as one.
 */
#ifndef GM_INTERVAL_H
#define GM_INTERVAL_H

#include <stddef.h>
#include <stdint.h>

/* The confidence level of every interval. */
#define GM_CI_LEVEL 0.95

/* Bootstrap resamples and the default seed (gpumix report --ci). */
#define GM_CI_RESAMPLES 10000
#define GM_CI_SEED 1

enum gm_ci_method {
	GM_CI_T,		/* Student t over the sample (the default) */
	GM_CI_BOOTSTRAP,	/* percentile bootstrap of the mean */
};

struct gm_ci_opts {
	enum gm_ci_method method;
	uint64_t seed;		/* bootstrap: the generator's seed */
	unsigned resamples;	/* bootstrap: resamples (0: GM_CI_RESAMPLES) */
};

/* Student t with GM_CI_SEED unused: what tables use unless told. */
#define GM_CI_OPTS_INIT { GM_CI_T, GM_CI_SEED, GM_CI_RESAMPLES }

/*
 * A point estimate with its interval. @lo and @hi are NAN when there is
 * no interval (fewer than 2 values); @mean is NAN when there is no value.
 */
struct gm_ci {
	double mean, lo, hi;
	size_t n;		/* values it was computed from */
};

/* The method's name as the database and the report spell it: "t", "bootstrap". */
const char *gm_ci_method_name(enum gm_ci_method m);

/*
 * Parse @s ("t", "bootstrap" or "bootstrap:SEED") into @o. Returns 0, or
 * -1 with a cause naming @s.
 */
int gm_ci_opts_parse(struct gm_ci_opts *o, const char *s);

/*
 * The quantile @p (0 < p < 1) of Student's t distribution with @df > 0
 * degrees of freedom (not necessarily whole: Welch's), found by bisection
 * on its distribution function, 1 - I_x(df/2, 1/2) / 2 for t > 0 with
 * x = df / (df + t^2) (I: the regularized incomplete beta function, by
 * its continued fraction); the normal quantile when @df is infinite. NAN
 * for arguments outside those ranges.
 */
double gm_t_quantile(double p, double df);

/*
 * The mean of @v[0..n) and its interval. t: mean +- t(0.975, n - 1) s /
 * sqrt(n), s the sample standard deviation (n - 1). Bootstrap: the 2.5th
 * and 97.5th percentiles (gm_percentile_sorted) of the means of
 * @o->resamples resamples of n values drawn with replacement by a
 * splitmix64 generator seeded with @o->seed. NAN values must not be
 * given. @o NULL: GM_CI_OPTS_INIT.
 */
void gm_ci_mean(struct gm_ci *ci, const double *v, size_t n,
		const struct gm_ci_opts *o);

/*
 * The geometric mean of the positive values @v[0..n) and its interval:
 * gm_ci_mean() of their logarithms, exponentiated (the interval of a
 * ratio is then symmetric in the ratio and its inverse). A value that is
 * not positive makes everything NAN.
 */
void gm_ci_geomean(struct gm_ci *ci, const double *v, size_t n,
		   const struct gm_ci_opts *o);

/*
 * Two independent samples (two studies, repetitions not paired): the
 * ratio of the geometric mean of @b to that of @a, and its interval. t:
 * Welch's, on the logarithms: d = mean(log b) - mean(log a), se =
 * sqrt(sa^2/na + sb^2/nb), df by Welch-Satterthwaite, exp(d +- t(0.975,
 * df) se). Bootstrap: both resampled, each from its own draws of the one
 * generator. No interval unless both have 2 values or more.
 */
void gm_ci_ratio2(struct gm_ci *ci, const double *a, size_t na,
		  const double *b, size_t nb, const struct gm_ci_opts *o);

/*
 * Where @x lies against @ci: 1 when the interval is entirely above it, -1
 * when entirely below, 0 when the interval contains it or there is no
 * interval.
 */
int gm_ci_side(const struct gm_ci *ci, double x);

#endif
