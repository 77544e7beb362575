/* SPDX-License-Identifier: MIT */
/*
 * The report's latency tables (see report_tables.h): per workload size
 * and variant, the p50 and p99 slowdowns over the programs (and the
 * high-priority programs' of the priority variant); per program and run,
 * its replay-time percentiles and their slowdown against its alone run.
 */
#include "report_tables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

#define MS(ns) ((ns) / 1e6)

void gm_report_latency_table(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"programs", "variant", "program runs", "p50 slowdown geomean",
		"p99 slowdown geomean", "p99 slowdown worst", "worst in",
		"high-priority runs", "high-priority p99 slowdown geomean",
		"high-priority p99 slowdown worst",
		"others' p99 slowdown geomean", "high-priority programs under %s",
		"their p99 slowdown geomean under %s", NULL,
	};

	const char *names[sizeof(cols) / sizeof(cols[0])];

	/* The last two columns name the reference variant. */
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		names[i] = cols[i] && strstr(cols[i], "%s")
			? gm_xasprintf(cols[i], a->reference_variant) : cols[i];
	}
	gm_table_init(t, "latency", "Latency: replay-time slowdown per variant",
		      names);
	static const char *const ci_cols[] = {
		"p50 slowdown geomean", "p99 slowdown geomean", NULL,
	};
	gm_table_intervals(t, ci_cols);
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		if (names[i] != cols[i]) {
			free((char *)names[i]);
		}
	}
	gm_table_caption(t, "Slowdown at percentile p = p of a program's kept"
			 " replay times in the run / p of its replay times in"
			 " the `%s` run (linear interpolation between closest"
			 " ranks). Geometric means over the programs of the"
			 " workloads that have them in every repetition, per"
			 " workload size, with their 95%% interval over the"
			 " repetitions; the worst and the high-priority columns"
			 " over every program of the variant's runs."
			 " High-priority: the program the run's manifest names"
			 " (`priority.program`); others: the other programs of"
			 " those runs; under %s: the same high-priority"
			 " programs in the %s run of their workload, for"
			 " comparison.", a->alone_variant, a->reference_variant,
			 a->reference_variant);
	for (size_t i = 0; i < a->nlatency; i++) {
		const struct gm_an_latency *l = &a->latency[i];
		gm_table_row(t);
		gm_table_num(t, 0, (double)l->programs, 0);
		gm_table_text(t, 1, "%s", l->vlabel);
		gm_table_num(t, 2, (double)l->n, 0);
		gm_table_ci(t, 3, &l->p50_geo, 1, 2);
		gm_table_ci(t, 4, &l->p99_geo, 1, 2);
		gm_table_num(t, 5, l->p99_worst, 2);
		if (l->worst_run) {
			gm_table_text(t, 6, "%s: %s", l->worst_run,
				      l->worst_program);
		} else {
			gm_table_text(t, 6, "%s", "");
		}
		gm_table_num(t, 7, (double)l->high_n, 0);
		gm_table_num(t, 8, l->high_p99_geo, 2);
		gm_table_num(t, 9, l->high_p99_worst, 2);
		gm_table_num(t, 10, l->other_p99_geo, 2);
		gm_table_num(t, 11, (double)l->high_ref_n, 0);
		gm_table_num(t, 12, l->high_ref_p99_geo, 2);
	}
}

void gm_report_latency_runs_table(const struct gm_analysis *a,
				  struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "variant", "program", "priority", "kept replays",
		"p50 (ms)", "p95 (ms)", "p99 (ms)", "p50 slowdown",
		"p95 slowdown", "p99 slowdown", "alone time from",
		"repetitions", NULL,
	};

	gm_table_init(t, "latency-runs", "Replay-time percentiles per program",
		      cols);
	static const char *const ci_cols[] = {
		"p50 (ms)", "p95 (ms)", "p99 (ms)", "p50 slowdown",
		"p95 slowdown", "p99 slowdown", NULL,
	};

	gm_table_intervals(t, ci_cols);
	gm_table_caption(t, "Percentiles of the kept replays (replay time minus"
			 " trace I/O, the discarded last replay left out) and"
			 " their ratio to the same percentile in the `%s` run"
			 " the alone time comes from (of the same repetition);"
			 " each the mean over the repetitions with its 95%%"
			 " interval. Kept replays: over all repetitions.",
			 a->alone_variant);
	for (size_t i = 0; i < a->ncells; i++) {
		const struct gm_an_cell *c = &a->cells[i];
		for (size_t j = 0; j < c->nprog; j++) {
			const struct gm_an_cell_program *p = &c->progs[j];
			gm_table_row(t);
			gm_table_text(t, 0, "%s", c->workload);
			gm_table_text(t, 1, "%s", c->vlabel);
			gm_table_text(t, 2, "%s", p->name);
			gm_table_text(t, 3, "%s", p->high_priority ? "high" : "");
			gm_table_num(t, 4, (double)p->kept, 0);
			for (int k = 0; k < GM_LAT_PCTS; k++) {
				gm_table_ci(t, 5 + k, &p->p[k], 1e-6, 3);
				gm_table_ci(t, 8 + k, &p->slowdown[k], 1, 3);
			}
			gm_table_text(t, 11, "%s", p->alone_from ? p->alone_from : "");
			gm_table_num(t, 12, (double)c->nruns, 0);
		}
	}
}
