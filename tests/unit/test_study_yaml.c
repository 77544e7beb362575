/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for study loading: the model built from the good corpus files
 * (every key, every default), command-line splitting, durations and sizes,
 * "did you mean" suggestions, path resolution, paths that clash (through
 * a symbolic link, under gpumix run -o), and positioned errors from YAML
 * held in memory. The bad corpus and its exact errors are checked
 * through the CLI by tests/cli/run_yaml.sh.
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "closest.h"
#include "error.h"
#include "fs.h"
#include "strbuf.h"
#include "study/study.h"
#include "study/study_path.h"
#include "study/yaml_doc.h"
#include "test.h"

static char *top;

static char *at_top(const char *rel)
{
	return study_path_resolve(top, rel);
}

static void test_paths(void)
{
	char *p;

	p = study_path_resolve("/a/b", "../c");
	CHECK_STR(p, "/a/c", "'..' goes up one directory");
	free(p);
	p = study_path_resolve("/a", "/x/./y//z/..");
	CHECK_STR(p, "/x/y", "absolute paths are cleaned, not rebased");
	free(p);
	p = study_path_resolve("/", "../..");
	CHECK_STR(p, "/", "'..' stops at the root");
	free(p);
	p = study_path_resolve("/a/b/", ".");
	CHECK_STR(p, "/a/b", "'.' is the base itself");
	free(p);
	p = study_path_display(top);
	CHECK_STR(p, ".", "the current directory displays as '.'");
	free(p);
	char *abs = at_top("results/x");
	p = study_path_display(abs);
	CHECK_STR(p, "results/x", "paths below it display relative");
	free(p);
	free(abs);
	p = study_path_display("/elsewhere/y");
	CHECK_STR(p, "/elsewhere/y", "paths elsewhere stay absolute");
	free(p);
}

static void test_full(void)
{
	struct study s;
	char *want;

	int ret = study_load(&s, "tests/data/study/good/full.yaml", NULL);
	CHECK_INT(ret, 0, "full.yaml loads");
	if (ret) {
		gm_error_report(stdout);
		study_release(&s);
		return;
	}
	CHECK_STR(s.name, "full-example", "study name from 'study'");
	CHECK_STR(s.root, top, "root resolved against the file's directory");
	CHECK_INT(s.nr_programs, 3, "three programs");
	const struct study_program *mm = &s.programs[0], *spmv = &s.programs[1];
	const struct study_program *old = &s.programs[2];
	CHECK_INT(mm->argc, 3, "a command given as a list keeps its items");
	CHECK_STR(mm->argv[2], "0.5", "  a quoted number stays a string");
	CHECK(mm->argv[3] == NULL, "  argv is NULL-terminated");
	CHECK_INT(spmv->argc, 5, "a command string is split into words");
	CHECK_STR(spmv->argv[2], "input file.txt", "  quotes keep spaces");
	CHECK_INT(mm->deterministic, 1, "deterministic: true");
	CHECK_INT(spmv->deterministic, 0, "deterministic: false");
	CHECK(old->argv == NULL, "a bundle program has no command");
	want = at_top("tests/data/study/good/bundles/old");
	CHECK_STR(old->bundle, want, "its bundle is resolved against root");
	free(want);
	want = at_top("traces/mm");
	CHECK_STR(mm->bundle, want, "a captured program's bundle is paths.bundles/NAME");
	free(want);
	CHECK_STR(mm->cwd, top, "cwd '.' is the root");
	CHECK_INT(mm->pos.line, 5, "a program remembers its line");
	CHECK_INT(mm->command_pos.line, 6, "  and its command's line");
	CHECK_INT(mm->command_pos.col, 14, "  and column");
	CHECK_INT(s.nr_specs, 3, "three workload items");
	CHECK_INT(s.specs[0].kind, STUDY_SPEC_LIST, "an explicit list");
	CHECK_INT(s.specs[2].kind, STUDY_SPEC_COMBINATIONS, "a combinations item");
	CHECK_INT(s.specs[2].size, 2, "  of size 2");
	CHECK_INT(s.specs[2].set.nr, 3, "  of three programs");
	CHECK_INT(s.specs[2].nr_exclude, 1, "  with one exclusion");
	CHECK_INT(s.nr_variants, 3, "three variants");
	CHECK_STR(s.variants[1]->name, "cuda", "  in the order given");
	CHECK(s.variants[2] == gm_variant_find("nss"),
	      "  rows of the variant table");
	CHECK_INT(s.baseline, STUDY_BASELINE_WORKLOAD, "baseline: workload");
	CHECK_INT(s.min_replays, 3, "min_replays");
	CHECK_NEAR(s.watchdog_s, 120, 1e-9, "watchdog 2min");
	CHECK_NEAR(s.timeslice_us, 500, 1e-9, "timeslice 500us");
	CHECK_INT(s.copy_chunk, 8u << 20, "copy_chunk 8MiB");
	CHECK_INT(s.completion, GM_COMPLETION_POLL, "completion poll");
	CHECK_INT(s.nr_warnings, 0, "  no warning: nss takes every knob set");
	CHECK_NEAR(s.stage_timeout_s, 1800, 1e-9, "stage_timeout 30min");
	want = at_top("results/full/full.db");
	CHECK_STR(s.paths.database, want, "paths.database");
	free(want);
	want = at_top("results/full/SUMMARY.md");
	CHECK_STR(s.paths.summary, want, "paths.summary");
	free(want);
	study_release(&s);
}

static void test_defaults(void)
{
	struct study s;
	char *want;

	int ret = study_load(&s, "tests/data/study/good/minimal.yaml", NULL);
	CHECK_INT(ret, 0, "minimal.yaml loads");
	if (ret) {
		gm_error_report(stdout);
		study_release(&s);
		return;
	}
	CHECK_STR(s.name, "minimal", "the study is named after its file");
	CHECK_INT(s.nr_variants, 2, "default variants: single and cuda");
	CHECK(s.variants[0]->flags & GM_VARIANT_ALONE,
	      "  the alone-time baseline first (single)");
	CHECK(s.variants[1]->flags & GM_VARIANT_REFERENCE,
	      "  then the comparison baseline (cuda)");
	CHECK_INT(s.nr_policies, 0, "no policies without a policy variant");
	CHECK_INT(s.baseline, STUDY_BASELINE_PROGRAM, "default baseline: program");
	CHECK_INT(s.min_replays, 7, "default min_replays 7");
	CHECK_NEAR(s.watchdog_s, 60, 1e-9, "default watchdog 60 s");
	CHECK_NEAR(s.timeslice_us, 1000, 1e-9, "default timeslice 1 ms");
	CHECK_INT(s.copy_chunk, 4u << 20, "default copy chunk 4 MiB");
	CHECK_INT(s.completion, GM_COMPLETION_EVENT, "default completion event");
	CHECK_NEAR(s.stage_timeout_s, 3600, 1e-9, "default stage timeout 1 h");
	CHECK_INT(s.programs[0].deterministic, 1, "programs are deterministic by default");
	want = at_top("results/minimal");
	CHECK_STR(s.paths.output, want, "default output: results/NAME under root");
	free(want);
	want = at_top("results/minimal/study.state");
	CHECK_STR(s.paths.state, want, "  state inside it");
	free(want);
	want = at_top("results/minimal/bundles/mm");
	CHECK_STR(s.programs[0].bundle, want, "  bundles inside it");
	free(want);
	study_release(&s);

	ret = study_load(&s, "tests/data/study/good/minimal.yaml", "/tmp/elsewhere");
	CHECK_INT(ret, 0, "loads with an output override");
	CHECK_STR(s.paths.output, "/tmp/elsewhere", "-o replaces paths.output");
	CHECK_STR(s.paths.runs, "/tmp/elsewhere/runs", "  and the paths under it");
	study_release(&s);
}

/* Load @yaml (as tests/data/study/mem.yaml) and return the error, or "". */
static const char *load_error(const char *yaml, struct study *s)
{
	static char msg[GM_ERROR_MSG_LEN];

	gm_error_clear();
	msg[0] = '\0';
	if (study_load_string(s, "tests/data/study/mem.yaml", yaml, strlen(yaml),
			      NULL)) {
		snprintf(msg, sizeof(msg), "%s", gm_error_message());
	}
	gm_error_clear();
	return msg;
}

static void test_commands(void)
{
	struct study s;
	const char *e;

	e = load_error("programs:\n"
		       "  - name: a\n"
		       "    command: x 'b c' \"d \\\" e\" f\\ g 'h'\"i\"\n"
		       "workloads: [[a]]\n", &s);
	CHECK_STR(e, "", "a command with quotes and escapes loads");
	if (!*e) {
		struct study_program *p = &s.programs[0];
		CHECK_INT(p->argc, 5, "  five words");
		CHECK_STR(p->argv[1], "b c", "  single quotes keep blanks");
		CHECK_STR(p->argv[2], "d \" e", "  double quotes take \\\"");
		CHECK_STR(p->argv[3], "f g", "  a backslash escapes a blank");
		CHECK_STR(p->argv[4], "hi", "  adjacent quoted parts join");
	}
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: \"x 'y\"}\n"
		       "workloads: [[a]]\n", &s);
	CHECK_STR(e, "tests/data/study/mem.yaml:2:24: unterminated single quote "
		  "in 'command'", "an unterminated quote is an error at the command");
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nreplay: {min_replays: true}\n", &s);
	CHECK_STR(e, "tests/data/study/mem.yaml:4:23: 'min_replays' must be an "
		  "integer, not 'true'", "an integer field rejects a boolean");
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [single, green, nss, mps]\n",
		       &s);
	CHECK_STR(e, "", "every variant of the table is supported");
	study_release(&s);
	e = load_error("programs: [\n", &s);
	CHECK(strstr(e, "tests/data/study/mem.yaml:2:1: ") == e,
	      "a syntax error names the file, line and column");
	study_release(&s);
}

static int parse_duration(const char *v, double *out)
{
	struct yaml_doc d = YAML_DOC_INIT;
	int ret = -1;

	if (!yaml_doc_load_string(&d, "d.yaml", v, strlen(v))) {
		ret = yaml_doc_duration(&d, yaml_doc_root(&d), "'t'", 1e-6, 1e6, out);
	}
	yaml_doc_release(&d);
	gm_error_clear();
	return ret;
}

static int parse_size(const char *v, uint64_t *out)
{
	struct yaml_doc d = YAML_DOC_INIT;
	int ret = -1;

	if (!yaml_doc_load_string(&d, "d.yaml", v, strlen(v))) {
		ret = yaml_doc_size(&d, yaml_doc_root(&d), "'s'", 1, 1ull << 40, out);
	}
	yaml_doc_release(&d);
	gm_error_clear();
	return ret;
}

static void test_units(void)
{
	static const struct { const char *in; double s; } durations[] = {
		{ "250us", 250e-6 }, { "1ms", 1e-3 }, { "1.5s", 1.5 },
		{ "2min", 120 }, { "1h", 3600 }, { "3", 3 }, { ".5s", 0.5 },
	};
	static const char *const bad_durations[] = {
		"1 s", "1sec", "-1s", "s", "1e999s", "\"\"", "[1]",
	};
	double s;
	uint64_t b;

	for (size_t i = 0; i < sizeof(durations) / sizeof(durations[0]); i++) {
		int ok = !parse_duration(durations[i].in, &s) &&
			 s > durations[i].s * (1 - 1e-12) &&
			 s < durations[i].s * (1 + 1e-12);
		char what[64];
		snprintf(what, sizeof(what), "duration '%s'", durations[i].in);
		CHECK(ok, what);
	}
	for (size_t i = 0; i < sizeof(bad_durations) / sizeof(bad_durations[0]); i++) {
		char what[64];
		snprintf(what, sizeof(what), "not a duration: %s", bad_durations[i]);
		CHECK(parse_duration(bad_durations[i], &s) == -1, what);
	}
	CHECK(!parse_size("64KiB", &b) && b == 65536, "size 64KiB");
	CHECK(!parse_size("4MiB", &b) && b == 4u << 20, "size 4MiB");
	CHECK(!parse_size("1GiB", &b) && b == 1u << 30, "size 1GiB");
	CHECK(!parse_size("4096", &b) && b == 4096, "a bare size is bytes");
	CHECK(!parse_size("0.5KiB", &b) && b == 512, "a fraction of a unit");
	CHECK(parse_size("4MB", &b) == -1, "MB is not a unit (MiB is)");
	CHECK(parse_size("1.5B", &b) == -1, "half bytes are refused");
}

/*
 * The knobs of the variant table (common/variant.h): every knob with a
 * study key is accepted under 'replay:' and reaches gpumix replay as an
 * argument; the others have no study value. A knob set that no listed
 * variant takes is a warning with its position, not an error.
 */
static void test_knobs(void)
{
	struct study s;
	char buf[4096];
	const char *e;

	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [single, nss]\n", &s);
	CHECK_STR(e, "", "a study with nss loads");
	for (size_t i = 0; gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		int ret = study_knob_arg(&s, k, buf, sizeof(buf));
		if (k->knob == GM_KNOB_HIGH_PRIORITY ||
		    k->knob == GM_KNOB_MPS_THREADS ||
		    k->knob == GM_KNOB_PROBE) {
			/* no default: each workload's first program; no
			 * active-thread limit; no probe (off is no option) */
			CHECK_INT(ret, -1, "high_priority has no value unset");
		} else if (k->knob == GM_KNOB_SM_SHARE ||
			   k->knob == GM_KNOB_SCALE ||
			   k->knob == GM_KNOB_CLIFF_MAP) {
			/* no default: equal partitions; no cliff map */
			CHECK_INT(ret, -1, "sm_share has no value unset");
		} else if (!k->arg) {
			/* a flag (one_shot): off unless the study sets it */
			CHECK_INT(ret, -1, "a flag is off unset");
		} else if (k->knob == GM_KNOB_MAX_HOST_GAP) {
			/* no default: no limit */
			CHECK_INT(ret, -1, "max_host_gap has no value unset");
		} else if (k->study_key) {
			CHECK_INT(ret, 0, "a knob with a study key has a value");
		} else {
			CHECK_INT(ret, -1, "a knob without one has none");
		}
	}
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_TIMESLICE), buf,
			      sizeof(buf)) && !strcmp(buf, "1000"),
	      "default timeslice: --timeslice-us 1000");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_COPY_CHUNK), buf,
			      sizeof(buf)) && !strcmp(buf, "4194304"),
	      "default copy chunk: --copy-chunk 4194304");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_COMPLETION), buf,
			      sizeof(buf)) && !strcmp(buf, "event"),
	      "default completion: --completion event");
	study_release(&s);

	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [nss]\n"
		       "replay: {timeslice: 1.5us, copy_chunk: 64KiB}\n", &s);
	CHECK_STR(e, "", "timeslice and copy_chunk load");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_TIMESLICE), buf,
			      sizeof(buf)) && !strcmp(buf, "1.5"),
	      "a fraction of a microsecond is kept: --timeslice-us 1.5");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_COPY_CHUNK), buf,
			      sizeof(buf)) && !strcmp(buf, "65536"),
	      "copy_chunk in bytes: --copy-chunk 65536");
	CHECK_INT(s.nr_warnings, 0, "  no warning: nss takes both");
	study_release(&s);

	/* sm_share: a map from program to SMs or a percentage. */
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "  - {name: b, command: x}\n"
		       "workloads: [[a, b]]\nvariants: [cuda, green]\n"
		       "replay: {sm_share: {a: 50%, b: 32}}\n", &s);
	CHECK_STR(e, "", "sm_share loads");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_SM_SHARE), buf,
			      sizeof(buf)) && !strcmp(buf, "a=50%,b=32"),
	      "  it is --sm-share a=50%,b=32");
	CHECK_INT(s.nr_warnings, 0, "  no warning: green takes it");
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [green]\n"
		       "replay: {sm_share: {a: 0.5}}\n", &s);
	CHECK_STR(e, "tests/data/study/mem.yaml:5:24: 'sm_share': SM share "
		  "'a=0.5': the share must be a whole number of SMs (1 or "
		  "more) or a percentage above 0 and up to 100%",
		  "a fraction is refused at its position");
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [green]\n"
		       "replay: {sm_share: 50%}\n", &s);
	CHECK(strstr(e, "tests/data/study/mem.yaml:5:20: 'sm_share' must be a "
		     "map from program") == e, "sm_share must be a map");
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [green]\n"
		       "replay: {sm_share: {z: 8}}\n", &s);
	CHECK_STR(e, "tests/data/study/mem.yaml:5:20: 'sm_share' names no "
		  "program of the study: 'z'", "sm_share names programs");
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [green]\n"
		       "replay: {scale: k/knees.csv}\n", &s);
	CHECK_STR(e, "", "scale loads");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_SCALE), buf,
			      sizeof(buf)) && buf[0] == '/' &&
	      strstr(buf, "/k/knees.csv"), "  --scale, an absolute path");
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [green]\n"
		       "replay: {scale: k.csv, sm_share: {a: 8}}\n", &s);
	CHECK(strstr(e, "'sm_share' and 'scale' both set the green partitions"),
	      "sm_share and scale exclude each other");
	study_release(&s);

	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "  - {name: b, command: x}\n"
		       "workloads: [[a, b]]\nvariants: [single, mps]\n"
		       "replay: {mps_threads: {b: 40, a: 60}}\n", &s);
	CHECK_STR(e, "", "mps_threads per program loads");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_MPS_THREADS), buf,
			      sizeof(buf)) && !strcmp(buf, "b=40,a=60"),
	      "  --mps-threads b=40,a=60");
	CHECK_INT(gm_mps_threads_check(buf), 0, "  which the replay accepts");
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [mps]\n"
		       "replay: {mps_threads: 25}\n", &s);
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_MPS_THREADS), buf,
			      sizeof(buf)) && !strcmp(buf, "25"),
	      "mps_threads for every program: --mps-threads 25");
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [mps]\n"
		       "replay: {mps_threads: 101}\n", &s);
	CHECK(strstr(e, "mem.yaml:5:23: ") && strstr(e, "1 and 100"),
	      "mps_threads 101: an error at its position, with the range");
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [mps]\n"
		       "replay: {mps_threads: {zz: 50}}\n", &s);
	CHECK_STR(e, "tests/data/study/mem.yaml:5:24: 'mps_threads' names no "
		  "program of the study: 'zz'", "mps_threads of no program");
	study_release(&s);

	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [single, procs]\n"
		       "replay: {one_shot: true}\n", &s);
	CHECK_STR(e, "", "one_shot loads");
	CHECK(s.one_shot && !study_knob_arg(&s, gm_knob_find(GM_KNOB_ONE_SHOT),
					    buf, sizeof(buf)) && !buf[0],
	      "  a flag that is on: --one-shot, with no value");
	CHECK_INT(s.nr_warnings, 0, "  every variant takes it: no warning");
	study_release(&s);

	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [single, cuda]\n"
		       "replay: {completion: poll}\n", &s);
	CHECK_STR(e, "", "a knob no listed variant takes is valid");
	CHECK_INT(s.nr_warnings, 1, "  with one warning");
	CHECK_STR(s.nr_warnings ? s.warnings[0] : "",
		  "tests/data/study/mem.yaml:5:22: 'completion' has no effect: "
		  "no listed variant takes it (it applies to: nss, elastic)",
		  "  naming its position and the variants that take it");
	study_release(&s);

	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [single, cuda, elastic]\n"
		       "replay: {timeslice: 0, copy_chunk: 0}\n", &s);
	CHECK_STR(e, "", "a study with elastic, timeslicing and chunking off");
	CHECK(study_needs_elastic(&s), "  needs the elastic modules");
	CHECK(study_same_kernels(&s), "  all variants run them (same_kernels)");
	CHECK(study_profiles(&s), "  makes a profile (it has single)");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_ELASTIC), buf,
			      sizeof(buf)) && !strcmp(buf, "identity"),
	      "  --elastic identity for the variants that take it");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_PROFILE), buf,
			      sizeof(buf)) && !strcmp(buf, s.paths.profile),
	      "  --profile PATHS.PROFILE");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_TIMESLICE), buf,
			      sizeof(buf)) && !strcmp(buf, "0"),
	      "  timeslice: 0 is --timeslice-us 0");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_COPY_CHUNK), buf,
			      sizeof(buf)) && !strcmp(buf, "0"),
	      "  copy_chunk: 0 is --copy-chunk 0");
	CHECK_INT(study_knob_arg(&s, gm_knob_find(GM_KNOB_POLICY), buf,
				 sizeof(buf)), -1, "  the policy is the plan's");
	study_release(&s);

	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [single, elastic]\n"
		       "replay: {same_kernels: false}\n", &s);
	CHECK_STR(e, "", "same_kernels: false loads");
	CHECK(study_needs_elastic(&s) && !study_same_kernels(&s),
	      "  the elastic modules, but only elastic runs them");
	CHECK_INT(study_knob_arg(&s, gm_knob_find(GM_KNOB_ELASTIC), buf,
				 sizeof(buf)), -1, "  no --elastic for the others");
	study_release(&s);

	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [cuda, elastic]\n", &s);
	CHECK_STR(e, "", "elastic without single loads");
	CHECK(!study_profiles(&s), "  but makes no profile");
	CHECK_INT(study_knob_arg(&s, gm_knob_find(GM_KNOB_PROFILE), buf,
				 sizeof(buf)), -1, "  so no --profile");
	CHECK_INT(s.nr_warnings, 1, "  and says so");
	study_release(&s);

	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [single, nss]\n"
		       "replay: {completion: poll}\n", &s);
	CHECK_STR(e, "", "nss with completion: poll loads");
	CHECK(study_needs_elastic(&s) && study_same_kernels(&s),
	      "  it needs the elastic modules, and single runs them too");
	CHECK(!study_profiles(&s), "  no variant takes a profile");
	study_release(&s);

	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nreplay: {completion: pol}\n", &s);
	CHECK_STR(e, "tests/data/study/mem.yaml:4:22: 'completion' must be "
		  "'event' or 'poll', not 'pol' (did you mean 'poll'?)",
		  "a completion typo is an error with a suggestion");
	study_release(&s);

	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [elastic]\n"
		       "replay: {grid: resident}\n", &s);
	CHECK_STR(e, "", "grid: resident loads");
	CHECK_INT(s.grid, GM_GRID_RESIDENT, "  as the resident cap");
	CHECK_INT(study_knob_arg(&s, gm_knob_find(GM_KNOB_GRID), buf,
				 sizeof(buf)), 0, "  which elastic runs get");
	CHECK_STR(buf, "resident", "  as --grid resident");
	study_release(&s);

	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_HOST_TIME), buf,
			      sizeof(buf)) && !strcmp(buf, "captured"),
	      "default host time: --host-time captured, for every variant");
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\n"
		       "replay: {host_time: none, max_host_gap: 250ms}\n", &s);
	CHECK_STR(e, "", "host_time and max_host_gap load");
	CHECK_INT(s.nr_warnings, 0, "  without a warning: every variant "
		  "takes them");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_HOST_TIME), buf,
			      sizeof(buf)) && !strcmp(buf, "none"),
	      "  as --host-time none");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_MAX_HOST_GAP), buf,
			      sizeof(buf)) && !strcmp(buf, "0.25"),
	      "  and --max-host-gap 0.25 (seconds)");
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nreplay: {host_time: off}\n", &s);
	CHECK_STR(e, "tests/data/study/mem.yaml:4:21: 'host_time' must be "
		  "'captured' or 'none', not 'off'",
		  "another host_time is an error at its position");
	study_release(&s);
	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nreplay: {max_host_gap: -1s}\n", &s);
	CHECK_STR(e, "tests/data/study/mem.yaml:4:24: 'max_host_gap' must be "
		  "a duration such as 500us, 1ms, 2s, 5min or 1h, not '-1s'",
		  "a negative max_host_gap is an error at its position");
	study_release(&s);

	e = load_error("programs:\n  - {name: a, command: x}\n"
		       "workloads: [[a]]\nvariants: [elastic]\n"
		       "replay: {grid: whole}\n", &s);
	CHECK_STR(e, "tests/data/study/mem.yaml:5:16: 'grid' must be "
		  "'captured' or 'resident', not 'whole'",
		  "another grid is an error at its position");
	study_release(&s);
}

static void test_closest(void)
{
	static const char *const names[] = { "programs", "paths", "policies",
					     "variants", NULL };

	CHECK_STR(gm_closest("programz", names), "programs", "one substitution");
	CHECK_STR(gm_closest("pahts", names), "paths", "one transposition");
	CHECK_STR(gm_closest("variant", names), "variants", "one deletion");
	CHECK(gm_closest("colour", names) == NULL, "no suggestion when far");
	CHECK(gm_closest("p", names) == NULL, "no suggestion for one letter");
}

/* Load @paths (the study's 'paths' mapping) with root @dir; -o @output. */
static int load_paths_yaml(const char *dir, const char *paths,
			   const char *output)
{
	struct study s;
	char *yaml = gm_xasprintf("root: %s\nprograms:\n  - bundle: %s/tests/data/"
				  "reconstruct/bundles/basic\nworkloads:\n  - [basic]\n"
				  "paths: %s\n", dir, top, paths);
	int ret = study_load_string(&s, "mem.yaml", yaml, strlen(yaml), output);

	study_release(&s);
	free(yaml);
	return ret;
}

/* Paths that clash are found as the file system resolves them. */
static void test_path_clash(void)
{
	char tmpl[] = "/tmp/gpumix-paths.XXXXXX";
	char *dir = mkdtemp(tmpl), *d = gm_path_join(dir, "d");
	char *l = gm_path_join(dir, "l"), *out;

	mkdir(d, 0755);
	CHECK_INT(symlink("d", l), 0, "a link to a directory");
	CHECK_INT(load_paths_yaml(dir, "{database: d/results.db, summary: "
				  "d/summary.md}", NULL), 0,
		  "distinct paths load");
	CHECK_INT(load_paths_yaml(dir, "{database: d/results.db, summary: "
				  "l/results.db}", NULL), -1,
		  "the summary through a link to the database's directory: refused");
	CHECK_STR(gm_error_message(), "mem.yaml:6:42: the summary (paths: summary), "
		  "'l/results.db', is also the database (paths: database): the"
		  " study would write both there", "... naming both, where it was set");
	gm_error_clear();
	CHECK_INT(load_paths_yaml(dir, "{database: d/x/results.db}", NULL), 0,
		  "a path below a directory that does not exist yet loads");
	out = gm_path_join(dir, "l/x/results.db");
	CHECK_INT(load_paths_yaml(dir, "{summary: d/x/results.db/s.md}", NULL), 0,
		  "... and another inside the default output");
	CHECK_INT(load_paths_yaml(dir, "{summary: d/x}", out), -1,
		  "gpumix run -o inside an explicit summary: refused");
	CHECK(strstr(gm_error_message(), "mem.yaml:6:18: the builds directory"
		     " (paths: builds), ") &&
	      strstr(gm_error_message(), "/l/x/results.db/builds', is inside the"
		     " summary (paths: summary), 'd/x'"),
	      "... naming the summary, where it was set, and what is inside it");
	gm_error_clear();
	CHECK_INT(load_paths_yaml(dir, "{logs: l}", NULL), 0,
		  "a link as a directory of its own loads");
	CHECK_INT(load_paths_yaml(dir, "{logs: l, runs: d/runs}", NULL), -1,
		  "... but not with another path inside what it links to");
	gm_error_clear();
	free(out);
	gm_remove_tree(dir);
	free(l);
	free(d);
}

int main(void)
{
	top = study_path_cwd();
	test_paths();
	test_full();
	test_defaults();
	test_commands();
	test_units();
	test_knobs();
	test_closest();
	test_path_clash();
	free(top);
	return test_done();
}
