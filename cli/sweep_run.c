/* SPDX-License-Identifier: MIT */
/*
 * gpumix sweep --run (sweep_run.h, doc/gpumix-sweep.md): each bundle is
 * reconstructed once (its elastic modules included) and replayed alone
 * as captured (the base run: each kernel's resource specification as the
 * device ran it, and its time); then each kernel at each point of its
 * plan (analyze/sweep.h), one replay per point with the same work:
 *
 *   smem    gpumix replay --smem-pad KERNEL=BYTES
 *   regs    gpumix replay --kernel-module KERNEL=CUBIN, its captured PTX
 *           capped and reassembled (sweep_regs.c)
 *   blocks  gpumix replay --elastic sm=K, one run per K for every kernel
 *           (a kernel's point where its physical grid was K per SM)
 *
 * Every replay verifies its results; a point whose replay fails is named
 * and left out; one the replay refuses as impossible (a cooperative
 * launch its residency cannot hold) is named and is no point at all.
 * DIR/points.csv is saved after each point, so a sweep that stops goes
 * on where it was: the points it holds are kept.
 */
#include "sweep_run.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "analyze/sweep.h"
#include "analyze/sweep_kernels.h"
#include "analyze/sweep_report.h"
#include "atomic_file.h"
#include "cli.h"
#include "error.h"
#include "gnuplot_program.h"
#include "fs.h"
#include "kvfile.h"
#include "output_dir.h"
#include "replay_opts.h"
#include "run_command.h"
#include "strbuf.h"
#include "sweep_points.h"
#include "sweep_plot.h"
#include "sweep_regs.h"

struct sweep {
	const struct gm_sweep_run_opts *o;
	char exe[PATH_MAX];
	char *points_path;
	struct gm_sweep_points pts;
	size_t measured, kept, failed;
	size_t no_point;	/* points that cannot exist (no_point()) */
	int *kernel_hits;	/* per --kernel name, the kernels it took */
};

/* Run this gpumix with @argv (argv[0] set here), its output into @log.
 * 0; 1 when it was a replay that refused a point that cannot exist
 * (GM_REPLAY_EXIT_NO_POINT); or -1 with a cause naming @what and the
 * log. */
static int run_gpumix(struct sweep *s, const char *log, const char *what,
		      char **argv)
{
	struct gm_run_command cmd = { .argv = argv, .output = log };
	struct gm_run_result r;

	argv[0] = s->exe;
	if (gm_run_command(&cmd, &r, NULL, NULL) < 0) {
		return gm_error("cannot start %s", what);
	}
	if (!r.signal && r.exit_code == GM_REPLAY_EXIT_NO_POINT) {
		return 1;
	}
	if (r.signal || r.exit_code) {
		return gm_error("%s failed (%s %d; its output: %s)", what,
				r.signal ? "signal" : "exit status",
				r.signal ? r.signal : r.exit_code, log);
	}
	return 0;
}

/* One replay of @build alone into run @run, with the knob @opt @arg (or
 * none), then its kernels into @k. 0, 1 when the replay refused a point
 * that cannot exist (run_gpumix()), or -1. */
static int replay(struct sweep *s, const char *build, const char *run,
		  const char *opt, const char *arg, uint64_t grid_check,
		  struct gm_sweep_kernels *k)
{
	char reps[16], wd[32];
	char *log = gm_xasprintf("%s.log", run);
	char *what = gm_xasprintf("the replay '%s'", run);
	char *argv[20];
	int n = 1, ret;

	/* A run an earlier sweep finished is taken up (it stopped before
	 * saving the point, or the run serves several points). */
	if (!s->o->redo && gm_is_dir(run)) {
		if (gm_sweep_kernels_read(k, run, grid_check) == 0) {
			free(log);
			free(what);
			return 0;
		}
		gm_sweep_kernels_release(k);
		gm_error_clear();
	}
	snprintf(reps, sizeof(reps), "%u", s->o->replays);
	snprintf(wd, sizeof(wd), "%g", s->o->watchdog_s);
	argv[n++] = "-q";
	argv[n++] = "replay";
	argv[n++] = "--variant";
	argv[n++] = "single";
	if (opt) {
		argv[n++] = (char *)opt;
		argv[n++] = (char *)arg;
	}
	argv[n++] = "--min-replays";
	argv[n++] = reps;
	argv[n++] = "--watchdog";
	argv[n++] = wd;
	/* (a run of an earlier, stopped sweep whose point was not saved) */
	argv[n++] = "--force";
	argv[n++] = "-o";
	argv[n++] = (char *)run;
	argv[n++] = (char *)build;
	argv[n] = NULL;
	ret = run_gpumix(s, log, what, argv);
	if (!ret) {
		ret = gm_sweep_kernels_read(k, run, grid_check);
	}
	free(log);
	free(what);
	return ret;
}

static char *base_name(const char *path)
{
	size_t len = strlen(path);
	const char *b;

	while (len > 1 && path[len - 1] == '/') {
		len--;
	}
	b = path + len;
	while (b > path && b[-1] != '/') {
		b--;
	}
	return gm_xasprintf("%.*s", (int)(path + len - b), b);
}

/* Record a measured point and save the file (a sweep stopped after this
 * keeps it). */
static int add_point(struct sweep *s, const char *program, const char *kernel,
		     enum gm_sweep_axis axis, long value, double ms, int bps,
		     unsigned limiting)
{
	char res[64];
	struct gm_sweep_row r = {
		.program = (char *)program, .kernel = (char *)kernel,
		.axis = (char *)gm_sweep_axis_name(axis), .value = value,
		.time_ms = ms, .blocks_per_sm = bps,
		.limiting = limiting ? (char *)gm_resource_names(limiting, res,
								 sizeof(res))
				     : "elastic-grid",
	};

	gm_sweep_points_set(&s->pts, &r);
	s->measured++;
	return gm_sweep_points_save(&s->pts, s->points_path);
}

/*
 * A point that cannot exist: a cooperative launch of the kernel needs
 * more blocks per SM than the point leaves (bfs_coop's grid is 4 per SM
 * of an H200: its points of 3, 2 and 1 are not points). The replay said
 * so before running anything (GM_REPLAY_EXIT_NO_POINT); its reason,
 * from run @run's manifest, goes on one line. Counted apart from the
 * points that failed: the exit status stays 0.
 */
static void no_point(struct sweep *s, const char *program, const char *kernel,
		     enum gm_sweep_axis axis, long value, const char *run)
{
	char *path = gm_path_join(run, "manifest");
	struct kvfile kv;
	const char *why;

	kvfile_init(&kv);
	why = kvfile_read(&kv, path) == 0 ? kvfile_get(&kv, "failure") : NULL;
	gm_error_clear();
	gm_note("sweep: %s: %s: %s %ld cannot exist, not a point: %s", program,
		kernel, gm_sweep_axis_name(axis), value,
		why ? why : "the replay refused it (no reason recorded)");
	kvfile_release(&kv);
	free(path);
	s->no_point++;
}

/* A point that could not be measured: said, counted, the sweep goes on. */
static void point_failed(struct sweep *s, const char *program,
			 const char *kernel, enum gm_sweep_axis axis, long value)
{
	struct strbuf why = STRBUF_INIT;
	const char *c;

	/* the latest cause first, then what caused it */
	for (int i = 0; (c = gm_error_cause(i)); i++) {
		strbuf_addf(&why, "%s%s", i ? ": " : "", c);
	}
	gm_error_clear();
	gm_warning("sweep: %s: %s: %s %ld not measured: %s", program, kernel,
		   gm_sweep_axis_name(axis), value, why.len ? why.buf : "?");
	strbuf_release(&why);
	s->failed++;
}

struct bundle {
	char *name, *build, *prefix;	/* prefix: DIR/runs/NAME */
	char arch[16];
	int elastic;			/* reconstructed with --elastic */
	struct gm_sweep_kernels base;
	struct gm_sweep_kernels *blocks;	/* per K (index K - 1) */
	int *blocks_state;		/* 0 not run, 1 read, -1 failed */
	unsigned max_k;
	unsigned none_from;	/* a K where no kernel had K per SM (0: none) */
};

/* Whether kernel @k of a blocks run ran with exactly the K per SM asked
 * for on every launch (the elastic grid took it): only then a point. */
static int took_k(const struct gm_sweep_kernel *k)
{
	return k && k->launches && k->same_grid == k->launches;
}

/* Whether some kernel of blocks run @r took its K (took_k()). */
static int some_kernel_took(const struct gm_sweep_kernels *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		if (took_k(&r->k[i])) {
			return 1;
		}
	}
	return 0;
}

/* The run of every kernel at K blocks per SM, made once per bundle. */
static const struct gm_sweep_kernels *blocks_run(struct sweep *s,
						 struct bundle *b, unsigned k)
{
	/* A kernel the transform left alone, or whose grid is under K
	 * blocks per SM, has no point at K nor at any larger K: once no
	 * kernel took some K, the larger ones are not replayed. */
	if (b->none_from && k >= b->none_from) {
		return NULL;
	}
	if (!b->blocks_state[k - 1]) {
		char *run = gm_xasprintf("%s.blocks%u", b->prefix, k);
		char *mode = gm_xasprintf("sm=%u", k);
		gm_note("sweep: %s: every kernel at %u blocks per SM "
			"(--elastic %s)", b->name, k, mode);
		b->blocks_state[k - 1] =
			replay(s, b->build, run, "--elastic", mode,
			       (uint64_t)k * b->base.sm_count,
			       &b->blocks[k - 1]) != 0 ? -1 : 1;
		free(run);
		free(mode);
		if (b->blocks_state[k - 1] > 0 &&
		    !some_kernel_took(&b->blocks[k - 1])) {
			gm_note("sweep: %s: no kernel ran at %u blocks per SM "
				"(none elastic, or their grids are smaller): "
				"no blocks axis from there on", b->name, k);
			b->none_from = k;
			return NULL;
		}
	}
	return b->blocks_state[k - 1] > 0 ? &b->blocks[k - 1] : NULL;
}

/* Measure point @p of kernel @ki of @b unless DIR holds it. 1 when the
 * kernel can have no point on @p's axis (said once), else 0. */
static int measure(struct sweep *s, struct bundle *b, size_t ki,
		   const struct gm_kernel_usage *u,
		   const struct gm_sweep_point *p)
{
	const struct gm_sweep_kernel *bk = &b->base.k[ki];
	const char *prog = b->base.program, *kn = bk->name;
	const char *axis = gm_sweep_axis_name(p->axis);
	struct gm_sweep_kernels k;
	char *run = NULL, *arg = NULL, *file = NULL;
	const struct gm_sweep_kernel *got;
	unsigned limiting = p->limiting;
	int bps = p->blocks_per_sm, r, none = 0;

	memset(&k, 0, sizeof(k));
	if (!s->o->redo && gm_sweep_points_find(&s->pts, prog, kn, axis,
						 p->value)) {
		s->kept++;
		return 0;
	}
	/* The kernel as captured is the base run's point of each axis. */
	if ((p->axis == GM_SWEEP_SMEM && !p->value) ||
	    (p->axis == GM_SWEEP_REGS && p->value == bk->regs)) {
		if (add_point(s, prog, kn, p->axis, p->value, bk->time_ms, bps,
			      limiting) < 0) {
			point_failed(s, prog, kn, p->axis, p->value);
		}
		return 0;
	}
	run = gm_xasprintf("%s.k%zu.%s%ld", b->prefix, ki, axis, p->value);
	if (p->axis != GM_SWEEP_BLOCKS) {
		gm_note("sweep: %s: kernel %zu of %zu: %s %ld (%d blocks per "
			"SM by the plan)", b->name, ki + 1, b->base.nr, axis,
			p->value, bps);
	}
	switch (p->axis) {
	case GM_SWEEP_SMEM:
		arg = gm_xasprintf("%s=%ld", kn, p->value);
		r = replay(s, b->build, run, "--smem-pad", arg, 0, &k);
		if (r == 1) {
			no_point(s, prog, kn, p->axis, p->value, run);
			goto out;
		}
		got = r ? NULL : gm_sweep_kernels_find(&k, kn);
		/* CUPTI's record says what the launch asked for. */
		if (got && got->dynamic_smem != bk->dynamic_smem + p->value) {
			gm_error("the kernel ran with %lld bytes of dynamic "
				 "shared memory, not %lld", (long long)
				 got->dynamic_smem, (long long)
				 (bk->dynamic_smem + p->value));
			got = NULL;
		}
		break;
	case GM_SWEEP_REGS: {
		struct gm_kernel_usage cu = *u;
		struct gm_occupancy occ;
		int regs = 0;
		char *abs;
		file = gm_xasprintf("%s.cubin", run);
		r = gm_sweep_regs_module(b->build, kn, b->arch, (int)p->value,
					 file, &regs);
		if (r == 1) {
			gm_note("sweep: %s: %s: no PTX captured, no register "
				"caps", b->name, kn);
			none = 1;
			goto out;
		}
		got = NULL;
		if (r < 0) {
			break;
		}
		/* ptxas does not go below its own floor (24 registers for
		 * mm's kernel on sm_90): such a cap is the point of the cap
		 * it gave, not one of its own. */
		if (regs > p->value) {
			gm_note("sweep: %s: %s: ptxas gave %d registers for a "
				"cap of %ld: not a point of its own", b->name,
				kn, regs, p->value);
			goto out;
		}
		/* ptxas may use fewer than the cap: the point is what it
		 * gave (the plan's residency recomputed with it). */
		cu.regs_per_thread = regs;
		if (gm_occupancy_compute(&b->base.dev, &cu, &occ) == 0) {
			bps = occ.blocks_per_sm;
			limiting = occ.limiting;
		}
		abs = realpath(file, NULL);
		arg = gm_xasprintf("%s=%s", kn, abs ? abs : file);
		free(abs);
		r = replay(s, b->build, run, "--kernel-module", arg, 0, &k);
		if (r == 1) {
			no_point(s, prog, kn, p->axis, p->value, run);
			goto out;
		}
		if (r == 0) {
			got = gm_sweep_kernels_find(&k, kn);
		}
		break;
	}
	case GM_SWEEP_BLOCKS: {
		const struct gm_sweep_kernels *all;
		if (!b->elastic || !(all = blocks_run(s, b, (unsigned)p->value))) {
			goto out;	/* (said once, by the reconstruct or run) */
		}
		got = gm_sweep_kernels_find(all, kn);
		/* Only where every launch had K blocks on every SM: a kernel
		 * the transform left alone, or whose grid is smaller, has no
		 * point here. */
		if (!took_k(got)) {
			goto out;
		}
		break;
	}
	default:
		goto out;
	}
	if (!got) {
		if (!gm_error_message()[0]) {
			gm_error("the kernel did not run in '%s'", run);
		}
		point_failed(s, prog, kn, p->axis, p->value);
		goto out;
	}
	if (add_point(s, prog, kn, p->axis, p->value, got->time_ms, bps,
		      limiting) < 0) {
		point_failed(s, prog, kn, p->axis, p->value);
	}
out:
	gm_sweep_kernels_release(&k);
	free(run);
	free(arg);
	free(file);
	return none;
}

static void bundle_release(struct bundle *b)
{
	for (unsigned k = 0; k < b->max_k; k++) {
		gm_sweep_kernels_release(&b->blocks[k]);
	}
	free(b->blocks);
	free(b->blocks_state);
	gm_sweep_kernels_release(&b->base);
	free(b->name);
	free(b->build);
	free(b->prefix);
}

/* Reconstruct @b (once: a build of an earlier sweep is reused), with its
 * elastic modules when they can be made. */
static int reconstruct(struct sweep *s, struct bundle *b, const char *bundle)
{
	char *log = gm_xasprintf("%s/logs/%s.reconstruct.log", s->o->dir,
				 b->name);
	char *what = gm_xasprintf("the reconstruct of '%s'", bundle);
	char *el = gm_path_join(b->build, "elastic");
	int ret = 0;

	if (gm_output_is(b->build, GM_OUTPUT_BUILD)) {
		b->elastic = gm_is_dir(el);
		goto out;
	}
	{
		char *argv[] = { NULL, "-q", "reconstruct", "--variant",
				 "single", "--elastic", "-o", b->build,
				 (char *)bundle, NULL };
		b->elastic = 1;
		if (run_gpumix(s, log, what, argv) == 0) {
			goto out;
		}
	}
	/* No elastic modules (a module that cannot be transformed): the
	 * other axes still hold. */
	gm_warning("sweep: %s: no elastic build (%s): no blocks axis",
		   b->name, gm_error_message());
	gm_error_clear();
	b->elastic = 0;
	{
		char *argv[] = { NULL, "-q", "reconstruct", "--variant",
				 "single", "--force", "-o", b->build,
				 (char *)bundle, NULL };
		ret = run_gpumix(s, log, what, argv);
	}
out:
	free(log);
	free(what);
	free(el);
	return ret;
}

/* Whether --kernel takes kernel @name (all when none were given); each
 * name's matches are counted, to tell one that matched none. */
static int kernel_chosen(struct sweep *s, const char *name)
{
	int chosen = !s->o->nr_kernels;

	for (int i = 0; i < s->o->nr_kernels; i++) {
		if (strstr(name, s->o->kernels[i])) {
			s->kernel_hits[i]++;
			chosen = 1;
		}
	}
	return chosen;
}

/* Every point of every kernel of @bundle. -1 when the program could not
 * be measured at all. */
static int sweep_bundle(struct sweep *s, const char *bundle)
{
	struct bundle b;
	char *run;
	int ret = -1;

	memset(&b, 0, sizeof(b));
	b.name = base_name(bundle);
	b.build = gm_xasprintf("%s/builds/%s", s->o->dir, b.name);
	b.prefix = gm_xasprintf("%s/runs/%s", s->o->dir, b.name);
	if (reconstruct(s, &b, bundle) < 0) {
		goto out;
	}
	run = gm_xasprintf("%s.base", b.prefix);
	gm_note("sweep: %s: as captured", b.name);
	if (replay(s, b.build, run, NULL, NULL, 0, &b.base) != 0) {
		free(run);
		goto out;
	}
	free(run);
	{
		const char *cc = b.base.device_cc;
		int maj = atoi(cc), min = strchr(cc, '.') ? atoi(strchr(cc, '.') + 1)
							   : 0;
		snprintf(b.arch, sizeof(b.arch), "sm_%d%d", maj, min);
	}
	/* Which kernel a run's kI is (its name is too long for a path). */
	{
		struct strbuf sb = STRBUF_INIT;
		char *path = gm_xasprintf("%s.kernels", b.prefix);
		int bad;
		for (size_t ki = 0; ki < b.base.nr; ki++) {
			strbuf_addf(&sb, "k%zu %s\n", ki, b.base.k[ki].name);
		}
		bad = gm_write_file_atomic(path, sb.buf ? sb.buf : "", sb.len,
					   1) < 0;
		strbuf_release(&sb);
		free(path);
		if (bad) {
			goto out;
		}
	}
	b.max_k = (unsigned)b.base.dev.max_blocks_per_sm;
	b.blocks = gm_xcalloc(b.max_k + 1, sizeof(*b.blocks));
	b.blocks_state = gm_xcalloc(b.max_k + 1, sizeof(int));
	for (size_t ki = 0; ki < b.base.nr; ki++) {
		const struct gm_sweep_kernel *bk = &b.base.k[ki];
		struct gm_kernel_usage u = {
			.threads_per_block = bk->threads,
			.regs_per_thread = bk->regs,
			.smem_per_block = (size_t)(bk->static_smem +
						   bk->dynamic_smem),
		};
		struct gm_sweep_point *pts;
		size_t np;
		unsigned no_axis = 0;	/* axes the kernel can have no point on */
		if (!kernel_chosen(s, bk->name)) {
			continue;
		}
		if (gm_sweep_plan(&b.base.dev, &u, &pts, &np) < 0) {
			point_failed(s, b.base.program, bk->name, GM_SWEEP_SMEM, 0);
			continue;
		}
		for (size_t i = 0; i < np; i++) {
			if (!(s->o->axes & (1u << pts[i].axis)) ||
			    (no_axis & (1u << pts[i].axis)) ||
			    (pts[i].axis == GM_SWEEP_BLOCKS &&
			     pts[i].value > (long)b.max_k)) {
				continue;
			}
			if (measure(s, &b, ki, &u, &pts[i])) {
				no_axis |= 1u << pts[i].axis;
			}
		}
		free(pts);
	}
	ret = 0;
out:
	if (ret < 0) {
		gm_error("cannot sweep '%s'", bundle);
	}
	bundle_release(&b);
	return ret;
}

/* Write @text to DIR/@name. */
static int write_out(const char *dir, const char *name, const char *text,
		     size_t len)
{
	char *path = gm_path_join(dir, name);
	int ret = gm_write_file_atomic(path, text, len, 1);

	free(path);
	return ret;
}

/* DIR/cliffs.md (also printed) and DIR/cliffs.csv from every point. */
static int write_cliffs(struct sweep *s, size_t *nr)
{
	char *md = NULL, *csv = NULL;
	size_t lmd = 0, lcsv = 0;
	FILE *fm = open_memstream(&md, &lmd), *fc = open_memstream(&csv, &lcsv);
	int ret = -1;

	if (!fm || !fc) {
		gm_error_errno("cannot write the cliffs");
		goto out;
	}
	*nr = gm_sweep_report(&s->pts, s->o->threshold, fm, fc);
	fclose(fm);
	fclose(fc);
	fm = fc = NULL;
	if (write_out(s->o->dir, "cliffs.md", md, lmd) < 0 ||
	    write_out(s->o->dir, "cliffs.csv", csv, lcsv) < 0) {
		goto out;
	}
	fwrite(md, 1, lmd, stdout);
	ret = 0;
out:
	if (fm) {
		fclose(fm);
	}
	if (fc) {
		fclose(fc);
	}
	free(md);
	free(csv);
	return ret;
}

/* DIR made, or taken up again when a sweep made it. */
static int open_dir(struct sweep *s)
{
	const char *dir = s->o->dir;
	int fresh = !gm_path_exists(dir);

	if (!fresh && !gm_output_is(dir, GM_OUTPUT_SWEEP)) {
		gm_error("'%s' exists and is not a gpumix sweep directory", dir);
		gm_error_hint("give another -o DIR (a sweep goes on only in a "
			      "directory a sweep made)");
		return -1;
	}
	if (fresh) {
		char *logs = gm_path_join(dir, "logs");
		char *runs = gm_path_join(dir, "runs");
		char *builds = gm_path_join(dir, "builds");
		int bad = gm_mkdir_p(logs, 0777) < 0 || gm_mkdir_p(runs, 0777) < 0 ||
			  gm_mkdir_p(builds, 0777) < 0 ||
			  gm_output_mark(dir, GM_OUTPUT_SWEEP) < 0;
		free(logs);
		free(runs);
		free(builds);
		return bad ? -1 : 0;
	}
	if (gm_path_exists(s->points_path)) {
		if (gm_sweep_points_read(&s->pts, s->points_path) < 0) {
			gm_error_hint("mend or remove '%s' to measure its points "
				      "again", s->points_path);
			return -1;
		}
		gm_note("sweep: '%s' holds %zu points: %s", s->points_path,
			s->pts.nr, s->o->redo ? "measured again (--redo)"
					      : "kept, the others measured");
	}
	return 0;
}

int gm_sweep_run(const struct gm_sweep_run_opts *o, char **bundles, int n)
{
	struct sweep s;
	size_t cliffs = 0;
	ssize_t len;
	int failed = 0, unmatched = 0, ret = GM_EXIT_ERROR;

	memset(&s, 0, sizeof(s));
	s.o = o;
	s.points_path = gm_path_join(o->dir, "points.csv");
	len = readlink("/proc/self/exe", s.exe, sizeof(s.exe) - 1);
	if (len <= 0) {
		gm_error_errno("cannot find the gpumix binary (/proc/self/exe)");
		goto out;
	}
	s.exe[len] = 0;
	s.kernel_hits = gm_xcalloc((size_t)o->nr_kernels + 1, sizeof(int));
	for (int i = 0; i < n; i++) {
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
			goto out;
		}
		if (dup) {
			gm_error("two bundles are called '%s'", bundles[i]);
			goto out;
		}
	}
	if (open_dir(&s) < 0) {
		goto out;
	}
	/* One program that cannot be measured does not stop the others. */
	for (int i = 0; i < n; i++) {
		if (sweep_bundle(&s, bundles[i]) < 0) {
			gm_error_report(stderr);
			failed++;
		}
	}
	for (int i = 0; i < o->nr_kernels; i++) {
		if (!s.kernel_hits[i]) {
			gm_error("--kernel '%s' is in the name of no kernel of "
				 "the bundles", o->kernels[i]);
			gm_error_report(stderr);
			unmatched++;
		}
	}
	if (write_cliffs(&s, &cliffs) < 0) {
		goto out;
	}
	if (o->plot && s.pts.nr) {
		if (!gm_program_exists(gm_gnuplot_program())) {
			gm_note("sweep: no figures: '%s' is not installed "
				"(Debian: gnuplot-nox)", gm_gnuplot_program());
		} else if (gm_sweep_plot(o->dir, &s.pts) < 0) {
			goto out;
		}
	}
	gm_note("sweep: %zu points measured, %zu kept from before, %zu could "
		"not be, %zu cannot exist; %zu cliffs; %d of %d programs could "
		"not be swept; in '%s'", s.measured, s.kept, s.failed,
		s.no_point, cliffs, failed, n, o->dir);
	if (failed || s.failed) {
		gm_error("%d program%s and %zu point%s could not be measured "
			 "(above; a sweep run again measures only those)",
			 failed, failed == 1 ? "" : "s", s.failed,
			 s.failed == 1 ? "" : "s");
		goto out;
	}
	if (unmatched) {
		goto out;	/* (each named above) */
	}
	ret = GM_EXIT_OK;
out:
	if (ret != GM_EXIT_OK) {
		gm_cli_fail();
	}
	gm_sweep_points_release(&s.pts);
	free(s.points_path);
	free(s.kernel_hits);
	return ret;
}
