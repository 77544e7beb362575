/* SPDX-License-Identifier: MIT */
/*
 * Loading run directories into the results database, and the corun
 * directories of `gpumix corun` beside them: one transaction per run,
 * so a run is either entirely in the database or not at all (a
 * corrupt or truncated log loads nothing of that run). Loading is
 * idempotent: a run is identified by its content hash (run_reader.h); the
 * same run again is skipped unless forced, and a database holds at most
 * one run per (workload, variant, policy, repetition): a different run of
 * the same configuration and repetition is refused unless forced, which
 * replaces the old one.
 */
#ifndef GM_LOADER_H
#define GM_LOADER_H

#include <stdint.h>

#include "activity_reader.h"
#include "db.h"

enum gm_load_outcome {
	GM_LOAD_LOADED,		/* new run */
	GM_LOAD_SKIPPED,	/* already in the database, not forced */
	GM_LOAD_REPLACED,	/* forced: an older copy or run was replaced */
};

struct gm_load_info {
	enum gm_load_outcome outcome;
	char *label;		/* "workload.variant[.policy]" (owned) */
	char *previous_path;	/* skipped/replaced run's path (owned) */
	int64_t run_id;
	uint64_t kernels, memcpys, memsets, apis, replays;
	int corun;		/* a corun directory (gpumix corun) ... */
	uint64_t sections;	/* ... and its programs' sections */
	int stretch;		/* SM-stretch curves (gpumix scale
				   --stretch): kernels counts the points */
	int sweep;		/* a resource sweep (gpumix sweep --run):
				   kernels counts the points */
	uint64_t probe_blocks;	/* the block probe's records (0: none) */
	int interrupted;	/* the progress callback asked to stop */
};

/*
 * Called every few thousand records with the reader's position; return
 * non-zero to stop (the run is rolled back and the load fails with
 * info->interrupted set).
 */
typedef int (*gm_load_progress_fn)(void *data,
				   const struct gm_activity_reader *r);

struct gm_loader {
	struct gm_db *db;		/* borrowed */
	int force;			/* reload / replace existing runs */
	gm_load_progress_fn progress;
	void *progress_data;
	sqlite3_stmt *st[16];		/* prepared statements (owned) */
};

/*
 * Prepare a loader for @db (opened with GM_DB_WRITE). Returns 0 or -1;
 * call gm_loader_release() either way.
 */
int gm_loader_init(struct gm_loader *l, struct gm_db *db);

/* Finalize the statements. */
void gm_loader_release(struct gm_loader *l);

/*
 * Load the run directory @dir (or corun directory: info->corun) in one
 * transaction and describe what
 * happened in @info (release it with gm_load_info_release()). Returns 0
 * (loaded, replaced or skipped) or -1 with the cause recorded and the
 * database unchanged.
 */
int gm_loader_load(struct gm_loader *l, const char *dir,
		   struct gm_load_info *info);

/*
 * Forget what was loaded from @dir (as runs.path and coruns.path hold it:
 * the path given to gm_loader_load()): its runs and co-runs, with every
 * row that belongs to them, in one transaction (loader_forget.c). *@nr
 * is how many went (0 when none was loaded from @dir: not an error).
 * Returns 0 or -1 (cause recorded, database unchanged).
 */
int gm_loader_forget(struct gm_loader *l, const char *dir, size_t *nr);

/* Free what @info owns and zero it. */
void gm_load_info_release(struct gm_load_info *info);

#endif
