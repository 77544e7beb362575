/* SPDX-License-Identifier: MIT */
/*
 * The report's ranking table (see report_tables.h): the mechanisms
 * ordered by STP over the workloads they all ran, with their rank by
 * each metric, so a reader sees at once which mechanism wins what, and
 * where the repetitions cannot tell two mechanisms apart.
 */
#include "report_tables.h"

#include <math.h>

#include "report_verdict.h"

void gm_report_ranking_table(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"programs", "rank", "variant", "workloads", "left out",
		"STP geomean", "ANTT geomean", "p99 slowdown geomean",
		"best STP in", "STP rank", "ANTT rank", "p99 rank",
		"repetitions", "STP / first", "vs first", NULL,
	};
	static const char *const ci_cols[] = {
		"STP geomean", "ANTT geomean", "p99 slowdown geomean",
		"STP / first", NULL,
	};

	gm_table_init(t, "ranking", "Ranking of the mechanisms", cols);
	gm_table_intervals(t, ci_cols);
	gm_table_caption(t, "Per workload size, the variants ordered by STP"
			 " rank over the workloads that every variant of that"
			 " size ran ok in every repetition (left out: the"
			 " workloads some variant failed or did not run, so that"
			 " no variant is judged on easier workloads), with each"
			 " geomean's 95%% interval over the repetitions. p99"
			 " slowdown: each program's p99 replay time over its `%s`"
			 " p99 (latency table). Best STP in: the workloads where"
			 " no variant has a higher mean STP. Rank 1 is best."
			 " With 2 repetitions or more a variant is ranked below"
			 " another only when the interval of their paired ratio"
			 " (per repetition, the geomean over the same workloads)"
			 " excludes 1: variants that cannot be told apart share a"
			 " rank, and \"STP / first\" gives each one's paired ratio"
			 " to the first row (\"no difference\": the interval"
			 " contains 1). With one repetition there are no"
			 " intervals: the ranks follow the values (equal values"
			 " share a rank).", a->alone_variant);
	for (size_t i = 0; i < a->nranking; i++) {
		const struct gm_an_rank *r = &a->ranking[i];
		int first = !i || a->ranking[i - 1].programs != r->programs;
		gm_table_row(t);
		gm_table_num(t, 0, (double)r->programs, 0);
		gm_table_num(t, 1, (double)r->rank_stp, 0);
		gm_table_text(t, 2, "%s", r->vlabel);
		gm_table_num(t, 3, (double)r->workloads, 0);
		gm_table_num(t, 4, (double)r->left_out, 0);
		gm_table_ci(t, 5, &r->stp_geo, 1, 2);
		gm_table_ci(t, 6, &r->antt_geo, 1, 2);
		gm_table_ci(t, 7, &r->p99_geo, 1, 2);
		gm_table_num(t, 8, (double)r->best_stp, 0);
		gm_table_num(t, 9, (double)r->rank_stp, 0);
		gm_table_num(t, 10, (double)r->rank_antt, 0);
		gm_table_num(t, 11, (double)r->rank_p99, 0);
		gm_table_num(t, 12, (double)r->repetitions, 0);
		if (first) {
			gm_table_text(t, 13, "%s", "");
			gm_table_text(t, 14, "%s", "(first)");
			continue;
		}
		gm_table_ci(t, 13, &r->stp_top, 1, 2);
		gm_table_text(t, 14, "%s", gm_report_verdict(&r->stp_top, 1));
	}
}
