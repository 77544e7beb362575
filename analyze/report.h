/* SPDX-License-Identifier: MIT */
/*
 * The report directory: tables/<name>.md and .csv for every table,
 * tables.json with all of them (report_tables.h), figures/ (plot.h), and index.md, which shows the key tables and every
 * figure and links the rest, so a whole study reads in one place; the
 * same page as index.html (report_html.c), and timelines/<run>.json, each
 * run's timeline for Perfetto (timeline.h). The
 * directory is built under a temporary name next to its final one and
 * renamed into place: a half-written report never appears, and an
 * existing one is only replaced when forced.
 */
#ifndef GM_REPORT_H
#define GM_REPORT_H

#include <stddef.h>

#include "analysis.h"
#include "plot.h"
#include "report_tables.h"
#include "timeline.h"

/* What the report does with its figures. */
enum gm_figure_mode {
	GM_FIGURES_NONE,	/* tables only (--no-figures) */
	GM_FIGURES_DRAW,	/* data, scripts, and gnuplot draws them */
	GM_FIGURES_SCRIPTS,	/* data and scripts only, for drawing
				 * elsewhere (--figure-scripts) */
};

struct gm_report_options {
	const char *db_path;	/* shown in the index */
	const char *out_dir;	/* the report directory */
	int force;		/* replace an existing @out_dir */
	int figures;		/* enum gm_figure_mode */
	const char *gnuplot;	/* program to run */
	const char *version;	/* gpumix version, shown in the index */
	struct gm_db *db;	/* the timelines' records (NULL: none) */
	struct gm_timeline_limits timeline;	/* limits of each timeline */
	enum gm_trace_format timeline_format;	/* their format */
};

struct gm_report_result {
	size_t tables, figures, skipped_figures, timelines;
};

/*
 * Fail early when @opt->out_dir exists and @opt->force is not set, or
 * its parent cannot be created. Returns 0 or -1 (cause and hint).
 */
int gm_report_check_output(const struct gm_report_options *opt);

/*
 * Write the report for @a with the tables @t (gm_report_tables()) into
 * @opt->out_dir. Returns 0, or -1 (cause recorded, nothing left behind
 * under the final name).
 */
int gm_report_write(const struct gm_analysis *a, const struct gm_table *t,
		    const struct gm_report_options *opt,
		    struct gm_report_result *res);

#endif
