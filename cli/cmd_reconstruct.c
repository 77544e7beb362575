/* SPDX-License-Identifier: MIT */
/*
 * gpumix reconstruct: read the trace bundles of n programs and write the
 * replay program of that workload (generated C plus its data files) for
 * `gpumix replay`. The work is reconstruct/recon.c (reading, the model)
 * and reconstruct/recon_dir.c (the output directory); this file parses
 * the command line, shows progress and prints what they report.
 */
#include <getopt.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "cli.h"
#include "clock.h"
#include "error.h"
#include "output_dir.h"
#include "reconstruct/model/codegen.h"
#include "reconstruct/model/model.h"
#include "reconstruct/recon.h"
#include "reconstruct/recon_dir.h"
#include "reconstruct/recon_elastic.h"
#include "strbuf.h"
#include "variant.h"

static const char usage[] =
	"usage: gpumix reconstruct [--variant V] [-o DIR] [--force]\n"
	"                          [--allow-unsupported] [--allow-failed-calls]\n"
	"                          [--nondeterministic NAME]...\n"
	"                          [--elastic [--elastic-arch sm_NN]] BUNDLE...";

static const char help_head[] =
	"\n"
	"Generate the replay program of the workload made of the programs\n"
	"captured in BUNDLE... (one program per bundle, named after the bundle\n"
	"directory): generated C and the data it replays, for gpumix replay.\n"
	"The program is the same for every variant: gpumix replay --variant\n"
	"chooses the concurrency mechanism each time it runs it.\n"
	"\n"
	"  --variant V            only the program's default variant, used by\n"
	"                         gpumix replay without --variant (default:\n"
	"                         %s); one of: %s\n";

static const char help[] =
	"  -o, --output DIR       output directory (default build/<workload>.<variant>;\n"
	"                         '-' prints the generated C only)\n"
	"  --force                replace an existing DIR (only a build gpumix\n"
	"                         wrote)\n"
	"  --allow-unsupported    skip calls gpumix cannot replay (each one is a\n"
	"                         warning) instead of stopping\n"
	"  --allow-failed-calls   reconstruct a program whose own CUDA calls\n"
	"                         failed with an error (an illegal address, ...):\n"
	"                         the failed calls are not replayed\n"
	"  --nondeterministic NAME  do not verify the results of program NAME\n"
	"                         (repeatable)\n"
	"  --elastic              also write the elastic modules (DIR/elastic/):\n"
	"                         the PTX of every module made elastic and, with\n"
	"                         ptxas, assembled with register caps, plus the\n"
	"                         class of every kernel (elastic/kernels.tsv);\n"
	"                         gpumix replay --elastic runs them\n"
	"  --elastic-arch sm_NN   which PTX to use and what to assemble for\n"
	"                         (default: the captured device, else sm_90)\n"
	"\n"
	"Warnings (calls not replayed, pointers that cannot be relocated) go to\n"
	"stderr; -v adds per-program counts, -q drops progress and the summary.\n"
	"\n"
	"exit status: 0 ok; 1 error (an unreadable, incomplete or lossy bundle,\n"
	"a call that cannot be replayed, unsupported calls, a program whose\n"
	"calls failed); 2 usage error;\n"
	"130 interrupted.\n";

struct opts {
	const char *variant, *out;
	int force, allow_unsupported, allow_failed, elastic;
	const char *elastic_arch;
	const char **nondet;
	size_t nr_nondet, alloc_nondet;
	const char *const *bundles;
	size_t nr_bundles;
};

/* ---- interruption and progress on a terminal ---- */

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	(void)sig;
	interrupted = 1;
}

struct progress {
	int tty;
	double start, last;
	size_t nr_bundles;
	int shown;
};

static int progress(void *ctx, size_t index, const char *prog, uint64_t done,
		    uint64_t total)
{
	struct progress *pr = ctx;
	double t = gm_now_s();

	if (interrupted) {
		return -1;
	}
	if (!pr->tty || t - pr->start < 0.5 || t - pr->last < 0.1) {
		return 0;
	}
	pr->last = t;
	pr->shown = 1;
	if (total) {
		fprintf(stderr, "\rreconstruct: %s (%zu/%zu): %" PRIu64 " of %"
			PRIu64 " events (%.0f%%)\033[K", prog, index + 1,
			pr->nr_bundles, done, total,
			100.0 * (double)done / (double)total);
	} else {
		fprintf(stderr, "\rreconstruct: %s (%zu/%zu): %" PRIu64
			" events\033[K", prog, index + 1, pr->nr_bundles, done);
	}
	fflush(stderr);
	return 0;
}

static void progress_end(struct progress *pr)
{
	if (pr->shown) {
		fputs("\r\033[K", stderr);
		pr->shown = 0;
	}
}

static const struct option reconstruct_longopts[] = {
	{ "variant", required_argument, NULL, 'V' },
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "allow-unsupported", no_argument, NULL, 'u' },
	{ "allow-failed-calls", no_argument, NULL, 'F' },
	{ "nondeterministic", required_argument, NULL, 'n' },
	{ "elastic", no_argument, NULL, 'e' },
	{ "elastic-arch", required_argument, NULL, 'a' },
	{ NULL, 0, NULL, 0 },
};

const struct gm_cmd_options gm_reconstruct_options = {
	.shorts = "o:",
	.longopts = reconstruct_longopts,
};

/* ---- the command ---- */

static int parse(int argc, char **argv, struct opts *o)
{
	struct gm_opt_parser op;
	unsigned sm;
	int c;

	gm_opt_init(&op, &gm_reconstruct_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		switch (c) {
		case 'V':
			o->variant = op.arg;
			break;
		case 'o':
			if (!*op.arg) {
				return gm_usage_error(usage, "-o needs a "
						      "directory");
			}
			o->out = op.arg;
			break;
		case 'f':
			o->force = 1;
			break;
		case 'u':
			o->allow_unsupported = 1;
			break;
		case 'F':
			o->allow_failed = 1;
			break;
		case 'n':
			GM_ALLOC_GROW(o->nondet, o->nr_nondet + 1,
				      o->alloc_nondet);
			o->nondet[o->nr_nondet++] = op.arg;
			break;
		case 'e':
			o->elastic = 1;
			break;
		case 'a':
			if (sscanf(op.arg, "sm_%u", &sm) != 1 || sm < 50) {
				return gm_usage_error(usage, "bad --elastic-arch "
						      "'%s' (expected sm_NN, "
						      "e.g. sm_90)", op.arg);
			}
			o->elastic_arch = op.arg;
			break;
		case 'h':
			printf("%s\n", usage);
			printf(help_head, recon_default_variant(),
			       gm_variant_implemented_list());
			fputs(help, stdout);
			return -1;
		default:
			return GM_EXIT_USAGE;
		}
	}
	if (!o->variant) {
		o->variant = recon_default_variant();
	}
	if (recon_variant_check(o->variant) < 0) {
		int rc = gm_usage_error(usage, "%s", gm_error_message());
		gm_error_clear();
		return rc;
	}
	if (op.ind == argc) {
		return gm_usage_error(usage, "which bundles?");
	}
	if (o->elastic_arch && !o->elastic) {
		return gm_usage_error(usage, "--elastic-arch needs --elastic");
	}
	if (o->elastic && o->out && !strcmp(o->out, "-")) {
		return gm_usage_error(usage, "--elastic writes files: it needs "
				      "an output directory, not '-o -'");
	}
	o->bundles = (const char *const *)argv + op.ind;
	o->nr_bundles = (size_t)(argc - op.ind);
	return 0;
}

/* Warnings always; per-program counts with -v. */
static void print_report(const char *report)
{
	const char *line = report;

	while (*line) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (strncmp(line, "program '", 9) || gm_cli.verbosity > 0) {
			fprintf(stderr, "%.*s\n", (int)len, line);
		}
		line += len + (nl != NULL);
	}
}

int cmd_reconstruct(int argc, char **argv)
{
	struct opts o;
	struct recon_opts ro;
	struct recon_stats st;
	struct progress pr;
	struct strbuf report = STRBUF_INIT, src = STRBUF_INIT;
	struct model *m = NULL;
	struct recon_elastic_opts eo;
	struct recon_elastic_stats est;
	struct recon_dir_opts dopts;
	struct strbuf ereport = STRBUF_INIT;
	char *dir = NULL;
	double t0, gen_s;
	int ret = GM_EXIT_ERROR, rc;

	memset(&o, 0, sizeof(o));
	rc = parse(argc, argv, &o);
	if (rc) {
		free(o.nondet);
		return rc < 0 ? GM_EXIT_OK : rc;
	}
	memset(&pr, 0, sizeof(pr));
	pr.tty = gm_cli.verbosity >= 0 && isatty(STDERR_FILENO);
	pr.start = gm_now_s();
	pr.nr_bundles = o.nr_bundles;
	memset(&ro, 0, sizeof(ro));
	ro.variant = o.variant;
	ro.allow_unsupported = o.allow_unsupported;
	ro.allow_failed_calls = o.allow_failed;
	ro.nondeterministic = o.nondet;
	ro.nr_nondeterministic = o.nr_nondet;
	ro.progress = progress;
	ro.progress_ctx = &pr;

	/* Before the work: --force replaces a build, never what is not one. */
	if (o.force && o.out && strcmp(o.out, "-") &&
	    gm_output_may_replace(o.out, GM_OUTPUT_BUILD)) {
		goto out;
	}
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	rc = recon_build(&m, o.bundles, o.nr_bundles, &ro, &report, &st);
	progress_end(&pr);
	if (interrupted) {
		/* Nothing was written: the output appears only whole. */
		gm_error_clear();
		gm_error("interrupted: nothing written");
		gm_error_report(stderr);
		ret = GM_EXIT_INTERRUPTED;
		goto out;
	}
	print_report(report.buf);
	if (rc < 0) {
		goto out;
	}
	t0 = gm_now_s();
	if (o.out && !strcmp(o.out, "-")) {
		if (codegen_write(m, &src) < 0) {
			goto out;
		}
		if (fwrite(src.buf, 1, src.len, stdout) != src.len ||
		    fflush(stdout) != 0) {
			gm_error_errno("cannot write the generated C");
			goto out;
		}
	} else {
		dir = o.out ? gm_xstrdup(o.out) :
			      gm_xasprintf("build/%s.%s", model_name(m),
					   o.variant);
		memset(&eo, 0, sizeof(eo));
		memset(&est, 0, sizeof(est));
		memset(&dopts, 0, sizeof(dopts));
		eo.arch = o.elastic_arch;
		dopts.force = o.force;
		dopts.elastic = o.elastic ? &eo : NULL;
		dopts.report = &ereport;
		dopts.elastic_stats = &est;
		rc = recon_dir_write(m, dir, &dopts);
		print_report(ereport.buf);
		if (rc < 0) {
			goto out;
		}
		if (o.elastic && gm_cli.verbosity >= 0) {
			gm_note("reconstruct: elastic (%s): %zu of %zu code "
				"images transformed; %zu kernels: %zu "
				"thread-elastic, %zu block-elastic, %zu not "
				"elastic; %s", est.arch, est.transformed,
				est.images, est.kernels, est.thread, est.block,
				est.none, est.assembled ? "cubins assembled" :
				"PTX only");
			if (est.kept) {
				gm_note("reconstruct: elastic: %zu code images "
					"keep their code (the 'elastic:' lines "
					"above say why)", est.kept);
			}
		}
	}
	gen_s = gm_now_s() - t0;
	if (interrupted) {
		gm_error("interrupted (the output was complete and is kept)");
		gm_error_report(stderr);
		ret = GM_EXIT_INTERRUPTED;
		goto out;
	}
	if (gm_cli.verbosity >= 0) {
		double rate = st.read_s > 0 ? (double)st.events / st.read_s : 0;
		struct strbuf where = STRBUF_INIT;
		if (dir) {
			strbuf_addf(&where, "wrote '%s'", dir);
		} else {
			strbuf_addstr(&where, "printed the C");
		}
		gm_note("reconstruct: '%s' (%s): %zu program%s, %" PRIu64
			" operations (%" PRIu64 " launches), %" PRIu64
			" events read in %.2f s (%.0f events/s); %s in %.2f s",
			model_name(m), o.variant, st.programs,
			st.programs == 1 ? "" : "s", st.ops, st.launches,
			st.events, st.read_s, rate, where.buf,
			st.finish_s + gen_s);
		strbuf_release(&where);
	}
	ret = GM_EXIT_OK;
out:
	if (ret == GM_EXIT_ERROR) {
		ret = gm_cli_fail();
	}
	model_free(m);
	strbuf_release(&report);
	strbuf_release(&ereport);
	strbuf_release(&src);
	free(dir);
	free(o.nondet);
	return ret;
}
