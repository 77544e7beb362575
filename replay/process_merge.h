/* SPDX-License-Identifier: MIT */
/*
 * The process variants' merge of the processes' run directories
 * (process_merge.c): each process's activity, replays, requests, driver
 * calls and probe records appended to the run's files, correlation ids
 * made unique and timestamps moved onto one clock. process_run.c writes
 * the merged manifest around them.
 */
#ifndef GM_PROCESS_MERGE_H
#define GM_PROCESS_MERGE_H

#include <stdint.h>

#include "atomic_file.h"
#include "strbuf.h"

struct run_activity;

/* Append the process's (run directory @dir) activity.tsv to @ra:
 * correlation ids + @corr_base, timestamps + @shift. Raises *@corr_next
 * past its largest id. 0 or -1. */
int gm_merge_activity(struct run_activity *ra, const char *dir,
		      uint64_t corr_base, uint64_t *corr_next, int64_t shift);

/* Append @dir's replays.tsv lines (no header) to @out, shifted. */
int gm_merge_replays(struct strbuf *out, const char *dir, int64_t shift);

/* Append @dir's requests.tsv lines (no header) to @out, shifted; none
 * when it has no such file (a batch program). */
int gm_merge_requests(struct strbuf *out, const char *dir, int64_t shift);

/* Append @dir's drivercalls.tsv lines but its END line to @out, the SLOW
 * lines' times + @shift, counting them in *@n. 0 or -1. */
int gm_merge_drivercalls(struct strbuf *out, const char *dir, int64_t shift,
			 uint64_t *n);

/* The merged probe files (--probe blocks): probe.tsv's lines, probe.bin. */
struct gm_merged_probe {
	struct strbuf tsv;
	struct atomic_file bin;
	uint64_t lines, records;
	int open;
};

/* Start the run's probe.bin (its header) and probe.tsv in @mp. 0 or -1. */
int gm_merged_probe_open(struct gm_merged_probe *mp, const char *run_dir);

/* Append @dir's probe.tsv and probe.bin to @mp, ids + @corr_base, host
 * times + @shift, checking that the two files agree. 0 or -1. */
int gm_merge_probe(struct gm_merged_probe *mp, const char *dir,
		   uint64_t corr_base, int64_t shift);

/* Write probe.tsv, then commit probe.bin (@ok) or abandon both. 0 or -1;
 * 0 when @mp was never opened. */
int gm_merged_probe_commit(struct gm_merged_probe *mp, const char *run_dir,
			   int ok);

#endif
