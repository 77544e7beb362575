/* SPDX-License-Identifier: MIT */
/*
 * The report's open-loop tables (see report_tables.h): per run and
 * open-loop program its requests' latency percentiles, queueing and
 * service, SLO attainment, rates and the batch programs' throughput
 * ("open-loop"); and per program, variant and load the means over the
 * repetitions ("open-loop-load"), the numbers of the p99-against-load
 * and SLO figures.
 */
#include "report_tables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "variant.h"
#include "stats.h"
#include "strbuf.h"

#define MS(ns) ((ns) / 1e6)

void gm_report_open_loop_table(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "variant", "repetition", "program", "arrivals",
		"load", "offered (req/s)", "achieved (req/s)", "requests",
		"p50 (ms)", "p95 (ms)", "p99 (ms)", "p99.9 (ms)",
		"queueing (ms)", "service (ms)", "SLO (ms)", "SLO attained (%)",
		"batch throughput (x alone)", NULL,
	};

	gm_table_init(t, "open-loop", "Open-loop programs: request latency "
		      "and SLO attainment per run", cols);
	gm_table_caption(t, "Each request of an open-loop program (gpumix "
			 "replay --arrivals) waits in its program's queue "
			 "(queueing = start - arrival) and is served (service "
			 "= end - start); latency = end - arrival, its "
			 "percentiles interpolated over the run's requests. "
			 "Load = offered rate x the program's alone service "
			 "time (its mean replay time in the `%s` run); the SLO "
			 "target is a multiple of that time (2x by default) or "
			 "milliseconds; achieved = requests / (last end - first "
			 "arrival); batch throughput = the other programs' "
			 "alone time / their mean replay time here, averaged.",
			 a->alone_variant);
	for (size_t i = 0; i < a->nopen_loop; i++) {
		const struct gm_an_open_loop *o = &a->open_loop[i];
		const struct gm_an_run *r = o->run;
		gm_table_row(t);
		gm_table_text(t, 0, "%s", r->workload);
		gm_table_text(t, 1, "%s", r->vlabel);
		gm_table_num(t, 2, (double)r->repetition, 0);
		gm_table_text(t, 3, "%s", r->progs[o->prog].name);
		gm_table_text(t, 4, "%s", o->arrivals);
		gm_table_num(t, 5, o->load, 3);
		gm_table_num(t, 6, o->offered_rate, 3);
		gm_table_num(t, 7, o->achieved_rate, 3);
		gm_table_num(t, 8, (double)o->n, 0);
		for (int k = 0; k < GM_OL_PCTS; k++) {
			gm_table_num(t, 9 + (size_t)k, MS(o->lat[k]), 3);
		}
		gm_table_num(t, 13, MS(o->queue_mean), 3);
		gm_table_num(t, 14, MS(o->service_mean), 3);
		gm_table_num(t, 15, MS(o->slo_ns), 3);
		gm_table_num(t, 16, o->slo_attained * 100, 1);
		gm_table_num(t, 17, o->batch_speed, 3);
	}
}

char *gm_report_open_loop_variant(const struct gm_an_run *r)
{
	return gm_xasprintf("%s%s%s%s", r->variant,
			    strcmp(r->policy, "none") ? "+" : "",
			    strcmp(r->policy, "none") ? r->policy : "",
			    r->one_shot ? GM_ONE_SHOT_SUFFIX : "");
}

/* The load of @o to two decimals (the group of the sweep it belongs
 * to), or -1 when unknown. */
double gm_report_open_loop_load(const struct gm_an_open_loop *o)
{
	return isnan(o->load) ? -1 : round(o->load * 100) / 100;
}

void gm_report_open_loop_load_table(const struct gm_analysis *a,
				    struct gm_table *t)
{
	static const char *const cols[] = {
		"program", "variant", "load", "runs", "p99 (ms)",
		"SLO attained (%)", "batch throughput (x alone)", NULL,
	};
	unsigned char *done = gm_xcalloc(a->nopen_loop + 1, 1);

	gm_table_init(t, "open-loop-load", "Open-loop programs: p99 latency, "
		      "SLO attainment and batch throughput against load", cols);
	gm_table_caption(t, "The runs of table open-loop grouped by program, "
			 "variant and load (to two decimals: a study's `load` "
			 "sweep), each number the mean over the group's runs "
			 "(its repetitions); load -1: unknown (no alone time).");
	for (size_t i = 0; i < a->nopen_loop; i++) {
		const struct gm_an_open_loop *o = &a->open_loop[i];
		const char *name = o->run->progs[o->prog].name;
		char *base = gm_report_open_loop_variant(o->run);
		double load = gm_report_open_loop_load(o);
		double p99 = 0, slo = 0, batch = 0;
		size_t n = 0, nslo = 0, nbatch = 0;
		if (done[i]) {
			free(base);
			continue;
		}
		for (size_t j = i; j < a->nopen_loop; j++) {
			const struct gm_an_open_loop *x = &a->open_loop[j];
			char *xb;
			int same;
			if (done[j] || strcmp(x->run->progs[x->prog].name, name) ||
			    gm_report_open_loop_load(x) != load) {
				continue;
			}
			xb = gm_report_open_loop_variant(x->run);
			same = !strcmp(xb, base);
			free(xb);
			if (!same) {
				continue;
			}
			done[j] = 1;
			p99 += x->lat[GM_OL_P99];
			n++;
			if (!isnan(x->slo_attained)) {
				slo += x->slo_attained;
				nslo++;
			}
			if (!isnan(x->batch_speed)) {
				batch += x->batch_speed;
				nbatch++;
			}
		}
		gm_table_row(t);
		gm_table_text(t, 0, "%s", name);
		gm_table_text(t, 1, "%s", base);
		free(base);
		gm_table_num(t, 2, load, 2);
		gm_table_num(t, 3, (double)n, 0);
		gm_table_num(t, 4, MS(p99 / (double)n), 3);
		gm_table_num(t, 5, nslo ? slo / (double)nslo * 100 : NAN, 1);
		gm_table_num(t, 6, nbatch ? batch / (double)nbatch : NAN, 3);
	}
	free(done);
}
