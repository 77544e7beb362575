/* SPDX-License-Identifier: MIT */
/*
 * Internal to the report writer: one run's timeline file as the index
 * pages list it, and the words they describe it with (report_timeline.c).
 * Not an API.
 */
#ifndef GM_REPORT_TIMELINE_H
#define GM_REPORT_TIMELINE_H

#include "analysis.h"
#include "strbuf.h"
#include "timeline.h"

/* One run's timeline file, as listed in the index. */
struct gm_report_timeline {
	const struct gm_an_run *run;	/* borrowed */
	char *file;			/* "timelines/NAME.json" (owned) */
	struct gm_timeline_stats stats;
};

/* What the index calls the timelines' @format ("Chrome trace-event JSON"). */
const char *gm_report_timeline_format_name(enum gm_trace_format format);

/* One line saying what timeline @tl holds and what it left out. */
void gm_report_timeline_line(const struct gm_report_timeline *tl,
			     struct strbuf *sb);

#endif
