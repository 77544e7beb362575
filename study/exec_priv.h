/* SPDX-License-Identifier: MIT */
/*
 * Inside the study executor (executor.h), shared by its files:
 * exec_decide.c decides what to redo from the input hashes,
 * exec_stages.c runs the per-program, per-workload and per-run stages,
 * executor.c orders them, exec_profile.c runs the study's one profile
 * stage, exec_output.c prints the plan (--dry-run) and the summary.
 * Not for use outside study/.
 *
 * The files call each other one way, from the top down (no circle;
 * tests/cli/layering.sh checks it):
 *   executor.c, slurm.c, exec_output.c
 *   exec_decide.c (deciding), exec_stages.c (running)
 *   exec_profile.c, exec_precision.c, exec_stale.c, exec_pool.c
 *   exec_status.c (where runs and builds stand), exec_stage.c (one
 *     stage), exec_args.c, exec_open_loop.c (command lines)
 *   exec_key.c (input hashes), exec_common.c
 * The pool calls no file above it: the caller of exec_pool_start() and
 * exec_pool_drain() says what to do with a replay that ended.
 */
#ifndef GM_STUDY_EXEC_PRIV_H
#define GM_STUDY_EXEC_PRIV_H

#include <stddef.h>

#include "executor.h"
#include "hash.h"
#include "output_dir.h"
#include "stage_exec.h"
#include "strbuf.h"
#include "study_progress.h"
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

enum run_status {
	RUN_PENDING, RUN_OK, RUN_FAILED, RUN_HUNG, RUN_SKIPPED,
	RUN_NOT_NEEDED,		/* a repetition the precision target did
				   not need (exec_precision.c) */
};

/* "not run yet", "ok", "failed", "hung", "skipped", "not needed", by
 * enum run_status. */
extern const char *const exec_run_status_names[];

/*
 * Where a stage done once for many runs stands: a workload's
 * reconstructed program, or the study's kernel profile.
 */
enum build_state {
	BUILD_UNDECIDED,	/* no run to do has needed it yet */
	BUILD_UP_TO_DATE,	/* made with the same inputs */
	BUILD_TODO,		/* to make now */
	BUILD_FAILED,		/* failed, now or before with these inputs */
	BUILD_SKIPPED,		/* an input failed (a capture, a single run) */
};

struct wl_info {
	char rkey[KEY_LEN];
	enum build_state state;
	int hung;		/* BUILD_FAILED: the record says hung */
	char *reason;		/* BUILD_FAILED, BUILD_SKIPPED (owned) */
	char *log;		/* the log that says why (owned) */
	char *build;		/* BUILDS/WORKLOAD (owned) */
};

/* The kernel profile (exec_profile.c), when study_profiles(). */
struct profile_info {
	char key[KEY_LEN];
	enum build_state state;
	int hung;
	char *reason;		/* BUILD_FAILED, BUILD_SKIPPED (owned) */
	char *log;		/* the log that says why (owned) */
};

struct run_info {
	char pkey[KEY_LEN], akey[KEY_LEN];
	int do_replay, do_analyze;
	/* A repetition beyond `repeats` under a precision target whose
	 * need is not decided yet (the repetitions before it have not all
	 * run): exec_precision_gate() decides when its turn comes. */
	int conditional;
	enum run_status status;
	char *reason;		/* owned */
	char *log;		/* log of the stage that failed, owned */
	char *rundir;		/* owned */
};

struct exec_ctx {
	const struct study *s;
	const struct study_plan *plan;
	const struct study_run_opts *o;
	struct study_outcome *out;
	struct study_state st;
	struct prog_info *progs;
	struct wl_info *wls;	/* per plan workload */
	struct run_info *runs;
	struct profile_info prof;
	struct study_progress pr;
	int executing;		/* runs finishing now count as progress */
	int report_planned;
	int analyzed;		/* runs loaded into the database just now */
	/* Runs of an earlier version of the study still in the database
	 * (exec_stale.c): their ids, and how many left it just now. */
	char **stale;
	size_t nr_stale, alloc_stale;
	size_t forgotten;
	char report_key[KEY_LEN];
	char *report_reason, *report_log;
	int report_state;	/* 0 not written, 1 written, -1 failed */
	int figure_scripts;	/* gnuplot missing: the figures' data and
				 * scripts, not drawn */
	/* GPUMIX_STUDY_KILL_AT=STAGE-POINT:N (tests). */
	int kill_stage, kill_point;
	unsigned kill_n, kill_seen;
	enum study_stage current;
	double start;
	/* --gpus: every stage but the replays runs pinned to the first GPU;
	 * the replays run side by side, one per GPU (exec_pool.c). */
	char **stage_env;	/* NULL-terminated, or NULL (owned) */
	struct pool_slot *slots;
	size_t nr_slots;
	/* The precision target's decisions (exec_precision.c). */
	struct precision_state *prec;
};

/* Input hashes (exec_key.c): begin with the stage's word, add strings,
 * end as hex. */
struct gm_hasher *exec_key_begin(const char *what);
void exec_key_add(struct gm_hasher *h, const char *s);
void exec_key_addf(struct gm_hasher *h, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
void exec_key_end(struct gm_hasher *h, char out[KEY_LEN]);

/* A NULL-terminated argument vector of owned strings. */
struct exec_argv {
	char **v;
	size_t nr, alloc;
};

void exec_argv_push(struct exec_argv *a, const char *s);
void exec_argv_release(struct exec_argv *a);

/* @abs as shown to the user, relative when under the current
 * directory (caller frees). */
char *exec_disp(const char *abs);

/* 1 when @dir/manifest exists. */
int exec_has_manifest(const char *dir);

/* @s on one line of at most REASON_MAX characters (caller frees). */
char *exec_tidy_reason(const char *s);

/* Why a stage failed (its exit and its log's error line), or NULL when
 * it succeeded (caller frees). */
char *exec_stage_failure(const struct exec_ctx *x,
			 const struct stage_result *r, const char *log);

/* LOGS/STAGE-NAME.log, or LOGS/STAGE.log without @name (caller frees). */
char *exec_log_path(const struct exec_ctx *x, enum study_stage kind,
		    const char *name);

/* "STAGE NAME", or "STAGE" without @name: a state record's id. */
char *exec_record_id(enum study_stage kind, const char *name);

/* The record of stage @kind of @name when its inputs are @key, or
 * NULL (borrowed). */
struct state_record *exec_current_record(struct exec_ctx *x,
					 enum study_stage kind,
					 const char *name, const char *key);

/* 1 when record @r says failed or hung. */
int exec_is_failure(const struct state_record *r);

/*
 * Runs of an earlier version of the study (exec_stale.c): the runs its
 * state says it loaded into the database that the plan no longer has.
 * exec_stale_decide() lists them in x->stale; exec_stale_forget() takes
 * them out of the database (gpumix analyze --forget RUNS/RUN...) and
 * forgets their analyze records (0, 1 interrupted, -1: as
 * exec_run_stage(); a failed stage keeps them for the next invocation);
 * exec_stale_release() frees the list.
 */
void exec_stale_decide(struct exec_ctx *x);
int exec_stale_forget(struct exec_ctx *x);
void exec_stale_release(struct exec_ctx *x);

/* ---- one stage (exec_stage.c) ---- */

/*
 * Remove the output @dir of @kind (output_dir.h) that its stage is about
 * to write again; 0, or -1 (cause) when it cannot be removed or is not a
 * @kind gpumix wrote.
 */
int exec_remove_output(const char *dir, enum gm_output_kind kind);

/*
 * Run one stage (@args, in @cwd, output to @log). Returns 0 when it ran
 * (@res says how), 1 when the study was interrupted before or during it,
 * -1 when it could not be started.
 */
int exec_run_stage(struct exec_ctx *x, enum study_stage kind,
		   const char *label, struct exec_argv *args, const char *cwd,
		   const char *log, struct stage_result *res);

/* Record a finished stage (@reason NULL when it succeeded), show it on
 * the progress line and save the state; 0 or -1. */
int exec_finish_stage(struct exec_ctx *x, enum study_stage kind,
		      const char *id, const char *key, const char *status,
		      const char *reason, const struct stage_result *res);

/* ---- where runs and builds stand (exec_status.c) ---- */

/* A co-run's captures: 1 when one failed (run @i skipped, with why);
 * those to do are marked needed. */
int exec_corun_captures(struct exec_ctx *x, size_t i);

/* Set run @ri's status, reason and log (copied). */
void exec_set_run(struct exec_ctx *x, struct run_info *ri,
		  enum run_status st, const char *reason, const char *log);

/* Run @ri will not run its remaining stages. */
void exec_drop_run_stages(struct exec_ctx *x, struct run_info *ri);

/* Decide whether workload @w's build is up to date, to do, failed or
 * skipped (a run to do needs it). */
void exec_decide_workload(struct exec_ctx *x, size_t w);

/* Run @ri needs build @wi: when that failed or was skipped, the run
 * fails or is skipped with the reason; 1 if so. */
int exec_set_no_build(struct exec_ctx *x, struct run_info *ri,
		      const struct wl_info *wi);

/* Mark workload @w's build skipped when a capture it needs failed; 1 if
 * so. */
int exec_skip_if_capture_failed(struct exec_ctx *x, size_t w);

/* ---- the kernel profile (exec_profile.c) ---- */

/* 1 when run @i is one the profile is made from: an alone run of the
 * first repetition. */
int exec_profile_input(const struct exec_ctx *x, size_t i);

/* 1 when run @i replays with the profile (its variant takes
 * --profile and the study makes one). */
int exec_profile_needed_by(const struct exec_ctx *x, size_t i);

/*
 * The profile's input hash, from the replay hashes of the alone runs
 * (their keys must be set): into x->prof.key. Call before the keys of
 * the runs that read the profile, which include it.
 */
void exec_profile_key(struct exec_ctx *x);

/*
 * Run @i (to replay, reading the profile) needs it: decide where the
 * profile stands (once); when it failed or cannot be made, the run
 * fails or is skipped with the reason and 1 is returned.
 */
int exec_profile_decide_for(struct exec_ctx *x, size_t i);

/*
 * Make the profile now if it is to do (the alone runs before it in plan
 * order have run), then, like exec_profile_decide_for(), fail or skip
 * run @i when there is none. Returns 0, 1 (interrupted) or -1.
 */
int exec_profile_ensure(struct exec_ctx *x, size_t i);

/* 1 when the profile stage is planned (for the progress estimate). */
int exec_profile_todo(const struct exec_ctx *x);

/* The plan's and the summary's profile lines. */
void exec_profile_print_plan(struct exec_ctx *x, FILE *f, size_t *todo);
void exec_profile_summary(const struct exec_ctx *x, struct strbuf *sb);

void exec_profile_release(struct exec_ctx *x);

/* ---- the precision target (exec_precision.c) ---- */

/*
 * Under a precision target: mark the runs of the repetitions beyond
 * `repeats` still to do conditional, then decide every one whose
 * earlier repetitions have all run (the study state and run directories
 * say how they ended): not needed when its workload's STPs are already
 * precise enough, else to do. Call once every run is decided
 * (exec_decide()). A no-op without a target.
 */
void exec_precision_decide(struct exec_ctx *x);

/*
 * 1 when run @i is conditional and its repetition cannot be decided yet:
 * an earlier repetition has not ended (with --gpus, wait for the replays
 * in flight before exec_precision_gate()).
 */
int exec_precision_undecided(struct exec_ctx *x, size_t i);

/*
 * Run @i's turn has come: when it is conditional, decide its repetition.
 * 1 when it is not needed (it is marked so, its stages dropped), else 0:
 * it runs, as does a repetition that cannot be decided (an earlier one
 * has not run).
 */
int exec_precision_gate(struct exec_ctx *x, size_t i);

/* The plan's and the summary's line on the precision target. */
void exec_precision_print_plan(const struct exec_ctx *x, FILE *f);
void exec_precision_summary(struct exec_ctx *x, struct strbuf *sb);

void exec_precision_release(struct exec_ctx *x);

/* ---- the plan and the summary (exec_output.c) ---- */

/* Print the plan of a dry run to x->o->out. */
void exec_print_plan(struct exec_ctx *x);

/* Count the runs by status into x->out. */
void exec_count_outcome(struct exec_ctx *x);

/* Print the summary to x->o->out and write it to paths.summary; 0 or
 * -1. */
int exec_write_summary(struct exec_ctx *x);

/* The study-kill test hook's points (STUDY_KILL_ENV). */
enum kill_point { KILL_STARTED, KILL_FINISHED, KILL_SAVED, KILL_NR };

/* ---- shared helpers and the test hook (executor.c) ---- */

/* New string "@dir/manifest" (caller frees). */
char *exec_with_manifest(const char *dir);
/* The study-kill test hook: kill the study at @point of stage @kind when
 * STUDY_KILL_ENV asks for it. */
void exec_kill_hook(struct exec_ctx *x, enum study_stage kind,
		    enum kill_point point);
/* stage_exec callbacks (@arg: the struct exec_ctx): a stage's process
 * was started; time passes while it runs (progress). */
void exec_on_spawned(void *arg);
void exec_on_tick(void *arg);
/* Read STUDY_KILL_ENV into @x (kill_stage -1 when unset); -1 with an
 * error when it is not STAGE-POINT:N. */
int exec_parse_kill_hook(struct exec_ctx *x);

/* ---- a run's command line (exec_args.c) ---- */

/* Append to @a the knob options of @run that its variant takes. */
void exec_knob_args(const struct study *s, const struct plan_run *run,
		    struct exec_argv *a);
/* The command line of run @i's replay, or of co-run @i, into @a. */
void exec_replay_args(struct exec_ctx *x, size_t i, struct exec_argv *a);
void exec_corun_args(struct exec_ctx *x, size_t i, struct exec_argv *a);
/*
 * The replay options of run @i's point of the open-loop sweep
 * (exec_open_loop.c), none for a closed-loop run; with @for_key the alone
 * run's input key in place of its directory (the run's input hash).
 */
void exec_open_loop_args(const struct exec_ctx *x, size_t i,
			 struct exec_argv *a, int for_key);

/* ---- deciding what to do (exec_decide.c) ---- */

/* The report's input hash into x->report_key, over the analyzed runs
 * (@predict: and those this execution will analyze). */
void exec_report_key(struct exec_ctx *x, int predict);
/* 1 when the report must be (re)written, 0 when it is up to date, -1
 * when it failed before with the same inputs. */
int exec_report_needed(struct exec_ctx *x, int predict);
/* Decide every stage: 0, or -1 when the study cannot run. */
int exec_decide(struct exec_ctx *x);

/* ---- running the stages (exec_stages.c); 0, or -1 to stop ---- */

/* Capture program @i. */
int exec_capture(struct exec_ctx *x, size_t i);
/* Run @i: its workload's reconstruct when needed, replay, analyze. */
int exec_execute_run(struct exec_ctx *x, size_t i);
/* Write the report. */
int exec_report(struct exec_ctx *x);
/* "mm+spmv cuda: replay": run @i's stage @k on the progress line
 * (caller frees). */
char *exec_run_label(const struct exec_ctx *x, size_t i, enum study_stage k);
/* Wait for every replay in flight (--gpus), recording and analyzing
 * each; 0, 1 (interrupted) or -1. */
int exec_wait_replays(struct exec_ctx *x);

/* ---- replays side by side, one per GPU (exec_pool.c) ---- */

/*
 * What the caller of the pool does with run @i's replay that ended as
 * @res (its log @log): record it and go on with its run. 0, 1
 * (interrupted) or -1, which the pool returns.
 */
typedef int exec_replay_ended_fn(struct exec_ctx *x, size_t i,
				 const struct stage_result *res,
				 const char *log);

/* One GPU's slot per GPU of x->o->gpus, and the environment of the other
 * stages (pinned to the first GPU). */
void exec_pool_init(struct exec_ctx *x);
/*
 * Start run @i's replay (@a, log @log) on the first free GPU, waiting for
 * one to be free (the replays that end meanwhile go to @ended). 0, 1
 * (interrupted) or -1.
 */
int exec_pool_start(struct exec_ctx *x, size_t i, struct exec_argv *a,
		    const char *log, const char *label,
		    exec_replay_ended_fn *ended);
/* Wait for every replay in flight, handing each to @ended; 0, 1
 * (interrupted) or -1. */
int exec_pool_drain(struct exec_ctx *x, exec_replay_ended_fn *ended);
void exec_pool_release(struct exec_ctx *x);

#endif
