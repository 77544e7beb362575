/* SPDX-License-Identifier: MIT */
/*
 * A bundle's trace streams by process (see bundle.h): with per-process
 * buffers, LTTng writes each process's streams into a directory of its
 * own under ctf/ust/pid/, and a session daemon records every registered
 * application into each of its sessions, so the streams of another
 * capture's processes land here too. A process of ours has its counter
 * file in procs/; the others' streams leave the bundle.
 */
#include "bundle.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"

/*
 * The process of a stream directory: with per-process buffers each
 * process's streams live in ctf/ust/pid/NAME-PID-DATE-TIME/, PID the third
 * field from the end (NAME may hold '-'). 0 for another name.
 */
static unsigned long stream_dir_pid(const char *name)
{
	const char *e = name + strlen(name);
	int dashes = 0;

	while (e > name && dashes < 3) {
		if (*--e == '-') {
			dashes++;
		}
	}
	return dashes < 3 ? 0 : strtoul(e + 1, NULL, 10);
}

/*
 * Remove the stream directories of bundle directory @dir whose process
 * @drop() says, adding how many went to @removed (when not NULL).
 */
static int remove_streams_if(const char *dir,
			     int (*drop)(const char *dir, unsigned long pid,
					 const void *arg),
			     const void *arg, uint64_t *removed)
{
	char *pids = gm_path_join(dir, "ctf/ust/pid");
	DIR *d = opendir(pids);
	struct dirent *de;
	int ret = 0;

	while (d && (de = readdir(d))) {
		unsigned long pid = stream_dir_pid(de->d_name);
		if (!pid || !drop(dir, pid, arg)) {
			continue;
		}
		char *p = gm_path_join(pids, de->d_name);
		ret |= gm_remove_tree(p);
		free(p);
		if (removed) {
			(*removed)++;
		}
	}
	if (d) {
		closedir(d);
	}
	free(pids);
	return ret;
}

static int is_pid(const char *dir, unsigned long pid, const void *arg)
{
	(void)dir;
	return pid == *(const uint32_t *)arg;
}

int bundle_remove_streams(const char *dir, uint32_t pid)
{
	return remove_streams_if(dir, is_pid, &pid, NULL);
}

int bundle_own_process(const char *dir, unsigned long pid)
{
	char *path = gm_xasprintf("%s/procs/%lu.counts", dir, pid);
	int own = access(path, F_OK) == 0;

	free(path);
	return own;
}

static int has_no_counts(const char *dir, unsigned long pid, const void *arg)
{
	(void)arg;
	return !bundle_own_process(dir, pid);
}

int bundle_prune_foreign(const char *dir, uint64_t *removed)
{
	return remove_streams_if(dir, has_no_counts, NULL, removed);
}
