/* SPDX-License-Identifier: MIT */
/*
 * The study executor (see executor.h). Three phases: decide (input hashes
 * of every stage, compared with the state's records, lazily: a stage is
 * only looked at when a later one needs it), then run the stages in plan
 * order (captures, then each run's replay and analyze, its workload's
 * reconstruct first when the run is the first to need it, and the
 * profile before the first run that reads it, then the report), then
 * summarise.
 *
 * A workload is reconstructed once (record "reconstruct WORKLOAD", output
 * BUILDS/WORKLOAD): the generated program does not depend on the variant,
 * which each run chooses with `gpumix replay --variant`. The kernel
 * profile, when the study makes one, is exec_profile.c's; the plan and
 * the summary are printed by exec_output.c. The input hashes and the
 * decisions are exec_decide.c's, the stages' command lines
 * exec_stages.c's; the helpers they share exec_common.c's; this file
 * holds the order of execution and the entry point.
 *
 * Input hashes chain: a capture's hash covers the command line, working
 * directory and the executable's content; a reconstruct's covers its
 * programs' capture hashes and determinism, and --elastic when given; a
 * replay's covers the reconstruct's, the variant and policy, the replay
 * parameters and knob options that reach that variant, and the profile's
 * hash when it reads the profile; the profile's covers the alone runs'
 * replay hashes; an analyze's covers the replay's and the database path;
 * the report's covers every analyzed run. Changing anything upstream
 * therefore redoes exactly what depends on it.
 */
#include "exec_priv.h"

#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "clock.h"
#include "error.h"
#include "gnuplot_program.h"
#include "study_exe_fingerprint.h"
#include "fs.h"
#include "hash.h"
#include "kvfile.h"
#include "study_progress.h"
#include "stage_exec.h"
#include "strbuf.h"
#include "study_path.h"
#include "study_state.h"
#include "slurm.h"

/* Parent directory of @path (caller frees). */
static char *dir_of(const char *path)
{
	char *d = gm_xstrdup(path);
	char *slash = strrchr(d, '/');

	if (slash && slash != d) {
		*slash = '\0';
	} else if (slash) {
		slash[1] = '\0';
	}
	return d;
}

static int make_dirs(const struct study *s)
{
	const char *dirs[] = { s->paths.output, s->paths.logs, s->paths.bundles,
			       s->paths.builds, s->paths.runs };
	const char *files[] = { s->paths.database, s->paths.state,
				s->paths.summary, s->paths.report,
				s->paths.profile };

	for (size_t i = 0; i < sizeof(dirs) / sizeof(dirs[0]); i++) {
		if (gm_mkdir_p(dirs[i], 0755)) {
			return -1;
		}
	}
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		char *d = dir_of(files[i]);
		int ret = gm_mkdir_p(d, 0755);
		free(d);
		if (ret) {
			return -1;
		}
	}
	return 0;
}

static size_t count_finished(const struct exec_ctx *x)
{
	size_t n = 0;

	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		n += x->runs[i].status != RUN_PENDING;
	}
	return n;
}

static void plan_progress(struct exec_ctx *x)
{
	const struct study *s = x->s;

	study_progress_init(&x->pr, x->o->err, x->o->quiet);
	x->pr.runs_total = x->plan->nr_runs;
	x->pr.runs_done = count_finished(x);
	/* Durations recorded by earlier invocations seed the estimate. */
	for (size_t i = 0; i < x->st.nr; i++) {
		const struct state_record *r = &x->st.records[i];
		for (int k = 0; k < STUDY_NR_STAGES; k++) {
			size_t n = strlen(study_stage_name(k));
			if (!strncmp(r->id, study_stage_name(k), n) &&
			    (r->id[n] == ' ' || !r->id[n]) &&
			    strcmp(r->status, "running")) {
				study_progress_sample(&x->pr, k, r->seconds);
			}
		}
	}
	/* A job of a SLURM submission counts only the stages it runs. */
	enum study_task t = x->o->task;
	int whole = t == STUDY_TASK_NONE, prep = whole || t == STUDY_TASK_PREP;
	for (size_t i = 0; i < s->nr_programs && prep; i++) {
		if (x->progs[i].cap == CAP_TODO && x->progs[i].needed) {
			study_progress_plan(&x->pr, STUDY_STAGE_CAPTURE);
		}
	}
	for (size_t w = 0; w < x->plan->nr_workloads && prep; w++) {
		if (x->wls[w].state == BUILD_TODO) {
			study_progress_plan(&x->pr, STUDY_STAGE_RECONSTRUCT);
		}
	}
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const struct run_info *ri = &x->runs[i];
		int mine = t == STUDY_TASK_RUN &&
			   !strcmp(x->plan->runs[i].id, x->o->task_run);
		if (ri->conditional) {
			continue;	/* planned once needed */
		}
		if (ri->do_replay && (whole || mine)) {
			study_progress_plan(&x->pr,
					    plan_run_stage(&x->plan->runs[i]));
		}
		if (ri->do_analyze && (whole || (t == STUDY_TASK_FINISH &&
						 !ri->do_replay))) {
			study_progress_plan(&x->pr, STUDY_STAGE_ANALYZE);
		}
	}
	if (x->nr_stale && gm_path_exists(s->paths.database) &&
	    (whole || t == STUDY_TASK_FINISH)) {
		study_progress_plan(&x->pr, STUDY_STAGE_ANALYZE);
	}
	if (exec_profile_todo(x) && (whole || t == STUDY_TASK_PROFILE)) {
		study_progress_plan(&x->pr, STUDY_STAGE_PROFILE);
	}
	if (x->report_planned && (whole || t == STUDY_TASK_FINISH)) {
		study_progress_plan(&x->pr, STUDY_STAGE_REPORT);
	}
}

/*
 * The profile job of a study spread over SLURM nodes: make the kernel
 * profile, once every alone run is replayed (by the array before it).
 */
static int execute_profile_task(struct exec_ctx *x)
{
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const struct plan_run *run = &x->plan->runs[i];
		if (exec_profile_input(x, i) && x->runs[i].do_replay) {
			return gm_error("run '%s' is not replayed yet: the profile "
					"needs every single run of the first "
					"repetition", run->id);
		}
	}
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		if (x->runs[i].do_replay && exec_profile_needed_by(x, i)) {
			return exec_profile_ensure(x, i);
		}
	}
	return 0;
}

/* Run every stage to do; 0, 1 (interrupted) or -1. */
static int execute(struct exec_ctx *x)
{
	const struct study *s = x->s;
	enum study_task task = x->o->task;
	int ret;

	if (task == STUDY_TASK_PROFILE) {
		return execute_profile_task(x);
	}
	/* The loader of the study (not a SLURM node's job) does it. */
	if ((task == STUDY_TASK_NONE || task == STUDY_TASK_FINISH) &&
	    (ret = exec_stale_forget(x))) {
		return ret;
	}
	for (size_t i = 0; i < s->nr_programs; i++) {
		if (task != STUDY_TASK_NONE && task != STUDY_TASK_PREP) {
			break;
		}
		if (x->progs[i].cap == CAP_TODO && x->progs[i].needed) {
			if ((ret = exec_capture(x, i))) {
				return ret;
			}
		}
	}
	x->executing = 1;
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		if (task == STUDY_TASK_RUN &&
		    strcmp(x->plan->runs[i].id, x->o->task_run)) {
			continue;
		}
		if ((ret = exec_execute_run(x, i))) {
			exec_wait_replays(x);
			return ret;
		}
	}
	if ((ret = exec_wait_replays(x))) {
		return ret;
	}
	if (task != STUDY_TASK_NONE && task != STUDY_TASK_FINISH) {
		return 0;
	}
	if (x->report_planned) {
		study_progress_drop(&x->pr, STUDY_STAGE_REPORT);
	}
	int need = exec_report_needed(x, 0);
	if (need == 1) {
		study_progress_plan(&x->pr, STUDY_STAGE_REPORT);
		return exec_report(x);
	}
	return 0;
}

/* ---- entry point ---- */

/*
 * The report's figures need gnuplot. A study that finds none still writes
 * its tables and each figure's data and script, to be drawn where
 * gnuplot is (hours of GPU runs should not end in a failed report; GPU
 * hosts often lack it), and says so before anything runs.
 */
static void check_gnuplot(struct exec_ctx *x)
{
	const char *g = gm_gnuplot_program();

	if (gm_program_exists(g)) {
		return;
	}
	x->figure_scripts = 1;
	gm_warning("'%s' was not found: the report will have its tables and "
		   "its figures' data and gnuplot scripts, not the figures "
		   "(install gnuplot-nox, or set GPUMIX_GNUPLOT)", g);
}

/*
 * A variant that starts an MPS control daemon (mps): without one in PATH
 * its runs fail (each with the reason). Said before anything runs.
 */
static void check_mps(struct exec_ctx *x)
{
	for (size_t i = 0; i < x->s->nr_variants; i++) {
		const struct gm_variant *v = x->s->variants[i];
		if ((v->flags & GM_VARIANT_MPS_DAEMON) &&
		    !gm_program_exists(GM_MPS_CONTROL)) {
			gm_warning("'%s' is not in PATH: the runs of variant "
				   "'%s' will fail (doc/mps.md)",
				   GM_MPS_CONTROL, v->name);
		}
	}
	for (size_t i = 0; x->s->corun_repeats && i < x->s->nr_corun_mechs; i++) {
		const struct gm_variant *v = x->s->corun_mechs[i];
		if ((v->flags & GM_VARIANT_MPS_DAEMON) &&
		    !gm_program_exists(GM_MPS_CONTROL)) {
			gm_warning("'%s' is not in PATH: the co-runs skip '%s' and "
				   "its one-shot replays fail (doc/gpumix-corun.md)",
				   GM_MPS_CONTROL, v->name);
		}
	}
}

static void ctx_release(struct exec_ctx *x)
{
	if (x->progs) {
		for (size_t i = 0; i < x->s->nr_programs; i++) {
			free(x->progs[i].reason);
			free(x->progs[i].log);
		}
	}
	if (x->runs) {
		for (size_t i = 0; i < x->plan->nr_runs; i++) {
			free(x->runs[i].reason);
			free(x->runs[i].log);
			free(x->runs[i].rundir);
		}
	}
	if (x->wls) {
		for (size_t w = 0; w < x->plan->nr_workloads; w++) {
			free(x->wls[w].reason);
			free(x->wls[w].log);
			free(x->wls[w].build);
		}
	}
	free(x->wls);
	free(x->progs);
	free(x->runs);
	free(x->report_reason);
	free(x->report_log);
	exec_profile_release(x);
	exec_precision_release(x);
	exec_pool_release(x);
	exec_stale_release(x);
	study_state_release(&x->st);
}

int study_execute(const struct study *s, const struct study_plan *plan,
		  const struct study_run_opts *o, struct study_outcome *out)
{
	struct exec_ctx x;
	int ret = -1;

	memset(&x, 0, sizeof(x));
	memset(out, 0, sizeof(*out));
	x.s = s;
	x.plan = plan;
	x.o = o;
	x.out = out;
	x.start = gm_now_s();
	x.st.lock_fd = -1;
	x.progs = gm_xcalloc(s->nr_programs ? s->nr_programs : 1,
			     sizeof(*x.progs));
	x.runs = gm_xcalloc(plan->nr_runs ? plan->nr_runs : 1, sizeof(*x.runs));
	x.wls = gm_xcalloc(plan->nr_workloads ? plan->nr_workloads : 1,
			   sizeof(*x.wls));
	if (exec_parse_kill_hook(&x)) {
		goto out;
	}
	if (!o->dry_run && access(o->exec, X_OK)) {
		gm_error_errno("cannot run stages with '%s'", o->exec);
		gm_error_hint("%s names the gpumix binary used for stages",
			      STUDY_EXEC_ENV);
		goto out;
	}
	if (!o->dry_run && make_dirs(s)) {
		goto out;
	}
	if (study_state_load(&x.st, s->paths.state, s->name)) {
		goto out;
	}
	x.st.seed = s->seed;	/* recorded with the next save */
	x.st.have_seed = 1;
	x.st.wait_lock = o->task != STUDY_TASK_NONE;
	if (o->task == STUDY_TASK_RUN) {
		/* Beside the other tasks, never beside a whole study. */
		if (study_state_lock_shared(&x.st)) {
			goto out;
		}
		if (!plan_find_run(plan, o->task_run)) {
			gm_error("study '%s' has no run '%s'", s->name, o->task_run);
			goto out;
		}
	} else if (!o->dry_run && study_state_lock(&x.st)) {
		goto out;
	}
	if (!o->dry_run && !o->slurm && o->task == STUDY_TASK_NONE &&
	    study_slurm_check_idle(s)) {
		goto out;
	}
	check_gnuplot(&x);
	check_mps(&x);
	if (exec_decide(&x)) {
		goto out;
	}
	if (o->slurm) {
		ret = exec_slurm_submit(&x);
		goto out;
	}
	if (o->dry_run) {
		exec_print_plan(&x);
		exec_count_outcome(&x);
		ret = 0;
		goto out;
	}
	plan_progress(&x);
	exec_pool_init(&x);
	stage_exec_catch_signals();
	int r = execute(&x);
	stage_exec_restore_signals();
	study_progress_finish(&x.pr);
	out->seconds = gm_now_s() - x.start;
	if (r == 1) {
		out->interrupted = stage_exec_interrupted();
		if (!out->interrupted) {
			out->interrupted = SIGINT;
		}
	}
	for (size_t i = 0; i < plan->nr_runs; i++) {
		out->to_replay += x.runs[i].do_replay;
	}
	/* A task has written its record; it writes no state, no summary. */
	if (o->task == STUDY_TASK_RUN) {
		exec_count_outcome(&x);
		ret = r == -1 ? -1 : 0;
		goto out;
	}
	/* Save what is known even after an error, then summarise. */
	if (study_state_save(&x.st) && r != -1) {
		r = -1;
	}
	if (r == -1) {
		goto out;
	}
	ret = exec_write_summary(&x);
out:
	ctx_release(&x);
	return ret;
}
