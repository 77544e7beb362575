/* SPDX-License-Identifier: MIT */
/*
 * Streaming reader of a run's activity.tsv (doc/run-directory.md): one
 * CUPTI activity record per call, validated field by field, so a million
 * records never sit in memory at once. The END trailer is checked: a log
 * that stops early, has records after END, or whose count disagrees is an
 * error naming the file and line.
 */
#ifndef GM_ACTIVITY_READER_H
#define GM_ACTIVITY_READER_H

#include <stdint.h>
#include <stdio.h>

#include "run_reader.h"

enum gm_activity_kind {
	GM_ACT_KERNEL,
	GM_ACT_MEMCPY,
	GM_ACT_MEMSET,
	GM_ACT_API,
};

enum gm_api_domain {
	GM_API_RUNTIME,
	GM_API_DRIVER,
};

struct gm_activity {
	enum gm_activity_kind kind;
	size_t program;			/* index into the run's programs */
	int64_t correlation_id;
	int64_t start, end;		/* ns */
	int64_t stream_id;		/* kernel, memcpy, memset */

	/* KERNEL */
	int64_t queued, submitted;	/* 0 when CUPTI did not give them */
	int64_t device_id, context_id;
	int64_t grid[3], block[3];
	int64_t regs_per_thread, static_smem, dynamic_smem;
	const char *name;		/* mangled; borrowed until next call */

	/* MEMCPY (copy_kind: CUPTI_ACTIVITY_MEMCPY_KIND_* value), MEMSET */
	int64_t copy_kind, bytes, value;

	/* API (name borrowed as above) */
	enum gm_api_domain domain;
	int64_t cbid, thread_id;
};

struct gm_activity_reader {
	FILE *file;
	char *path;			/* owned, for messages */
	const struct gm_run_dir *run;	/* borrowed */
	char *line;			/* owned getline buffer */
	size_t line_alloc;
	unsigned long lineno;
	uint64_t records;		/* records returned so far */
	uint64_t bytes_read, bytes_total;
	int done;
};

/*
 * Open @run->path/activity.tsv. Returns 0 or -1 (cause recorded); call
 * gm_activity_reader_close() either way.
 */
int gm_activity_reader_open(struct gm_activity_reader *r,
			    const struct gm_run_dir *run);

/*
 * Read the next record into @out. Returns 1 with a record, 0 after the
 * END trailer was read and checked, -1 on any malformed, truncated or
 * inconsistent content ("activity.tsv:LINE: ..." recorded).
 */
int gm_activity_reader_next(struct gm_activity_reader *r,
			    struct gm_activity *out);

/* Close and free what the reader owns. */
void gm_activity_reader_close(struct gm_activity_reader *r);

/* "HTOD" -> 1 ... "PTOP" -> 10 (CUPTI's numbering); -1 when unknown. */
int gm_copy_kind_parse(const char *name);

/* The inverse ("UNKNOWN" for out-of-range values). */
const char *gm_activity_copy_kind_name(int64_t kind);

#endif
