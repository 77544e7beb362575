/* SPDX-License-Identifier: MIT */
/*
 * Running the study's stages (see exec_priv.h): the captures, then each
 * run's stages in turn (its workload's reconstruct, the precision
 * target's gate, the kernel profile before the first run that reads it,
 * its replay or co-run, its analyze), and the report. Each stage runs
 * through exec_stage.c; with --gpus the replays run in exec_pool.c, which
 * hands every one that ends back to replay_ended() here.
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
#include "study_exe_fingerprint.h"
#include "fs.h"
#include "hash.h"
#include "kvfile.h"
#include "study_progress.h"
#include "stage_exec.h"
#include "strbuf.h"
#include "study_path.h"
#include "study_state.h"

int exec_capture(struct exec_ctx *x, size_t i)
{
	const struct study_program *p = &x->s->programs[i];
	struct prog_info *pi = &x->progs[i];
	struct exec_argv a = { 0 };
	struct stage_result res;
	char *log = exec_log_path(x, STUDY_STAGE_CAPTURE, p->name);
	char *label = gm_xasprintf("%s: capture", p->name);
	int ret;

	exec_argv_push(&a, x->o->exec);
	exec_argv_push(&a, "capture");
	exec_argv_push(&a, "-o");
	exec_argv_push(&a, p->bundle);
	if (gm_path_exists(p->bundle)) {
		exec_argv_push(&a, "--force");
	}
	exec_argv_push(&a, "--");
	for (size_t j = 0; j < p->argc; j++) {
		exec_argv_push(&a, p->argv[j]);
	}
	ret = exec_run_stage(x, STUDY_STAGE_CAPTURE, label, &a, p->cwd, log, &res);
	if (ret == 0) {
		char *why = exec_stage_failure(x, &res, log);
		if (!why && !exec_has_manifest(p->bundle)) {
			why = gm_xstrdup("gpumix capture wrote no bundle manifest");
		}
		pi->cap = why ? CAP_FAILED : CAP_UP_TO_DATE;
		if (why) {
			pi->reason = why;
			pi->log = gm_xstrdup(log);
		}
		ret = exec_finish_stage(x, STUDY_STAGE_CAPTURE, p->name, pi->key,
				   why ? "failed" : "done", why, &res);
	}
	exec_argv_release(&a);
	free(log);
	free(label);
	return ret;
}

char *exec_run_label(const struct exec_ctx *x, size_t i, enum study_stage k)
{
	const struct plan_run *run = &x->plan->runs[i];
	const char *wname = x->plan->workloads[run->workload].name;
	char rep[32] = "";

	if (x->plan->nr_repetitions > 1) {
		snprintf(rep, sizeof(rep), " (repetition %u/%u)",
			 run->repetition + 1, x->plan->nr_repetitions);
	}
	if (!run->variant) {
		return gm_xasprintf("%s%s: %s", wname, rep, study_stage_name(k));
	}
	char *label = gm_variant_label(run->variant->name, run->policy, NULL,
				       run->kind == PLAN_ONE_SHOT);
	char *s = gm_xasprintf("%s %s%s: %s", wname, label, rep,
			       study_stage_name(k));
	free(label);
	return s;
}

/*
 * Reconstruct workload @w into its build directory (no --variant: the
 * program is the same for every variant, each replay chooses its own).
 * On failure its build is marked failed; the runs that need it are
 * failed by fail_workload_runs().
 */
static int reconstruct(struct exec_ctx *x, size_t w)
{
	const struct plan_workload *wl = &x->plan->workloads[w];
	struct wl_info *wi = &x->wls[w];
	struct exec_argv a = { 0 };
	struct stage_result res;
	char *log = exec_log_path(x, STUDY_STAGE_RECONSTRUCT, wl->name);
	char *label = gm_xasprintf("%s: %s", wl->name,
				   study_stage_name(STUDY_STAGE_RECONSTRUCT));
	int ret;

	if (exec_remove_output(wi->build, GM_OUTPUT_BUILD)) {
		ret = -1;
		goto out;
	}
	exec_argv_push(&a, x->o->exec);
	exec_argv_push(&a, "reconstruct");
	exec_argv_push(&a, "-o");
	exec_argv_push(&a, wi->build);
	if (study_needs_elastic(x->s)) {
		exec_argv_push(&a, "--elastic");
	}
	for (size_t j = 0; j < wl->nr; j++) {
		const struct study_program *p = &x->s->programs[wl->progs[j]];
		if (!p->deterministic) {
			exec_argv_push(&a, "--nondeterministic");
			exec_argv_push(&a, p->name);
		}
	}
	for (size_t j = 0; j < wl->nr; j++) {
		exec_argv_push(&a, x->s->programs[wl->progs[j]].bundle);
	}
	ret = exec_run_stage(x, STUDY_STAGE_RECONSTRUCT, label, &a, x->s->root, log,
			&res);
	if (ret == 0) {
		char *why = exec_stage_failure(x, &res, log);
		wi->state = why ? BUILD_FAILED : BUILD_UP_TO_DATE;
		if (why) {
			free(wi->reason);
			free(wi->log);
			wi->reason = gm_xstrdup(why);
			wi->log = gm_xstrdup(log);
		}
		ret = exec_finish_stage(x, STUDY_STAGE_RECONSTRUCT, wl->name,
				   wi->rkey, why ? "failed" : "done", why, &res);
		free(why);
	}
out:
	exec_argv_release(&a);
	free(log);
	free(label);
	return ret;
}

/*
 * The outcome of a replay (or co-run, @kind): the run manifest's status
 * and failure when it has one (the replay runtime's own verdict, or the
 * co-run's: ok or failed), else the stage's exit.
 */
static const char *replay_outcome(struct exec_ctx *x, struct run_info *ri,
				  enum study_stage kind,
				  const struct stage_result *res,
				  const char *log, char **why)
{
	struct kvfile kv = KVFILE_INIT;
	char *m = exec_with_manifest(ri->rundir);
	const char *status = "failed";

	*why = NULL;
	if (gm_path_exists(m) && !kvfile_read(&kv, m)) {
		const char *st = kvfile_get(&kv, "status");
		const char *fail = kvfile_get(&kv, "failure");
		if (st && !strcmp(st, "ok")) {
			status = "ok";
			*why = exec_stage_failure(x, res, log);
			if (*why) {
				status = "failed";
				char *w = gm_xasprintf("the run says ok but gpumix "
						       "%s %s", study_stage_name(kind),
						       *why);
				free(*why);
				*why = w;
			}
		} else if (st && (!strcmp(st, "failed") || !strcmp(st, "hung"))) {
			status = !strcmp(st, "hung") ? "hung" : "failed";
			*why = exec_tidy_reason(fail && *fail ? fail :
					   "the run gives no reason");
		} else {
			*why = gm_xasprintf("the run manifest has no valid status "
					    "('%s')", st ? st : "");
		}
	} else {
		gm_error_clear();
		*why = exec_stage_failure(x, res, log);
		if (!*why) {
			*why = gm_xasprintf("gpumix %s wrote no manifest",
					    study_stage_name(kind));
		} else if (res->timed_out) {
			status = "hung";
		}
	}
	kvfile_release(&kv);
	free(m);
	return status;
}

/* Run @i's replay ended as @res (its log @log): record it. 0 or -1. */
static int replay_done(struct exec_ctx *x, size_t i,
		       const struct stage_result *res, const char *log)
{
	struct run_info *ri = &x->runs[i];
	enum study_stage kind = plan_run_stage(&x->plan->runs[i]);
	char *why;
	const char *status = replay_outcome(x, ri, kind, res, log, &why);

	if (why) {
		enum run_status st = strcmp(status, "hung") ? RUN_FAILED : RUN_HUNG;
		exec_set_run(x, ri, st, why, log);
	}
	int ret = exec_finish_stage(x, kind, x->plan->runs[i].id,
				    ri->pkey, status, why, res);
	free(why);
	return ret;
}

static int analyze(struct exec_ctx *x, size_t i)
{
	const struct plan_run *run = &x->plan->runs[i];
	struct run_info *ri = &x->runs[i];
	struct exec_argv a = { 0 };
	struct stage_result res;
	char *log = exec_log_path(x, STUDY_STAGE_ANALYZE, run->id);
	char *label = exec_run_label(x, i, STUDY_STAGE_ANALYZE);
	int ret;

	exec_argv_push(&a, x->o->exec);
	exec_argv_push(&a, "analyze");
	exec_argv_push(&a, ri->rundir);
	exec_argv_push(&a, "-o");
	exec_argv_push(&a, x->s->paths.database);
	/*
	 * The study owns the database, and a run replayed again (new
	 * parameters, a new capture) replaces the one loaded before: without
	 * --force the analyzer refuses a second run of the same workload,
	 * variant and policy.
	 */
	exec_argv_push(&a, "--force");
	ret = exec_run_stage(x, STUDY_STAGE_ANALYZE, label, &a, x->s->root, log, &res);
	if (ret == 0) {
		char *why = exec_stage_failure(x, &res, log);
		if (why) {
			char *r = gm_xasprintf("analyze failed: %s", why);
			exec_set_run(x, ri, RUN_FAILED, r, log);
			free(r);
		} else {
			exec_set_run(x, ri, RUN_OK, NULL, NULL);
			x->analyzed++;
		}
		ret = exec_finish_stage(x, STUDY_STAGE_ANALYZE, run->id, ri->akey,
				   why ? "failed" : "done", why, &res);
		free(why);
	}
	exec_argv_release(&a);
	free(log);
	free(label);
	return ret;
}

/*
 * Workload @w has no build (its reconstruct failed or a capture it needs
 * failed): every run of it that was to replay fails or is skipped, with
 * the reason.
 */
static void fail_workload_runs(struct exec_ctx *x, size_t w)
{
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		struct run_info *ri = &x->runs[i];
		if (x->plan->runs[i].workload != w || !ri->do_replay ||
		    x->plan->runs[i].kind == PLAN_CORUN) {
			continue;	/* (a co-run needs no build) */
		}
		exec_drop_run_stages(x, ri);
		exec_set_no_build(x, ri, &x->wls[w]);
	}
}

/* Make sure workload @w is built; 0 (built or failed), 1, or -1. */
static int build_workload(struct exec_ctx *x, size_t w)
{
	struct wl_info *wi = &x->wls[w];
	int ret;

	if (wi->state != BUILD_TODO) {
		return 0;
	}
	/* A capture that failed in this invocation. */
	if (exec_skip_if_capture_failed(x, w)) {
		study_progress_drop(&x->pr, STUDY_STAGE_RECONSTRUCT);
	} else if ((ret = reconstruct(x, w))) {
		return ret;
	}
	if (wi->state != BUILD_UP_TO_DATE) {
		fail_workload_runs(x, w);
	}
	return 0;
}

/* Run @i's replay is recorded: analyze it (unless a task). 0, 1, -1. */
static int after_replay(struct exec_ctx *x, size_t i)
{
	struct run_info *ri = &x->runs[i];
	int ret;

	ri->do_replay = 0;
	if (ri->status != RUN_PENDING) {
		exec_drop_run_stages(x, ri);
		return 0;
	}
	/* A task leaves the loading to the one loader, its finish job. */
	if (ri->do_analyze && x->o->task != STUDY_TASK_RUN) {
		if ((ret = analyze(x, i))) {
			return ret;
		}
		ri->do_analyze = 0;
	}
	return 0;
}

/* A replay of the pool (--gpus) ended: record it, then analyze its run
 * (exec_pool_start(), exec_pool_drain()). */
static int replay_ended(struct exec_ctx *x, size_t i,
			const struct stage_result *res, const char *log)
{
	int ret = replay_done(x, i, res, log);

	return ret ? ret : after_replay(x, i);
}

int exec_wait_replays(struct exec_ctx *x)
{
	return exec_pool_drain(x, replay_ended);
}

/* Replay (or co-run) run @i now, or with --gpus start it on a free
 * GPU. */
static int replay(struct exec_ctx *x, size_t i)
{
	enum study_stage kind = plan_run_stage(&x->plan->runs[i]);
	struct exec_argv a = { 0 };
	struct stage_result res;
	char *log = exec_log_path(x, kind, x->plan->runs[i].id);
	char *label = exec_run_label(x, i, kind);
	int ret;

	if (exec_remove_output(x->runs[i].rundir, GM_OUTPUT_RUN)) {
		ret = -1;
		goto out;
	}
	if (kind == STUDY_STAGE_CORUN) {
		exec_corun_args(x, i, &a);
	} else {
		exec_replay_args(x, i, &a);
	}
	if (x->nr_slots) {
		ret = exec_pool_start(x, i, &a, log, label, replay_ended);
		goto out;
	}
	ret = exec_run_stage(x, kind, label, &a, x->s->root, log, &res);
	if (ret == 0) {
		ret = replay_done(x, i, &res, log);
	}
out:
	exec_argv_release(&a);
	free(log);
	free(label);
	return ret;
}

/* Run the stages of run @i that are to do; 0, 1 (interrupted) or -1. */
int exec_execute_run(struct exec_ctx *x, size_t i)
{
	struct run_info *ri = &x->runs[i];
	enum study_task task = x->o->task;
	int ret;

	if (ri->do_replay && task == STUDY_TASK_FINISH) {
		return 0;	/* not replayed: the next submission's */
	}
	if (ri->do_replay && task != STUDY_TASK_PREP) {
		/* The repetitions before it may still be replaying. */
		if (x->nr_slots && exec_precision_undecided(x, i) &&
		    (ret = exec_wait_replays(x))) {
			return ret;
		}
		if (exec_precision_gate(x, i)) {
			return 0;	/* not needed */
		}
	}
	if (ri->do_replay && x->plan->runs[i].kind == PLAN_CORUN) {
		/* No build: the programs themselves, from their bundles. */
		if (task == STUDY_TASK_PREP || exec_corun_captures(x, i)) {
			if (ri->status != RUN_PENDING) {
				exec_drop_run_stages(x, ri);
			}
			return 0;
		}
		if ((ret = replay(x, i))) {
			return ret;
		}
		return x->nr_slots ? 0 : after_replay(x, i);
	}
	if (ri->do_replay) {
		size_t w = x->plan->runs[i].workload;
		if (task == STUDY_TASK_RUN && x->wls[w].state == BUILD_TODO) {
			return gm_error("run '%s': its workload '%s' is not "
					"reconstructed yet (the study's prep job "
					"makes it)", x->plan->runs[i].id,
					x->plan->workloads[w].name);
		}
		if ((ret = build_workload(x, w))) {
			return ret;
		}
		if (ri->status != RUN_PENDING || task == STUDY_TASK_PREP) {
			return 0;
		}
		if (exec_profile_needed_by(x, i)) {
			/* Every alone run has ended before the profile. */
			if (x->nr_slots && (ret = exec_wait_replays(x))) {
				return ret;
			}
			if ((ret = exec_profile_ensure(x, i)) ||
			    ri->status != RUN_PENDING) {
				return ret;
			}
		}
		if ((ret = replay(x, i))) {
			return ret;
		}
		if (x->nr_slots) {
			return 0;	/* replay_ended() goes on */
		}
		return after_replay(x, i);
	}
	if (ri->do_analyze && task != STUDY_TASK_RUN && task != STUDY_TASK_PREP) {
		if ((ret = analyze(x, i))) {
			return ret;
		}
		ri->do_analyze = 0;
	}
	return 0;
}

int exec_report(struct exec_ctx *x)
{
	const struct study *s = x->s;
	struct exec_argv a = { 0 };
	struct stage_result res;
	char *log = exec_log_path(x, STUDY_STAGE_REPORT, NULL);
	int ret;

	/* Mark the directory as ours before anything is written into it. */
	study_state_set(&x->st, "report", "running", x->report_key, NULL, 0);
	if (study_state_save(&x->st) || exec_remove_output(s->paths.report, GM_OUTPUT_REPORT)) {
		ret = -1;
		goto out;
	}
	exec_argv_push(&a, x->o->exec);
	exec_argv_push(&a, "report");
	exec_argv_push(&a, s->paths.database);
	exec_argv_push(&a, "-o");
	exec_argv_push(&a, s->paths.report);
	if (x->figure_scripts) {
		exec_argv_push(&a, "--figure-scripts");
	}
	ret = exec_run_stage(x, STUDY_STAGE_REPORT, "report", &a, s->root, log, &res);
	if (ret == 0) {
		char *why = exec_stage_failure(x, &res, log);
		x->report_state = why ? -1 : 1;
		if (why) {
			x->report_reason = gm_xstrdup(why);
			x->report_log = gm_xstrdup(log);
		}
		ret = exec_finish_stage(x, STUDY_STAGE_REPORT, NULL, x->report_key,
				   why ? "failed" : "done", why, &res);
		free(why);
	}
out:
	exec_argv_release(&a);
	free(log);
	return ret;
}
