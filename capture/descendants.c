/* SPDX-License-Identifier: MIT */
/* Waiting for the processes the captured program started (descendants.h). */
#include "descendants.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "clock.h"
#include "error.h"

int capture_adopt_orphans(void)
{
	if (prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0)) {
		return gm_error_errno("cannot become a child subreaper");
	}
	return 0;
}

/*
 * Reap every adopted child that has ended; 1 while some are still alive,
 * 0 when none is left.
 */
static int reap(void)
{
	for (;;) {
		pid_t pid = waitpid(-1, NULL, WNOHANG);
		if (pid > 0) {
			continue;
		}
		if (pid < 0 && errno == EINTR) {
			continue;
		}
		return pid == 0;
	}
}

/* Our children (adopted descendants of the program), from /proc. */
static size_t children(pid_t *left, size_t nr_left)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	size_t n = 0;

	while (d && (e = readdir(d))) {
		char path[300], buf[512], *p;
		long ppid;
		FILE *f;

		if (e->d_name[0] < '1' || e->d_name[0] > '9') {
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%s/stat", e->d_name);
		if (!(f = fopen(path, "r"))) {
			continue;
		}
		p = fgets(buf, sizeof(buf), f);
		fclose(f);
		/* "pid (comm) state ppid ...": comm may hold anything. */
		if (!p || !(p = strrchr(buf, ')')) ||
		    sscanf(p + 1, " %*c %ld", &ppid) != 1 || ppid != getpid()) {
			continue;
		}
		if (n < nr_left) {
			left[n] = (pid_t)atol(e->d_name);
		}
		n++;
	}
	if (d) {
		closedir(d);
	}
	return n;
}

size_t capture_wait_descendants(double max_s, void (*say)(size_t running),
				pid_t *left, size_t nr_left)
{
	double end = gm_now_s() + max_s;
	int said = 0;

	while (reap()) {
		if (gm_now_s() >= end) {
			return children(left, nr_left);
		}
		if (!said && say) {
			say(children(NULL, 0));
			said = 1;
		}
		usleep(20000);
	}
	return 0;
}
