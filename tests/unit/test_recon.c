/* SPDX-License-Identifier: MIT */
/*
 * Reconstructing workloads from bundles (reconstruct/recon.c, and through
 * it bundle_feed.c) on the committed corpus: program names, counts,
 * nondeterministic programs, unsupported calls, interruption and the
 * exact errors of bad input.
 */
#include <stdlib.h>
#include <string.h>

#include "reconstruct/model/model_int.h"
#include "reconstruct/recon.h"
#include "error.h"
#include "strbuf.h"
#include "test.h"
#include "variant.h"

#define GOOD "tests/data/bundles/good"
#define UNSUP "tests/data/bundles/unsupported"

static void names(void)
{
	static const struct {
		const char *bundle, *prog, *want;
	} cases[] = {
		{ "traces/bfs", NULL, "bfs" },
		{ "traces/bfs/", NULL, "bfs" },
		{ "bfs//", NULL, "bfs" },
		{ ".", "/usr/bin/cutcp", "cutcp" },
		{ "..", "mm", "mm" },
		{ "/", NULL, "program" },
		{ "", "", "program" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *n = recon_program_name(cases[i].bundle, cases[i].prog);
		CHECK_STR(n, cases[i].want, cases[i].bundle);
		free(n);
	}
	for (size_t i = 0; gm_variant_at(i); i++) {
		const struct gm_variant *v = gm_variant_at(i);
		CHECK_INT(recon_variant_check(v->name), v->implemented ? 0 : -1,
			  "every implemented variant of the table can be the "
			  "default, no other");
		gm_error_clear();
		CHECK_INT(v->knobs & GM_KNOBS_EVERY_VARIANT,
			  GM_KNOBS_EVERY_VARIANT, "every variant takes the "
			  "knobs of every variant (host time, ...)");
	}
	CHECK_STR(recon_default_variant(), "cuda", "the default is cuda");
	CHECK_INT(recon_variant_check("nosuch"), -1, "an unknown name is not");
	CHECK_STR(gm_error_message(), "unknown variant 'nosuch' (variants: "
		  "single, cuda, nss, elastic, priority, green, procs, mps)", "  its error names the implemented ones");
	gm_error_clear();
	CHECK_INT(recon_variant_check(NULL), -1, "nor is no name");
	gm_error_clear();
}

static int stop_at;

static int progress(void *ctx, size_t index, const char *prog, uint64_t done,
		    uint64_t total)
{
	int *calls = ctx;

	(void)index;
	(void)prog;
	(void)done;
	(void)total;
	return ++*calls == stop_at;
}

static void good(void)
{
	const char *two[] = { GOOD, GOOD "/" };
	const char *nd[] = { "good" };
	struct recon_opts o = { .variant = "cuda" };
	struct recon_stats st;
	struct strbuf rep = STRBUF_INIT;
	struct model *m;
	int calls = 0;

	o.progress = progress;
	o.progress_ctx = &calls;
	stop_at = -1;
	CHECK_INT(recon_build(&m, two, 1, &o, &rep, &st), 0, "good bundle");
	CHECK(m && m->finished, "a finished model");
	CHECK_STR(model_name(m), "good", "workload named after the program");
	CHECK_INT(st.programs, 1, "one program");
	CHECK_INT(st.events, 15, "15 events read");
	CHECK_INT(st.calls, 7, "7 calls");
	CHECK_INT(st.ops, 5, "5 operations (module and kernel are init)");
	CHECK_INT(st.launches, 1, "one launch");
	CHECK_INT(m->progs[0]->nr_modules, 1, "the module");
	CHECK_STR(m->progs[0]->kernels[0].name, "_Z1kPfi", "kernel by name");
	CHECK_INT(m->progs[0]->kernels[0].nr_params, 2, "its layout");
	CHECK_INT(m->progs[0]->deterministic, 1, "verified by default");
	CHECK(calls >= 2, "progress was reported");
	model_free(m);

	o.nondeterministic = nd;
	o.nr_nondeterministic = 1;
	CHECK_INT(recon_build(&m, two, 2, &o, &rep, &st), 0, "a bundle twice");
	CHECK_STR(m->progs[0]->name, "good#1", "first copy: instance 1");
	CHECK_STR(m->progs[1]->name, "good#2", "second copy: instance 2");
	CHECK_STR(model_name(m), "good#1-2", "workload name: the copies once");
	CHECK(!m->progs[0]->deterministic && !m->progs[1]->deterministic,
	      "--nondeterministic of the base name marks both copies");
	model_free(m);
	strbuf_release(&rep);

	nd[0] = "good#2";
	CHECK_INT(recon_build(&m, two, 2, &o, &rep, &st), 0, "by its own name");
	CHECK(m->progs[0]->deterministic && !m->progs[1]->deterministic,
	      "only that copy");
	model_free(m);

	nd[0] = "other";
	CHECK_INT(recon_build(&m, two, 1, &o, &rep, &st), -1, "unknown name");
	CHECK_STR(gm_error_message(), "--nondeterministic 'other' is not a "
		  "program of the workload (good)", "its error");
	CHECK(m == NULL, "no model");
	gm_error_clear();
	o.nr_nondeterministic = 0;

	calls = 0;
	stop_at = 2;
	CHECK_INT(recon_build(&m, two, 1, &o, &rep, &st), -1, "interrupted");
	CHECK_STR(gm_error_cause(1), "interrupted after event 0", "says so");
	gm_error_clear();
	strbuf_release(&rep);
}

static void bad(void)
{
	const char *missing[] = { "tests/data/nosuch" };
	const char *unsup[] = { UNSUP };
	struct recon_opts o = { .variant = "single" };
	struct recon_stats st;
	struct strbuf rep = STRBUF_INIT;
	struct model *m;

	CHECK_INT(recon_build(&m, missing, 1, &o, &rep, &st), -1, "no bundle");
	CHECK_STR(gm_error_message(), "cannot reconstruct 'tests/data/nosuch'",
		  "headline");
	CHECK_STR(gm_error_cause(1), "bundle 'tests/data/nosuch' does not exist",
		  "cause");
	gm_error_clear();
	CHECK_INT(recon_build(&m, missing, 0, &o, &rep, &st), -1, "no bundles");
	CHECK_STR(gm_error_message(), "no bundles to reconstruct", "its error");
	gm_error_clear();
	o.variant = "nosuch";
	CHECK_INT(recon_build(&m, unsup, 1, &o, &rep, &st), -1, "bad variant");
	CHECK_STR(gm_error_message(), "unknown variant 'nosuch' (variants: "
		  "single, cuda, nss, elastic, priority, green, procs, mps)", "its error");
	gm_error_clear();

	o.variant = "single";
	CHECK_INT(recon_build(&m, unsup, 1, &o, &rep, &st), -1,
		  "unsupported calls stop it");
	CHECK_STR(rep.buf, "unsupported: program 'unsupported': event 15: "
		  "cuGraphLaunch\n", "listed in the report");
	CHECK_STR(gm_error_message(), "cannot reconstruct 'unsupported': 1 "
		  "call that gpumix cannot replay (listed above)", "headline");
	gm_error_clear();
	strbuf_reset(&rep);
	o.allow_unsupported = 1;
	CHECK_INT(recon_build(&m, unsup, 1, &o, &rep, &st), 0,
		  "--allow-unsupported");
	CHECK_INT(st.unsupported, 1, "counted");
	CHECK(strstr(rep.buf, "warning: program 'unsupported': event 15: "
			      "cuGraphLaunch: unsupported, not replayed\n") != NULL,
	      "a warning with its event");
	model_free(m);
	strbuf_release(&rep);
}

int main(void)
{
	names();
	good();
	bad();
	return test_done();
}
