/* SPDX-License-Identifier: MIT */
/*
 * gpumix sweep: resource-specification sweeps (Zorua, [S2]; issue 28,
 * doc/gpumix-sweep.md). Two parts work without a GPU: the plan (--plan:
 * per kernel, the points of each axis with the resident blocks per SM and
 * the binding resource the occupancy calculator gives) and the cliff
 * detector (--cliffs: the performance range and the cliffs of measured
 * points). Replaying the points on the GPU is not implemented yet.
 */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/sweep.h"
#include "cli.h"
#include "error.h"
#include "strbuf.h"

static const char usage[] =
	"usage: gpumix sweep --plan [--device h100|c2070] "
	"NAME:THREADS:REGS:SMEM...\n"
	"   or: gpumix sweep --cliffs [--threshold PCT] FILE.csv";

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
	"\n"
	"exit status: 0 ok; 1 error; 2 usage error.\n";

enum { OPT_PLAN = 256, OPT_CLIFFS, OPT_DEVICE, OPT_THRESHOLD };

static const struct option sweep_longopts[] = {
	{ "plan", no_argument, NULL, OPT_PLAN },
	{ "cliffs", no_argument, NULL, OPT_CLIFFS },
	{ "device", required_argument, NULL, OPT_DEVICE },
	{ "threshold", required_argument, NULL, OPT_THRESHOLD },
	{ NULL, 0, NULL, 0 },
};

const struct gm_cmd_options gm_sweep_options = {
	.shorts = "",
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

/* Split @line at commas into exactly @n fields. */
static int split(char *line, char **f, int n)
{
	int i = 0;

	for (char *p = line; i < n; i++) {
		f[i] = p;
		p = strchr(p, ',');
		if (!p) {
			return i == n - 1 ? 0 : -1;
		}
		*p++ = 0;
	}
	return -1;
}

static int cliffs(const char *path, double threshold)
{
	FILE *f = fopen(path, "r");
	struct gm_sweep_measure *m = NULL;
	struct gm_sweep_cliff *c = NULL;
	char **own = NULL;
	size_t n = 0, alloc = 0, nc = 0, nown = 0, lalloc = 0;
	char *line = NULL;
	unsigned long lineno = 0;
	int ret = GM_EXIT_ERROR;

	if (!f) {
		gm_error_errno("cannot open '%s'", path);
		return gm_cli_fail();
	}
	while (getline(&line, &lalloc, f) >= 0) {
		char *fl[7], *end1, *end2, *end3;
		struct gm_sweep_measure *e;
		lineno++;
		line[strcspn(line, "\r\n")] = 0;
		if (lineno == 1) {
			if (strcmp(line, "program,kernel,axis,value,time_ms,"
				   "blocks_per_sm,limiting")) {
				gm_error("%s:1: not the header 'program,kernel,"
					 "axis,value,time_ms,blocks_per_sm,"
					 "limiting'", path);
				goto out;
			}
			continue;
		}
		if (!*line) {
			continue;
		}
		GM_ALLOC_GROW(m, n + 1, alloc);
		e = &m[n];
		if (split(line, fl, 7) < 0 || !*fl[0] || !*fl[1] ||
		    gm_sweep_axis_parse(fl[2], &e->axis) < 0) {
			gm_error("%s:%lu: not a point (program,kernel,axis,"
				 "value,time_ms,blocks_per_sm,limiting; axis "
				 "smem, regs or blocks)", path, lineno);
			goto out;
		}
		e->value = strtol(fl[3], &end1, 10);
		e->time_ms = strtod(fl[4], &end2);
		e->blocks_per_sm = (int)strtol(fl[5], &end3, 10);
		if (*end1 || !*fl[3] || *end2 || !*fl[4] || !(e->time_ms > 0) ||
		    *end3 || !*fl[5] || e->blocks_per_sm < 0) {
			gm_error("%s:%lu: value, time_ms (> 0) and blocks_per_sm "
				 "must be numbers", path, lineno);
			goto out;
		}
		own = gm_xrealloc(own, (nown + 3) * sizeof(*own));
		own[nown++] = gm_xstrdup(fl[0]);
		own[nown++] = gm_xstrdup(fl[1]);
		own[nown++] = gm_xstrdup(fl[6]);
		e->program = own[nown - 3];
		e->kernel = own[nown - 2];
		e->limiting = own[nown - 1];
		n++;
	}
	if (!n) {
		gm_error("%s: no points", path);
		goto out;
	}
	gm_sweep_cliffs(m, n, threshold / 100, &c, &nc);
	printf("## Performance range per kernel and axis\n\n"
	       "| program | kernel | axis | points | best (ms) | worst (ms) | "
	       "range (%%) |\n| --- | --- | --- | ---: | ---: | ---: | ---: |\n");
	for (size_t i = 0; i < n;) {
		size_t j = i + 1;
		double best = m[i].time_ms, worst = m[i].time_ms;
		while (j < n && !strcmp(m[j].program, m[i].program) &&
		       !strcmp(m[j].kernel, m[i].kernel) && m[j].axis == m[i].axis) {
			best = m[j].time_ms < best ? m[j].time_ms : best;
			worst = m[j].time_ms > worst ? m[j].time_ms : worst;
			j++;
		}
		printf("| %s | %s | %s | %zu | %.3f | %.3f | %.1f |\n",
		       m[i].program, m[i].kernel, gm_sweep_axis_name(m[i].axis),
		       j - i, best, worst, 100 * gm_sweep_range(m, i, j));
		i = j;
	}
	printf("\n## Cliffs (a jump above %g%% where the blocks per SM change)\n\n"
	       "| program | kernel | axis | from | to | time (ms) | jump (%%) | "
	       "blocks/SM | binding |\n| --- | --- | --- | ---: | ---: | --- | "
	       "---: | --- | --- |\n", threshold);
	for (size_t i = 0; i < nc; i++) {
		const struct gm_sweep_measure *a = &m[c[i].from], *b = &m[c[i].to];
		const struct gm_sweep_measure *fewer =
			a->blocks_per_sm < b->blocks_per_sm ? a : b;
		printf("| %s | %s | %s | %ld | %ld | %.3f -> %.3f | %.1f | "
		       "%d -> %d | %s |\n", a->program, a->kernel,
		       gm_sweep_axis_name(a->axis), a->value, b->value,
		       a->time_ms, b->time_ms, 100 * c[i].jump,
		       a->blocks_per_sm, b->blocks_per_sm,
		       *fewer->limiting ? fewer->limiting : "-");
	}
	if (!nc) {
		printf("(none)\n");
	}
	ret = GM_EXIT_OK;
out:
	if (ret != GM_EXIT_OK) {
		gm_cli_fail();
	}
	fclose(f);
	free(line);
	free(m);
	free(c);
	for (size_t i = 0; i < nown; i++) {
		free(own[i]);
	}
	free(own);
	return ret;
}

int cmd_sweep(int argc, char **argv)
{
	struct gm_opt_parser op;
	const struct gm_device_limits *dev = &gm_device_h100;
	int mode = 0, c, threshold_given = 0, device_given = 0;
	double threshold = 20;
	char *end;

	gm_opt_init(&op, &gm_sweep_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		switch (c) {
		case OPT_PLAN:
		case OPT_CLIFFS:
			if (mode && mode != c) {
				return gm_usage_error(usage, "--plan and --cliffs "
						      "exclude each other");
			}
			mode = c;
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
		return gm_usage_error(usage, "--plan or --cliffs? (the sweep's "
				      "GPU runs are not implemented yet)");
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
