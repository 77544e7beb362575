/* SPDX-License-Identifier: MIT */
/*
 * Report directory writer (see report.h).
 */
#include "report.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "error.h"
#include "fs.h"
#include "output_dir.h"
#include "report_priv.h"
#include "report_timeline.h"
#include "schema.h"
#include "strbuf.h"
#include "tmp_name.h"

int gm_report_check_output(const struct gm_report_options *opt)
{
	if (gm_path_exists(opt->out_dir) && !opt->force) {
		gm_error("'%s' already exists", opt->out_dir);
		gm_error_hint("use --force to replace it, or choose another -o");
		return -1;
	}
	/* --force replaces a report, never a file or another directory. */
	return gm_output_may_replace(opt->out_dir, GM_OUTPUT_REPORT);
}

static int write_file(const char *dir, const char *name, const struct strbuf *sb)
{
	char *path = gm_path_join(dir, name);
	int ret = gm_write_file_atomic(path, sb->buf, sb->len, 1);

	free(path);
	return ret;
}

static void index_header(const struct gm_analysis *a, const struct gm_table *t,
			 const struct gm_report_options *opt, struct strbuf *sb)
{
	size_t ok = 0, workloads = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		ok += a->runs[i].ok;
		if (!i || strcmp(a->runs[i].workload, a->runs[i - 1].workload)) {
			workloads++;
		}
	}
	strbuf_addstr(sb, "# gpumix report\n\n");
	strbuf_addstr(sb, "Database `");
	gm_markdown_escape(sb, opt->db_path);
	strbuf_addf(sb, "` (schema %d): %zu runs (%zu ok) of %zu workloads under"
		    " %zu variants", GM_SCHEMA_VERSION, a->nruns, ok, workloads,
		    a->nvariants);
	if (a->nruns) {
		strbuf_addstr(sb, " on ");
		gm_markdown_escape(sb, a->runs[0].device_name);
		for (size_t i = 1; i < a->nruns; i++) {
			if (strcmp(a->runs[i].device_name, a->runs[0].device_name)) {
				strbuf_addstr(sb, " and other devices");
				break;
			}
		}
	}
	strbuf_addf(sb, ". Written by gpumix %s; metric definitions: doc/database.md"
		    " and doc/gpumix-report.md.\n\n", opt->version);
	if (a->kernels) {
		strbuf_addstr(sb, "Kernels: ");
		gm_markdown_escape(sb, a->kernels);
		strbuf_addstr(sb, ".\n\n");
	}
	const struct gm_table *paper = &t[gm_report_table_find("paper")];
	strbuf_addf(sb, "Beside the paper's numbers (Pai et al., ASPLOS'13, on"
		    " Fermi): [%s](tables/%s.md).\n\n", paper->title,
		    paper->name);
	if (a->nnotes) {
		strbuf_addstr(sb, "## Notes\n\n");
		for (size_t i = 0; i < a->nnotes; i++) {
			strbuf_addstr(sb, "- ");
			gm_markdown_escape(sb, a->notes[i]);
			strbuf_addch(sb, '\n');
		}
		strbuf_addch(sb, '\n');
	}
}

static void index_figures(const struct gm_figures *f, struct strbuf *sb,
			  int mode)
{
	strbuf_addstr(sb, "## Figures\n\n");
	if (mode == GM_FIGURES_NONE) {
		strbuf_addstr(sb, "Not drawn (--no-figures).\n\n");
		return;
	}
	if (mode == GM_FIGURES_SCRIPTS) {
		strbuf_addstr(sb, "Not drawn: gnuplot was not run "
			      "(--figure-scripts). Each figure's data and "
			      "gnuplot script are in figures/; `cd figures && "
			      "gnuplot *.gp` draws them as PNG and SVG.\n\n");
		for (size_t i = 0; i < f->n; i++) {
			strbuf_addf(sb, "- [figures/%s.gp](figures/%s.gp): ",
				    f->fig[i].stem, f->fig[i].stem);
			gm_markdown_escape(sb, f->fig[i].title);
			strbuf_addch(sb, '\n');
		}
		strbuf_addch(sb, '\n');
		return;
	}
	for (size_t i = 0; i < f->n; i++) {
		const struct gm_figure *g = &f->fig[i];
		strbuf_addstr(sb, "### ");
		gm_markdown_escape(sb, g->title);
		strbuf_addf(sb, "\n\n![");
		gm_markdown_escape(sb, g->title);
		strbuf_addf(sb, "](figures/%s.png)\n\n", g->stem);
		if (g->note) {
			strbuf_addstr(sb, "Shows ");
			gm_markdown_escape(sb, g->note);
			strbuf_addstr(sb, ". ");
		}
		strbuf_addf(sb, "[SVG](figures/%s.svg), [data](figures/%s.dat),"
			    " [gnuplot script](figures/%s.gp)\n\n", g->stem, g->stem,
			    g->stem);
	}
	for (size_t i = 0; i < f->nskipped; i++) {
		strbuf_addstr(sb, "- Not drawn: ");
		gm_markdown_escape(sb, f->skipped[i]);
		strbuf_addch(sb, '\n');
	}
	if (f->nskipped) {
		strbuf_addch(sb, '\n');
	}
}

/* A file name for @label: letters, digits and ._+- kept, the rest '_'. */
static char *timeline_file(const struct gm_an_run *r, const char *ext)
{
	struct strbuf sb = STRBUF_INIT;
	int changed = 0;

	strbuf_addstr(&sb, "timelines/");
	for (const char *p = r->label; *p; p++) {
		int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			 (*p >= '0' && *p <= '9') || strchr("._+-", *p);
		strbuf_addch(&sb, ok ? *p : '_');
		changed |= !ok;
	}
	if (changed) {
		/* Two labels may map to one name: the run id tells them apart. */
		strbuf_addf(&sb, "-%lld", (long long)r->id);
	}
	strbuf_addstr(&sb, ext);
	return strbuf_detach(&sb, NULL);
}

static int write_timelines(const struct gm_analysis *a,
			   const struct gm_report_options *opt, const char *dir,
			   struct gm_report_timeline **out, size_t *n)
{
	struct strbuf sb = STRBUF_INIT;
	char *tldir = gm_path_join(dir, "timelines");
	int ret = -1;

	*out = gm_xcalloc(a->nruns + 1, sizeof(**out));
	*n = 0;
	if (gm_mkdir_p(tldir, 0755)) {
		goto out;
	}
	for (size_t i = 0; i < a->nruns; i++) {
		struct gm_report_timeline *tl = &(*out)[(*n)++];
		tl->run = &a->runs[i];
		tl->file = timeline_file(tl->run,
					 gm_trace_format_ext(opt->timeline_format));
		strbuf_reset(&sb);
		if (gm_timeline_run(opt->db, tl->run, &opt->timeline,
				    opt->timeline_format, &sb, &tl->stats) ||
		    write_file(dir, tl->file, &sb)) {
			goto out;
		}
	}
	ret = 0;
out:
	strbuf_release(&sb);
	free(tldir);
	return ret;
}

static void index_timelines(const struct gm_report_timeline *tl, size_t n,
			    enum gm_trace_format format, struct strbuf *sb)
{
	if (!n) {
		return;
	}
	strbuf_addf(sb, "## Timelines\n\n"
		      "Each run in %s: open it in"
		      " <https://ui.perfetto.dev> (Open trace file; the file"
		      " stays on this machine)%s. One process"
		      " per program, a track per host thread and per stream,"
		      " arrows from each launch call to its kernel (doc/timeline.md).\n\n",
		      gm_report_timeline_format_name(format),
		      format == GM_TRACE_PERFETTO ? "" : " or chrome://tracing");
	for (size_t i = 0; i < n; i++) {
		strbuf_addstr(sb, "- [");
		gm_markdown_escape(sb, tl[i].run->label);
		strbuf_addf(sb, "](%s): ", tl[i].file);
		gm_report_timeline_line(&tl[i], sb);
		strbuf_addch(sb, '\n');
	}
	strbuf_addch(sb, '\n');
}

/* Build the whole report in @dir (a fresh directory). */
static int build(const struct gm_analysis *a, const struct gm_table *t,
		 const struct gm_report_options *opt, const char *dir,
		 struct gm_report_result *res)
{
	struct strbuf sb = STRBUF_INIT, idx = STRBUF_INIT;
	struct gm_figures figs;
	struct gm_report_timeline *tl = NULL;
	size_t ntl = 0;
	char *tdir = gm_path_join(dir, "tables");
	char *fdir = gm_path_join(dir, "figures");
	int ret = -1;

	memset(&figs, 0, sizeof(figs));
	if (gm_mkdir_p(tdir, 0755) || gm_mkdir_p(fdir, 0755)) {
		goto out;
	}
	for (size_t i = 0; i < gm_report_table_count; i++) {
		char *name = gm_xasprintf("%s.md", t[i].name);
		strbuf_reset(&sb);
		gm_table_markdown(&t[i], &sb, 1);
		ret = write_file(tdir, name, &sb);
		free(name);
		if (ret) {
			goto out;
		}
		name = gm_xasprintf("%s.csv", t[i].name);
		strbuf_reset(&sb);
		gm_table_csv(&t[i], &sb);
		ret = write_file(tdir, name, &sb);
		free(name);
		if (ret) {
			goto out;
		}
		res->tables++;
	}
	strbuf_reset(&sb);
	gm_report_tables_json(t, gm_report_table_count, -1, &sb);
	if ((ret = write_file(dir, "tables.json", &sb))) {
		goto out;
	}
	ret = -1;
	if (opt->figures != GM_FIGURES_NONE &&
	    gm_plot_figures(a, fdir, opt->figures == GM_FIGURES_DRAW ?
				     opt->gnuplot : NULL, &figs)) {
		goto out;
	}
	res->figures = figs.n;
	res->skipped_figures = figs.nskipped;
	if (opt->db && write_timelines(a, opt, dir, &tl, &ntl)) {
		goto out;
	}
	res->timelines = ntl;

	index_header(a, t, opt, &idx);
	for (size_t i = 0; i < gm_report_table_count; i++) {
		if (gm_report_table_list[i].inline_shown) {
			gm_table_markdown(&t[i], &idx, 1);
			strbuf_addf(&idx, "\n[CSV](tables/%s.csv)\n\n", t[i].name);
		}
	}
	index_figures(&figs, &idx, opt->figures);
	index_timelines(tl, ntl, opt->timeline_format, &idx);
	strbuf_addstr(&idx, "## All tables\n\n");
	for (size_t i = 0; i < gm_report_table_count; i++) {
		strbuf_addstr(&idx, "- [");
		gm_markdown_escape(&idx, t[i].title);
		strbuf_addf(&idx, "](tables/%s.md) ([CSV](tables/%s.csv))%s\n",
			    t[i].name, t[i].name,
			    gm_report_table_list[i].inline_shown ? " (shown above)" : "");
	}
	if (write_file(dir, "index.md", &idx)) {
		goto out;
	}
	struct gm_report_page pg = {
		.a = a, .t = t, .opt = opt,
		.figs = opt->figures == GM_FIGURES_DRAW ? &figs : NULL,
		.fig_dir = fdir,
		.tl = tl, .ntl = ntl,
	};
	strbuf_reset(&idx);
	if (gm_report_html(&pg, &idx) || write_file(dir, "index.html", &idx)) {
		goto out;
	}
	ret = 0;
out:
	for (size_t i = 0; i < ntl; i++) {
		free(tl[i].file);
	}
	free(tl);
	gm_figures_release(&figs);
	strbuf_release(&sb);
	strbuf_release(&idx);
	free(tdir);
	free(fdir);
	return ret;
}

int gm_report_write(const struct gm_analysis *a, const struct gm_table *t,
		    const struct gm_report_options *opt,
		    struct gm_report_result *res)
{
	char *tmp = gm_tmp_name(opt->out_dir, "tmp");
	char *old = gm_tmp_name(opt->out_dir, "old");
	char *parent = gm_xstrdup(opt->out_dir);
	char *slash = strrchr(parent, '/');
	int ret = -1;

	memset(res, 0, sizeof(*res));
	if (slash && slash != parent) {
		*slash = '\0';
		if (gm_mkdir_p(parent, 0755)) {
			goto out;
		}
	}
	/* What killed reports of out_dir left, then our own. */
	if (gm_report_check_output(opt) ||
	    gm_tmp_remove_stale(opt->out_dir, GM_TMP_DEAD) < 0) {
		goto out;
	}
	gm_remove_tree(tmp);
	if (gm_mkdir_p(tmp, 0755) || gm_output_mark(tmp, GM_OUTPUT_REPORT) ||
	    build(a, t, opt, tmp, res)) {
		gm_error("cannot write the report '%s'", opt->out_dir);
		gm_remove_tree(tmp);
		goto out;
	}
	if (gm_path_exists(opt->out_dir)) {
		if (rename(opt->out_dir, old)) {
			gm_error_errno("cannot move '%s' aside", opt->out_dir);
			gm_remove_tree(tmp);
			goto out;
		}
	}
	if (rename(tmp, opt->out_dir)) {
		gm_error_errno("cannot rename '%s' to '%s'", tmp, opt->out_dir);
		gm_remove_tree(tmp);
		if (gm_path_exists(old)) {
			rename(old, opt->out_dir);
		}
		goto out;
	}
	if (gm_path_exists(old) && gm_remove_tree(old)) {
		goto out;
	}
	ret = 0;
out:
	free(tmp);
	free(old);
	free(parent);
	return ret;
}
