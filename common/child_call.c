/* SPDX-License-Identifier: MIT */
/* Calling a function in a forked child process (see child_call.h). */
#include "child_call.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "strbuf.h"

static const int fault_signals[] = {
	SIGABRT, SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGTRAP, SIGSYS,
};
enum { NR_FAULTS = sizeof(fault_signals) / sizeof(fault_signals[0]) };

/* In the child: default actions, no core, the output to @fd. */
static void child_setup(int fd)
{
	struct sigaction sa;
	struct rlimit core = { 0, 0 };
	sigset_t set;
	int devnull = open("/dev/null", O_RDONLY);

	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&set);
	for (int i = 0; i < NR_FAULTS; i++) {
		sigaction(fault_signals[i], &sa, NULL);
		sigaddset(&set, fault_signals[i]);
	}
	sigaction(SIGINT, &sa, NULL);
	sigaction(SIGTERM, &sa, NULL);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigprocmask(SIG_UNBLOCK, &set, NULL);
	setrlimit(RLIMIT_CORE, &core);
	if (devnull >= 0) {
		dup2(devnull, 0);
	}
	dup2(fd, 1);
	dup2(fd, 2);
}

int gm_call_in_child(int (*fn)(void *ctx), void *ctx, struct strbuf *out)
{
	struct strbuf all = STRBUF_INIT;
	char buf[4096];
	int pipefd[2], status;
	pid_t pid;

	if (pipe2(pipefd, O_CLOEXEC)) {
		return gm_error_errno("cannot create a pipe");
	}
	fflush(NULL);	/* the child starts with empty stdio buffers */
	pid = fork();
	if (pid < 0) {
		close(pipefd[0]);
		close(pipefd[1]);
		return gm_error_errno("cannot fork");
	}
	if (pid == 0) {
		int rc;

		child_setup(pipefd[1]);
		rc = fn(ctx);
		fflush(NULL);
		_exit(rc ? 1 : 0);
	}
	close(pipefd[1]);
	/* Read to the end (the child must never block on a full pipe),
	 * keeping the last GM_CHILD_OUTPUT_MAX bytes. */
	for (;;) {
		ssize_t n = read(pipefd[0], buf, sizeof(buf));

		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			break;
		}
		strbuf_add(&all, buf, (size_t)n);
		if (all.len > 2 * GM_CHILD_OUTPUT_MAX) {
			memmove(all.buf, all.buf + all.len - GM_CHILD_OUTPUT_MAX,
				GM_CHILD_OUTPUT_MAX);
			strbuf_setlen(&all, GM_CHILD_OUTPUT_MAX);
		}
	}
	close(pipefd[0]);
	if (all.len > GM_CHILD_OUTPUT_MAX) {
		strbuf_add(out, all.buf + all.len - GM_CHILD_OUTPUT_MAX,
			   GM_CHILD_OUTPUT_MAX);
	} else {
		strbuf_add(out, all.buf, all.len);
	}
	strbuf_release(&all);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			return gm_error_errno("cannot wait for child process %d",
					      (int)pid);
		}
	}
	return status;
}

int gm_child_crashed(int status)
{
	if (!WIFSIGNALED(status)) {
		return 0;
	}
	for (int i = 0; i < NR_FAULTS; i++) {
		if (WTERMSIG(status) == fault_signals[i]) {
			return 1;
		}
	}
	return 0;
}

const char *gm_child_status(int status)
{
	static char buf[96];

	if (WIFSIGNALED(status)) {
		snprintf(buf, sizeof(buf), "was killed by signal %d (%s)",
			 WTERMSIG(status), strsignal(WTERMSIG(status)));
	} else if (WIFEXITED(status)) {
		snprintf(buf, sizeof(buf), "exited with status %d",
			 WEXITSTATUS(status));
	} else {
		snprintf(buf, sizeof(buf), "ended with wait status %#x", status);
	}
	return buf;
}
