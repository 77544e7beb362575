/* SPDX-License-Identifier: MIT */
/*
 * The lock of a file that several processes write (see file_lock.h).
 */
#include "file_lock.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "strbuf.h"

char *gm_file_lock_path(const char *path)
{
	return gm_xasprintf("%s.lock", path);
}

/* 1 when @fd is still the file named @path (its holder did not remove it
 * before we got it). */
static int still_named(int fd, const char *path)
{
	struct stat a, b;

	return !fstat(fd, &a) && !stat(path, &b) && a.st_dev == b.st_dev &&
	       a.st_ino == b.st_ino;
}

int gm_file_lock_take(struct gm_file_lock *l, const char *path,
		      unsigned flags, const struct gm_file_lock_wait *w)
{
	int op = flags & GM_FILE_LOCK_SHARED ? LOCK_SH : LOCK_EX;
	char *lock = gm_file_lock_path(path);
	int told = 0, fd;

	l->fd = -1;
	l->path = NULL;
	l->keep = !!(flags & (GM_FILE_LOCK_SHARED | GM_FILE_LOCK_KEEP));
	for (;;) {
		fd = open(lock, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
		if (fd < 0) {
			gm_error_errno("cannot create the lock '%s'", lock);
			free(lock);
			return -1;
		}
		if (flock(fd, op | LOCK_NB)) {
			if (errno != EWOULDBLOCK) {
				gm_error_errno("cannot lock '%s'", lock);
				goto fail;
			}
			if (!w || !w->wait) {
				close(fd);
				free(lock);
				return 1;
			}
			if (w->waiting && !told) {
				w->waiting(w->arg, lock);
			}
			told = 1;
			if (flock(fd, op)) {
				if (errno == EINTR) {
					gm_error("interrupted while waiting for the"
						 " lock '%s'", lock);
				} else {
					gm_error_errno("cannot lock '%s'", lock);
				}
				goto fail;
			}
		}
		if (still_named(fd, lock)) {
			break;
		}
		close(fd);	/* removed by the holder we waited for */
	}
	l->fd = fd;
	l->path = lock;
	return 0;
fail:
	close(fd);
	free(lock);
	return -1;
}

void gm_file_lock_release(struct gm_file_lock *l)
{
	if (l->fd >= 0) {
		/* While still held: no one can lock it between the two. */
		if (!l->keep) {
			unlink(l->path);
		}
		close(l->fd);
	}
	free(l->path);
	l->fd = -1;
	l->path = NULL;
}
