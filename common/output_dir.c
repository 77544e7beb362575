/* SPDX-License-Identifier: MIT */
/*
 * Directories gpumix writes as a whole, and the rule that it removes
 * only those (see output_dir.h).
 */
#include "output_dir.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "error.h"
#include "fs.h"
#include "strbuf.h"

/*
 * One row per kind: its name, and how a directory of it written before
 * the marker existed is recognised: a line of @legacy_file that starts
 * with one of @legacy (the formats replay/run_writer.h, corun/corun_dir.h,
 * reconstruct/recon_dir.h and common/record.h define, and the report's
 * title; common/ cannot include the first three). No legacy file: every
 * such directory has its marker.
 */
static const struct {
	const char *name;
	const char *legacy_file;
	const char *legacy[2];
} kinds[GM_OUTPUT_KINDS] = {
	[GM_OUTPUT_RUN] = { "run directory", "manifest",
			    { "format = gpumix-run ", "format = gpumix-corun " } },
	[GM_OUTPUT_BUILD] = { "build", "manifest",
			      { "format = gpumix-replay-src ", NULL } },
	[GM_OUTPUT_BUNDLE] = { "trace bundle", "manifest",
			       { "format = gpumix-bundle ", NULL } },
	[GM_OUTPUT_REPORT] = { "report", "index.md",
			       { "# gpumix report", NULL } },
	[GM_OUTPUT_SCALE] = { "scale directory", NULL, { NULL, NULL } },
	[GM_OUTPUT_SWEEP] = { "sweep directory", NULL, { NULL, NULL } },
};

const char *gm_output_kind_name(enum gm_output_kind kind)
{
	return kinds[kind].name;
}

/* The marker's whole content for @kind. */
static char *marker_text(enum gm_output_kind kind)
{
	return gm_xasprintf("gpumix %s\n", kinds[kind].name);
}

int gm_output_mark(const char *dir, enum gm_output_kind kind)
{
	char *path = gm_path_join(dir, GM_OUTPUT_MARKER);
	char *text = marker_text(kind);
	int ret = gm_write_file_atomic(path, text, strlen(text), 1);

	free(path);
	free(text);
	return ret;
}

/*
 * Up to @room - 1 bytes of the start of the regular file @path into @buf
 * (NUL-terminated); -1 when it is not a readable regular file.
 */
static ssize_t read_start(const char *path, char *buf, size_t room)
{
	int fd = gm_open_regular(path);
	ssize_t n = 0, r;

	if (fd < 0) {
		gm_error_clear();
		return -1;
	}
	while ((size_t)n < room - 1 &&
	       (r = read(fd, buf + n, room - 1 - (size_t)n)) != 0) {
		if (r < 0) {
			if (errno == EINTR) {
				continue;
			}
			close(fd);
			return -1;
		}
		n += r;
	}
	close(fd);
	buf[n] = '\0';
	return n;
}

/* The kind whose marker @dir holds, GM_OUTPUT_KINDS for a marker that
 * is no kind's, -1 for none. */
static int marked_kind(const char *dir)
{
	char *path = gm_path_join(dir, GM_OUTPUT_MARKER);
	char buf[128];
	int kind = -1;

	if (read_start(path, buf, sizeof(buf)) >= 0) {
		kind = GM_OUTPUT_KINDS;
		for (int k = 0; k < GM_OUTPUT_KINDS; k++) {
			char *want = marker_text(k);
			if (!strcmp(buf, want)) {
				kind = k;
			}
			free(want);
		}
	} else if (gm_path_exists(path)) {
		kind = GM_OUTPUT_KINDS;	/* a marker we cannot read */
	}
	free(path);
	return kind;
}

/* 1 when @dir holds what a @kind written before markers holds. */
static int legacy_kind(const char *dir, enum gm_output_kind kind)
{
	char buf[4096], *path, *line;
	int found = 0;

	if (!kinds[kind].legacy_file) {
		return 0;
	}
	path = gm_path_join(dir, kinds[kind].legacy_file);
	if (read_start(path, buf, sizeof(buf)) > 0) {
		for (line = buf; line && !found; line = strchr(line, '\n')) {
			line += *line == '\n';
			for (int i = 0; i < 2 && kinds[kind].legacy[i]; i++) {
				const char *p = kinds[kind].legacy[i];
				found |= !strncmp(line, p, strlen(p));
			}
		}
	}
	free(path);
	return found;
}

int gm_output_is(const char *path, enum gm_output_kind kind)
{
	struct stat st;
	int marked;

	if (lstat(path, &st) || !S_ISDIR(st.st_mode)) {
		return 0;
	}
	marked = marked_kind(path);
	return marked == (int)kind || (marked < 0 && legacy_kind(path, kind));
}

int gm_output_may_replace(const char *path, enum gm_output_kind kind)
{
	const char *what = kinds[kind].name;
	struct stat st;
	int marked;

	if (lstat(path, &st)) {
		if (errno == ENOENT) {
			return 0;
		}
		return gm_error_errno("cannot check '%s'", path);
	}
	if (S_ISLNK(st.st_mode) || !S_ISDIR(st.st_mode)) {
		gm_error("'%s' exists and is %s, not a %s that gpumix wrote: it"
			 " is not replaced", path,
			 S_ISLNK(st.st_mode) ? "a symbolic link" :
			 S_ISREG(st.st_mode) ? "a regular file" :
			 "not a directory", what);
		gm_error_hint("remove it yourself, or choose another path");
		return -1;
	}
	marked = marked_kind(path);
	if (marked == (int)kind || (marked < 0 && legacy_kind(path, kind))) {
		return 0;
	}
	if (marked >= 0 && marked < GM_OUTPUT_KINDS) {
		gm_error("'%s' is a gpumix %s, not a %s: it is not replaced",
			 path, kinds[marked].name, what);
	} else {
		gm_error("'%s' exists and was not written by gpumix as a %s (it"
			 " has no '%s' marker of one): it is not replaced", path,
			 what, GM_OUTPUT_MARKER);
	}
	gm_error_hint("remove it yourself if it may go, or choose another path");
	return -1;
}

int gm_output_remove(const char *path, enum gm_output_kind kind)
{
	if (gm_output_may_replace(path, kind)) {
		return -1;
	}
	return gm_remove_tree(path);
}
