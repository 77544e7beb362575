/* SPDX-License-Identifier: MIT */
/*
 * Running a program under capture (see capture_run.h). The program is
 * forked and exec'ed with a close-on-exec pipe that reports an exec
 * failure; while it runs, SIGINT, SIGQUIT, SIGTERM and SIGHUP mark the
 * capture as interrupted and are passed on to the program, except a
 * SIGINT or SIGQUIT from the terminal, which the program (in the same
 * process group) got already.
 */
#include "capture_run.h"
#include "descendants.h"

#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
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

static void child_env(const struct capture_run *cr, const char *abs_tmp,
		      const char *abs_lib)
{
	char *helper;

	setenv("CUDA_INJECTION64_PATH", abs_lib, 1);
	setenv(GM_CAPTURE_DIR_ENV, abs_tmp, 1);
	for (int i = 0; gm_lttng_child_env[i]; i++) {
		putenv((char *)gm_lttng_child_env[i]);
	}
	/*
	 * A program that forks after CUDA is initialised needs LTTng-UST's
	 * fork wrapper for its child to trace.
	 */
	if (!cr->opts->no_fork_helper && (helper = find_fork_helper())) {
		const char *old = getenv("LD_PRELOAD");
		char *v = old && *old ? gm_xasprintf("%s:%s", helper, old)
				      : gm_xstrdup(helper);
		setenv("LD_PRELOAD", v, 1);
		free(v);
		free(helper);
	}
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
	int pfd[2], err = 0, status = 0, ret = -1;
	pid_t pid;
	ssize_t n;

	if (!abs_tmp || !abs_lib) {
		gm_error_errno("cannot resolve the bundle or library path");
		goto out;
	}
	if (pipe2(pfd, O_CLOEXEC)) {
		gm_error_errno("cannot create a pipe");
		goto out;
	}
	fflush(stdout);
	fflush(stderr);
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
	pid = fork();
	if (pid == 0) {
		for (int i = 0; i < 4; i++) {
			sigaction(sigs[i], &old[i], NULL);
		}
		close(pfd[0]);
		child_env(cr, abs_tmp, abs_lib);
		execvp(cr->opts->argv[0], cr->opts->argv);
		err = errno;
		if (write(pfd[1], &err, sizeof(err)) < 0) {
			/* Nothing else to tell the parent with. */
		}
		_exit(127);
	}
	close(pfd[1]);
	if (pid < 0) {
		close(pfd[0]);
		gm_error_errno("cannot fork");
		goto restore;
	}
	child_pid = pid;
	do {
		n = read(pfd[0], &err, sizeof(err));
	} while (n < 0 && errno == EINTR);
	close(pfd[0]);
	while (waitpid(pid, &status, 0) < 0) {
		if (errno != EINTR) {
			gm_error_errno("cannot wait for '%s'", cr->opts->argv[0]);
			goto restore;
		}
	}
	child_pid = 0;
	cr->end_ns = realtime_ns();
	if (n == (ssize_t)sizeof(err)) {
		errno = err;
		gm_error_errno("cannot run '%s'", cr->opts->argv[0]);
		goto restore;
	}
	cr->started = 1;
	if (WIFSIGNALED(status)) {
		cr->signal = WTERMSIG(status);
	} else {
		cr->exit_code = WEXITSTATUS(status);
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
