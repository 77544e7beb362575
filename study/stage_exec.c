/* SPDX-License-Identifier: MIT */
/*
 * Child processes for study stages (see stage_exec.h). Each stage is the
 * leader of its own process group, and the study signals the group, so a
 * stage's own children (a replay program under gpumix replay) stop with
 * it. The parent polls
 * waitpid() with a short, growing interval, so stages of a few
 * milliseconds are not slowed down and long ones cost nothing. Signal
 * handlers only record the signal; forwarding happens in the wait loop.
 */
#include "stage_exec.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "error.h"

#define GRACE_S 10.0		/* default from SIGTERM to SIGKILL */
#define TICK_S 0.1

/* The only process-wide state: what a signal handler may write. */
static volatile sig_atomic_t interrupted_by;

static void on_signal(int sig)
{
	if (!interrupted_by) {
		interrupted_by = sig;
	}
}

static const int caught[] = { SIGINT, SIGTERM, SIGHUP };

void stage_exec_catch_signals(void)
{
	struct sigaction sa;

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		sigaction(caught[i], &sa, NULL);
	}
}

void stage_exec_restore_signals(void)
{
	for (size_t i = 0; i < sizeof(caught) / sizeof(caught[0]); i++) {
		signal(caught[i], SIG_DFL);
	}
}

int stage_exec_interrupted(void)
{
	return interrupted_by;
}

void stage_exec_clear_interrupt(void)
{
	interrupted_by = 0;
}

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

static void child(const struct stage_cmd *c, pid_t parent, int log_fd,
		  int err_fd)
{
	sigset_t none;

	/* Before anything else: never outlive a killed study. */
	prctl(PR_SET_PDEATHSIG, SIGTERM);
	if (getppid() != parent) {
		_exit(127);
	}
	/* Its own process group: signals reach everything it starts. */
	setpgid(0, 0);
	stage_exec_restore_signals();
	sigemptyset(&none);
	sigprocmask(SIG_SETMASK, &none, NULL);
	int null_fd = open("/dev/null", O_RDONLY);
	if (null_fd >= 0) {
		dup2(null_fd, 0);
	}
	dup2(log_fd, 1);
	dup2(log_fd, 2);
	for (char *const *e = c->env; e && *e; e++) {
		putenv(*e);
	}
	if (c->cwd && chdir(c->cwd)) {
		child_fail(err_fd, 0);
	}
	execv(c->path ? c->path : c->argv[0], c->argv);
	child_fail(err_fd, 1);
}

/* Read the child's exec report; 0 when it exec'd (pipe closed). */
static int check_started(const struct stage_cmd *c, pid_t pid, int fd)
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
	errno = f.err;
	if (f.step == 0) {
		return gm_error_errno("cannot enter directory '%s'", c->cwd);
	}
	return gm_error_errno("cannot run '%s'", c->path ? c->path : c->argv[0]);
}

/*
 * One look at a started stage: forward an interruption, enforce the time
 * limit, reap it. 1 when it has ended (p->r filled in), else 0.
 */
int stage_exec_poll(struct stage_proc *p)
{
	const struct stage_cmd *c = p->c;
	struct stage_result *r = &p->r;
	double grace = c->grace_s > 0 ? c->grace_s : GRACE_S;
	int status = 0;

	pid_t w = waitpid(p->pid, &status, WNOHANG);
	if (w == 0 || (w < 0 && errno == EINTR)) {
		double t = gm_now_s();
		if (interrupted_by && !p->forwarded) {
			kill(-p->pid, interrupted_by);
			p->forwarded = 1;
			r->interrupted = 1;
			p->kill_at = t + grace;
		}
		if (c->timeout_s > 0 && t - p->start > c->timeout_s &&
		    !r->timed_out) {
			kill(-p->pid, SIGTERM);
			r->timed_out = 1;
			p->kill_at = t + grace;
		}
		if (p->kill_at && t > p->kill_at && !p->killed) {
			kill(-p->pid, SIGKILL);
			p->killed = 1;
		}
		return 0;
	}
	if (w < 0) {
		/* Not our child any more: nothing left to wait for. */
		r->exit_code = -1;
	} else if (WIFEXITED(status)) {
		r->exit_code = WEXITSTATUS(status);
	} else if (WIFSIGNALED(status)) {
		r->exit_code = -1;
		r->signal = WTERMSIG(status);
	}
	if (interrupted_by) {
		r->interrupted = 1;
	}
	r->seconds = gm_now_s() - p->start;
	return 1;
}

int stage_exec_start(const struct stage_cmd *c, struct stage_proc *p)
{
	int pipefd[2];
	pid_t parent = getpid();

	memset(p, 0, sizeof(*p));
	p->c = c;
	int log_fd = open(c->log_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC,
			  0644);
	if (log_fd < 0) {
		return gm_error_errno("cannot create the log '%s'", c->log_path);
	}
	if (pipe2(pipefd, O_CLOEXEC)) {
		close(log_fd);
		return gm_error_errno("cannot create a pipe");
	}
	p->start = gm_now_s();
	pid_t pid = fork();
	if (pid < 0) {
		gm_error_errno("cannot start '%s'", c->argv[0]);
		close(log_fd);
		close(pipefd[0]);
		close(pipefd[1]);
		return -1;
	}
	if (pid == 0) {
		close(pipefd[0]);
		child(c, parent, log_fd, pipefd[1]);
	}
	setpgid(pid, pid);	/* also here: no race with the first kill */
	close(log_fd);
	close(pipefd[1]);
	int ret = check_started(c, pid, pipefd[0]);
	close(pipefd[0]);
	if (ret) {
		return -1;
	}
	p->pid = pid;
	if (c->spawned) {
		c->spawned(c->arg);
	}
	return 0;
}

int stage_exec_run(const struct stage_cmd *c, struct stage_result *r)
{
	struct stage_proc p;
	double sleep_s = 0.001, last_tick;

	memset(r, 0, sizeof(*r));
	if (stage_exec_start(c, &p)) {
		return -1;
	}
	last_tick = p.start;
	while (!stage_exec_poll(&p)) {
		double t = gm_now_s();
		if (c->tick && t - last_tick >= TICK_S) {
			c->tick(c->arg);
			last_tick = t;
		}
		struct timespec ts = { 0, (long)(sleep_s * 1e9) };
		nanosleep(&ts, NULL);
		if (sleep_s < TICK_S) {
			sleep_s *= 2;
		}
	}
	*r = p.r;
	return 0;
}
