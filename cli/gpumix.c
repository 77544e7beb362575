/* SPDX-License-Identifier: MIT */
/*
 * The gpumix command: global options, then dispatch to one cmd_<name>()
 * per sub-command of the command table (commands.c); help and version.
 */
#include <fcntl.h>
#include <getopt.h>
#include <signal.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "build/version.h"
#include "cli.h"
#include "closest.h"
#include "error.h"
#include "study/study_state.h"

struct gm_cli_options gm_cli;

static const char main_usage[] =
	"usage: gpumix [--version] [--help] [-v | -q] <command> [<args>]";

static void print_main_help(FILE *out)
{
	fprintf(out, "%s\n\ncommands:\n", main_usage);
	for (size_t i = 0; gm_command_at(i); i++) {
		fprintf(out, "   %-12s %s\n", gm_command_at(i)->name,
			gm_command_at(i)->summary);
	}
	fputs("\n'gpumix help <command>' or 'gpumix <command> --help' describes"
	      " one command.\n"
	      "-q/--quiet and -v/--verbose go before or after the command.\n"
	      "\nexit status: 0 success; 1 error (including detected data"
	      " loss);\n2 usage error; 130 interrupted.\n"
	      "\nenvironment: GPUMIX_DEBUG=1 prints debug lines.\n",
	      out);
}

/* "unknown command 'X' (did you mean 'Y'?)" and the usage: exit 2. */
static int unknown_command(const char *name)
{
	const char *names[64];
	size_t n = 0;

	for (; gm_command_at(n) && n + 1 < 64; n++) {
		names[n] = gm_command_at(n)->name;
	}
	names[n] = NULL;
	const char *near = gm_closest(name, names);
	return gm_usage_error(main_usage, "'%s' is not a gpumix command%s%s%s",
			      name, near ? " (did you mean '" : "",
			      near ? near : "", near ? "'?)" : "");
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

const struct gm_cmd_options gm_version_options = { 0 };

int cmd_version(int argc, char **argv)
{
	static const char usage[] = "usage: gpumix version";
	struct gm_opt_parser p;
	int c;

	gm_opt_init(&p, &gm_version_options, usage, argc, argv);
	while ((c = gm_opt_next(&p)) != GM_OPT_END) {
		if (c == GM_OPT_HELP) {
			printf("%s\n\nPrint the version of gpumix.\n", usage);
			return GM_EXIT_OK;
		}
		return GM_EXIT_USAGE;
	}
	if (p.ind < argc) {
		return gm_usage_error(usage, "unexpected argument '%s'",
				      argv[p.ind]);
	}
	printf("gpumix %s\n", GM_VERSION_STRING);
	return GM_EXIT_OK;
}

const struct gm_cmd_options gm_help_options = { 0 };

int cmd_help(int argc, char **argv)
{
	static const char usage[] = "usage: gpumix help [<command>]";
	struct gm_opt_parser p;
	int c;

	gm_opt_init(&p, &gm_help_options, usage, argc, argv);
	while ((c = gm_opt_next(&p)) != GM_OPT_END) {
		if (c == GM_OPT_HELP) {
			printf("%s\n\nDescribe gpumix (no command) or one of its"
			       " commands, as\n'gpumix <command> --help' does.\n",
			       usage);
			return GM_EXIT_OK;
		}
		return GM_EXIT_USAGE;
	}
	if (p.ind == argc) {
		print_main_help(stdout);
		return GM_EXIT_OK;
	}
	if (p.ind + 1 < argc) {
		return gm_usage_error(usage, "too many arguments");
	}
	const struct gm_command *cmd = gm_command_find(argv[p.ind]);
	if (!cmd) {
		return unknown_command(argv[p.ind]);
	}
	char *args[] = { argv[p.ind], "--help", NULL };
	return cmd->fn(2, args);
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
			static const char *const names[] = {
				"--help", "--version", "--verbose", "--quiet",
				NULL
			};
			const char *near = gm_closest(a, names);
			return gm_usage_error(main_usage, "unknown option '%s'%s%s%s",
					      a, near ? " (did you mean '" : "",
					      near ? near : "", near ? "'?)" : "");
		}
	}
	if (i == argc) {
		print_main_help(stderr);
		return GM_EXIT_USAGE;
	}
	const struct gm_command *c = gm_command_find(argv[i]);
	if (!c) {
		return unknown_command(argv[i]);
	}
	/* Interrupted children should not leave us half-way silently. */
	signal(SIGPIPE, SIG_DFL);
	return c->fn(argc - i, argv + i);
}
