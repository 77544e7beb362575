/* SPDX-License-Identifier: MIT */
/*
 * The study's profile stage (see exec_priv.h): once the alone runs
 * (`single`) of the first repetition have replayed, `gpumix profile -o
 * PROFILE --force RUNDIR...` writes the kernel profile of all of them to
 * paths.profile, and every run of a variant that takes --profile
 * (elastic), in every repetition, replays with it: the profile is one
 * input of those runs, the same in each repetition, and adding
 * repetitions leaves it as it is.
 *
 * Record "profile"; its input hash covers the profile's path and, for
 * every alone run of the first repetition, its id and replay hash, so a recaptured
 * program or a new `min_replays` makes the profile again, and the runs
 * that read it, whose replay hashes include the profile's, replay again.
 * It is done when its record matches and the file exists, and, like a
 * build, only looked at when a run to replay needs it.
 *
 * The profile needs every alone run ok: when one failed, hung or was
 * skipped, the profile is skipped and so are the runs that need it, with
 * the alone run named (a profile missing a program's kernels would
 * change MEDIAN's median kernel and leave that program's kernels whole).
 * Skipped runs are not recorded: they run once the alone run is mended
 * (`--retry-failed`).
 */
#include "exec_priv.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"

int exec_profile_input(const struct exec_ctx *x, size_t i)
{
	const struct plan_run *run = &x->plan->runs[i];

	/* (not the co-runs' one-shot alone runs: one replay each) */
	return run->kind == PLAN_REPLAY &&
	       (run->variant->flags & GM_VARIANT_ALONE) && !run->repetition;
}

int exec_profile_needed_by(const struct exec_ctx *x, size_t i)
{
	const struct gm_variant *v = x->plan->runs[i].variant;

	return study_profiles(x->s) && v && (v->knobs & GM_KNOB_PROFILE);
}

void exec_profile_key(struct exec_ctx *x)
{
	struct gm_hasher *h;

	if (!study_profiles(x->s)) {
		return;
	}
	h = exec_key_begin("profile");
	exec_key_add(h, x->s->paths.profile);
	/* (listed order: another seed is no other input) */
	for (size_t c = 0; c < x->plan->nr_configs; c++) {
		size_t i = plan_run_index(x->plan, c, 0);
		const struct plan_run *run = &x->plan->runs[i];
		if (exec_profile_input(x, i)) {
			exec_key_add(h, run->id);
			exec_key_add(h, x->runs[i].pkey);
		}
	}
	exec_key_end(h, x->prof.key);
}

static void set_prof(struct exec_ctx *x, enum build_state st,
		     const char *reason, const char *log)
{
	struct profile_info *pi = &x->prof;

	pi->state = st;
	free(pi->reason);
	free(pi->log);
	pi->reason = reason ? gm_xstrdup(reason) : NULL;
	pi->log = log ? gm_xstrdup(log) : NULL;
}

/*
 * The first alone run that is not ok and will not be (failed, hung or
 * skipped): the profile cannot be made. Sets the profile skipped and
 * returns 1 if there is one.
 */
static int skip_if_alone_failed(struct exec_ctx *x)
{
	/* (listed order: another seed is no other input) */
	for (size_t c = 0; c < x->plan->nr_configs; c++) {
		size_t i = plan_run_index(x->plan, c, 0);
		const struct run_info *ri = &x->runs[i];
		if (!exec_profile_input(x, i) ||
		    ri->status == RUN_OK || ri->status == RUN_PENDING) {
			continue;
		}
		char *why = gm_xasprintf("run '%s' %s: %s", x->plan->runs[i].id,
					 exec_run_status_names[ri->status],
					 ri->reason ? ri->reason : "");
		set_prof(x, BUILD_SKIPPED, why, ri->log);
		free(why);
		return 1;
	}
	return 0;
}

/*
 * The profile is to be made: an alone run that is done but whose run
 * directory is gone (the analyze record stands, the files do not) is
 * replayed again first, as a build would be reconstructed again.
 */
static void need_alone_dirs(struct exec_ctx *x)
{
	/* (listed order: another seed is no other input) */
	for (size_t c = 0; c < x->plan->nr_configs; c++) {
		size_t i = plan_run_index(x->plan, c, 0);
		const struct plan_run *run = &x->plan->runs[i];
		struct run_info *ri = &x->runs[i];
		if (!exec_profile_input(x, i) ||
		    ri->status != RUN_OK || exec_has_manifest(ri->rundir)) {
			continue;
		}
		exec_set_run(x, ri, RUN_PENDING, NULL, NULL);
		ri->do_replay = ri->do_analyze = 1;
		if (x->wls[run->workload].state == BUILD_UNDECIDED) {
			exec_decide_workload(x, run->workload);
		}
		if (exec_set_no_build(x, ri, &x->wls[run->workload])) {
			ri->do_replay = ri->do_analyze = 0;
		}
	}
}

static void decide_profile(struct exec_ctx *x)
{
	const struct study *s = x->s;
	struct state_record *r;

	r = exec_current_record(x, STUDY_STAGE_PROFILE, NULL, x->prof.key);
	if (r && !strcmp(r->status, "done") &&
	    gm_path_exists(s->paths.profile)) {
		set_prof(x, BUILD_UP_TO_DATE, NULL, NULL);
		return;
	}
	if (r && exec_is_failure(r) && !x->o->retry_failed) {
		char *log = exec_log_path(x, STUDY_STAGE_PROFILE, NULL);
		set_prof(x, BUILD_FAILED, r->reason ? r->reason : r->status,
			 log);
		x->prof.hung = !strcmp(r->status, "hung");
		free(log);
		return;
	}
	if (skip_if_alone_failed(x)) {
		return;
	}
	set_prof(x, BUILD_TODO, NULL, NULL);
	need_alone_dirs(x);
}

/* Fail or skip run @i when there is no profile; 1 if so. */
static int set_no_profile(struct exec_ctx *x, size_t i)
{
	const struct profile_info *pi = &x->prof;
	struct run_info *ri = &x->runs[i];
	char *why;

	if (pi->state == BUILD_SKIPPED) {
		why = gm_xasprintf("no kernel profile: %s", pi->reason);
		exec_set_run(x, ri, RUN_SKIPPED, why, pi->log);
	} else if (pi->state == BUILD_FAILED) {
		why = gm_xasprintf("profile failed: %s", pi->reason);
		exec_set_run(x, ri, pi->hung ? RUN_HUNG : RUN_FAILED, why,
			     pi->log);
	} else {
		return 0;
	}
	free(why);
	return 1;
}

int exec_profile_decide_for(struct exec_ctx *x, size_t i)
{
	if (x->prof.state == BUILD_UNDECIDED) {
		decide_profile(x);
	}
	return set_no_profile(x, i);
}

/* Run `gpumix profile` over the alone runs; 0, 1 or -1 as a stage. */
static int make_profile(struct exec_ctx *x)
{
	const struct study *s = x->s;
	struct exec_argv a = { 0 };
	struct stage_result res;
	char *log = exec_log_path(x, STUDY_STAGE_PROFILE, NULL);
	int ret;

	exec_argv_push(&a, x->o->exec);
	exec_argv_push(&a, "profile");
	exec_argv_push(&a, "-o");
	exec_argv_push(&a, s->paths.profile);
	exec_argv_push(&a, "--force");
	/* (listed order: another seed is no other input) */
	for (size_t c = 0; c < x->plan->nr_configs; c++) {
		size_t i = plan_run_index(x->plan, c, 0);
		if (exec_profile_input(x, i)) {
			exec_argv_push(&a, x->runs[i].rundir);
		}
	}
	ret = exec_run_stage(x, STUDY_STAGE_PROFILE, "profile", &a, s->root,
			     log, &res);
	if (ret == 0) {
		char *why = exec_stage_failure(x, &res, log);
		if (!why && !gm_path_exists(s->paths.profile)) {
			why = gm_xstrdup("gpumix profile wrote no profile");
		}
		set_prof(x, why ? BUILD_FAILED : BUILD_UP_TO_DATE, why,
			 why ? log : NULL);
		x->prof.hung = why && res.timed_out;
		const char *st = !why ? "done" :
				 res.timed_out ? "hung" : "failed";
		ret = exec_finish_stage(x, STUDY_STAGE_PROFILE, NULL,
					x->prof.key, st, why, &res);
		free(why);
	}
	exec_argv_release(&a);
	free(log);
	return ret;
}

int exec_profile_ensure(struct exec_ctx *x, size_t i)
{
	struct run_info *ri = &x->runs[i];
	int ret;

	if (x->prof.state == BUILD_UNDECIDED) {
		decide_profile(x);
	}
	if (x->prof.state == BUILD_TODO) {
		/* The alone runs ran before this run (plan order). */
		if (skip_if_alone_failed(x)) {
			study_progress_drop(&x->pr, STUDY_STAGE_PROFILE);
		} else if ((ret = make_profile(x))) {
			return ret;
		}
	}
	if (x->prof.state == BUILD_FAILED || x->prof.state == BUILD_SKIPPED) {
		exec_drop_run_stages(x, ri);
		set_no_profile(x, i);
	}
	return 0;
}

int exec_profile_todo(const struct exec_ctx *x)
{
	return x->prof.state == BUILD_TODO;
}

void exec_profile_print_plan(struct exec_ctx *x, FILE *f, size_t *todo)
{
	const struct study *s = x->s;
	const struct profile_info *pi = &x->prof;
	const char *path;
	size_t alone = 0;

	if (!study_profiles(s)) {
		return;
	}
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		alone += exec_profile_input(x, i);
	}
	/* Its base name: the plan does not depend on where outputs go. */
	path = strrchr(s->paths.profile, '/');
	path = path ? path + 1 : s->paths.profile;
	fprintf(f, "\nprofile (gpumix profile of the %zu %s run%s%s, read by "
		"every run of", alone, gm_variant_with(GM_VARIANT_ALONE)->name,
		alone == 1 ? "" : "s", x->plan->nr_repetitions > 1 ?
		" of the first repetition" : "");
	for (size_t v = 0, n = 0; v < s->nr_variants; v++) {
		if (s->variants[v]->knobs & GM_KNOB_PROFILE) {
			fprintf(f, "%s %s", n++ ? "," : "",
				s->variants[v]->name);
		}
	}
	fprintf(f, "):\n  %-36s ", path);
	switch (pi->state) {
	case BUILD_UNDECIDED: {
		const struct state_record *r = exec_current_record(
			x, STUDY_STAGE_PROFILE, NULL, pi->key);
		fputs(r && !strcmp(r->status, "done") &&
		      gm_path_exists(s->paths.profile) ? "made\n"
						      : "not needed\n", f);
		break;
	}
	case BUILD_UP_TO_DATE:
		fputs("made\n", f);
		break;
	case BUILD_TODO:
		fputs("to do: profile\n", f);
		(*todo)++;
		break;
	case BUILD_FAILED:
		fprintf(f, "%s: %s\n", pi->hung ? "hung" : "failed",
			pi->reason);
		break;
	case BUILD_SKIPPED:
		fprintf(f, "skipped: %s\n", pi->reason);
		break;
	}
}

void exec_profile_summary(const struct exec_ctx *x, struct strbuf *sb)
{
	const struct profile_info *pi = &x->prof;
	char *path, *log;

	if (!study_profiles(x->s)) {
		return;
	}
	path = exec_disp(x->s->paths.profile);
	switch (pi->state) {
	case BUILD_FAILED:
	case BUILD_SKIPPED:
		log = pi->log ? exec_disp(pi->log) : NULL;
		strbuf_addf(sb, "- profile: %s: %s%s%s%s\n",
			    pi->state == BUILD_SKIPPED ? "skipped" :
			    pi->hung ? "hung" : "failed", pi->reason,
			    log ? " (log: " : "", log ? log : "",
			    log ? ")" : "");
		free(log);
		break;
	case BUILD_UP_TO_DATE:
		strbuf_addf(sb, "- profile: %s\n", path);
		break;
	case BUILD_TODO:
		strbuf_addf(sb, "- profile: not made yet (%s)\n", path);
		break;
	case BUILD_UNDECIDED:
		/* No run to do needed it: every run that reads it is done. */
		if (gm_path_exists(x->s->paths.profile)) {
			strbuf_addf(sb, "- profile: %s\n", path);
		} else {
			strbuf_addf(sb, "- profile: not needed (%s is gone, "
				    "and every run that read it is done)\n",
				    path);
		}
		break;
	}
	free(path);
}

void exec_profile_release(struct exec_ctx *x)
{
	free(x->prof.reason);
	free(x->prof.log);
	memset(&x->prof, 0, sizeof(x->prof));
}
