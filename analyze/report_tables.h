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

/*
 * The registry of the report's tables, in the order the report writes
 * them: a table is one row (its name, the file stem in the report
 * directory and the value of `gpumix report --table`; whether index.md
 * and index.html show it in full rather than only link it; the function
 * that builds it from the analysis, which names the table the same).
 */
struct gm_report_table_def {
	const char *name;
	int inline_shown;
	void (*build)(const struct gm_analysis *a, struct gm_table *t);
};

extern const struct gm_report_table_def gm_report_table_list[];
extern const size_t gm_report_table_count;

/* The index of the table called @name in the registry, or -1. */
long gm_report_table_find(const char *name);

/*
 * Build every table of the registry into @t[0..gm_report_table_count)
 * (release each with gm_report_tables_release()).
 */
void gm_report_tables(const struct gm_analysis *a, struct gm_table *t);

/*
 * Append the tables @t[0..n) (only @t[only] when @only >= 0) as one JSON
 * document, {"tables": [...]}, each table an object (gm_table_json()):
 * what `gpumix report --format json` prints and a report's tables.json
 * holds.
 */
void gm_report_tables_json(const struct gm_table *t, size_t n, long only,
			   struct strbuf *out);

/* Release the gm_report_table_count tables @t. */
void gm_report_tables_release(struct gm_table *t);

/*
 * The latency tables (report_latency.c): per workload size and variant
 * the p50/p99 slowdowns ("latency"), and per program the replay-time
 * percentiles and slowdowns ("latency-runs").
 */
void gm_report_latency_table(const struct gm_analysis *a, struct gm_table *t);

/* Per run of the elastic variant, its launch counters (report_elastic.c). */
void gm_report_elastic_table(const struct gm_analysis *a, struct gm_table *t);
void gm_report_latency_runs_table(const struct gm_analysis *a,
				  struct gm_table *t);

/*
 * The open-loop tables (report_open_loop.c): per run and open-loop
 * program its requests' latency percentiles, SLO attainment, rates and
 * the batch programs' throughput ("open-loop"), and their means per
 * program, variant (without the point's label) and load
 * ("open-loop-load"). gm_report_open_loop_load()
 * is the load a run is grouped by (two decimals; -1: unknown), for the
 * figures too.
 */
void gm_report_open_loop_table(const struct gm_analysis *a, struct gm_table *t);
void gm_report_open_loop_load_table(const struct gm_analysis *a,
				    struct gm_table *t);
double gm_report_open_loop_load(const struct gm_an_open_loop *o);

/* The variant label of run @r without its open-loop point ("cuda",
 * "elastic+mpmax"): the series of the open-loop figures. Caller frees. */
char *gm_report_open_loop_variant(const struct gm_an_run *r);

/*
 * The ranking of the mechanisms (report_ranking.c): per workload size,
 * the variants by STP over the workloads all of them ran, with their
 * ANTT and p99-slowdown ranks.
 */
void gm_report_ranking_table(const struct gm_analysis *a, struct gm_table *t);

/*
 * Native against replayed slowdowns (report_corun.c): per co-run,
 * mechanism and program, the native slowdown with its spread, the
 * replayed one of the one-shot replays, their ratio and whether they
 * differ by more than 5% (analysis.h, struct gm_an_corun).
 */
void gm_report_corun_table(const struct gm_analysis *a, struct gm_table *t);

/*
 * STP and ANTT by sharing scenario (report_scenario.c): per workload
 * size, variant label and the scenario a run's kernels spent the most
 * time in, the geometric means over its ok runs ("scenarios").
 */
void gm_report_scenario_table(const struct gm_analysis *a, struct gm_table *t);

/* The SPMD model against the measurement (report_spmd.c, doc/spmd-model.md):
 * per run of N copies of one program, and the mean deviation per
 * scenario and variant (Li et al.'s Table 5). */
void gm_report_spmd_table(const struct gm_analysis *a, struct gm_table *t);
void gm_report_spmd_deviation_table(const struct gm_analysis *a,
				    struct gm_table *t);

/*
 * The noise diagnostics (report_noise.c): each ok run's programs' replay
 * time CV, unusual ones marked ("noise"), and the GPU's state at each
 * run's start and end ("gpu").
 */
void gm_report_noise_table(const struct gm_analysis *a, struct gm_table *t);
void gm_report_gpu_table(const struct gm_analysis *a, struct gm_table *t);

/*
 * The comparison with the paper (report_paper.c): each number the paper
 * prints for Fermi (paper_numbers.h) beside ours and their ratio, with
 * the kernels, timeslices and copy chunks our runs used in the caption.
 */
void gm_report_paper_table(const struct gm_analysis *a, struct gm_table *t);

/*
 * The waiting split, the block probe's and the driver calls' tables
 * (report_probe.c): per run and program, each kernel's wait split into
 * queued behind its own stream and waiting for SMs ("waiting-split");
 * the SM-time each program held ("probe-sm") and its kernels' waits for
 * SMs and SMs had ("probe-kernels"), for runs with the probe; the
 * replay's own driver calls in the timed part ("drivercalls").
 */
void gm_report_waiting_split_table(const struct gm_analysis *a,
				   struct gm_table *t);
void gm_report_probe_sm_table(const struct gm_analysis *a, struct gm_table *t);
void gm_report_probe_kernels_table(const struct gm_analysis *a,
				   struct gm_table *t);
void gm_report_drivercalls_table(const struct gm_analysis *a,
				 struct gm_table *t);

#endif
