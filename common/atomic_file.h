/* SPDX-License-Identifier: MIT */
/*
 * Atomic file output: write to a temporary name in the target's directory,
 * check every write, fsync, then rename over the final name. A failure at
 * any point (full disk, signal) leaves the final name untouched.
 */
#ifndef GM_ATOMIC_FILE_H
#define GM_ATOMIC_FILE_H

#include <stddef.h>

struct atomic_file {
	int fd;			/* -1 when not open */
	char *path;		/* final name (owned) */
	char *tmp_path;		/* temporary name (owned) */
	int failed;		/* a write failed; commit will refuse */
};

/*
 * Open a temporary file for @path. @force: when 0 and @path exists, fail
 * with "'path' already exists". Returns 0 or -1 (cause recorded).
 */
int atomic_file_open(struct atomic_file *af, const char *path, int force);

/* Append bytes; a failure is recorded and remembered for commit. */
int atomic_file_write(struct atomic_file *af, const void *buf, size_t len);

/*
 * Make the bytes written so far durable (fsync) without renaming, so that
 * a caller writing several files can learn of a late write failure (a
 * full disk) before it puts any of them in place. Returns 0 or -1; a
 * failure is remembered for commit.
 */
int atomic_file_sync(struct atomic_file *af);

/* fsync, close and rename into place. Frees @af's strings either way. */
int atomic_file_commit(struct atomic_file *af);

/* Close and remove the temporary file; harmless when not open. */
void atomic_file_abort(struct atomic_file *af);

/*
 * Remove the temporary files atomic_file_open() made for @path in
 * processes that died before commit or abort (SIGKILL, a crash): every
 * "@path.tmp.XXXXXX". Only for the sole writer of @path (a caller that
 * holds the lock guarding it): a live writer's temporary file would go
 * too. Returns how many were removed.
 */
int atomic_file_remove_stale(const char *path);

/* One-shot: write @len bytes of @buf to @path atomically. */
int gm_write_file_atomic(const char *path, const void *buf, size_t len,
			 int force);

#endif
