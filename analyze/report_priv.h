/* SPDX-License-Identifier: MIT */
/*
 * Internal to the report writer: what report.c hands report_html.c to
 * write index.html beside index.md. Not an API.
 */
#ifndef GM_REPORT_PRIV_H
#define GM_REPORT_PRIV_H

#include "report.h"
#include "strbuf.h"

/* One run's timeline file, as listed in the index. */
struct gm_report_timeline {
	const struct gm_an_run *run;	/* borrowed */
	char *file;			/* "timelines/NAME.json" (owned) */
	struct gm_timeline_stats stats;
};

/* Everything one index page shows. */
struct gm_report_page {
	const struct gm_analysis *a;
	const struct gm_table *t;		/* the registry's tables */
	const struct gm_report_options *opt;
	const struct gm_figures *figs;
	const char *fig_dir;			/* where the SVGs are */
	const struct gm_report_timeline *tl;
	size_t ntl;
};

/* What the index calls the timelines' @format ("Chrome trace-event JSON"). */
const char *gm_report_timeline_format_name(enum gm_trace_format format);

/* One line saying what timeline @tl holds and what it left out. */
void gm_report_timeline_line(const struct gm_report_timeline *tl,
			     struct strbuf *sb);

/*
 * Append index.html for @pg to @out: one self-contained page (styles
 * inline, the SVG figures inline, no script, nothing fetched from the
 * network) that links the tables' files and the timelines. Returns 0, or
 * -1 with a cause when a figure's SVG cannot be read.
 */
int gm_report_html(const struct gm_report_page *pg, struct strbuf *out);

#endif
