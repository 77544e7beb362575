/* SPDX-License-Identifier: MIT */
/*
 * Running one stage of a study (see exec_priv.h): its command under its
 * log and the study's time limit, shown on the progress line, then its
 * record in the state, saved at once. Every stage (exec_stages.c,
 * exec_profile.c, exec_stale.c) runs through here; it calls only
 * exec_common.c.
 */
#include "exec_priv.h"

#include <stdlib.h>

#include "error.h"
#include "output_dir.h"
#include "stage_exec.h"
#include "study_progress.h"
#include "study_state.h"

/*
 * Run one stage. Returns 0 when it ran (@res says how), 1 when the study
 * was interrupted before or during it, -1 when it could not be started.
 */
int exec_run_stage(struct exec_ctx *x, enum study_stage kind,
		   const char *label, struct exec_argv *args, const char *cwd,
		   const char *log, struct stage_result *res)
{
	struct stage_cmd c = {
		.argv = args->v,
		.cwd = cwd,
		.log_path = log,
		.timeout_s = x->s->stage_timeout_s,
		.env = x->stage_env,
		.spawned = exec_on_spawned,
		.tick = exec_on_tick,
		.arg = x,
	};

	if (stage_exec_interrupted()) {
		return 1;
	}
	x->current = kind;
	study_progress_begin(&x->pr, kind, label);
	if (stage_exec_run(&c, res)) {
		study_progress_finish(&x->pr);
		return -1;
	}
	if (res->interrupted) {
		study_progress_finish(&x->pr);
		return 1;
	}
	exec_kill_hook(x, kind, KILL_FINISHED);
	x->out->stages_run++;
	return 0;
}

static int save_state(struct exec_ctx *x, enum study_stage kind)
{
	if (study_state_save(&x->st)) {
		return -1;
	}
	exec_kill_hook(x, kind, KILL_SAVED);
	return 0;
}

/* Record a finished stage and report its outcome on the progress line. */
int exec_finish_stage(struct exec_ctx *x, enum study_stage kind,
		      const char *id, const char *key, const char *status,
		      const char *reason, const struct stage_result *res)
{
	char *rid = exec_record_id(kind, id);

	study_state_set(&x->st, rid, status, key, reason, res->seconds);
	if (x->o->task == STUDY_TASK_RUN) {
		/* No exclusive lock: the record goes beside the state. */
		int ret = study_state_write_task(&x->st, rid, status, key, reason,
						 res->seconds);
		free(rid);
		study_progress_end(&x->pr, kind, res->seconds, reason);
		return ret;
	}
	free(rid);
	if (reason) {
		char *line = gm_xasprintf("%s: %s", status, reason);
		study_progress_end(&x->pr, kind, res->seconds, line);
		free(line);
		x->out->stages_failed++;
	} else {
		study_progress_end(&x->pr, kind, res->seconds, NULL);
	}
	return save_state(x, kind);
}

int exec_remove_output(const char *dir, enum gm_output_kind kind)
{
	if (gm_output_remove(dir, kind)) {
		return gm_error("cannot remove the stale output '%s'", dir);
	}
	return 0;
}
