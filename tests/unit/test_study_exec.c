/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for stage child processes: exit statuses, deaths by signal,
 * the time limit, output captured in the log, the working directory, stdin
 * from /dev/null, failures to start (missing program, missing directory,
 * unwritable log), progress ticks, and an interruption of the study being
 * forwarded to the running stage.
 */
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"
#include "study/stage_exec.h"
#include "test.h"

static char dir[] = "/tmp/gpumix-exec-XXXXXX";
static char *log_file;

static int run_sh(const char *script, const char *cwd, double timeout,
		  struct stage_result *r)
{
	char *argv[] = { "/bin/sh", "-c", (char *)script, NULL };
	struct stage_cmd c = {
		.argv = argv, .cwd = cwd, .log_path = log_file,
		.timeout_s = timeout,
	};
	return stage_exec_run(&c, r);
}

static char *log_text(void)
{
	struct strbuf sb = STRBUF_INIT;

	gm_read_file(log_file, &sb);
	return strbuf_detach(&sb, NULL);
}

static void test_outcomes(void)
{
	struct stage_result r;
	char *text;

	CHECK_INT(run_sh("echo out; echo err >&2; exit 3", NULL, 0, &r), 0,
		  "a stage runs");
	CHECK_INT(r.exit_code, 3, "  its exit status is kept");
	CHECK_INT(r.signal, 0, "  it was not killed");
	text = log_text();
	CHECK_STR(text, "out\nerr\n", "  stdout and stderr go to the log");
	free(text);
	run_sh("echo again", NULL, 0, &r);
	text = log_text();
	CHECK_STR(text, "again\n", "the log is truncated for each run");
	free(text);
	run_sh("kill -SEGV $$", NULL, 0, &r);
	CHECK_INT(r.signal, SIGSEGV, "a crash is reported with its signal");
	CHECK_INT(r.exit_code, -1, "  and no exit status");
	run_sh("pwd", dir, 0, &r);
	text = log_text();
	char *want = gm_xasprintf("%s\n", dir);
	CHECK_STR(text, want, "the stage runs in the directory asked for");
	free(want);
	free(text);
	run_sh("cat; echo done", NULL, 5, &r);
	CHECK(!r.timed_out && r.exit_code == 0, "stdin is empty, not the terminal");
	CHECK(r.seconds > 0, "the duration is measured");
}

/* 1 when process @pid ends (or is a zombie) within 2 s. */
static int gone_soon(int pid)
{
	for (int i = 0; i < 200; i++) {
		char path[64], state = 0;
		snprintf(path, sizeof(path), "/proc/%d/stat", pid);
		FILE *f = fopen(path, "r");
		if (!f) {
			return 1;
		}
		int n = fscanf(f, "%*d %*s %c", &state);
		fclose(f);
		if (n == 1 && (state == 'Z' || state == 'X')) {
			return 1;
		}
		usleep(10000);
	}
	return 0;
}

static void test_timeout(void)
{
	struct stage_result r;

	char *pidfile = gm_path_join(dir, "pid");
	char *script = gm_xasprintf("sleep 20 & echo $! >%s; wait", pidfile);
	CHECK_INT(run_sh(script, NULL, 0.2, &r), 0, "a stage that hangs");
	CHECK_INT(r.timed_out, 1, "  is stopped at its time limit");
	CHECK_INT(r.signal, SIGTERM, "  with SIGTERM (so before its 20 s)");
	struct strbuf pid = STRBUF_INIT;
	gm_read_file(pidfile, &pid);
	CHECK(pid.len && gone_soon(atoi(pid.buf)),
	      "  and what it started is stopped too");
	strbuf_release(&pid);
	free(script);
	free(pidfile);
	char *argv[] = { "/bin/sh", "-c", "trap '' TERM; exec sleep 20", NULL };
	struct stage_cmd c = { .argv = argv, .log_path = log_file,
			       .timeout_s = 0.2, .grace_s = 0.5 };
	CHECK_INT(stage_exec_run(&c, &r), 0, "a stage that ignores SIGTERM");
	CHECK_INT(r.signal, SIGKILL, "  is killed after the grace period");
	/* A lower bound: a loaded machine only lengthens it. */
	CHECK(r.seconds > 0.6, "  (0.5 s here, after the 0.2 s limit)");
}

static void test_start_failures(void)
{
	struct stage_result r;
	char *argv[] = { "/nonexistent/gpumix", "replay", NULL };
	struct stage_cmd c = { .argv = argv, .log_path = log_file };

	gm_error_clear();
	CHECK_INT(stage_exec_run(&c, &r), -1, "a missing program cannot start");
	CHECK_STR(gm_error_message(), "cannot run '/nonexistent/gpumix': No such "
		  "file or directory", "  and is named");
	gm_error_clear();
	CHECK_INT(run_sh("true", "/nonexistent", 0, &r), -1,
		  "a missing directory cannot be entered");
	CHECK_STR(gm_error_message(), "cannot enter directory '/nonexistent': No "
		  "such file or directory", "  and is named");
	gm_error_clear();
	char *saved = log_file;
	log_file = "/nonexistent/log";
	CHECK_INT(run_sh("true", NULL, 0, &r), -1, "an unwritable log");
	CHECK_STR(gm_error_message(), "cannot create the log '/nonexistent/log': "
		  "No such file or directory", "  is named");
	log_file = saved;
	gm_error_clear();
}

static int ticks;

static void count_tick(void *arg)
{
	(void)arg;
	ticks++;
}

static void interrupt_self(void *arg)
{
	(void)arg;
	raise(SIGTERM);
}

static void test_callbacks(void)
{
	struct stage_result r;
	char *argv[] = { "/bin/sh", "-c", "sleep 0.5", NULL };
	struct stage_cmd c = { .argv = argv, .log_path = log_file,
			       .tick = count_tick };

	ticks = 0;
	stage_exec_run(&c, &r);
	/* Bounds from the stage's own measured length, not the clock's
	 * expectations: a loaded machine stretches both alike. */
	CHECK(ticks >= 1, "progress ticks while a stage runs");
	CHECK(ticks <= r.seconds / 0.1 + 1, "  at most every 100 ms");

	char *argv2[] = { "/bin/sh", "-c", "exec sleep 20", NULL };
	struct stage_cmd c2 = { .argv = argv2, .log_path = log_file,
				.spawned = interrupt_self };
	stage_exec_catch_signals();
	CHECK_INT(stage_exec_run(&c2, &r), 0, "a stage while the study is "
		  "interrupted");
	stage_exec_restore_signals();
	CHECK_INT(r.interrupted, 1, "  is marked interrupted");
	CHECK_INT(r.signal, SIGTERM, "  and got the study's SIGTERM (so before"
		  " its 20 s)");
	CHECK_INT(stage_exec_interrupted(), SIGTERM, "the study remembers the signal");
	stage_exec_clear_interrupt();
	CHECK_INT(stage_exec_interrupted(), 0, "  until cleared");
}

int main(void)
{
	if (!mkdtemp(dir)) {
		printf("not ok 1 - cannot create a temporary directory\n");
		return 1;
	}
	log_file = gm_path_join(dir, "log");
	test_outcomes();
	test_timeout();
	test_start_failures();
	test_callbacks();
	gm_remove_tree(dir);
	free(log_file);
	return test_done();
}
