/* SPDX-License-Identifier: MIT */
/*
 * LTTng session control (see session.h). Each step runs the `lttng` tool
 * with --no-sessiond (never let it spawn a daemon without our options) and
 * keeps its output for the error message when it fails.
 */
#include "session.h"

#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "run_output.h"
#include "strbuf.h"

const char *const gm_lttng_child_env[] = {
	"LTTNG_UST_ALLOW_BLOCKING=1",
	/* Wait for the session daemon at registration (the default 3 s can
	 * pass on a loaded machine, and early events would be lost). */
	"LTTNG_UST_REGISTER_TIMEOUT=60000",
	NULL,
};

/*
 * Run @argv (NULL-terminated), collecting stdout and stderr into @out.
 * Returns the exit status, 127 when it cannot be run, -1 on fork failure.
 */
static int run_tool(char *const argv[], struct strbuf *out)
{
	int status;

	if (gm_run_output(argv, out, &status) < 0) {
		return -1;
	}
	if (WIFEXITED(status)) {
		return WEXITSTATUS(status);
	}
	return 128 + WTERMSIG(status);
}

/* The last non-empty line of @out, for error messages. */
static const char *last_line(struct strbuf *out)
{
	char *p;

	strbuf_rtrim(out);
	p = strrchr(out->buf, '\n');
	return p ? p + 1 : out->buf;
}

/* Run `lttng --no-sessiond ARGS...`; on failure record a cause. */
static int lttng(const char *what, ...)
{
	char *argv[32];
	int argc = 0, rc;
	struct strbuf out = STRBUF_INIT;
	va_list ap;

	argv[argc++] = "lttng";
	argv[argc++] = "--no-sessiond";
	va_start(ap, what);
	while (argc < 31 && (argv[argc] = va_arg(ap, char *))) {
		argc++;
	}
	va_end(ap);
	argv[argc] = NULL;
	rc = run_tool(argv, &out);
	if (rc == 127) {
		gm_error("cannot run 'lttng': %s", last_line(&out));
		gm_error_hint("install lttng-tools (or put its bin directory on "
			      "PATH)");
	} else if (rc) {
		gm_error("lttng: %s", last_line(&out));
		gm_error("cannot %s", what);
	}
	strbuf_release(&out);
	return rc ? -1 : 0;
}

static int daemon_reachable(void)
{
	char *argv[] = { "lttng", "--no-sessiond", "list", NULL };
	struct strbuf out = STRBUF_INIT;
	int rc = run_tool(argv, &out);

	strbuf_release(&out);
	return rc == 0;
}

/* Are LTTng kernel modules loaded or installed for the running kernel? */
static int kernel_modules_present(void)
{
	struct strbuf sb = STRBUF_INIT;
	struct utsname u;
	char *path;
	int found = 0;

	if (gm_path_exists("/sys/module/lttng_tracer")) {
		return 1;
	}
	if (uname(&u)) {
		return 0;
	}
	path = gm_xasprintf("/lib/modules/%s/modules.dep", u.release);
	if (!gm_read_file(path, &sb)) {
		found = strstr(sb.buf, "lttng-tracer") != NULL ||
			strstr(sb.buf, "lttng_tracer") != NULL;
	} else {
		gm_error_clear();
	}
	free(path);
	strbuf_release(&sb);
	return found;
}

int lttng_daemon_ensure(enum gm_kernel_mode mode, int *started)
{
	const char *bin = getenv("LTTNG_SESSIOND_PATH");
	char *argv[4];
	int argc = 0, rc;
	struct strbuf out = STRBUF_INIT;

	*started = 0;
	if (daemon_reachable()) {
		return 0;
	}
	argv[argc++] = (char *)(bin && *bin ? bin : "lttng-sessiond");
	argv[argc++] = "--daemonize";
	if (mode == GM_KERNEL_NO || (geteuid() == 0 && !kernel_modules_present())) {
		argv[argc++] = "--no-kernel";
	}
	argv[argc] = NULL;
	rc = run_tool(argv, &out);
	/* Another capture may have started one meanwhile: that is fine. */
	if (daemon_reachable()) {
		*started = rc == 0;
		strbuf_release(&out);
		return 0;
	}
	if (rc == 127) {
		gm_error("cannot run '%s': %s", argv[0], last_line(&out));
		gm_error_hint("install lttng-tools or set LTTNG_SESSIOND_PATH");
	} else {
		gm_error("%s: %s", argv[0], last_line(&out));
		gm_error("cannot start an LTTng session daemon");
		if (geteuid() == 0) {
			gm_error_hint("a root daemon without LTTng kernel modules "
				      "needs --no-kernel");
		}
	}
	strbuf_release(&out);
	return -1;
}

/* A short tag of this machine, so that only its own stale sessions go. */
static unsigned host_tag(void)
{
	char host[256] = "";
	unsigned h = 2166136261u;

	gethostname(host, sizeof(host) - 1);
	for (const char *p = host; *p; p++) {
		h = (h ^ (unsigned char)*p) * 16777619u;
	}
	return h;
}

/*
 * Destroy sessions a killed gpumix left behind: named by this machine's
 * tag and the pid of a process that no longer exists. A live capture's
 * session is never touched.
 */
static void destroy_stale_sessions(void)
{
	char *argv[] = { "lttng", "--no-sessiond", "list", NULL };
	struct strbuf out = STRBUF_INIT;
	char *line, *save = NULL;
	unsigned tag = host_tag();

	if (run_tool(argv, &out)) {
		strbuf_release(&out);
		return;
	}
	for (line = strtok_r(out.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char name[128];
		unsigned long pid, rnd;
		unsigned t;
		char *p = strstr(line, "gpumix-");

		if (!p || sscanf(p, "gpumix-%lu-%lx-%x", &pid, &rnd, &t) != 3 ||
		    t != tag || sscanf(p, "%127s", name) != 1) {
			continue;
		}
		if (kill((pid_t)pid, 0) == 0 || errno != ESRCH) {
			continue;
		}
		if (lttng("destroy a stale session", "destroy", name, NULL)) {
			gm_error_clear();
		}
	}
	strbuf_release(&out);
}

int lttng_session_create(struct lttng_session *s, const char *output,
			 size_t subbuf_size, unsigned nr_subbuf)
{
	char *out_opt, *sub_opt, *num_opt;
	struct timespec ts;
	int ret = -1;

	destroy_stale_sessions();
	clock_gettime(CLOCK_REALTIME, &ts);
	s->name = gm_xasprintf("gpumix-%ld-%lx-%08x", (long)getpid(),
			       (unsigned long)(ts.tv_nsec ^ (ts.tv_sec << 20)),
			       host_tag());
	s->output = gm_xstrdup(output);
	out_opt = gm_xasprintf("--output=%s", output);
	sub_opt = gm_xasprintf("--subbuf-size=%zu", subbuf_size);
	num_opt = gm_xasprintf("--num-subbuf=%u", nr_subbuf);
	if (lttng("create an LTTng session", "create", s->name, out_opt, NULL)) {
		goto out;
	}
	s->created = 1;
	if (lttng("create the gpumix channel", "enable-channel", "--userspace",
		  "--session", s->name, "--buffers-pid",
		  "--blocking-timeout=inf", sub_opt, num_opt, GM_LTTNG_CHANNEL,
		  NULL) ||
	    lttng("add the vpid and vtid contexts", "add-context", "--userspace",
		  "--session", s->name, "--channel", GM_LTTNG_CHANNEL,
		  "--type=vpid", "--type=vtid", NULL) ||
	    lttng("enable the gpumix events", "enable-event", "--userspace",
		  "--session", s->name, "--channel", GM_LTTNG_CHANNEL,
		  "gpumix_capture:*", NULL)) {
		lttng_session_destroy(s);
		goto out;
	}
	ret = 0;
out:
	free(out_opt);
	free(sub_opt);
	free(num_opt);
	return ret;
}

int lttng_session_start(struct lttng_session *s)
{
	if (lttng("start tracing", "start", s->name, NULL)) {
		return -1;
	}
	s->started = 1;
	return 0;
}

int lttng_session_stop(struct lttng_session *s)
{
	if (!s->started) {
		return 0;
	}
	s->started = 0;
	return lttng("stop tracing", "stop", s->name, NULL);
}

int lttng_session_destroy(struct lttng_session *s)
{
	int ret = 0;

	if (s->created) {
		if (s->started) {
			ret = lttng_session_stop(s);
		}
		if (lttng("destroy the LTTng session", "destroy", s->name, NULL)) {
			ret = -1;
		}
		s->created = 0;
	}
	free(s->name);
	free(s->output);
	s->name = NULL;
	s->output = NULL;
	return ret;
}
