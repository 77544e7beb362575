/* SPDX-License-Identifier: MIT */
/*
 * Executable lookup and fingerprints (see study_exe_fingerprint.h).
 */
#include "study_exe_fingerprint.h"

#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"
#include "study_path.h"

static int is_exe_file(const char *path)
{
	struct stat st;

	return !stat(path, &st) && S_ISREG(st.st_mode) && !access(path, X_OK);
}

char *study_exe_resolve(const char *cmd, const char *cwd)
{
	if (strchr(cmd, '/')) {
		char *p = study_path_resolve(cwd, cmd);
		if (is_exe_file(p)) {
			return p;
		}
		gm_error("'%s' is not an executable file (looked for '%s')", cmd, p);
		free(p);
		return NULL;
	}
	char *found = gm_path_search(cmd, cwd);
	if (found) {
		/* the same file, its path made canonical */
		char *p = study_path_resolve(cwd, found);
		free(found);
		return p;
	}
	gm_error("'%s' is not found in PATH", cmd);
	return NULL;
}

int study_exe_hash_file(const char *path, char hex[GM_HASH_HEX_LEN + 1])
{
	struct gm_hash h;

	if (gm_hash_file(path, &h, NULL)) {
		return -1;
	}
	gm_hash_hex(h, hex);
	return 0;
}

int study_exe_fingerprint(struct study_state *st, const char *path,
		    char hex[GM_HASH_HEX_LEN + 1])
{
	struct stat sb;

	if (stat(path, &sb)) {
		return gm_error_errno("cannot stat '%s'", path);
	}
	int64_t mtime = (int64_t)sb.st_mtim.tv_sec * 1000000000 +
			sb.st_mtim.tv_nsec;
	struct exe_record *e = study_state_exe(st, path);
	if (e && e->size == (uint64_t)sb.st_size && e->mtime_ns == mtime) {
		snprintf(hex, GM_HASH_HEX_LEN + 1, "%s", e->hash);
		return 0;
	}
	if (study_exe_hash_file(path, hex)) {
		return -1;
	}
	study_state_set_exe(st, path, (uint64_t)sb.st_size, mtime, hex);
	return 0;
}
