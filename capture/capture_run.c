/* SPDX-License-Identifier: MIT */
/*
 * Running a program under capture (see capture_run.h). The program is
 * started by run_command (an exec failure is a failed start); while it
 * runs, SIGINT, SIGQUIT, SIGTERM and SIGHUP mark the
 * capture as interrupted and are passed on to the program, except a
 * SIGINT or SIGQUIT from the terminal, which the program (in the same
 * process group) got already.
 */
#include "capture_run.h"
#include "descendants.h"

#include <dlfcn.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "bundle.h"
#include "child_call.h"
#include "emit.h"
#include "error.h"
#include "fs.h"
#include "run_command.h"
#include "strbuf.h"
#include "tmp_name.h"

static volatile sig_atomic_t got_signal;
static volatile pid_t child_pid;

static void on_signal(int sig, siginfo_t *si, void *uctx)
{
	int from_terminal = si && si->si_code == SI_KERNEL;

	(void)uctx;
	got_signal = sig;
	if (child_pid > 0 &&
	    (sig == SIGTERM || sig == SIGHUP || !from_terminal)) {
		kill(child_pid, sig);
	}
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* In the throwaway child: load @lib (a path); the reason it cannot is
 * the last line of the output. */
static int try_load(void *lib)
{
	void *h;

	unsetenv(GM_CAPTURE_DIR_ENV);
	h = dlopen(lib, RTLD_NOW | RTLD_LOCAL);
	if (!h || !dlsym(h, "InitializeInjection")) {
		printf("\n%s\n", h ? "no InitializeInjection" : dlerror());
		return -1;
	}
	return 0;
}

/*
 * Load the library once in a throwaway child: the CUDA driver ignores an
 * injection library it cannot load, and the capture would then silently
 * record nothing.
 */
static int check_library(const char *lib)
{
	struct strbuf out = STRBUF_INIT;
	const char *why = "it crashed while loading";
	int status = gm_call_in_child(try_load, (void *)lib, &out);

	if (status < 0) {
		strbuf_release(&out);
		return -1;
	}
	if (WIFEXITED(status) && WEXITSTATUS(status) == 0) {
		strbuf_release(&out);
		return 0;
	}
	strbuf_rtrim(&out);
	if (WIFEXITED(status) && out.len) {
		char *nl = strrchr(out.buf, '\n');
		why = nl ? nl + 1 : out.buf;
	}
	gm_error("cannot load the capture library '%s': %s", lib, why);
	gm_error_hint("its libraries (liblttng-ust, libcupti) must be found: "
		      "on a GPU host, '. .gpu-host/env.sh' first");
	strbuf_release(&out);
	return -1;
}

int capture_run_begin(struct capture_run *cr, const struct capture_opts *o)
{
	char *ctf = NULL;
	int started = 0;

	memset(cr, 0, sizeof(*cr));
	cr->opts = o;
	if (access(o->lib, R_OK)) {
		gm_error_errno("cannot use the capture library '%s'", o->lib);
		gm_error_hint("build it with 'make' or set GPUMIX_CAPTURE_LIB");
		return -1;
	}
	if (check_library(o->lib)) {
		return -1;
	}
	if (bundle_prepare(o->output, o->force, &cr->tmp)) {
		return -1;
	}
	if (lttng_daemon_ensure(o->kernel, &started)) {
		goto fail;
	}
	ctf = gm_path_join(cr->tmp, "ctf");
	if (lttng_session_create(&cr->session, ctf,
				 o->subbuf_size ? o->subbuf_size
						: GM_LTTNG_SUBBUF_DEFAULT,
				 o->nr_subbuf ? o->nr_subbuf
					      : GM_LTTNG_NUM_SUBBUF_DEFAULT)) {
		goto fail;
	}
	/*
	 * What killed captures of this name left (NAME.tmp-PID, NAME.old-PID
	 * of a dead PID) goes now that their LTTng sessions are gone
	 * (lttng_session_create() destroyed them: nothing writes there any
	 * more), if it is a bundle gpumix wrote (its marker) or empty. One
	 * that cannot be removed is worth a warning, not the capture.
	 */
	if (gm_tmp_remove_stale_output(o->output, GM_OUTPUT_BUNDLE) < 0) {
		gm_warning("%s", gm_error_message());
		gm_error_clear();
	}
	if (lttng_session_start(&cr->session)) {
		lttng_session_destroy(&cr->session);
		goto fail;
	}
	free(ctf);
	return 0;
fail:
	free(ctf);
	gm_remove_tree(cr->tmp);
	free(cr->tmp);
	cr->tmp = NULL;
	return -1;
}

/* liblttng-ust-fork.so next to the liblttng-ust the library uses. */
static char *find_fork_helper(void)
{
	const char *dirs[] = { getenv("LD_LIBRARY_PATH"), NULL };
	static const char *const std[] = { "/usr/lib/x86_64-linux-gnu",
					   "/usr/lib64", "/usr/lib",
					   "/usr/local/lib", NULL };

	for (int i = 0; dirs[i]; i++) {
		char *copy = gm_xstrdup(dirs[i]), *save = NULL, *d;
		for (d = strtok_r(copy, ":", &save); d;
		     d = strtok_r(NULL, ":", &save)) {
			char *p = gm_xasprintf("%s/liblttng-ust-fork.so.1", d);
			if (!access(p, R_OK)) {
				free(copy);
				return p;
			}
			free(p);
		}
		free(copy);
	}
	for (int i = 0; std[i]; i++) {
		char *p = gm_xasprintf("%s/liblttng-ust-fork.so.1", std[i]);
		if (!access(p, R_OK)) {
			return p;
		}
		free(p);
	}
	return NULL;
}

/*
 * The program's environment changes ("NAME=VALUE", in order; the strings
 * and the array allocated, free_env()): the injection library, the
 * bundle, LTTng's variables, the fork helper.
 */
static char **child_env(const struct capture_run *cr, const char *abs_tmp,
			const char *abs_lib)
{
	size_t n = 0, nr_lttng = 0;
	char **env, *helper;

	while (gm_lttng_child_env[nr_lttng]) {
		nr_lttng++;
	}
	env = gm_xcalloc(nr_lttng + 4, sizeof(char *));
	env[n++] = gm_xasprintf("CUDA_INJECTION64_PATH=%s", abs_lib);
	env[n++] = gm_xasprintf("%s=%s", GM_CAPTURE_DIR_ENV, abs_tmp);
	for (size_t i = 0; i < nr_lttng; i++) {
		env[n++] = gm_xstrdup(gm_lttng_child_env[i]);
	}
	/*
	 * A program that forks after CUDA is initialised needs LTTng-UST's
	 * fork wrapper for its child to trace.
	 */
	if (!cr->opts->no_fork_helper && (helper = find_fork_helper())) {
		const char *old = getenv("LD_PRELOAD");
		env[n++] = old && *old ? gm_xasprintf("LD_PRELOAD=%s:%s", helper,
						      old)
				       : gm_xasprintf("LD_PRELOAD=%s", helper);
		free(helper);
	}
	return env;
}

static void free_env(char **env)
{
	for (size_t i = 0; env && env[i]; i++) {
		free(env[i]);
	}
	free(env);
}

static void say_waiting(size_t running)
{
	fprintf(stderr, "gpumix: the program exited; waiting for %zu process%s "
		"it started\n", running, running == 1 ? "" : "es");
}

int capture_run_program(struct capture_run *cr)
{
	char *abs_tmp = realpath(cr->tmp, NULL);
	char *abs_lib = realpath(cr->opts->lib, NULL);
	struct sigaction sa, old[4];
	static const int sigs[4] = { SIGINT, SIGQUIT, SIGTERM, SIGHUP };
	/* The user's program: its input, its signals as ours were (an
	 * ignored one stays ignored), found in PATH. */
	struct gm_run_command c = { .argv = cr->opts->argv, .search_path = 1,
				    .keep_input = 1, .keep_signals = 1 };
	struct gm_run_child ch;
	char **env = NULL;
	int ret = -1;

	if (!abs_tmp || !abs_lib) {
		gm_error_errno("cannot resolve the bundle or library path");
		goto out;
	}
	env = child_env(cr, abs_tmp, abs_lib);
	c.env = env;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_signal;
	sa.sa_flags = SA_SIGINFO;
	sigemptyset(&sa.sa_mask);
	got_signal = 0;
	for (int i = 0; i < 4; i++) {
		sigaction(sigs[i], NULL, &old[i]);
		/* An ignored signal (a background job) stays ignored. */
		if (old[i].sa_handler != SIG_IGN) {
			sigaction(sigs[i], &sa, NULL);
		}
	}
	/* Children the program leaves behind become ours to wait for. */
	if (capture_adopt_orphans()) {
		gm_warning("%s: processes the program leaves running may miss "
			   "the end of the capture", gm_error_message());
		gm_error_clear();
	}
	cr->start_ns = realtime_ns();
	/* An exec that fails: "cannot run 'PROGRAM': REASON". */
	if (gm_run_command_start(&c, &ch)) {
		cr->end_ns = realtime_ns();
		goto restore;
	}
	child_pid = ch.pid;
	gm_run_command_wait(&ch, NULL, NULL);	/* on_signal passes them on */
	child_pid = 0;
	cr->end_ns = realtime_ns();
	if (ch.r.exit_code < 0 && !ch.r.signal) {
		gm_error("cannot wait for '%s': it is no child of gpumix",
			 cr->opts->argv[0]);
		goto restore;
	}
	cr->started = 1;
	if (ch.r.signal) {
		cr->signal = ch.r.signal;
	} else {
		cr->exit_code = ch.r.exit_code;
	}
	if (!got_signal || got_signal == SIGCHLD) {
		cr->nr_left = capture_wait_descendants(
			cr->opts->wait_s < 0 ? GM_CAPTURE_WAIT_DEFAULT
					     : cr->opts->wait_s,
			say_waiting, cr->left, GM_CAPTURE_MAX_LEFT);
	}
	ret = 0;
restore:
	cr->interrupted = got_signal != 0 && got_signal != SIGCHLD;
	for (int i = 0; i < 4; i++) {
		sigaction(sigs[i], &old[i], NULL);
	}
out:
	free_env(env);
	free(abs_tmp);
	free(abs_lib);
	return ret;
}

void capture_run_end(struct capture_run *cr)
{
	if (lttng_session_stop(&cr->session) ||
	    lttng_session_destroy(&cr->session)) {
		cr->capture_error = gm_xasprintf("tracing did not stop cleanly (%s)",
						 gm_error_message());
		gm_error_clear();
		lttng_session_destroy(&cr->session);
	}
}

void capture_run_discard(struct capture_run *cr)
{
	if (cr->tmp) {
		gm_remove_tree(cr->tmp);
	}
}

void capture_run_release(struct capture_run *cr)
{
	free(cr->tmp);
	free(cr->capture_error);
	cr->tmp = NULL;
	cr->capture_error = NULL;
}

int capture_run_status(const struct capture_run *cr)
{
	if (!cr->started) {
		return 127;
	}
	return cr->signal ? 128 + cr->signal : cr->exit_code;
}
