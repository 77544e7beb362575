/* SPDX-License-Identifier: MIT */
/*
 * Running one stage of a study as a child process: stdout and stderr to a
 * log file, stdin from /dev/null, an optional time limit (SIGTERM, then
 * SIGKILL), and the study's own SIGINT/SIGTERM/SIGHUP forwarded to the
 * child, so a crashed, hung or interrupted stage is recorded without
 * taking the study down. A stage runs in a process group of its own and
 * signals go to the whole group, so whatever the stage started stops too. The child gets PR_SET_PDEATHSIG(SIGTERM): when
 * the study itself is killed (even by SIGKILL) its running stage is told
 * to stop too.
 */
#ifndef GM_STAGE_EXEC_H
#define GM_STAGE_EXEC_H

#include "run_command.h"

struct stage_cmd {
	char *const *argv;	/* argv[0] is the executable's path */
	const char *path;	/* the executable, when not argv[0] */
	const char *cwd;	/* directory to run in, or NULL */
	const char *log_path;	/* stdout + stderr, truncated first */
	double timeout_s;	/* 0: no limit */
	double grace_s;		/* SIGTERM to SIGKILL (0: 10 s) */
	/* NULL-terminated "NAME=VALUE" set in the child, or NULL. */
	char *const *env;
	/* Called in the parent once the child exists (test hooks). */
	void (*spawned)(void *arg);
	/* Called about every 100 ms while the child runs (progress). */
	void (*tick)(void *arg);
	void *arg;
};

struct stage_result {
	int exit_code;		/* exit status, or -1 when killed by a signal */
	int signal;		/* the signal that ended it, or 0 */
	int timed_out;		/* it ran past timeout_s and was stopped */
	int interrupted;	/* the study was interrupted while it ran */
	double seconds;		/* wall time */
};

/*
 * Run @c and wait for it. Returns 0 when the child ran (whatever its
 * outcome, described in @r), -1 when it could not be started (the log
 * could not be opened, fork failed, chdir or exec failed; cause recorded).
 */
int stage_exec_run(const struct stage_cmd *c, struct stage_result *r);

/*
 * A stage started without waiting (several run at once, one per GPU):
 * stage_exec_start() starts it, stage_exec_poll() looks at it without
 * blocking. @c must stay valid until it has ended.
 */
struct stage_proc {
	const struct stage_cmd *c;
	struct gm_run_command cmd;	/* @c as run_command.h runs it */
	struct gm_run_child ch;
	int pid;		/* its process (group) id */
	struct stage_result r;	/* filled in when it has ended */
};

/* Start @c; 0, or -1 when it could not be started (as stage_exec_run). */
int stage_exec_start(const struct stage_cmd *c, struct stage_proc *p);

/*
 * Forward an interruption to @p, stop it at its time limit, and reap it
 * when it has ended: 1 then (p->r says how), else 0. Never blocks.
 */
int stage_exec_poll(struct stage_proc *p);

/*
 * Catch SIGINT, SIGTERM and SIGHUP for the study: they are remembered and
 * forwarded to the running stage instead of killing the study.
 */
void stage_exec_catch_signals(void);

/* Restore the default actions. */
void stage_exec_restore_signals(void);

/* The signal that interrupted the study, or 0. */
int stage_exec_interrupted(void);

/* Forget a remembered interruption (tests). */
void stage_exec_clear_interrupt(void);

#endif
