/* SPDX-License-Identifier: MIT */
/*
 * A report table: named columns, rows of text or number cells, rendered
 * as GitHub Markdown or HTML (for people) or CSV (RFC 4180 quoting, LF line
 * ends; for programs).
 * Numbers keep their full value: Markdown shows them rounded to the
 * column's decimals, CSV with 9 significant digits. A missing value (NAN)
 * is "n/a" in Markdown and an empty field in CSV.
 *
 * An interval column holds a value with its 95% confidence interval:
 * Markdown and HTML show "1.28 [1.19, 1.37]" ("1.28 [n/a]" without an
 * interval), CSV and JSON the value in the column and the bounds in two
 * more columns, "<key>_lo" and "<key>_hi", after all the others (so that
 * the other columns keep their places).
 *
 * Programs read columns by key, not by label: the label's words in
 * lower case joined by "_", "%" spelled "pct", so the unit is part of
 * the name ("p50 (ms)" is p50_ms, "threads %" threads_pct). CSV's header
 * and JSON's "columns" are the keys.
 */
#ifndef GM_TABLE_H
#define GM_TABLE_H

#include <stddef.h>

#include "error.h"
#include "interval.h"
#include "strbuf.h"

struct gm_table_cell {
	char *text;		/* owned; NULL for a number */
	double num;
	double lo, hi;		/* an interval column's bounds (NAN: none) */
	int decimals;
	int ci;			/* set by gm_table_ci(): shown with its
				   interval (or "[n/a]") */
};

struct gm_table {
	char *name;		/* file stem, e.g. "summary" (owned) */
	char *title;		/* heading (owned) */
	char *caption;		/* sentence(s) under the heading, or NULL */
	size_t ncols;
	char **cols;		/* owned */
	unsigned char *interval;	/* per column: an interval column */
	size_t nrows, alloc;
	struct gm_table_cell *cells;	/* nrows x ncols */
};

/* Start a table with the NULL-terminated column names @cols. */
void gm_table_init(struct gm_table *t, const char *name, const char *title,
		   const char *const *cols);

/* Set the caption (printf format). */
void gm_table_caption(struct gm_table *t, const char *fmt, ...) GM_PRINTF(2, 3);

/* Append an empty row; the cell setters fill the last row. */
void gm_table_row(struct gm_table *t);

/* Set column @col of the last row to text (printf format). */
void gm_table_text(struct gm_table *t, size_t col, const char *fmt, ...)
	GM_PRINTF(3, 4);

/* Set column @col of the last row to a number shown with @decimals. */
void gm_table_num(struct gm_table *t, size_t col, double v, int decimals);

/*
 * Make the columns named in the NULL-terminated @cols interval columns
 * (before the first row).
 */
void gm_table_intervals(struct gm_table *t, const char *const *cols);

/*
 * Set interval column @col of the last row to @ci's mean and bounds,
 * each multiplied by @scale, shown with @decimals. (A number set with
 * gm_table_num() in an interval column is shown alone: a row whose
 * metric has no interval.)
 */
void gm_table_ci(struct gm_table *t, size_t col, const struct gm_ci *ci,
		 double scale, int decimals);

/* Append the table as Markdown (heading level 2 when @heading). */
void gm_table_markdown(const struct gm_table *t, struct strbuf *out,
		       int heading);

/*
 * Append the table as HTML: an <h2> with the name as id, the caption, and
 * a <table> whose number cells have class "num", inside a <div
 * class="scroll"> (a wide table scrolls in its box, not the page).
 * Columns that say nothing in every row (gm_table_col_na()) are left
 * out, and the caption names them. Text is escaped.
 */
void gm_table_html(const struct gm_table *t, struct strbuf *out);

/* Escape @s for HTML text or an attribute value, appending to @out. */
void gm_html_escape(struct strbuf *out, const char *s);

/* @s, a line of Markdown-like text, as HTML: `code` spans, the rest escaped. */
void gm_html_inline(struct strbuf *out, const char *s);

/* Append the key of the column labelled @label ("p50 (ms)": p50_ms). */
void gm_table_key(const char *label, struct strbuf *out);

/* Append the CSV header line: every column's key, then the bounds'. */
void gm_table_csv_header(const struct gm_table *t, struct strbuf *out);

/* Append the table as CSV (the header line, then the rows). */
void gm_table_csv(const struct gm_table *t, struct strbuf *out);

/*
 * Append the table as one JSON object: "name", "title", "caption" (or
 * null), "columns" (the CSV header's keys), "labels" (the same columns'
 * labels) and "rows", an array per row in the columns' order: text as
 * strings, numbers as numbers (full precision), a missing one as null.
 */
void gm_table_json(const struct gm_table *t, struct strbuf *out);

/*
 * Whether column @col says nothing in any row: every cell a missing
 * number, empty or "n/a" (false for a table without rows).
 */
int gm_table_col_na(const struct gm_table *t, size_t col);

/* Escape @s for a Markdown table cell or paragraph, appending to @out. */
void gm_markdown_escape(struct strbuf *out, const char *s);

/* Free every string and cell of @t and zero it. */
void gm_table_release(struct gm_table *t);

#endif
