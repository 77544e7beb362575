/* SPDX-License-Identifier: MIT */
/*
 * The gpumix command: global options, then dispatch to one cmd_<name>()
 * per sub-command. The table below is the only list of commands; it holds
 * only commands that work.
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "build/version.h"
#include "cli.h"
#include "error.h"
#include "study/study_state.h"

struct gm_cli_options gm_cli;

struct command {
	const char *name;
	gm_command_fn fn;
	const char *summary;
};

static const struct command commands[] = {
	{ "capture", cmd_capture, "run a program and record its CUDA calls into a trace bundle" },
	{ "trace", cmd_trace, "inspect a bundle: info, list of calls, kernels, losses, timeline, result diff" },
	{ "help", cmd_help, "show help for gpumix or one of its commands" },
	{ "elastic", cmd_elastic, "make the kernels of PTX, fatbins or bundles elastic" },
	{ "version", cmd_version, "print the gpumix version" },
	{ "analyze", cmd_analyze, "load run directories into a SQLite database" },
	{ "report", cmd_report, "print comparison tables and draw plots from a database" },
	{ "run", cmd_run, "run a whole study described by a YAML file" },
	{ "reconstruct", cmd_reconstruct, "generate the replay program of an n-program workload" },
	{ "replay", cmd_replay, "build and run a generated replay program" },
	{ "profile", cmd_profile, "kernel profile of a suite from its single runs" },
	{ "scale", cmd_scale, "time of programs and kernels against the SMs they get" },
	{ "corun", cmd_corun, "run the original programs of a workload together: native slowdowns" },
};

#define NR_COMMANDS (sizeof(commands) / sizeof(commands[0]))

static const char main_usage[] =
	"usage: gpumix [--version] [--help] [-v | -q] <command> [<args>]";

static void print_main_help(FILE *out)
{
	fprintf(out, "%s\n\ncommands:\n", main_usage);
	for (size_t i = 0; i < NR_COMMANDS; i++) {
		fprintf(out, "   %-12s %s\n", commands[i].name,
			commands[i].summary);
	}
	fputs("\n'gpumix help <command>' or 'gpumix <command> --help' describes"
	      " one command.\n"
	      "\nexit status: 0 success; 1 error (including detected data"
	      " loss);\n2 usage error; 130 interrupted.\n"
	      "\nenvironment: GPUMIX_DEBUG=1 prints debug lines.\n",
	      out);
}

static const struct command *find_command(const char *name)
{
	for (size_t i = 0; i < NR_COMMANDS; i++) {
		if (!strcmp(commands[i].name, name)) {
			return &commands[i];
		}
	}
	return NULL;
}

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

int gm_bad_option(const char *usage, int c, char **argv)
{
	return gm_usage_error(usage, c == ':' ? "option '%s' needs a value"
					      : "unknown option '%s'",
			      argv[optind - 1]);
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

int cmd_version(int argc, char **argv)
{
	if (argc > 1) {
		return gm_usage_error("usage: gpumix version", "unexpected argument '%s'",
				      argv[1]);
	}
	printf("gpumix %s\n", GM_VERSION_STRING);
	return GM_EXIT_OK;
}

int cmd_help(int argc, char **argv)
{
	if (argc < 2) {
		print_main_help(stdout);
		return GM_EXIT_OK;
	}
	if (argc > 2) {
		return gm_usage_error("usage: gpumix help [<command>]",
				      "too many arguments");
	}
	const struct command *c = find_command(argv[1]);
	if (!c) {
		return gm_usage_error(main_usage, "unknown command '%s'", argv[1]);
	}
	char *args[] = { argv[1], "--help", NULL };
	return c->fn(2, args);
}

/*
 * Run as a stage of a study, gpumix holds the study's lock for as long as
 * it runs (study_state_lock() lets stages inherit it) but passes it on to
 * nothing it starts: a captured program must not hold a study locked.
 */
static void keep_study_lock(void)
{
	const char *v = getenv(GM_STUDY_LOCK_FD_ENV);
	char *end;
	long fd;

	if (!v || !*v) {
		return;
	}
	fd = strtol(v, &end, 10);
	if (!*end && fd > 2 && fd < 65536) {
		fcntl((int)fd, F_SETFD, FD_CLOEXEC);
	}
	unsetenv(GM_STUDY_LOCK_FD_ENV);
}

int main(int argc, char **argv)
{
	int i = 1;
	const char *dbg = getenv("GPUMIX_DEBUG");

	gm_cli.debug = dbg && *dbg && strcmp(dbg, "0");
	keep_study_lock();
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			print_main_help(stdout);
			return GM_EXIT_OK;
		} else if (!strcmp(a, "--version")) {
			char *args[] = { "version", NULL };
			return cmd_version(1, args);
		} else if (!strcmp(a, "-v") || !strcmp(a, "--verbose")) {
			gm_cli.verbosity++;
		} else if (!strcmp(a, "-q") || !strcmp(a, "--quiet")) {
			gm_cli.verbosity--;
		} else {
			return gm_usage_error(main_usage, "unknown option '%s'", a);
		}
	}
	if (i == argc) {
		print_main_help(stderr);
		return GM_EXIT_USAGE;
	}
	const struct command *c = find_command(argv[i]);
	if (!c) {
		return gm_usage_error(main_usage, "'%s' is not a gpumix command",
				      argv[i]);
	}
	/* Interrupted children should not leave us half-way silently. */
	signal(SIGPIPE, SIG_DFL);
	return c->fn(argc - i, argv + i);
}
