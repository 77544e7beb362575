/* SPDX-License-Identifier: MIT */
/*
 * File-system helpers (see fs.h).
 */
#include "fs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "strbuf.h"

int gm_mkdir_p(const char *path, mode_t mode)
{
	char *p = gm_xstrdup(path);
	int ret = 0;

	for (char *s = p + 1; ; s++) {
		if (*s == '/' || *s == '\0') {
			char c = *s;
			*s = '\0';
			if (mkdir(p, mode) && errno != EEXIST) {
				ret = gm_error_errno("cannot create directory '%s'", p);
				break;
			}
			*s = c;
			if (!c) {
				break;
			}
		}
	}
	if (!ret && !gm_is_dir(path)) {
		ret = gm_error("'%s' exists and is not a directory", path);
	}
	free(p);
	return ret;
}

/*
 * Append what @fd holds, at most @max bytes, to @sb and close @fd; on
 * failure undo the append.
 */
static int read_fd(int fd, const char *path, struct strbuf *sb, uint64_t max)
{
	size_t old_len = sb->len;
	int was_empty = !sb->alloc;
	uint64_t got = 0;
	int saved;

	for (;;) {
		strbuf_grow(sb, 65536);
		ssize_t n = read(fd, sb->buf + sb->len, sb->alloc - sb->len - 1);
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			gm_error_errno("cannot read '%s'", path);
			goto fail;
		}
		if (n == 0) {
			break;
		}
		got += (uint64_t)n;
		if (got > max) {
			gm_error("'%s' holds more than %" PRIu64 " bytes", path,
				 max);
			errno = EFBIG;
			goto fail;
		}
		strbuf_setlen(sb, sb->len + (size_t)n);
	}
	close(fd);
	return 0;
fail:
	saved = errno;
	close(fd);
	if (was_empty) {
		strbuf_release(sb);
	} else {
		strbuf_setlen(sb, old_len);
	}
	errno = saved;
	return -1;
}

int gm_read_file(const char *path, struct strbuf *sb)
{
	return gm_read_file_max(path, sb, UINT64_MAX);
}

int gm_read_file_max(const char *path, struct strbuf *sb, uint64_t max)
{
	struct stat st;
	int fd = gm_open_regular(path);

	if (fd < 0) {
		return -1;
	}
	if (fstat(fd, &st) == 0 && (uint64_t)st.st_size > max) {
		close(fd);
		gm_error("'%s' holds more than %" PRIu64 " bytes (%llu)", path,
			 max, (unsigned long long)st.st_size);
		errno = EFBIG;
		return -1;
	}
	return read_fd(fd, path, sb, max);
}

static const char *file_kind(mode_t m)
{
	if (S_ISDIR(m)) {
		return "a directory";
	}
	if (S_ISFIFO(m)) {
		return "a FIFO";
	}
	if (S_ISSOCK(m)) {
		return "a socket";
	}
	if (S_ISCHR(m) || S_ISBLK(m)) {
		return "a device";
	}
	return "not a file";
}

int gm_open_regular(const char *path)
{
	struct stat st;
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	int fl;

	if (fd < 0) {
		return gm_error_errno("cannot open '%s'", path);
	}
	if (fstat(fd, &st)) {
		gm_error_errno("cannot stat '%s'", path);
		close(fd);
		return -1;
	}
	if (!S_ISREG(st.st_mode)) {
		close(fd);
		return gm_error("'%s' is not a regular file (%s)", path,
				file_kind(st.st_mode));
	}
	fl = fcntl(fd, F_GETFL);
	if (fl < 0 || fcntl(fd, F_SETFL, fl & ~O_NONBLOCK) < 0) {
		gm_error_errno("cannot read '%s'", path);
		close(fd);
		return -1;
	}
	return fd;
}

int gm_regular_or_absent(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		return 0;	/* absent, or the library will say why */
	}
	if (!S_ISREG(st.st_mode)) {
		return gm_error("'%s' is not a regular file (%s)", path,
				file_kind(st.st_mode));
	}
	return 0;
}

int gm_write_all(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			return gm_error_errno("write failed");
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

int gm_dir_install(const char *tmp, const char *final)
{
	char *old = gm_xasprintf("%s.old-%ld", final, (long)getpid());
	int ret = -1, moved = 0;

	if (gm_path_exists(final)) {
		if (rename(final, old)) {
			gm_error_errno("cannot move '%s' aside", final);
			goto out;
		}
		moved = 1;
	}
	if (rename(tmp, final)) {
		gm_error_errno("cannot rename '%s' to '%s'", tmp, final);
		if (moved && rename(old, final)) {
			gm_error_errno("cannot put '%s' back (it is '%s')", final,
				       old);
		}
		goto out;
	}
	ret = moved ? gm_remove_tree(old) : 0;
out:
	free(old);
	return ret;
}

int gm_remove_tree(const char *path)
{
	struct stat st;

	if (lstat(path, &st)) {
		return errno == ENOENT ? 0 : gm_error_errno("cannot stat '%s'", path);
	}
	if (S_ISDIR(st.st_mode)) {
		DIR *d = opendir(path);
		struct dirent *e;
		int ret = 0;

		if (!d) {
			return gm_error_errno("cannot open directory '%s'", path);
		}
		while ((e = readdir(d))) {
			if (!strcmp(e->d_name, ".") || !strcmp(e->d_name, "..")) {
				continue;
			}
			char *sub = gm_path_join(path, e->d_name);
			ret |= gm_remove_tree(sub);
			free(sub);
		}
		closedir(d);
		if (ret) {
			return -1;
		}
		if (rmdir(path)) {
			return gm_error_errno("cannot remove '%s'", path);
		}
		return 0;
	}
	if (unlink(path)) {
		return gm_error_errno("cannot remove '%s'", path);
	}
	return 0;
}

int gm_path_exists(const char *path)
{
	struct stat st;
	return lstat(path, &st) == 0;
}

static int is_exe_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

char *gm_path_search(const char *name, const char *cwd)
{
	const char *p = getenv("PATH");

	if (!p || !*p) {
		p = "/usr/local/bin:/usr/bin:/bin";
	}
	for (;;) {
		const char *end = strchrnul(p, ':');
		char *dir = end > p ? gm_xasprintf("%.*s", (int)(end - p), p) :
				      gm_xstrdup(".");
		char *file = gm_path_join(dir, name);

		if (cwd && dir[0] != '/') {
			char *abs = gm_path_join(cwd, file);
			free(file);
			file = abs;
		}
		free(dir);
		if (is_exe_file(file)) {
			return file;
		}
		free(file);
		if (!*end) {
			return NULL;
		}
		p = end + 1;
	}
}

int gm_program_exists(const char *name)
{
	char *file;

	if (!name || !*name) {
		return 0;
	}
	if (strchr(name, '/')) {
		return access(name, X_OK) == 0 && !gm_is_dir(name);
	}
	file = gm_path_search(name, NULL);
	free(file);
	return file != NULL;
}

int gm_is_dir(const char *path)
{
	struct stat st;
	return stat(path, &st) == 0 && S_ISDIR(st.st_mode);
}

const char *gm_why_not_dir(const char *path)
{
	struct stat st;

	if (stat(path, &st)) {
		return strerror(errno);
	}
	return S_ISDIR(st.st_mode) ? NULL : "not a directory";
}

char *gm_path_join(const char *dir, const char *name)
{
	size_t n = strlen(dir);
	if (n && dir[n - 1] == '/') {
		return gm_xasprintf("%s%s", dir, name);
	}
	return gm_xasprintf("%s/%s", dir, name);
}
