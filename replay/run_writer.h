/* SPDX-License-Identifier: MIT */
/*
 * Writes a run directory exactly as doc/run-directory.md defines it:
 * activity.tsv (CUPTI records, one per line, ending with an END line that
 * counts them), replays.tsv (per-replay times) and manifest, written last
 * and atomically, so that a run directory with a manifest is complete.
 * Every file goes through a temporary name. No CUDA here: the profiler
 * converts CUPTI records into the plain records below.
 */
#ifndef GM_RUN_WRITER_H
#define GM_RUN_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "atomic_file.h"
#include "strbuf.h"

#define RUN_FORMAT "gpumix-run 1"

struct run_kernel_rec {
	const char *program;
	uint32_t correlation_id;
	uint64_t start, end, queued, submitted;	/* 0: unknown */
	uint32_t device_id, context_id, stream_id;
	int32_t grid[3], block[3];
	uint32_t registers;
	int32_t static_smem, dynamic_smem;
	const char *name;		/* mangled */
};

struct run_memcpy_rec {
	const char *program;
	uint32_t correlation_id;
	uint64_t start, end;
	const char *copy_kind;		/* HTOD, DTOH, ... */
	uint64_t bytes;
	uint32_t stream_id;
};

struct run_memset_rec {
	const char *program;
	uint32_t correlation_id;
	uint64_t start, end;
	uint64_t bytes;
	uint32_t value;
	uint32_t stream_id;
};

struct run_api_rec {
	const char *program;
	uint32_t correlation_id;
	uint64_t start, end;
	const char *domain;		/* "runtime" or "driver" */
	uint32_t cbid;
	const char *name;
	uint32_t thread_id;
};

struct run_replay_rec {
	const char *program;
	unsigned replay;
	uint64_t start_ns, end_ns, io_ns;
	int kept;
};

/* One request of an open-loop program (replay/open_loop.h). */
struct run_request_rec {
	const char *program;
	unsigned request;		/* its replay number, 0-based */
	uint64_t arrival_ns, start_ns, end_ns;
};

/* Append one activity.tsv line (with its newline) to @out. */
void gm_run_format_kernel(struct strbuf *out, const struct run_kernel_rec *r);
void gm_run_format_memcpy(struct strbuf *out, const struct run_memcpy_rec *r);
void gm_run_format_memset(struct strbuf *out, const struct run_memset_rec *r);
void gm_run_format_api(struct strbuf *out, const struct run_api_rec *r);

/* Append @s with backslash, tab and newline escaped. */
void gm_run_escape(struct strbuf *out, const char *s);

/* activity.tsv, written record by record. */
struct run_activity {
	struct atomic_file af;
	struct strbuf buf;
	uint64_t nr_records;
	int open;
};

/*
 * Open @dir/activity.tsv for writing (replacing an older one). Returns 0
 * or -1 (cause recorded).
 */
int gm_run_activity_open(struct run_activity *ra, const char *dir);

/* Add one record (formatted by the caller with run_format_*). */
void gm_run_activity_add(struct run_activity *ra, const struct strbuf *line);

/* Write the END line and commit. Returns 0 or -1 (cause recorded). */
int gm_run_activity_commit(struct run_activity *ra);

/* Abandon the file (nothing appears under the final name). */
void gm_run_activity_abort(struct run_activity *ra);

/* Write @dir/replays.tsv (header plus @nr lines). Returns 0 or -1. */
int gm_run_write_replays(const char *dir, const struct run_replay_rec *r,
		      size_t nr);

/* The header line of requests.tsv (without its newline). */
#define RUN_REQUESTS_HEADER "program\trequest\tarrival_ns\tstart_ns\tend_ns"

/* Write @dir/requests.tsv (header plus @nr lines, in program then
 * request order). Returns 0 or -1 (cause recorded). */
int gm_run_write_requests(const char *dir, const struct run_request_rec *r,
		       size_t nr);

/*
 * Prepare @dir for a run: create it, or when it exists refuse unless
 * @force (then its old contents are removed). Returns 0 or -1.
 */
int gm_run_dir_prepare(const char *dir, int force);

/* Current UTC time as ISO 8601 ("2025-01-31T12:34:56Z") into @buf. */
void gm_run_utc_now(char *buf, size_t len);

struct kvfile;

/*
 * Write @dir/manifest atomically. Every required key of the format must
 * be set (the list is checked: a missing key is an error, so a manifest
 * the analyzer would reject is never written).
 */
int gm_run_write_manifest(const char *dir, const struct kvfile *kv);

#endif
