/* SPDX-License-Identifier: MIT */
/*
 * The report's `elastic` table: per run of the elastic variant, what its
 * policy did with the launches (the manifest's elastic.*_launches,
 * runs.elastic*Launches; one column per row of elastic_counters.h).
 */
#include "report_tables.h"

#include <math.h>

#define COUNTER_TITLE_(id, key, column, title) title,

void gm_report_elastic_table(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "variant", "repetition",
		GM_ELASTIC_COUNTERS(COUNTER_TITLE_) NULL,
	};

	gm_table_init(t, "elastic", "What the elastic policies did with the "
		      "launches", cols);
	gm_table_caption(t, "Each run that counted them (the elastic variant;"
			 " the manifest's elastic.*_launches, over all its"
			 " replays, doc/elastic.md): launches planned by the"
			 " policy, given fewer blocks than captured (limited),"
			 " cut into timeslices (sliced), run with their"
			 " captured grid, and moved off a cliff of the kernel's"
			 " cliff map (mpmax-cliff).");
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		int any = 0;

		for (int c = 0; c < GM_ELASTIC_COUNTERS_NR; c++) {
			any |= r->elastic_counters[c] >= 0;
		}
		if (!any) {
			continue;
		}
		gm_table_row(t);
		gm_table_text(t, 0, "%s", r->workload);
		gm_table_text(t, 1, "%s", r->vlabel);
		gm_table_num(t, 2, (double)r->repetition, 0);
		for (int c = 0; c < GM_ELASTIC_COUNTERS_NR; c++) {
			gm_table_num(t, 3 + c, r->elastic_counters[c] < 0 ? NAN :
				     (double)r->elastic_counters[c], 0);
		}
	}
}
