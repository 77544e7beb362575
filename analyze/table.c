/* SPDX-License-Identifier: MIT */
/*
 * Report tables (see table.h).
 */
#include "table.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

void gm_table_init(struct gm_table *t, const char *name, const char *title,
		   const char *const *cols)
{
	memset(t, 0, sizeof(*t));
	t->name = gm_xstrdup(name);
	t->title = gm_xstrdup(title);
	while (cols[t->ncols]) {
		t->ncols++;
	}
	t->cols = gm_xcalloc(t->ncols, sizeof(*t->cols));
	t->interval = gm_xcalloc(t->ncols + 1, 1);
	for (size_t i = 0; i < t->ncols; i++) {
		t->cols[i] = gm_xstrdup(cols[i]);
	}
}

void gm_table_caption(struct gm_table *t, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(t->caption);
	t->caption = strbuf_detach(&sb, NULL);
}

void gm_table_row(struct gm_table *t)
{
	size_t need = (t->nrows + 1) * t->ncols;

	GM_ALLOC_GROW(t->cells, need, t->alloc);
	for (size_t i = t->nrows * t->ncols; i < need; i++) {
		t->cells[i].text = gm_xstrdup("");
		t->cells[i].num = NAN;
		t->cells[i].lo = t->cells[i].hi = NAN;
		t->cells[i].decimals = 0;
		t->cells[i].ci = 0;
	}
	t->nrows++;
}

static struct gm_table_cell *last(struct gm_table *t, size_t col)
{
	return &t->cells[(t->nrows - 1) * t->ncols + col];
}

void gm_table_text(struct gm_table *t, size_t col, const char *fmt, ...)
{
	struct gm_table_cell *c = last(t, col);
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	free(c->text);
	c->text = strbuf_detach(&sb, NULL);
}

void gm_table_num(struct gm_table *t, size_t col, double v, int decimals)
{
	struct gm_table_cell *c = last(t, col);

	free(c->text);
	c->text = NULL;
	c->num = v;
	c->decimals = decimals;
}

void gm_table_intervals(struct gm_table *t, const char *const *cols)
{
	for (; *cols; cols++) {
		for (size_t i = 0; i < t->ncols; i++) {
			if (!strcmp(t->cols[i], *cols)) {
				t->interval[i] = 1;
			}
		}
	}
}

void gm_table_ci(struct gm_table *t, size_t col, const struct gm_ci *ci,
		 double scale, int decimals)
{
	struct gm_table_cell *c = last(t, col);

	gm_table_num(t, col, ci->mean * scale, decimals);
	c->lo = ci->lo * scale;
	c->hi = ci->hi * scale;
	c->ci = 1;
}

static int alnum(char c)
{
	return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
	       (c >= '0' && c <= '9');
}

void gm_markdown_escape(struct strbuf *out, const char *s)
{
	const char *start = s;

	for (; *s; s++) {
		if (*s == '\n' || *s == '\t' || *s == '\r') {
			strbuf_addch(out, ' ');
			continue;
		}
		/* An underscore inside a word never starts emphasis (GFM). */
		int intraword = *s == '_' && s > start && alnum(s[-1]) &&
				alnum(s[1]);
		if (strchr("\\`*_[]<|", *s) && !intraword) {
			strbuf_addch(out, '\\');
		}
		strbuf_addch(out, *s);
	}
}

/* A number cell as people read it (interval columns with their bounds). */
static void num_text(struct strbuf *out, const struct gm_table_cell *c,
		     int interval)
{
	if (isnan(c->num)) {
		strbuf_addstr(out, "n/a");
		return;
	}
	strbuf_addf(out, "%.*f", c->decimals, c->num);
	if (!interval) {
		return;
	}
	if (isnan(c->lo) || isnan(c->hi)) {
		strbuf_addstr(out, " [n/a]");
	} else {
		strbuf_addf(out, " [%.*f, %.*f]", c->decimals, c->lo, c->decimals,
			    c->hi);
	}
}

static void md_cell(struct strbuf *out, const struct gm_table_cell *c)
{
	if (c->text) {
		gm_markdown_escape(out, c->text);
	} else {
		num_text(out, c, c->ci);
	}
}

void gm_table_markdown(const struct gm_table *t, struct strbuf *out,
		       int heading)
{
	if (heading) {
		strbuf_addstr(out, "## ");
		gm_markdown_escape(out, t->title);
		strbuf_addstr(out, "\n\n");
	}
	if (t->caption) {
		strbuf_addf(out, "%s\n\n", t->caption);
	}
	strbuf_addch(out, '|');
	for (size_t i = 0; i < t->ncols; i++) {
		strbuf_addch(out, ' ');
		gm_markdown_escape(out, t->cols[i]);
		strbuf_addstr(out, " |");
	}
	strbuf_addstr(out, "\n|");
	for (size_t i = 0; i < t->ncols; i++) {
		/* Numbers right-aligned: look at the first row. */
		int num = t->nrows && !t->cells[i].text;
		strbuf_addstr(out, num ? " ---: |" : " --- |");
	}
	strbuf_addch(out, '\n');
	for (size_t r = 0; r < t->nrows; r++) {
		strbuf_addch(out, '|');
		for (size_t i = 0; i < t->ncols; i++) {
			strbuf_addch(out, ' ');
			md_cell(out, &t->cells[r * t->ncols + i]);
			strbuf_addstr(out, " |");
		}
		strbuf_addch(out, '\n');
	}
	if (!t->nrows) {
		strbuf_addstr(out, "\n(no rows)\n");
	}
}

void gm_html_escape(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		switch (*s) {
		case '&':
			strbuf_addstr(out, "&amp;");
			break;
		case '<':
			strbuf_addstr(out, "&lt;");
			break;
		case '>':
			strbuf_addstr(out, "&gt;");
			break;
		case '"':
			strbuf_addstr(out, "&quot;");
			break;
		default:
			strbuf_addch(out, *s);
		}
	}
}

void gm_html_inline(struct strbuf *out, const char *s)
{
	int code = 0;

	for (; *s; s++) {
		if (*s == '`') {
			strbuf_addstr(out, code ? "</code>" : "<code>");
			code = !code;
			continue;
		}
		char c[2] = { *s, 0 };
		gm_html_escape(out, c);
	}
	if (code) {
		strbuf_addstr(out, "</code>");
	}
}

void gm_table_html(const struct gm_table *t, struct strbuf *out)
{
	strbuf_addf(out, "<h2 id=\"%s\">", t->name);
	gm_html_escape(out, t->title);
	strbuf_addstr(out, "</h2>\n");
	if (t->caption) {
		strbuf_addstr(out, "<p>");
		gm_html_inline(out, t->caption);
		strbuf_addstr(out, "</p>\n");
	}
	strbuf_addstr(out, "<table>\n<thead><tr>");
	for (size_t i = 0; i < t->ncols; i++) {
		strbuf_addstr(out, "<th>");
		gm_html_escape(out, t->cols[i]);
		strbuf_addstr(out, "</th>");
	}
	strbuf_addstr(out, "</tr></thead>\n<tbody>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		strbuf_addstr(out, "<tr>");
		for (size_t i = 0; i < t->ncols; i++) {
			const struct gm_table_cell *c = &t->cells[r * t->ncols + i];
			if (c->text) {
				strbuf_addstr(out, "<td>");
				gm_html_escape(out, c->text);
			} else {
				struct strbuf num = STRBUF_INIT;
				num_text(&num, c, c->ci);
				strbuf_addf(out, "<td class=\"num\">%s", num.buf);
				strbuf_release(&num);
			}
			strbuf_addstr(out, "</td>");
		}
		strbuf_addstr(out, "</tr>\n");
	}
	strbuf_addstr(out, "</tbody></table>\n");
	if (!t->nrows) {
		strbuf_addstr(out, "<p>(no rows)</p>\n");
	}
}

static void csv_field(struct strbuf *out, const char *s)
{
	if (!strpbrk(s, ",\"\r\n") && s[0] != ' ' &&
	    (!*s || s[strlen(s) - 1] != ' ')) {
		strbuf_addstr(out, s);
		return;
	}
	strbuf_addch(out, '"');
	for (; *s; s++) {
		if (*s == '"') {
			strbuf_addch(out, '"');
		}
		strbuf_addch(out, *s);
	}
	strbuf_addch(out, '"');
}

void gm_table_csv(const struct gm_table *t, struct strbuf *out)
{
	for (size_t i = 0; i < t->ncols; i++) {
		if (i) {
			strbuf_addch(out, ',');
		}
		csv_field(out, t->cols[i]);
	}
	for (size_t i = 0; i < t->ncols; i++) {
		if (t->interval[i]) {
			char *lo = gm_xasprintf("%s lo", t->cols[i]);
			char *hi = gm_xasprintf("%s hi", t->cols[i]);
			strbuf_addch(out, ',');
			csv_field(out, lo);
			strbuf_addch(out, ',');
			csv_field(out, hi);
			free(lo);
			free(hi);
		}
	}
	strbuf_addch(out, '\n');
	for (size_t r = 0; r < t->nrows; r++) {
		for (size_t i = 0; i < t->ncols; i++) {
			const struct gm_table_cell *c = &t->cells[r * t->ncols + i];
			if (i) {
				strbuf_addch(out, ',');
			}
			if (c->text) {
				csv_field(out, c->text);
			} else if (!isnan(c->num)) {
				strbuf_addf(out, "%.9g", c->num);
			}
		}
		for (size_t i = 0; i < t->ncols; i++) {
			const struct gm_table_cell *c = &t->cells[r * t->ncols + i];
			if (!t->interval[i]) {
				continue;
			}
			strbuf_addch(out, ',');
			if (!c->text && !isnan(c->lo)) {
				strbuf_addf(out, "%.9g", c->lo);
			}
			strbuf_addch(out, ',');
			if (!c->text && !isnan(c->hi)) {
				strbuf_addf(out, "%.9g", c->hi);
			}
		}
		strbuf_addch(out, '\n');
	}
}

void gm_table_release(struct gm_table *t)
{
	free(t->name);
	free(t->title);
	free(t->caption);
	for (size_t i = 0; i < t->ncols; i++) {
		free(t->cols[i]);
	}
	free(t->cols);
	free(t->interval);
	for (size_t i = 0; i < t->nrows * t->ncols; i++) {
		free(t->cells[i].text);
	}
	free(t->cells);
	memset(t, 0, sizeof(*t));
}
