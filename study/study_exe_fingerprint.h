/* SPDX-License-Identifier: MIT */
/*
 * Which binary a program's command runs, and whether it changed: the
 * executable is found as execvp would (a name with a slash is relative to
 * the program's working directory, a bare name is looked up in PATH), and
 * fingerprinted by its content hash. Size and mtime are only a cache key:
 * when both match the study state's record, the recorded hash is reused;
 * otherwise the file is hashed again (a rebuild with identical bytes is
 * therefore not a change).
 */
#ifndef GM_EXE_FINGERPRINT_H
#define GM_EXE_FINGERPRINT_H

#include "hash.h"
#include "study_state.h"

/*
 * The absolute path of the executable that @cmd names when run from the
 * absolute directory @cwd (caller frees), or NULL with a cause when there
 * is no such executable file.
 */
char *study_exe_resolve(const char *cmd, const char *cwd);

/*
 * Content hash of the file @path into @hex, using and refreshing the
 * fingerprint cache of @st. Returns 0 or -1 (unreadable file).
 */
int study_exe_fingerprint(struct study_state *st, const char *path,
		    char hex[GM_HASH_HEX_LEN + 1]);

/* Content hash of any file (no cache). */
int study_exe_hash_file(const char *path, char hex[GM_HASH_HEX_LEN + 1]);

#endif
