/* SPDX-License-Identifier: MIT */
/*
 * What the study executor must do (see exec_priv.h): the input hash of
 * every stage, chained from the stages it depends on, compared with the
 * state's records to decide, lazily, which stages are up to date, which
 * are redone and which cannot run.
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

static int program_key(struct exec_ctx *x, size_t i)
{
	const struct study_program *p = &x->s->programs[i];
	struct prog_info *pi = &x->progs[i];
	char hex[KEY_LEN];
	struct gm_hasher *h;

	if (!p->argv) {
		char *m = exec_with_manifest(p->bundle);
		int ret = study_exe_hash_file(m, hex);
		free(m);
		if (ret) {
			return yaml_doc_error_at(x->s->path, p->pos, "program '%s': "
						 "no readable bundle manifest in "
						 "'%s'", p->name, p->bundle);
		}
		h = exec_key_begin("bundle");
		exec_key_add(h, hex);
		exec_key_end(h, pi->key);
		pi->cap = CAP_BUNDLE;
		return 0;
	}
	char *exe = NULL;
	if (!gm_is_dir(p->cwd)) {
		gm_error("working directory '%s' does not exist", p->cwd_rel);
	} else {
		exe = study_exe_resolve(p->argv[0], p->cwd);
	}
	if (!exe || study_exe_fingerprint(&x->st, exe, hex)) {
		free(exe);
		if (!x->o->dry_run) {
			return yaml_doc_error_at(x->s->path, p->command_pos,
						 "program '%s' cannot be captured",
						 p->name);
		}
		pi->reason = exec_tidy_reason(gm_error_message());
		gm_error_clear();
		pi->cap = CAP_NOT_FOUND;
		snprintf(pi->key, KEY_LEN, "missing");
		return 0;
	}
	free(exe);
	h = exec_key_begin("capture");
	for (size_t a = 0; a < p->argc; a++) {
		exec_key_add(h, p->argv[a]);
	}
	exec_key_addf(h, "cwd=%s", p->cwd_rel);
	exec_key_add(h, hex);
	exec_key_end(h, pi->key);
	return 0;
}

static void decide_program(struct exec_ctx *x, size_t i)
{
	const struct study_program *p = &x->s->programs[i];
	struct prog_info *pi = &x->progs[i];
	char *id = exec_record_id(STUDY_STAGE_CAPTURE, p->name);
	struct state_record *r = study_state_find(&x->st, id);

	free(id);
	if (pi->cap == CAP_BUNDLE || pi->cap == CAP_NOT_FOUND) {
		return;
	}
	pi->changed = r && strcmp(r->key, pi->key);
	if (r && !pi->changed && !strcmp(r->status, "done") &&
	    exec_has_manifest(p->bundle)) {
		pi->cap = CAP_UP_TO_DATE;
	} else if (r && !pi->changed && exec_is_failure(r) && !x->o->retry_failed) {
		pi->cap = CAP_FAILED;
		pi->reason = gm_xstrdup(r->reason ? r->reason : "failed");
		pi->log = exec_log_path(x, STUDY_STAGE_CAPTURE, p->name);
	} else {
		pi->cap = CAP_TODO;
	}
}

static void workload_key(struct exec_ctx *x, size_t w)
{
	const struct study *s = x->s;
	const struct plan_workload *wl = &x->plan->workloads[w];
	struct gm_hasher *h = exec_key_begin("reconstruct");

	for (size_t j = 0; j < wl->nr; j++) {
		const struct study_program *p = &s->programs[wl->progs[j]];
		exec_key_add(h, p->name);
		exec_key_add(h, x->progs[wl->progs[j]].key);
		exec_key_addf(h, "deterministic=%d", p->deterministic);
	}
	/* Only when on: the hashes of studies without it stay as they were. */
	if (study_needs_elastic(s)) {
		exec_key_add(h, "elastic");
	}
	exec_key_end(h, x->wls[w].rkey);
}

/* A co-run's inputs: its programs' captures, repetitions, mechanisms. */
static void corun_key(struct exec_ctx *x, size_t i)
{
	const struct study *s = x->s;
	const struct plan_run *run = &x->plan->runs[i];
	const struct plan_workload *wl = &x->plan->workloads[run->workload];
	struct gm_hasher *h = exec_key_begin("corun");

	for (size_t j = 0; j < wl->nr; j++) {
		exec_key_add(h, s->programs[wl->progs[j]].name);
		exec_key_add(h, x->progs[wl->progs[j]].key);
	}
	exec_key_addf(h, "repeats=%u", s->corun_repeats);
	exec_key_addf(h, "mechanisms=%s", study_corun_mechanisms(s));
	exec_key_end(h, x->runs[i].pkey);
}

static void run_keys(struct exec_ctx *x, size_t i)
{
	const struct study *s = x->s;
	const struct plan_run *run = &x->plan->runs[i];
	struct run_info *ri = &x->runs[i];
	struct gm_hasher *h;
	struct exec_argv knobs = { 0 };

	if (run->kind == PLAN_CORUN) {
		corun_key(x, i);
		goto analyze;
	}
	h = exec_key_begin("replay");
	exec_key_add(h, x->wls[run->workload].rkey);
	exec_key_addf(h, "variant=%s", run->variant->name);
	exec_key_addf(h, "min_replays=%u", s->min_replays);
	exec_knob_args(s, run, &knobs);
	exec_open_loop_args(x, i, &knobs, 1);
	for (size_t j = 0; j < knobs.nr; j++) {
		exec_key_add(h, knobs.v[j]);
	}
	exec_argv_release(&knobs);
	/* The profile's inputs, not only its path. */
	if (exec_profile_needed_by(x, i)) {
		exec_key_addf(h, "profile=%s", x->prof.key);
	}
	/* Only when on: the hashes of other runs stay as they were. */
	if (run->kind == PLAN_ONE_SHOT) {
		exec_key_add(h, "one_shot");
	}
	exec_key_end(h, ri->pkey);
analyze:
	h = exec_key_begin("analyze");
	exec_key_add(h, ri->pkey);
	exec_key_add(h, s->paths.database);
	exec_key_end(h, ri->akey);
}

static void set_run_failed_record(struct exec_ctx *x, struct run_info *ri,
				  const struct state_record *r,
				  enum study_stage kind, const char *id,
				  const char *prefix)
{
	char *log = exec_log_path(x, kind, id);
	char *why = gm_xasprintf("%s%s", prefix, r->reason ? r->reason : r->status);

	exec_set_run(x, ri, strcmp(r->status, "hung") ? RUN_FAILED : RUN_HUNG, why,
		log);
	free(why);
	free(log);
}

static void decide_run(struct exec_ctx *x, size_t i)
{
	const struct plan_run *run = &x->plan->runs[i];
	struct run_info *ri = &x->runs[i];
	struct wl_info *wi = &x->wls[run->workload];
	enum study_stage kind = plan_run_stage(run);
	struct state_record *r;

	r = exec_current_record(x, STUDY_STAGE_ANALYZE, run->id, ri->akey);
	if (r && !strcmp(r->status, "done") &&
	    gm_path_exists(x->s->paths.database)) {
		exec_set_run(x, ri, RUN_OK, NULL, NULL);
		return;
	}
	if (r && exec_is_failure(r) && !x->o->retry_failed) {
		set_run_failed_record(x, ri, r, STUDY_STAGE_ANALYZE, run->id,
				      "analyze failed: ");
		return;
	}
	r = exec_current_record(x, kind, run->id, ri->pkey);
	if (r && !strcmp(r->status, "ok") && exec_has_manifest(ri->rundir)) {
		ri->do_analyze = 1;
		return;
	}
	if (r && exec_is_failure(r) && !x->o->retry_failed) {
		set_run_failed_record(x, ri, r, kind, run->id, "");
		return;
	}
	ri->do_replay = ri->do_analyze = 1;
	if (run->kind == PLAN_CORUN) {
		if (exec_corun_captures(x, i)) {
			ri->do_replay = ri->do_analyze = 0;
		}
		return;
	}
	if (wi->state == BUILD_UNDECIDED) {
		exec_decide_workload(x, run->workload);
	}
	if (exec_set_no_build(x, ri, wi) ||
	    (exec_profile_needed_by(x, i) && exec_profile_decide_for(x, i))) {
		ri->do_replay = ri->do_analyze = 0;
	}
}

void exec_report_key(struct exec_ctx *x, int predict)
{
	struct gm_hasher *h = exec_key_begin("report");

	exec_key_add(h, x->s->paths.report);
	exec_key_add(h, x->s->paths.database);
	/* Installing gnuplot later redraws the report with its figures. */
	exec_key_add(h, x->figure_scripts ? "figure-scripts" : "figures");
	/* In the listed order, not the shuffled one: another seed is not
	 * another report. */
	for (size_t c = 0; c < x->plan->nr_configs; c++) {
		for (unsigned r = 0; r < x->plan->nr_repetitions; r++) {
			size_t i = plan_run_index(x->plan, c, r);
			const struct run_info *ri = &x->runs[i];
			if (ri->status == RUN_OK || (predict && ri->do_analyze)) {
				exec_key_add(h, x->plan->runs[i].id);
				exec_key_add(h, ri->akey);
			}
		}
	}
	exec_key_end(h, x->report_key);
}

/*
 * Whether the report must be (re)written: when the analyzed runs changed,
 * or any run was loaded into the database by this invocation (the
 * database may have been rebuilt); -1 when it failed before with the same
 * inputs.
 */
int exec_report_needed(struct exec_ctx *x, int predict)
{
	/* Runs leaving the database change it as runs loaded do. */
	int any = 0, loading = x->analyzed > 0 || x->forgotten > 0 ||
			       (predict && x->nr_stale);

	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		any |= x->runs[i].status == RUN_OK;
		loading |= predict && x->runs[i].do_analyze;
	}
	any |= loading;
	if (!any) {
		return 0;
	}
	exec_report_key(x, predict);
	struct state_record *r = exec_current_record(x, STUDY_STAGE_REPORT, NULL,
						x->report_key);
	if (r && !strcmp(r->status, "done") && gm_is_dir(x->s->paths.report) &&
	    !loading) {
		x->report_state = 1;
		return 0;
	}
	if (r && exec_is_failure(r) && !x->o->retry_failed) {
		x->report_state = -1;
		free(x->report_reason);
		x->report_reason = gm_xstrdup(r->reason ? r->reason : "failed");
		return -1;
	}
	return 1;
}

/*
 * Before anything runs: every directory a stage to do will replace is
 * one that gpumix wrote as that stage's output (output_dir.h), so that
 * a study pointed at the user's files (`paths: {runs: ~/data}`, a run or
 * workload named like one of them) refuses to start instead of deleting
 * them. The stages check again when they remove it.
 */
static int refuse_output(struct exec_ctx *x, const char *path,
			 enum gm_output_kind kind, const char *key)
{
	char *d;

	if (!gm_output_may_replace(path, kind)) {
		return 0;
	}
	d = exec_disp(path);
	gm_error("the study cannot replace '%s' (its %s, paths: %s)", d,
		 gm_output_kind_name(kind), key);
	gm_error_hint("remove it yourself if it may go, or set 'paths: %s:' in"
		      " '%s'", key, x->s->path);
	free(d);
	return -1;
}

static int check_outputs(struct exec_ctx *x)
{
	const struct study *s = x->s;

	for (size_t i = 0; i < s->nr_programs; i++) {
		if (x->progs[i].cap == CAP_TODO &&
		    refuse_output(x, s->programs[i].bundle, GM_OUTPUT_BUNDLE,
				  "bundles")) {
			return -1;
		}
	}
	for (size_t w = 0; w < x->plan->nr_workloads; w++) {
		if (x->wls[w].state == BUILD_TODO &&
		    refuse_output(x, x->wls[w].build, GM_OUTPUT_BUILD, "builds")) {
			return -1;
		}
	}
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		if (x->runs[i].do_replay &&
		    refuse_output(x, x->runs[i].rundir, GM_OUTPUT_RUN, "runs")) {
			return -1;
		}
	}
	if (x->report_planned &&
	    refuse_output(x, s->paths.report, GM_OUTPUT_REPORT, "report")) {
		return -1;
	}
	return 0;
}

int exec_decide(struct exec_ctx *x)
{
	const struct study *s = x->s;

	for (size_t i = 0; i < s->nr_programs; i++) {
		if (!x->plan->used[i]) {
			x->progs[i].cap = CAP_UNUSED;
			continue;
		}
		if (program_key(x, i)) {
			return -1;
		}
		decide_program(x, i);
	}
	for (size_t w = 0; w < x->plan->nr_workloads; w++) {
		x->wls[w].build = gm_path_join(s->paths.builds,
					       x->plan->workloads[w].name);
		workload_key(x, w);
	}
	/* The alone runs' keys, the profile's from them, then the rest. */
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const struct plan_run *run = &x->plan->runs[i];
		x->runs[i].rundir = gm_path_join(s->paths.runs, run->id);
		if (run->variant && (run->variant->flags & GM_VARIANT_ALONE)) {
			run_keys(x, i);
		}
	}
	exec_profile_key(x);
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const struct gm_variant *v = x->plan->runs[i].variant;
		if (!v || !(v->flags & GM_VARIANT_ALONE)) {
			run_keys(x, i);
		}
	}
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		decide_run(x, i);
	}
	exec_precision_decide(x);
	exec_stale_decide(x);
	x->report_planned = exec_report_needed(x, 1) == 1;
	if (!x->o->dry_run && check_outputs(x)) {
		return -1;
	}
	return 0;
}
