/* SPDX-License-Identifier: MIT */
/*
 * The private MPS control daemon and its reaper (see mps_daemon.h).
 */
#include "mps_daemon.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "error.h"
#include "fs.h"
#include "run_command.h"
#include "strbuf.h"

#define POLL_NS 10000000L	/* 10 ms */
#define DEFAULT_TIMEOUT_S 20.0

double gm_mps_daemon_timeout_s(void)
{
	const char *v = getenv("GPUMIX_MPS_TIMEOUT");
	double t = v ? atof(v) : 0;

	return t > 0 ? t : DEFAULT_TIMEOUT_S;
}

static void nap(void)
{
	struct timespec ts = { 0, POLL_NS };

	nanosleep(&ts, NULL);
}

/*
 * Wait up to @timeout_s for @pid; on time out kill its process group
 * (the command and whatever it started in it). Returns its exit status,
 * 128 + signal, or -1 when it had to be killed.
 */
static int wait_limited(pid_t pid, double timeout_s)
{
	double until = gm_now_s() + timeout_s;
	int status;

	for (;;) {
		pid_t r = waitpid(pid, &status, WNOHANG);
		if (r == pid) {
			return WIFSIGNALED(status) ? 128 + WTERMSIG(status) :
						     WEXITSTATUS(status);
		}
		if (r < 0 && errno != EINTR) {
			return -1;
		}
		if (gm_now_s() > until) {
			kill(-pid, SIGKILL);
			kill(pid, SIGKILL);
			while (waitpid(pid, &status, 0) < 0 && errno == EINTR) {
			}
			return -1;
		}
		nap();
	}
}

static char **daemon_env(const struct gm_mps_daemon *d);
static void free_env(char **env);

/*
 * Run `nvidia-cuda-mps-control [@arg]` for daemon @d (its variables in
 * the environment, daemon_env()) with @input (or nothing) on its
 * standard input and its output appended to @out_path, in a process
 * group of its own, within @d->timeout_s (then SIGTERM to the group and,
 * a second later, SIGKILL). Returns its exit status, 128 + signal, -1
 * when it had to be stopped, or -2 with a cause when it cannot be
 * started.
 */
static int control(const struct gm_mps_daemon *d, const char *arg,
		   const char *input, const char *out_path)
{
	char *argv[] = { GM_MPS_CONTROL, (char *)arg, NULL };
	char **env = daemon_env(d);
	/* A daemon holds nothing of the replay's (its board): close_fds. */
	struct gm_run_command c = {
		.argv = argv, .search_path = 1, .env = env,
		.output = out_path, .append = 1, .input = input,
		.close_fds = 1, .own_group = 1,
		.timeout_s = d->timeout_s, .grace_s = 1,
	};
	struct gm_run_result r;
	int st;

	if (gm_run_command(&c, &r, NULL, NULL) < 0) {
		st = -2;
	} else if (r.timed_out) {
		st = -1;
	} else {
		st = r.signal ? 128 + r.signal : r.exit_code;
	}
	free_env(env);
	return st;
}

/* 1 when process @pid is one of this daemon's: named nvidia-cuda-mps-*
 * (comm keeps 15 characters) with our pipe directory in its environment. */
static int ours(int pid, const char *want)
{
	char path[64], comm[32] = "";
	struct strbuf env = STRBUF_INIT;
	int fd, yes = 0;
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/%d/comm", pid);
	fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		return 0;
	}
	n = read(fd, comm, sizeof(comm) - 1);
	close(fd);
	if (n <= 0 || strncmp(comm, "nvidia-cuda-mps", 15)) {
		return 0;
	}
	snprintf(path, sizeof(path), "/proc/%d/environ", pid);
	if (gm_read_file(path, &env) < 0) {
		gm_error_clear();
		return 0;
	}
	for (size_t i = 0; i < env.len; i += strlen(env.buf + i) + 1) {
		if (!strcmp(env.buf + i, want)) {
			yes = 1;
			break;
		}
	}
	strbuf_release(&env);
	return yes;
}

/* Send @sig to the processes of this daemon; returns how many there are. */
static int signal_ours(const char *pipe_dir, int sig)
{
	char *want = gm_xasprintf("CUDA_MPS_PIPE_DIRECTORY=%s", pipe_dir);
	DIR *d = opendir("/proc");
	int nr = 0;

	for (struct dirent *e; d && (e = readdir(d));) {
		if (e->d_name[0] < '1' || e->d_name[0] > '9' ||
		    atoi(e->d_name) == getpid() || !ours(atoi(e->d_name), want)) {
			continue;
		}
		nr++;
		if (sig) {
			kill(atoi(e->d_name), sig);
		}
	}
	if (d) {
		closedir(d);
	}
	free(want);
	return nr;
}

static void note(const char *log, const char *fmt, const char *arg)
{
	FILE *f = fopen(log, "a");

	if (f) {
		fprintf(f, "gpumix: ");
		fprintf(f, fmt, arg);
		fputc('\n', f);
		fclose(f);
	}
}

/* The reaper's stop: 0 when the daemon ended after quit, 1 otherwise. */
static int stop_now(const struct gm_mps_daemon *d)
{
	char *out = gm_path_join(d->log_dir, "gpumix-control.out");
	char *sock = gm_path_join(d->pipe_dir, "control");
	double until;
	int forced = 0;

	if (gm_path_exists(sock) || signal_ours(d->pipe_dir, 0)) {
		int st = control(d, NULL, "quit\n", out);
		gm_error_clear();
		if (st != 0) {
			note(out, "'quit' failed (status %s)", st == -1 ?
			     "time out" : st == -2 ? "cannot run" : "non-zero");
		}
	}
	until = gm_now_s() + d->timeout_s;
	while (signal_ours(d->pipe_dir, 0) && gm_now_s() < until) {
		nap();
	}
	if (signal_ours(d->pipe_dir, SIGTERM)) {
		forced = 1;
		note(out, "%s", "the daemon did not end after quit: killed");
		until = gm_now_s() + 2;
		while (signal_ours(d->pipe_dir, 0) && gm_now_s() < until) {
			nap();
		}
		signal_ours(d->pipe_dir, SIGKILL);
	}
	gm_remove_tree(d->pipe_dir);
	free(out);
	free(sock);
	return forced;
}

static void reaper_main(struct gm_mps_daemon *d, int rfd)
{
	char c;

	signal(SIGINT, SIG_IGN);
	signal(SIGTERM, SIG_IGN);
	signal(SIGHUP, SIG_IGN);
	signal(SIGPIPE, SIG_IGN);
	setsid();
	prctl(PR_SET_NAME, "gpumix-mps-reap");	/* for ps; not a replay */
	/* Hold nothing of the replay's open (its pipes, its files). */
	if (dup2(rfd, 3) == 3) {
		rfd = 3;
	}
	for (int fd = 4; fd < 1024; fd++) {
		close(fd);
	}
	for (;;) {
		ssize_t n = read(rfd, &c, 1);
		if (n == 0 || (n < 0 && errno != EINTR)) {
			break;
		}
	}
	_exit(stop_now(d));
}

#define SERVER_DEVICES "GPUMIX_MPS_SERVER_DEVICES"

static int is_uuid(const char *e, size_t n)
{
	return (n >= 4 && !strncmp(e, "GPU-", 4)) ||
	       (n >= 4 && !strncmp(e, "MIG-", 4));
}

char *gm_mps_client_devices(const char *server)
{
	struct strbuf sb = STRBUF_INIT;
	size_t entries = 0;
	int uuids_only = 1;

	if (!server || !*server) {
		return NULL;
	}
	for (const char *e = server; *e;) {
		size_t n = strcspn(e, ",");
		while (n && (*e == ' ')) {
			e++;
			n--;
		}
		if (n) {
			entries++;
			uuids_only &= is_uuid(e, n);
		}
		e += n;
		if (*e == ',') {
			e++;
		}
	}
	if (uuids_only) {
		return NULL;
	}
	for (size_t i = 0; i < entries; i++) {
		strbuf_addf(&sb, "%s%zu", i ? "," : "", i);
	}
	return strbuf_detach(&sb, NULL);
}

const char *gm_visible_devices(void)
{
	const char *s = getenv(SERVER_DEVICES);

	return s ? s : getenv("CUDA_VISIBLE_DEVICES");
}

/* The variables of gm_mps_daemon_env(), "NAME=VALUE" (allocated, as
 * the array: free_env()). */
static char **daemon_env(const struct gm_mps_daemon *d)
{
	char *clients = gm_mps_client_devices(d->server_devices);
	char **env = gm_xcalloc(5, sizeof(char *));

	env[0] = gm_xasprintf("CUDA_MPS_PIPE_DIRECTORY=%s", d->pipe_dir);
	env[1] = gm_xasprintf("CUDA_MPS_LOG_DIRECTORY=%s", d->log_dir);
	if (clients) {
		env[2] = gm_xasprintf("%s=%s", SERVER_DEVICES,
				      d->server_devices);
		env[3] = gm_xasprintf("CUDA_VISIBLE_DEVICES=%s", clients);
		free(clients);
	}
	return env;
}

static void free_env(char **env)
{
	for (size_t i = 0; env[i]; i++) {
		free(env[i]);
	}
	free(env);
}

void gm_mps_daemon_env(const struct gm_mps_daemon *d)
{
	char **env = daemon_env(d);

	for (size_t i = 0; env[i]; i++) {
		char *eq = strchr(env[i], '=');
		*eq = '\0';
		setenv(env[i], eq + 1, 1);
	}
	free_env(env);
}

void gm_mps_daemon_leave_env(const struct gm_mps_daemon *d)
{
	unsetenv("CUDA_MPS_PIPE_DIRECTORY");
	unsetenv("CUDA_MPS_LOG_DIRECTORY");
	if (getenv(SERVER_DEVICES)) {
		unsetenv(SERVER_DEVICES);
		if (d->server_devices) {
			setenv("CUDA_VISIBLE_DEVICES", d->server_devices, 1);
		}
	}
}

/*
 * The reaper is a fork() of its own: it runs no program (run_command.h),
 * and gm_call_in_child() (child_call.h) waits for the function's return
 * and lets SIGINT and SIGTERM end the child, whereas the reaper runs in
 * the background for the whole replay, deaf to those, in a session of
 * its own, and outlives a replay that dies.
 */
static int start_reaper(struct gm_mps_daemon *d)
{
	int p[2];

	if (pipe2(p, O_CLOEXEC) < 0) {
		return gm_error_errno("cannot make the MPS reaper's pipe");
	}
	fflush(NULL);
	d->reaper = fork();
	if (d->reaper < 0) {
		d->reaper = 0;
		close(p[0]);
		close(p[1]);
		return gm_error_errno("cannot start the MPS reaper");
	}
	if (!d->reaper) {
		close(p[1]);
		reaper_main(d, p[0]);
	}
	close(p[0]);
	d->reaper_fd = p[1];
	return 0;
}

static int stop_reaper(struct gm_mps_daemon *d);

/* The last line @path has (the daemon's own words), or "no output". */
static char *last_line(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	char *line, *ret;

	if (gm_read_file(path, &sb) < 0) {
		gm_error_clear();
	}
	strbuf_rtrim(&sb);
	line = strrchr(sb.buf, '\n');
	line = line ? line + 1 : sb.buf;
	ret = gm_xstrdup(*line ? line : "no output");
	strbuf_release(&sb);
	return ret;
}

int gm_mps_daemon_start(struct gm_mps_daemon *d, const char *log_dir,
			double timeout_s)
{
	const char *tmp = getenv("TMPDIR");
	char *out = NULL, *sock = NULL, *tmpl;
	double until, started;
	int st, ret = -1;

	memset(d, 0, sizeof(*d));
	d->reaper_fd = -1;
	d->timeout_s = timeout_s;
	{
		/* the list the daemon inherits, a client's being remapped */
		const char *vis = gm_visible_devices();
		d->server_devices = vis && *vis ? gm_xstrdup(vis) : NULL;
	}
	if (!gm_program_exists(GM_MPS_CONTROL)) {
		gm_error("'%s' is not in PATH: this host has no MPS",
			 GM_MPS_CONTROL);
		gm_error_hint("the mps variant needs the NVIDIA driver's MPS "
			      "binaries (nvidia-cuda-mps-control, "
			      "nvidia-cuda-mps-server)");
		goto out_env;
	}
	/* A socket path has at most 107 bytes: not under a deep run dir. */
	tmpl = gm_xasprintf("%s/gpumix-mps-XXXXXX",
			    tmp && *tmp && strlen(tmp) < 64 ? tmp : "/tmp");
	if (!mkdtemp(tmpl)) {
		gm_error_errno("cannot create the MPS pipe directory '%s'",
			       tmpl);
		free(tmpl);
		goto out_env;
	}
	d->pipe_dir = tmpl;
	d->log_dir = gm_xstrdup(log_dir);
	if (gm_mkdir_p(log_dir, 0777) < 0) {
		gm_error("cannot create the MPS log directory '%s'", log_dir);
		gm_remove_tree(d->pipe_dir);
		free(d->pipe_dir);
		free(d->log_dir);
		d->pipe_dir = d->log_dir = NULL;
		goto out_env;
	}
	if (start_reaper(d) < 0) {
		gm_remove_tree(d->pipe_dir);
		free(d->pipe_dir);
		free(d->log_dir);
		d->pipe_dir = d->log_dir = NULL;
		goto out_env;
	}
	out = gm_path_join(log_dir, "gpumix-control.out");
	sock = gm_path_join(d->pipe_dir, "control");
	st = control(d, "-d", NULL, out);
	if (st != 0) {
		if (st == -1) {
			gm_error("'%s -d' did not return in %g s", GM_MPS_CONTROL,
				 timeout_s);
		} else if (st == -2) {
			gm_error("cannot run '%s -d'", GM_MPS_CONTROL);
		} else {
			char *said = last_line(out);
			gm_error("'%s -d' exited with status %d: %s",
				 GM_MPS_CONTROL, st, said);
			free(said);
		}
		goto fail;
	}
	/* Ready when it answers a query through its pipe directory; its
	 * socket ("control") appearing first saves running the client
	 * before, but no file name is trusted for more than a second. */
	started = gm_now_s();
	until = started + timeout_s;
	for (;;) {
		if (gm_path_exists(sock) || gm_now_s() > started + 1) {
			st = control(d, NULL, "get_server_list\n", out);
			if (st == 0) {
				break;
			}
			if (st == -2) {
				gm_error("cannot run '%s' for a query",
					 GM_MPS_CONTROL);
				goto fail;
			}
		}
		if (gm_now_s() > until) {
			gm_error("the MPS control daemon did not answer a query "
				 "within %g s", timeout_s);
			goto fail;
		}
		nap();
	}
	ret = 0;
	goto out;
fail:
	/* Stop what may have started; the cause is why it did not start. */
	stop_reaper(d);
	free(d->log_dir);
	d->log_dir = NULL;
	gm_error("cannot start an MPS control daemon");
out:
	free(out);
	free(sock);
out_env:
	if (ret) {
		free(d->server_devices);
		d->server_devices = NULL;
	}
	return ret;
}

/* Tell the reaper to stop the daemon and wait for it; returns its exit
 * status (0: clean), -1 when it did not finish in time. Frees @d's
 * strings. */
static int stop_reaper(struct gm_mps_daemon *d)
{
	int st = 0;

	if (d->reaper_fd >= 0) {
		close(d->reaper_fd);
		d->reaper_fd = -1;
	}
	if (d->reaper > 0) {
		st = wait_limited(d->reaper, 3 * d->timeout_s + 5);
		d->reaper = 0;
	}
	free(d->pipe_dir);
	d->pipe_dir = NULL;
	return st;
}

int gm_mps_daemon_stop(struct gm_mps_daemon *d)
{
	double limit = 3 * d->timeout_s + 5;
	int st = stop_reaper(d), ret = 0;

	if (st == -1) {
		ret = gm_error("the MPS reaper did not finish in %g s", limit);
	} else if (st != 0) {
		ret = gm_error("the MPS control daemon did not end after 'quit': "
			       "its processes were killed (log: '%s')",
			       d->log_dir);
	}
	free(d->log_dir);
	d->log_dir = NULL;
	free(d->server_devices);
	d->server_devices = NULL;
	return ret;
}
