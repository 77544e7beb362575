/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for common/run_command.h with real children (/bin/sh
 * snippets): exit codes and signals, output to a file (truncated or
 * appended to) and to a buffer, the environment's changes and working
 * directory, the input (/dev/null, a text, this process's), descriptors
 * kept or closed, signals reset or kept, a time limit that stops the
 * whole process group, a forwarded signal, a start and a later wait, and
 * programs that cannot be started.
 */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "run_command.h"
#include "run_output.h"
#include "strbuf.h"
#include "test.h"

/* Run `sh -c @script`, its output into @out; the result in @r. */
static int sh(const char *script, struct strbuf *out, double timeout_s,
	      struct gm_run_result *r)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	struct gm_run_command c = { .argv = argv, .capture = out,
				.timeout_s = timeout_s, .grace_s = 0.5 };

	return gm_run_command(&c, r, NULL, NULL);
}

static void test_exit_codes(void)
{
	struct gm_run_result r;
	struct strbuf out = STRBUF_INIT;

	CHECK_INT(sh("exit 0", &out, 0, &r), 0, "a child that exits 0 ran");
	CHECK_INT(r.exit_code, 0, "... its exit status is 0");
	CHECK_INT(sh("exit 3", &out, 0, &r), 0, "a failing child ran");
	CHECK_INT(r.exit_code, 3, "... its exit status is 3");
	CHECK_INT(r.signal, 0, "... no signal ended it");
	CHECK_INT(sh("kill -USR1 $$", &out, 0, &r), 0, "a killed child ran");
	CHECK_INT(r.exit_code, -1, "... no exit status");
	CHECK_INT(r.signal, SIGUSR1, "... SIGUSR1 ended it");
	CHECK(!r.timed_out, "... not stopped for time");
	strbuf_release(&out);
}

/* Descriptors above 2 of this process that a child inherits and that
 * are /dev/null (the test's own caller may pass some on). */
static int inherited_devnull(void)
{
	int n = 0;

	for (int fd = 3; fd < 1024; fd++) {
		char path[64], target[64];
		ssize_t len;
		int flags = fcntl(fd, F_GETFD);

		if (flags < 0 || (flags & FD_CLOEXEC)) {
			continue;
		}
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
		len = readlink(path, target, sizeof(target) - 1);
		if (len > 0) {
			target[len] = 0;
			n += !strcmp(target, "/dev/null");
		}
	}
	return n;
}

static void test_capture(void)
{
	struct gm_run_result r;
	struct strbuf out = STRBUF_INIT;

	strbuf_addstr(&out, "kept:");
	sh("echo out; echo err >&2; read x && echo read", &out, 0, &r);
	CHECK_STR(out.buf, "kept:out\nerr\n", "stdout and stderr are appended "
		  "to the buffer, stdin is empty");
	strbuf_reset(&out);
	sh("for f in /proc/$$/fd/*; do readlink $f; done | grep -c /dev/null",
	   &out, 0, &r);
	CHECK_INT(atoi(out.buf), 1 + inherited_devnull(), "... /dev/null, "
		  "open on stdin only (besides those the test inherited)");
	strbuf_reset(&out);
	/* More than a pipe holds: the parent reads while the child runs. */
	sh("i=0; while [ $i -lt 20000 ]; do echo 0123456789; "
	   "i=$((i + 1)); done", &out, 10, &r);
	CHECK_INT(out.len, 220000, "a large output is read whole");
	CHECK(!r.timed_out, "... without the child stalling");
	strbuf_release(&out);
}

static void test_file_env_cwd(const char *tmp)
{
	char *log = gm_path_join(tmp, "log");
	char *argv[] = { "sh", "-c", "echo \"$GM_T_VAR\" $(pwd); echo e >&2",
			 NULL };
	char *env[] = { "GM_T_VAR=set", NULL };
	struct gm_run_command c = { .argv = argv, .search_path = 1, .env = env,
				.cwd = "/", .output = log };
	struct gm_run_result r;
	struct strbuf sb = STRBUF_INIT;

	CHECK_INT(gm_run_command(&c, &r, NULL, NULL), 0, "sh found in PATH");
	CHECK_INT(gm_read_file(log, &sb), 0, "the output file was written");
	CHECK_STR(sb.buf, "set /\ne\n", "... with the added variable, in the "
		  "working directory, stderr too");
	CHECK(!getenv("GM_T_VAR"), "the variable is the child's only");
	c.output = "/nonexistent/log";
	CHECK_INT(gm_run_command(&c, &r, NULL, NULL), -1,
		  "an output file that cannot be created: not started");
	CHECK_STR(gm_error_message(), "cannot create the log "
		  "'/nonexistent/log': No such file or directory",
		  "... and the error names it");
	gm_error_clear();
	strbuf_release(&sb);
	free(log);
}

static void test_not_started(void)
{
	char *argv[] = { "/nonexistent/program", NULL };
	char *sh_argv[] = { "/bin/sh", "-c", "exit 0", NULL };
	char *path_argv[] = { "gm-no-such-program-here", NULL };
	struct gm_run_command c = { .argv = argv };
	struct gm_run_result r;

	CHECK_INT(gm_run_command(&c, &r, NULL, NULL), -1,
		  "a program that does not exist is not started");
	CHECK_STR(gm_error_message(), "cannot run '/nonexistent/program': No "
		  "such file or directory", "... and the error names it");
	CHECK_INT(r.not_run, 2, "... the program was the problem");
	CHECK_INT(r.error, ENOENT, "... its errno kept for the caller");
	gm_error_clear();
	c.argv = path_argv;
	c.search_path = 1;
	CHECK_INT(gm_run_command(&c, &r, NULL, NULL), -1,
		  "a name found nowhere in PATH is not started");
	gm_error_clear();
	c.argv = sh_argv;
	c.search_path = 0;
	c.cwd = "/nonexistent";
	CHECK_INT(gm_run_command(&c, &r, NULL, NULL), -1,
		  "a working directory that does not exist: not started");
	CHECK_STR(gm_error_message(), "cannot enter directory '/nonexistent': "
		  "No such file or directory", "... and the error names it");
	CHECK_INT(r.not_run, 1, "... the directory was the problem");
	gm_error_clear();
}

static void test_timeout(const char *tmp)
{
	struct gm_run_result r;
	struct strbuf out = STRBUF_INIT, script = STRBUF_INIT;
	char *mark = gm_path_join(tmp, "grandchild");

	/* The grandchild would write its mark after the limit unless the
	 * whole group is stopped. */
	strbuf_addf(&script, "(sleep 2; touch '%s') & sleep 30", mark);
	CHECK_INT(sh(script.buf, &out, 0.3, &r), 0, "a hung child ran");
	CHECK(r.timed_out, "... it was stopped at its time limit");
	CHECK_INT(r.signal, SIGTERM, "... by SIGTERM");
	CHECK(r.seconds < 5, "... soon after the limit");
	sleep(3);
	CHECK(access(mark, F_OK) != 0, "... and its own child was stopped too");
	strbuf_reset(&out);
	CHECK_INT(sh("trap '' TERM; sleep 30", &out, 0.2, &r), 0,
		  "a child that ignores SIGTERM ran");
	CHECK_INT(r.signal, SIGKILL, "... SIGKILL ended it after the grace");
	strbuf_release(&out);
	strbuf_release(&script);
	free(mark);
}

static void test_poll_forward(void)
{
	char *argv[] = { "/bin/sh", "-c", "exec sleep 30", NULL };
	struct gm_run_command c = { .argv = argv, .own_group = 1 };
	struct gm_run_child ch;
	int done = 0;

	CHECK_INT(gm_run_command_start(&c, &ch), 0, "a child started without "
		  "waiting");
	CHECK_INT(gm_run_command_poll(&ch, 0), 0, "... is still running");
	for (int i = 0; i < 500 && !done; i++) {
		done = gm_run_command_poll(&ch, SIGINT);
		usleep(10000);
	}
	CHECK(done, "... ends when a signal is forwarded");
	CHECK(ch.r.interrupted, "... and says it was interrupted");
	CHECK_INT(ch.r.signal, SIGINT, "... by that signal");
}

/* "NAME" removes NAME; entries apply in order. */
static void test_env_edits(void)
{
	char *env[] = { "GM_T_GONE", "GM_T_LATE=1", "GM_T_LATE", "GM_T_SET=2",
			NULL };
	struct strbuf out = STRBUF_INIT;
	struct gm_run_result r;
	char *argv[] = { "/bin/sh", "-c", "echo ${GM_T_GONE-unset} "
			 "${GM_T_LATE-unset} ${GM_T_SET-unset}", NULL };
	struct gm_run_command c = { .argv = argv, .env = env,
				    .capture = &out };

	setenv("GM_T_GONE", "here", 1);
	gm_run_command(&c, &r, NULL, NULL);
	CHECK_STR(out.buf, "unset unset 2\n", "a name without '=' removes the "
		  "variable, set or inherited; the others are set");
	CHECK_STR(getenv("GM_T_GONE"), "here", "... in the child only");
	unsetenv("GM_T_GONE");
	strbuf_release(&out);
}

static void test_append(const char *tmp)
{
	char *log = gm_path_join(tmp, "log");
	char *argv[] = { "/bin/sh", "-c", "echo new", NULL };
	struct gm_run_command c = { .argv = argv, .output = log, .append = 1 };
	struct gm_run_result r;
	struct strbuf sb = STRBUF_INIT;
	int fd = open(log, O_WRONLY | O_CREAT | O_TRUNC, 0644);

	if (fd < 0 || write(fd, "old\n", 4) != 4) {
		CHECK(0, "the log's first line written");
	}
	if (fd >= 0) {
		close(fd);
	}
	gm_run_command(&c, &r, NULL, NULL);
	gm_read_file(log, &sb);
	CHECK_STR(sb.buf, "old\nnew\n", "append: the output follows what the "
		  "file had");
	c.append = 0;
	gm_run_command(&c, &r, NULL, NULL);
	strbuf_reset(&sb);
	gm_read_file(log, &sb);
	CHECK_STR(sb.buf, "new\n", "... and without, the file is truncated");
	strbuf_release(&sb);
	free(log);
}

static void test_input(void)
{
	struct strbuf out = STRBUF_INIT, big = STRBUF_INIT;
	struct gm_run_result r;
	char *cat[] = { "/bin/sh", "-c", "cat; echo end", NULL };
	char *deaf[] = { "/bin/sh", "-c", "exec 0<&-; sleep 0.2; exit 4",
			 NULL };
	struct gm_run_command c = { .argv = cat, .capture = &out,
				    .input = "one\ntwo\n" };
	sigset_t pending;

	gm_run_command(&c, &r, NULL, NULL);
	CHECK_STR(out.buf, "one\ntwo\nend\n", "the input text is the child's "
		  "standard input, which then ends");
	/* More than a pipe holds, to a child that closes its input: the
	 * write fails with EPIPE, and the SIGPIPE is not ours. */
	for (int i = 0; i < 20000; i++) {
		strbuf_addstr(&big, "0123456789");
	}
	c.argv = deaf;
	c.input = big.buf;
	CHECK_INT(gm_run_command(&c, &r, NULL, NULL), 0, "a child that reads "
		  "none of a long input ran, and this process lives on");
	CHECK_INT(r.exit_code, 4, "... its exit status is its own");
	sigpending(&pending);
	CHECK(!sigismember(&pending, SIGPIPE), "... no SIGPIPE left pending");
	strbuf_release(&out);
	strbuf_release(&big);
}

/* The child's input as this process's: a pipe put on fd 0 for the test. */
static void test_keep_input(void)
{
	struct strbuf out = STRBUF_INIT;
	struct gm_run_result r;
	char *argv[] = { "/bin/sh", "-c", "read x; echo \"[$x]\"", NULL };
	struct gm_run_command c = { .argv = argv, .capture = &out,
				    .keep_input = 1 };
	int p[2], saved = dup(0);

	if (pipe(p) || write(p[1], "mine\n", 5) != 5) {
		CHECK(0, "the test's pipe");
		return;
	}
	close(p[1]);
	dup2(p[0], 0);
	close(p[0]);
	gm_run_command(&c, &r, NULL, NULL);
	CHECK_STR(out.buf, "[mine]\n", "keep_input: the child reads this "
		  "process's input");
	strbuf_reset(&out);
	c.keep_input = 0;
	gm_run_command(&c, &r, NULL, NULL);
	CHECK_STR(out.buf, "[]\n", "... and without, /dev/null");
	dup2(saved, 0);
	close(saved);
	strbuf_release(&out);
}

static void test_close_fds(const char *tmp)
{
	char *path = gm_path_join(tmp, "held");
	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	struct strbuf script = STRBUF_INIT, out = STRBUF_INIT;
	struct gm_run_result r;
	char *argv[] = { "/bin/sh", "-c", NULL, NULL };
	struct gm_run_command c = { .argv = argv, .capture = &out,
				    .close_fds = 1 };

	strbuf_addf(&script, "[ -e /proc/$$/fd/%d ] && echo open || "
		    "echo closed", fd);
	argv[2] = script.buf;
	gm_run_command(&c, &r, NULL, NULL);
	CHECK_STR(out.buf, "closed\n", "close_fds: a descriptor of ours does "
		  "not reach the child");
	strbuf_reset(&out);
	c.close_fds = 0;
	gm_run_command(&c, &r, NULL, NULL);
	CHECK_STR(out.buf, "open\n", "... and without, it is inherited");
	close(fd);
	unlink(path);
	free(path);
	strbuf_release(&script);
	strbuf_release(&out);
}

static void test_keep_signals(void)
{
	char *argv[] = { "/bin/sh", "-c", "kill -HUP $$; exit 0", NULL };
	struct gm_run_command c = { .argv = argv, .keep_signals = 1 };
	struct gm_run_result r;
	struct sigaction ign = { .sa_handler = SIG_IGN }, old;

	sigaction(SIGHUP, &ign, &old);
	gm_run_command(&c, &r, NULL, NULL);
	CHECK(r.exit_code == 0 && !r.signal, "keep_signals: a signal this "
	      "process ignores, the child ignores too");
	c.keep_signals = 0;
	gm_run_command(&c, &r, NULL, NULL);
	CHECK_INT(r.signal, SIGHUP, "... and without, SIGHUP ends it");
	sigaction(SIGHUP, &old, NULL);
}

static volatile pid_t alarm_target;

static void on_alarm(int sig)
{
	(void)sig;
	kill(alarm_target, SIGTERM);
}

/* Started, then waited for: the caller's handler may signal it. */
static void test_start_wait(void)
{
	char *argv[] = { "/bin/sh", "-c", "exit 5", NULL };
	char *slow[] = { "/bin/sh", "-c", "exec sleep 30", NULL };
	struct gm_run_command c = { .argv = argv };
	struct gm_run_child ch;
	struct sigaction sa = { .sa_handler = on_alarm }, old;
	struct itimerval soon = { { 0, 0 }, { 0, 100000 } };

	CHECK_INT(gm_run_command_start(&c, &ch), 0, "started, not waited for");
	CHECK(ch.pid > 0, "... its pid for the caller");
	gm_run_command_wait(&ch, NULL, NULL);
	CHECK_INT(ch.r.exit_code, 5, "... and the wait gives its exit status");
	c.argv = slow;
	sigaction(SIGALRM, &sa, &old);
	CHECK_INT(gm_run_command_start(&c, &ch), 0, "a long child started");
	alarm_target = ch.pid;
	setitimer(ITIMER_REAL, &soon, NULL);
	gm_run_command_wait(&ch, NULL, NULL);
	CHECK_INT(ch.r.signal, SIGTERM, "... the wait outlives the caller's "
		  "signal handler, which stopped it");
	sigaction(SIGALRM, &old, NULL);
	c.timeout_s = 0.2;
	c.grace_s = 0.5;
	CHECK_INT(gm_run_command_start(&c, &ch), 0, "a hung child started");
	gm_run_command_wait(&ch, NULL, NULL);
	CHECK(ch.r.timed_out, "... the wait stops it at its time limit");
}

/* gm_run_output(), run_command.h's simplest caller: a wait status. */
static void test_run_output(void)
{
	char *argv[] = { "sh", "-c", "echo hi; exit 2", NULL };
	char *none[] = { "/nonexistent/program", NULL };
	struct strbuf out = STRBUF_INIT;
	int status;

	CHECK_INT(gm_run_output(argv, &out, &status), 0, "gm_run_output ran sh");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 2,
	      "... its wait status says exit status 2");
	CHECK_STR(out.buf, "hi\n", "... its output kept");
	strbuf_reset(&out);
	CHECK_INT(gm_run_output(none, &out, &status), 0,
		  "a program that does not exist: still a status");
	CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 127, "... 127");
	CHECK_STR(out.buf, "cannot run '/nonexistent/program': No such file "
		  "or directory\n", "... the reason in the output");
	strbuf_release(&out);
}

int main(void)
{
	char tmpl[] = "/tmp/gm-test-run-command.XXXXXX";
	char *tmp = mkdtemp(tmpl);

	if (!tmp) {
		perror("mkdtemp");
		return 1;
	}
	test_exit_codes();
	test_capture();
	test_file_env_cwd(tmp);
	test_not_started();
	test_timeout(tmp);
	test_poll_forward();
	test_env_edits();
	test_append(tmp);
	test_input();
	test_keep_input();
	test_close_fds(tmp);
	test_keep_signals();
	test_start_wait();
	test_run_output();
	char *log = gm_path_join(tmp, "log");
	unlink(log);
	free(log);
	rmdir(tmp);
	return test_done();
}
