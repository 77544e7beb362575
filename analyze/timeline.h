/* SPDX-License-Identifier: MIT */
/*
 * The timeline of one run of a results database as a Chrome trace-event
 * JSON document (common/trace_json.h), for ui.perfetto.dev and
 * chrome://tracing: one process per program, one track per host thread
 * (its API calls) and one per CUDA stream (its kernels, copies and
 * memsets), a flow arrow from each launch or copy call to the GPU work it
 * started (same correlationId), and the replays' starts and ends as
 * instant events. Kernels carry their grid, block, registers, shared
 * memory, waiting time and overlap category (computed over the whole run
 * as doc/database.md defines it); copies their kind and bytes. A run
 * with the block probe also gets a process "SMs (block probe)" with a
 * track per SM and program, side by side ("SM 3 p", "SM 3 q"): a slice,
 * named after the program, wherever it had at least one block on the SM
 * (sm_time.h's segments).
 *
 * Large runs stay usable through limits that all become one time window
 * [from, to) relative to the run's start: the first N replays, an
 * explicit window, and a cap on the GPU slices. A record is in the file
 * when it starts inside the window; the document's otherData says the
 * window and how many records of each kind were left out (doc/timeline.md).
 */
#ifndef GM_TIMELINE_H
#define GM_TIMELINE_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"
#include "db.h"
#include "trace_json.h"

struct strbuf;

/* Default cap on GPU slices per timeline in a report (0 is no cap). */
#define GM_TIMELINE_MAX_SLICES 1000

/* The most SM track slices (block probe) in one timeline. */
#define GM_TIMELINE_MAX_SM_SLICES 100000


enum gm_timeline_kind {
	GM_TL_KERNEL,
	GM_TL_MEMCPY,
	GM_TL_MEMSET,
	GM_TL_API,
	GM_TL_KINDS
};

struct gm_timeline_stats {
	size_t written[GM_TL_KINDS];	/* slices in the file */
	size_t left_out[GM_TL_KINDS];	/* outside the window */
	size_t no_timestamps;		/* GPU records without start/end */
	size_t flows, replays;		/* arrows; replays in the window */
	size_t sm_slices;		/* block probe: SM track slices */
	size_t sm_left_out;		/* ... past GM_TIMELINE_MAX_SM_SLICES */
	int64_t from_ns, to_ns;		/* the window used, run-relative */
};

/*
 * Append the timeline of run @r (of @a, loaded from @db) to @out in
 * @format, limited by @lim. Fills @stats. Returns 0, or -1 with a cause
 * on a database error. GM_TRACE_HTA names the categories as Kineto does
 * (cuda_runtime or cuda_driver, kernel, gpu_memcpy, gpu_memset), adds
 * the args correlation, stream and device, and links each call to its
 * GPU work by an "ac2g" flow whose id is the correlation id;
 * GM_TRACE_PERFETTO writes the same tracks and events as a .pftrace.
 */
int gm_timeline_run(struct gm_db *db, const struct gm_an_run *r,
		    const struct gm_timeline_limits *lim,
		    enum gm_trace_format format, struct strbuf *out,
		    struct gm_timeline_stats *stats);

/* "kernel", "memcpy", "memset", "api": the slices' category names. */
const char *gm_timeline_kind_name(enum gm_timeline_kind k);

#endif
