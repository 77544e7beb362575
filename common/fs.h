/* SPDX-License-Identifier: MIT */
/*
 * Small file-system helpers shared by every component: create directory
 * trees, read whole files, write all bytes, remove trees. All return 0 or
 * -1 with a cause recorded (error.h).
 */
#ifndef GM_FS_H
#define GM_FS_H

#include <stddef.h>
#include <sys/types.h>

#include "strbuf.h"

/* mkdir -p @path with @mode; existing directories are fine. */
int gm_mkdir_p(const char *path, mode_t mode);

/* Append the whole content of @path to @sb. */
int gm_read_file(const char *path, struct strbuf *sb);

/* write(2) all @len bytes, retrying on EINTR and short writes. */
int gm_write_all(int fd, const void *buf, size_t len);

/* rm -rf @path (a missing path is not an error). */
int gm_remove_tree(const char *path);

/* 1 if @path exists (any type), 0 if not. */
int gm_path_exists(const char *path);

/* 1 if @path is a directory. */
int gm_is_dir(const char *path);

/* 1 if @name (a path with a '/', or a program searched in $PATH) names
 * an executable file. */
int gm_program_exists(const char *name);

/* New string "@dir/@name" (caller frees). */
char *gm_path_join(const char *dir, const char *name);

#endif
