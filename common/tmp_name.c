/* SPDX-License-Identifier: MIT */
/*
 * Temporary names of outputs and their leftovers (see tmp_name.h).
 */
#include "tmp_name.h"

#include <dirent.h>
#include <errno.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"

char *gm_tmp_name(const char *path, const char *tag)
{
	return gm_xasprintf("%s.%s-%ld", path, tag, (long)getpid());
}

/*
 * The writer's PID when @name is "@base.tmp-PID", "@base.tmp-PID-journal"
 * or "@base.old-PID", else 0.
 */
static long leftover_pid(const char *name, const char *base)
{
	size_t blen = strlen(base);
	const char *p = name + blen, *digits;
	long pid = 0;
	int tmp;

	if (strncmp(name, base, blen)) {
		return 0;
	}
	if (!strncmp(p, ".tmp-", 5)) {
		tmp = 1;
	} else if (!strncmp(p, ".old-", 5)) {
		tmp = 0;
	} else {
		return 0;
	}
	digits = p += 5;
	while (*p >= '0' && *p <= '9' && p - digits < 10) {
		pid = pid * 10 + (*p++ - '0');
	}
	if (p == digits || (*p && !(tmp && !strcmp(p, "-journal")))) {
		return 0;
	}
	return pid;
}

/* 1 when process @pid runs on this host (or may: EPERM). */
static int alive(long pid)
{
	return kill((pid_t)pid, 0) == 0 || errno == EPERM;
}

/* Whether leftover @p may go: anything (@kind < 0), or a directory
 * that gpumix wrote as a @kind, or an empty one. */
static int may_go(const char *p, int kind)
{
	struct stat st;
	DIR *d;
	struct dirent *e;
	int empty = 1;

	if (kind < 0 || gm_output_is(p, (enum gm_output_kind)kind)) {
		return 1;
	}
	if (lstat(p, &st) || !S_ISDIR(st.st_mode) || !(d = opendir(p))) {
		return 0;
	}
	while (empty && (e = readdir(d))) {
		empty = !strcmp(e->d_name, ".") || !strcmp(e->d_name, "..");
	}
	closedir(d);
	return empty;
}

/* The leftovers of @path that @which calls stale and may_go() lets go. */
static int remove_stale(const char *path, enum gm_tmp_stale which, int kind)
{
	char *dir = gm_xstrdup(path), *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : path;
	const char *where;
	DIR *d;
	struct dirent *e;
	int n = 0, failed = 0;

	if (slash) {
		*slash = '\0';
	}
	where = slash ? (dir[0] ? dir : "/") : ".";
	if (!*base || !(d = opendir(where))) {
		free(dir);
		return 0;	/* no directory: nothing left in it */
	}
	while ((e = readdir(d))) {
		long pid = leftover_pid(e->d_name, base);
		if (pid <= 0 || pid == (long)getpid() ||
		    (which == GM_TMP_DEAD && alive(pid))) {
			continue;
		}
		char *p = gm_path_join(where, e->d_name);
		if (!may_go(p, kind)) {
			free(p);
			continue;
		}
		if (gm_remove_tree(p)) {
			gm_error("cannot remove '%s', left by a gpumix process"
				 " (%ld) that ended before it finished", p, pid);
			failed = 1;
		} else {
			n++;
		}
		free(p);
	}
	closedir(d);
	free(dir);
	return failed ? -1 : n;
}

int gm_tmp_remove_stale(const char *path, enum gm_tmp_stale which)
{
	return remove_stale(path, which, -1);
}

int gm_tmp_remove_stale_output(const char *path, enum gm_output_kind kind)
{
	return remove_stale(path, GM_TMP_DEAD, (int)kind);
}
