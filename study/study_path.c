/* SPDX-License-Identifier: MIT */
/*
 * Lexical path resolution and display (see study_path.h).
 */
#include "study_path.h"

#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "strbuf.h"

char *study_path_resolve(const char *base, const char *rel)
{
	struct strbuf in = STRBUF_INIT, out = STRBUF_INIT;

	if (rel[0] != '/') {
		strbuf_addf(&in, "%s/", base);
	}
	strbuf_addstr(&in, rel);
	/* Walk the components, keeping a stack of them in @out. */
	const char *p = in.buf;
	while (*p) {
		while (*p == '/') {
			p++;
		}
		const char *e = p;
		while (*e && *e != '/') {
			e++;
		}
		size_t n = (size_t)(e - p);
		if (n == 0 || (n == 1 && p[0] == '.')) {
			/* nothing */
		} else if (n == 2 && p[0] == '.' && p[1] == '.') {
			char *slash = strrchr(out.buf, '/');
			strbuf_setlen(&out, slash ? (size_t)(slash - out.buf) : 0);
		} else {
			strbuf_addch(&out, '/');
			strbuf_add(&out, p, n);
		}
		p = e;
	}
	if (!out.len) {
		strbuf_addch(&out, '/');
	}
	strbuf_release(&in);
	return strbuf_detach(&out, NULL);
}

char *study_path_cwd(void)
{
	char buf[PATH_MAX];

	if (!getcwd(buf, sizeof(buf))) {
		gm_error_errno("cannot get the current directory");
		return NULL;
	}
	return gm_xstrdup(buf);
}

char *study_path_display(const char *abs)
{
	char cwd[PATH_MAX];
	char *ret;

	/* Display only: without a current directory, show @abs as it is. */
	if (!getcwd(cwd, sizeof(cwd))) {
		return gm_xstrdup(abs);
	}
	size_t n = strlen(cwd);
	if (!strcmp(abs, cwd)) {
		ret = gm_xstrdup(".");
	} else if (!strncmp(abs, cwd, n) && (abs[n] == '/' || n == 1)) {
		ret = gm_xstrdup(abs + (n == 1 ? 1 : n + 1));
	} else {
		ret = gm_xstrdup(abs);
	}
	return ret;
}
