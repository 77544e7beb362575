/* SPDX-License-Identifier: MIT */
/*
 * Run-directory reader: manifest and replays.tsv (see run_reader.h and
 * doc/run-directory.md).
 */
#include "run_reader.h"

#include <inttypes.h>
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "instance_name.h"
#include "replay_opts.h"
#include "strbuf.h"
#include "tsv.h"
#include "variant.h"

static const char replays_header[] = "program\treplay\tstart_ns\tend_ns\tio_ns\tkept";

static int get_str(struct gm_run_dir *run, const char *key, const char **out,
		   const char *what)
{
	*out = kvfile_get(&run->manifest, key);
	if (!*out) {
		return gm_error("%s: missing key '%s'", what, key);
	}
	return 0;
}

static int get_int(struct gm_run_dir *run, const char *key, int64_t min,
		   int64_t *out, const char *what)
{
	const char *v = kvfile_get(&run->manifest, key);

	if (!v) {
		return gm_error("%s: missing key '%s'", what, key);
	}
	if (gm_tsv_int(v, min, INT64_MAX, out)) {
		return gm_error("%s: key '%s' is not an integer >= %" PRId64 ": '%s'",
				what, key, min, v);
	}
	return 0;
}

/*
 * Which code ran and how it was cut: `elastic` (the mode of the elastic
 * modules, absent for the captured kernels), the elastic variant's
 * `elastic.timeslice_us` and launch counters (elastic_counters.h) and the
 * nss scheduler's `nss.copy_chunk`, all optional (doc/run-directory.md).
 */
static int read_code(struct gm_run_dir *run, const char *what)
{
	const char *v;
	char *end;

	run->elastic = kvfile_get(&run->manifest, "elastic");
	if (!run->elastic) {
		run->elastic = "off";
	} else if (!*run->elastic) {
		return gm_error("%s: 'elastic' is empty", what);
	}
	run->timeslice_us = NAN;
	v = kvfile_get(&run->manifest, "elastic.timeslice_us");
	if (v) {
		run->timeslice_us = strtod(v, &end);
		if (!*v || *end || !(run->timeslice_us >= 0) ||
		    !isfinite(run->timeslice_us)) {
			return gm_error("%s: key 'elastic.timeslice_us' is not a "
					"number >= 0: '%s'", what, v);
		}
	}
	for (int c = 0; c < GM_ELASTIC_COUNTERS_NR; c++) {
		const char *key = gm_elastic_counters[c].key;
		run->elastic_counters[c] = -1;
		v = kvfile_get(&run->manifest, key);
		if (v && gm_tsv_int(v, 0, INT64_MAX, &run->elastic_counters[c])) {
			return gm_error("%s: key '%s' is not an integer >= 0: "
					"'%s'", what, key, v);
		}
	}
	run->copy_chunk = -1;
	v = kvfile_get(&run->manifest, "nss.copy_chunk");
	if (v && gm_tsv_int(v, 0, INT64_MAX, &run->copy_chunk)) {
		return gm_error("%s: key 'nss.copy_chunk' is not an integer >= 0: "
				"'%s'", what, v);
	}
	return 0;
}

/* An optional integer key >= 0 into @out, -1 when absent. */
static int opt_int(struct gm_run_dir *run, const char *key, int64_t *out,
		   const char *what)
{
	const char *v = kvfile_get(&run->manifest, key);

	*out = -1;
	if (v && gm_tsv_int(v, 0, INT64_MAX, out)) {
		return gm_error("%s: key '%s' is not an integer >= 0: '%s'", what,
				key, v);
	}
	return 0;
}

/* An optional number >= 0 into @out, NAN when absent. */
static int opt_double(struct gm_run_dir *run, const char *key, double *out,
		      const char *what)
{
	const char *v = kvfile_get(&run->manifest, key);
	char *end;

	*out = NAN;
	if (!v) {
		return 0;
	}
	*out = strtod(v, &end);
	if (!*v || *end || !(*out >= 0) || isinf(*out)) {
		return gm_error("%s: key '%s' is not a number >= 0: '%s'", what,
				key, v);
	}
	return 0;
}

/* Program @i's captured host time (optional keys). */
static int read_host_time(struct gm_run_dir *run, size_t i, const char *what)
{
	struct gm_run_program *p = &run->programs[i];
	static const struct {
		const char *suffix;
		size_t off;
	} reals[] = {
		{ "host_gap_s", offsetof(struct gm_run_program, host_gap_s) },
		{ "host_error_us_median",
		  offsetof(struct gm_run_program, host_error_median_us) },
		{ "host_error_us_p99",
		  offsetof(struct gm_run_program, host_error_p99_us) },
		{ "host_error_us_max",
		  offsetof(struct gm_run_program, host_error_max_us) },
		{ "host_order_late_s",
		  offsetof(struct gm_run_program, host_order_late_s) },
	};
	char key[80];

	snprintf(key, sizeof(key), "program.%zu.host_time", i);
	p->host_time = kvfile_get(&run->manifest, key);
	if (p->host_time && strcmp(p->host_time, "captured") &&
	    strcmp(p->host_time, "none")) {
		return gm_error("%s: '%s' must be 'captured' or 'none', not '%s'",
				what, key, p->host_time);
	}
	if (opt_double(run, "max_host_gap_s", &p->max_host_gap_s, what)) {
		return -1;
	}
	snprintf(key, sizeof(key), "program.%zu.host_gaps", i);
	if (opt_int(run, key, &p->host_gaps, what)) {
		return -1;
	}
	snprintf(key, sizeof(key), "program.%zu.host_order_late", i);
	if (opt_int(run, key, &p->host_order_late, what)) {
		return -1;
	}
	for (size_t k = 0; k < sizeof(reals) / sizeof(reals[0]); k++) {
		snprintf(key, sizeof(key), "program.%zu.%s", i, reals[k].suffix);
		if (opt_double(run, key, (double *)((char *)p + reals[k].off),
			       what)) {
			return -1;
		}
	}
	return 0;
}

/*
 * Which repetition of a study's run this is, whether it was one-shot, and
 * the GPU's state around
 * it (optional keys: doc/run-directory.md).
 */
static int read_repetition_gpu(struct gm_run_dir *run, const char *what)
{
	struct {
		const char *prefix;
		struct gm_run_gpu *g;
	} sides[] = {
		{ "gpu.start", &run->gpu_start }, { "gpu.end", &run->gpu_end },
	};
	char key[64];

	if (opt_int(run, "run.repetition", &run->repetition, what)) {
		return -1;
	}
	if (run->repetition < 0) {
		run->repetition = 0;
	}
	{
		int64_t one = -1;
		if (opt_int(run, "replay.one_shot", &one, what)) {
			return -1;
		}
		if (one > 1) {
			return gm_error("%s: key 'replay.one_shot' is not 0 or 1: "
					"'%" PRId64 "'", what, one);
		}
		run->one_shot = one == 1;
	}
	run->open_loop = kvfile_get(&run->manifest, "arrivals.label");
	if (!run->open_loop) {
		run->open_loop = "";
	} else if (gm_arrivals_label_check(run->open_loop)) {
		char *why = gm_xstrdup(gm_error_message());
		gm_error_clear();
		gm_error("%s: key 'arrivals.label': %s", what, why);
		free(why);
		return -1;
	}
	for (size_t i = 0; i < sizeof(sides) / sizeof(sides[0]); i++) {
		struct gm_run_gpu *g = sides[i].g;
		snprintf(key, sizeof(key), "%s.sm_clock_mhz", sides[i].prefix);
		if (opt_int(run, key, &g->sm_clock_mhz, what)) {
			return -1;
		}
		snprintf(key, sizeof(key), "%s.temp_c", sides[i].prefix);
		if (opt_int(run, key, &g->temp_c, what)) {
			return -1;
		}
		snprintf(key, sizeof(key), "%s.throttle", sides[i].prefix);
		g->throttle = kvfile_get(&run->manifest, key);
		if (g->throttle && !*g->throttle) {
			return gm_error("%s: '%s' is empty", what, key);
		}
	}
	return 0;
}

/*
 * The workload, variant and policy must be a run gpumix can make: a
 * variant of the table (common/variant.h), a known policy exactly for the
 * variants that run under one ("none" for the others), and the workload
 * of a run with programs named after them joined by '+', consecutive
 * copies once (gm_workload_name(), as reconstruct names it). A manifest saying otherwise was edited or made by hand, and would be
 * filed under a run that never happened.
 */
static int check_combination(const struct gm_run_dir *run, const char *what)
{
	const struct gm_variant *v = gm_variant_find(run->variant);
	char *want;
	int ret = 0;

	if (!v) {
		return gm_error("%s: unknown variant '%s'", what, run->variant);
	}
	if ((v->flags & GM_VARIANT_POLICY) && !gm_policy_find(run->policy)) {
		return gm_error("%s: variant '%s' runs under a policy (%s), "
				"not '%s'", what, run->variant,
				gm_policy_list(), run->policy);
	}
	if (!(v->flags & GM_VARIANT_POLICY) && strcmp(run->policy, "none")) {
		return gm_error("%s: variant '%s' takes no policy, but policy is "
				"'%s'", what, run->variant, run->policy);
	}
	const char **names = gm_xcalloc(run->nr_programs + 1, sizeof(*names));
	for (size_t i = 0; i < run->nr_programs; i++) {
		names[i] = run->programs[i].name;
	}
	/* (copies written once: "lbm#1-8", common/instance_name.h) */
	want = gm_workload_name(names, run->nr_programs);
	free(names);
	if (run->nr_programs && strcmp(run->workload, want)) {
		ret = gm_error("%s: workload '%s' is not its programs joined by "
			       "'+' ('%s')", what, run->workload, want);
	}
	free(want);
	return ret;
}

static int read_manifest(struct gm_run_dir *run, const char *what)
{
	const char *format, *v;
	int64_t n;
	char key[64];

	if (!gm_path_exists(what)) {
		const char *why = gm_why_not_dir(run->path);
		if (why) {
			return gm_error("cannot open run directory '%s': %s",
					run->path, why);
		}
		gm_error("'%s' is not a run directory (it has no manifest)",
			 run->path);
		return -1;
	}
	if (kvfile_read(&run->manifest, what)) {
		return -1;
	}
	if (get_str(run, "format", &format, what)) {
		return -1;
	}
	if (strcmp(format, GM_RUN_FORMAT)) {
		return gm_error("%s: unsupported format '%s' (this gpumix reads '%s')",
				what, format, GM_RUN_FORMAT);
	}
	/* The runtime writes the manifest last: no status, no complete run. */
	run->status = kvfile_get(&run->manifest, "status");
	if (!run->status) {
		gm_error("%s: the run is incomplete (the manifest has no status)",
			 what);
		gm_error_hint("the replay was interrupted or is still running");
		return -1;
	}
	if (strcmp(run->status, "ok") && strcmp(run->status, "failed") &&
	    strcmp(run->status, "hung")) {
		return gm_error("%s: unknown status '%s' (expected ok, failed or hung)",
				what, run->status);
	}
	run->failure = kvfile_get(&run->manifest, "failure");
	run->hostname = kvfile_get(&run->manifest, "hostname");
	run->gpu = kvfile_get(&run->manifest, "device.visible");
	if (get_str(run, "workload", &run->workload, what) ||
	    get_str(run, "variant", &run->variant, what) ||
	    get_str(run, "policy", &run->policy, what) ||
	    get_str(run, "device.name", &run->device_name, what) ||
	    get_str(run, "device.cc", &run->device_cc, what) ||
	    get_str(run, "driver_version", &run->driver_version, what) ||
	    get_str(run, "runtime_version", &run->runtime_version, what) ||
	    get_str(run, "gpumix_version", &run->gpumix_version, what) ||
	    get_str(run, "started_at", &run->started_at, what) ||
	    get_str(run, "finished_at", &run->finished_at, what) ||
	    get_int(run, "device.sm_count", 1, &run->sm_count, what) ||
	    get_int(run, "device.max_threads_per_sm", 1,
		    &run->max_threads_per_sm, what) ||
	    get_int(run, "device.max_blocks_per_sm", 1,
		    &run->max_blocks_per_sm, what) ||
	    get_int(run, "device.regs_per_sm", 1, &run->regs_per_sm, what) ||
	    get_int(run, "device.smem_per_sm", 0, &run->smem_per_sm, what) ||
	    get_int(run, "cuda_device_max_connections", 0,
		    &run->max_connections, what) ||
	    get_int(run, "streams", 0, &run->streams, what) ||
	    get_int(run, "min_replays", 0, &run->min_replays, what) ||
	    get_int(run, "cupti.dropped_records", 0, &run->dropped_records,
		    what) ||
	    get_int(run, "programs", 0, &n, what)) {
		return -1;
	}
	if (!*run->workload || !*run->variant || !*run->policy) {
		return gm_error("%s: workload, variant and policy must not be empty",
				what);
	}
	if (read_code(run, what) || read_repetition_gpu(run, what)) {
		return -1;
	}
	if (n > 4096) {
		return gm_error("%s: 'programs' is %" PRId64 " (at most 4096)",
				what, n);
	}
	run->nr_programs = (size_t)n;
	run->programs = gm_xcalloc(n ? n : 1, sizeof(*run->programs));
	for (size_t i = 0; i < run->nr_programs; i++) {
		struct gm_run_program *p = &run->programs[i];
		snprintf(key, sizeof(key), "program.%zu.name", i);
		if (get_str(run, key, &p->name, what)) {
			return -1;
		}
		if (!*p->name) {
			return gm_error("%s: '%s' is empty", what, key);
		}
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(run->programs[j].name, p->name)) {
				return gm_error("%s: programs %zu and %zu are both called '%s'",
						what, j, i, p->name);
			}
		}
		snprintf(key, sizeof(key), "program.%zu.bundle", i);
		if (get_str(run, key, &p->bundle, what)) {
			return -1;
		}
		snprintf(key, sizeof(key), "program.%zu.deterministic", i);
		if (get_str(run, key, &v, what)) {
			return -1;
		}
		if (strcmp(v, "0") && strcmp(v, "1")) {
			return gm_error("%s: '%s' must be 0 or 1, not '%s'", what,
					key, v);
		}
		p->deterministic = v[0] == '1';
		if (read_host_time(run, i, what)) {
			return -1;
		}
	}
	snprintf(key, sizeof(key), "program.%zu.name", run->nr_programs);
	if (kvfile_get(&run->manifest, key)) {
		return gm_error("%s: '%s' is set but 'programs' is %zu", what,
				key, run->nr_programs);
	}
	if (check_combination(run, what)) {
		return -1;
	}
	/* The latency table singles this program out: it must be one. */
	run->high_priority = -1;
	v = kvfile_get(&run->manifest, "priority.program");
	if (v) {
		run->high_priority = gm_run_dir_find_program(run, v, strlen(v));
		if (run->high_priority < 0) {
			return gm_error("%s: 'priority.program' is '%s', which is"
					" not a program of the run", what, v);
		}
	}
	return 0;
}

long gm_run_dir_find_program(const struct gm_run_dir *run, const char *name,
			     size_t len)
{
	for (size_t i = 0; i < run->nr_programs; i++) {
		const char *p = run->programs[i].name;
		if (!strncmp(p, name, len) && !p[len]) {
			return (long)i;
		}
	}
	return -1;
}

static int parse_replay(struct gm_run_dir *run, char *line, const char *what,
			unsigned lineno)
{
	char *f[6];
	struct gm_replay r;
	int64_t kept;
	long prog;

	if (gm_tsv_split(line, f, 6) != 6) {
		return gm_error("%s:%u: expected 6 tab-separated fields", what,
				lineno);
	}
	if (gm_tsv_unescape(f[0])) {
		return gm_error("%s:%u: bad escape in the program name", what,
				lineno);
	}
	prog = gm_run_dir_find_program(run, f[0], strlen(f[0]));
	if (prog < 0) {
		return gm_error("%s:%u: program '%s' is not in the manifest",
				what, lineno, f[0]);
	}
	r.program = (size_t)prog;
	if (gm_tsv_int(f[1], 0, INT64_MAX, &r.replay) ||
	    gm_tsv_int(f[2], 0, INT64_MAX, &r.start) ||
	    gm_tsv_int(f[3], 0, INT64_MAX, &r.end) ||
	    gm_tsv_int(f[4], 0, INT64_MAX, &r.io) ||
	    gm_tsv_int(f[5], 0, 1, &kept)) {
		return gm_error("%s:%u: replay, start_ns, end_ns and io_ns must be"
				" non-negative integers and kept 0 or 1", what,
				lineno);
	}
	r.kept = (int)kept;
	if (r.end < r.start) {
		return gm_error("%s:%u: replay ends before it starts", what,
				lineno);
	}
	if (r.io > r.end - r.start) {
		return gm_error("%s:%u: io_ns is longer than the replay", what,
				lineno);
	}
	for (size_t i = 0; i < run->nr_replays; i++) {
		if (run->replays[i].program == r.program &&
		    run->replays[i].replay == r.replay) {
			return gm_error("%s:%u: replay %" PRId64
					" of program '%s' appears twice", what,
					lineno, r.replay, f[0]);
		}
	}
	GM_ALLOC_GROW(run->replays, run->nr_replays + 1, run->alloc_replays);
	run->replays[run->nr_replays++] = r;
	return 0;
}

static int read_replays(struct gm_run_dir *run, struct strbuf *text,
			const char *what)
{
	char *p = text->buf, *end = text->buf + text->len;
	unsigned lineno = 0;

	if (memchr(text->buf, '\0', text->len)) {
		return gm_error("%s: contains NUL bytes", what);
	}
	while (p < end) {
		char *nl = memchr(p, '\n', end - p);
		lineno++;
		if (!nl) {
			return gm_error("%s:%u: truncated line (no newline at end of file)",
					what, lineno);
		}
		*nl = '\0';
		if (lineno == 1) {
			if (strcmp(p, replays_header)) {
				return gm_error("%s:1: expected the header '%s'",
						what, "program<TAB>replay<TAB>start_ns"
						"<TAB>end_ns<TAB>io_ns<TAB>kept");
			}
		} else if (parse_replay(run, p, what, lineno)) {
			return -1;
		}
		p = nl + 1;
	}
	if (!lineno) {
		return gm_error("%s: empty file (expected at least the header)",
				what);
	}
	return 0;
}

int gm_run_dir_read(struct gm_run_dir *run, const char *path)
{
	struct strbuf manifest = STRBUF_INIT, replays = STRBUF_INIT;
	char *mpath, *rpath;
	int ret = -1;

	memset(run, 0, sizeof(*run));
	kvfile_init(&run->manifest);
	run->path = gm_xstrdup(path);
	mpath = gm_path_join(path, "manifest");
	rpath = gm_path_join(path, "replays.tsv");
	if (read_manifest(run, mpath)) {
		goto out;
	}
	if (gm_read_file(mpath, &manifest) ||
	    gm_read_file(rpath, &replays)) {
		goto out;
	}
	gm_dir_identity(&manifest, &replays, run->hash);
	if (read_replays(run, &replays, rpath)) {
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&manifest);
	strbuf_release(&replays);
	free(mpath);
	free(rpath);
	return ret;
}

void gm_dir_identity(const struct strbuf *manifest, const struct strbuf *data,
		     char out[GM_HASH_HEX_LEN + 1])
{
	struct gm_hasher *h = gm_hasher_new();
	uint64_t len = manifest->len;

	gm_hasher_update(h, &len, sizeof(len));
	gm_hasher_update(h, manifest->buf, manifest->len);
	len = data->len;
	gm_hasher_update(h, &len, sizeof(len));
	gm_hasher_update(h, data->buf, data->len);
	gm_hash_hex(gm_hasher_final(h), out);
	gm_hasher_free(h);
}

void gm_run_dir_release(struct gm_run_dir *run)
{
	free(run->path);
	kvfile_release(&run->manifest);
	free(run->programs);
	free(run->replays);
	memset(run, 0, sizeof(*run));
}

char *gm_run_label(const char *workload, const char *variant,
		   const char *policy, int one_shot, int64_t repetition)
{
	return gm_run_label_open(workload, variant, policy, NULL, one_shot,
				 repetition);
}

char *gm_run_label_open(const char *workload, const char *variant,
			const char *policy, const char *open_loop,
			int one_shot, int64_t repetition)
{
	struct strbuf sb = STRBUF_INIT;

	strbuf_addf(&sb, "%s.%s", workload, variant);
	if (policy && *policy && strcmp(policy, "none")) {
		strbuf_addf(&sb, ".%s", policy);
	}
	if (open_loop && *open_loop) {
		strbuf_addf(&sb, ".%s", open_loop);
	}
	if (one_shot) {
		strbuf_addstr(&sb, ".one-shot");
	}
	if (repetition > 0) {
		strbuf_addf(&sb, ".r%" PRId64, repetition);
	}
	return strbuf_detach(&sb, NULL);
}

int gm_run_dir_read_alone(struct gm_run_dir *run, const char *path)
{
	if (gm_run_dir_read(run, path) < 0) {
		return -1;
	}
	if (strcmp(run->status, "ok")) {
		return gm_error("the run did not end ok (status %s)",
				run->status);
	}
	if (run->nr_programs != 1) {
		return gm_error("the run has %zu programs, not one",
				run->nr_programs);
	}
	return 0;
}

long gm_run_kept_replay(const struct gm_run_dir *run, int64_t start,
			int64_t end)
{
	for (size_t i = 0; i < run->nr_replays; i++) {
		const struct gm_replay *p = &run->replays[i];
		if (p->kept && start >= p->start && end <= p->end) {
			return (long)i;
		}
	}
	return -1;
}
