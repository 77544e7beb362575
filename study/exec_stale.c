/* SPDX-License-Identifier: MIT */
/*
 * Runs of an earlier version of the study (see exec_priv.h): the runs it
 * loaded into its database (the state's "analyze RUN" records) that its
 * plan no longer has, because a variant or policy was dropped, a
 * program or workload renamed or removed, the repetitions reduced. They
 * leave the database before anything else runs (`gpumix analyze
 * --forget`), so that the database, and the report drawn from it, hold
 * what the study now describes, as a study run afresh would. Their run
 * directories stay, with their replay records: a run added back is
 * loaded again without being replayed.
 */
#include "exec_priv.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "study_progress.h"

void exec_stale_decide(struct exec_ctx *x)
{
	const char *prefix = study_stage_name(STUDY_STAGE_ANALYZE);
	size_t n = strlen(prefix);

	for (size_t i = 0; i < x->st.nr; i++) {
		const struct state_record *r = &x->st.records[i];
		if (strncmp(r->id, prefix, n) || r->id[n] != ' ' ||
		    plan_find_run(x->plan, r->id + n + 1)) {
			continue;
		}
		GM_ALLOC_GROW(x->stale, x->nr_stale + 1, x->alloc_stale);
		x->stale[x->nr_stale++] = gm_xstrdup(r->id + n + 1);
	}
}

/* Forget the records of the stale runs, so that none is forgotten twice. */
static int forget_records(struct exec_ctx *x)
{
	for (size_t i = 0; i < x->nr_stale; i++) {
		char *id = exec_record_id(STUDY_STAGE_ANALYZE, x->stale[i]);
		study_state_forget(&x->st, id);
		free(id);
	}
	return study_state_save(&x->st);
}

int exec_stale_forget(struct exec_ctx *x)
{
	struct exec_argv a = { 0 };
	struct stage_result res;
	char *log, *label, *why;
	int ret;

	if (!x->nr_stale) {
		return 0;
	}
	/* No database: nothing of them is left in one. */
	if (!gm_path_exists(x->s->paths.database)) {
		return forget_records(x);
	}
	exec_argv_push(&a, x->o->exec);
	exec_argv_push(&a, "analyze");
	exec_argv_push(&a, "--forget");
	exec_argv_push(&a, "-o");
	exec_argv_push(&a, x->s->paths.database);
	for (size_t i = 0; i < x->nr_stale; i++) {
		char *dir = gm_path_join(x->s->paths.runs, x->stale[i]);
		exec_argv_push(&a, dir);
		free(dir);
	}
	log = exec_log_path(x, STUDY_STAGE_ANALYZE, "forget");
	label = gm_xasprintf("%zu run%s of an earlier version of the study: "
			     "forget", x->nr_stale, x->nr_stale == 1 ? "" : "s");
	ret = exec_run_stage(x, STUDY_STAGE_ANALYZE, label, &a, x->s->root, log,
			     &res);
	if (ret == 0) {
		why = exec_stage_failure(x, &res, log);
		study_progress_end(&x->pr, STUDY_STAGE_ANALYZE, res.seconds, why);
		if (why) {
			/* Kept in the state: the next invocation tries again. */
			x->out->stages_failed++;
			free(why);
		} else {
			x->forgotten = x->nr_stale;
			ret = forget_records(x);
		}
	}
	exec_argv_release(&a);
	free(label);
	free(log);
	return ret;
}

void exec_stale_release(struct exec_ctx *x)
{
	for (size_t i = 0; i < x->nr_stale; i++) {
		free(x->stale[i]);
	}
	free(x->stale);
	x->stale = NULL;
	x->nr_stale = x->alloc_stale = 0;
}
