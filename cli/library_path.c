/* SPDX-License-Identifier: MIT */
/*
 * Where gpumix finds the libraries it injects into programs (the capture
 * and co-run interposers): the one rule, for every command.
 */
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <unistd.h>

#include "cli.h"
#include "strbuf.h"

char *gm_cli_library(const char *file, const char *env_var)
{
	const char *env = getenv(env_var);
	char exe[PATH_MAX];
	ssize_t n;
	char *dir, *p;

	if (env && *env) {
		return gm_xstrdup(env);
	}
	n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0) {
		return gm_xstrdup(file);
	}
	exe[n] = '\0';
	dir = dirname(exe);
	p = gm_xasprintf("%s/%s", dir, file);
	if (!access(p, R_OK)) {
		return p;
	}
	free(p);
	return gm_xasprintf("%s/../lib/gpumix/%s", dir, file);
}
