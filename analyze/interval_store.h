/* SPDX-License-Identifier: MIT */
/*
 * The intervals table: every mean and 95% interval the report shows
 * (per workload and variant, per program, and across workloads), by one
 * method (t unless `gpumix analyze --ci` says otherwise), kept in the
 * database for queries. It is derived from the runs, so `gpumix analyze`
 * refreshes it whole after loading or merging (doc/database.md,
 * "intervals"), and with it the per-run metrics tables from the same
 * analysis (metrics_store.h).
 */
#ifndef GM_INTERVAL_STORE_H
#define GM_INTERVAL_STORE_H

#include "db.h"

#include "interval.h"

/*
 * Replace the rows of @db's intervals table (@db opened GM_DB_WRITE) with
 * those of its runs now, computed by @ci (NULL: t), and those of its
 * run_metrics and program_metrics tables, in one transaction.
 * Cheap with t (the analysis without its kernel metrics); the bootstrap
 * costs its resamples for every interval. Returns 0 or -1 (cause
 * recorded, the table as it was).
 */
int gm_intervals_store(struct gm_db *db, const struct gm_ci_opts *ci);

#endif
