/* SPDX-License-Identifier: MIT */
/*
 * Child processes (see run_command.h). The child reports a failed chdir
 * or exec through a close-on-exec pipe, so the parent tells "could not
 * start" from "ran and failed"; the parent polls waitpid() with a short,
 * growing interval, so a child of a few milliseconds is not slowed down
 * and a long one costs nothing, or sleeps in it when it has nothing else
 * to do.
 */
#include "run_command.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "error.h"
#include "fs.h"
#include "strbuf.h"

#define GRACE_S 10.0		/* default from SIGTERM to SIGKILL */
#define TICK_S 0.1

/* What the child reports through the pipe when it cannot exec. */
struct child_failure {
	int step;		/* 0: chdir, 1: exec */
	int err;
};

static void child_fail(int fd, int step)
{
	struct child_failure f = { step, errno };
	ssize_t n = write(fd, &f, sizeof(f));
	(void)n;
	_exit(127);
}

static int own_group(const struct gm_run_command *c)
{
	return c->own_group || c->timeout_s > 0;
}

/* In the child: every descriptor above 2 closed at the exec (the exec
 * report's pipe stays open until then). */
static void close_on_exec_all(void)
{
#ifdef CLOSE_RANGE_CLOEXEC
	if (!close_range(3, ~0U, CLOSE_RANGE_CLOEXEC)) {
		return;
	}
#endif
	/* An older kernel or C library: the descriptors a process usually
	 * has. */
	for (int fd = 3; fd < 1024; fd++) {
		fcntl(fd, F_SETFD, FD_CLOEXEC);
	}
}

/* In the child: only plain system calls until exec. */
static void child(const struct gm_run_command *c, pid_t parent, int in_fd,
		  int out_fd, int err_fd)
{
	static const int defaults[] = { SIGINT, SIGTERM, SIGHUP };
	sigset_t none;

	if (c->death_signal) {
		prctl(PR_SET_PDEATHSIG, c->death_signal);
		if (getppid() != parent) {
			_exit(127);
		}
	}
	if (own_group(c)) {
		setpgid(0, 0);
	}
	if (!c->keep_signals) {
		for (size_t i = 0; i < sizeof(defaults) / sizeof(defaults[0]);
		     i++) {
			signal(defaults[i], SIG_DFL);
		}
		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
	}
	if (in_fd < 0 && !c->keep_input) {
		in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
	}
	if (in_fd >= 0) {
		dup2(in_fd, 0);
	}
	if (out_fd >= 0) {
		dup2(out_fd, 1);
		dup2(out_fd, 2);
	}
	if (c->close_fds) {
		close_on_exec_all();
	}
	for (char *const *e = c->env; e && *e; e++) {
		if (strchr(*e, '=')) {
			putenv(*e);
		} else {
			unsetenv(*e);
		}
	}
	if (c->cwd && chdir(c->cwd)) {
		child_fail(err_fd, 0);
	}
	const char *prog = c->path ? c->path : c->argv[0];
	if (c->search_path && !c->path) {
		execvp(prog, c->argv);
	} else {
		execv(prog, c->argv);
	}
	child_fail(err_fd, 1);
}

/* Read the child's exec report: 0 when it exec'd (pipe closed), else
 * 1 (chdir) or 2 (exec) with the cause recorded. */
static int check_started(const struct gm_run_command *c, pid_t pid, int fd,
			 int *err)
{
	struct child_failure f;
	ssize_t n;

	do {
		n = read(fd, &f, sizeof(f));
	} while (n < 0 && errno == EINTR);
	if (n != (ssize_t)sizeof(f)) {
		return 0;
	}
	while (waitpid(pid, NULL, 0) < 0 && errno == EINTR) {
	}
	*err = errno = f.err;
	if (f.step == 0) {
		gm_error_errno("cannot enter directory '%s'", c->cwd);
		return 1;
	}
	gm_error_errno("cannot run '%s'", c->path ? c->path : c->argv[0]);
	return 2;
}

/* The file or pipe the child writes to: *@out (-1: left as it is), and
 * for a capture the parent's end *@rd. */
static int open_output(const struct gm_run_command *c, int *out, int *rd)
{
	int p[2];

	*out = *rd = -1;
	if (c->output) {
		*out = open(c->output, O_WRONLY | O_CREAT | O_CLOEXEC |
				       (c->append ? O_APPEND : O_TRUNC), 0644);
		if (*out < 0) {
			return gm_error_errno("cannot create the log '%s'",
					      c->output);
		}
	} else if (c->capture) {
		if (pipe2(p, O_CLOEXEC)) {
			return gm_error_errno("cannot create a pipe");
		}
		*rd = p[0];
		*out = p[1];
	}
	return 0;
}

/* @s to the child's input @fd. SIGPIPE (a child that ended without
 * reading) is blocked meanwhile and taken back: its status tells, and
 * this process's own handling of SIGPIPE stays as it is. */
static void write_input(int fd, const char *s)
{
	sigset_t pipe_set, old;
	struct timespec now = { 0, 0 };

	sigemptyset(&pipe_set);
	sigaddset(&pipe_set, SIGPIPE);
	pthread_sigmask(SIG_BLOCK, &pipe_set, &old);
	if (gm_write_all(fd, s, strlen(s)) < 0 && errno == EPIPE) {
		sigtimedwait(&pipe_set, NULL, &now);
	}
	pthread_sigmask(SIG_SETMASK, &old, NULL);
}

static void close_pair(int p[2])
{
	if (p[0] >= 0) {
		close(p[0]);
	}
	if (p[1] >= 0) {
		close(p[1]);
	}
	p[0] = p[1] = -1;
}

int gm_run_command_start(const struct gm_run_command *c,
			 struct gm_run_child *ch)
{
	int errp[2], inp[2] = { -1, -1 }, out_fd, rd_fd;
	pid_t parent = getpid();

	memset(ch, 0, sizeof(*ch));
	ch->c = c;
	ch->out_fd = -1;
	if (open_output(c, &out_fd, &rd_fd)) {
		return -1;
	}
	if (c->input && pipe2(inp, O_CLOEXEC)) {
		gm_error_errno("cannot create a pipe");
		goto fail;
	}
	if (pipe2(errp, O_CLOEXEC)) {
		gm_error_errno("cannot create a pipe");
		goto fail;
	}
	fflush(NULL);
	ch->start = gm_now_s();
	pid_t pid = fork();
	if (pid < 0) {
		gm_error_errno("cannot start '%s'", c->argv[0]);
		close_pair(errp);
		goto fail;
	}
	if (pid == 0) {
		close(errp[0]);
		child(c, parent, inp[0], out_fd, errp[1]);
	}
	if (own_group(c)) {
		setpgid(pid, pid);	/* also here: no race with a kill */
	}
	if (out_fd >= 0) {
		close(out_fd);
	}
	close(errp[1]);
	int ret = check_started(c, pid, errp[0], &ch->r.error);
	close(errp[0]);
	if (ret) {
		ch->r.not_run = ret;
		close_pair(inp);
		if (rd_fd >= 0) {
			close(rd_fd);
		}
		return -1;
	}
	if (c->input) {
		close(inp[0]);
		inp[0] = -1;
		write_input(inp[1], c->input);
		close_pair(inp);
	}
	ch->pid = pid;
	ch->out_fd = rd_fd;
	if (rd_fd >= 0) {
		fcntl(rd_fd, F_SETFL, fcntl(rd_fd, F_GETFL) | O_NONBLOCK);
	}
	return 0;
fail:
	close_pair(inp);
	if (out_fd >= 0) {
		close(out_fd);
	}
	if (rd_fd >= 0) {
		close(rd_fd);
	}
	return -1;
}

/* Read what the child wrote so far (all of it once it has ended). */
static void drain(struct gm_run_child *ch)
{
	char buf[4096];
	ssize_t n;

	if (ch->out_fd < 0) {
		return;
	}
	while ((n = read(ch->out_fd, buf, sizeof(buf))) > 0 ||
	       (n < 0 && errno == EINTR)) {
		if (n > 0) {
			strbuf_add(ch->c->capture, buf, (size_t)n);
		}
	}
}

/* Signal @sig to the child, its group when it leads one. */
static void signal_child(struct gm_run_child *ch, int sig)
{
	kill(own_group(ch->c) ? -ch->pid : ch->pid, sig);
}

/* While it runs: forward, enforce the limit. */
static void watch(struct gm_run_child *ch, int forward)
{
	const struct gm_run_command *c = ch->c;
	struct gm_run_result *r = &ch->r;
	double grace = c->grace_s > 0 ? c->grace_s : GRACE_S;
	double t = gm_now_s();

	if (forward && !ch->forwarded) {
		signal_child(ch, forward);
		ch->forwarded = 1;
		r->interrupted = 1;
		ch->kill_at = t + grace;
	}
	if (c->timeout_s > 0 && t - ch->start > c->timeout_s && !r->timed_out) {
		signal_child(ch, SIGTERM);
		r->timed_out = 1;
		ch->kill_at = t + grace;
	}
	if (ch->kill_at && t > ch->kill_at && !ch->killed) {
		signal_child(ch, SIGKILL);
		ch->killed = 1;
	}
}

/* It has ended: wait status @status, or lost when @w < 0. */
static void ended(struct gm_run_child *ch, pid_t w, int status, int forward)
{
	struct gm_run_result *r = &ch->r;

	if (w < 0) {
		/* Not our child any more: nothing left to wait for. */
		r->exit_code = -1;
	} else if (WIFEXITED(status)) {
		r->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		r->exit_code = -1;
		r->signal = WTERMSIG(status);
	}
	if (forward) {
		r->interrupted = 1;
	}
	r->seconds = gm_now_s() - ch->start;
	drain(ch);
	if (ch->out_fd >= 0) {
		close(ch->out_fd);
		ch->out_fd = -1;
	}
}

int gm_run_command_poll(struct gm_run_child *ch, int forward)
{
	int status = 0;

	drain(ch);
	pid_t w = waitpid(ch->pid, &status, WNOHANG);
	if (w == 0 || (w < 0 && errno == EINTR)) {
		watch(ch, forward);
		return 0;
	}
	ended(ch, w, status, forward);
	return 1;
}

void gm_run_command_wait(struct gm_run_child *ch, void (*tick)(void *arg),
			 void *arg)
{
	double sleep_s = 0.001, last_tick = ch->start;
	int status = 0;
	pid_t w;

	if (!tick && ch->c->timeout_s <= 0 && ch->out_fd < 0) {
		/* Nothing to do meanwhile: woken by its end, at once. */
		while ((w = waitpid(ch->pid, &status, 0)) < 0 &&
		       errno == EINTR) {
		}
		ended(ch, w, status, 0);
		return;
	}
	while (!gm_run_command_poll(ch, 0)) {
		double t = gm_now_s();
		if (tick && t - last_tick >= TICK_S) {
			tick(arg);
			last_tick = t;
		}
		if (ch->out_fd >= 0) {
			/* Output wakes us: a chatty child never fills the
			 * pipe and stalls. */
			struct pollfd pfd = { ch->out_fd, POLLIN, 0 };
			poll(&pfd, 1, (int)(sleep_s * 1000) + 1);
		} else {
			struct timespec ts = { 0, (long)(sleep_s * 1e9) };
			nanosleep(&ts, NULL);
		}
		if (sleep_s < TICK_S) {
			sleep_s *= 2;
		}
	}
}

int gm_run_command(const struct gm_run_command *c, struct gm_run_result *r,
		   void (*tick)(void *arg), void *arg)
{
	struct gm_run_child ch;

	memset(r, 0, sizeof(*r));
	if (gm_run_command_start(c, &ch)) {
		*r = ch.r;
		return -1;
	}
	gm_run_command_wait(&ch, tick, arg);
	*r = ch.r;
	return 0;
}
