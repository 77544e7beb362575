/* SPDX-License-Identifier: MIT */
/*
 * The timeline of a captured bundle as Chrome trace-event JSON
 * (common/trace_json.h), for `gpumix trace export`: one process per
 * captured process, one track per thread with its recorded driver calls
 * as slices (entry to exit; the runtime call around one is an argument),
 * one track per CUDA stream with the CUPTI activity the capture recorded
 * (kernels, copies, memsets), and a flow arrow from each call to the GPU
 * work with its correlation id.
 *
 * GPU times are CUPTI's clock, calls the tracer's: each process's
 * `process` event holds both clocks read at one instant, which places its
 * GPU work on the calls' time line (to within the microseconds between
 * the reading and the event). A process without one (a bundle written by
 * hand) has its first GPU record put at its first call, and the file says
 * it is not aligned. Limits as for a run (a window, a cap on slices,
 * here calls included); otherData says what was left out.
 */
#ifndef GM_BUNDLE_TIMELINE_H
#define GM_BUNDLE_TIMELINE_H

#include <stddef.h>

#include "trace_json.h"

struct strbuf;

/* Default cap on the slices of an exported bundle timeline. */
#define GM_BUNDLE_TIMELINE_MAX_SLICES 100000

struct gm_bundle_timeline_stats {
	size_t calls, gpu, flows;	/* slices and arrows in the file */
	size_t host;			/* host functions (slices too) */
	size_t left_out;		/* slices outside the window */
	size_t no_exit;			/* calls that never returned */
	size_t unaligned;		/* processes without a process event */
};

/*
 * Append the timeline of the bundle @dir (read as `gpumix trace dump`
 * does: incomplete and lossy bundles too, and say so in otherData) to
 * @out in @format (GM_TRACE_CHROME or GM_TRACE_PERFETTO), limited by
 * @lim (@lim->replays is ignored: a bundle has none). Returns 0, or -1
 * with a cause when the bundle cannot be read.
 */
int gm_bundle_timeline(const char *dir, const struct gm_timeline_limits *lim,
		       enum gm_trace_format format, struct strbuf *out,
		       struct gm_bundle_timeline_stats *st);

#endif
