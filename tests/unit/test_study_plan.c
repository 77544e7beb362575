/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for plan generation: combinations and their counts (55 pairs
 * of 11, 54 with one exclusion, C(10,4) = 210 quads), exclusions by
 * subset, explicit lists, baselines shared per program or per workload,
 * run names and order, repetitions (their layout, the seeded shuffle:
 * the same seed the same order, another seed another, a block's order
 * independent of the blocks around it), and the shipped studies in
 * workloads/.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "study/plan.h"
#include "study/study.h"
#include "test.h"

static const char *const suite[] = {
	"bfs", "cutcp", "fft", "histo", "lbm", "mri-q", "mm", "sad", "spmv",
	"stencil", "tpacf", NULL,
};

/* A study of the suite's programs with @workloads and @rest appended;
 * each run once unless @rest says 'repeats:'. */
static int load(struct study *s, struct study_plan *p, const char *workloads,
		const char *rest)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_addstr(&sb, "programs:\n");
	for (size_t i = 0; suite[i]; i++) {
		strbuf_addf(&sb, "  - {name: %s, command: x}\n", suite[i]);
	}
	strbuf_addf(&sb, "workloads:\n%s%s", workloads, rest ? rest : "");
	if (!rest || !strstr(rest, "repeats:")) {
		strbuf_addstr(&sb, "repeats: 1\n");
	}
	gm_error_clear();
	ret = study_load_string(s, "tests/data/study/plan.yaml", sb.buf, sb.len,
				NULL);
	memset(p, 0, sizeof(*p));
	if (!ret) {
		ret = study_plan_build(p, s);
	}
	if (ret) {
		printf("# %s\n", gm_error_message());
	}
	strbuf_release(&sb);
	return ret;
}

static void release(struct study *s, struct study_plan *p)
{
	study_plan_release(p);
	study_release(s);
}

static int has_workload(const struct study_plan *p, const char *name)
{
	for (size_t i = 0; i < p->nr_workloads; i++) {
		if (!strcmp(p->workloads[i].name, name)) {
			return 1;
		}
	}
	return 0;
}

static void test_binomial(void)
{
	CHECK_INT(study_binomial(11, 2), 55, "C(11,2) = 55");
	CHECK_INT(study_binomial(10, 4), 210, "C(10,4) = 210");
	CHECK_INT(study_binomial(5, 0), 1, "C(5,0) = 1");
	CHECK_INT(study_binomial(3, 4), 0, "C(3,4) = 0");
	CHECK(study_binomial(60, 30) == 118264581564861424ull, "C(60,30) is exact");
	CHECK(study_binomial(200, 100) == UINT64_MAX, "C(200,100) saturates");
	CHECK(study_binomial(67, 33) == 14226520737620288370ull,
	      "C(67,33), near 2^64, is exact (no early saturation)");
	CHECK(study_binomial(68, 34) == UINT64_MAX, "C(68,34) > 2^64 saturates");
}

static void test_pairs(void)
{
	struct study s;
	struct study_plan p;

	CHECK_INT(load(&s, &p, "  - combinations: {size: 2}\n", NULL), 0,
		  "all pairs of 11 programs");
	CHECK_INT(p.nr_user_workloads, 55, "  55 workloads");
	CHECK_INT(p.nr_baselines, 11, "  11 single baselines, one per program");
	CHECK_INT(p.nr_runs, 66, "  66 runs");
	CHECK_STR(p.runs[0].id, "bfs.single", "  baselines first, in program order");
	CHECK_INT(p.runs[0].baseline, 1, "  marked as baselines");
	CHECK_STR(p.runs[11].id, "bfs+cutcp.cuda", "  then the pairs, in 'of' order");
	CHECK_STR(p.runs[65].id, "stencil+tpacf.cuda", "  the last pair");
	CHECK_STR(p.workloads[p.runs[0].workload].name, "bfs",
		  "  a baseline's workload is the program alone");
	CHECK_INT(p.nr_workloads, 66, "  11 one-program workloads are added");
	CHECK(p.workloads[60].baseline_only, "  and marked baseline-only");
	release(&s, &p);

	CHECK_INT(load(&s, &p, "  - combinations:\n      size: 2\n"
		       "      exclude: [[lbm, bfs]]\n", NULL), 0,
		  "pairs without bfs+lbm");
	CHECK_INT(p.nr_user_workloads, 54, "  54 workloads");
	CHECK(!has_workload(&p, "bfs+lbm"), "  bfs+lbm is gone");
	CHECK(has_workload(&p, "bfs+mm"), "  bfs+mm stays");
	CHECK_INT(p.nr_runs, 65, "  65 runs");
	release(&s, &p);

	CHECK_INT(load(&s, &p, "  - combinations: {size: 2}\n",
		       "baseline: workload\n"), 0, "pairs with per-workload baselines");
	CHECK_INT(p.nr_baselines, 0, "  no shared baselines");
	CHECK_INT(p.nr_runs, 110, "  55 x 2 runs");
	CHECK_STR(p.runs[0].id, "bfs+cutcp.single", "  workload by workload");
	CHECK_STR(p.runs[1].id, "bfs+cutcp.cuda", "  every variant of it");
	CHECK_INT(p.nr_workloads, 55, "  no one-program workloads");
	release(&s, &p);

	CHECK_INT(load(&s, &p, "  - combinations: {size: 2}\n",
		       "variants: [cuda]\n"), 0, "pairs in cuda only");
	CHECK_INT(p.nr_runs, 55, "  55 runs, no baselines");
	release(&s, &p);
}

static void test_quads(void)
{
	struct study s;
	struct study_plan p;

	CHECK_INT(load(&s, &p, "  - combinations:\n      of: [cutcp, fft, histo, "
		       "lbm, mri-q, mm, sad, spmv, stencil, tpacf]\n"
		       "      size: 4\n", NULL), 0, "quads without bfs");
	CHECK_INT(p.nr_user_workloads, 210, "  C(10,4) = 210 workloads");
	CHECK_INT(p.nr_baselines, 10, "  10 baselines: bfs is in no workload");
	CHECK(!p.used[0], "  bfs is not used");
	CHECK_STR(p.workloads[0].name, "cutcp+fft+histo+lbm", "  the first quad");
	CHECK_STR(p.workloads[209].name, "sad+spmv+stencil+tpacf", "  the last quad");
	release(&s, &p);

	CHECK_INT(load(&s, &p, "  - combinations:\n      of: [cutcp, fft, histo, "
		       "lbm, mri-q, mm, sad, spmv, stencil, tpacf]\n"
		       "      size: 4\n      exclude: [[lbm, mm], [sad]]\n",
		       NULL), 0, "quads with a pair and a single exclusion");
	/* Without sad: C(9,4) = 126; of those, with lbm and mm: C(7,2) = 21. */
	CHECK_INT(p.nr_user_workloads, 105, "  an exclusion removes every superset");
	release(&s, &p);
}

static void test_lists(void)
{
	struct study s;
	struct study_plan p;

	CHECK_INT(load(&s, &p, "  - [mm, spmv]\n  - [mm]\n  - [stencil, lbm, mm]\n",
		       NULL), 0, "explicit workloads");
	CHECK_INT(p.nr_user_workloads, 3, "  three workloads");
	CHECK_STR(p.workloads[2].name, "stencil+lbm+mm", "  named in the order listed");
	CHECK_INT(p.nr_baselines, 4, "  one baseline per program used");
	CHECK_INT(p.nr_workloads, 6, "  the one-program workload [mm] is shared");
	CHECK_STR(p.runs[1].id, "mm.single", "  baselines in program order");
	CHECK_INT(p.runs[1].workload, 1, "  mm's baseline uses the listed [mm]");
	CHECK_INT(p.nr_runs, 7, "  4 baselines + 3 cuda runs");
	CHECK_STR(p.runs[5].id, "mm.cuda", "  the one-program workload also runs cuda");
	release(&s, &p);

	CHECK(load(&s, &p, "  - [mm, spmv]\n  - combinations:\n      of: [spmv, mm, "
		   "lbm]\n      size: 2\n", NULL) == -1,
	      "a list repeated by combinations is refused");
	release(&s, &p);
}

/* N copies of one program (doc/study-yaml.md): instances lbm#1 ... */
static void test_copies(void)
{
	struct study s;
	struct study_plan p;

	CHECK_INT(load(&s, &p, "  - {program: lbm, copies: 3}\n"
		       "  - [mm, {program: lbm, copies: 2}]\n"
		       "  - [lbm, spmv, lbm]\n", "variants: [single, cuda]\n"),
		  0, "copies and a program listed twice load");
	CHECK_INT(p.nr_user_workloads, 3, "  three workloads");
	CHECK_STR(p.workloads[0].name, "lbm#1-3", "  three copies: lbm#1-3");
	CHECK_INT(p.workloads[0].nr, 3, "  of three programs");
	CHECK_STR(p.workloads[0].inst[0], "lbm#1", "  instance 1");
	CHECK_STR(p.workloads[0].inst[2], "lbm#3", "  ... to 3");
	CHECK_STR(p.workloads[1].name, "mm+lbm#1-2", "  copies beside mm");
	CHECK_STR(p.workloads[1].inst[0], "mm", "  mm keeps its name");
	CHECK_STR(p.workloads[2].name, "lbm#1+spmv+lbm#2",
		  "  a program listed twice: copies apart");
	CHECK_INT(p.nr_baselines, 3, "  one alone run per program: lbm, mm, spmv");
	CHECK(has_workload(&p, "lbm"), "  lbm's alone run is lbm alone");
	CHECK_STR(p.runs[p.nr_baselines].id, "lbm#1-3.cuda",
		  "  the copies' run");
	release(&s, &p);

	CHECK_INT(load(&s, &p, "  - {program: lbm, copies: 2}\n",
		       "variants: [single, cuda]\nbaseline: workload\n"), 0,
		  "baseline: workload");
	CHECK_STR(p.runs[0].id, "lbm#1-2.single",
		  "  the copies' own alone run (each copy alone)");
	release(&s, &p);
}

/* With a profile and a baseline per workload, every alone run first. */
static void test_profile_order(void)
{
	struct study s;
	struct study_plan p;
	static const char yaml[] =
		"programs:\n  - {name: a, command: x}\n  - {name: b, command: x}\n"
		"  - {name: c, command: x}\nworkloads:\n  - combinations: {size: 2}\n"
		"variants: [single, cuda, elastic]\npolicies: [mpmax]\n"
		"baseline: workload\nrepeats: 1\n";
	static const char *const want[] = {
		"a+b.single", "a+c.single", "b+c.single", "a+b.cuda",
		"a+b.elastic.mpmax", "a+c.cuda", "a+c.elastic.mpmax", "b+c.cuda",
		"b+c.elastic.mpmax",
	};

	memset(&p, 0, sizeof(p));
	int ret = study_load_string(&s, "tests/data/study/mem.yaml", yaml,
				    strlen(yaml), NULL);
	if (!ret) {
		ret = study_plan_build(&p, &s);
	}
	CHECK_INT(ret, 0, "a study with a profile and baseline: workload plans");
	CHECK_INT(p.nr_runs, 9, "  9 runs");
	for (size_t i = 0; i < p.nr_runs && i < 9; i++) {
		CHECK_STR(p.runs[i].id, want[i], "  in order: the single runs first");
	}
	release(&s, &p);
}

/* The ids of @p's runs, one string ("a.single b.single ..."). */
static char *ids(const struct study_plan *p)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < p->nr_runs; i++) {
		strbuf_addf(&sb, "%s%s", i ? " " : "", p->runs[i].id);
	}
	return strbuf_detach(&sb, NULL);
}

/* The ids of the runs of workload @w in repetition @rep, in plan order. */
static char *block_ids(const struct study_plan *p, const char *w, unsigned rep)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < p->nr_runs; i++) {
		const struct plan_run *r = &p->runs[i];
		if (r->repetition == rep &&
		    !strcmp(p->workloads[r->workload].name, w)) {
			strbuf_addf(&sb, "%s ", r->id);
		}
	}
	return strbuf_detach(&sb, NULL);
}

static int load_abc(struct study *s, struct study_plan *p, const char *more)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_addf(&sb, "programs:\n  - {name: a, command: x}\n"
		    "  - {name: b, command: x}\n  - {name: c, command: x}\n"
		    "variants: [single, cuda, nss, elastic]\n"
		    "policies: [median, mpmax]\n%s", more);
	memset(p, 0, sizeof(*p));
	ret = study_load_string(s, "tests/data/study/mem.yaml", sb.buf, sb.len,
				NULL);
	if (!ret) {
		ret = study_plan_build(p, s);
	}
	if (ret) {
		printf("# %s\n", gm_error_message());
	}
	strbuf_release(&sb);
	return ret;
}

static void test_repetitions(void)
{
	struct study s;
	struct study_plan p;
	char *first, *again, *other;

	CHECK_INT(load_abc(&s, &p, "workloads: {combinations: {size: 2}}\n"
			   "repeats: 3\nseed: 7\n"), 0,
		  "pairs of a, b, c in 4 variants, 3 repetitions, seed 7");
	CHECK_INT(p.nr_configs, 3 + 3 * 4, "  15 runs per repetition");
	CHECK_INT(p.nr_repetitions, 3, "  3 repetitions");
	CHECK_INT(p.nr_runs, 45, "  45 runs");
	int laid_out = 1, blocks = 1, ids_ok = 1, once = 1;
	for (size_t i = 0; i < p.nr_runs; i++) {
		const struct plan_run *r = &p.runs[i];
		/* repetition by repetition, 15 runs each */
		laid_out &= r->repetition == i / 15;
		/* in each, the 3 alone runs, then a+b, a+c, b+c, 4 each */
		size_t k = i % 15;
		const char *w = p.workloads[r->workload].name;
		static const char *const wl[] = { "a+b", "a+c", "b+c" };
		blocks &= k < 3 ? r->baseline : !strcmp(w, wl[(k - 3) / 4]);
		char want[64];
		snprintf(want, sizeof(want), r->repetition ? ".r%u" : "",
			 r->repetition);
		size_t n = strlen(r->id), m = strlen(want);
		ids_ok &= n > m && !strcmp(r->id + n - m, want) &&
			  (r->repetition || !strstr(r->id, ".r"));
		once &= plan_run_index(&p, r->config, r->repetition) == i;
	}
	CHECK(laid_out, "  repetition by repetition: all of 0, then 1, then 2");
	CHECK(blocks, "  in each, the alone runs, then workload by workload");
	CHECK(ids_ok, "  repetition 0 keeps the plain name, R adds .rR");
	CHECK(once, "  each configuration once per repetition (by_config)");
	CHECK_STR(p.runs[plan_run_index(&p, 4, 2)].id, "a+b.nss.r2",
		  "  configurations in the listed order: 4 is a+b.nss");
	first = ids(&p);
	char *ab0 = block_ids(&p, "a+b", 0), *ab1 = block_ids(&p, "a+b", 1);
	int shuffled = 0;
	for (unsigned r = 1; r < 3; r++) {
		static const char *const wl[] = { "a+b", "a+c", "b+c" };
		for (size_t w = 0; w < 3; w++) {
			char *x0 = block_ids(&p, wl[w], 0), *xr = block_ids(&p, wl[w], r);
			/* the same order: the same ids once ".rR" is dropped */
			struct strbuf a = STRBUF_INIT;
			for (const char *c = xr; *c; c++) {
				if (c[0] == '.' && c[1] == 'r' && c[2] >= '0' && c[2] <= '9') {
					c += 2;
					continue;
				}
				strbuf_addch(&a, *c);
			}
			shuffled |= strcmp(x0, a.buf) != 0;
			strbuf_release(&a);
			free(x0);
			free(xr);
		}
	}
	CHECK(shuffled, "  a workload's runs are not in the same order in every repetition");
	release(&s, &p);

	CHECK_INT(load_abc(&s, &p, "workloads: {combinations: {size: 2}}\n"
			   "repeats: 3\nseed: 7\n"), 0, "the same study again");
	again = ids(&p);
	CHECK_STR(again, first, "  the same seed gives the same order");
	release(&s, &p);

	CHECK_INT(load_abc(&s, &p, "workloads: {combinations: {size: 2}}\n"
			   "repeats: 3\nseed: 8\n"), 0, "with seed 8");
	other = ids(&p);
	CHECK(strcmp(other, first) != 0, "  another seed gives another order");
	release(&s, &p);

	/* Without b+c, a+b's and a+c's runs keep their order. */
	CHECK_INT(load_abc(&s, &p, "workloads: [[a, b], [a, c]]\n"
			   "repeats: 2\nseed: 7\n"), 0,
		  "a+b and a+c only, 2 repetitions, seed 7");
	char *ab0b = block_ids(&p, "a+b", 0), *ab1b = block_ids(&p, "a+b", 1);
	CHECK_STR(ab0b, ab0, "  a+b's order in repetition 0 is as in the larger study");
	CHECK_STR(ab1b, ab1, "  and in repetition 1");
	release(&s, &p);

	CHECK_INT(load_abc(&s, &p, "workloads: {combinations: {size: 2}}\n"
			   "repeats: 1\nseed: 7\n"), 0, "repeats: 1");
	CHECK_STR(p.runs[3].id, "a+b.cuda", "  the runs in the order listed");
	CHECK_STR(p.runs[6].id, "a+b.elastic.mpmax", "  (policies as listed)");
	CHECK_INT(p.nr_runs, 15, "  15 runs, no suffix");
	release(&s, &p);

	CHECK_INT(load_abc(&s, &p, "workloads: [[a, b]]\nrepeats: 2\n"
			   "precision: 5%\nmax_repeats: 4\n"), 0,
		  "a precision target");
	CHECK_INT(p.nr_repetitions, 4, "  plans max_repeats repetitions");
	CHECK_STR(p.runs[p.nr_runs - 1].id + strlen(p.runs[p.nr_runs - 1].id) - 3,
		  ".r3", "  the last is repetition 3");
	release(&s, &p);
	free(first);
	free(again);
	free(other);
	free(ab0);
	free(ab1);
	free(ab0b);
	free(ab1b);
}

static void test_shipped(void)
{
	static const struct {
		const char *file;
		size_t workloads, runs;
	} shipped[] = {
		/* 3 repetitions (the default) of each run */
		{ "workloads/demo.yaml", 3, 3 * 12 },
		{ "workloads/parboil-pairs.yaml", 55, 3 * 341 },
		{ "workloads/parboil-quads.yaml", 210, 3 * 1270 },
		{ "workloads/parboil-sample.yaml", 10, 3 * 71 },
		{ "workloads/parboil-mechanisms.yaml", 55, 3 * 561 },
		{ "workloads/mechanisms-sample.yaml", 10, 3 * 101 },
		/* 6 programs x 5 copy counts; 6 alone runs and 30 x 2 */
		{ "workloads/spmd-copies.yaml", 30, 66 },
	};

	for (size_t i = 0; i < sizeof(shipped) / sizeof(shipped[0]); i++) {
		struct study s;
		struct study_plan p;
		char what[128];

		memset(&p, 0, sizeof(p));
		int ret = study_load(&s, shipped[i].file, NULL);
		if (!ret) {
			ret = study_plan_build(&p, &s);
		}
		snprintf(what, sizeof(what), "%s loads", shipped[i].file);
		CHECK_INT(ret, 0, what);
		if (ret) {
			gm_error_report(stdout);
		}
		snprintf(what, sizeof(what), "  %zu workloads", shipped[i].workloads);
		CHECK_INT(p.nr_user_workloads, shipped[i].workloads, what);
		snprintf(what, sizeof(what), "  %zu runs", shipped[i].runs);
		CHECK_INT(p.nr_runs, shipped[i].runs, what);
		release(&s, &p);
	}
}

int main(void)
{
	test_binomial();
	test_pairs();
	test_quads();
	test_lists();
	test_copies();
	test_profile_order();
	test_repetitions();
	test_shipped();
	return test_done();
}
