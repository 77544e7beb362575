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

int cmd_analyze(int argc, char **argv)
{
	struct gm_opt_parser op;
	const char *out = "results.db";
	int force = 0, do_merge = 0, do_forget = 0, c, ret = GM_EXIT_OK;
	char **dirs = NULL;
	size_t nr_dirs = 0, alloc_dirs = 0;
	size_t loaded = 0, skipped = 0, replaced = 0, failed = 0;
	uint64_t kernels = 0, records = 0;
	struct gm_db db = GM_DB_INIT;
	struct gm_loader loader;
	struct progress prog;
	struct sigaction sa, old_sa;
	struct strbuf summary = STRBUF_INIT;
	double t0 = gm_now_s();

	gm_opt_init(&op, &gm_analyze_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		switch (c) {
		case 'o':
			out = op.arg;
			break;
		case 'f':
			force = 1;
			break;
		case 'm':
			do_merge = 1;
			break;
		case 'g':
			do_forget = 1;
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
			return GM_EXIT_OK;
		default:
			return GM_EXIT_USAGE;
		}
	}
	if (do_forget) {
		if (force || do_merge) {
			return gm_usage_error(usage, "--forget takes neither"
					      " --force nor --merge");
		}
		if (op.ind == argc) {
			return gm_usage_error(usage, "no run directory to forget"
					      " given");
		}
		return forget(out, argv + op.ind, (size_t)(argc - op.ind));
	}
	if (do_merge) {
		if (force) {
			return gm_usage_error(usage, "--force does not apply to"
					      " --merge (it never replaces runs)");
		}
		if (op.ind == argc) {
			return gm_usage_error(usage, "no database to merge given");
		}
		return merge(out, argv + op.ind, (size_t)(argc - op.ind));
	}
	if (op.ind == argc) {
		return gm_usage_error(usage, "no run directory given");
	}
	for (int i = op.ind; i < argc; i++) {
		expand_arg(argv[i], &dirs, &nr_dirs, &alloc_dirs);
	}

	db.waiting = on_waiting;
	db.waiting_arg = (void *)out;
	if (gm_db_open(&db, out, GM_DB_WRITE)) {
		ret = gm_cli_fail();
		goto out_free;
	}
	if (gm_loader_init(&loader, &db)) {
		ret = gm_cli_fail();
		goto out_close;
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
		struct gm_load_info info;
		prog.index = i;
		prog.dir = dirs[i];
		prog.run_start = gm_now_s();
		int r = gm_loader_load(&loader, dirs[i], &info);
		clear_progress(&prog);
		if (r) {
			if (info.interrupted || interrupted) {
				gm_error_clear();
				interrupted = 1;
			} else {
				gm_error_report(stderr);
				failed++;
			}
		} else if (info.outcome == GM_LOAD_SKIPPED) {
			skipped++;
			gm_note("note: '%s' (%s) is already in %s%s%s%s; skipped"
				" (--force reloads it)", dirs[i], info.label, out,
				strcmp(info.previous_path, dirs[i]) ? ", loaded from '" : "",
				strcmp(info.previous_path, dirs[i]) ? info.previous_path : "",
				strcmp(info.previous_path, dirs[i]) ? "'" : "");
		} else {
			if (info.outcome == GM_LOAD_REPLACED) {
				replaced++;
				gm_note("note: '%s' (%s) replaced the run loaded from '%s'",
					dirs[i], info.label, info.previous_path);
			} else {
				loaded++;
			}
			kernels += info.stretch || info.sweep ? 0 : info.kernels;
			records += info.kernels + info.memcpys + info.memsets +
				   info.apis;
			if (gm_cli.verbosity > 0 && info.sweep) {
				gm_note("loaded '%s' (resource sweep): %llu "
					"points", dirs[i],
					(unsigned long long)info.kernels);
			} else if (gm_cli.verbosity > 0 && info.stretch) {
				gm_note("loaded '%s' (SM-stretch curves): %llu "
					"points", dirs[i],
					(unsigned long long)info.kernels);
			} else if (gm_cli.verbosity > 0 && info.corun) {
				gm_note("loaded '%s' (%s): %llu GPU sections",
					dirs[i], info.label,
					(unsigned long long)info.sections);
			} else if (gm_cli.verbosity > 0) {
				gm_note("loaded '%s' (%s): %llu kernels, %llu copies,"
					" %llu memsets, %llu API calls, %llu replays",
					dirs[i], info.label,
					(unsigned long long)info.kernels,
					(unsigned long long)info.memcpys,
					(unsigned long long)info.memsets,
					(unsigned long long)info.apis,
					(unsigned long long)info.replays);
			}
		}
		gm_load_info_release(&info);
	}
	sigaction(SIGINT, &old_sa, NULL);
	/* The derived table follows the runs (doc/database.md, intervals). */
	if (!interrupted && gm_intervals_store(&db, &ci_method)) {
		gm_error_report(stderr);
		ret = GM_EXIT_ERROR;
	}

	strbuf_addf(&summary, "analyze: %zu run%s loaded", loaded + replaced,
		    loaded + replaced == 1 ? "" : "s");
	if (replaced) {
		strbuf_addf(&summary, " (%zu replacing older ones)", replaced);
	}
	strbuf_addf(&summary, ", %llu kernels, %llu records, into %s in %.1f s",
		    (unsigned long long)kernels, (unsigned long long)records,
		    out, gm_now_s() - t0);
	if (skipped) {
		strbuf_addf(&summary, "; %zu already loaded", skipped);
	}
	if (failed) {
		strbuf_addf(&summary, "; %zu failed", failed);
	}
	gm_loader_release(&loader);
	if (!loaded && !replaced && !skipped && db.created) {
		/* Nothing went in: no new, empty database (not even its schema). */
		if (gm_db_close_unused(&db)) {
			strbuf_addf(&summary, "; %s not created", out);
		}
	}
	gm_note("%s", summary.buf);
	strbuf_release(&summary);
	if (interrupted) {
		fprintf(stderr, "analyze: interrupted; the run being loaded was"
			" rolled back\n");
		ret = GM_EXIT_INTERRUPTED;
	} else if (failed) {
		ret = GM_EXIT_ERROR;
	}
out_close:
	gm_db_close(&db);
out_free:
	for (size_t i = 0; i < nr_dirs; i++) {
		free(dirs[i]);
	}
	free(dirs);
	return ret;
}
