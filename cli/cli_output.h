/* SPDX-License-Identifier: MIT */
/*
 * What every command prints on stderr besides its own messages
 * (cli_output.c): the exit codes, usage errors, the recorded error, notes
 * that -q silences; and the global options that -v/-q and GPUMIX_DEBUG
 * set. The option parser and each command use these; they call neither.
 */
#ifndef GM_CLI_OUTPUT_H
#define GM_CLI_OUTPUT_H

/* Exit codes (documented in `gpumix --help`). */
enum {
	GM_EXIT_OK = 0,
	GM_EXIT_ERROR = 1,	/* any failure, including detected data loss */
	GM_EXIT_USAGE = 2,	/* bad command line */
	GM_EXIT_INTERRUPTED = 130,
};

struct gm_cli_options {
	int verbosity;		/* 0 normal, <0 quiet (-q), >0 verbose (-v) */
	int debug;		/* GPUMIX_DEBUG=1 */
};

extern struct gm_cli_options gm_cli;

/*
 * Print "usage: ..." plus @usage to stderr and return GM_EXIT_USAGE; when
 * @msg is set, print "error: <msg>" first.
 */
int gm_usage_error(const char *usage, const char *msg, ...)
	__attribute__((format(printf, 2, 3)));

/* Print the recorded error (error.h) and return GM_EXIT_ERROR. */
int gm_cli_fail(void);

/* Print a progress/diagnostic line to stderr unless -q. */
void gm_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

#endif
