/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for common/run_command.h with real children (/bin/sh
 * snippets): exit codes and signals, output to a file and to a buffer,
 * the added environment and working directory, a time limit that stops
 * the whole process group, a forwarded signal, and programs that cannot
 * be started.
 */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

static void test_capture(void)
{
	struct gm_run_result r;
	struct strbuf out = STRBUF_INIT;

	strbuf_addstr(&out, "kept:");
	sh("echo out; echo err >&2; read x && echo read", &out, 0, &r);
	CHECK_STR(out.buf, "kept:out\nerr\n", "stdout and stderr are appended "
		  "to the buffer, stdin is empty");
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
	test_run_output();
	char *log = gm_path_join(tmp, "log");
	unlink(log);
	free(log);
	rmdir(tmp);
	return test_done();
}
