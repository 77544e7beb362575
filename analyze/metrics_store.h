/* SPDX-License-Identifier: MIT */
/*
 * The per-run metrics tables, run_metrics and program_metrics: each ok
 * run's STP, ANTT, workload time and MTSpeedup, and each of its
 * programs' times, slowdown and replay-time percentiles, as the analysis
 * (analysis.h) computed them for the report, so that a query or
 * pandas.read_sql gets the report's numbers without a formula of its
 * own. Derived from the runs: written with the intervals table
 * (interval_store.h) whenever `gpumix analyze` changes the runs
 * (doc/database.md, "run_metrics", "program_metrics").
 */
#ifndef GM_METRICS_STORE_H
#define GM_METRICS_STORE_H

#include "analysis.h"
#include "db.h"

/*
 * Replace the rows of @db's run_metrics and program_metrics tables with
 * those of the analysis @a of @db (inside the caller's transaction).
 * Returns 0 or -1 (cause recorded).
 */
int gm_metrics_store(struct gm_db *db, const struct gm_analysis *a);

#endif
