/* SPDX-License-Identifier: MIT */
/*
 * The report's scenario table (see report_tables.h): STP and ANTT
 * stratified by sharing scenario (Li et al.'s exclusive space,
 * non-exclusive space, space-time and time; common/sharing_scenario.h),
 * the setting of their Table 5: per workload size, variant label and the
 * scenario a run's kernels spent the most time in (analysis.h,
 * gm_an_run.scenario), the geometric means of the STP and ANTT of the
 * ok runs in it. The N copies of one program (doc/study-yaml.md) are
 * what the scenarios were defined for; other workloads are classified
 * with each program's copies counted the same way (1 for each program
 * that appears once).
 */
#include "report_tables.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "sharing_scenario.h"
#include "stats.h"
#include "strbuf.h"

void gm_report_scenario_table(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"programs", "variant", "scenario", "runs", "STP geomean",
		"ANTT geomean", NULL,
	};
	double *stp = gm_xcalloc(a->nruns + 1, sizeof(double));
	double *antt = gm_xcalloc(a->nruns + 1, sizeof(double));
	size_t max_size = 0;

	gm_table_init(t, "scenarios", "STP and ANTT by sharing scenario", cols);
	gm_table_caption(t, "Each ok run (not an alone run) in the scenario its"
			 " kernels spent the most time in "
			 "(CUPTI_ACTIVITY_KIND_KERNEL.scenario: from each "
			 "launch's grid, its blocks per SM on the run's device "
			 "and the copies of its program, doc/database.md); the "
			 "geometric means over the runs with an STP.");
	for (size_t i = 0; i < a->nruns; i++) {
		if (a->runs[i].nprog > max_size) {
			max_size = a->runs[i].nprog;
		}
	}
	for (size_t size = 1; size <= max_size; size++) {
		for (size_t v = 0; v < a->nvariants; v++) {
			for (int k = 0; k < GM_SCENARIO_NONE; k++) {
				const char *sc = gm_scenario_name((enum gm_scenario)k);
				size_t n = 0;
				for (size_t i = 0; i < a->nruns; i++) {
					const struct gm_an_run *r = &a->runs[i];
					if (!r->ok || r->alone || r->nprog != size ||
					    r->vindex != v || !r->scenario ||
					    strcmp(r->scenario, sc) ||
					    isnan(r->stp)) {
						continue;
					}
					stp[n] = r->stp;
					antt[n] = r->antt;
					n++;
				}
				if (!n) {
					continue;
				}
				gm_table_row(t);
				gm_table_num(t, 0, (double)size, 0);
				gm_table_text(t, 1, "%s", a->variants[v].label);
				gm_table_text(t, 2, "%s", sc);
				gm_table_num(t, 3, (double)n, 0);
				gm_table_num(t, 4, gm_geomean(stp, n), 3);
				gm_table_num(t, 5, gm_geomean(antt, n), 3);
			}
		}
	}
	free(stp);
	free(antt);
}
