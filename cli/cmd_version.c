/* SPDX-License-Identifier: MIT */
/*
 * gpumix version: the version of gpumix (also `gpumix --version`).
 */
#include <stdio.h>

#include "build/version.h"
#include "cli.h"

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
