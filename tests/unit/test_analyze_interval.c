/* SPDX-License-Identifier: MIT */
/*
 * Confidence intervals (analyze/interval.h) against values computed by
 * hand (doc/database.md, "Intervals"): the t quantiles against published
 * tables, a t interval that excludes 1 and one that contains it, the
 * geometric and two-sample forms, and the percentile bootstrap, whose
 * seeded intervals must repeat exactly.
 */
#include <math.h>
#include <stdlib.h>

#include "analyze/interval.h"
#include "analyze/stats.h"
#include "error.h"
#include "test.h"

static void quantiles(void)
{
	/* Student's t, 0.975 quantile (any statistics table). */
	static const struct { double df, q; } t975[] = {
		{ 1, 12.7062047362 }, { 2, 4.30265272975 }, { 3, 3.18244630528 },
		{ 4, 2.77644510520 }, { 10, 2.22813885199 }, { 30, 2.04227245630 },
		{ 1000, 1.96233908082 },
	};
	for (size_t i = 0; i < sizeof(t975) / sizeof(t975[0]); i++) {
		char what[64];
		snprintf(what, sizeof(what), "t(0.975, %g)", t975[i].df);
		CHECK_NEAR(gm_t_quantile(0.975, t975[i].df), t975[i].q, 1e-8, what);
	}
	CHECK_NEAR(gm_t_quantile(0.975, INFINITY), 1.95996398454, 1e-8,
		   "infinite df: the normal quantile");
	CHECK_NEAR(gm_t_quantile(0.95, 5), 2.01504837333, 1e-8, "t(0.95, 5)");
	CHECK_NEAR(gm_t_quantile(0.025, 4), -2.77644510520, 1e-8,
		   "lower quantiles are the upper ones negated");
	CHECK_NEAR(gm_t_quantile(0.5, 7), 0, 1e-9, "the median is 0");
	/* Welch's df are fractional: between its neighbours. */
	double q = gm_t_quantile(0.975, 2.5);
	CHECK(q < 4.30265272975 && q > 3.18244630528, "t(0.975, 2.5) between df 2 and 3");
	CHECK(isnan(gm_t_quantile(1, 3)) && isnan(gm_t_quantile(0.5, 0)),
	      "out of range: NAN");
}

static void t_intervals(void)
{
	/* 1.10, 1.12, 1.14: mean 1.12, s 0.02, half 4.30265273 * 0.02 /
	 * sqrt 3 = 0.0496828: [1.0703172, 1.1696828], above 1. */
	double up[] = { 1.10, 1.12, 1.14 };
	/* 0.95, 1.05, 1.15: mean 1.05, s 0.1, half 0.2484138: [0.8015862,
	 * 1.2984138], which holds 1. */
	double wide[] = { 0.95, 1.05, 1.15 };
	struct gm_ci ci;

	gm_ci_mean(&ci, up, 3, NULL);
	CHECK_NEAR(ci.mean, 1.12, 1e-12, "t: mean");
	CHECK_NEAR(ci.lo, 1.0703172, 1e-7, "t: lower bound (hand-computed)");
	CHECK_NEAR(ci.hi, 1.1696828, 1e-7, "t: upper bound (hand-computed)");
	CHECK_INT(ci.n, 3, "t: n");
	CHECK_INT(gm_ci_side(&ci, 1), 1, "t: the interval excludes 1 (above)");
	gm_ci_mean(&ci, wide, 3, NULL);
	CHECK_NEAR(ci.lo, 0.8015862, 1e-7, "t: wide lower bound");
	CHECK_NEAR(ci.hi, 1.2984138, 1e-7, "t: wide upper bound");
	CHECK_INT(gm_ci_side(&ci, 1), 0, "t: the interval contains 1");
	CHECK_INT(gm_ci_side(&ci, 2), -1, "t: ... and is below 2");

	gm_ci_mean(&ci, up, 1, NULL);
	CHECK(ci.mean == 1.10 && isnan(ci.lo) && isnan(ci.hi),
	      "one value: the value, no interval");
	CHECK_INT(gm_ci_side(&ci, 1), 0, "no interval: no side");
	gm_ci_mean(&ci, NULL, 0, NULL);
	CHECK(isnan(ci.mean) && isnan(ci.lo), "no value: n/a");
	double same[] = { 2, 2, 2 };
	gm_ci_mean(&ci, same, 3, NULL);
	CHECK(ci.lo == 2 && ci.hi == 2, "equal values: a zero-width interval");

	/* Geometric: ratios 1.1 and 1/1.1 around 1: logs +-0.0953102, mean
	 * 0 (geomean 1), s 0.1347874, half 12.7062047 * 0.1347874 / sqrt 2
	 * = 1.2110307: [exp -1.2110307, exp 1.2110307] = [0.29789, 3.35694]. */
	double r[] = { 1.1, 1 / 1.1 };
	gm_ci_geomean(&ci, r, 2, NULL);
	CHECK_NEAR(ci.mean, 1, 1e-12, "geomean of 1.1 and 1/1.1");
	CHECK_NEAR(ci.lo, exp(-1.2110307), 1e-6, "geometric interval: lower");
	CHECK_NEAR(ci.hi, exp(1.2110307), 1e-5, "geometric interval: upper");
	CHECK_NEAR(ci.lo * ci.hi, 1, 1e-9, "symmetric in a ratio and its inverse");
	double bad[] = { 1, 0 };
	gm_ci_geomean(&ci, bad, 2, NULL);
	CHECK(isnan(ci.mean) && isnan(ci.lo), "geomean of a zero: n/a");

	/* Two samples (Welch): logs of a = {1, e^0.2} and b = {e^0.5,
	 * e^0.7}: d = 0.6 - 0.1 = 0.5, each variance 0.02 / 2 = 0.01, se =
	 * sqrt 0.02 = 0.1414214, df = 0.0004 / (0.0001 + 0.0001) = 2, half =
	 * 4.3026527 * 0.1414214 = 0.6084871: exp [-0.1084871, 1.1084871]. */
	double a[] = { 1, exp(0.2) }, b[] = { exp(0.5), exp(0.7) };
	gm_ci_ratio2(&ci, a, 2, b, 2, NULL);
	CHECK_NEAR(ci.mean, exp(0.5), 1e-12, "two samples: ratio of geomeans");
	CHECK_NEAR(ci.lo, exp(-0.1084871), 1e-6, "Welch: lower");
	CHECK_NEAR(ci.hi, exp(1.1084871), 1e-5, "Welch: upper");
	CHECK_INT(gm_ci_side(&ci, 1), 0, "Welch: contains 1");
	double b2[] = { exp(2.0), exp(2.1) };
	gm_ci_ratio2(&ci, a, 2, b2, 2, NULL);
	CHECK_INT(gm_ci_side(&ci, 1), 1, "Welch: far apart, above 1");
	gm_ci_ratio2(&ci, a, 1, b, 2, NULL);
	CHECK(isnan(ci.lo) && fabs(ci.mean - exp(0.6)) < 1e-12,
	      "one side with one value: the ratio, no interval");
}

static void bootstrap(void)
{
	struct gm_ci_opts o = { GM_CI_BOOTSTRAP, 42, 10000 };
	struct gm_ci ci, again;
	/* {1, 2, 3, 4}: the resample sums 4, 5, 6 have probabilities 1,
	 * 4 and 10 in 256; P(sum <= 5) = 1.95% < 2.5% < P(sum <= 6) =
	 * 5.86%, so the 2.5th percentile is the mean 6/4 = 1.5, and 3.5 by
	 * symmetry. */
	double four[] = { 1, 2, 3, 4 };
	/* {1, 3}: resample means 1, 2, 3 with 1/4, 1/2, 1/4: [1, 3]. */
	double two[] = { 1, 3 };

	gm_ci_mean(&ci, four, 4, &o);
	CHECK_NEAR(ci.mean, 2.5, 1e-12, "bootstrap: the mean is the sample's");
	CHECK_NEAR(ci.lo, 1.5, 1e-12, "bootstrap: 2.5th percentile (hand-computed)");
	CHECK_NEAR(ci.hi, 3.5, 1e-12, "bootstrap: 97.5th percentile (hand-computed)");
	gm_ci_mean(&again, four, 4, &o);
	CHECK(again.lo == ci.lo && again.hi == ci.hi,
	      "bootstrap: the same seed gives the same interval");
	gm_ci_mean(&ci, two, 2, &o);
	CHECK(ci.lo == 1 && ci.hi == 3, "bootstrap of {1, 3}: [1, 3]");

	/* A sample where the percentiles fall inside the range, so the
	 * seed matters: the same seed repeats it, another one moves it. */
	double many[] = { 0.91, 1.07, 0.98, 1.21, 1.02, 0.88, 1.13, 0.95 };
	struct gm_ci other;
	struct gm_ci_opts o2 = { GM_CI_BOOTSTRAP, 43, 10000 };
	gm_ci_mean(&ci, many, 8, &o);
	gm_ci_mean(&again, many, 8, &o);
	gm_ci_mean(&other, many, 8, &o2);
	CHECK(again.lo == ci.lo && again.hi == ci.hi,
	      "bootstrap: repeated exactly with seed 42");
	CHECK(other.lo != ci.lo || other.hi != ci.hi, "another seed, another draw");
	CHECK(fabs(other.lo - ci.lo) < 0.02 && fabs(other.hi - ci.hi) < 0.02,
	      "... of nearly the same interval");
	CHECK(ci.lo > 0.88 && ci.hi < 1.21 && ci.lo < 1.01875 && ci.hi > 1.01875,
	      "bootstrap: inside the sample's range, around its mean");

	gm_ci_ratio2(&ci, many, 8, many, 8, &o);
	gm_ci_ratio2(&again, many, 8, many, 8, &o);
	CHECK(ci.mean == 1 && gm_ci_side(&ci, 1) == 0 && again.lo == ci.lo,
	      "two-sample bootstrap: a sample against itself, repeatable");
}

static void options(void)
{
	struct gm_ci_opts o;

	CHECK_INT(gm_ci_opts_parse(&o, "t"), 0, "--ci t");
	CHECK_INT(o.method, GM_CI_T, "... is t");
	CHECK_INT(gm_ci_opts_parse(&o, "bootstrap"), 0, "--ci bootstrap");
	CHECK(o.method == GM_CI_BOOTSTRAP && o.seed == GM_CI_SEED,
	      "... with the default seed");
	CHECK_INT(gm_ci_opts_parse(&o, "bootstrap:7"), 0, "--ci bootstrap:7");
	CHECK(o.seed == 7, "... seed 7");
	CHECK_INT(gm_ci_opts_parse(&o, "bootstrap:x"), -1, "a bad seed");
	CHECK_STR(gm_error_message(), "'bootstrap:x': the seed after 'bootstrap:'"
		  " must be a non-negative integer", "... named");
	gm_error_clear();
	CHECK_INT(gm_ci_opts_parse(&o, "normal"), -1, "an unknown method");
	gm_error_clear();
	CHECK_STR(gm_ci_method_name(GM_CI_BOOTSTRAP), "bootstrap", "method name");
}

static void spread(void)
{
	double v[] = { 90, 100, 110 };

	CHECK_NEAR(gm_stddev(v, 3), 10, 1e-12, "standard deviation (n - 1)");
	CHECK_NEAR(gm_cv(v, 3), 0.1, 1e-12, "coefficient of variation");
	CHECK(isnan(gm_cv(v, 1)), "CV of one value: n/a");
}

int main(void)
{
	quantiles();
	t_intervals();
	bootstrap();
	options();
	spread();
	return test_done();
}
