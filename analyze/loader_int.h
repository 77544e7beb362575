/* SPDX-License-Identifier: MIT */
/*
 * Inside the loader: the primitives of loader.c that the loaders of the
 * other directories use (corun_load.c, load_stretch.c, load_sweep.c),
 * and the loader of each kind of directory, which loader_dispatch.c
 * calls. The calls go one way: loader_dispatch.c to the loaders, the
 * loaders to loader.c's primitives.
 */
#ifndef GM_LOADER_INT_H
#define GM_LOADER_INT_H

#include <stddef.h>
#include <stdint.h>

#include "loader.h"

/* Bind helpers: a failed bind is recorded like any other SQLite error. */
#define BIND_INT(l, st, i, v) \
	GM_SQL((l)->db->sql, sqlite3_bind_int64((st), (i), (v)))
#define BIND_TEXT(l, st, i, v) \
	GM_SQL((l)->db->sql, sqlite3_bind_text((st), (i), (v), -1, SQLITE_STATIC))

/* Step a statement that returns no rows, then reset it: 0 or -1. */
int gm_loader_step(struct gm_loader *l, sqlite3_stmt *st);

/*
 * The id of workload @name of @nprog programs, added when new. A workload
 * already loaded with another number of programs is an error.
 */
int gm_loader_workload(struct gm_loader *l, const char *name, size_t nprog,
		       int64_t *id);

/*
 * Delete run @id (co-run @id) with every row that belongs to it, and the
 * workloads no run or co-run names any more; inside the caller's
 * transaction. 0 or -1.
 */
int gm_loader_delete_run(struct gm_loader *l, int64_t id);
int gm_loader_delete_corun(struct gm_loader *l, int64_t id);

/* Deletes the workloads that neither a run nor a co-run names any more. */
extern const char gm_loader_orphan_workloads_sql[];

/*
 * Load the run directory @dir (analyze/run_reader.h) in one transaction
 * (loader.c): gm_loader_load() for a directory of a replay's run.
 */
int gm_loader_load_run(struct gm_loader *l, const char *dir,
		       struct gm_load_info *info);

/*
 * Load the corun directory @dir (analyze/corun_reader.h) in one
 * transaction, with gm_loader_load()'s identity rules: the same co-run
 * again is skipped unless forced; a database holds one co-run per
 * workload and repetition (run.repetition), another one replacing it
 * only when forced.
 */
int gm_loader_load_corun(struct gm_loader *l, const char *dir,
			 struct gm_load_info *info);

/* Whether @dir is the output of gpumix scale --stretch (stretch.csv). */
int gm_stretch_dir_is(const char *dir);

/*
 * Load the SM-stretch curves of @dir (load_stretch.c) in one transaction:
 * each program's rows for its device replace those loaded before
 * (info->stretch set, info->kernels the points).
 */
int gm_loader_load_stretch(struct gm_loader *l, const char *dir,
			   struct gm_load_info *info);

/* Whether @dir is the output of gpumix sweep --run (points.csv and
 * cliffs.csv). */
int gm_sweep_dir_is(const char *dir);

/*
 * Load the sweep @dir (load_sweep.c) in one transaction: each program's
 * points and cliffs for its device replace those loaded before
 * (info->sweep set, info->kernels the points).
 */
int gm_loader_load_sweep(struct gm_loader *l, const char *dir,
			 struct gm_load_info *info);

#endif
