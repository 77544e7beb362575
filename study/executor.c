/* SPDX-License-Identifier: MIT */
/*
 * The study executor (see executor.h). Three phases: decide (input hashes
 * of every stage, compared with the state's records, lazily: a stage is
 * only looked at when a later one needs it), then run the stages in plan
 * order (captures, then each run's reconstruct, replay and analyze, then
 * the report), then summarise.
 *
 * Input hashes chain: a capture's hash covers the command line, working
 * directory and the executable's content; a reconstruct's covers the
 * variant and its programs' capture hashes and determinism; a replay's
 * covers the reconstruct's and the replay parameters; an analyze's covers
 * the replay's and the database path; the report's covers every analyzed
 * run. Changing anything upstream therefore redoes exactly what depends
 * on it.
 */
#include "executor.h"

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

#define KEY_LEN (GM_HASH_HEX_LEN + 1)
#define REASON_MAX 300

enum capture_state {
	CAP_UNUSED,		/* in no run */
	CAP_BUNDLE,		/* an existing bundle, never captured */
	CAP_UP_TO_DATE,		/* captured with the same inputs */
	CAP_TODO,		/* to capture now */
	CAP_FAILED,		/* failed with the same inputs */
	CAP_NOT_FOUND,		/* dry run: the executable is missing */
};

struct prog_info {
	char key[KEY_LEN];
	enum capture_state cap;
	int needed;		/* some run to do needs its bundle */
	int changed;		/* captured before, with other inputs */
	char *reason;		/* failure or problem, owned */
	char *log;
};

enum run_status { RUN_PENDING, RUN_OK, RUN_FAILED, RUN_HUNG, RUN_SKIPPED };

static const char *const run_status_names[] = {
	"not run yet", "ok", "failed", "hung", "skipped",
};

struct run_info {
	char rkey[KEY_LEN], pkey[KEY_LEN], akey[KEY_LEN];
	int do_reconstruct, do_replay, do_analyze;
	enum run_status status;
	char *reason;		/* owned */
	char *log;		/* log of the stage that failed, owned */
	char *build, *rundir;	/* owned */
};

enum kill_point { KILL_STARTED, KILL_FINISHED, KILL_SAVED, KILL_NR };
static const char *const kill_points[KILL_NR] = { "started", "finished",
						  "saved" };

struct exec_ctx {
	const struct study *s;
	const struct study_plan *plan;
	const struct study_run_opts *o;
	struct study_outcome *out;
	struct study_state st;
	struct prog_info *progs;
	struct run_info *runs;
	struct study_progress pr;
	int report_planned;
	int analyzed;		/* runs loaded into the database just now */
	char report_key[KEY_LEN];
	char *report_reason, *report_log;
	int report_state;	/* 0 not written, 1 written, -1 failed */
	int no_figures;		/* gnuplot missing: tables only */
	/* GPUMIX_STUDY_KILL_AT=STAGE-POINT:N (tests). */
	int kill_stage, kill_point;
	unsigned kill_n, kill_seen;
	enum study_stage current;
	double start;
};

/* ---- input hashes ---- */

static struct gm_hasher *key_begin(const char *what)
{
	struct gm_hasher *h = gm_hasher_new();

	if (!h) {
		fputs("fatal: out of memory\n", stderr);
		abort();
	}
	gm_hasher_update(h, what, strlen(what) + 1);
	return h;
}

static void key_add(struct gm_hasher *h, const char *s)
{
	gm_hasher_update(h, s, strlen(s) + 1);
}

static void key_addf(struct gm_hasher *h, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	key_add(h, sb.buf);
	strbuf_release(&sb);
}

static void key_end(struct gm_hasher *h, char out[KEY_LEN])
{
	gm_hash_hex(gm_hasher_final(h), out);
	gm_hasher_free(h);
}

/* ---- small helpers ---- */

struct argv {
	char **v;
	size_t nr, alloc;
};

static void argv_push(struct argv *a, const char *s)
{
	GM_ALLOC_GROW(a->v, a->nr + 2, a->alloc);
	a->v[a->nr++] = gm_xstrdup(s);
	a->v[a->nr] = NULL;
}

static void argv_release(struct argv *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		free(a->v[i]);
	}
	free(a->v);
	memset(a, 0, sizeof(*a));
}

static char *disp(const char *abs)
{
	return study_path_display(abs);
}

static char *with_manifest(const char *dir)
{
	return gm_path_join(dir, "manifest");
}

static int has_manifest(const char *dir)
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
static char *tidy_reason(const char *s)
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
			ret = tidy_reason(line);
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
		ret = tidy_reason(line);
		free(line);
	}
	strbuf_release(&sb);
	return ret;
}

/* Why a stage failed, or NULL when it succeeded (exit 0). */
static char *stage_failure(const struct exec_ctx *x, const struct stage_result *r,
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

static char *log_path(const struct exec_ctx *x, enum study_stage kind,
		      const char *name)
{
	char *file = name ? gm_xasprintf("%s-%s.log", study_stage_name(kind), name)
			  : gm_xasprintf("%s.log", study_stage_name(kind));
	char *p = gm_path_join(x->s->paths.logs, file);
	free(file);
	return p;
}

static char *record_id(enum study_stage kind, const char *name)
{
	return name ? gm_xasprintf("%s %s", study_stage_name(kind), name)
		    : gm_xstrdup(study_stage_name(kind));
}

/* The record of stage @kind of @name when its inputs are @key. */
static struct state_record *current_record(struct exec_ctx *x,
					   enum study_stage kind,
					   const char *name, const char *key)
{
	char *id = record_id(kind, name);
	struct state_record *r = study_state_find(&x->st, id);

	free(id);
	return r && !strcmp(r->key, key) ? r : NULL;
}

static int is_failure(const struct state_record *r)
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
	return gm_error("%s='%s': expected STAGE-POINT:N (STAGE capture, "
			"reconstruct, replay, analyze or report; POINT started, "
			"finished or saved; N >= 1)", STUDY_KILL_ENV, v);
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
		h = key_begin("bundle");
		key_add(h, hex);
		key_end(h, pi->key);
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
		pi->reason = tidy_reason(gm_error_message());
		gm_error_clear();
		pi->cap = CAP_NOT_FOUND;
		snprintf(pi->key, KEY_LEN, "missing");
		return 0;
	}
	free(exe);
	h = key_begin("capture");
	for (size_t a = 0; a < p->argc; a++) {
		key_add(h, p->argv[a]);
	}
	key_addf(h, "cwd=%s", p->cwd_rel);
	key_add(h, hex);
	key_end(h, pi->key);
	return 0;
}

static void decide_program(struct exec_ctx *x, size_t i)
{
	const struct study_program *p = &x->s->programs[i];
	struct prog_info *pi = &x->progs[i];
	char *id = record_id(STUDY_STAGE_CAPTURE, p->name);
	struct state_record *r = study_state_find(&x->st, id);

	free(id);
	if (pi->cap == CAP_BUNDLE || pi->cap == CAP_NOT_FOUND) {
		return;
	}
	pi->changed = r && strcmp(r->key, pi->key);
	if (r && !pi->changed && !strcmp(r->status, "done") &&
	    has_manifest(p->bundle)) {
		pi->cap = CAP_UP_TO_DATE;
	} else if (r && !pi->changed && is_failure(r) && !x->o->retry_failed) {
		pi->cap = CAP_FAILED;
		pi->reason = gm_xstrdup(r->reason ? r->reason : "failed");
		pi->log = log_path(x, STUDY_STAGE_CAPTURE, p->name);
	} else {
		pi->cap = CAP_TODO;
	}
}

static void run_keys(struct exec_ctx *x, size_t i)
{
	const struct study *s = x->s;
	const struct plan_run *run = &x->plan->runs[i];
	const struct plan_workload *w = &x->plan->workloads[run->workload];
	struct run_info *ri = &x->runs[i];
	struct gm_hasher *h = key_begin("reconstruct");

	key_add(h, run->variant->name);
	for (size_t j = 0; j < w->nr; j++) {
		const struct study_program *p = &s->programs[w->progs[j]];
		key_add(h, p->name);
		key_add(h, x->progs[w->progs[j]].key);
		key_addf(h, "deterministic=%d", p->deterministic);
	}
	key_end(h, ri->rkey);

	h = key_begin("replay");
	key_add(h, ri->rkey);
	key_addf(h, "min_replays=%u", s->min_replays);
	key_addf(h, "policy=%s", run->policy ? run->policy : "none");
	if (run->variant->needs & STUDY_VARIANT_TIMESLICE) {
		key_addf(h, "timeslice=%.9g", s->timeslice_s);
	}
	if (run->variant->needs & STUDY_VARIANT_CHUNK) {
		key_addf(h, "copy_chunk=%llu", (unsigned long long)s->copy_chunk);
	}
	key_end(h, ri->pkey);

	h = key_begin("analyze");
	key_add(h, ri->pkey);
	key_add(h, s->paths.database);
	key_end(h, ri->akey);
}

static void set_run(struct run_info *ri, enum run_status st, const char *reason,
		    const char *log)
{
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
	char *log = log_path(x, kind, id);
	char *why = gm_xasprintf("%s%s", prefix, r->reason ? r->reason : r->status);

	set_run(ri, strcmp(r->status, "hung") ? RUN_FAILED : RUN_HUNG, why, log);
	free(why);
	free(log);
}

/* Mark run @i skipped when a capture it needs failed; 1 if so. */
static int skip_if_capture_failed(struct exec_ctx *x, size_t i)
{
	const struct plan_workload *w =
		&x->plan->workloads[x->plan->runs[i].workload];

	for (size_t j = 0; j < w->nr; j++) {
		const struct prog_info *pi = &x->progs[w->progs[j]];
		if (pi->cap == CAP_FAILED) {
			char *why = gm_xasprintf("capture of '%s' failed: %s",
						 x->s->programs[w->progs[j]].name,
						 pi->reason);
			set_run(&x->runs[i], RUN_SKIPPED, why, pi->log);
			free(why);
			return 1;
		}
	}
	return 0;
}

static void decide_run(struct exec_ctx *x, size_t i)
{
	const struct plan_run *run = &x->plan->runs[i];
	const struct plan_workload *w = &x->plan->workloads[run->workload];
	struct run_info *ri = &x->runs[i];
	struct state_record *r;

	ri->build = gm_path_join(x->s->paths.builds, run->id);
	ri->rundir = gm_path_join(x->s->paths.runs, run->id);
	run_keys(x, i);

	r = current_record(x, STUDY_STAGE_ANALYZE, run->id, ri->akey);
	if (r && !strcmp(r->status, "done") &&
	    gm_path_exists(x->s->paths.database)) {
		set_run(ri, RUN_OK, NULL, NULL);
		return;
	}
	if (r && is_failure(r) && !x->o->retry_failed) {
		set_run_failed_record(x, ri, r, STUDY_STAGE_ANALYZE, run->id,
				      "analyze failed: ");
		return;
	}
	r = current_record(x, STUDY_STAGE_REPLAY, run->id, ri->pkey);
	if (r && !strcmp(r->status, "ok") && has_manifest(ri->rundir)) {
		ri->do_analyze = 1;
		return;
	}
	if (r && is_failure(r) && !x->o->retry_failed) {
		set_run_failed_record(x, ri, r, STUDY_STAGE_REPLAY, run->id, "");
		return;
	}
	ri->do_replay = ri->do_analyze = 1;
	r = current_record(x, STUDY_STAGE_RECONSTRUCT, run->id, ri->rkey);
	if (r && !strcmp(r->status, "done") && gm_is_dir(ri->build)) {
		return;
	}
	if (r && is_failure(r) && !x->o->retry_failed) {
		ri->do_replay = ri->do_analyze = 0;
		set_run_failed_record(x, ri, r, STUDY_STAGE_RECONSTRUCT, run->id,
				      "reconstruct failed: ");
		return;
	}
	ri->do_reconstruct = 1;
	if (skip_if_capture_failed(x, i)) {
		ri->do_reconstruct = ri->do_replay = ri->do_analyze = 0;
		return;
	}
	for (size_t j = 0; j < w->nr; j++) {
		x->progs[w->progs[j]].needed = 1;
	}
}

static void report_key(struct exec_ctx *x, int predict)
{
	struct gm_hasher *h = key_begin("report");

	key_add(h, x->s->paths.report);
	key_add(h, x->s->paths.database);
	/* Installing gnuplot later redraws the report with its figures. */
	key_add(h, x->no_figures ? "tables" : "figures");
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const struct run_info *ri = &x->runs[i];
		if (ri->status == RUN_OK || (predict && ri->do_analyze)) {
			key_add(h, x->plan->runs[i].id);
			key_add(h, ri->akey);
		}
	}
	key_end(h, x->report_key);
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
	struct state_record *r = current_record(x, STUDY_STAGE_REPORT, NULL,
						x->report_key);
	if (r && !strcmp(r->status, "done") && gm_is_dir(x->s->paths.report) &&
	    !loading) {
		x->report_state = 1;
		return 0;
	}
	if (r && is_failure(r) && !x->o->retry_failed) {
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
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		decide_run(x, i);
	}
	x->report_planned = report_needed(x, 1) == 1;
	if (!x->o->dry_run && x->report_planned &&
	    gm_path_exists(s->paths.report) &&
	    !study_state_find(&x->st, "report")) {
		char *d = disp(s->paths.report);
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
static int run_stage(struct exec_ctx *x, enum study_stage kind,
		     const char *label, struct argv *args, const char *cwd,
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
static int finish_stage(struct exec_ctx *x, enum study_stage kind,
			const char *id, const char *key, const char *status,
			const char *reason, const struct stage_result *res)
{
	char *rid = record_id(kind, id);

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
	struct argv a = { 0 };
	struct stage_result res;
	char *log = log_path(x, STUDY_STAGE_CAPTURE, p->name);
	char *label = gm_xasprintf("%s: capture", p->name);
	int ret;

	argv_push(&a, x->o->exec);
	argv_push(&a, "capture");
	argv_push(&a, "-o");
	argv_push(&a, p->bundle);
	if (gm_path_exists(p->bundle)) {
		argv_push(&a, "--force");
	}
	argv_push(&a, "--");
	for (size_t j = 0; j < p->argc; j++) {
		argv_push(&a, p->argv[j]);
	}
	ret = run_stage(x, STUDY_STAGE_CAPTURE, label, &a, p->cwd, log, &res);
	if (ret == 0) {
		char *why = stage_failure(x, &res, log);
		if (!why && !has_manifest(p->bundle)) {
			why = gm_xstrdup("gpumix capture wrote no bundle manifest");
		}
		pi->cap = why ? CAP_FAILED : CAP_UP_TO_DATE;
		if (why) {
			pi->reason = why;
			pi->log = gm_xstrdup(log);
		}
		ret = finish_stage(x, STUDY_STAGE_CAPTURE, p->name, pi->key,
				   why ? "failed" : "done", why, &res);
	}
	argv_release(&a);
	free(log);
	free(label);
	return ret;
}

static int remove_output(const char *dir)
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

static int reconstruct(struct exec_ctx *x, size_t i)
{
	const struct plan_run *run = &x->plan->runs[i];
	const struct plan_workload *w = &x->plan->workloads[run->workload];
	struct run_info *ri = &x->runs[i];
	struct argv a = { 0 };
	struct stage_result res;
	char *log = log_path(x, STUDY_STAGE_RECONSTRUCT, run->id);
	char *label = run_label(x, i, STUDY_STAGE_RECONSTRUCT);
	int ret;

	if (remove_output(ri->build)) {
		ret = -1;
		goto out;
	}
	argv_push(&a, x->o->exec);
	argv_push(&a, "reconstruct");
	argv_push(&a, "--variant");
	argv_push(&a, run->variant->name);
	argv_push(&a, "-o");
	argv_push(&a, ri->build);
	for (size_t j = 0; j < w->nr; j++) {
		const struct study_program *p = &x->s->programs[w->progs[j]];
		if (!p->deterministic) {
			argv_push(&a, "--nondeterministic");
			argv_push(&a, p->name);
		}
	}
	for (size_t j = 0; j < w->nr; j++) {
		argv_push(&a, x->s->programs[w->progs[j]].bundle);
	}
	ret = run_stage(x, STUDY_STAGE_RECONSTRUCT, label, &a, x->s->root, log,
			&res);
	if (ret == 0) {
		char *why = stage_failure(x, &res, log);
		if (why) {
			char *r = gm_xasprintf("reconstruct failed: %s", why);
			set_run(ri, RUN_FAILED, r, log);
			free(r);
		}
		ret = finish_stage(x, STUDY_STAGE_RECONSTRUCT, run->id, ri->rkey,
				   why ? "failed" : "done", why, &res);
		free(why);
	}
out:
	argv_release(&a);
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
			*why = stage_failure(x, res, log);
			if (*why) {
				status = "failed";
				char *w = gm_xasprintf("the run says ok but gpumix "
						       "replay %s", *why);
				free(*why);
				*why = w;
			}
		} else if (st && (!strcmp(st, "failed") || !strcmp(st, "hung"))) {
			status = !strcmp(st, "hung") ? "hung" : "failed";
			*why = tidy_reason(fail && *fail ? fail :
					   "the run gives no reason");
		} else {
			*why = gm_xasprintf("the run manifest has no valid status "
					    "('%s')", st ? st : "");
		}
	} else {
		gm_error_clear();
		*why = stage_failure(x, res, log);
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
	struct argv a = { 0 };
	struct stage_result res;
	char *log = log_path(x, STUDY_STAGE_REPLAY, run->id);
	char *label = run_label(x, i, STUDY_STAGE_REPLAY);
	char buf[64];
	int ret;

	if (remove_output(ri->rundir)) {
		ret = -1;
		goto out;
	}
	argv_push(&a, x->o->exec);
	argv_push(&a, "replay");
	argv_push(&a, ri->build);
	argv_push(&a, "-o");
	argv_push(&a, ri->rundir);
	argv_push(&a, "--min-replays");
	snprintf(buf, sizeof(buf), "%u", s->min_replays);
	argv_push(&a, buf);
	argv_push(&a, "--watchdog");
	snprintf(buf, sizeof(buf), "%g", s->watchdog_s);
	argv_push(&a, buf);
	if (run->policy) {
		argv_push(&a, "--policy");
		argv_push(&a, run->policy);
	}
	if (run->variant->needs & STUDY_VARIANT_TIMESLICE) {
		argv_push(&a, "--timeslice-us");
		snprintf(buf, sizeof(buf), "%.0f", s->timeslice_s * 1e6);
		argv_push(&a, buf);
	}
	if (run->variant->needs & STUDY_VARIANT_CHUNK) {
		argv_push(&a, "--copy-chunk");
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)s->copy_chunk);
		argv_push(&a, buf);
	}
	ret = run_stage(x, STUDY_STAGE_REPLAY, label, &a, s->root, log, &res);
	if (ret == 0) {
		char *why;
		const char *status = replay_outcome(x, ri, &res, log, &why);
		if (why) {
			set_run(ri, strcmp(status, "hung") ? RUN_FAILED : RUN_HUNG,
				why, log);
		}
		ret = finish_stage(x, STUDY_STAGE_REPLAY, run->id, ri->pkey, status,
				   why, &res);
		free(why);
	}
out:
	argv_release(&a);
	free(log);
	free(label);
	return ret;
}

static int analyze(struct exec_ctx *x, size_t i)
{
	const struct plan_run *run = &x->plan->runs[i];
	struct run_info *ri = &x->runs[i];
	struct argv a = { 0 };
	struct stage_result res;
	char *log = log_path(x, STUDY_STAGE_ANALYZE, run->id);
	char *label = run_label(x, i, STUDY_STAGE_ANALYZE);
	int ret;

	argv_push(&a, x->o->exec);
	argv_push(&a, "analyze");
	argv_push(&a, ri->rundir);
	argv_push(&a, "-o");
	argv_push(&a, x->s->paths.database);
	ret = run_stage(x, STUDY_STAGE_ANALYZE, label, &a, x->s->root, log, &res);
	if (ret == 0) {
		char *why = stage_failure(x, &res, log);
		if (why) {
			char *r = gm_xasprintf("analyze failed: %s", why);
			set_run(ri, RUN_FAILED, r, log);
			free(r);
		} else {
			set_run(ri, RUN_OK, NULL, NULL);
			x->analyzed++;
		}
		ret = finish_stage(x, STUDY_STAGE_ANALYZE, run->id, ri->akey,
				   why ? "failed" : "done", why, &res);
		free(why);
	}
	argv_release(&a);
	free(log);
	free(label);
	return ret;
}

static void drop_run_stages(struct exec_ctx *x, struct run_info *ri)
{
	if (ri->do_reconstruct) {
		study_progress_drop(&x->pr, STUDY_STAGE_RECONSTRUCT);
	}
	if (ri->do_replay) {
		study_progress_drop(&x->pr, STUDY_STAGE_REPLAY);
	}
	if (ri->do_analyze) {
		study_progress_drop(&x->pr, STUDY_STAGE_ANALYZE);
	}
	ri->do_reconstruct = ri->do_replay = ri->do_analyze = 0;
}

/* Run the stages of run @i that are to do; 0, 1 (interrupted) or -1. */
static int execute_run(struct exec_ctx *x, size_t i)
{
	struct run_info *ri = &x->runs[i];
	int ret;

	if (ri->do_reconstruct) {
		if (skip_if_capture_failed(x, i)) {
			drop_run_stages(x, ri);
			return 0;
		}
		if ((ret = reconstruct(x, i))) {
			return ret;
		}
		ri->do_reconstruct = 0;
		if (ri->status != RUN_PENDING) {
			drop_run_stages(x, ri);
			return 0;
		}
	}
	if (ri->do_replay) {
		if ((ret = replay(x, i))) {
			return ret;
		}
		ri->do_replay = 0;
		if (ri->status != RUN_PENDING) {
			drop_run_stages(x, ri);
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
	struct argv a = { 0 };
	struct stage_result res;
	char *log = log_path(x, STUDY_STAGE_REPORT, NULL);
	int ret;

	/* Mark the directory as ours before anything is written into it. */
	study_state_set(&x->st, "report", "running", x->report_key, NULL, 0);
	if (study_state_save(&x->st) || remove_output(s->paths.report)) {
		ret = -1;
		goto out;
	}
	argv_push(&a, x->o->exec);
	argv_push(&a, "report");
	argv_push(&a, s->paths.database);
	argv_push(&a, "-o");
	argv_push(&a, s->paths.report);
	if (x->no_figures) {
		argv_push(&a, "--no-figures");
	}
	ret = run_stage(x, STUDY_STAGE_REPORT, "report", &a, s->root, log, &res);
	if (ret == 0) {
		char *why = stage_failure(x, &res, log);
		x->report_state = why ? -1 : 1;
		if (why) {
			x->report_reason = gm_xstrdup(why);
			x->report_log = gm_xstrdup(log);
		}
		ret = finish_stage(x, STUDY_STAGE_REPORT, NULL, x->report_key,
				   why ? "failed" : "done", why, &res);
		free(why);
	}
out:
	argv_release(&a);
	free(log);
	return ret;
}

static int make_dirs(const struct study *s)
{
	const char *dirs[] = { s->paths.output, s->paths.logs, s->paths.bundles,
			       s->paths.builds, s->paths.runs };
	const char *files[] = { s->paths.database, s->paths.state,
				s->paths.summary, s->paths.report };

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
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const struct run_info *ri = &x->runs[i];
		if (ri->do_reconstruct) {
			study_progress_plan(&x->pr, STUDY_STAGE_RECONSTRUCT);
		}
		if (ri->do_replay) {
			study_progress_plan(&x->pr, STUDY_STAGE_REPLAY);
		}
		if (ri->do_analyze) {
			study_progress_plan(&x->pr, STUDY_STAGE_ANALYZE);
		}
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
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		int was_pending = x->runs[i].status == RUN_PENDING;
		if ((ret = execute_run(x, i))) {
			return ret;
		}
		if (was_pending && x->runs[i].status != RUN_PENDING) {
			x->pr.runs_done++;
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

/* ---- output ---- */

static const char *capture_label(const struct prog_info *pi)
{
	switch (pi->cap) {
	case CAP_UNUSED:
		return "unused";
	case CAP_BUNDLE:
		return "bundle";
	case CAP_UP_TO_DATE:
		return "captured";
	case CAP_TODO:
		return !pi->needed ? "not needed" : pi->changed ? "recapture"
								: "capture";
	case CAP_FAILED:
		return "failed";
	case CAP_NOT_FOUND:
		return "not found";
	}
	return "?";
}

/* A command word as the user would type it (quoted when needed). */
static void print_word(FILE *f, const char *w)
{
	if (*w && !strpbrk(w, " \t\n'\"\\$`*?;&|<>()")) {
		fputs(w, f);
		return;
	}
	fputc('\'', f);
	for (; *w; w++) {
		if (*w == '\'') {
			fputs("'\\''", f);
		} else {
			fputc(*w, f);
		}
	}
	fputc('\'', f);
}

static void print_plan(struct exec_ctx *x)
{
	const struct study *s = x->s;
	const struct study_plan *plan = x->plan;
	FILE *f = x->o->out;
	size_t todo[STUDY_NR_STAGES] = { 0 };
	struct strbuf missing = STRBUF_INIT;
	char *file = disp(s->path);

	fprintf(f, "study '%s' (%s): %zu workload%s", s->name, file,
		plan->nr_user_workloads, plan->nr_user_workloads == 1 ? "" : "s");
	free(file);
	fputs(", variants", f);
	for (size_t i = 0; i < s->nr_variants; i++) {
		fprintf(f, "%s %s", i ? "," : "", s->variants[i]->name);
	}
	if (s->nr_policies) {
		fputs(", policies", f);
		for (size_t i = 0; i < s->nr_policies; i++) {
			fprintf(f, "%s %s", i ? "," : "", s->policies[i]);
		}
	}
	fprintf(f, ": %zu runs", plan->nr_runs);
	if (plan->nr_baselines) {
		fprintf(f, " (%zu single baselines, one per program)",
			plan->nr_baselines);
	}
	fputs("\n\nprograms:\n", f);
	for (size_t i = 0; i < s->nr_programs; i++) {
		const struct study_program *p = &s->programs[i];
		const struct prog_info *pi = &x->progs[i];
		fprintf(f, "  %-12s %-10s ", p->name, capture_label(pi));
		if (p->argv) {
			for (size_t j = 0; j < p->argc; j++) {
				fputs(j ? " " : "", f);
				print_word(f, p->argv[j]);
			}
		} else {
			char *b = disp(p->bundle);
			fputs(b, f);
			free(b);
		}
		if (pi->reason) {
			fprintf(f, " (%s)", pi->reason);
		}
		fputc('\n', f);
		if (pi->needed && (pi->cap == CAP_TODO || pi->cap == CAP_NOT_FOUND)) {
			todo[STUDY_STAGE_CAPTURE]++;
			strbuf_addf(&missing, "%s%s", missing.len ? ", " : "", p->name);
		}
	}
	fputs("\nruns:\n", f);
	for (size_t i = 0; i < plan->nr_runs; i++) {
		const struct run_info *ri = &x->runs[i];
		fprintf(f, "  %-36s ", plan->runs[i].id);
		if (ri->status == RUN_OK) {
			fputs("done\n", f);
		} else if (ri->status != RUN_PENDING) {
			fprintf(f, "%s: %s\n", run_status_names[ri->status],
				ri->reason ? ri->reason : "");
		} else {
			fprintf(f, "to do:%s%s%s\n",
				ri->do_reconstruct ? " reconstruct" : "",
				ri->do_replay ? " replay" : "",
				ri->do_analyze ? " analyze" : "");
		}
		todo[STUDY_STAGE_RECONSTRUCT] += ri->do_reconstruct;
		todo[STUDY_STAGE_REPLAY] += ri->do_replay;
		todo[STUDY_STAGE_ANALYZE] += ri->do_analyze;
	}
	todo[STUDY_STAGE_REPORT] = x->report_planned;
	fprintf(f, "\ncaptures missing: %s\n", missing.len ? missing.buf : "none");
	fprintf(f, "to do: %zu captures, %zu reconstructs, %zu replays, "
		"%zu analyses, %zu report\n", todo[STUDY_STAGE_CAPTURE],
		todo[STUDY_STAGE_RECONSTRUCT], todo[STUDY_STAGE_REPLAY],
		todo[STUDY_STAGE_ANALYZE], todo[STUDY_STAGE_REPORT]);
	size_t kept = 0;
	for (size_t i = 0; i < plan->nr_runs; i++) {
		kept += x->runs[i].status == RUN_FAILED ||
			x->runs[i].status == RUN_HUNG;
	}
	if (kept) {
		fprintf(f, "note: %zu failed or hung run%s kept as recorded; "
			"--retry-failed runs %s again\n", kept, kept == 1 ? " is" :
			"s are", kept == 1 ? "it" : "them");
	}
	if (!study_has_variant(s, "single")) {
		fputs("note: no 'single' variant: STP and ANTT cannot be "
		      "computed\n", f);
	}
	strbuf_release(&missing);
}

static void md_cell(struct strbuf *sb, const char *s)
{
	for (; s && *s; s++) {
		if (*s == '|') {
			strbuf_addstr(sb, "\\|");
		} else {
			strbuf_addch(sb, *s);
		}
	}
}

static void count_outcome(struct exec_ctx *x)
{
	struct study_outcome *o = x->out;

	o->runs = x->plan->nr_runs;
	o->ok = o->failed = o->hung = o->skipped = o->pending = 0;
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		switch (x->runs[i].status) {
		case RUN_OK:
			o->ok++;
			break;
		case RUN_FAILED:
			o->failed++;
			break;
		case RUN_HUNG:
			o->hung++;
			break;
		case RUN_SKIPPED:
			o->skipped++;
			break;
		case RUN_PENDING:
			o->pending++;
			break;
		}
	}
	o->report_failed = x->report_state < 0;
}

static void format_summary(struct exec_ctx *x, struct strbuf *sb)
{
	const struct study *s = x->s;
	const struct study_outcome *o = x->out;
	char t[32];
	char *file = disp(s->path), *db = disp(s->paths.database);
	char *rep = disp(s->paths.report), *state = disp(s->paths.state);

	study_progress_format_duration(t, sizeof(t), o->seconds);
	strbuf_addf(sb, "# Study %s\n\n", s->name);
	strbuf_addf(sb, "- study file: %s\n", file);
	strbuf_addf(sb, "- runs: %zu: %zu ok, %zu failed, %zu hung, %zu skipped, "
		    "%zu not run yet\n", o->runs, o->ok, o->failed, o->hung,
		    o->skipped, o->pending);
	strbuf_addf(sb, "- this invocation: %zu stages run (%zu failed) in %s\n",
		    o->stages_run, o->stages_failed, t);
	if (o->interrupted) {
		strbuf_addf(sb, "- interrupted by %s: run the same command to "
			    "continue\n", strsignal(o->interrupted));
	}
	strbuf_addf(sb, "- database: %s\n", db);
	if (x->report_state > 0) {
		strbuf_addf(sb, "- report: %s%s\n", rep,
			    x->no_figures ? " (tables only: gnuplot was not "
					    "found)" : "");
	} else if (x->report_state < 0) {
		strbuf_addf(sb, "- report: failed: %s\n", x->report_reason);
	} else if (o->interrupted) {
		strbuf_addstr(sb, "- report: not written yet\n");
	} else {
		strbuf_addstr(sb, "- report: not written (no run was analyzed)\n");
	}
	strbuf_addf(sb, "- state: %s\n\n", state);
	strbuf_addstr(sb, "| run | workload | variant | status | reason |\n"
		      "| --- | --- | --- | --- | --- |\n");
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const struct plan_run *run = &x->plan->runs[i];
		const struct run_info *ri = &x->runs[i];
		strbuf_addf(sb, "| %s | %s | %s%s%s | %s | ", run->id,
			    x->plan->workloads[run->workload].name,
			    run->variant->name, run->policy ? "/" : "",
			    run->policy ? run->policy : "",
			    run_status_names[ri->status]);
		md_cell(sb, ri->reason);
		strbuf_addstr(sb, " |\n");
	}
	int header = 0;
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const struct run_info *ri = &x->runs[i];
		if (ri->status == RUN_OK || ri->status == RUN_PENDING) {
			continue;
		}
		if (!header) {
			strbuf_addstr(sb, "\n## Failed, hung and skipped runs\n\n");
			header = 1;
		}
		strbuf_addf(sb, "- %s: %s: %s", x->plan->runs[i].id,
			    run_status_names[ri->status], ri->reason);
		if (ri->log) {
			char *l = disp(ri->log);
			strbuf_addf(sb, " (log: %s)", l);
			free(l);
		}
		strbuf_addch(sb, '\n');
	}
	free(file);
	free(db);
	free(rep);
	free(state);
}

static int write_summary(struct exec_ctx *x)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	count_outcome(x);
	format_summary(x, &sb);
	fputs(sb.buf, x->o->out);
	fflush(x->o->out);
	atomic_file_remove_stale(x->s->paths.summary);	/* (we hold the lock) */
	ret = gm_write_file_atomic(x->s->paths.summary, sb.buf, sb.len, 1);
	strbuf_release(&sb);
	return ret;
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
			free(x->runs[i].build);
			free(x->runs[i].rundir);
		}
	}
	free(x->progs);
	free(x->runs);
	free(x->report_reason);
	free(x->report_log);
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
	if (decide(&x)) {
		goto out;
	}
	if (o->dry_run) {
		print_plan(&x);
		count_outcome(&x);
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
	ret = write_summary(&x);
out:
	ctx_release(&x);
	return ret;
}
