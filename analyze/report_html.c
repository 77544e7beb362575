/* SPDX-License-Identifier: MIT */
/*
 * index.html of a report directory (see report_priv.h): the index.md
 * page as one HTML file a browser shows without a network or a Markdown
 * viewer. The figures are gnuplot's SVG files copied in whole (the XML
 * prolog dropped), and every table is shown (the key ones first, the
 * rest after the figures and timelines), so the page needs none of its
 * neighbours; links still go to the tables' CSV files, the figures' PNGs
 * and the timelines. A wide table scrolls inside its box: the page
 * itself never scrolls sideways.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "report_priv.h"
#include "report_timeline.h"
#include "schema.h"

static const char style[] =
	"body{font:14px/1.4 sans-serif;margin:1.5em auto;max-width:1100px;"
	"padding:0 1em;color:#222;background:#fff}\n"
	"div.scroll{overflow-x:auto;max-width:100%;margin:.5em 0 1em}\n"
	"table{border-collapse:collapse}\n"
	"th,td{border:1px solid #ccc;padding:2px 8px}\n"
	"th{background:#eee}td.num{text-align:right;"
	"font-variant-numeric:tabular-nums}\n"
	"figure{margin:1em 0}figure svg{max-width:100%;height:auto}\n"
	"code{background:#f3f3f3}\n";

static void header(const struct gm_report_page *pg, struct strbuf *sb)
{
	const struct gm_analysis *a = pg->a;
	size_t ok = 0, workloads = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		ok += a->runs[i].ok;
		if (!i || strcmp(a->runs[i].workload, a->runs[i - 1].workload)) {
			workloads++;
		}
	}
	strbuf_addstr(sb, "<h1>gpumix report</h1>\n<p>Database <code>");
	gm_html_escape(sb, pg->opt->db_path);
	strbuf_addf(sb, "</code> (schema %d): %zu runs (%zu ok) of %zu workloads"
		    " under %zu variants", GM_SCHEMA_VERSION, a->nruns, ok,
		    workloads, a->nvariants);
	if (a->nruns) {
		strbuf_addstr(sb, " on ");
		gm_html_escape(sb, a->runs[0].device_name);
	}
	strbuf_addstr(sb, ". Written by gpumix ");
	gm_html_escape(sb, pg->opt->version);
	strbuf_addstr(sb, "; metric definitions: doc/database.md and"
		      " doc/gpumix-report.md.</p>\n");
	if (a->kernels) {
		strbuf_addstr(sb, "<p>Kernels: ");
		gm_html_escape(sb, a->kernels);
		strbuf_addstr(sb, ".</p>\n");
	}
	strbuf_addf(sb, "<p>Beside the paper's numbers (Pai et al., ASPLOS'13,"
		    " on Fermi): <a href=\"#%s\">",
		    pg->t[gm_report_table_find("paper")].name);
	gm_html_escape(sb, pg->t[gm_report_table_find("paper")].title);
	strbuf_addstr(sb, "</a>.</p>\n");
	if (a->nnotes) {
		strbuf_addstr(sb, "<h2>Notes</h2>\n<ul>\n");
		for (size_t i = 0; i < a->nnotes; i++) {
			strbuf_addstr(sb, "<li>");
			gm_html_inline(sb, a->notes[i]);
			strbuf_addstr(sb, "</li>\n");
		}
		strbuf_addstr(sb, "</ul>\n");
	}
}

/* Copy the <svg> element of @path into @sb. */
static int inline_svg(const char *path, struct strbuf *sb)
{
	struct strbuf svg = STRBUF_INIT;
	const char *start;

	if (gm_read_file(path, &svg)) {
		return -1;
	}
	start = strstr(svg.buf, "<svg");
	if (!start) {
		strbuf_release(&svg);
		return gm_error("'%s' holds no <svg> element", path);
	}
	strbuf_addstr(sb, start);
	strbuf_release(&svg);
	return 0;
}

static int figures(const struct gm_report_page *pg, struct strbuf *sb)
{
	const struct gm_figures *f = pg->figs;

	strbuf_addstr(sb, "<h2 id=\"figures\">Figures</h2>\n");
	if (!f) {
		strbuf_addstr(sb, pg->opt->figures == GM_FIGURES_SCRIPTS ?
			      "<p>Not drawn: gnuplot was not run "
			      "(--figure-scripts). Each figure's data and "
			      "gnuplot script are in figures/; <code>cd figures "
			      "&amp;&amp; gnuplot *.gp</code> draws them.</p>\n" :
			      "<p>Not drawn (--no-figures).</p>\n");
		return 0;
	}
	for (size_t i = 0; i < f->n; i++) {
		const struct gm_figure *g = &f->fig[i];
		char *path = gm_xasprintf("%s/%s.svg", pg->fig_dir, g->stem);
		int ret;
		strbuf_addf(sb, "<figure id=\"%s\">\n", g->stem);
		ret = inline_svg(path, sb);
		free(path);
		if (ret) {
			return -1;
		}
		strbuf_addstr(sb, "\n<figcaption>");
		gm_html_escape(sb, g->title);
		if (g->note) {
			strbuf_addstr(sb, ". Shows ");
			gm_html_escape(sb, g->note);
		}
		strbuf_addf(sb, ". <a href=\"figures/%s.png\">PNG</a>,"
			    " <a href=\"figures/%s.svg\">SVG</a>,"
			    " <a href=\"figures/%s.dat\">data</a>,"
			    " <a href=\"figures/%s.gp\">gnuplot script</a>"
			    "</figcaption>\n</figure>\n", g->stem, g->stem, g->stem,
			    g->stem);
	}
	if (f->nskipped) {
		strbuf_addstr(sb, "<ul>\n");
		for (size_t i = 0; i < f->nskipped; i++) {
			strbuf_addstr(sb, "<li>Not drawn: ");
			gm_html_inline(sb, f->skipped[i]);
			strbuf_addstr(sb, "</li>\n");
		}
		strbuf_addstr(sb, "</ul>\n");
	}
	return 0;
}

static void timelines(const struct gm_report_page *pg, struct strbuf *sb)
{
	if (!pg->ntl) {
		return;
	}
	strbuf_addf(sb, "<h2 id=\"timelines\">Timelines</h2>\n<p>Each run in %s:"
		    " open it in ui.perfetto.dev (Open trace file; the file stays"
		    " on this machine)%s. One process per program, a track per"
		    " host thread and per stream, arrows from each launch call"
		    " to its kernel (doc/timeline.md).</p>\n<ul>\n",
		    gm_report_timeline_format_name(pg->opt->timeline_format),
		    pg->opt->timeline_format == GM_TRACE_PERFETTO ? "" :
		    " or chrome://tracing");
	for (size_t i = 0; i < pg->ntl; i++) {
		struct strbuf line = STRBUF_INIT;
		strbuf_addstr(sb, "<li><a href=\"");
		gm_html_escape(sb, pg->tl[i].file);
		strbuf_addstr(sb, "\">");
		gm_html_escape(sb, pg->tl[i].run->label);
		strbuf_addstr(sb, "</a>: ");
		gm_report_timeline_line(&pg->tl[i], &line);
		gm_html_escape(sb, line.buf);
		strbuf_addstr(sb, "</li>\n");
		strbuf_release(&line);
	}
	strbuf_addstr(sb, "</ul>\n");
}

/* The contents: every table and section, linked by its id. */
static void contents(const struct gm_report_page *pg, struct strbuf *sb)
{
	strbuf_addstr(sb, "<nav><p>Tables:");
	for (size_t i = 0; i < gm_report_table_count; i++) {
		strbuf_addf(sb, "%s <a href=\"#%s\">", i ? "," : "",
			    pg->t[i].name);
		gm_html_escape(sb, pg->t[i].title);
		strbuf_addstr(sb, "</a>");
	}
	strbuf_addstr(sb, ". <a href=\"#figures\">Figures</a>");
	if (pg->ntl) {
		strbuf_addstr(sb, ", <a href=\"#timelines\">timelines</a>");
	}
	strbuf_addstr(sb, ".</p></nav>\n");
}

static void table(const struct gm_table *t, struct strbuf *out)
{
	gm_table_html(t, out);
	strbuf_addf(out, "<p><a href=\"tables/%s.csv\">CSV</a></p>\n",
		    t->name);
}

int gm_report_html(const struct gm_report_page *pg, struct strbuf *out)
{
	strbuf_addf(out, "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n"
		    "<meta charset=\"utf-8\">\n<title>gpumix report</title>\n"
		    "<style>\n%s</style>\n</head>\n<body>\n", style);
	header(pg, out);
	contents(pg, out);
	for (size_t i = 0; i < gm_report_table_count; i++) {
		if (gm_report_table_list[i].inline_shown) {
			table(&pg->t[i], out);
		}
	}
	if (figures(pg, out)) {
		return gm_error("cannot write index.html");
	}
	timelines(pg, out);
	strbuf_addstr(out, "<h1 id=\"more\">More tables</h1>\n");
	for (size_t i = 0; i < gm_report_table_count; i++) {
		if (!gm_report_table_list[i].inline_shown) {
			table(&pg->t[i], out);
		}
	}
	strbuf_addstr(out, "</body>\n</html>\n");
	return 0;
}
