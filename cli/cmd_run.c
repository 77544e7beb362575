/* SPDX-License-Identifier: MIT */
/*
 * gpumix run: run a whole study described by a YAML file (study/), or
 * with --dry-run print its plan. Each stage runs as a child process of
 * the gpumix binary itself (or of $GPUMIX_STUDY_EXEC), so a crashed or
 * hung stage is recorded and the study goes on; the study state makes
 * the same command continue where an interrupted study stopped.
 */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cli.h"
#include "error.h"
#include "fs.h"
#include "study/executor.h"
#include "study/gpu_list.h"
#include "study/slurm.h"
#include "study/plan.h"
#include "study/study_progress.h"
#include "study/study.h"
#include "strbuf.h"
#include "study/study_path.h"

static const char usage[] =
	"usage: gpumix run [-n | --dry-run] [--retry-failed] [-o <dir>] [--gpus <which>]\n"
	"                  [--slurm [--partition <p>] [--gres <g>] [--status]]\n"
	"                  <file.yaml>";

static const char help[] =
	"\n"
	"Run the study described by <file.yaml> (doc/study-yaml.md): capture\n"
	"each program once, reconstruct each workload once and replay it\n"
	"under every variant (and policy), 'repeats' times (3 by default,\n"
	"each repetition a replay of its own, in an order shuffled with the\n"
	"study's 'seed'), make the kernel profile of the first repetition's\n"
	"single runs for the elastic runs, load each run into the database as\n"
	"it finishes and write the report. Interrupted (Ctrl-C, SIGTERM, even\n"
	"SIGKILL), the same command continues where it stopped; finished\n"
	"stages are not repeated. A failed or hung run is recorded with its\n"
	"reason and the study goes on.\n"
	"\n"
	"    -n, --dry-run   print the plan: programs, builds (one per\n"
	"                    workload), the profile, runs (workloads x\n"
	"                    variants x repetitions, in the order they run),\n"
	"                    which captures are missing, what is still to do\n"
	"    --retry-failed  run failed and hung stages again\n"
	"    -o, --output <dir>\n"
	"                    put the study's outputs under <dir> (paths.output)\n"
	"    --gpus <which>  replay side by side on GPUs of this node, one run\n"
	"                    per GPU: 'all', a number N (the first N) or a list\n"
	"                    of indexes (0,2,3), as nvidia-smi numbers them\n"
	"    --slurm         submit the stages still to do to SLURM (sbatch):\n"
	"                    a prep job, a job array of the runs, the profile,\n"
	"                    a finish job (analyze, report); again: resume\n"
	"    --partition <p> --gres <g>\n"
	"                    passed to sbatch (e.g. --gres gpu:1)\n"
	"    --status        with --slurm: show the jobs of the last submission\n"
	"\n"
	"The plan and the summary go to stdout (the summary is also written to\n"
	"paths.summary); progress goes to stderr.\n"
	"\n"
	"environment:\n"
	"    " STUDY_EXEC_ENV "  the gpumix binary used for stages (default:\n"
	"                       this one)\n"
	"    " GPU_LIST_SMI_ENV "  nvidia-smi, to list the GPUs (--gpus)\n"
	"    " SLURM_SBATCH_ENV ", " SLURM_SQUEUE_ENV ", " SLURM_SACCT_ENV "\n"
	"                       sbatch, squeue, sacct (--slurm)\n"
	"\n"
	"exit status: 0 every run ok and the report written; 1 an error, or a\n"
	"run failed, hung or was skipped; 2 usage error; 130 interrupted.\n";

/* The gpumix binary that runs the stages (caller frees). */
static char *stage_exec_path(void)
{
	const char *env = getenv(STUDY_EXEC_ENV);
	char buf[PATH_MAX];

	if (env && *env) {
		return gm_xstrdup(env);
	}
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	if (n <= 0) {
		gm_error_errno("cannot find the gpumix binary (/proc/self/exe)");
		gm_error_hint("set %s to the gpumix binary", STUDY_EXEC_ENV);
		return NULL;
	}
	buf[n] = '\0';
	return gm_xstrdup(buf);
}

static void one_line_summary(const struct study *s,
			     const struct study_outcome *o)
{
	char t[32], more[64] = "";
	char *sum = study_path_display(s->paths.summary);

	study_progress_format_duration(t, sizeof(t), o->seconds);
	if (o->not_needed) {
		snprintf(more, sizeof(more), ", %zu not needed", o->not_needed);
	}
	gm_note("study '%s': %zu runs: %zu ok, %zu failed, %zu hung, %zu "
		"skipped%s%s in %s; summary in %s", s->name, o->runs, o->ok,
		o->failed, o->hung, o->skipped, more,
		o->pending ? ", some not run yet" : "", t, sum);
	if (o->interrupted) {
		gm_note("interrupted: run the same command to continue");
	}
	free(sum);
}

/*
 * The hidden --task WHAT of a job of a SLURM submission (study/slurm.h):
 * prep, profile, finish, run:RUN, or list:FILE (the run on line
 * $SLURM_ARRAY_TASK_ID of FILE, from 0). *@run is set for the last two
 * (caller frees). 0 or -1.
 */
static int parse_task(const char *what, enum study_task *t, char **run)
{
	static const struct { const char *name; enum study_task t; } tasks[] = {
		{ "prep", STUDY_TASK_PREP },
		{ "profile", STUDY_TASK_PROFILE },
		{ "finish", STUDY_TASK_FINISH },
	};

	for (size_t i = 0; i < sizeof(tasks) / sizeof(tasks[0]); i++) {
		if (!strcmp(what, tasks[i].name)) {
			*t = tasks[i].t;
			return 0;
		}
	}
	*t = STUDY_TASK_RUN;
	if (!strncmp(what, "run:", 4) && what[4]) {
		*run = gm_xstrdup(what + 4);
		return 0;
	}
	if (strncmp(what, "list:", 5)) {
		return gm_error("--task '%s': expected prep, profile, finish, "
				"run:RUN or list:FILE", what);
	}
	const char *idx = getenv("SLURM_ARRAY_TASK_ID");
	char *end;
	unsigned long n = idx ? strtoul(idx, &end, 10) : 0;
	if (!idx || !*idx || *end) {
		return gm_error("--task %s: SLURM_ARRAY_TASK_ID is not set to a "
				"number ('%s')", what, idx ? idx : "");
	}
	struct strbuf sb = STRBUF_INIT;
	if (gm_read_file(what + 5, &sb)) {
		strbuf_release(&sb);
		return -1;
	}
	const char *p = sb.buf;
	for (unsigned long i = 0; i < n && p; i++) {
		p = strchr(p, '\n');
		p = p ? p + 1 : NULL;
	}
	if (!p || !*p) {
		strbuf_release(&sb);
		return gm_error("%s has no line %lu (SLURM_ARRAY_TASK_ID)",
				what + 5, n);
	}
	*run = gm_xasprintf("%.*s", (int)strcspn(p, "\n"), p);
	strbuf_release(&sb);
	return 0;
}

/* This gpumix binary, absolute (caller frees). */
static char *self_path(void)
{
	char buf[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);

	if (n <= 0) {
		gm_error_errno("cannot find the gpumix binary (/proc/self/exe)");
		return NULL;
	}
	buf[n] = '\0';
	return gm_xstrdup(buf);
}

enum { OPT_RETRY = 256, OPT_GPUS, OPT_PARTITION, OPT_GRES, OPT_TASK,
       OPT_SLURM, OPT_STATUS };

static const struct option run_longopts[] = {
	{ "dry-run", no_argument, NULL, 'n' },
	{ "retry-failed", no_argument, NULL, OPT_RETRY },
	{ "output", required_argument, NULL, 'o' },
	{ "gpus", required_argument, NULL, OPT_GPUS },
	{ "slurm", no_argument, NULL, OPT_SLURM },
	{ "partition", required_argument, NULL, OPT_PARTITION },
	{ "gres", required_argument, NULL, OPT_GRES },
	{ "status", no_argument, NULL, OPT_STATUS },
	/* Internal: one stage of a --slurm submission (study/slurm.c). */
	{ "task", required_argument, NULL, OPT_TASK },
	{ NULL, 0, NULL, 0 },
};

const struct gm_cmd_options gm_run_options = {
	.shorts = "no:",
	.longopts = run_longopts,
};

/* The command line of gpumix run. */
struct run_cmd {
	struct study_run_opts opts;
	struct slurm_opts so;
	const char *output, *file, *gpu_spec, *task;
	int slurm, status;
};

/*
 * The command line into @r. Returns 0 to go on, -1 after --help, or the
 * exit status of a usage error (printed).
 */
static int parse(int argc, char **argv, struct run_cmd *r)
{
	struct gm_opt_parser op;
	int c, i;

	gm_opt_init(&op, &gm_run_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		switch (c) {
		case GM_OPT_HELP:
			printf("%s\n%s", usage, help);
			return -1;
		case 'n':
			r->opts.dry_run = 1;
			break;
		case OPT_RETRY:
			r->opts.retry_failed = 1;
			break;
		case 'o':
			r->output = op.arg;
			break;
		case OPT_GPUS:
		case OPT_PARTITION:
		case OPT_GRES:
		case OPT_TASK:
			if (!*op.arg) {
				return gm_usage_error(usage, "'--%s' needs a value",
						      c == OPT_GPUS ? "gpus" :
						      c == OPT_PARTITION ? "partition" :
						      c == OPT_GRES ? "gres" : "task");
			}
			*(c == OPT_GPUS ? &r->gpu_spec : c == OPT_PARTITION ?
			  &r->so.partition : c == OPT_GRES ? &r->so.gres :
			  &r->task) = op.arg;
			break;
		case OPT_SLURM:
			r->slurm = 1;
			break;
		case OPT_STATUS:
			r->status = 1;
			break;
		default:
			return GM_EXIT_USAGE;
		}
	}
	i = op.ind;
	if (i == argc) {
		return gm_usage_error(usage, "no study file given");
	}
	r->file = argv[i];
	if (i + 1 < argc) {
		return gm_usage_error(usage, "one study file only ('%s' is extra)",
				      argv[i + 1]);
	}
	return 0;
}

/* Whether the options of @r go together: 0, or a usage error's status. */
static int check_opts(const struct run_cmd *r)
{
	if ((r->so.partition || r->so.gres || r->status) && !r->slurm) {
		return gm_usage_error(usage, "--partition, --gres and --status "
				      "go with --slurm");
	}
	if (r->slurm && (r->gpu_spec || r->task || r->opts.dry_run)) {
		return gm_usage_error(usage, "--slurm does not go with %s",
				      r->gpu_spec ? "--gpus (SLURM gives each task "
				      "its GPU: --gres)" : r->task ? "--task" :
				      "--dry-run");
	}
	if (r->task && (r->gpu_spec || r->opts.dry_run)) {
		return gm_usage_error(usage, "--task does not go with %s",
				      r->gpu_spec ? "--gpus" : "--dry-run");
	}
	return 0;
}

/*
 * The exit status of a study that executed with @opts (@slurm: submitted
 * to SLURM) and came to @out; a whole study's run also prints its
 * one-line summary.
 */
static int outcome_status(const struct study *s,
			  const struct study_run_opts *opts, int slurm,
			  const struct study_outcome *out)
{
	if (opts->dry_run || slurm) {
		return GM_EXIT_OK;
	}
	if (opts->task == STUDY_TASK_RUN) {
		return out->interrupted ? GM_EXIT_INTERRUPTED :
		       out->failed || out->hung ? GM_EXIT_ERROR : GM_EXIT_OK;
	}
	if (opts->task == STUDY_TASK_PREP || opts->task == STUDY_TASK_PROFILE) {
		return out->interrupted ? GM_EXIT_INTERRUPTED : GM_EXIT_OK;
	}
	one_line_summary(s, out);
	if (out->interrupted) {
		return GM_EXIT_INTERRUPTED;
	}
	if (out->failed || out->hung || out->skipped || out->pending ||
	    out->report_failed) {
		return GM_EXIT_ERROR;
	}
	return GM_EXIT_OK;
}

/*
 * Do what @r asks of the loaded study @s and its @plan (on @gpus when it
 * names some): show the SLURM status, submit, print the plan or run.
 * Returns the command's exit status.
 */
static int execute(struct study *s, struct study_plan *plan,
		   struct run_cmd *r, const struct gpu_list *gpus)
{
	struct study_outcome out;
	char *self = NULL, *abs_file = NULL, *exec;
	int ret;

	if (r->status) {
		return study_slurm_status(s, stdout) ? gm_cli_fail() : GM_EXIT_OK;
	}
	if (r->slurm) {
		abs_file = realpath(r->file, NULL);
		self = self_path();
		if (!abs_file || !self) {
			if (!abs_file) {
				gm_error_errno("cannot resolve '%s'", r->file);
			}
			ret = gm_cli_fail();
			goto out;
		}
		r->so.self = self;
		r->so.file = abs_file;
		r->opts.slurm = &r->so;
	}
	for (size_t g = 0; g < gpus->nr; g++) {
		char *d = gpu_info_describe(&gpus->v[g]);
		gm_note("gpu %s", d);
		free(d);
	}
	exec = r->opts.dry_run ? gm_xstrdup("gpumix") : stage_exec_path();
	if (!exec) {
		ret = gm_cli_fail();
		goto out;
	}
	r->opts.exec = exec;
	if (study_execute(s, plan, &r->opts, &out)) {
		ret = gm_cli_fail();
	} else {
		ret = outcome_status(s, &r->opts, r->slurm, &out);
	}
	free(exec);
out:
	free(self);
	free(abs_file);
	return ret;
}

int cmd_run(int argc, char **argv)
{
	struct run_cmd r = { 0 };
	struct study s;
	struct study_plan plan;
	struct gpu_list gpus = GPU_LIST_INIT;
	char *task_run = NULL;
	int ret;

	ret = parse(argc, argv, &r);
	if (ret) {
		return ret < 0 ? GM_EXIT_OK : ret;
	}
	ret = check_opts(&r);
	if (ret) {
		return ret;
	}
	if (r.gpu_spec && r.opts.dry_run) {
		r.gpu_spec = NULL;	/* the plan does not depend on it */
	}
	r.opts.quiet = gm_cli.verbosity < 0;
	r.opts.out = stdout;
	r.opts.err = stderr;
	if (r.task && parse_task(r.task, &r.opts.task, &task_run)) {
		return gm_cli_fail();
	}
	r.opts.task_run = task_run;
	if (r.gpu_spec) {
		if (gpu_list_choose(&gpus, r.gpu_spec)) {
			gpu_list_release(&gpus);
			free(task_run);
			return gm_cli_fail();
		}
		r.opts.gpus = &gpus;
	}

	if (study_load(&s, r.file, r.output)) {
		study_release(&s);
		return gm_cli_fail();
	}
	if (study_plan_build(&plan, &s)) {
		study_plan_release(&plan);
		study_release(&s);
		return gm_cli_fail();
	}
	for (size_t w = 0; w < s.nr_warnings; w++) {
		gm_warning("%s", s.warnings[w]);
	}
	ret = execute(&s, &plan, &r, &gpus);
	study_plan_release(&plan);
	study_release(&s);
	gpu_list_release(&gpus);
	free(task_run);
	return ret;
}
