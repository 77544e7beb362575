/* SPDX-License-Identifier: MIT */
/*
 * Running another program as a child process, the one way gpumix does it:
 * an argument vector, changes to its environment and a working
 * directory, its standard output and error to a file or a buffer (or
 * left as they are), its input /dev/null, a short text or left as it is,
 * an optional time limit after which its process group gets SIGTERM and,
 * a grace period later, SIGKILL. A program that cannot be started (no
 * such file, a directory that cannot be entered, an output file that
 * cannot be created) is an error of the start, not an exit status, so
 * callers can say which. Started, a child is waited for at once
 * (gm_run_command()), later (gm_run_command_start(), then
 * gm_run_command_wait()) or looked at without blocking
 * (gm_run_command_poll()) when several run together.
 */
#ifndef GM_RUN_COMMAND_H
#define GM_RUN_COMMAND_H

struct strbuf;

struct gm_run_command {
	char *const *argv;	/* NULL-terminated; argv[0] is the program */
	const char *path;	/* the executable when not argv[0], or NULL */
	int search_path;	/* look argv[0] up in PATH (no '/' in it) */
	const char *cwd;	/* directory to run in, or NULL */
	char *const *env;	/* its environment's changes, in order:
				   "NAME=VALUE" sets NAME, "NAME" (no '=')
				   removes it; NULL-terminated, or NULL */
	const char *output;	/* stdout + stderr to this file ... */
	int append;		/* ... appended to (else truncated) */
	struct strbuf *capture;	/* ... or appended to this buffer */
	const char *input;	/* written to its standard input, which then
				   ends (a few lines: the start waits until
				   the pipe takes it all), or NULL ... */
	int keep_input;		/* ... its input is this process's; with
				   neither, /dev/null */
	int close_fds;		/* no descriptor above 2 reaches it (this
				   process's files and pipes stay ours) */
	int keep_signals;	/* its signal mask and ignored signals as
				   this process's (a program run for the
				   user); else SIGINT, SIGTERM and SIGHUP
				   take their default action, none blocked */
	int own_group;		/* lead a process group of its own (implied by
				   timeout_s): signals reach its children */
	int death_signal;	/* sent to it when gpumix dies, or 0 */
	double timeout_s;	/* stop it after this long; 0: no limit */
	double grace_s;		/* from SIGTERM to SIGKILL (0: 10 s) */
};

struct gm_run_result {
	int exit_code;		/* exit status, or -1 when ended by a signal */
	int signal;		/* the signal that ended it, or 0 */
	int timed_out;		/* it ran past timeout_s and was stopped */
	int interrupted;	/* a signal was forwarded to it (poll) */
	int not_run;		/* the start failed: 1 its directory could
				   not be entered, 2 its program could not
				   be executed; else 0 */
	int error;		/* with not_run: the errno of the failure */
	double seconds;		/* wall time */
};

/* A started child (gm_run_command_start()). */
struct gm_run_child {
	const struct gm_run_command *c;
	int pid;
	int out_fd;		/* the capture pipe, or -1 */
	double start, kill_at;
	int forwarded, killed;
	struct gm_run_result r;	/* filled in when it has ended */
};

/*
 * Start @c (stdio buffers flushed first). 0, or -1 with a cause when it
 * could not be started: the output file, the pipe, fork, the working
 * directory or the exec failed (the last two: ch->r.not_run, ch->r.error;
 * the cause "cannot run 'PROGRAM': REASON"). The struct @c must stay
 * valid until the child has ended; its argv, env and strings only until
 * this returns.
 */
int gm_run_command_start(const struct gm_run_command *c,
			 struct gm_run_child *ch);

/*
 * One look at @ch without blocking: read what it printed into the
 * capture buffer, forward signal @forward (when not 0, once) to its
 * group, stop it at its time limit, reap it when it has ended: 1 then
 * (ch->r says how), else 0.
 */
int gm_run_command_poll(struct gm_run_child *ch, int forward);

/*
 * Wait for started child @ch to end (ch->r says how), @tick(@arg) called
 * about every 100 ms while it runs when not NULL, its time limit
 * enforced. Without a time limit, tick or capture it sleeps in waitpid()
 * until the child ends; a signal handler of the caller's runs meanwhile
 * (and may signal ch->pid).
 */
void gm_run_command_wait(struct gm_run_child *ch, void (*tick)(void *arg),
			 void *arg);

/*
 * Start @c and wait for it, @tick(@arg) called about every 100 ms while
 * it runs when not NULL. 0 when it ran (whatever its outcome, in @r),
 * -1 when it could not be started (as gm_run_command_start(), @r's
 * not_run set).
 */
int gm_run_command(const struct gm_run_command *c, struct gm_run_result *r,
		   void (*tick)(void *arg), void *arg);

#endif
