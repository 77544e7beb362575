/* SPDX-License-Identifier: MIT */
/*
 * gpumix scale: SM-scalability curves of captured programs
 * (doc/gpumix-scale.md). Each bundle is reconstructed once and replayed
 * alone on the whole GPU (variant cuda) and in green partitions of every
 * size the device allows (variant green, --sm-share, one partition group
 * more each time); the run directories give, per program and per kernel,
 * the time against the SM count and the knee (analyze/scale_curve.c).
 * The partition sizes come from the first green run's manifest (the split
 * the driver made), never from an assumed granularity. The reconstruct
 * and replays are this gpumix run as child processes, their output in
 * DIR/logs/.
 *
 * With --stretch, the SM-stretch microbenchmark instead (doc/spmd-model.md,
 * analyze/stretch_curve.c): each bundle reconstructed with its elastic
 * modules and replayed alone once as captured (--elastic identity) and
 * once per k = 1, 2, ... with --elastic sm=K, k blocks on every SM, until
 * no launch can have k (every kernel at its resident maximum or grid).
 */
#include <errno.h>
#include <getopt.h>
#include <inttypes.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "analyze/scale_curve.h"
#include "analyze/stretch_curve.h"
#include "atomic_file.h"
#include "cli.h"
#include "cli_knob.h"
#include "error.h"
#include "gnuplot_program.h"
#include "fs.h"
#include "kvfile.h"
#include "output_dir.h"
#include "replay_opts.h"
#include "run_command.h"
#include "strbuf.h"

static const char usage[] =
	"usage: gpumix scale [-o DIR] [--replays R] [--watchdog SECONDS]\n"
	"                    [--force] [--no-plot] [--stretch [--max-per-sm K]]\n"
	"                    BUNDLE...";

static const char help[] =
	"\n"
	"Replay each captured program alone on the whole GPU and in green\n"
	"partitions of every size the device allows, and report its time and\n"
	"its kernels' against the SM count, with the knee: the smallest\n"
	"partition within 5% of the whole GPU's time (doc/gpumix-scale.md).\n"
	"\n"
	"  -o, --output DIR    output directory (default: scale)\n"
	"  --replays R         replays per size (gpumix replay --min-replays;\n"
	"                      default 3, from 2 to 1000)\n"
	"  --watchdog SECONDS  per replay (default 120)\n"
	"  --force             replace an existing DIR (only one gpumix scale\n"
	"                      wrote)\n"
	"  --no-plot           do not draw the curves (gnuplot not needed)\n"
	"  --stretch           the SM-stretch microbenchmark instead: each kernel\n"
	"                      with exactly k blocks resident on every SM, k = 1\n"
	"                      .. its maximum (--elastic sm=K), giving T(k) and\n"
	"                      TSM_str(k) (doc/spmd-model.md)\n"
	"  --max-per-sm K      with --stretch: stop at k = K (default 32, the\n"
	"                      H100's cap)\n"
	"\n"
	"Writes DIR/scale.csv, DIR/knees.csv, DIR/scale.md (also printed) and,\n"
	"when gnuplot runs, DIR/scale-PROGRAM.png; with --stretch\n"
	"DIR/stretch.csv and DIR/stretch.md (also printed). DIR/runs/ keeps the\n"
	"run directories, DIR/logs/ the output of each step.\n"
	"\n"
	"exit status: 0 ok; 1 error; 2 usage error.\n";

struct scale_opts {
	const char *dir;
	unsigned replays;
	double watchdog_s;
	int force, plot, stretch;
	unsigned max_per_sm;
	char exe[PATH_MAX];
};

/* Run this gpumix with @argv (NULL-terminated, argv[0] unused), its
 * output into @log. 0, or -1 with a cause naming the log. */
static int run_gpumix(const struct scale_opts *o, const char *log,
		      const char *what, char **argv)
{
	struct gm_run_command c = { .argv = argv, .path = o->exe,
				    .output = log };
	struct gm_run_result r;

	argv[0] = (char *)o->exe;
	if (gm_run_command(&c, &r, NULL, NULL)) {
		return -1;
	}
	if (r.signal || r.exit_code) {
		gm_error("%s failed (%s %d; its output: %s)", what,
			 r.signal ? "signal" : "exit status",
			 r.signal ? r.signal : r.exit_code, log);
		return -1;
	}
	return 0;
}

static int manifest_u64(const char *run, const char *key, uint64_t *out)
{
	char *path = gm_path_join(run, "manifest");
	struct kvfile kv;
	int ret;

	kvfile_init(&kv);
	ret = kvfile_read(&kv, path);
	if (!ret) {
		ret = kvfile_get_u64(&kv, key, out, path);
	}
	kvfile_release(&kv);
	free(path);
	return ret;
}

static char *manifest_str(const char *run, const char *key)
{
	char *path = gm_path_join(run, "manifest");
	struct kvfile kv;
	char *v = NULL;

	kvfile_init(&kv);
	if (!kvfile_read(&kv, path) && kvfile_get(&kv, key)) {
		v = gm_xstrdup(kvfile_get(&kv, key));
	} else {
		gm_error("'%s': no '%s'", path, key);
	}
	kvfile_release(&kv);
	free(path);
	return v;
}

/* One replay of build @build alone: variant @variant, @share or NULL,
 * --elastic @elastic or NULL. */
static int replay(const struct scale_opts *o, const char *build,
		  const char *variant, const char *share, const char *elastic,
		  const char *run, const char *log, const char *what)
{
	char reps[16], wd[32];
	char *argv[18];
	int n = 1;

	snprintf(reps, sizeof(reps), "%u", o->replays);
	snprintf(wd, sizeof(wd), "%g", o->watchdog_s);
	argv[n++] = "-q";
	argv[n++] = "replay";
	argv[n++] = "--variant";
	argv[n++] = (char *)variant;
	if (share) {
		argv[n++] = "--sm-share";
		argv[n++] = (char *)share;
	}
	if (elastic) {
		argv[n++] = "--elastic";
		argv[n++] = (char *)elastic;
	}
	argv[n++] = "--min-replays";
	argv[n++] = reps;
	argv[n++] = "--watchdog";
	argv[n++] = wd;
	argv[n++] = "-o";
	argv[n++] = (char *)run;
	argv[n++] = (char *)build;
	argv[n] = NULL;
	return run_gpumix(o, log, what, argv);
}

static char *base_name(const char *path)
{
	size_t len = strlen(path);
	const char *s;

	while (len > 1 && path[len - 1] == '/') {
		len--;
	}
	s = path + len;
	while (s > path && s[-1] != '/') {
		s--;
	}
	return gm_xasprintf("%.*s", (int)(path + len - s), s);
}

/*
 * A partition size the program cannot run in (a cooperative launch sized
 * to the whole GPU, shared memory it cannot have): a property of the
 * program, said with the run's own reason; the other sizes go on.
 */
static void cannot_run(const char *name, uint64_t sms, const char *run)
{
	char *why;

	gm_error_clear();
	why = manifest_str(run, "failure");
	gm_error_clear();
	gm_warning("scale: %s: cannot run on %" PRIu64 " SMs: %s", name, sms,
		   why ? why : "its replay failed (no reason recorded)");
	free(why);
}

/*
 * The curve of @bundle into @sc: 0 when every size was measured, 1 when
 * some partition sizes could not run (said), -1 on an error.
 */
static int scale_bundle(const struct scale_opts *o, const char *bundle,
			struct gm_scale *sc)
{
	char *name = base_name(bundle);
	char *build = gm_xasprintf("%s/builds/%s", o->dir, name);
	char *log = NULL, *run = NULL, *prog = NULL, *what = NULL;
	uint64_t full_sms, group, groups, all_sms;
	int ret = -1, partial = 0, r;

	log = gm_xasprintf("%s/logs/%s.reconstruct.log", o->dir, name);
	{
		char *argv[] = { NULL, "-q", "reconstruct", "--variant",
				 "green", "-o", build, (char *)bundle, NULL };
		what = gm_xasprintf("the reconstruct of '%s'", bundle);
		if (run_gpumix(o, log, what, argv) < 0) {
			goto out;
		}
	}

	/* The whole GPU: the cuda variant, in the primary context. */
	free(log);
	free(run);
	free(what);
	log = gm_xasprintf("%s/logs/%s.full.log", o->dir, name);
	run = gm_xasprintf("%s/runs/%s.full", o->dir, name);
	what = gm_xasprintf("the replay of '%s' on the whole GPU", name);
	gm_note("scale: %s: the whole GPU", name);
	if (replay(o, build, "cuda", NULL, NULL, run, log, what) < 0 ||
	    manifest_u64(run, "device.sm_count", &full_sms) < 0 ||
	    !(prog = manifest_str(run, "program.0.name")) ||
	    gm_scale_add_run(sc, run, (unsigned)full_sms) < 0) {
		goto out;
	}

	/* Every partition group: the split the driver makes. */
	free(log);
	free(run);
	free(what);
	log = gm_xasprintf("%s/logs/%s.green.log", o->dir, name);
	run = gm_xasprintf("%s/runs/%s.green", o->dir, name);
	what = gm_xasprintf("the replay of '%s' in one green partition of "
			    "every group", name);
	gm_note("scale: %s: green, every partition group", name);
	/* A replay that failed after the split still says what it was. */
	r = replay(o, build, "green", NULL, NULL, run, log, what);
	if (manifest_u64(run, "green.group_sms", &group) < 0 ||
	    manifest_u64(run, "green.groups", &groups) < 0 ||
	    manifest_u64(run, "program.0.sm_count", &all_sms) < 0) {
		goto out;
	}
	if (r < 0) {
		cannot_run(name, all_sms, run);
		partial = 1;
	} else if (all_sms != full_sms &&
		   gm_scale_add_run(sc, run, (unsigned)all_sms) < 0) {
		goto out;
	}
	for (uint64_t k = 1; k < groups; k++) {
		uint64_t sms = k * group, got;
		char *share = gm_xasprintf("%s=%" PRIu64, prog, sms);
		int r;

		free(log);
		free(run);
		free(what);
		log = gm_xasprintf("%s/logs/%s.%" PRIu64 ".log", o->dir, name, sms);
		run = gm_xasprintf("%s/runs/%s.%" PRIu64, o->dir, name, sms);
		what = gm_xasprintf("the replay of '%s' on %" PRIu64 " SMs",
				    name, sms);
		gm_note("scale: %s: %" PRIu64 " SMs", name, sms);
		r = replay(o, build, "green", share, NULL, run, log, what);
		free(share);
		if (r < 0) {
			cannot_run(name, sms, run);
			partial = 1;
			continue;
		}
		if (manifest_u64(run, "program.0.sm_count", &got) < 0) {
			goto out;
		}
		if (got != sms) {
			gm_error("'%s': the green context has %" PRIu64 " SMs, "
				 "not the %" PRIu64 " asked for", run, got, sms);
			goto out;
		}
		if (gm_scale_add_run(sc, run, (unsigned)sms) < 0) {
			goto out;
		}
	}
	ret = partial;
out:
	if (ret < 0) {
		gm_error("cannot measure the scaling of '%s'", bundle);
	}
	free(name);
	free(build);
	free(log);
	free(run);
	free(what);
	free(prog);
	return ret;
}

/*
 * The SM-stretch curves of @bundle into @st: its elastic build replayed
 * as captured, then with k = 1, 2, ... blocks on every SM until no
 * launch has k or k passes --max-per-sm. 0, or -1 on an error.
 */
static int stretch_bundle(const struct scale_opts *o, const char *bundle,
			  struct gm_stretch *st)
{
	char *name = base_name(bundle);
	char *build = gm_xasprintf("%s/builds/%s", o->dir, name);
	char *log, *run = NULL, *what;
	int ret = -1;

	log = gm_xasprintf("%s/logs/%s.reconstruct.log", o->dir, name);
	what = gm_xasprintf("the reconstruct of '%s'", bundle);
	{
		char *argv[] = { NULL, "-q", "reconstruct", "--variant",
				 "single", "--elastic", "-o", build,
				 (char *)bundle, NULL };
		if (run_gpumix(o, log, what, argv) < 0) {
			goto out;
		}
	}
	for (unsigned k = 0; k <= o->max_per_sm; k++) {
		char mode[32];
		size_t exact = 0;

		free(log);
		free(run);
		free(what);
		if (!k) {
			snprintf(mode, sizeof(mode), "identity");
		} else {
			snprintf(mode, sizeof(mode), "sm=%u", k);
		}
		log = gm_xasprintf("%s/logs/%s.%s.log", o->dir, name, mode);
		run = gm_xasprintf("%s/runs/%s.%s", o->dir, name, mode);
		what = gm_xasprintf("the replay of '%s' with --elastic %s", name,
				    mode);
		gm_note("scale: %s: --elastic %s", name, mode);
		if (replay(o, build, "single", NULL, mode, run, log, what) < 0) {
			goto out;
		}
		if (!k) {
			if (gm_stretch_add_identity(st, run) < 0) {
				goto out;
			}
			continue;
		}
		if (gm_stretch_add_run(st, run, k, &exact) < 0) {
			goto out;
		}
		if (!exact) {
			gm_note("scale: %s: no launch holds %u blocks on every "
				"SM: every kernel is at its resident maximum or "
				"its grid", name, k);
			break;
		}
	}
	ret = 0;
out:
	if (ret < 0) {
		gm_error("cannot measure the SM stretch of '%s'", bundle);
	}
	free(name);
	free(build);
	free(log);
	free(run);
	free(what);
	return ret;
}

static int write_text(const char *path, const char *text, size_t len)
{
	return gm_write_file_atomic(path, text, len, 1);
}

/* Write @s through gm_scale_write() into the three files of @dir. */
static int write_tables(const char *dir, const struct gm_scale *s,
			struct strbuf *md_out)
{
	char *buf[3] = { NULL, NULL, NULL };
	size_t len[3] = { 0, 0, 0 };
	FILE *f[3];
	static const char *const names[] = { "scale.csv", "knees.csv",
					     "scale.md" };
	int ret = 0;

	for (int i = 0; i < 3; i++) {
		f[i] = open_memstream(&buf[i], &len[i]);
		if (!f[i]) {
			return gm_error_errno("cannot write the tables");
		}
	}
	gm_scale_write(s, f[0], f[1], f[2]);
	for (int i = 0; i < 3; i++) {
		char *path = gm_path_join(dir, names[i]);
		fclose(f[i]);
		if (!ret && write_text(path, buf[i], len[i]) < 0) {
			ret = -1;
		}
		free(path);
	}
	strbuf_add(md_out, buf[2], len[2]);
	for (int i = 0; i < 3; i++) {
		free(buf[i]);
	}
	return ret;
}

/* DIR/stretch.csv and DIR/stretch.md, the latter also into @md_out. */
static int write_stretch(const char *dir, const struct gm_stretch *st,
			 struct strbuf *md_out)
{
	char *buf[2] = { NULL, NULL };
	size_t len[2] = { 0, 0 };
	FILE *f[2];
	static const char *const names[] = { "stretch.csv", "stretch.md" };
	int ret = 0;

	for (int i = 0; i < 2; i++) {
		f[i] = open_memstream(&buf[i], &len[i]);
		if (!f[i]) {
			return gm_error_errno("cannot write the tables");
		}
	}
	gm_stretch_write(st, f[0], f[1]);
	for (int i = 0; i < 2; i++) {
		char *path = gm_path_join(dir, names[i]);
		fclose(f[i]);
		if (!ret && write_text(path, buf[i], len[i]) < 0) {
			ret = -1;
		}
		free(path);
	}
	strbuf_add(md_out, buf[1], len[1]);
	free(buf[0]);
	free(buf[1]);
	return ret;
}

/* One PNG per program: its curve and its kernels', time against SMs. */
static int plot(const char *dir, const struct gm_scale *s)
{
	struct strbuf gp = STRBUF_INIT;
	char *path = gm_path_join(dir, "scale.gp");
	const char *gnuplot = gm_gnuplot_program();
	char *argv[] = { (char *)gnuplot, "scale.gp", NULL };
	int ret = -1;

	strbuf_addstr(&gp, "set terminal pngcairo size 900,560\n"
		      "set datafile separator ','\n"
		      "set xlabel 'SMs'\nset ylabel 'time (ms)'\n"
		      "set logscale y\nset key outside right\nset grid\n");
	for (size_t i = 0; i < s->nr; i++) {
		const struct gm_scale_curve *c = &s->curves[i];
		int first = 1;
		if (c->kernel) {
			continue;
		}
		strbuf_addf(&gp, "set output 'scale-%s.png'\nset title '%s: "
			    "time against SMs (green partitions)'\nplot",
			    c->program, c->program);
		for (size_t k = 0; k < s->nr; k++) {
			const struct gm_scale_curve *e = &s->curves[k];
			if (strcmp(e->program, c->program)) {
				continue;
			}
			strbuf_addf(&gp, "%s 'scale.csv' using "
				    "(strcol(1) eq '%s' && strcol(2) eq '%s' ? "
				    "$3 : NaN):4 with linespoints "
				    "title '%s'", first ? "" : ",", c->program,
				    e->kernel ? e->kernel : "",
				    e->kernel ? e->kernel : "(program)");
			first = 0;
		}
		strbuf_addstr(&gp, "\n");
	}
	if (write_text(path, gp.buf, gp.len) < 0) {
		goto out;
	}
	{
		char *log = gm_path_join(dir, "gnuplot.log");
		struct gm_run_command c = { .argv = argv, .search_path = 1,
					    .cwd = dir, .output = log };
		struct gm_run_result r;
		int bad = gm_run_command(&c, &r, NULL, NULL) || r.signal ||
			  r.exit_code;
		free(log);
		if (bad) {
			gm_error("gnuplot failed (see '%s/gnuplot.log')", dir);
			goto out;
		}
	}
	ret = 0;
out:
	strbuf_release(&gp);
	free(path);
	return ret;
}

static const struct option scale_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "replays", required_argument, NULL, 'r' },
	{ "watchdog", required_argument, NULL, 'w' },
	{ "force", no_argument, NULL, 'f' },
	{ "no-plot", no_argument, NULL, 'n' },
	{ "stretch", no_argument, NULL, 's' },
	{ "max-per-sm", required_argument, NULL, 'k' },
	{ NULL, 0, NULL, 0 },
};

const struct gm_cmd_options gm_scale_options = {
	.shorts = "o:",
	.longopts = scale_longopts,
};

/*
 * The command line into @o, the bundles into @bundles and @nr. Returns 0
 * to go on, -1 after --help, or the exit status of a usage error
 * (printed).
 */
static int parse(int argc, char **argv, struct scale_opts *o,
		 char ***bundles, int *nr)
{
	struct gm_opt_parser op;
	int max_given = 0;
	char *end;
	double knob;
	int c;

	gm_opt_init(&op, &gm_scale_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		switch (c) {
		case 'o':
			o->dir = op.arg;
			break;
		case 'r':
			if (gm_cli_knob_arg(GM_KNOB_MIN_REPLAYS, "--replays",
					    op.arg, &knob, usage)) {
				return GM_EXIT_USAGE;
			}
			o->replays = (unsigned)knob;
			break;
		case 'w':
			if (gm_cli_knob_arg(GM_KNOB_WATCHDOG, "--watchdog",
					    op.arg, &o->watchdog_s, usage)) {
				return GM_EXIT_USAGE;
			}
			break;
		case 'f':
			o->force = 1;
			break;
		case 'n':
			o->plot = 0;
			break;
		case 's':
			o->stretch = 1;
			break;
		case 'k': {
			unsigned long v = strtoul(op.arg, &end, 10);
			if (*end || !*op.arg || *op.arg == '-' || v < 1 ||
			    v > 1024) {
				return gm_usage_error(usage, "--max-per-sm takes "
						      "an integer from 1 to "
						      "1024");
			}
			o->max_per_sm = (unsigned)v;
			max_given = 1;
			break;
		}
		case 'h':
			printf("%s\n%s", usage, help);
			return -1;
		default:
			return GM_EXIT_USAGE;
		}
	}
	if (op.ind == argc) {
		return gm_usage_error(usage, "no bundle given");
	}
	if (max_given && !o->stretch) {
		return gm_usage_error(usage, "--max-per-sm needs --stretch");
	}
	*bundles = argv + op.ind;
	*nr = argc - op.ind;
	return 0;
}

/*
 * Whether each of the @nr @bundles exists and no two have one name.
 * Returns 0, or the exit status of the error (printed).
 */
static int check_bundles(char **bundles, int nr)
{
	for (int i = 0; i < nr; i++) {
		char *name = base_name(bundles[i]);
		int dup = 0;
		for (int j = 0; j < i && !dup; j++) {
			char *other = base_name(bundles[j]);
			dup = !strcmp(name, other);
			free(other);
		}
		free(name);
		if (!gm_is_dir(bundles[i])) {
			gm_error("bundle '%s' does not exist", bundles[i]);
			return gm_cli_fail();
		}
		if (dup) {
			return gm_usage_error(usage, "two bundles are called "
					      "'%s'", bundles[i]);
		}
	}
	return 0;
}

/*
 * The output directory of @o, new (an old one of gpumix scale replaced
 * with --force), with its logs/ and runs/. 0, or -1 with a cause.
 */
static int prepare_output(const struct scale_opts *o)
{
	char *logs, *runs;
	int bad;

	if (gm_path_exists(o->dir)) {
		if (!o->force) {
			gm_error("'%s' exists", o->dir);
			gm_error_hint("use --force to replace it, or -o DIR");
			return -1;
		}
		if (gm_output_remove(o->dir, GM_OUTPUT_SCALE) < 0) {
			return -1;
		}
	}
	logs = gm_path_join(o->dir, "logs");
	runs = gm_path_join(o->dir, "runs");
	bad = gm_mkdir_p(logs, 0777) < 0 || gm_mkdir_p(runs, 0777) < 0 ||
	      gm_output_mark(o->dir, GM_OUTPUT_SCALE) < 0;
	free(logs);
	free(runs);
	return bad ? -1 : 0;
}

/*
 * Measure the @nr @bundles as @o asks, write the tables (and plots) into
 * its directory and print them. Returns the command's exit status.
 */
static int measure(const struct scale_opts *o, char **bundles, int nr)
{
	struct gm_scale sc = GM_SCALE_INIT;
	struct gm_stretch st = GM_STRETCH_INIT;
	struct strbuf md = STRBUF_INIT;
	int ret = GM_EXIT_ERROR, failed = 0, partial = 0;

	/* One program that cannot be measured does not stop the others. */
	for (int i = 0; i < nr; i++) {
		int r = o->stretch ? stretch_bundle(o, bundles[i], &st)
				   : scale_bundle(o, bundles[i], &sc);
		if (r < 0) {
			gm_error_report(stderr);
			failed++;
		} else if (r > 0) {
			partial++;
		}
	}
	if (o->stretch) {
		if (write_stretch(o->dir, &st, &md) < 0) {
			goto out;
		}
	} else {
		gm_scale_sort(&sc);
		if (write_tables(o->dir, &sc, &md) < 0) {
			goto out;
		}
	}
	fwrite(md.buf, 1, md.len, stdout);
	if (o->plot && !o->stretch) {
		if (!gm_program_exists(gm_gnuplot_program())) {
			gm_note("scale: no plot: '%s' is not installed (Debian: "
				"gnuplot-nox)", gm_gnuplot_program());
		} else if (plot(o->dir, &sc) < 0) {
			goto out;
		}
	}
	gm_note("scale: %d program%s measured (%d with sizes they cannot run "
		"in), %d could not be, tables in '%s'", nr - failed,
		nr - failed == 1 ? "" : "s", partial, failed, o->dir);
	if (failed) {
		gm_error("%d of %d programs could not be measured (above)", failed,
			 nr);
		goto out;
	}
	ret = GM_EXIT_OK;
out:
	if (ret != GM_EXIT_OK) {
		gm_cli_fail();
	}
	gm_scale_release(&sc);
	gm_stretch_release(&st);
	strbuf_release(&md);
	return ret;
}

int cmd_scale(int argc, char **argv)
{
	struct scale_opts o = { .dir = "scale", .replays = 3,
				.watchdog_s = 120, .plot = 1,
				.max_per_sm = 32 };
	char **bundles = NULL;
	int nr = 0, ret;
	ssize_t n;

	ret = parse(argc, argv, &o, &bundles, &nr);
	if (ret) {
		return ret < 0 ? GM_EXIT_OK : ret;
	}
	n = readlink("/proc/self/exe", o.exe, sizeof(o.exe) - 1);
	if (n <= 0) {
		gm_error_errno("cannot find the gpumix binary (/proc/self/exe)");
		return gm_cli_fail();
	}
	o.exe[n] = 0;
	ret = check_bundles(bundles, nr);
	if (ret) {
		return ret;
	}
	if (prepare_output(&o) < 0) {
		return gm_cli_fail();
	}
	return measure(&o, bundles, nr);
}
