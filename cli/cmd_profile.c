/* SPDX-License-Identifier: MIT */
/*
 * gpumix profile: the kernel profile of a suite, from the run directories
 * of its programs replayed alone (single): per program, kernel and launch
 * shape, the block's resources and the mean duration on this GPU. The
 * elastic variant reads it (`gpumix replay --variant elastic --profile
 * FILE`) for MEDIAN's median kernel and the timeslices' lengths.
 */
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/profile_build.h"
#include "atomic_file.h"
#include "cli.h"
#include "error.h"
#include "kernel_profile.h"

static const char usage[] = "usage: gpumix profile [-o FILE] [--force] RUNDIR...";

static const char help[] =
	"\n"
	"Write the kernel profile of the programs replayed alone in the single\n"
	"run directories RUNDIR... (doc/gpumix-profile.md).\n"
	"\n"
	"  -o, --output FILE\n"
	"               where to write it ('-' or none: standard output)\n"
	"  --force      replace an existing FILE\n"
	"\n"
	"exit status: 0 ok; 1 error; 2 usage error.\n";

static const struct option profile_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ NULL, 0, NULL, 0 },
};

const struct gm_cmd_options gm_profile_options = {
	.shorts = "o:",
	.longopts = profile_longopts,
};

int cmd_profile(int argc, char **argv)
{
	struct gm_opt_parser op;
	struct gm_kprofile p = { 0 };
	const char *out = NULL;
	int force = 0, c, ret = GM_EXIT_ERROR;

	gm_opt_init(&op, &gm_profile_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		switch (c) {
		case 'o':
			out = op.arg;
			break;
		case 'f':
			force = 1;
			break;
		case 'h':
			printf("%s\n%s", usage, help);
			return GM_EXIT_OK;
		default:
			return GM_EXIT_USAGE;
		}
	}
	if (op.ind == argc) {
		return gm_usage_error(usage, "which run directories?");
	}
	if (gm_profile_build(&p, argv + op.ind, (size_t)(argc - op.ind)) < 0) {
		goto out;
	}
	if (!p.nr) {
		gm_error("no kernel records in the run directories");
		goto out;
	}
	if (!out || !strcmp(out, "-")) {
		ret = gm_kprofile_write(&p, stdout) < 0 ? GM_EXIT_ERROR
							 : GM_EXIT_OK;
		goto out;
	}
	{
		char *buf = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&buf, &len);
		if (!f || gm_kprofile_write(&p, f) < 0 || fclose(f)) {
			free(buf);
			gm_error("cannot format the profile");
			goto out;
		}
		if (gm_write_file_atomic(out, buf, len, force) == 0) {
			gm_note("profile: %zu kernel shapes written to '%s'",
				p.nr, out);
			ret = GM_EXIT_OK;
		}
		free(buf);
	}
out:
	gm_kprofile_release(&p);
	return ret == GM_EXIT_OK ? ret : gm_cli_fail();
}
