/* SPDX-License-Identifier: MIT */
/*
 * Small file-system helpers shared by every component: create directory
 * trees, read whole files, write all bytes, remove trees. All return 0 or
 * -1 with a cause recorded (error.h).
 */
#ifndef GM_FS_H
#define GM_FS_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "strbuf.h"

/* mkdir -p @path with @mode; existing directories are fine. */
int gm_mkdir_p(const char *path, mode_t mode);

/*
 * Append the whole content of the regular file @path to @sb. Every file
 * gpumix reads whole comes through here (or gm_read_file_max()), so one
 * rule holds for all of them: a FIFO, a device (a link to /dev/zero), a
 * socket or a directory is refused at once (gm_open_regular()), never
 * waited on or read without end. On failure @sb is left as it was
 * (released when it was empty), so a caller's error path owns nothing new.
 */
int gm_read_file(const char *path, struct strbuf *sb);

/*
 * gm_read_file() of at most @max bytes: a file that holds more is an
 * error ("'PATH' holds more than MAX bytes", errno EFBIG), found from its
 * size before anything is read and checked again while reading (a file
 * still growing). For contents whose size is known or bounded (a blob of
 * the size its trace says, a study file under its limit).
 */
int gm_read_file_max(const char *path, struct strbuf *sb, uint64_t max);

/*
 * Open @path for reading, only if it is a regular file, and without
 * blocking on the way: open(2) of a FIFO waits for a writer, so a FIFO
 * (or a device) in a run directory or bundle would hang its reader
 * forever. Returns a descriptor in blocking mode, or -1 with a cause
 * ("'PATH' is not a regular file (a FIFO)").
 */
int gm_open_regular(const char *path);

/*
 * 0 when @path does not exist or is a regular file (links followed), else
 * -1 with gm_open_regular()'s cause: for files that a library opens itself
 * (SQLite databases), which would wait on a FIFO or read a device.
 */
int gm_regular_or_absent(const char *path);

/* write(2) all @len bytes, retrying on EINTR and short writes. */
int gm_write_all(int fd, const void *buf, size_t len);

/* rm -rf @path (a missing path is not an error). */
int gm_remove_tree(const char *path);

/*
 * Put the finished directory @tmp in place as @final (a sibling of it):
 * an existing @final is moved aside first and removed once @tmp is in
 * place, so that @final always names a whole directory, the old or the
 * new. On failure @final is as it was and @tmp is left to the caller.
 */
int gm_dir_install(const char *tmp, const char *final);

/* 1 if @path exists (any type), 0 if not. */
int gm_path_exists(const char *path);

/* 1 if @path is a directory. */
int gm_is_dir(const char *path);

/*
 * NULL when @path is a directory (links followed), else why not, for a
 * message: stat(2)'s error ("No such file or directory", "Too many levels
 * of symbolic links", "Permission denied") or "not a directory". The
 * string is static. Answering "not a directory" for a path that does not
 * exist sends the user looking for the wrong problem.
 */
const char *gm_why_not_dir(const char *path);

/* 1 if @name (a path with a '/', or a program searched in $PATH) names
 * an executable file. */
int gm_program_exists(const char *name);

/*
 * The search of $PATH that every gpumix command makes: the first
 * "DIR/@name" that is an executable regular file, as a new string (caller
 * frees), or NULL. An empty entry is the current directory; relative
 * entries are taken from @cwd (NULL: the process's own); an unset or
 * empty PATH is "/usr/local/bin:/usr/bin:/bin".
 */
char *gm_path_search(const char *name, const char *cwd);

/* New string "@dir/@name" (caller frees). */
char *gm_path_join(const char *dir, const char *name);

#endif
