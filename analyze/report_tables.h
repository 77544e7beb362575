/* SPDX-License-Identifier: MIT */
/*
 * The report's tables, built from an analysis: the ranking of the
 * mechanisms, the paper's Tables 4 and 5
 * (summary, improvement over cuda), per-workload STP/ANTT, per-program
 * times, replay-time percentiles and slowdowns (latency), waiting time, overlap breakdown, running kernels and
 * utilization (per variant and per run), the resource table (Table 2),
 * the list of runs and the comparison with the paper's numbers. Names are the file stems in the report directory
 * and the values of `gpumix report --table`.
 */
#ifndef GM_REPORT_TABLES_H
#define GM_REPORT_TABLES_H

#include "analysis.h"
#include "table.h"

enum gm_report_table {
	GM_T_RANKING,
	GM_T_SUMMARY,
	GM_T_IMPROVEMENT,
	GM_T_WORKLOADS,
	GM_T_PROGRAMS,
	GM_T_LATENCY,
	GM_T_LATENCY_RUNS,
	GM_T_WAITING,
	GM_T_WAITING_RUNS,
	GM_T_OVERLAP,
	GM_T_OVERLAP_RUNS,
	GM_T_UTILIZATION,
	GM_T_UTILIZATION_RUNS,
	GM_T_RESOURCES,
	GM_T_RUNS,
	GM_T_PAPER,
	GM_T_COUNT
};

/* Fill @t[0..GM_T_COUNT-1] (release each with gm_table_release()). */
void gm_report_tables(const struct gm_analysis *a, struct gm_table *t);

/*
 * The latency tables (report_latency.c): per workload size and variant
 * the p50/p99 slowdowns (@t, "latency"), and per program and run the
 * replay-time percentiles and slowdowns (@runs, "latency-runs").
 */
void gm_report_latency_tables(const struct gm_analysis *a, struct gm_table *t,
			      struct gm_table *runs);

/*
 * The ranking of the mechanisms (report_ranking.c): per workload size,
 * the variants by STP over the workloads all of them ran, with their
 * ANTT and p99-slowdown ranks.
 */
void gm_report_ranking_table(const struct gm_analysis *a, struct gm_table *t);

/*
 * The comparison with the paper (report_paper.c): each number the paper
 * prints for Fermi (paper_numbers.h) beside ours and their ratio, with
 * the kernels, timeslices and copy chunks our runs used in the caption.
 */
void gm_report_paper_table(const struct gm_analysis *a, struct gm_table *t);

#endif
