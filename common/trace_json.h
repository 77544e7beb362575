/* SPDX-License-Identifier: MIT */
/*
 * A writer for the Chrome trace-event JSON format (the "JSON Object
 * Format" that chrome://tracing and ui.perfetto.dev open): a
 * {"traceEvents": [...], "displayTimeUnit": "ns", "otherData": {...}}
 * object whose events are complete slices (ph X, with a duration, so no
 * B/E pairing can break), instant events (ph i), flow arrows (a ph s /
 * ph f pair with one id) and the metadata events that name processes and
 * threads (ph M). Timestamps are written in microseconds with three
 * decimals, exactly (integer arithmetic on nanoseconds), relative to an
 * origin the caller chooses; `gpumix report` and `gpumix trace export`
 * both write through it (doc/timeline.md).
 */
#ifndef GM_TRACE_JSON_H
#define GM_TRACE_JSON_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;

/*
 * Limits of a timeline, all folded into one time window relative to the
 * start of what it shows; a record is written when it starts inside.
 */
struct gm_timeline_limits {
	int64_t replays;	/* > 0: end where every program has done
				   this many replays */
	int64_t from_ns;	/* window start; < 0: none */
	int64_t to_ns;		/* window end; < 0: none */
	size_t max_slices;	/* > 0: end before GPU slice max_slices+1 */
};

/*
 * Set one limit from a command-line value: @name "replays" (a count >=
 * 1), "window" ("FROM:TO" in ms, either side may be empty, FROM < TO) or
 * "max" (a count, 0 for no cap). Returns 0, or -1 with a cause naming
 * the bad value.
 */
int gm_timeline_limit_set(struct gm_timeline_limits *lim, const char *name,
			  const char *value);

/*
 * The formats one writer speaks: Chrome's JSON; the same JSON as
 * PyTorch's Kineto profiler writes it, for Holistic Trace Analysis (the
 * caller names the categories cuda_runtime, kernel, gpu_memcpy and
 * gives the args correlation, stream and device; flows are "ac2g" with
 * the correlation id; the document has schemaVersion, deviceProperties
 * and distributedInfo); and Perfetto's native protobuf trace
 * (trace_perfetto.h), where the otherData members become the debug
 * annotations of an instant at time 0 on a track "gpumix".
 */
enum gm_trace_format {
	GM_TRACE_CHROME,
	GM_TRACE_HTA,
	GM_TRACE_PERFETTO,
};

struct gm_trace_json {
	struct strbuf *sb;	/* borrowed: the document is appended here */
	int64_t origin_ns;	/* time 0 of the file */
	size_t events;		/* trace events written */
	uint64_t next_flow;	/* id of the next flow arrow */
	enum gm_trace_format format;
	const char *device;	/* HTA: the deviceProperties' name (or NULL) */
};

/* Start a document in @sb (appended), with time 0 at @origin_ns. */
void gm_tj_begin(struct gm_trace_json *j, struct strbuf *sb,
		 int64_t origin_ns);

/* The same in another format (gm_tj_begin() is GM_TRACE_CHROME). */
void gm_tj_begin_as(struct gm_trace_json *j, struct strbuf *sb,
		    int64_t origin_ns, enum gm_trace_format format);

/*
 * The format called @name ("chrome", "hta", "perfetto") into *@format.
 * Returns 0, or -1 with a cause naming the choices.
 */
int gm_trace_format_parse(const char *name, enum gm_trace_format *format);

/* The file name extension of @format: ".json" or ".pftrace". */
const char *gm_trace_format_ext(enum gm_trace_format format);

/*
 * Name process @pid (shown as @name, ordered by @sort) and thread @tid
 * of it; the names are copied and escaped.
 */
void gm_tj_process(struct gm_trace_json *j, int64_t pid, const char *name,
		   int sort);
void gm_tj_thread(struct gm_trace_json *j, int64_t pid, int64_t tid,
		  const char *name, int sort);

/*
 * A complete slice [@start_ns, @end_ns) on @pid/@tid. @args is the text
 * of a JSON object's members (built with gm_tj_arg_*), or NULL.
 */
void gm_tj_slice(struct gm_trace_json *j, int64_t pid, int64_t tid,
		 const char *cat, const char *name, int64_t start_ns,
		 int64_t end_ns, const char *args);

/* An instant event at @ts_ns, process-scoped ("s": "p"). */
void gm_tj_instant(struct gm_trace_json *j, int64_t pid, int64_t tid,
		   const char *cat, const char *name, int64_t ts_ns,
		   const char *args);

/*
 * A flow arrow from the slice enclosing @from_ns on @from_pid/@from_tid
 * to the slice that starts at @to_ns on @to_pid/@to_tid (ph s, then ph f
 * with "bp": "e"), both with a fresh id.
 */
void gm_tj_flow(struct gm_trace_json *j, const char *cat, int64_t from_pid,
		int64_t from_tid, int64_t from_ns, int64_t to_pid,
		int64_t to_tid, int64_t to_ns);

/* The same with the id @id (HTA: the correlation id), not a fresh one. */
void gm_tj_flow_id(struct gm_trace_json *j, const char *cat, uint64_t id,
		   int64_t from_pid, int64_t from_tid, int64_t from_ns,
		   int64_t to_pid, int64_t to_tid, int64_t to_ns);

/*
 * Close the document; @other is the text of the otherData object's
 * members (what the file holds and what it left out), or NULL.
 */
void gm_tj_end(struct gm_trace_json *j, const char *other);

/* Members of an args or otherData object, appended with a comma between. */
void gm_tj_arg_str(struct strbuf *sb, const char *key, const char *value);
void gm_tj_arg_int(struct strbuf *sb, const char *key, int64_t value);
void gm_tj_arg_double(struct strbuf *sb, const char *key, double value);
/* @key: the already-formatted JSON @raw (an object or array). */
void gm_tj_arg_raw(struct strbuf *sb, const char *key, const char *raw);

/*
 * Append @s as a JSON string: quotes, backslashes and control characters
 * escaped, valid UTF-8 kept, each byte of an invalid sequence written as
 * U+FFFD (a JSON parser refuses invalid UTF-8).
 */
void gm_json_str(struct strbuf *sb, const char *s);

#endif
