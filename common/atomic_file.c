/* SPDX-License-Identifier: MIT */
/*
 * Atomic file output (see atomic_file.h).
 */
#include "atomic_file.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"

static void release(struct atomic_file *af)
{
	free(af->path);
	free(af->tmp_path);
	af->path = NULL;
	af->tmp_path = NULL;
	af->fd = -1;
}

int atomic_file_open(struct atomic_file *af, const char *path, int force)
{
	af->fd = -1;
	af->failed = 0;
	af->path = NULL;
	af->tmp_path = NULL;
	if (!force && gm_path_exists(path)) {
		gm_error("'%s' already exists", path);
		gm_error_hint("use --force to overwrite it");
		return -1;
	}
	af->path = gm_xstrdup(path);
	af->tmp_path = gm_xasprintf("%s.tmp.XXXXXX", path);
	af->fd = mkstemp(af->tmp_path);
	if (af->fd < 0) {
		gm_error_errno("cannot create a temporary file for '%s'", path);
		release(af);
		return -1;
	}
	return 0;
}

int atomic_file_write(struct atomic_file *af, const void *buf, size_t len)
{
	if (af->failed) {
		return -1;
	}
	if (gm_write_all(af->fd, buf, len)) {
		af->failed = 1;
		return gm_error("cannot write '%s'", af->path);
	}
	return 0;
}

int atomic_file_sync(struct atomic_file *af)
{
	if (af->fd < 0 || af->failed) {
		return -1;
	}
	if (fsync(af->fd)) {
		af->failed = 1;
		return gm_error_errno("cannot write '%s'", af->path);
	}
	return 0;
}

int atomic_file_commit(struct atomic_file *af)
{
	int ret = 0;

	if (af->fd < 0) {
		return gm_error("atomic file is not open");
	}
	if (af->failed) {
		ret = gm_error("not writing '%s' after a failed write", af->path);
	} else if (fchmod(af->fd, 0644) || fsync(af->fd)) {
		ret = gm_error_errno("cannot flush '%s'", af->path);
	}
	if (close(af->fd) && !ret) {
		ret = gm_error_errno("cannot close '%s'", af->path);
	}
	af->fd = -1;
	if (!ret && rename(af->tmp_path, af->path)) {
		ret = gm_error_errno("cannot rename '%s' to '%s'", af->tmp_path,
				     af->path);
	}
	if (ret) {
		unlink(af->tmp_path);
	}
	release(af);
	return ret;
}

void atomic_file_abort(struct atomic_file *af)
{
	if (af->fd >= 0) {
		close(af->fd);
	}
	if (af->tmp_path) {
		unlink(af->tmp_path);
	}
	release(af);
}

int atomic_file_remove_stale(const char *path)
{
	char *dir = gm_xstrdup(path), *slash = strrchr(dir, '/');
	const char *base = slash ? slash + 1 : path;
	char *prefix = gm_xasprintf("%s.tmp.", base);
	size_t plen = strlen(prefix);
	DIR *d;
	struct dirent *e;
	int n = 0;

	if (slash) {
		*slash = '\0';
	}
	d = opendir(slash ? (dir[0] ? dir : "/") : ".");
	while (d && (e = readdir(d))) {
		/* mkstemp's six characters, nothing else */
		if (strncmp(e->d_name, prefix, plen) ||
		    strlen(e->d_name) != plen + 6) {
			continue;
		}
		char *p = slash ? gm_path_join(dir[0] ? dir : "/", e->d_name)
				: gm_xstrdup(e->d_name);
		n += unlink(p) == 0;
		free(p);
	}
	if (d) {
		closedir(d);
	}
	free(prefix);
	free(dir);
	return n;
}

int gm_write_file_atomic(const char *path, const void *buf, size_t len,
			 int force)
{
	struct atomic_file af;

	if (atomic_file_open(&af, path, force)) {
		return -1;
	}
	if (atomic_file_write(&af, buf, len)) {
		atomic_file_abort(&af);
		return -1;
	}
	return atomic_file_commit(&af);
}
