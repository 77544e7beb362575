/* SPDX-License-Identifier: MIT */
/*
 * What every cmd_<name>.c shares: the command signature, exit codes, the
 * global verbosity chosen by -v/-q, and helpers for usage errors.
 */
#ifndef GM_CLI_H
#define GM_CLI_H

#include <stdio.h>

/* Exit codes (documented in `gpumix --help`). */
enum {
	GM_EXIT_OK = 0,
	GM_EXIT_ERROR = 1,	/* any failure, including detected data loss */
	GM_EXIT_USAGE = 2,	/* bad command line */
	GM_EXIT_INTERRUPTED = 130,
};

/* A command: argv[0] is the command name; returns an exit code. */
typedef int (*gm_command_fn)(int argc, char **argv);

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

/*
 * The usage error for what getopt_long returned as @c when it is not an
 * option of the command: ':' (a missing value, with ":..." optstrings) or
 * anything else (an unknown option), naming @argv[optind - 1].
 */
int gm_bad_option(const char *usage, int c, char **argv);

/* Print the recorded error (error.h) and return GM_EXIT_ERROR. */
int gm_cli_fail(void);

/* Print a progress/diagnostic line to stderr unless -q. */
void gm_note(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/*
 * The path of the library @file that gpumix injects into programs
 * (libgpumix-capture.so, libgpumix-corun.so): $@env_var when set, else
 * next to the gpumix binary (a build directory), else in ../lib/gpumix
 * from it (an installation). Newly allocated.
 */
char *gm_cli_library(const char *file, const char *env_var);

/* Command entry points (one cmd_<name>.c each). */
int cmd_help(int argc, char **argv);
int cmd_version(int argc, char **argv);
int cmd_analyze(int argc, char **argv);
int cmd_report(int argc, char **argv);
int cmd_run(int argc, char **argv);
int cmd_replay(int argc, char **argv);
int cmd_elastic(int argc, char **argv);
int cmd_capture(int argc, char **argv);
int cmd_trace(int argc, char **argv);
int cmd_reconstruct(int argc, char **argv);
int cmd_profile(int argc, char **argv);
int cmd_scale(int argc, char **argv);
int cmd_corun(int argc, char **argv);

#endif
