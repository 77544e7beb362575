/* SPDX-License-Identifier: MIT */
/*
 * Internal to the report writer: what report.c hands report_html.c to
 * write index.html beside index.md. Both describe the timelines with
 * report_timeline.h. Not an API.
 */
#ifndef GM_REPORT_PRIV_H
#define GM_REPORT_PRIV_H

#include "report.h"
#include "report_timeline.h"
#include "strbuf.h"

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

/*
 * Append index.html for @pg to @out: one self-contained page (styles
 * inline, the SVG figures inline, no script, nothing fetched from the
 * network) that links the tables' files and the timelines. Returns 0, or
 * -1 with a cause when a figure's SVG cannot be read.
 */
int gm_report_html(const struct gm_report_page *pg, struct strbuf *out);

#endif
