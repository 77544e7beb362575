/* SPDX-License-Identifier: MIT */
/*
 * The gpumix command: global options, then dispatch to one cmd_<name>()
 * per sub-command of the command table (commands.c).
 */
#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "cli.h"
#include "closest.h"
#include "study/study_state.h"

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
	const struct gm_command *cmds = gm_commands();
	int i = 1;
	const char *dbg = getenv("GPUMIX_DEBUG");

	gm_cli.debug = dbg && *dbg && strcmp(dbg, "0");
	keep_study_lock();
	for (; i < argc && argv[i][0] == '-'; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--help") || !strcmp(a, "-h")) {
			gm_help_main(stdout, cmds);
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
			return gm_usage_error(gm_main_usage, "unknown option '%s'%s%s%s",
					      a, near ? " (did you mean '" : "",
					      near ? near : "", near ? "'?)" : "");
		}
	}
	if (i == argc) {
		gm_help_main(stderr, cmds);
		return GM_EXIT_USAGE;
	}
	const struct gm_command *c = gm_command_find(cmds, argv[i]);
	if (!c) {
		return gm_help_unknown(cmds, argv[i]);
	}
	/* Interrupted children should not leave us half-way silently. */
	signal(SIGPIPE, SIG_DFL);
	return c->fn(argc - i, argv + i);
}
