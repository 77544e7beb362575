/* SPDX-License-Identifier: MIT */
/*
 * Path arithmetic for studies: relative paths of a study file are resolved
 * against its root, lexically (no symlinks followed), so that the state
 * file and messages show stable, readable paths; for display, paths under
 * the current directory are shown relative to it.
 */
#ifndef GM_STUDY_PATH_H
#define GM_STUDY_PATH_H

/*
 * @rel resolved against the absolute directory @base (unchanged when @rel
 * is absolute), with "//", "/./" and "dir/.." removed. Caller frees.
 */
char *study_path_resolve(const char *base, const char *rel);

/* The absolute current directory (caller frees), or NULL with a cause. */
char *study_path_cwd(void);

/*
 * @abs as shown to the user: relative to the current directory when it is
 * inside it, else unchanged. Caller frees.
 */
char *study_path_display(const char *abs);

#endif
