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
#include "study/executor.h"
#include "study/plan.h"
#include "study/study_progress.h"
#include "study/study.h"
#include "strbuf.h"
#include "study/study_path.h"

static const char usage[] =
	"usage: gpumix run [--dry-run] [--retry-failed] [-o <dir>] <file.yaml>";

static const char help[] =
	"\n"
	"Run the study described by <file.yaml> (doc/study-yaml.md): capture\n"
	"each program once, reconstruct each workload once and replay it\n"
	"under every variant (and policy), make the kernel profile of the\n"
	"single runs for the elastic runs, load each run into the database as\n"
	"it finishes and write the report. Interrupted (Ctrl-C, SIGTERM, even\n"
	"SIGKILL), the same command continues where it stopped; finished\n"
	"stages are not repeated. A failed or hung run is recorded with its\n"
	"reason and the study goes on.\n"
	"\n"
	"    --dry-run       print the plan: programs, builds (one per\n"
	"                    workload), the profile, runs (workloads x\n"
	"                    variants), which captures are missing, what is\n"
	"                    still to do\n"
	"    --retry-failed  run failed and hung stages again\n"
	"    -o <dir>        put the study's outputs under <dir> (paths.output)\n"
	"\n"
	"The plan and the summary go to stdout (the summary is also written to\n"
	"paths.summary); progress goes to stderr.\n"
	"\n"
	"environment:\n"
	"    " STUDY_EXEC_ENV "  the gpumix binary used for stages (default:\n"
	"                       this one)\n"
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
	char t[32];
	char *sum = study_path_display(s->paths.summary);

	study_progress_format_duration(t, sizeof(t), o->seconds);
	gm_note("study '%s': %zu runs: %zu ok, %zu failed, %zu hung, %zu "
		"skipped%s in %s; summary in %s", s->name, o->runs, o->ok,
		o->failed, o->hung, o->skipped,
		o->pending ? ", some not run yet" : "", t, sum);
	if (o->interrupted) {
		gm_note("interrupted: run the same command to continue");
	}
	free(sum);
}

int cmd_run(int argc, char **argv)
{
	struct study_run_opts opts = { 0 };
	struct study s;
	struct study_plan plan;
	struct study_outcome out;
	const char *output = NULL, *file = NULL;
	int i, ret;

	for (i = 1; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			printf("%s\n%s", usage, help);
			return GM_EXIT_OK;
		} else if (!strcmp(a, "--dry-run") || !strcmp(a, "-n")) {
			opts.dry_run = 1;
		} else if (!strcmp(a, "--retry-failed")) {
			opts.retry_failed = 1;
		} else if (!strcmp(a, "-o") || !strcmp(a, "--output")) {
			if (++i == argc) {
				return gm_usage_error(usage, "'%s' needs a directory", a);
			}
			output = argv[i];
		} else if (!strcmp(a, "--")) {
			i++;
			break;
		} else if (a[0] == '-' && a[1]) {
			return gm_usage_error(usage, "unknown option '%s'", a);
		} else {
			break;
		}
	}
	if (i == argc) {
		return gm_usage_error(usage, "no study file given");
	}
	file = argv[i];
	if (i + 1 < argc) {
		return gm_usage_error(usage, "one study file only ('%s' is extra)",
				      argv[i + 1]);
	}
	opts.quiet = gm_cli.verbosity < 0;
	opts.out = stdout;
	opts.err = stderr;

	if (study_load(&s, file, output)) {
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
	char *exec = opts.dry_run ? gm_xstrdup("gpumix") : stage_exec_path();
	if (!exec) {
		ret = gm_cli_fail();
		goto out;
	}
	opts.exec = exec;
	if (study_execute(&s, &plan, &opts, &out)) {
		ret = gm_cli_fail();
	} else if (opts.dry_run) {
		ret = GM_EXIT_OK;
	} else {
		one_line_summary(&s, &out);
		if (out.interrupted) {
			ret = GM_EXIT_INTERRUPTED;
		} else if (out.failed || out.hung || out.skipped || out.pending ||
			   out.report_failed) {
			ret = GM_EXIT_ERROR;
		} else {
			ret = GM_EXIT_OK;
		}
	}
	free(exec);
out:
	study_plan_release(&plan);
	study_release(&s);
	return ret;
}
