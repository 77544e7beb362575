/* SPDX-License-Identifier: MIT */
/*
 * Directories that gpumix writes as a whole and may later replace or
 * remove: run directories (gpumix replay, gpumix corun), builds (gpumix
 * reconstruct), bundles (gpumix capture), reports (gpumix report) and
 * scale directories (gpumix scale). gpumix deletes only what it wrote:
 * each such directory holds a marker file, GM_OUTPUT_MARKER, naming its
 * kind, written when the directory is made and before anything else goes
 * into it, and a directory is replaced (--force, or a study's stage run
 * again) only when it holds the marker of that kind. A path that names
 * the user's own files (a mistyped -o, `paths: {runs: ~/data}` with a
 * run named like one of them), a regular file, or a gpumix output of
 * another kind is refused with the reason, never deleted.
 *
 * Directories written before the marker existed are recognised by what
 * they hold (a run's or build's or bundle's manifest `format`, a report's
 * index.md title), so that existing studies still resume.
 */
#ifndef GM_OUTPUT_DIR_H
#define GM_OUTPUT_DIR_H

#define GM_OUTPUT_MARKER ".gpumix"

enum gm_output_kind {
	GM_OUTPUT_RUN,		/* a run or corun directory */
	GM_OUTPUT_BUILD,	/* a reconstructed replay program */
	GM_OUTPUT_BUNDLE,	/* a trace bundle */
	GM_OUTPUT_REPORT,	/* a report directory */
	GM_OUTPUT_SCALE,	/* a gpumix scale directory */
	GM_OUTPUT_SWEEP,	/* a gpumix sweep --run directory */
	GM_OUTPUT_KINDS
};

/* "run directory", "build", ... for messages. */
const char *gm_output_kind_name(enum gm_output_kind kind);

/*
 * Write the marker of @kind into the directory @dir, which gpumix has
 * just made (a temporary one that will be renamed into place, or the
 * output itself before anything else is written into it). Returns 0 or
 * -1 (cause recorded).
 */
int gm_output_mark(const char *dir, enum gm_output_kind kind);

/*
 * 1 when @path is a directory (not a symbolic link) that gpumix wrote as a
 * @kind: its marker, or from before markers its contents; else 0. Records
 * no error.
 */
int gm_output_is(const char *path, enum gm_output_kind kind);

/*
 * 0 when an output of @kind may be written at @path, replacing what is
 * there: nothing is there, or a directory that gpumix wrote as a @kind
 * (its marker, or from before markers its contents). Otherwise -1 with a
 * cause naming @path and what it is: a file or symbolic link that is not
 * a directory, a directory gpumix did not write, a gpumix output of
 * another kind; the hint says to remove it by hand or choose another
 * path. The caller still decides whether replacing needs --force.
 */
int gm_output_may_replace(const char *path, enum gm_output_kind kind);

/*
 * Remove the output @path of @kind (rm -rf), after gm_output_may_replace()
 * allows it; a missing @path is not an error. Returns 0 or -1 (cause
 * recorded; nothing removed when refused).
 */
int gm_output_remove(const char *path, enum gm_output_kind kind);

#endif
