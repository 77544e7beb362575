/* SPDX-License-Identifier: MIT */
/*
 * The optional files of a run directory that the loader (loader.c)
 * stores after the activity log, inside the run's transaction: the block
 * probe's (probe.tsv, probe.bin: load_probe.c), the replay's driver
 * calls (drivercalls.tsv: load_drivercalls.c) and the open-loop
 * requests (requests.tsv: load_requests.c). Internal to analyze/.
 */
#ifndef GM_LOADER_PARTS_H
#define GM_LOADER_PARTS_H

#include <stdint.h>

#include "db.h"
#include "run_reader.h"

/*
 * Store @run's probe files (nothing when it has none) as run @rid whose
 * programs are @pids: the launches, the blocks on CUPTI's clock (moved by
 * the median over probed launches of their KERNEL record's start minus
 * their first block's start, already in the database; raw %globaltimer
 * when no launch has one) and the run's probe row. Sets *@blocks to the
 * records stored. Returns 0 or -1 (cause recorded).
 */
int gm_load_probe(struct gm_db *db, const struct gm_run_dir *run, int64_t rid,
		  const int64_t *pids, uint64_t *blocks);

/* Store @run's drivercalls.tsv (nothing without one). 0 or -1. */
int gm_load_drivercalls(struct gm_db *db, const struct gm_run_dir *run,
			int64_t rid, const int64_t *pids);

/* Store @run's open-loop programs and their requests (requests.tsv;
 * nothing without them). 0 or -1. */
int gm_load_requests(struct gm_db *db, const struct gm_run_dir *run,
		     int64_t rid, const int64_t *pids);

#endif
