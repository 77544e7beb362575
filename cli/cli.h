/* SPDX-License-Identifier: MIT */
/*
 * What every cmd_<name>.c shares: the command signature and table, the
 * option parser, and (cli_output.h) the exit codes, the global verbosity
 * chosen by -v/-q and helpers for usage errors.
 */
#ifndef GM_CLI_H
#define GM_CLI_H

#include <getopt.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include "cli_output.h"

/* A command: argv[0] is the command name; returns an exit code. */
typedef int (*gm_command_fn)(int argc, char **argv);

/*
 * A command's options, as getopt_long takes them: the one description of
 * them that parsing, `gpumix completion`, the CLI conventions test
 * (tests/cli/cli_conventions.sh) and the man pages' checks read. -h/--help,
 * -q/--quiet and -v/--verbose are every command's and are not listed.
 */
struct gm_cmd_options {
	const char *shorts;		/* short letters, "o:f" (no leading '+'/':') */
	const struct option *longopts;	/* { NULL } terminated, or NULL */
	const struct option *more_longopts; /* a second table, or NULL (replay:
					   the replay program's options) */
	int in_order;			/* options end at the first argument
					   (what follows is a program's) */
	const char *const *subcommands;	/* NULL, or the words the first
					   argument may be (NULL terminated) */
};

/* An entry of the command table (cli/commands.c). */
struct gm_command {
	const char *name;
	gm_command_fn fn;
	const char *summary;
	const struct gm_cmd_options *options;
};

/* The command table (commands.c), ended by an entry without a name. */
const struct gm_command *gm_commands(void);

/* The command called @name in the table @cmds, or NULL. */
static inline const struct gm_command *
gm_command_find(const struct gm_command *cmds, const char *name)
{
	for (; cmds->name; cmds++) {
		if (!strcmp(cmds->name, name)) {
			return cmds;
		}
	}
	return NULL;
}

/* gpumix's usage line, and what `gpumix --help` prints: the usage and
 * the commands of @cmds (cmd_help.c). */
extern const char gm_main_usage[];
void gm_help_main(FILE *out, const struct gm_command *cmds);

/* "'X' is not a gpumix command (did you mean 'Y'?)" and the usage;
 * returns GM_EXIT_USAGE. */
int gm_help_unknown(const struct gm_command *cmds, const char *name);

/* Every command's options parser; see gm_opt_next(). */
struct gm_opt_parser {
	const struct gm_cmd_options *opts;
	const char *usage;
	int argc;
	char **argv;
	const char *arg;	/* the value of the option just returned */
	int ind;		/* after -1: argv index of the first argument */
	struct option all[64];	/* the command's options and the global ones */
	char shorts[96];
};

/* What gm_opt_next() returns besides an option's key. */
enum {
	GM_OPT_END = -1,	/* no more options: the arguments start at ind */
	GM_OPT_FAIL = -2,	/* a usage error was printed: exit GM_EXIT_USAGE */
	GM_OPT_HELP = 'h',	/* -h or --help: print the help, exit 0 */
};

/*
 * Start parsing @argv (argv[0] the command's name) with @opts; @usage is
 * printed after any usage error.
 */
void gm_opt_init(struct gm_opt_parser *p, const struct gm_cmd_options *opts,
		 const char *usage, int argc, char **argv);

/*
 * The next option's key (its short letter or its getopt_long val), with
 * its value in p->arg; GM_OPT_HELP; GM_OPT_END; or GM_OPT_FAIL after
 * printing "unknown option 'X' (did you mean 'Y'?)" or "option 'X' needs
 * a value" and the usage. Long options take their value after '=' or as
 * the next word. -q/-v are handled here (gm_cli.verbosity). With
 * GPUMIX_CLI_PARSE_ONLY=1 in the environment (tests/cli/cli_conventions.sh)
 * it prints each option and argument in one canonical form instead of
 * returning them and exits 0 at the end: what a command line means to the
 * parser, whatever the command would do.
 */
int gm_opt_next(struct gm_opt_parser *p);

/*
 * The path of the library @file that gpumix injects into programs
 * (libgpumix-capture.so, libgpumix-corun.so): $@env_var when set, else
 * next to the gpumix binary (a build directory), else in ../lib/gpumix
 * from it (an installation). Newly allocated.
 */
char *gm_cli_library(const char *file, const char *env_var);

/* Command entry points (one cmd_<name>.c each). */
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
int cmd_sweep(int argc, char **argv);
int cmd_corun(int argc, char **argv);
/* help and completion describe the command table @cmds they are given. */
int cmd_help(const struct gm_command *cmds, int argc, char **argv);
int cmd_completion(const struct gm_command *cmds, int argc, char **argv);

/* Each command's options (in its cmd_<name>.c). */
extern const struct gm_cmd_options gm_capture_options, gm_trace_options,
	gm_help_options, gm_elastic_options, gm_version_options,
	gm_analyze_options, gm_report_options, gm_run_options,
	gm_reconstruct_options, gm_replay_options, gm_profile_options,
	gm_scale_options, gm_sweep_options, gm_corun_options, gm_completion_options;

#endif
