/* SPDX-License-Identifier: MIT */
/*
 * Report tables (see table.h).
 */
#include "table.h"

#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "trace_json.h"

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

/* A cell that says nothing: a missing number, no text, or "n/a". */
static int cell_na(const struct gm_table_cell *c)
{
	return c->text ? !*c->text || !strcmp(c->text, "n/a") : isnan(c->num);
}

int gm_table_col_na(const struct gm_table *t, size_t col)
{
	if (!t->nrows) {
		return 0;
	}
	for (size_t r = 0; r < t->nrows; r++) {
		if (!cell_na(&t->cells[r * t->ncols + col])) {
			return 0;
		}
	}
	return 1;
}

void gm_table_html(const struct gm_table *t, struct strbuf *out)
{
	struct strbuf dropped = STRBUF_INIT;

	strbuf_addf(out, "<h2 id=\"%s\">", t->name);
	gm_html_escape(out, t->title);
	strbuf_addstr(out, "</h2>\n");
	for (size_t i = 0; i < t->ncols; i++) {
		if (gm_table_col_na(t, i)) {
			strbuf_addf(&dropped, "%s<code>", dropped.len ? ", " : "");
			gm_html_escape(&dropped, t->cols[i]);
			strbuf_addstr(&dropped, "</code>");
		}
	}
	if (t->caption || dropped.len) {
		strbuf_addstr(out, "<p>");
		if (t->caption) {
			gm_html_inline(out, t->caption);
		}
		if (dropped.len) {
			strbuf_addf(out, "%sLeft out, n/a in every row: %s.",
				    t->caption ? " " : "", dropped.buf);
		}
		strbuf_addstr(out, "</p>\n");
	}
	strbuf_release(&dropped);
	strbuf_addstr(out, "<div class=\"scroll\"><table>\n<thead><tr>");
	for (size_t i = 0; i < t->ncols; i++) {
		if (gm_table_col_na(t, i)) {
			continue;
		}
		strbuf_addstr(out, "<th>");
		gm_html_escape(out, t->cols[i]);
		strbuf_addstr(out, "</th>");
	}
	strbuf_addstr(out, "</tr></thead>\n<tbody>\n");
	for (size_t r = 0; r < t->nrows; r++) {
		strbuf_addstr(out, "<tr>");
		for (size_t i = 0; i < t->ncols; i++) {
			const struct gm_table_cell *c = &t->cells[r * t->ncols + i];
			if (gm_table_col_na(t, i)) {
				continue;
			}
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
	strbuf_addstr(out, "</tbody></table></div>\n");
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

void gm_table_key(const char *label, struct strbuf *out)
{
	size_t start = out->len;
	int sep = 0;

	for (const char *s = label; *s; s++) {
		const char *word = *s == '%' ? "pct" : NULL;
		if (!word && !alnum(*s)) {
			sep = 1;
			continue;
		}
		if (sep && out->len > start) {
			strbuf_addch(out, '_');
		}
		sep = word != NULL;
		if (word) {
			if (out->len > start && out->buf[out->len - 1] != '_') {
				strbuf_addch(out, '_');
			}
			strbuf_addstr(out, word);
			continue;
		}
		strbuf_addch(out, (*s >= 'A' && *s <= 'Z') ? *s - 'A' + 'a' : *s);
	}
}

/* Column @i's key, with @suffix ("", "_lo", "_hi"), as a CSV field. */
static void csv_key(struct strbuf *out, const struct gm_table *t, size_t i,
		    const char *suffix)
{
	gm_table_key(t->cols[i], out);
	strbuf_addstr(out, suffix);
}

void gm_table_csv_header(const struct gm_table *t, struct strbuf *out)
{
	for (size_t i = 0; i < t->ncols; i++) {
		if (i) {
			strbuf_addch(out, ',');
		}
		csv_key(out, t, i, "");
	}
	for (size_t i = 0; i < t->ncols; i++) {
		if (t->interval[i]) {
			strbuf_addch(out, ',');
			csv_key(out, t, i, "_lo");
			strbuf_addch(out, ',');
			csv_key(out, t, i, "_hi");
		}
	}
	strbuf_addch(out, '\n');
}

void gm_table_csv(const struct gm_table *t, struct strbuf *out)
{
	gm_table_csv_header(t, out);
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

/* A number as JSON: integers exactly, others with 17 digits, NAN null. */
static void json_num(struct strbuf *out, double v)
{
	if (isnan(v) || isinf(v)) {
		strbuf_addstr(out, "null");
	} else if (v == (double)(long long)v && fabs(v) < 9007199254740992.0) {
		strbuf_addf(out, "%lld", (long long)v);
	} else {
		strbuf_addf(out, "%.17g", v);
	}
}

void gm_table_json(const struct gm_table *t, struct strbuf *out)
{
	struct strbuf key = STRBUF_INIT;

	strbuf_addstr(out, "{\"name\":");
	gm_json_str(out, t->name);
	strbuf_addstr(out, ",\"title\":");
	gm_json_str(out, t->title);
	strbuf_addstr(out, ",\"caption\":");
	if (t->caption) {
		gm_json_str(out, t->caption);
	} else {
		strbuf_addstr(out, "null");
	}
	/* The CSV's header, in its order, then the labels people read. */
	strbuf_addstr(out, ",\n \"columns\":[");
	gm_table_csv_header(t, &key);
	for (size_t i = 0, n = 0; i < key.len; n++) {
		size_t len = strcspn(key.buf + i, ",\n");
		strbuf_addf(out, "%s\"%.*s\"", n ? "," : "", (int)len,
			    key.buf + i);
		i += len + 1;
	}
	strbuf_release(&key);
	strbuf_addstr(out, "],\n \"labels\":[");
	for (size_t i = 0; i < t->ncols; i++) {
		if (i) {
			strbuf_addch(out, ',');
		}
		gm_json_str(out, t->cols[i]);
	}
	for (size_t i = 0; i < t->ncols; i++) {
		if (t->interval[i]) {
			char *lo = gm_xasprintf("%s lo", t->cols[i]);
			char *hi = gm_xasprintf("%s hi", t->cols[i]);
			strbuf_addch(out, ',');
			gm_json_str(out, lo);
			strbuf_addch(out, ',');
			gm_json_str(out, hi);
			free(lo);
			free(hi);
		}
	}
	strbuf_addstr(out, "],\n \"rows\":[");
	for (size_t r = 0; r < t->nrows; r++) {
		strbuf_addstr(out, r ? ",\n  [" : "\n  [");
		for (size_t i = 0; i < t->ncols; i++) {
			const struct gm_table_cell *c = &t->cells[r * t->ncols + i];
			if (i) {
				strbuf_addch(out, ',');
			}
			if (c->text) {
				gm_json_str(out, c->text);
			} else {
				json_num(out, c->num);
			}
		}
		for (size_t i = 0; i < t->ncols; i++) {
			const struct gm_table_cell *c = &t->cells[r * t->ncols + i];
			if (!t->interval[i]) {
				continue;
			}
			strbuf_addch(out, ',');
			json_num(out, c->text ? NAN : c->lo);
			strbuf_addch(out, ',');
			json_num(out, c->text ? NAN : c->hi);
		}
		strbuf_addch(out, ']');
	}
	strbuf_addstr(out, "]}");
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
