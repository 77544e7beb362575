/* SPDX-License-Identifier: MIT */
/*
 * The temporary names under which gpumix writes an output before it
 * renames it into place: "PATH.tmp-PID" (a file or a directory; a merge's
 * database also has its SQLite journal "PATH.tmp-PID-journal") and
 * "PATH.old-PID" (an output moved aside while its replacement is renamed
 * in), PID the writer's. A writer killed in between leaves them behind:
 * the next writer of PATH removes them, matching these names only, never
 * another file beside PATH.
 *
 * A leftover is stale when its PID is no live process of this host, or,
 * for a caller that holds a lock excluding every other writer of PATH
 * (one that works across hosts sharing the directory, as flock(2) on
 * Linux NFS does), whatever its PID.
 */
#ifndef GM_TMP_NAME_H
#define GM_TMP_NAME_H

#include "output_dir.h"

/* "@path.@tag-PID" for this process, @tag "tmp" or "old" (caller frees). */
char *gm_tmp_name(const char *path, const char *tag);

enum gm_tmp_stale {
	GM_TMP_DEAD,	/* only leftovers of processes that no longer run */
	GM_TMP_ANY,	/* every leftover but this process's: the caller
			 * holds a lock that excludes the other writers */
};

/*
 * Remove the leftovers of @path (files or whole directories) that @which
 * calls stale. Returns how many were removed, or -1 when one could not be
 * removed (cause recorded, naming it).
 */
int gm_tmp_remove_stale(const char *path, enum gm_tmp_stale which);

/*
 * Like gm_tmp_remove_stale(@path, GM_TMP_DEAD) for an output directory of
 * @kind that no lock guards (a bundle: common/output_dir.h), with the
 * marker checked too: a leftover goes only when it is a directory that
 * gpumix wrote as a @kind (gm_output_is()) or an empty directory (its
 * writer killed between making and marking it); anything else bearing
 * such a name stays. Returns how many were removed, or -1 when one could
 * not be removed (cause recorded, naming it).
 */
int gm_tmp_remove_stale_output(const char *path, enum gm_output_kind kind);

#endif
