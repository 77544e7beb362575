/* SPDX-License-Identifier: MIT */
/*
 * gpumix corun: run the original programs of a workload, each alone and
 * then all together as processes under each mechanism asked for, with the
 * co-run interposer measuring each program's GPU section, and write a
 * corun directory (doc/gpumix-corun.md): the native ground truth that the
 * replayed slowdowns are compared with.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "analyze/corun_slowdown.h"
#include "analyze/table.h"
#include "build/version.h"
#include "cli.h"
#include "corun/corun_dir.h"
#include "corun/corun_run.h"
#include "corun/plan.h"
#include "corun/program.h"
#include "error.h"
#include "fs.h"
#include "output_dir.h"
#include "study/stage_exec.h"
#include "tmp_name.h"
#include "variant.h"	/* GM_MPS_CONTROL */

static const char usage[] =
	"usage: gpumix corun -o <dir> [-k <n>] [--mechanism <list>] [--force]\n"
	"                    [--barrier-timeout <s>] [--time-limit <s>]"
	" [--dry-run]\n"
	"                    [--repetition <r>]\n"
	"                    <bundle | name=command>...";

static const char help[] =
	"\n"
	"Run the original programs of a workload, each alone and then all\n"
	"together as processes, and measure each program's GPU section (its\n"
	"first GPU operation to its last) with a light interposer; the\n"
	"programs' sections start together at a barrier. Each program's\n"
	"native slowdown is its co-run section over its alone section\n"
	"(doc/gpumix-corun.md).\n"
	"\n"
	"    <bundle>              a trace bundle: its program runs as it was\n"
	"                          captured (command line, directory and\n"
	"                          environment from its manifest)\n"
	"    <name>=<command>      a program given by hand, run by /bin/sh here\n"
	"    -o, --output <dir>    the corun directory to write\n"
	"    -k, --repeats <n>     alone and together runs each (default 5)\n"
	"    --mechanism <list>    how the processes share the GPU, from: %s\n"
	"                          (default: all; mps is skipped, with a note,\n"
	"                          where " GM_MPS_CONTROL " is missing)\n"
	"    --barrier-timeout <s> how long a program waits at the start\n"
	"                          barrier for its partners (default 120)\n"
	"    --time-limit <s>      stop a run's programs after <s> s (default:\n"
	"                          no limit)\n"
	"    --dry-run             print the plan, run nothing\n"
	"    --repetition <r>      this co-run is repetition <r> (0-based) of a\n"
	"                          study's (run.repetition in the manifest)\n"
	"    -f, --force           replace an existing <dir> (only a run"
	" directory\n"
	"                          gpumix wrote)\n"
	"    -h, --help            show this help\n"
	"\n"
	"The slowdowns are printed on stdout as a table.\n"
	"Environment: GPUMIX_CORUN_LIB overrides the path of"
	" libgpumix-corun.so;\n"
	"GPUMIX_MPS_TIMEOUT limits each step of the MPS daemon (default 20 s).\n"
	"\n"
	"exit status: 0 every run measured; 1 a program failed, was not\n"
	"measured or never reached the barrier (the corun directory says\n"
	"which, status = failed), or the co-run could not run; 2 usage error;\n"
	"130 interrupted.\n";

static void utc_now(char *buf, size_t len)
{
	time_t t = time(NULL);
	struct tm tm;

	gmtime_r(&t, &tm);
	strftime(buf, len, "%Y-%m-%dT%H:%M:%SZ", &tm);
}

static int parse_seconds(const char *s, double *out)
{
	char *end;
	double v = strtod(s, &end);

	if (*end || !(v >= 0)) {
		return -1;
	}
	*out = v;
	return 0;
}

/* A program argument: a bundle directory, else NAME=COMMAND. */
static int load_program(struct corun_program *p, const char *arg)
{
	char *m = gm_path_join(arg, "manifest");
	int bundle = gm_path_exists(m);

	free(m);
	if (bundle) {
		return corun_program_from_bundle(p, arg);
	}
	if (strchr(arg, '=')) {
		return corun_program_from_spec(p, arg);
	}
	return gm_error("'%s' is neither a trace bundle nor NAME=COMMAND", arg);
}

/* The slowdowns of @r per mechanism and program, on stdout. */
static void print_slowdowns(const struct corun_plan *plan,
			    const struct corun_program *progs,
			    const struct corun_results *r)
{
	static const char *const cols[] = {
		"mechanism", "program", "alone (ms)", "co-run (ms)", "slowdown",
		"sd", "min", "max", "runs", NULL,
	};
	double *alone = gm_xcalloc(r->nr + 1, sizeof(double));
	double *corun = gm_xcalloc(r->nr + 1, sizeof(double));
	struct gm_table t;
	struct strbuf sb = STRBUF_INIT;

	gm_table_init(&t, "corun", "Native slowdowns", cols);
	gm_table_caption(&t, "Each run's GPU section together over the mean "
			 "of the program's alone sections; the mean, standard "
			 "deviation and extremes over the runs.");
	for (size_t mi = 0; mi < plan->nr_mechs; mi++) {
		for (size_t p = 0; p < plan->nr_programs; p++) {
			struct gm_corun_slowdown s;
			size_t na = 0, nc = 0;
			for (size_t i = 0; i < r->nr; i++) {
				const struct corun_measure *m = &r->m[i];
				const struct corun_step *st = &plan->steps[m->step];
				double ns = (double)(m->end_ns - m->start_ns);
				if (m->program != p) {
					continue;
				}
				if (!st->mech) {
					alone[na++] = ns;
				} else if (st->mech == plan->mechs[mi]) {
					corun[nc++] = ns;
				}
			}
			if (!nc) {
				continue;
			}
			gm_corun_slowdown(alone, na, corun, nc, &s);
			gm_table_row(&t);
			gm_table_text(&t, 0, "%s", plan->mechs[mi]->name);
			gm_table_text(&t, 1, "%s", progs[p].name);
			gm_table_num(&t, 2, s.alone_ns / 1e6, 3);
			gm_table_num(&t, 3, s.corun_ns / 1e6, 3);
			gm_table_num(&t, 4, s.mean, 3);
			gm_table_num(&t, 5, s.sd, 3);
			gm_table_num(&t, 6, s.min, 3);
			gm_table_num(&t, 7, s.max, 3);
			gm_table_num(&t, 8, (double)s.n, 0);
		}
	}
	gm_table_markdown(&t, &sb, 1);
	fwrite(sb.buf, 1, sb.len, stdout);
	strbuf_release(&sb);
	gm_table_release(&t);
	free(alone);
	free(corun);
}

enum { OPT_MECH = 256, OPT_BARRIER, OPT_LIMIT, OPT_DRY, OPT_REP };

static const struct option corun_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "repeats", required_argument, NULL, 'k' },
	{ "mechanism", required_argument, NULL, OPT_MECH },
	{ "barrier-timeout", required_argument, NULL, OPT_BARRIER },
	{ "time-limit", required_argument, NULL, OPT_LIMIT },
	{ "dry-run", no_argument, NULL, OPT_DRY },
	{ "repetition", required_argument, NULL, OPT_REP },
	{ "force", no_argument, NULL, 'f' },
	{ NULL, 0, NULL, 0 },
};

const struct gm_cmd_options gm_corun_options = {
	.shorts = "o:k:f",
	.longopts = corun_longopts,
	.in_order = 1,
};

struct corun_cmd {
	const char *out;
	unsigned repeats;
	const char *mechanisms;
	double barrier_timeout_s, time_limit_s;
	int force, dry_run;
	unsigned repetition;
	int first;			/* argv index of the first program */
};

static int parse(struct corun_cmd *c, int argc, char **argv)
{
	struct gm_opt_parser op;
	int o;

	gm_opt_init(&op, &gm_corun_options, usage, argc, argv);
	while ((o = gm_opt_next(&op)) != GM_OPT_END) {
		char *end;
		switch (o) {
		case 'o':
			c->out = op.arg;
			break;
		case 'k':
			c->repeats = (unsigned)strtoul(op.arg, &end, 10);
			if (*end || !*op.arg || op.arg[0] == '-' || !c->repeats ||
			    c->repeats > CORUN_MAX_REPEATS) {
				return gm_usage_error(usage, "-k wants 1 to %d, "
						      "not '%s'",
						      CORUN_MAX_REPEATS, op.arg);
			}
			break;
		case OPT_MECH:
			c->mechanisms = op.arg;
			break;
		case OPT_BARRIER:
			if (parse_seconds(op.arg, &c->barrier_timeout_s) ||
			    !(c->barrier_timeout_s > 0)) {
				return gm_usage_error(usage, "--barrier-timeout "
						      "wants seconds above 0, "
						      "not '%s'", op.arg);
			}
			break;
		case OPT_LIMIT:
			if (parse_seconds(op.arg, &c->time_limit_s)) {
				return gm_usage_error(usage, "--time-limit wants "
						      "seconds, not '%s'", op.arg);
			}
			break;
		case OPT_DRY:
			c->dry_run = 1;
			break;
		case OPT_REP:
			c->repetition = (unsigned)strtoul(op.arg, &end, 10);
			if (*end || !*op.arg || op.arg[0] == '-' ||
			    c->repetition > 1000000) {
				return gm_usage_error(usage, "--repetition wants an "
						      "integer >= 0, not '%s'",
						      op.arg);
			}
			break;
		case 'f':
			c->force = 1;
			break;
		case 'h':
			printf("%s\n", usage);
			printf(help, corun_mechanism_list());
			return GM_EXIT_OK;
		default:
			return GM_EXIT_USAGE;
		}
	}
	if (argc - op.ind < 2) {
		return gm_usage_error(usage, "a co-run needs at least two "
				      "programs");
	}
	if (!c->out && !c->dry_run) {
		return gm_usage_error(usage, "where to? (-o <dir>)");
	}
	c->first = op.ind;
	return -1;	/* go on */
}

/*
 * The @nr programs of @args into @progs (unique names) and their names
 * into @names (borrowed from @progs). 0, or -1 with a cause.
 */
static int load_programs(struct corun_program *progs, const char **names,
			 size_t nr, char **args)
{
	for (size_t i = 0; i < nr; i++) {
		if (load_program(&progs[i], args[i])) {
			return -1;
		}
	}
	corun_programs_unique(progs, nr);
	for (size_t i = 0; i < nr; i++) {
		names[i] = progs[i].name;
	}
	return 0;
}

/*
 * The plan of @c for @nr programs into @plan, without the MPS mechanisms
 * where MPS is missing (said on stderr and kept in @skipped, @nskipped of
 * them, for the corun directory; the caller frees them). Returns 0, or
 * the exit status of a usage error (printed).
 */
static int build_plan(struct corun_cmd *c, struct corun_plan *plan, size_t nr,
		      char **skipped, size_t max_skipped, size_t *nskipped)
{
	int ret;

	if (!c->mechanisms) {
		c->mechanisms = corun_mechanism_list();
	}
	if (corun_plan_build(plan, nr, c->repeats, c->mechanisms)) {
		ret = gm_usage_error(usage, "%s", gm_error_message());
		gm_error_clear();
		return ret;
	}
	for (size_t i = 0; i < plan->nr_mechs;) {
		const struct gm_variant *m = plan->mechs[i];
		if (corun_mechanism_mps(m) && !gm_program_exists(GM_MPS_CONTROL) &&
		    *nskipped < max_skipped - 1) {
			skipped[(*nskipped)++] = gm_xasprintf(
				"%s: " GM_MPS_CONTROL " is not in PATH (no MPS "
				"on this machine)", m->name);
			gm_note("corun: skipping %s: " GM_MPS_CONTROL " is not in "
				"PATH (no MPS on this machine)", m->name);
			corun_plan_drop(plan, m);
			continue;
		}
		i++;
	}
	return 0;
}

/*
 * What the co-run of @c needs before it starts: leave to replace c->out
 * (only with --force, only a run directory), the interposer's absolute
 * path into *@lib, a new temporary directory beside c->out into *@tmp
 * and its absolute path into *@abs_tmp (the caller frees all three, set
 * or not). 0, or -1 with a cause.
 */
static int prepare(const struct corun_cmd *c, char **lib, char **tmp,
		   char **abs_tmp)
{
	if (gm_path_exists(c->out) && !c->force) {
		gm_error("'%s' already exists", c->out);
		gm_error_hint("use --force to replace it");
		return -1;
	}
	/* --force replaces a run directory, never what is not one. */
	if (gm_output_may_replace(c->out, GM_OUTPUT_RUN)) {
		return -1;
	}
	*lib = gm_cli_library("libgpumix-corun.so", "GPUMIX_CORUN_LIB");
	if (!gm_path_exists(*lib)) {
		gm_error("cannot find the co-run interposer '%s'", *lib);
		gm_error_hint("build it with 'make' or set GPUMIX_CORUN_LIB");
		return -1;
	}
	{
		/* CUDA loads it from the programs' own directories */
		char *abs = realpath(*lib, NULL);
		if (abs) {
			free(*lib);
			*lib = abs;
		}
	}
	*tmp = gm_tmp_name(c->out, "tmp");
	/* What killed co-runs of c->out left, then our own. */
	if (gm_tmp_remove_stale(c->out, GM_TMP_DEAD) < 0) {
		return -1;
	}
	gm_remove_tree(*tmp);
	if (gm_mkdir_p(*tmp, 0755) || gm_output_mark(*tmp, GM_OUTPUT_RUN)) {
		return -1;
	}
	/* the programs run in directories of their own */
	*abs_tmp = realpath(*tmp, NULL);
	if (!*abs_tmp) {
		gm_error_errno("cannot find '%s'", *tmp);
		return -1;
	}
	return 0;
}

/*
 * Co-run @progs of @workload as @plan says, in @tmp (@abs_tmp) with the
 * interposer @lib, into @r, then install the corun directory as c->out
 * and print the slowdowns. Returns the command's exit status (with the
 * cause recorded when not 0).
 */
static int execute(const struct corun_cmd *c, const struct corun_plan *plan,
		   const struct corun_program *progs, const char *workload,
		   const char *const *skipped, const char *lib,
		   const char *tmp, const char *abs_tmp,
		   struct corun_results *r)
{
	char started[32], finished[32];
	int rc;

	utc_now(started, sizeof(started));
	stage_exec_catch_signals();
	{
		struct corun_opts o = {
			lib, abs_tmp, c->barrier_timeout_s, c->time_limit_s,
			gm_cli.verbosity >= 0 ? stderr : NULL,
		};
		rc = corun_execute(plan, progs, &o, r);
	}
	stage_exec_restore_signals();
	utc_now(finished, sizeof(finished));
	if (rc) {
		gm_error("cannot co-run '%s'", workload);
		gm_remove_tree(tmp);
		return r->interrupted ? GM_EXIT_INTERRUPTED : GM_EXIT_ERROR;
	}
	{
		char *barriers = gm_path_join(tmp, "barrier");
		struct corun_dir_info info = {
			workload, progs, plan, r, skipped,
			c->barrier_timeout_s, started, finished, GM_VERSION_STRING,
			c->repetition,
		};
		gm_remove_tree(barriers);
		free(barriers);
		if (corun_dir_write(tmp, &info) ||
		    gm_output_may_replace(c->out, GM_OUTPUT_RUN) ||
		    gm_dir_install(tmp, c->out)) {
			gm_remove_tree(tmp);
			return GM_EXIT_ERROR;
		}
	}
	print_slowdowns(plan, progs, r);
	if (r->failure) {
		gm_error("co-run of '%s' failed: %s", workload, r->failure);
		gm_error_hint("the programs' output is in '%s/logs'", c->out);
		return GM_EXIT_ERROR;
	}
	gm_note("corun: %s: %zu runs measured into '%s'", workload, r->nr, c->out);
	return GM_EXIT_OK;
}

int cmd_corun(int argc, char **argv)
{
	struct corun_cmd c = { NULL, CORUN_DEFAULT_REPEATS, NULL, 120.0, 0, 0, 0,
				0, 0 };
	struct corun_program *progs = NULL;
	struct corun_plan plan = { 0 };
	struct corun_results r = { 0 };
	char *skipped[8] = { NULL }, *workload = NULL, *tmp = NULL, *lib = NULL;
	char *abs_tmp = NULL;
	const char **names = NULL;
	size_t nr, nskipped = 0;
	int ret = parse(&c, argc, argv), rc;

	if (ret >= 0) {
		return ret;
	}
	ret = GM_EXIT_ERROR;
	nr = (size_t)(argc - c.first);
	progs = gm_xcalloc(nr, sizeof(*progs));
	names = gm_xcalloc(nr, sizeof(*names));
	if (load_programs(progs, names, nr, argv + c.first)) {
		goto out;
	}
	workload = corun_workload_name(progs, nr);
	rc = build_plan(&c, &plan, nr, skipped,
			sizeof(skipped) / sizeof(skipped[0]), &nskipped);
	if (rc) {
		ret = rc;
		goto out_quiet;
	}
	if (c.dry_run) {
		corun_plan_print(&plan, names, stdout);
		ret = GM_EXIT_OK;
		goto out;
	}
	if (prepare(&c, &lib, &tmp, &abs_tmp)) {
		goto out;
	}
	ret = execute(&c, &plan, progs, workload, (const char *const *)skipped,
		      lib, tmp, abs_tmp, &r);
out:
	if (ret != GM_EXIT_OK && ret != GM_EXIT_USAGE) {
		gm_cli_fail();
	}
out_quiet:
	corun_results_release(&r);
	corun_plan_release(&plan);
	for (size_t i = 0; progs && i < nr; i++) {
		corun_program_release(&progs[i]);
	}
	for (size_t i = 0; i < nskipped; i++) {
		free(skipped[i]);
	}
	free(progs);
	free(names);
	free(workload);
	free(tmp);
	free(abs_tmp);
	free(lib);
	return ret;
}
