/* SPDX-License-Identifier: MIT */
/*
 * gpumix help, and gpumix's usage and list of commands that `gpumix`,
 * `gpumix --help` and an unknown command print. It describes the command
 * table it is given (commands.c hands over its own), so that it reads the
 * table without calling back into the file that lists it.
 */
#include <stdio.h>

#include "cli.h"
#include "closest.h"

const char gm_main_usage[] =
	"usage: gpumix [--version] [--help] [-v | -q] <command> [<args>]";

void gm_help_main(FILE *out, const struct gm_command *cmds)
{
	fprintf(out, "%s\n\ncommands:\n", gm_main_usage);
	for (; cmds->name; cmds++) {
		fprintf(out, "   %-12s %s\n", cmds->name, cmds->summary);
	}
	fputs("\n'gpumix help <command>' or 'gpumix <command> --help' describes"
	      " one command.\n"
	      "-q/--quiet and -v/--verbose go before or after the command.\n"
	      "\nexit status: 0 success; 1 error (including detected data"
	      " loss);\n2 usage error; 130 interrupted.\n"
	      "\nenvironment: GPUMIX_DEBUG=1 prints debug lines.\n",
	      out);
}

int gm_help_unknown(const struct gm_command *cmds, const char *name)
{
	const char *names[64];
	size_t n = 0;

	for (; cmds[n].name && n + 1 < 64; n++) {
		names[n] = cmds[n].name;
	}
	names[n] = NULL;
	const char *near = gm_closest(name, names);
	return gm_usage_error(gm_main_usage, "'%s' is not a gpumix command%s%s%s",
			      name, near ? " (did you mean '" : "",
			      near ? near : "", near ? "'?)" : "");
}

const struct gm_cmd_options gm_help_options = { 0 };

int cmd_help(const struct gm_command *cmds, int argc, char **argv)
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
		gm_help_main(stdout, cmds);
		return GM_EXIT_OK;
	}
	if (p.ind + 1 < argc) {
		return gm_usage_error(usage, "too many arguments");
	}
	const struct gm_command *cmd = gm_command_find(cmds, argv[p.ind]);
	if (!cmd) {
		return gm_help_unknown(cmds, argv[p.ind]);
	}
	char *args[] = { argv[p.ind], "--help", NULL };
	return cmd->fn(2, args);
}
