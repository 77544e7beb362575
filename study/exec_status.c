/* SPDX-License-Identifier: MIT */
/*
 * Where the study's runs and builds stand (see exec_priv.h): a run's
 * status, a workload's build decided lazily from its record and its
 * captures, and what a run that needs a failed build or capture becomes.
 * Deciding (exec_decide.c, exec_profile.c, exec_precision.c) and running
 * (exec_stages.c) both mark runs through here, so it calls only
 * exec_common.c.
 */
#include "exec_priv.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "study_progress.h"
#include "study_state.h"

/* Set run @ri's status; one that stops being pending while the stages
 * run counts on the progress line. */
void exec_set_run(struct exec_ctx *x, struct run_info *ri,
		  enum run_status st, const char *reason, const char *log)
{
	if (x->executing && ri->status == RUN_PENDING && st != RUN_PENDING) {
		x->pr.runs_done++;
	}
	ri->status = st;
	free(ri->reason);
	free(ri->log);
	ri->reason = reason ? gm_xstrdup(reason) : NULL;
	ri->log = log ? gm_xstrdup(log) : NULL;
}

/*
 * Mark workload @w's build skipped when a capture it needs failed; 1 if
 * so.
 */
int exec_skip_if_capture_failed(struct exec_ctx *x, size_t w)
{
	const struct plan_workload *wl = &x->plan->workloads[w];
	struct wl_info *wi = &x->wls[w];

	for (size_t j = 0; j < wl->nr; j++) {
		const struct prog_info *pi = &x->progs[wl->progs[j]];
		if (pi->cap == CAP_FAILED) {
			wi->state = BUILD_SKIPPED;
			free(wi->reason);
			free(wi->log);
			const char *name = x->s->programs[wl->progs[j]].name;
			wi->reason = gm_xasprintf("capture of '%s' failed: %s",
						  name, pi->reason);
			wi->log = pi->log ? gm_xstrdup(pi->log) : NULL;
			return 1;
		}
	}
	return 0;
}

/* Whether workload @w's build is up to date, to do, failed or skipped. */
void exec_decide_workload(struct exec_ctx *x, size_t w)
{
	const struct plan_workload *wl = &x->plan->workloads[w];
	struct wl_info *wi = &x->wls[w];
	struct state_record *r;

	r = exec_current_record(x, STUDY_STAGE_RECONSTRUCT, wl->name, wi->rkey);
	if (r && !strcmp(r->status, "done") && gm_is_dir(wi->build)) {
		wi->state = BUILD_UP_TO_DATE;
		return;
	}
	if (r && exec_is_failure(r) && !x->o->retry_failed) {
		wi->state = BUILD_FAILED;
		wi->hung = !strcmp(r->status, "hung");
		wi->reason = gm_xstrdup(r->reason ? r->reason : r->status);
		wi->log = exec_log_path(x, STUDY_STAGE_RECONSTRUCT, wl->name);
		return;
	}
	if (exec_skip_if_capture_failed(x, w)) {
		return;
	}
	wi->state = BUILD_TODO;
	for (size_t j = 0; j < wl->nr; j++) {
		x->progs[wl->progs[j]].needed = 1;
	}
}

/*
 * Run @ri needs its workload's build @wi to replay: when that build
 * failed or was skipped, the run fails or is skipped with the reason.
 * Returns 1 if so (the caller drops the run's stages).
 */
int exec_set_no_build(struct exec_ctx *x, struct run_info *ri,
		      const struct wl_info *wi)
{
	if (wi->state == BUILD_SKIPPED) {
		exec_set_run(x, ri, RUN_SKIPPED, wi->reason, wi->log);
	} else if (wi->state == BUILD_FAILED) {
		char *why = gm_xasprintf("reconstruct failed: %s", wi->reason);
		exec_set_run(x, ri, wi->hung ? RUN_HUNG : RUN_FAILED, why, wi->log);
		free(why);
	} else {
		return 0;
	}
	return 1;
}

/*
 * A co-run runs the programs its workload's bundles name: it needs their
 * captures (not a reconstruct). Returns 1 when one of them failed (the
 * run is then skipped with the reason).
 */
int exec_corun_captures(struct exec_ctx *x, size_t i)
{
	const struct plan_workload *wl =
		&x->plan->workloads[x->plan->runs[i].workload];

	for (size_t j = 0; j < wl->nr; j++) {
		struct prog_info *pi = &x->progs[wl->progs[j]];
		if (pi->cap == CAP_FAILED) {
			char *why = gm_xasprintf("capture of '%s' failed: %s",
						 x->s->programs[wl->progs[j]].name,
						 pi->reason);
			exec_set_run(x, &x->runs[i], RUN_SKIPPED, why, pi->log);
			free(why);
			return 1;
		}
		if (pi->cap == CAP_TODO) {
			pi->needed = 1;
		}
	}
	return 0;
}

void exec_drop_run_stages(struct exec_ctx *x, struct run_info *ri)
{
	if (ri->do_replay) {
		study_progress_drop(&x->pr, plan_run_stage(
					    &x->plan->runs[ri - x->runs]));
	}
	if (ri->do_analyze) {
		study_progress_drop(&x->pr, STUDY_STAGE_ANALYZE);
	}
	ri->do_replay = ri->do_analyze = 0;
}
