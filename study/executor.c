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
 * the summary are printed by exec_output.c.
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

#include "analyze/gnuplot_program.h"
#include "atomic_file.h"
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

const char *const exec_run_status_names[] = {
	"not run yet", "ok", "failed", "hung", "skipped",
};

enum kill_point { KILL_STARTED, KILL_FINISHED, KILL_SAVED, KILL_NR };
static const char *const kill_points[KILL_NR] = { "started", "finished",
						  "saved" };

/* ---- input hashes ---- */

struct gm_hasher *exec_key_begin(const char *what)
{
	struct gm_hasher *h = gm_hasher_new();

	if (!h) {
		fputs("fatal: out of memory\n", stderr);
		abort();
	}
	gm_hasher_update(h, what, strlen(what) + 1);
	return h;
}

void exec_key_add(struct gm_hasher *h, const char *s)
{
	gm_hasher_update(h, s, strlen(s) + 1);
}

void exec_key_addf(struct gm_hasher *h, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	exec_key_add(h, sb.buf);
	strbuf_release(&sb);
}

void exec_key_end(struct gm_hasher *h, char out[KEY_LEN])
{
	gm_hash_hex(gm_hasher_final(h), out);
	gm_hasher_free(h);
}

/* ---- small helpers ---- */

void exec_argv_push(struct exec_argv *a, const char *s)
{
	GM_ALLOC_GROW(a->v, a->nr + 2, a->alloc);
	a->v[a->nr++] = gm_xstrdup(s);
	a->v[a->nr] = NULL;
}

void exec_argv_release(struct exec_argv *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		free(a->v[i]);
	}
	free(a->v);
	memset(a, 0, sizeof(*a));
}

char *exec_disp(const char *abs)
{
	return study_path_display(abs);
}

static char *with_manifest(const char *dir)
{
	return gm_path_join(dir, "manifest");
}

int exec_has_manifest(const char *dir)
{
	char *m = with_manifest(dir);
	int r = gm_path_exists(m);
	free(m);
	return r;
}

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

/* Truncate a reason to one line of a sensible length. */
char *exec_tidy_reason(const char *s)
{
	struct strbuf sb = STRBUF_INIT;

	for (; *s && sb.len < REASON_MAX; s++) {
		strbuf_addch(&sb, (*s == '\n' || *s == '\t' || *s == '\r') ? ' ' : *s);
	}
	if (*s) {
		strbuf_addstr(&sb, "...");
	}
	strbuf_rtrim(&sb);
	return strbuf_detach(&sb, NULL);
}

/*
 * What a stage's log says went wrong: its first "error: " line, else its
 * last non-empty line, else NULL.
 */
static char *log_reason(const char *log)
{
	struct strbuf sb = STRBUF_INIT;
	char *ret = NULL;

	if (gm_read_file(log, &sb)) {
		gm_error_clear();
		strbuf_release(&sb);
		return NULL;
	}
	const char *last = NULL;
	size_t last_len = 0;
	for (const char *p = sb.buf; *p;) {
		const char *e = strchr(p, '\n');
		size_t n = e ? (size_t)(e - p) : strlen(p);
		if (n > 7 && !strncmp(p, "error: ", 7)) {
			char *line = gm_xasprintf("%.*s", (int)(n - 7), p + 7);
			ret = exec_tidy_reason(line);
			free(line);
			break;
		}
		if (n) {
			last = p;
			last_len = n;
		}
		p += n + (e ? 1 : 0);
	}
	if (!ret && last) {
		char *line = gm_xasprintf("%.*s", (int)last_len, last);
		ret = exec_tidy_reason(line);
		free(line);
	}
	strbuf_release(&sb);
	return ret;
}

/* Why a stage failed, or NULL when it succeeded (exit 0). */
char *exec_stage_failure(const struct exec_ctx *x, const struct stage_result *r,
			 const char *log)
{
	struct strbuf sb = STRBUF_INIT;
	char *why;

	if (r->timed_out) {
		char t[32];
		study_progress_format_duration(t, sizeof(t), x->s->stage_timeout_s);
		strbuf_addf(&sb, "stopped after the stage time limit of %s", t);
	} else if (r->signal) {
		strbuf_addf(&sb, "killed by signal %d (%s)", r->signal,
			    strsignal(r->signal));
	} else if (r->exit_code != 0) {
		strbuf_addf(&sb, "exited with status %d", r->exit_code);
	} else {
		return NULL;
	}
	why = log_reason(log);
	if (why) {
		strbuf_addf(&sb, ": %s", why);
		free(why);
	}
	return strbuf_detach(&sb, NULL);
}

char *exec_log_path(const struct exec_ctx *x, enum study_stage kind,
		    const char *name)
{
	char *file = name ? gm_xasprintf("%s-%s.log", study_stage_name(kind), name)
			  : gm_xasprintf("%s.log", study_stage_name(kind));
	char *p = gm_path_join(x->s->paths.logs, file);
	free(file);
	return p;
}

char *exec_record_id(enum study_stage kind, const char *name)
{
	return name ? gm_xasprintf("%s %s", study_stage_name(kind), name)
		    : gm_xstrdup(study_stage_name(kind));
}

/* The record of stage @kind of @name when its inputs are @key. */
struct state_record *exec_current_record(struct exec_ctx *x,
					 enum study_stage kind,
					 const char *name, const char *key)
{
	char *id = exec_record_id(kind, name);
	struct state_record *r = study_state_find(&x->st, id);

	free(id);
	return r && !strcmp(r->key, key) ? r : NULL;
}

int exec_is_failure(const struct state_record *r)
{
	return !strcmp(r->status, "failed") || !strcmp(r->status, "hung");
}

/* ---- test hook ---- */

static int parse_kill_hook(struct exec_ctx *x)
{
	const char *v = getenv(STUDY_KILL_ENV);

	x->kill_stage = -1;
	if (!v || !*v) {
		return 0;
	}
	for (int k = 0; k < STUDY_NR_STAGES; k++) {
		const char *name = study_stage_name(k);
		size_t n = strlen(name);
		if (strncmp(v, name, n) || v[n] != '-') {
			continue;
		}
		for (int p = 0; p < KILL_NR; p++) {
			size_t m = strlen(kill_points[p]);
			char *end;
			if (strncmp(v + n + 1, kill_points[p], m) ||
			    v[n + 1 + m] != ':') {
				continue;
			}
			unsigned long c = strtoul(v + n + 2 + m, &end, 10);
			if (*end || !c) {
				break;
			}
			x->kill_stage = k;
			x->kill_point = p;
			x->kill_n = (unsigned)c;
			return 0;
		}
	}
	struct strbuf sb = STRBUF_INIT;
	for (int k = 0; k < STUDY_NR_STAGES; k++) {
		strbuf_addf(&sb, "%s%s", k ? (k + 1 < STUDY_NR_STAGES ? ", " :
					      " or ") : "",
			    study_stage_name(k));
	}
	gm_error("%s='%s': expected STAGE-POINT:N (STAGE %s; POINT started, "
		 "finished or saved; N >= 1)", STUDY_KILL_ENV, v, sb.buf);
	strbuf_release(&sb);
	return -1;
}

static void kill_hook(struct exec_ctx *x, enum study_stage kind,
		      enum kill_point point)
{
	if (x->kill_stage != (int)kind || x->kill_point != (int)point) {
		return;
	}
	if (++x->kill_seen == x->kill_n) {
		fflush(NULL);
		raise(SIGKILL);
	}
}

static void on_spawned(void *arg)
{
	struct exec_ctx *x = arg;
	kill_hook(x, x->current, KILL_STARTED);
}

static void on_tick(void *arg)
{
	struct exec_ctx *x = arg;
	study_progress_tick(&x->pr);
}

/* ---- deciding what to do ---- */

static int program_key(struct exec_ctx *x, size_t i)
{
	const struct study_program *p = &x->s->programs[i];
	struct prog_info *pi = &x->progs[i];
	char hex[KEY_LEN];
	struct gm_hasher *h;

	if (!p->argv) {
		char *m = with_manifest(p->bundle);
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

/*
 * The option words of the knobs that reach run @run: every knob its
 * variant takes (the table, common/variant.h) that the study sets or
 * derives (study_knob_arg(): `--elastic identity` under same_kernels,
 * `--profile PROFILE`). The policy is the plan's, not a study key.
 */
static void knob_args(const struct study *s, const struct plan_run *run,
		      struct exec_argv *a)
{
	char buf[4096];

	if (run->policy) {
		exec_argv_push(a, gm_knob_find(GM_KNOB_POLICY)->option);
		exec_argv_push(a, run->policy);
	}
	for (size_t i = 0; gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		if ((run->variant->knobs & k->knob) &&
		    !study_knob_arg(s, k, buf, sizeof(buf))) {
			exec_argv_push(a, k->option);
			exec_argv_push(a, buf);
		}
	}
}

static void run_keys(struct exec_ctx *x, size_t i)
{
	const struct study *s = x->s;
	const struct plan_run *run = &x->plan->runs[i];
	struct run_info *ri = &x->runs[i];
	struct gm_hasher *h = exec_key_begin("replay");
	struct exec_argv knobs = { 0 };

	exec_key_add(h, x->wls[run->workload].rkey);
	exec_key_addf(h, "variant=%s", run->variant->name);
	exec_key_addf(h, "min_replays=%u", s->min_replays);
	knob_args(s, run, &knobs);
	for (size_t j = 0; j < knobs.nr; j++) {
		exec_key_add(h, knobs.v[j]);
	}
	exec_argv_release(&knobs);
	/* The profile's inputs, not only its path. */
	if (exec_profile_needed_by(x, i)) {
		exec_key_addf(h, "profile=%s", x->prof.key);
	}
	exec_key_end(h, ri->pkey);

	h = exec_key_begin("analyze");
	exec_key_add(h, ri->pkey);
	exec_key_add(h, s->paths.database);
	exec_key_end(h, ri->akey);
}

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

/*
 * Mark workload @w's build skipped when a capture it needs failed; 1 if
 * so.
 */
static int skip_if_capture_failed(struct exec_ctx *x, size_t w)
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
	if (skip_if_capture_failed(x, w)) {
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

static void decide_run(struct exec_ctx *x, size_t i)
{
	const struct plan_run *run = &x->plan->runs[i];
	struct run_info *ri = &x->runs[i];
	struct wl_info *wi = &x->wls[run->workload];
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
	r = exec_current_record(x, STUDY_STAGE_REPLAY, run->id, ri->pkey);
	if (r && !strcmp(r->status, "ok") && exec_has_manifest(ri->rundir)) {
		ri->do_analyze = 1;
		return;
	}
	if (r && exec_is_failure(r) && !x->o->retry_failed) {
		set_run_failed_record(x, ri, r, STUDY_STAGE_REPLAY, run->id, "");
		return;
	}
	ri->do_replay = ri->do_analyze = 1;
	if (wi->state == BUILD_UNDECIDED) {
		exec_decide_workload(x, run->workload);
	}
	if (exec_set_no_build(x, ri, wi) ||
	    (exec_profile_needed_by(x, i) && exec_profile_decide_for(x, i))) {
		ri->do_replay = ri->do_analyze = 0;
	}
}

static void report_key(struct exec_ctx *x, int predict)
{
	struct gm_hasher *h = exec_key_begin("report");

	exec_key_add(h, x->s->paths.report);
	exec_key_add(h, x->s->paths.database);
	/* Installing gnuplot later redraws the report with its figures. */
	exec_key_add(h, x->no_figures ? "tables" : "figures");
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const struct run_info *ri = &x->runs[i];
		if (ri->status == RUN_OK || (predict && ri->do_analyze)) {
			exec_key_add(h, x->plan->runs[i].id);
			exec_key_add(h, ri->akey);
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
static int report_needed(struct exec_ctx *x, int predict)
{
	int any = 0, loading = x->analyzed > 0;

	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		any |= x->runs[i].status == RUN_OK;
		loading |= predict && x->runs[i].do_analyze;
	}
	any |= loading;
	if (!any) {
		return 0;
	}
	report_key(x, predict);
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

static int decide(struct exec_ctx *x)
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
		if (run->variant->flags & GM_VARIANT_ALONE) {
			run_keys(x, i);
		}
	}
	exec_profile_key(x);
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		if (!(x->plan->runs[i].variant->flags & GM_VARIANT_ALONE)) {
			run_keys(x, i);
		}
	}
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		decide_run(x, i);
	}
	x->report_planned = report_needed(x, 1) == 1;
	if (!x->o->dry_run && x->report_planned &&
	    gm_path_exists(s->paths.report) &&
	    !study_state_find(&x->st, "report")) {
		char *d = exec_disp(s->paths.report);
		gm_error("the report directory '%s' exists and was not written by "
			 "this study", d);
		gm_error_hint("remove it, or set 'paths: report:' in '%s'", s->path);
		free(d);
		return -1;
	}
	return 0;
}

/* ---- running stages ---- */

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
		.spawned = on_spawned,
		.tick = on_tick,
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
	kill_hook(x, kind, KILL_FINISHED);
	x->out->stages_run++;
	return 0;
}

static int save_state(struct exec_ctx *x, enum study_stage kind)
{
	if (study_state_save(&x->st)) {
		return -1;
	}
	kill_hook(x, kind, KILL_SAVED);
	return 0;
}

/* Record a finished stage and report its outcome on the progress line. */
int exec_finish_stage(struct exec_ctx *x, enum study_stage kind,
		      const char *id, const char *key, const char *status,
		      const char *reason, const struct stage_result *res)
{
	char *rid = exec_record_id(kind, id);

	study_state_set(&x->st, rid, status, key, reason, res->seconds);
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

static int capture(struct exec_ctx *x, size_t i)
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

int exec_remove_output(const char *dir)
{
	if (gm_remove_tree(dir)) {
		return gm_error("cannot remove the stale output '%s'", dir);
	}
	return 0;
}

static char *run_label(const struct exec_ctx *x, size_t i, enum study_stage k)
{
	const struct plan_run *run = &x->plan->runs[i];
	const char *wname = x->plan->workloads[run->workload].name;

	if (run->policy) {
		return gm_xasprintf("%s %s/%s: %s", wname, run->variant->name,
				    run->policy, study_stage_name(k));
	}
	return gm_xasprintf("%s %s: %s", wname, run->variant->name,
			    study_stage_name(k));
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

	if (exec_remove_output(wi->build)) {
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
 * The outcome of a replay: the run manifest's status and failure when it
 * has one (the replay runtime's own verdict), else the stage's exit.
 */
static const char *replay_outcome(struct exec_ctx *x, struct run_info *ri,
				  const struct stage_result *res,
				  const char *log, char **why)
{
	struct kvfile kv = KVFILE_INIT;
	char *m = with_manifest(ri->rundir);
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
						       "replay %s", *why);
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
			*why = gm_xstrdup("gpumix replay wrote no run manifest");
		} else if (res->timed_out) {
			status = "hung";
		}
	}
	kvfile_release(&kv);
	free(m);
	return status;
}

static int replay(struct exec_ctx *x, size_t i)
{
	const struct study *s = x->s;
	const struct plan_run *run = &x->plan->runs[i];
	struct run_info *ri = &x->runs[i];
	struct exec_argv a = { 0 };
	struct stage_result res;
	char *log = exec_log_path(x, STUDY_STAGE_REPLAY, run->id);
	char *label = run_label(x, i, STUDY_STAGE_REPLAY);
	char buf[64];
	int ret;

	if (exec_remove_output(ri->rundir)) {
		ret = -1;
		goto out;
	}
	exec_argv_push(&a, x->o->exec);
	exec_argv_push(&a, "replay");
	exec_argv_push(&a, x->wls[run->workload].build);
	exec_argv_push(&a, "--variant");
	exec_argv_push(&a, run->variant->name);
	exec_argv_push(&a, "-o");
	exec_argv_push(&a, ri->rundir);
	exec_argv_push(&a, "--min-replays");
	snprintf(buf, sizeof(buf), "%u", s->min_replays);
	exec_argv_push(&a, buf);
	exec_argv_push(&a, "--watchdog");
	snprintf(buf, sizeof(buf), "%g", s->watchdog_s);
	exec_argv_push(&a, buf);
	knob_args(s, run, &a);
	ret = exec_run_stage(x, STUDY_STAGE_REPLAY, label, &a, s->root, log, &res);
	if (ret == 0) {
		char *why;
		const char *status = replay_outcome(x, ri, &res, log, &why);
		if (why) {
			enum run_status st = strcmp(status, "hung")
				? RUN_FAILED : RUN_HUNG;
			exec_set_run(x, ri, st, why, log);
		}
		ret = exec_finish_stage(x, STUDY_STAGE_REPLAY, run->id, ri->pkey, status,
				   why, &res);
		free(why);
	}
out:
	exec_argv_release(&a);
	free(log);
	free(label);
	return ret;
}

static int analyze(struct exec_ctx *x, size_t i)
{
	const struct plan_run *run = &x->plan->runs[i];
	struct run_info *ri = &x->runs[i];
	struct exec_argv a = { 0 };
	struct stage_result res;
	char *log = exec_log_path(x, STUDY_STAGE_ANALYZE, run->id);
	char *label = run_label(x, i, STUDY_STAGE_ANALYZE);
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

void exec_drop_run_stages(struct exec_ctx *x, struct run_info *ri)
{
	if (ri->do_replay) {
		study_progress_drop(&x->pr, STUDY_STAGE_REPLAY);
	}
	if (ri->do_analyze) {
		study_progress_drop(&x->pr, STUDY_STAGE_ANALYZE);
	}
	ri->do_replay = ri->do_analyze = 0;
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
		if (x->plan->runs[i].workload != w || !ri->do_replay) {
			continue;
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
	if (skip_if_capture_failed(x, w)) {
		study_progress_drop(&x->pr, STUDY_STAGE_RECONSTRUCT);
	} else if ((ret = reconstruct(x, w))) {
		return ret;
	}
	if (wi->state != BUILD_UP_TO_DATE) {
		fail_workload_runs(x, w);
	}
	return 0;
}

/* Run the stages of run @i that are to do; 0, 1 (interrupted) or -1. */
static int execute_run(struct exec_ctx *x, size_t i)
{
	struct run_info *ri = &x->runs[i];
	int ret;

	if (ri->do_replay) {
		if ((ret = build_workload(x, x->plan->runs[i].workload))) {
			return ret;
		}
		if (ri->status != RUN_PENDING) {
			return 0;
		}
		if (exec_profile_needed_by(x, i) &&
		    ((ret = exec_profile_ensure(x, i)) ||
		     ri->status != RUN_PENDING)) {
			return ret;
		}
		if ((ret = replay(x, i))) {
			return ret;
		}
		ri->do_replay = 0;
		if (ri->status != RUN_PENDING) {
			exec_drop_run_stages(x, ri);
			return 0;
		}
	}
	if (ri->do_analyze) {
		if ((ret = analyze(x, i))) {
			return ret;
		}
		ri->do_analyze = 0;
	}
	return 0;
}

static int report(struct exec_ctx *x)
{
	const struct study *s = x->s;
	struct exec_argv a = { 0 };
	struct stage_result res;
	char *log = exec_log_path(x, STUDY_STAGE_REPORT, NULL);
	int ret;

	/* Mark the directory as ours before anything is written into it. */
	study_state_set(&x->st, "report", "running", x->report_key, NULL, 0);
	if (study_state_save(&x->st) || exec_remove_output(s->paths.report)) {
		ret = -1;
		goto out;
	}
	exec_argv_push(&a, x->o->exec);
	exec_argv_push(&a, "report");
	exec_argv_push(&a, s->paths.database);
	exec_argv_push(&a, "-o");
	exec_argv_push(&a, s->paths.report);
	if (x->no_figures) {
		exec_argv_push(&a, "--no-figures");
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
	for (size_t i = 0; i < s->nr_programs; i++) {
		if (x->progs[i].cap == CAP_TODO && x->progs[i].needed) {
			study_progress_plan(&x->pr, STUDY_STAGE_CAPTURE);
		}
	}
	for (size_t w = 0; w < x->plan->nr_workloads; w++) {
		if (x->wls[w].state == BUILD_TODO) {
			study_progress_plan(&x->pr, STUDY_STAGE_RECONSTRUCT);
		}
	}
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const struct run_info *ri = &x->runs[i];
		if (ri->do_replay) {
			study_progress_plan(&x->pr, STUDY_STAGE_REPLAY);
		}
		if (ri->do_analyze) {
			study_progress_plan(&x->pr, STUDY_STAGE_ANALYZE);
		}
	}
	if (exec_profile_todo(x)) {
		study_progress_plan(&x->pr, STUDY_STAGE_PROFILE);
	}
	if (x->report_planned) {
		study_progress_plan(&x->pr, STUDY_STAGE_REPORT);
	}
}

/* Run every stage to do; 0, 1 (interrupted) or -1. */
static int execute(struct exec_ctx *x)
{
	const struct study *s = x->s;
	int ret;

	for (size_t i = 0; i < s->nr_programs; i++) {
		if (x->progs[i].cap == CAP_TODO && x->progs[i].needed) {
			if ((ret = capture(x, i))) {
				return ret;
			}
		}
	}
	x->executing = 1;
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		if ((ret = execute_run(x, i))) {
			return ret;
		}
	}
	if (x->report_planned) {
		study_progress_drop(&x->pr, STUDY_STAGE_REPORT);
	}
	int need = report_needed(x, 0);
	if (need == 1) {
		study_progress_plan(&x->pr, STUDY_STAGE_REPORT);
		return report(x);
	}
	return 0;
}

/* ---- entry point ---- */

/*
 * The report's figures need gnuplot. A study that finds none still writes
 * its tables (hours of GPU runs should not end in a failed report), and
 * says so before anything runs.
 */
static void check_gnuplot(struct exec_ctx *x)
{
	const char *g = gm_gnuplot_program();

	if (gm_program_exists(g)) {
		return;
	}
	x->no_figures = 1;
	gm_warning("'%s' was not found: the report will have its tables but "
		   "no figures (install gnuplot-nox, or set GPUMIX_GNUPLOT)", g);
}

/*
 * The mps variant starts an MPS control daemon: without one in PATH its
 * runs fail (each with the reason). Said before anything runs.
 */
static void check_mps(struct exec_ctx *x)
{
	if (study_has_variant_flags(x->s, GM_VARIANT_PROCESSES) &&
	    !gm_program_exists(GM_MPS_CONTROL)) {
		gm_warning("'%s' is not in PATH: the runs of variant 'mps' will "
			   "fail (doc/mps.md)", GM_MPS_CONTROL);
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
	x.start = study_progress_now();
	x.st.lock_fd = -1;
	x.progs = gm_xcalloc(s->nr_programs ? s->nr_programs : 1,
			     sizeof(*x.progs));
	x.runs = gm_xcalloc(plan->nr_runs ? plan->nr_runs : 1, sizeof(*x.runs));
	x.wls = gm_xcalloc(plan->nr_workloads ? plan->nr_workloads : 1,
			   sizeof(*x.wls));
	if (parse_kill_hook(&x)) {
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
	if (!o->dry_run && study_state_lock(&x.st)) {
		goto out;
	}
	check_gnuplot(&x);
	check_mps(&x);
	if (decide(&x)) {
		goto out;
	}
	if (o->dry_run) {
		exec_print_plan(&x);
		exec_count_outcome(&x);
		ret = 0;
		goto out;
	}
	plan_progress(&x);
	stage_exec_catch_signals();
	int r = execute(&x);
	stage_exec_restore_signals();
	study_progress_finish(&x.pr);
	out->seconds = study_progress_now() - x.start;
	if (r == 1) {
		out->interrupted = stage_exec_interrupted();
		if (!out->interrupted) {
			out->interrupted = SIGINT;
		}
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
