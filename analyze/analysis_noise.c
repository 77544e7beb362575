/* SPDX-License-Identifier: MIT */
/*
 * Noise diagnostics (see analysis.h, enum gm_noise): which runs' replay
 * times spread unusually, and on which the GPU throttled or its clock
 * moved, each said in a note so that a reader weighs those runs' numbers
 * knowing it. The thresholds are analysis.h's, documented in
 * doc/database.md ("Noise").
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "stats.h"
#include "strbuf.h"

/* The throttle reasons that mean power or heat held the clock down. */
static const char *const hot_reasons[] = {
	"sw_power_cap", "hw_slowdown", "sw_thermal", "hw_thermal",
	"hw_power_brake",
};

/* Whether the comma-separated list @names holds @name. */
static int has_name(const char *names, const char *name)
{
	size_t n = strlen(name);

	for (const char *p = names; p && *p;) {
		const char *comma = strchr(p, ',');
		size_t len = comma ? (size_t)(comma - p) : strlen(p);
		if (len == n && !strncmp(p, name, n)) {
			return 1;
		}
		p = comma ? comma + 1 : NULL;
	}
	return 0;
}

/* The hot reasons of @names, joined by ',' into @sb (empty: none). */
static void hot(const char *names, struct strbuf *sb)
{
	for (size_t i = 0; i < sizeof(hot_reasons) / sizeof(hot_reasons[0]); i++) {
		if (has_name(names, hot_reasons[i])) {
			strbuf_addf(sb, "%s%s", sb->len ? "," : "", hot_reasons[i]);
		}
	}
}

/* The median end clock of the ok runs on @device; NAN without any. */
static double median_end_clock(const struct gm_analysis *a, const char *device)
{
	double *v = gm_xcalloc(a->nruns + 1, sizeof(*v)), m;
	size_t n = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (r->ok && r->gpu_clock[1] >= 0 &&
		    !strcmp(r->device_name, device)) {
			v[n++] = (double)r->gpu_clock[1];
		}
	}
	gm_sort_doubles(v, n);
	m = gm_percentile_sorted(v, n, 50);
	free(v);
	return m;
}

static void gpu_flags(struct gm_analysis *a, struct gm_an_run *r)
{
	static const char *const side[2] = { "start", "end" };
	struct strbuf sb = STRBUF_INIT;
	int64_t c0 = r->gpu_clock[0], c1 = r->gpu_clock[1];

	for (int s = 0; s < 2; s++) {
		strbuf_reset(&sb);
		hot(r->gpu_throttle[s], &sb);
		if (sb.len) {
			r->noise |= GM_NOISE_THROTTLE;
			gm_an_note(a, "run '%s': the GPU's clock was held down at"
				   " its %s (%s)", r->label, side[s], sb.buf);
		}
	}
	if (c0 > 0 && c1 >= 0 &&
	    !has_name(r->gpu_throttle[0], "gpu_idle") &&
	    !has_name(r->gpu_throttle[1], "gpu_idle") &&
	    fabs((double)(c1 - c0)) > GM_NOISE_CLOCK * (double)c0) {
		r->noise |= GM_NOISE_CLOCK_CHANGE;
		gm_an_note(a, "run '%s': the SM clock changed from %lld MHz at"
			   " its start to %lld MHz at its end", r->label,
			   (long long)c0, (long long)c1);
	}
	double m = c1 >= 0 ? median_end_clock(a, r->device_name) : NAN;
	if (c1 >= 0 && (double)c1 < (1 - GM_NOISE_CLOCK) * m) {
		r->noise |= GM_NOISE_CLOCK_LOW;
		gm_an_note(a, "run '%s': its SM clock at the end, %lld MHz, is"
			   " below the study's median (%.0f MHz)", r->label,
			   (long long)c1, m);
	}
	strbuf_release(&sb);
}

void gm_an_noise(struct gm_analysis *a)
{
	size_t count = 0, n = 0;
	double *cv;

	for (size_t i = 0; i < a->nruns; i++) {
		count += a->runs[i].ok ? a->runs[i].nprog : 0;
	}
	cv = gm_xcalloc(count + 1, sizeof(*cv));
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		for (size_t j = 0; r->ok && j < r->nprog; j++) {
			if (!isnan(r->progs[j].replay_cv)) {
				cv[n++] = r->progs[j].replay_cv;
			}
		}
	}
	gm_sort_doubles(cv, n);
	a->median_cv = gm_percentile_sorted(cv, n, 50);
	free(cv);
	for (size_t i = 0; i < a->nruns; i++) {
		struct gm_an_run *r = &a->runs[i];
		if (!r->ok) {
			continue;
		}
		for (size_t j = 0; j < r->nprog; j++) {
			struct gm_an_program *p = &r->progs[j];
			double x = p->replay_cv;
			if (isnan(x) || !(x > GM_NOISE_CV_HIGH ||
					  (x > GM_NOISE_CV_FACTOR * a->median_cv &&
					   x > GM_NOISE_CV_FLOOR))) {
				continue;
			}
			p->cv_unusual = 1;
			r->noise |= GM_NOISE_CV;
			gm_an_note(a, "run '%s': the replay times of '%s' spread"
				   " unusually (CV %.1f%%; the study's median is"
				   " %.1f%%)", r->label, p->name, 100 * x,
				   100 * a->median_cv);
		}
		if (r->gpu_clock[0] < 0 && r->gpu_clock[1] < 0 &&
		    !r->gpu_throttle[0] && !r->gpu_throttle[1]) {
			a->no_gpu_state++;
			continue;
		}
		gpu_flags(a, r);
	}
	size_t ok = 0;
	for (size_t i = 0; i < a->nruns; i++) {
		ok += a->runs[i].ok;
	}
	if (a->no_gpu_state && a->no_gpu_state < ok) {
		gm_an_note(a, "%zu of the %zu ok runs have no GPU clock, temperature"
			   " or throttle readings (no NVML where they ran, or an"
			   " older gpumix)", a->no_gpu_state, ok);
	}
}
