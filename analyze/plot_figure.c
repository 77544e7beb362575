/* SPDX-License-Identifier: MIT */
/*
 * Writing the report's figures (see plot_figure.h): each figure's data
 * file and gnuplot script, the list of figures drawn and of those
 * skipped, and one gnuplot run over the scripts. The figure families
 * (plot.c, plot_open_loop.c) call these; nothing here calls them back.
 * Text that reaches a script is a single-quoted gnuplot string, where
 * only the quote itself needs doubling; control characters become
 * spaces; terminals run in noenhanced mode so '_' and '^' stay literal.
 */
#include "plot_figure.h"

#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "atomic_file.h"
#include "error.h"
#include "fs.h"
#include "run_command.h"

#define WIDTH 960
#define HEIGHT 560

void gm_plot_gp_str(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'') {
			strbuf_addstr(sb, "''");
		} else if ((unsigned char)*s < 0x20) {
			strbuf_addch(sb, ' ');
		} else {
			strbuf_addch(sb, *s);
		}
	}
	strbuf_addch(sb, '\'');
}

static int write_in(const char *dir, const char *name, const struct strbuf *sb)
{
	char *path = gm_path_join(dir, name);
	int ret = gm_write_file_atomic(path, sb->buf, sb->len, 1);

	free(path);
	return ret;
}

int gm_plot_add_figure(struct fig_ctx *c, const char *stem, const char *title,
		       const char *note, const struct strbuf *data,
		       const char *setup, const char *plot)
{
	struct strbuf sb = STRBUF_INIT, name = STRBUF_INIT;
	int ret = -1;

	strbuf_addf(&name, "%s.dat", stem);
	if (write_in(c->dir, name.buf, data)) {
		goto out;
	}
	strbuf_addf(&sb, "# gpumix report: ");
	for (const char *s = title; *s; s++) {
		strbuf_addch(&sb, *s == '\n' ? ' ' : *s);
	}
	/* reset: gnuplot runs every script in one session. */
	strbuf_addf(&sb, "\n# Redraw with: gnuplot %s.gp (in this directory)\n"
		    "reset\nset encoding utf8\nset title ", stem);
	gm_plot_gp_str(&sb, title);
	strbuf_addf(&sb, "\n%s", setup);
	strbuf_addf(&sb, "if (strstrt(GPVAL_TERMINALS, 'pngcairo') > 0) {\n"
		    "  set terminal pngcairo size %d,%d noenhanced font 'sans,10'\n"
		    "} else {\n  set terminal png size %d,%d noenhanced\n}\n"
		    "set output '%s.png'\n%s\n"
		    "set terminal svg size %d,%d noenhanced font 'sans,10'"
		    " background rgb 'white'\nset output '%s.svg'\n%s\n"
		    "unset output\n", WIDTH, HEIGHT, WIDTH, HEIGHT, stem, plot,
		    WIDTH, HEIGHT, stem, plot);
	strbuf_reset(&name);
	strbuf_addf(&name, "%s.gp", stem);
	if (write_in(c->dir, name.buf, &sb)) {
		goto out;
	}
	c->argv_names = gm_xrealloc(c->argv_names,
				    (c->nscripts + 2) * sizeof(char *));
	c->argv_names[c->nscripts++] = strbuf_detach(&name, NULL);
	c->argv_names[c->nscripts] = NULL;
	struct gm_figures *f = c->out;
	f->fig = gm_xrealloc(f->fig, (f->n + 1) * sizeof(*f->fig));
	f->fig[f->n].stem = gm_xstrdup(stem);
	f->fig[f->n].title = gm_xstrdup(title);
	f->fig[f->n].note = note ? gm_xstrdup(note) : NULL;
	f->n++;
	ret = 0;
out:
	strbuf_release(&sb);
	strbuf_release(&name);
	return ret;
}

void gm_plot_skipped(struct fig_ctx *c, const char *fmt, const char *what)
{
	struct gm_figures *f = c->out;

	f->skipped = gm_xrealloc(f->skipped, (f->nskipped + 1) * sizeof(char *));
	f->skipped[f->nskipped++] = gm_xasprintf(fmt, what);
}

/* Last non-empty line of @dir/gnuplot.log, for the error message. */
static char *log_tail(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *line = NULL;

	if (gm_read_file(path, &sb)) {
		gm_error_clear();
		return gm_xstrdup("(no log)");
	}
	strbuf_rtrim(&sb);
	char *nl = strrchr(sb.buf, '\n');
	line = gm_xstrdup(nl ? nl + 1 : sb.buf);
	strbuf_release(&sb);
	return line;
}

/* Run @gnuplot once in c->dir on every script written. */
static int run_gnuplot(struct fig_ctx *c, const char *gnuplot)
{
	char *log = gm_path_join(c->dir, "gnuplot.log");
	char **argv = gm_xcalloc(c->nscripts + 2, sizeof(char *));
	struct gm_run_command cmd = { .argv = argv, .search_path = 1,
				      .cwd = c->dir, .output = log };
	struct gm_run_result r;
	int ret = -1;

	argv[0] = (char *)gnuplot;
	for (size_t i = 0; i < c->nscripts; i++) {
		argv[i + 1] = c->argv_names[i];
	}
	if (gm_run_command(&cmd, &r, NULL, NULL)) {
		if (r.not_run == 2) {
			gm_error("cannot draw the figures: '%s' did not run",
				 gnuplot);
			gm_error_hint("install gnuplot (Debian: apt-get install "
				      "gnuplot-nox), set GPUMIX_GNUPLOT, or use "
				      "--no-figures");
		} else {
			gm_error("cannot start gnuplot in '%s'", c->dir);
		}
		goto out;
	}
	if (!r.signal && !r.exit_code) {
		ret = 0;
		goto out;
	}
	char *tail = log_tail(log);
	if (!r.signal) {
		gm_error("%s", tail);
		gm_error("gnuplot failed with exit status %d", r.exit_code);
	} else {
		gm_error("gnuplot was killed by signal %d", r.signal);
	}
	free(tail);
out:
	free(argv);
	free(log);
	return ret;
}

/* Each figure's PNG and SVG exists and is not empty. */
static int check_outputs(struct fig_ctx *c)
{
	static const char *const ext[] = { "png", "svg" };

	for (size_t i = 0; i < c->out->n; i++) {
		for (int e = 0; e < 2; e++) {
			char *name = gm_xasprintf("%s/%s.%s", c->dir,
						  c->out->fig[i].stem, ext[e]);
			struct stat st;
			int bad = stat(name, &st) || st.st_size == 0;
			if (bad) {
				gm_error("gnuplot did not write '%s' (or left it empty)",
					 name);
				free(name);
				return -1;
			}
			free(name);
		}
	}
	return 0;
}

int gm_plot_draw(struct fig_ctx *c, const char *gnuplot)
{
	if (!gnuplot || !c->nscripts) {
		return 0;
	}
	return run_gnuplot(c, gnuplot) || check_outputs(c) ? -1 : 0;
}

void gm_plot_ctx_release(struct fig_ctx *c)
{
	for (size_t i = 0; i < c->nscripts; i++) {
		free(c->argv_names[i]);
	}
	free(c->argv_names);
	c->argv_names = NULL;
	c->nscripts = 0;
}
