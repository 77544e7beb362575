/* SPDX-License-Identifier: MIT */
/*
 * The report's noise tables (see report_tables.h): how much each
 * program's replay times spread inside its run, and what the GPU's clock,
 * temperature and throttle reasons were when each run started and ended,
 * with what the analysis found unusual (analysis.h, enum gm_noise) marked
 * where it is.
 */
#include "report_tables.h"

#include <math.h>
#include <stdio.h>

#include "strbuf.h"

void gm_report_noise_table(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "variant", "repetition", "program", "kept replays",
		"replay CV %", "unusual", NULL,
	};

	gm_table_init(t, "noise", "Noise: the spread of replay times in each run",
		      cols);
	/* One-shot runs have one replay each: no CV, no median. */
	char median[32];

	if (isnan(a->median_cv)) {
		snprintf(median, sizeof(median), "n/a: no run has 2 replays");
	} else {
		snprintf(median, sizeof(median), "%.2f%%", 100 * a->median_cv);
	}
	gm_table_caption(t, "Coefficient of variation (standard deviation /"
			 " mean) of each program's kept replay times in each ok"
			 " run (programs.replayCv). Unusual: above %.0f%%, or"
			 " above %.0f times the study's median (%s) and"
			 " %.0f%% (doc/database.md, \"Noise\"). Replays inside"
			 " one run are not independent measurements: the"
			 " intervals are over repetitions, this is a"
			 " diagnostic.", 100 * GM_NOISE_CV_HIGH,
			 GM_NOISE_CV_FACTOR, median,
			 100 * GM_NOISE_CV_FLOOR);
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		for (size_t j = 0; r->ok && j < r->nprog; j++) {
			const struct gm_an_program *p = &r->progs[j];
			gm_table_row(t);
			gm_table_text(t, 0, "%s", r->workload);
			gm_table_text(t, 1, "%s", r->vlabel);
			gm_table_num(t, 2, (double)r->repetition, 0);
			gm_table_text(t, 3, "%s", p->name);
			gm_table_num(t, 4, (double)p->kept, 0);
			gm_table_num(t, 5, 100 * p->replay_cv, 2);
			gm_table_text(t, 6, "%s", p->cv_unusual ? "yes" : "");
		}
	}
}

/* A reading, NAN when absent. */
static double reading(int64_t v)
{
	return v < 0 ? NAN : (double)v;
}

void gm_report_gpu_table(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "variant", "repetition", "SM clock start (MHz)",
		"SM clock end (MHz)", "temperature start (C)",
		"temperature end (C)", "throttle start", "throttle end",
		"warning", NULL,
	};
	static const struct {
		unsigned bit;
		const char *what;
	} warnings[] = {
		{ GM_NOISE_THROTTLE, "throttled" },
		{ GM_NOISE_CLOCK_CHANGE, "clock changed" },
		{ GM_NOISE_CLOCK_LOW, "clock below the study's" },
	};
	struct strbuf sb = STRBUF_INIT;

	gm_table_init(t, "gpu", "The GPU at each run's start and end", cols);
	gm_table_caption(t, "Read through NVML by the replay (the manifest's"
			 " gpu.start.* and gpu.end.*; n/a where it had none)."
			 " Throttled: a reason of power or heat; clock changed:"
			 " by more than %.0f%% from start to end, neither reading"
			 " idle; clock below the study's: the end clock more"
			 " than %.0f%% below the median of the runs on that"
			 " device (doc/database.md, \"Noise\").",
			 100 * GM_NOISE_CLOCK, 100 * GM_NOISE_CLOCK);
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		gm_table_row(t);
		gm_table_text(t, 0, "%s", r->workload);
		gm_table_text(t, 1, "%s", r->vlabel);
		gm_table_num(t, 2, (double)r->repetition, 0);
		for (int k = 0; k < 2; k++) {
			gm_table_num(t, 3 + k, reading(r->gpu_clock[k]), 0);
			gm_table_num(t, 5 + k, reading(r->gpu_temp[k]), 0);
			gm_table_text(t, 7 + k, "%s", r->gpu_throttle[k] ?
				      r->gpu_throttle[k] : "n/a");
		}
		strbuf_reset(&sb);
		for (size_t w = 0; w < sizeof(warnings) / sizeof(warnings[0]); w++) {
			if (r->noise & warnings[w].bit) {
				strbuf_addf(&sb, "%s%s", sb.len ? ", " : "",
					    warnings[w].what);
			}
		}
		gm_table_text(t, 9, "%s", sb.buf);
	}
	strbuf_release(&sb);
}
