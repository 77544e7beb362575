/* SPDX-License-Identifier: MIT */
/*
 * The elastic variant's launch counters: the manifest keys the policy
 * launch planner writes (replay/launch_policy.c, doc/run-directory.md)
 * and the `runs` columns that hold them (doc/database.md), one row per
 * counter. The schema, the run reader, the loader, the analysis and the
 * report's `elastic` table all read this table, so a new counter is one
 * row here (and a schema version).
 */
#ifndef GM_ELASTIC_COUNTERS_H
#define GM_ELASTIC_COUNTERS_H

/* X(id, manifest key, runs column, the report's column title) */
#define GM_ELASTIC_COUNTERS(X)                                                 \
	X(PLANNED, "elastic.planned_launches", "elasticPlannedLaunches",      \
	  "planned")                                                          \
	X(LIMITED, "elastic.limited_launches", "elasticLimitedLaunches",      \
	  "limited")                                                          \
	X(SLICED, "elastic.sliced_launches", "elasticSlicedLaunches",         \
	  "sliced")                                                           \
	X(CAPTURED_GRID, "elastic.captured_grid_launches",                    \
	  "elasticCapturedGridLaunches", "captured grid")                     \
	X(CLIFF_MOVED, "elastic.cliff_moved_launches",                        \
	  "elasticCliffMovedLaunches", "moved off a cliff")

#define GM_ELASTIC_COUNTER_ENUM_(id, key, column, title) GM_ELASTIC_##id,
enum gm_elastic_counter {
	GM_ELASTIC_COUNTERS(GM_ELASTIC_COUNTER_ENUM_)
	GM_ELASTIC_COUNTERS_NR
};

/* The manifest key and the column of each counter, by enum. */
struct gm_elastic_counter_desc {
	const char *key, *column, *title;
};
extern const struct gm_elastic_counter_desc
	gm_elastic_counters[GM_ELASTIC_COUNTERS_NR];

#endif
