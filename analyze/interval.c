/* SPDX-License-Identifier: MIT */
/*
 * Confidence intervals (see interval.h). The t quantile comes from the
 * distribution function, itself from the regularized incomplete beta
 * function by its continued fraction (evaluated with the modified Lentz
 * method), so any degrees of freedom work, Welch's fractional ones
 * included; the unit tests hold it to published quantiles.
 */
#include "interval.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "stats.h"
#include "strbuf.h"

const char *gm_ci_method_name(enum gm_ci_method m)
{
	return m == GM_CI_BOOTSTRAP ? "bootstrap" : "t";
}

int gm_ci_opts_parse(struct gm_ci_opts *o, const char *s)
{
	struct gm_ci_opts d = GM_CI_OPTS_INIT;

	*o = d;
	if (!strcmp(s, "t")) {
		return 0;
	}
	if (!strncmp(s, "bootstrap", 9) && (!s[9] || s[9] == ':')) {
		o->method = GM_CI_BOOTSTRAP;
		if (s[9] == ':') {
			char *end;
			unsigned long long v;
			errno = 0;
			v = strtoull(s + 10, &end, 10);
			if (!s[10] || *end || errno || s[10] == '-') {
				return gm_error("'%s': the seed after 'bootstrap:'"
						" must be a non-negative integer", s);
			}
			o->seed = v;
		}
		return 0;
	}
	return gm_error("'%s' is not an interval method (t, bootstrap or"
			" bootstrap:SEED)", s);
}

/* The continued fraction of I_x(a, b), for x < (a + 1) / (a + b + 2). */
static double beta_fraction(double a, double b, double x)
{
	const double tiny = 1e-300;
	double c = 1, d = 1 - (a + b) * x / (a + 1), f;

	d = fabs(d) < tiny ? tiny : d;
	d = 1 / d;
	f = d;
	for (int m = 1; m <= 500; m++) {
		double num, delta;
		for (int odd = 0; odd < 2; odd++) {
			num = odd ? -(a + m) * (a + b + m) * x /
					    ((a + 2 * m) * (a + 2 * m + 1))
				  : m * (b - m) * x /
					    ((a + 2 * m - 1) * (a + 2 * m));
			d = 1 + num * d;
			d = fabs(d) < tiny ? tiny : d;
			c = 1 + num / c;
			c = fabs(c) < tiny ? tiny : c;
			d = 1 / d;
			delta = c * d;
			f *= delta;
		}
		if (fabs(delta - 1) < 1e-15) {
			break;
		}
	}
	return f;
}

/* The regularized incomplete beta function I_x(a, b), 0 <= x <= 1. */
static double incomplete_beta(double a, double b, double x)
{
	double front;

	if (x <= 0) {
		return 0;
	}
	if (x >= 1) {
		return 1;
	}
	front = exp(a * log(x) + b * log1p(-x) - lgamma(a) - lgamma(b) +
		    lgamma(a + b));
	if (x < (a + 1) / (a + b + 2)) {
		return front * beta_fraction(a, b, x) / a;
	}
	return 1 - front * beta_fraction(b, a, 1 - x) / b;
}

/* P(T <= t) for Student's t with @df degrees of freedom. */
static double t_cdf(double t, double df)
{
	double tail;

	if (isinf(df)) {
		return 0.5 * erfc(-t / sqrt(2));
	}
	tail = 0.5 * incomplete_beta(df / 2, 0.5, df / (df + t * t));
	return t >= 0 ? 1 - tail : tail;
}

double gm_t_quantile(double p, double df)
{
	double lo = 0, hi = 1;

	if (!(p > 0 && p < 1) || !(df > 0)) {
		return NAN;
	}
	if (p < 0.5) {
		return -gm_t_quantile(1 - p, df);
	}
	while (t_cdf(hi, df) < p && hi < 1e300) {
		lo = hi;
		hi *= 2;
	}
	for (int i = 0; i < 200 && hi - lo > 1e-13 * hi; i++) {
		double mid = lo + (hi - lo) / 2;
		if (t_cdf(mid, df) < p) {
			lo = mid;
		} else {
			hi = mid;
		}
	}
	return lo + (hi - lo) / 2;
}

/* splitmix64 (Steele, Lea, Flood 2014): a small, seedable generator. */
static uint64_t next_random(uint64_t *state)
{
	uint64_t z = (*state += 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* A uniform index below @n (n < 2^32: the bias is below 2^-32). */
static size_t draw(uint64_t *state, size_t n)
{
	return (size_t)(((next_random(state) >> 32) * (uint64_t)n) >> 32);
}

static double resample_mean(uint64_t *state, const double *v, size_t n)
{
	double s = 0;

	for (size_t i = 0; i < n; i++) {
		s += v[draw(state, n)];
	}
	return s / (double)n;
}

/* The interval from sorted bootstrap statistics @st[0..b). */
static void percentile_interval(struct gm_ci *ci, double *st, size_t b)
{
	double tail = 100 * (1 - GM_CI_LEVEL) / 2;

	gm_sort_doubles(st, b);
	ci->lo = gm_percentile_sorted(st, b, tail);
	ci->hi = gm_percentile_sorted(st, b, 100 - tail);
}

static unsigned resamples(const struct gm_ci_opts *o)
{
	return o->resamples ? o->resamples : GM_CI_RESAMPLES;
}

void gm_ci_mean(struct gm_ci *ci, const double *v, size_t n,
		const struct gm_ci_opts *o)
{
	static const struct gm_ci_opts dflt = GM_CI_OPTS_INIT;

	o = o ? o : &dflt;
	ci->n = n;
	ci->mean = gm_mean(v, n);
	ci->lo = ci->hi = NAN;
	if (n < 2 || !isfinite(ci->mean)) {
		return;
	}
	if (o->method == GM_CI_BOOTSTRAP) {
		unsigned b = resamples(o);
		double *st = gm_xmalloc(b * sizeof(*st));
		uint64_t state = o->seed;
		for (unsigned i = 0; i < b; i++) {
			st[i] = resample_mean(&state, v, n);
		}
		percentile_interval(ci, st, b);
		free(st);
		return;
	}
	double half = gm_t_quantile(1 - (1 - GM_CI_LEVEL) / 2, (double)(n - 1)) *
		      gm_stddev(v, n) / sqrt((double)n);
	ci->lo = ci->mean - half;
	ci->hi = ci->mean + half;
}

/* The logarithms of @v, or NULL when a value is not positive and finite. */
static double *logs(const double *v, size_t n)
{
	double *l = gm_xmalloc((n ? n : 1) * sizeof(*l));

	for (size_t i = 0; i < n; i++) {
		if (!(v[i] > 0) || !isfinite(v[i])) {
			free(l);
			return NULL;
		}
		l[i] = log(v[i]);
	}
	return l;
}

static void exp_ci(struct gm_ci *ci)
{
	ci->mean = exp(ci->mean);
	ci->lo = exp(ci->lo);
	ci->hi = exp(ci->hi);
}

void gm_ci_geomean(struct gm_ci *ci, const double *v, size_t n,
		   const struct gm_ci_opts *o)
{
	double *l = logs(v, n);

	if (!l) {
		ci->n = n;
		ci->mean = ci->lo = ci->hi = NAN;
		return;
	}
	gm_ci_mean(ci, l, n, o);
	exp_ci(ci);
	free(l);
}

void gm_ci_ratio2(struct gm_ci *ci, const double *a, size_t na,
		  const double *b, size_t nb, const struct gm_ci_opts *o)
{
	static const struct gm_ci_opts dflt = GM_CI_OPTS_INIT;
	double *la = logs(a, na), *lb = logs(b, nb);

	o = o ? o : &dflt;
	ci->n = na < nb ? na : nb;
	ci->mean = ci->lo = ci->hi = NAN;
	if (!la || !lb || !na || !nb) {
		goto out;
	}
	ci->mean = gm_mean(lb, nb) - gm_mean(la, na);
	if (na < 2 || nb < 2) {
		ci->mean = exp(ci->mean);
		goto out;
	}
	if (o->method == GM_CI_BOOTSTRAP) {
		unsigned r = resamples(o);
		double *st = gm_xmalloc(r * sizeof(*st));
		uint64_t state = o->seed;
		for (unsigned i = 0; i < r; i++) {
			double ma = resample_mean(&state, la, na);
			st[i] = resample_mean(&state, lb, nb) - ma;
		}
		percentile_interval(ci, st, r);
		free(st);
	} else {
		double va = pow(gm_stddev(la, na), 2) / (double)na;
		double vb = pow(gm_stddev(lb, nb), 2) / (double)nb;
		double se = sqrt(va + vb);
		double df = se > 0 ? pow(va + vb, 2) /
			(va * va / (double)(na - 1) + vb * vb / (double)(nb - 1))
			: INFINITY;
		double half = gm_t_quantile(1 - (1 - GM_CI_LEVEL) / 2, df) * se;
		ci->lo = ci->mean - half;
		ci->hi = ci->mean + half;
	}
	exp_ci(ci);
out:
	free(la);
	free(lb);
}

int gm_ci_side(const struct gm_ci *ci, double x)
{
	if (isnan(ci->lo) || isnan(ci->hi)) {
		return 0;
	}
	return ci->lo > x ? 1 : ci->hi < x ? -1 : 0;
}
