/* SPDX-License-Identifier: MIT */
/*
 * What every command prints on stderr besides its own messages (see
 * cli_output.h): usage errors, the recorded error, notes under -q; and
 * the global options that decide them (gm_cli, set by gpumix.c and the
 * option parser). Below the commands and the parser, calling neither.
 */
#include <stdarg.h>
#include <stdio.h>

#include "cli_output.h"
#include "error.h"

struct gm_cli_options gm_cli;

int gm_usage_error(const char *usage, const char *msg, ...)
{
	if (msg) {
		va_list ap;
		fputs("error: ", stderr);
		va_start(ap, msg);
		vfprintf(stderr, msg, ap);
		va_end(ap);
		fputc('\n', stderr);
	}
	fprintf(stderr, "%s\n", usage);
	return GM_EXIT_USAGE;
}

int gm_cli_fail(void)
{
	gm_error_report(stderr);
	return GM_EXIT_ERROR;
}

void gm_note(const char *fmt, ...)
{
	va_list ap;

	if (gm_cli.verbosity < 0) {
		return;
	}
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
