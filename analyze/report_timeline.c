/* SPDX-License-Identifier: MIT */
/*
 * How the report's index pages (index.md from report.c, index.html from
 * report_html.c) describe the timelines: the format's name and one line
 * per run's timeline. Apart from both pages so that report.c calls
 * report_html.c and not the other way round.
 */
#include "report_timeline.h"

const char *gm_report_timeline_format_name(enum gm_trace_format format)
{
	switch (format) {
	case GM_TRACE_HTA:
		return "Chrome trace-event JSON as Kineto writes it (for"
		       " Holistic Trace Analysis)";
	case GM_TRACE_PERFETTO:
		return "Perfetto's protobuf trace format";
	default:
		return "Chrome trace-event JSON";
	}
}

void gm_report_timeline_line(const struct gm_report_timeline *tl,
			     struct strbuf *sb)
{
	const struct gm_timeline_stats *s = &tl->stats;
	size_t out = 0;

	strbuf_addf(sb, "%zu kernels, %zu copies, %zu memsets, %zu API calls,"
		    " %zu replays", s->written[GM_TL_KERNEL],
		    s->written[GM_TL_MEMCPY], s->written[GM_TL_MEMSET],
		    s->written[GM_TL_API], s->replays);
	if (s->sm_slices || s->sm_left_out) {
		strbuf_addf(sb, ", %zu SM track slices (block probe)%s",
			    s->sm_slices, s->sm_left_out ? ", cut" : "");
	}
	for (int k = 0; k < GM_TL_KINDS; k++) {
		out += s->left_out[k];
	}
	if (out && s->to_ns >= 0) {
		strbuf_addf(sb, "; %zu records outside %.3f-%.3f ms left out", out,
			    s->from_ns / 1e6, s->to_ns / 1e6);
	} else if (out) {
		strbuf_addf(sb, "; %zu records before %.3f ms left out", out,
			    s->from_ns / 1e6);
	}
	if (s->no_timestamps) {
		strbuf_addf(sb, "; %zu GPU records without timestamps",
			    s->no_timestamps);
	}
}
