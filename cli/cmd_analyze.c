/* SPDX-License-Identifier: MIT */
/*
 * gpumix analyze: load run directories into the results database, one
 * transaction per run, with progress on a terminal and a one-line
 * summary. A run that fails to load is reported and the others still
 * load; the exit status says whether any failed.
 */
#include <dirent.h>
#include <getopt.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "analyze/db.h"
#include "analyze/db_merge.h"
#include "analyze/interval_store.h"
#include "analyze/loader.h"
#include "cli.h"
#include "clock.h"
#include "error.h"
#include "fs.h"
#include "strbuf.h"

static const char usage[] =
	"usage: gpumix analyze [-o <database>] [--force] [--ci <method>]"
	" <rundir>...\n"
	"   or: gpumix analyze --merge [-o <database>] [--ci <method>]"
	" <database>...\n"
	"   or: gpumix analyze --forget [-o <database>] [--ci <method>]"
	" <rundir>...\n"
	"\n"
	"    -o, --output <database>  database to create or add to"
	" (default: results.db)\n"
	"    -f, --force              reload runs already in the database and"
	" replace\n"
	"                             other runs of the same workload, variant,"
	" policy\n"
	"                             and repetition\n"
	"    --merge                  merge the runs of the given databases"
	" into the\n"
	"                             output (created, or added to), each run"
	" once\n"
	"    --forget                 remove from the database the runs and"
	" co-runs\n"
	"                             loaded from the given directories (as"
	" they were\n"
	"                             given then)\n"
	"    --ci <method>            the method of the intervals table: t (the"
	" default),\n"
	"                             bootstrap or bootstrap:SEED"
	" (doc/database.md)\n"
	"    -h, --help               show this help\n"
	"\n"
	"<rundir> is a run directory (doc/run-directory.md) or a corun"
	" directory\n(doc/gpumix-corun.md), or a directory whose subdirectories"
	" are such\n(loaded in name order).\n"
	"\n"
	"exit status: 0 every run loaded or was already loaded; 1 a run could"
	" not be\nloaded (the others still are) or the database cannot be"
	" used; 2 usage\nerror; 130 interrupted (the run being loaded is"
	" rolled back).";

static volatile sig_atomic_t interrupted;

static void on_sigint(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct progress {
	int tty;
	size_t index, total;
	const char *dir;
	double run_start, last;
	int shown;
};

static int on_progress(void *data, const struct gm_activity_reader *r)
{
	struct progress *p = data;
	double t;

	if (interrupted) {
		return 1;
	}
	if (!p->tty) {
		return 0;
	}
	t = gm_now_s();
	/* Delayed (short loads stay quiet) and at most ten updates a second. */
	if (t - p->run_start < 0.5 || t - p->last < 0.1) {
		return 0;
	}
	p->last = t;
	p->shown = 1;
	fprintf(stderr, "\ranalyze: [%zu/%zu] %s: %3.0f%% (%llu records)\033[K",
		p->index + 1, p->total, p->dir,
		r->bytes_total ? 100.0 * r->bytes_read / r->bytes_total : 0.0,
		(unsigned long long)r->records);
	return 0;
}

static void clear_progress(struct progress *p)
{
	if (p->shown) {
		fputs("\r\033[K", stderr);
		p->shown = 0;
	}
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Append @arg, or the run directories directly under it, to the list. */
static void expand_arg(const char *arg, char ***list, size_t *nr,
		       size_t *alloc)
{
	char *manifest = gm_path_join(arg, "manifest");
	size_t first = *nr;
	DIR *d;

	if (gm_path_exists(manifest) || !gm_is_dir(arg) ||
	    !(d = opendir(arg))) {
		free(manifest);
		GM_ALLOC_GROW(*list, *nr + 1, *alloc);
		(*list)[(*nr)++] = gm_xstrdup(arg);
		return;
	}
	free(manifest);
	for (struct dirent *e; (e = readdir(d));) {
		if (e->d_name[0] == '.') {
			continue;
		}
		char *sub = gm_path_join(arg, e->d_name);
		char *m = gm_path_join(sub, "manifest");
		if (gm_is_dir(sub) && gm_path_exists(m)) {
			GM_ALLOC_GROW(*list, *nr + 1, *alloc);
			(*list)[(*nr)++] = sub;
		} else {
			free(sub);
		}
		free(m);
	}
	closedir(d);
	if (*nr == first) {
		/* Nothing inside: let the loader say it is not a run. */
		GM_ALLOC_GROW(*list, *nr + 1, *alloc);
		(*list)[(*nr)++] = gm_xstrdup(arg);
		return;
	}
	qsort(*list + first, *nr - first, sizeof(char *), cmp_str);
}

/* Another writer holds the database's lock: say why nothing happens. */
static void on_waiting(void *arg, const char *lock)
{
	gm_note("analyze: waiting for '%s': another gpumix writes it (lock '%s')",
		(const char *)arg, lock);
}

static int merge_stop(void)
{
	return interrupted;
}

/* The interval method of the intervals table (--ci). */
static struct gm_ci_opts ci_method = GM_CI_OPTS_INIT;

static int merge_finish(struct gm_db *db)
{
	return gm_intervals_store(db, &ci_method);
}

/* gpumix analyze --forget: what was loaded from @dirs leaves @out. */
static int forget(const char *out, char **dirs, size_t n)
{
	struct gm_db db = GM_DB_INIT;
	struct gm_loader loader;
	size_t gone = 0, absent = 0, failed = 0;
	double t0 = gm_now_s();
	int ret = GM_EXIT_OK;

	if (!gm_path_exists(out)) {
		gm_note("analyze: '%s' does not exist: nothing to forget", out);
		return GM_EXIT_OK;
	}
	db.waiting = on_waiting;
	db.waiting_arg = (void *)out;
	if (gm_db_open(&db, out, GM_DB_WRITE)) {
		return gm_cli_fail();
	}
	if (gm_loader_init(&loader, &db)) {
		ret = gm_cli_fail();
		goto out_loader;
	}
	for (size_t i = 0; i < n; i++) {
		size_t nr;
		if (gm_loader_forget(&loader, dirs[i], &nr)) {
			gm_error_report(stderr);
			failed++;
		} else if (!nr) {
			absent++;
			gm_note("note: nothing in %s was loaded from '%s'", out,
				dirs[i]);
		}
		gone += nr;
	}
	if (gone && gm_intervals_store(&db, &ci_method)) {
		gm_error_report(stderr);
		ret = GM_EXIT_ERROR;
	}
	gm_note("analyze: %zu run%s forgotten from %s in %.1f s%s%s", gone,
		gone == 1 ? "" : "s", out, gm_now_s() - t0,
		failed ? "; some could not be" : "",
		absent ? "; some directories were not in it" : "");
	if (failed) {
		ret = GM_EXIT_ERROR;
	}
out_loader:
	gm_loader_release(&loader);
	gm_db_close(&db);
	return ret;
}

/* gpumix analyze --merge: the databases @inputs into @out. */
static int merge(const char *out, char **inputs, size_t n)
{
	struct gm_merge_info info = { .stop = merge_stop,
				      .finish = merge_finish,
				      .waiting = on_waiting,
				      .waiting_arg = (void *)out };
	struct sigaction sa, old_sa;
	double t0 = gm_now_s();
	int r;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, &old_sa);
	r = gm_db_merge(out, (const char *const *)inputs, n, &info);
	sigaction(SIGINT, &old_sa, NULL);
	if (r && info.interrupted) {
		gm_error_report(stderr);
		return GM_EXIT_INTERRUPTED;
	}
	if (r) {
		return gm_cli_fail();
	}
	gm_note("analyze: merged %zu database%s into %s: %zu run%s added, %zu"
		" already there, %zu in all, in %.1f s", n, n == 1 ? "" : "s",
		out, info.runs, info.runs == 1 ? "" : "s", info.duplicates,
		info.kept + info.runs, gm_now_s() - t0);
	return GM_EXIT_OK;
}

static const struct option analyze_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "merge", no_argument, NULL, 'm' },
	{ "forget", no_argument, NULL, 'g' },
	{ "ci", required_argument, NULL, 'c' },
	{ NULL, 0, NULL, 0 },
};

const struct gm_cmd_options gm_analyze_options = {
	.shorts = "o:f",
	.longopts = analyze_longopts,
};

/* The command line of gpumix analyze. */
struct analyze_opts {
	const char *out;
	int force, merge, forget;
	char **args;		/* the arguments after the options */
	size_t nr_args;
};

/*
 * The command line into @o (--ci into ci_method). Returns 0 to go on, -1
 * after --help, or the exit status of a usage error (printed).
 */
static int parse(int argc, char **argv, struct analyze_opts *o)
{
	struct gm_opt_parser op;
	int c;

	o->out = "results.db";
	gm_opt_init(&op, &gm_analyze_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		switch (c) {
		case 'o':
			o->out = op.arg;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'm':
			o->merge = 1;
			break;
		case 'g':
			o->forget = 1;
			break;
		case 'c':
			if (gm_ci_opts_parse(&ci_method, op.arg)) {
				char msg[GM_ERROR_MSG_LEN];
				snprintf(msg, sizeof(msg), "%s", gm_error_message());
				gm_error_clear();
				return gm_usage_error(usage, "%s", msg);
			}
			break;
		case 'h':
			puts(usage);
			return -1;
		default:
			return GM_EXIT_USAGE;
		}
	}
	o->args = argv + op.ind;
	o->nr_args = (size_t)(argc - op.ind);
	return 0;
}

/* Whether the options of @o go together: 0, or a usage error's status. */
static int check_opts(const struct analyze_opts *o)
{
	if (o->forget) {
		if (o->force || o->merge) {
			return gm_usage_error(usage, "--forget takes neither"
					      " --force nor --merge");
		}
		if (!o->nr_args) {
			return gm_usage_error(usage, "no run directory to forget"
					      " given");
		}
		return 0;
	}
	if (o->merge) {
		if (o->force) {
			return gm_usage_error(usage, "--force does not apply to"
					      " --merge (it never replaces runs)");
		}
		if (!o->nr_args) {
			return gm_usage_error(usage, "no database to merge given");
		}
		return 0;
	}
	if (!o->nr_args) {
		return gm_usage_error(usage, "no run directory given");
	}
	return 0;
}

/* What the loads of one gpumix analyze came to. */
struct load_counts {
	size_t loaded, skipped, replaced, failed;
	uint64_t kernels, records;
};

/* With -v: what the load of @dir put into the database. */
static void note_loaded(const char *dir, const struct gm_load_info *info)
{
	if (gm_cli.verbosity > 0 && info->sweep) {
		gm_note("loaded '%s' (resource sweep): %llu "
			"points", dir,
			(unsigned long long)info->kernels);
	} else if (gm_cli.verbosity > 0 && info->stretch) {
		gm_note("loaded '%s' (SM-stretch curves): %llu "
			"points", dir,
			(unsigned long long)info->kernels);
	} else if (gm_cli.verbosity > 0 && info->corun) {
		gm_note("loaded '%s' (%s): %llu GPU sections",
			dir, info->label,
			(unsigned long long)info->sections);
	} else if (gm_cli.verbosity > 0) {
		gm_note("loaded '%s' (%s): %llu kernels, %llu copies,"
			" %llu memsets, %llu API calls, %llu replays",
			dir, info->label,
			(unsigned long long)info->kernels,
			(unsigned long long)info->memcpys,
			(unsigned long long)info->memsets,
			(unsigned long long)info->apis,
			(unsigned long long)info->replays);
	}
}

/*
 * Load the run directory @dir into @out through @loader, counted into @c;
 * a failure is reported here, an interruption sets `interrupted`.
 */
static void load_one(struct gm_loader *loader, struct progress *prog,
		     const char *out, const char *dir, struct load_counts *c)
{
	struct gm_load_info info;
	int r;

	prog->dir = dir;
	prog->run_start = gm_now_s();
	r = gm_loader_load(loader, dir, &info);
	clear_progress(prog);
	if (r) {
		if (info.interrupted || interrupted) {
			gm_error_clear();
			interrupted = 1;
		} else {
			gm_error_report(stderr);
			c->failed++;
		}
	} else if (info.outcome == GM_LOAD_SKIPPED) {
		c->skipped++;
		gm_note("note: '%s' (%s) is already in %s%s%s%s; skipped"
			" (--force reloads it)", dir, info.label, out,
			strcmp(info.previous_path, dir) ? ", loaded from '" : "",
			strcmp(info.previous_path, dir) ? info.previous_path : "",
			strcmp(info.previous_path, dir) ? "'" : "");
	} else {
		if (info.outcome == GM_LOAD_REPLACED) {
			c->replaced++;
			gm_note("note: '%s' (%s) replaced the run loaded from '%s'",
				dir, info.label, info.previous_path);
		} else {
			c->loaded++;
		}
		c->kernels += info.stretch || info.sweep ? 0 : info.kernels;
		c->records += info.kernels + info.memcpys + info.memsets +
			      info.apis;
		note_loaded(dir, &info);
	}
	gm_load_info_release(&info);
}

/* The one-line summary of the loads @c into @out, begun at @t0. */
static void add_summary(struct strbuf *summary, const struct load_counts *c,
			const char *out, double t0)
{
	strbuf_addf(summary, "analyze: %zu run%s loaded", c->loaded + c->replaced,
		    c->loaded + c->replaced == 1 ? "" : "s");
	if (c->replaced) {
		strbuf_addf(summary, " (%zu replacing older ones)", c->replaced);
	}
	strbuf_addf(summary, ", %llu kernels, %llu records, into %s in %.1f s",
		    (unsigned long long)c->kernels, (unsigned long long)c->records,
		    out, gm_now_s() - t0);
	if (c->skipped) {
		strbuf_addf(summary, "; %zu already loaded", c->skipped);
	}
	if (c->failed) {
		strbuf_addf(summary, "; %zu failed", c->failed);
	}
}

/*
 * gpumix analyze <rundir>...: the run directories @dirs into the open
 * database @db (called @out), then the one-line summary. Returns the
 * command's exit status.
 */
static int load(struct gm_db *db, const char *out, int force, char **dirs,
		size_t nr_dirs, double t0)
{
	struct load_counts counts = { 0 };
	struct gm_loader loader;
	struct progress prog;
	struct sigaction sa, old_sa;
	struct strbuf summary = STRBUF_INIT;
	int ret = GM_EXIT_OK;

	if (gm_loader_init(&loader, db)) {
		return gm_cli_fail();
	}
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_sigint;
	sigaction(SIGINT, &sa, &old_sa);

	memset(&prog, 0, sizeof(prog));
	prog.tty = isatty(2) && gm_cli.verbosity >= 0;
	prog.total = nr_dirs;
	loader.force = force;
	loader.progress = on_progress;
	loader.progress_data = &prog;
	for (size_t i = 0; i < nr_dirs && !interrupted; i++) {
		prog.index = i;
		load_one(&loader, &prog, out, dirs[i], &counts);
	}
	sigaction(SIGINT, &old_sa, NULL);
	/* The derived table follows the runs (doc/database.md, intervals). */
	if (!interrupted && gm_intervals_store(db, &ci_method)) {
		gm_error_report(stderr);
		ret = GM_EXIT_ERROR;
	}

	add_summary(&summary, &counts, out, t0);
	gm_loader_release(&loader);
	if (!counts.loaded && !counts.replaced && !counts.skipped && db->created) {
		/* Nothing went in: no new, empty database (not even its schema). */
		if (gm_db_close_unused(db)) {
			strbuf_addf(&summary, "; %s not created", out);
		}
	}
	gm_note("%s", summary.buf);
	strbuf_release(&summary);
	if (interrupted) {
		fprintf(stderr, "analyze: interrupted; the run being loaded was"
			" rolled back\n");
		ret = GM_EXIT_INTERRUPTED;
	} else if (counts.failed) {
		ret = GM_EXIT_ERROR;
	}
	return ret;
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_opts o = { 0 };
	char **dirs = NULL;
	size_t nr_dirs = 0, alloc_dirs = 0;
	struct gm_db db = GM_DB_INIT;
	double t0 = gm_now_s();
	int ret;

	ret = parse(argc, argv, &o);
	if (ret) {
		return ret < 0 ? GM_EXIT_OK : ret;
	}
	ret = check_opts(&o);
	if (ret) {
		return ret;
	}
	if (o.forget) {
		return forget(o.out, o.args, o.nr_args);
	}
	if (o.merge) {
		return merge(o.out, o.args, o.nr_args);
	}
	for (size_t i = 0; i < o.nr_args; i++) {
		expand_arg(o.args[i], &dirs, &nr_dirs, &alloc_dirs);
	}

	db.waiting = on_waiting;
	db.waiting_arg = (void *)o.out;
	if (gm_db_open(&db, o.out, GM_DB_WRITE)) {
		ret = gm_cli_fail();
	} else {
		ret = load(&db, o.out, o.force, dirs, nr_dirs, t0);
		gm_db_close(&db);
	}
	for (size_t i = 0; i < nr_dirs; i++) {
		free(dirs[i]);
	}
	free(dirs);
	return ret;
}
