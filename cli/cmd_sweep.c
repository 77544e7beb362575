/* SPDX-License-Identifier: MIT */
/*
 * gpumix sweep: resource-specification sweeps (Zorua, [S2]; issue 28,
 * doc/gpumix-sweep.md). Two parts work without a GPU: the plan (--plan:
 * per kernel, the points of each axis with the resident blocks per SM and
 * the binding resource the occupancy calculator gives) and the cliff
 * detector (--cliffs: the performance range and the cliffs of measured
 * points); --run replays each kernel at its points (sweep_run.c).
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/sweep.h"
#include "analyze/sweep_report.h"
#include "cli.h"
#include "cli_knob.h"
#include "replay_opts.h"
#include "sweep_run.h"
#include "error.h"
#include "strbuf.h"

static const char usage[] =
	"usage: gpumix sweep --plan [--device h100|c2070] "
	"NAME:THREADS:REGS:SMEM...\n"
	"   or: gpumix sweep --cliffs [--threshold PCT] FILE.csv\n"
	"   or: gpumix sweep --run [-o DIR] [--replays R] [--watchdog SECONDS]\n"
	"                    [--threshold PCT] [--axes LIST] [--kernel NAME]...\n"
	"                    [--redo] [--no-plot] BUNDLE...";

static const char help[] =
	"\n"
	"Resource-specification sweeps (Zorua; doc/gpumix-sweep.md).\n"
	"\n"
	"  --plan            print, per kernel given as NAME:THREADS:REGS:SMEM\n"
	"                    (threads per block, registers per thread, shared\n"
	"                    memory per block in bytes), the sweep's points: the\n"
	"                    shared-memory paddings leaving 1 .. its blocks per\n"
	"                    SM, the register caps, the elastic blocks per SM;\n"
	"                    each with its blocks per SM and binding resource\n"
	"                    (CSV)\n"
	"  --device D        the device of the plan: h100 (default) or c2070\n"
	"  --cliffs          read measured points (CSV: program,kernel,axis,\n"
	"                    value,time_ms,blocks_per_sm,limiting) and print each\n"
	"                    curve's performance range and its cliffs\n"
	"  --threshold PCT   a cliff's least jump between adjacent points, in\n"
	"                    percent (default 20)\n"
	"  --run             replay each kernel of each bundle alone at each\n"
	"                    point of its plan (the same work, results verified):\n"
	"                    DIR/points.csv, cliffs.md (also printed), cliffs.csv\n"
	"                    and, with gnuplot, sweep-PROGRAM-AXIS.png; a DIR a\n"
	"                    sweep made is taken up again, its points kept\n"
	"  -o, --output DIR  with --run: the directory (default: sweep)\n"
	"  --replays R       with --run: replays per point (gpumix replay\n"
	"                    --min-replays; default 3, from 2 to 1000)\n"
	"  --watchdog S      with --run: per replay (default 120)\n"
	"  --axes LIST       with --run: the axes swept, of smem, regs and\n"
	"                    blocks, comma-separated (default: all three)\n"
	"  --kernel NAME     with --run: only the kernels whose (mangled) name\n"
	"                    contains NAME; may be given again (default: all)\n"
	"  --redo            with --run: measure the points DIR holds again\n"
	"  --no-plot         with --run: no figures (gnuplot not needed)\n"
	"\n"
	"exit status: 0 ok; 1 error; 2 usage error.\n";

enum { OPT_PLAN = 256, OPT_CLIFFS, OPT_DEVICE, OPT_THRESHOLD, OPT_RUN,
       OPT_REPLAYS, OPT_WATCHDOG, OPT_REDO, OPT_NO_PLOT, OPT_AXES,
       OPT_KERNEL };

static const struct option sweep_longopts[] = {
	{ "plan", no_argument, NULL, OPT_PLAN },
	{ "cliffs", no_argument, NULL, OPT_CLIFFS },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ "run", no_argument, NULL, OPT_RUN },
	{ "output", required_argument, NULL, 'o' },
	{ "replays", required_argument, NULL, OPT_REPLAYS },
	{ "watchdog", required_argument, NULL, OPT_WATCHDOG },
	{ "redo", no_argument, NULL, OPT_REDO },
	{ "no-plot", no_argument, NULL, OPT_NO_PLOT },
	{ "axes", required_argument, NULL, OPT_AXES },
	{ "kernel", required_argument, NULL, OPT_KERNEL },
	{ NULL, 0, NULL, 0 },
};

const struct gm_cmd_options gm_sweep_options = {
	.shorts = "o:",
	.longopts = sweep_longopts,
};

/* "NAME:THREADS:REGS:SMEM" into @name (owned) and @k. */
static int parse_kernel(const char *s, char **name, struct gm_kernel_usage *k)
{
	const char *c = strchr(s, ':');
	long v[3];
	char *end;

	if (!c || c == s) {
		return -1;
	}
	end = (char *)c;
	for (int i = 0; i < 3; i++) {
		if (*end != ':') {
			return -1;
		}
		errno = 0;
		v[i] = strtol(end + 1, &end, 10);
		if (errno || v[i] < 0 || end == c) {
			return -1;
		}
	}
	if (*end || v[0] < 1 || v[1] < 1) {
		return -1;
	}
	*name = gm_xasprintf("%.*s", (int)(c - s), s);
	k->threads_per_block = (int)v[0];
	k->regs_per_thread = (int)v[1];
	k->smem_per_block = (size_t)v[2];
	return 0;
}

static int plan(const struct gm_device_limits *dev, char **kernels, int n)
{
	printf("kernel,axis,value,blocks_per_sm,limiting\n");
	for (int i = 0; i < n; i++) {
		struct gm_kernel_usage k;
		struct gm_sweep_point *p;
		size_t np;
		char *name = NULL;

		if (parse_kernel(kernels[i], &name, &k) < 0) {
			return gm_usage_error(usage, "'%s' is not NAME:THREADS:"
					      "REGS:SMEM", kernels[i]);
		}
		if (gm_sweep_plan(dev, &k, &p, &np) < 0) {
			gm_error("cannot plan '%s'", name);
			free(name);
			return gm_cli_fail();
		}
		for (size_t j = 0; j < np; j++) {
			char res[64];
			printf("%s,%s,%ld,%d,%s\n", name,
			       gm_sweep_axis_name(p[j].axis), p[j].value,
			       p[j].blocks_per_sm,
			       p[j].limiting ? gm_resource_names(p[j].limiting,
								  res, sizeof(res))
					     : "elastic-grid");
		}
		free(p);
		free(name);
	}
	return GM_EXIT_OK;
}

/* --axes LIST: "smem,blocks" into @axes (1 << axis each); -1 for a name
 * that is no axis, or an empty one. */
static int parse_axes(const char *list, unsigned *axes)
{
	char *copy = gm_xstrdup(list), *save = NULL;
	int bad = !*list;

	*axes = 0;
	for (char *t = strtok_r(copy, ",", &save); t && !bad;
	     t = strtok_r(NULL, ",", &save)) {
		enum gm_sweep_axis a;
		if (gm_sweep_axis_parse(t, &a) < 0) {
			bad = 1;
		} else {
			*axes |= 1u << a;
		}
	}
	free(copy);
	return bad || !*axes ? -1 : 0;
}

static int cliffs(const char *path, double threshold)
{
	struct gm_sweep_points p = GM_SWEEP_POINTS_INIT;
	int ret = GM_EXIT_ERROR;

	if (gm_sweep_points_read(&p, path) < 0) {
		gm_cli_fail();
		goto out;
	}
	if (!p.nr) {
		gm_error("%s: no points", path);
		gm_cli_fail();
		goto out;
	}
	gm_sweep_report(&p, threshold / 100, stdout, NULL);
	ret = GM_EXIT_OK;
out:
	gm_sweep_points_release(&p);
	return ret;
}

/* The command, its options into @ro (whose kernels the caller frees). */
static int sweep(int argc, char **argv, struct gm_sweep_run_opts *ro)
{
	struct gm_opt_parser op;
	const struct gm_device_limits *dev = &gm_device_h100;
	int mode = 0, c, threshold_given = 0, device_given = 0, run_given = 0;
	double threshold = 20;
	char *end;
	double knob;

	gm_opt_init(&op, &gm_sweep_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		switch (c) {
		case OPT_PLAN:
		case OPT_CLIFFS:
		case OPT_RUN:
			if (mode && mode != c) {
				return gm_usage_error(usage, "--plan, --cliffs and "
						      "--run exclude each other");
			}
			mode = c;
			break;
		case 'o':
			ro->dir = op.arg;
			run_given = 1;
			break;
		case OPT_REPLAYS:
			if (gm_cli_knob_arg(GM_KNOB_MIN_REPLAYS, "--replays",
					    op.arg, &knob, usage)) {
				return GM_EXIT_USAGE;
			}
			ro->replays = (unsigned)knob;
			run_given = 1;
			break;
		case OPT_WATCHDOG:
			if (gm_cli_knob_arg(GM_KNOB_WATCHDOG, "--watchdog",
					    op.arg, &ro->watchdog_s, usage)) {
				return GM_EXIT_USAGE;
			}
			run_given = 1;
			break;
		case OPT_REDO:
			ro->redo = 1;
			run_given = 1;
			break;
		case OPT_NO_PLOT:
			ro->plot = 0;
			run_given = 1;
			break;
		case OPT_AXES:
			if (parse_axes(op.arg, &ro->axes) < 0) {
				return gm_usage_error(usage, "--axes takes smem, "
						      "regs and blocks, comma-"
						      "separated, not '%s'",
						      op.arg);
			}
			run_given = 1;
			break;
		case OPT_KERNEL:
			if (!*op.arg) {
				return gm_usage_error(usage, "--kernel takes a "
						      "kernel's name or part "
						      "of it");
			}
			ro->kernels = gm_xrealloc(ro->kernels,
						  (size_t)(ro->nr_kernels + 1) *
						  sizeof(*ro->kernels));
			ro->kernels[ro->nr_kernels++] = op.arg;
			run_given = 1;
			break;
		case OPT_DEVICE:
			if (!strcmp(op.arg, "h100")) {
				dev = &gm_device_h100;
			} else if (!strcmp(op.arg, "c2070")) {
				dev = &gm_device_c2070;
			} else {
				return gm_usage_error(usage, "--device takes h100 "
						      "or c2070, not '%s'", op.arg);
			}
			device_given = 1;
			break;
		case OPT_THRESHOLD:
			threshold = strtod(op.arg, &end);
			if (*end || !*op.arg || !(threshold > 0) ||
			    threshold > 10000) {
				return gm_usage_error(usage, "--threshold takes a "
						      "percentage above 0");
			}
			threshold_given = 1;
			break;
		case 'h':
			printf("%s\n%s", usage, help);
			return GM_EXIT_OK;
		default:
			return GM_EXIT_USAGE;
		}
	}
	if (!mode) {
		return gm_usage_error(usage, "--plan, --cliffs or --run?");
	}
	if (run_given && mode != OPT_RUN) {
		return gm_usage_error(usage, "-o, --replays, --watchdog, --axes, "
				      "--kernel, --redo and --no-plot go with "
				      "--run");
	}
	if (mode == OPT_RUN) {
		if (device_given) {
			return gm_usage_error(usage, "--device goes with --plan "
					      "(--run reads the device's)");
		}
		if (op.ind == argc) {
			return gm_usage_error(usage, "no bundle given");
		}
		ro->threshold = threshold / 100;
		return gm_sweep_run(ro, argv + op.ind, argc - op.ind);
	}
	if (mode == OPT_PLAN) {
		if (threshold_given) {
			return gm_usage_error(usage, "--threshold goes with "
					      "--cliffs");
		}
		if (op.ind == argc) {
			return gm_usage_error(usage, "which kernels? "
					      "(NAME:THREADS:REGS:SMEM)");
		}
		return plan(dev, argv + op.ind, argc - op.ind);
	}
	if (device_given) {
		return gm_usage_error(usage, "--device goes with --plan");
	}
	if (argc - op.ind != 1) {
		return gm_usage_error(usage, "--cliffs reads one file of points");
	}
	return cliffs(argv[op.ind], threshold);
}

int cmd_sweep(int argc, char **argv)
{
	struct gm_sweep_run_opts ro = { .dir = "sweep", .replays = 3,
					.watchdog_s = 120, .plot = 1,
					.axes = GM_SWEEP_ALL_AXES };
	int ret = sweep(argc, argv, &ro);

	free((void *)ro.kernels);
	return ret;
}
