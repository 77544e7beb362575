/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for nvidia-cuda-mps-control where the real one cannot run
 * (no GPU, no driver): the CPU tests put it first in PATH. It behaves as
 * the replay runtime and the mock driver need it to, as the real one
 * does:
 *
 *   nvidia-cuda-mps-control -d   starts a daemon (in its own session)
 *       listening on $CUDA_MPS_PIPE_DIRECTORY/control (default
 *       /tmp/nvidia-mps), logging to $CUDA_MPS_LOG_DIRECTORY/control.log
 *       (default /var/log/nvidia-mps), and returns 0 once it listens;
 *       refuses (exit 1) when a daemon already listens there.
 *   nvidia-cuda-mps-control      reads commands from stdin and sends each
 *       to the daemon, printing its answers; exit 1 when there is none.
 *       Commands: quit (the daemon ends, removing its socket),
 *       get_server_list (no servers: an empty answer).
 *
 * Clients (the mock driver's cuInit) connect and send "client PID PCT";
 * the daemon logs "New client PID connected" and "Client PID
 * disconnected" as the real control.log does, and answers with the
 * client's number (0, 1, ...: MOCK_CUDA_CLOCK_SKEW_NS uses it). FAKE_MPS_MODE makes it
 * misbehave for the failure tests: "fail" (-d exits 1), "hang" (-d never
 * returns), "mute" (the daemon never listens), "noquit" (it ignores quit).
 * Each descriptor above 2 that -d was started with is logged ("inherited
 * descriptor N"): a daemon must hold nothing of the replay's.
 */
#include <dirent.h>
#include <errno.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#define MAX_CLIENTS 64

static const char *mode(void)
{
	const char *m = getenv("FAKE_MPS_MODE");

	return m ? m : "";
}

static const char *env_or(const char *name, const char *dflt)
{
	const char *v = getenv(name);

	return v && *v ? v : dflt;
}

static int sock_addr(struct sockaddr_un *a)
{
	const char *dir = env_or("CUDA_MPS_PIPE_DIRECTORY", "/tmp/nvidia-mps");

	memset(a, 0, sizeof(*a));
	a->sun_family = AF_UNIX;
	if (snprintf(a->sun_path, sizeof(a->sun_path), "%s/control", dir) >=
	    (int)sizeof(a->sun_path)) {
		return -1;
	}
	return 0;
}

static void logf_(const char *fmt, ...)
{
	char path[4096];
	FILE *f;
	va_list ap;

	snprintf(path, sizeof(path), "%s/control.log",
		 env_or("CUDA_MPS_LOG_DIRECTORY", "/var/log/nvidia-mps"));
	f = fopen(path, "a");
	if (!f) {
		return;
	}
	fprintf(f, "[%ld] ", (long)time(NULL));
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}

static int connect_daemon(void)
{
	struct sockaddr_un a;
	int fd;

	if (sock_addr(&a) < 0) {
		return -1;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return -1;
	}
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return -1;
	}
	return fd;
}

/* ---- the daemon ---- */

struct client {
	int fd;
	long pid;		/* 0 until it says who it is */
	char buf[256];
	size_t len;
};

static void serve(int lfd, const char *path)
{
	struct client c[MAX_CLIENTS];
	int nr = 0, numbered = 0;

	logf_("Startup");
	for (;;) {
		struct pollfd p[MAX_CLIENTS + 1];
		p[0].fd = lfd;
		p[0].events = POLLIN;
		for (int i = 0; i < nr; i++) {
			p[i + 1].fd = c[i].fd;
			p[i + 1].events = POLLIN;
		}
		if (poll(p, nr + 1, -1) < 0) {
			continue;
		}
		if ((p[0].revents & POLLIN) && nr < MAX_CLIENTS) {
			int fd = accept4(lfd, NULL, NULL, SOCK_CLOEXEC);
			if (fd >= 0) {
				c[nr].fd = fd;
				c[nr].pid = 0;
				c[nr].len = 0;
				nr++;
			}
		}
		for (int i = nr - 1; i >= 0; i--) {
			char *nl;
			ssize_t n;
			if (!(p[i + 1].revents & (POLLIN | POLLHUP))) {
				continue;
			}
			n = read(c[i].fd, c[i].buf + c[i].len,
				 sizeof(c[i].buf) - 1 - c[i].len);
			if (n > 0) {
				c[i].len += (size_t)n;
				c[i].buf[c[i].len] = 0;
			}
			nl = strchr(c[i].buf, '\n');
			if (nl) {
				long pid = 0, pct = 0;
				*nl = 0;
				if (!strcmp(c[i].buf, "quit")) {
					logf_("Shutdown requested");
					if (strcmp(mode(), "noquit")) {
						unlink(path);
						logf_("Exit");
						_exit(0);
					}
				} else if (sscanf(c[i].buf, "client %ld %ld",
						  &pid, &pct) >= 1) {
					char num[16];
					c[i].pid = pid;
					logf_("New client %ld connected "
					      "(active thread percentage %ld)",
					      pid, pct);
					snprintf(num, sizeof(num), "%d\n",
						 numbered++);
					if (write(c[i].fd, num, strlen(num)) < 0) {
						/* it left: seen at its EOF */
					}
					c[i].len = 0;
					continue;	/* a client stays */
				}
				/* A command: answered by closing. */
				n = 0;
			}
			if (n <= 0) {
				if (c[i].pid) {
					logf_("Client %ld disconnected",
					      c[i].pid);
				}
				close(c[i].fd);
				c[i] = c[--nr];
			}
		}
	}
}

static void log_inherited(void)
{
	DIR *d = opendir("/proc/self/fd");

	for (struct dirent *e; d && (e = readdir(d));) {
		int fd = atoi(e->d_name);
		if (fd > 2 && fd != dirfd(d)) {
			logf_("inherited descriptor %d", fd);
		}
	}
	if (d) {
		closedir(d);
	}
}

static int start_daemon(void)
{
	struct sockaddr_un a;
	int ready[2];
	pid_t pid;
	char ok;

	log_inherited();
	if (!strcmp(mode(), "fail")) {
		fprintf(stderr, "fake MPS: cannot start (FAKE_MPS_MODE=fail)\n");
		return 1;
	}
	if (!strcmp(mode(), "hang")) {
		for (;;) {
			pause();
		}
	}
	if (sock_addr(&a) < 0) {
		fprintf(stderr, "fake MPS: pipe directory path too long\n");
		return 1;
	}
	{
		int fd = connect_daemon();
		if (fd >= 0) {
			close(fd);
			fprintf(stderr, "An instance of this daemon is already "
				"running\n");
			return 1;
		}
	}
	if (pipe(ready) < 0) {
		return 1;
	}
	pid = fork();
	if (pid < 0) {
		return 1;
	}
	if (pid) {
		close(ready[1]);
		/* Return once the daemon listens (or gave up). */
		if (read(ready[0], &ok, 1) != 1) {
			ok = 0;
		}
		waitpid(pid, NULL, 0);
		return ok == 1 ? 0 : 1;
	}
	close(ready[0]);
	setsid();
	if (fork()) {
		_exit(0);	/* the daemon is nobody's child */
	}
	signal(SIGPIPE, SIG_IGN);
	{
		int lfd = -1;
		if (strcmp(mode(), "mute")) {
			lfd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
			unlink(a.sun_path);
			if (lfd < 0 ||
			    bind(lfd, (struct sockaddr *)&a, sizeof(a)) < 0 ||
			    listen(lfd, 16) < 0) {
				ok = 0;
				if (write(ready[1], &ok, 1) < 0) {
					/* the starter sees EOF */
				}
				_exit(1);
			}
		}
		ok = 1;
		if (write(ready[1], &ok, 1) < 0) {
			_exit(1);
		}
		close(ready[1]);
		for (int fd = 0; fd < 3; fd++) {
			close(fd);
		}
		if (lfd < 0) {
			for (;;) {
				pause();
			}
		}
		serve(lfd, a.sun_path);
	}
	return 0;
}

/* ---- the client ---- */

static int client(void)
{
	char line[512];
	int ret = 0;

	while (fgets(line, sizeof(line), stdin)) {
		char buf[512];
		ssize_t n;
		int fd = connect_daemon();
		if (fd < 0) {
			fprintf(stderr, "Cannot find MPS control daemon process\n");
			return 1;
		}
		if (!strchr(line, '\n')) {
			strcat(line, "\n");
		}
		if (write(fd, line, strlen(line)) < 0) {
			ret = 1;
		}
		while ((n = read(fd, buf, sizeof(buf))) > 0) {
			fwrite(buf, 1, (size_t)n, stdout);
		}
		close(fd);
	}
	return ret;
}

int main(int argc, char **argv)
{
	if (argc == 2 && !strcmp(argv[1], "-d")) {
		return start_daemon();
	}
	if (argc == 1) {
		return client();
	}
	fprintf(stderr, "usage: %s [-d]\n", argv[0]);
	return 2;
}
