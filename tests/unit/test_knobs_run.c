/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the run's rows of the knob table (common/knobs.h):
 * min_replays and watchdog. Each bound is tried on both front ends,
 * `gpumix replay`'s option (common/replay_opts_parse.c) and a study's
 * `replay:` key (study/study_replay.c), at the bound and one step past
 * it, with the exact message each gives; their defaults; what the study
 * writes back reads back the same; --help names each once, from its run
 * block, and a study keeps them out of the knob options that key a run
 * (its replay's line has them); and every option of getopt's table
 * reaches a handler, every row's option is in that table.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "knobs.h"
#include "replay_opts.h"
#include "strbuf.h"
#include "study/exec_priv.h"
#include "study/plan.h"
#include "study/study.h"
#include "study_replay_key.h"
#include "test.h"
#include "variant.h"

/* Parse `gpumix replay OPTION ARG dir`: 0 or -1, the message in @msg. */
static int opt_parse(const char *option, const char *arg,
		     struct gm_replay_opts *o, char *msg, size_t len)
{
	char *argv[] = { "replay", (char *)option, (char *)arg, "dir", NULL };
	int first, ret;

	gm_error_clear();
	gm_replay_opts_init(o);
	ret = gm_replay_opts_parse(o, 4, argv, &first);
	snprintf(msg, len, "%s", ret ? gm_error_message() : "");
	gm_error_clear();
	return ret;
}

static void test_rows(void)
{
	const struct gm_knob_desc *mr = gm_knob_find(GM_KNOB_MIN_REPLAYS);
	const struct gm_knob_desc *wd = gm_knob_find(GM_KNOB_WATCHDOG);

	if (!CHECK(mr && wd, "min_replays and watchdog have rows")) {
		return;
	}
	CHECK_STR(mr->option, "--min-replays", "min_replays: its option");
	CHECK_STR(mr->study_key, "min_replays", "... its study key");
	CHECK(mr->run && mr->parse && mr->kind == GM_KNOB_OTHER,
	      "... a run's knob, its own parser");
	CHECK_STR(wd->option, "--watchdog", "watchdog: its option");
	CHECK_STR(wd->study_key, "watchdog", "... its study key");
	CHECK(wd->run && wd->kind == GM_KNOB_DURATION && wd->zero &&
	      wd->option_per_s == 1,
	      "... a run's knob, a duration in seconds, 0 for off");
	CHECK(wd->option_min > 0 && wd->option_min < wd->min,
	      "... whose option alone goes below the study's minimum");
	for (size_t i = 0; gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		CHECK(!k->run || k == mr || k == wd, "no other row is the run's");
	}
	for (size_t i = 0; gm_variant_at(i); i++) {
		const struct gm_variant *v = gm_variant_at(i);
		CHECK((v->knobs & GM_KNOB_MIN_REPLAYS) &&
		      (v->knobs & GM_KNOB_WATCHDOG), v->name);
	}
}

/* --min-replays and 'min_replays': 2 to 1000 on both. */
static void test_min_replays(void)
{
	static const struct {
		const char *v;
		int ok;
	} cases[] = { { "1", 0 }, { "2", 1 }, { "7", 1 }, { "1000", 1 },
		      { "1001", 0 }, { NULL, 0 } };
	char msg[GM_ERROR_MSG_LEN], what[128];
	struct gm_replay_opts o;
	struct study s;

	for (size_t i = 0; cases[i].v; i++) {
		int ret = opt_parse("--min-replays", cases[i].v, &o, msg,
				    sizeof(msg));
		snprintf(what, sizeof(what), "--min-replays %s: %s", cases[i].v,
			 cases[i].ok ? "accepted" : "refused");
		CHECK_INT(ret, cases[i].ok ? 0 : -1, what);
		if (cases[i].ok) {
			CHECK_INT(o.min_replays, atoi(cases[i].v), "  its value");
			CHECK(o.given & GM_KNOB_MIN_REPLAYS, "  given");
		} else {
			char *want = gm_xasprintf("--min-replays takes an "
						  "integer from 2 to 1000 (each "
						  "program's last replay is "
						  "discarded), not '%s'",
						  cases[i].v);
			CHECK_STR(msg, want, "  its message");
			free(want);
		}
		ret = study_replay_key("min_replays", cases[i].v, &s, msg,
				  sizeof(msg));
		snprintf(what, sizeof(what), "min_replays: %s: %s", cases[i].v,
			 cases[i].ok ? "accepted" : "refused");
		CHECK_INT(ret, cases[i].ok ? 0 : -1, what);
		if (cases[i].ok) {
			CHECK_INT(s.min_replays, atoi(cases[i].v), "  its value");
		} else {
			char *want = gm_xasprintf("tests/data/study/mem.yaml:5:16: "
						  "'min_replays' must be between "
						  "2 and 1000, not %s",
						  cases[i].v);
			CHECK_STR(msg, want, "  its message, at its position");
			free(want);
		}
		study_release(&s);
	}
	/* (strtoul's spelling, as before the table) */
	CHECK(!opt_parse("--min-replays", "+7", &o, msg, sizeof(msg)) &&
	      o.min_replays == 7, "--min-replays +7");
	CHECK(opt_parse("--min-replays", "-7", &o, msg, sizeof(msg)) < 0,
	      "--min-replays -7: refused");
	CHECK(opt_parse("--min-replays", "", &o, msg, sizeof(msg)) < 0,
	      "--min-replays '': refused");
	CHECK(opt_parse("--min-replays", "7x", &o, msg, sizeof(msg)) < 0,
	      "--min-replays 7x: refused");
}

/*
 * One row for both: 0 (off) or at most 24h; --watchdog from 1ms (tests
 * stop a hung replay early), 'watchdog' from 1s.
 */
static void test_watchdog(void)
{
	static const char *const opt_ok[] = { "0", "0.001", "0.2", "1",
					      "86400", NULL };
	static const char *const opt_syntax[] = { "inf", "nan", "abc", "",
						  "5s", NULL };
	static const char *const opt_range[] = { "-1", "-0.5", "0.0009",
						 "86401", "1e6", NULL };
	static const char *const yaml_ok[] = { "0", "1s", "1", "60s", "24h",
					       "86400", NULL };
	static const char *const yaml_bad[] = { "0.999s", "999ms", "1ms",
						"86401", "24.001h", NULL };
	char msg[GM_ERROR_MSG_LEN], what[128];
	struct gm_replay_opts o;
	struct study s;

	for (size_t i = 0; opt_ok[i]; i++) {
		snprintf(what, sizeof(what), "--watchdog %s: accepted",
			 opt_ok[i]);
		CHECK(!opt_parse("--watchdog", opt_ok[i], &o, msg, sizeof(msg)) &&
		      o.watchdog_s == strtod(opt_ok[i], NULL), what);
	}
	for (size_t i = 0; opt_syntax[i]; i++) {
		char *want = gm_xasprintf("--watchdog takes a number of "
					  "seconds, not '%s'", opt_syntax[i]);
		snprintf(what, sizeof(what), "--watchdog '%s': refused",
			 opt_syntax[i]);
		CHECK_INT(opt_parse("--watchdog", opt_syntax[i], &o, msg,
				    sizeof(msg)), -1, what);
		CHECK_STR(msg, want, "  its message");
		free(want);
	}
	for (size_t i = 0; opt_range[i]; i++) {
		char *want = gm_xasprintf("--watchdog must be 0 (off) or "
					  "between 1ms and 24h, not %s",
					  opt_range[i]);
		snprintf(what, sizeof(what), "--watchdog %s: refused",
			 opt_range[i]);
		CHECK_INT(opt_parse("--watchdog", opt_range[i], &o, msg,
				    sizeof(msg)), -1, what);
		CHECK_STR(msg, want, "  its message");
		free(want);
	}
	for (size_t i = 0; yaml_ok[i]; i++) {
		snprintf(what, sizeof(what), "watchdog: %s: accepted",
			 yaml_ok[i]);
		CHECK_INT(study_replay_key("watchdog", yaml_ok[i], &s, msg,
				      sizeof(msg)), 0, what);
		study_release(&s);
	}
	CHECK(!study_replay_key("watchdog", "2min", &s, msg, sizeof(msg)) &&
	      s.watchdog_s == 120, "watchdog: 2min is 120 s");
	study_release(&s);
	CHECK(!study_replay_key("watchdog", "0", &s, msg, sizeof(msg)) &&
	      s.watchdog_s == 0, "watchdog: 0 is off, as --watchdog 0");
	study_release(&s);
	for (size_t i = 0; yaml_bad[i]; i++) {
		char *want = gm_xasprintf("tests/data/study/mem.yaml:5:13: "
					  "'watchdog' must be 0 (off) or "
					  "between 1s and 24h, not %s",
					  yaml_bad[i]);
		snprintf(what, sizeof(what), "watchdog: %s: refused",
			 yaml_bad[i]);
		CHECK_INT(study_replay_key("watchdog", yaml_bad[i], &s, msg,
				      sizeof(msg)), -1, what);
		CHECK_STR(msg, want, "  its message, at its position");
		free(want);
		study_release(&s);
	}
}

/* The defaults, and what a study writes for the replay reads back. */
static void test_defaults_and_back(void)
{
	char msg[GM_ERROR_MSG_LEN], arg[64];
	struct gm_replay_opts o, back;
	struct study s;

	gm_replay_opts_init(&o);
	CHECK_INT(o.min_replays, 7, "default --min-replays 7");
	CHECK(o.watchdog_s == 60, "default --watchdog 60");
	CHECK(!study_replay_key("min_replays", "7", &s, msg, sizeof(msg)) &&
	      s.watchdog_s == 60, "default watchdog 60 s");
	study_release(&s);
	CHECK(!study_replay_key("watchdog", "1s", &s, msg, sizeof(msg)) &&
	      s.min_replays == 7, "default min_replays 7");
	study_release(&s);

	CHECK(!study_replay_key("min_replays", "1000", &s, msg, sizeof(msg)),
	      "min_replays: 1000");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_MIN_REPLAYS), arg,
			      sizeof(arg)) && !strcmp(arg, "1000"),
	      "  the study writes --min-replays 1000");
	CHECK(!opt_parse("--min-replays", arg, &back, msg, sizeof(msg)) &&
	      back.min_replays == s.min_replays, "  which reads back the same");
	study_release(&s);
	CHECK(study_replay_key("watchdog", "90ms", &s, msg, sizeof(msg)) < 0,
	      "watchdog: 90ms is refused");
	study_release(&s);
	CHECK(!study_replay_key("watchdog", "1.5s", &s, msg, sizeof(msg)),
	      "watchdog: 1.5s");
	CHECK(!study_knob_arg(&s, gm_knob_find(GM_KNOB_WATCHDOG), arg,
			      sizeof(arg)) && !strcmp(arg, "1.5"),
	      "  the study writes --watchdog 1.5");
	CHECK(!opt_parse("--watchdog", arg, &back, msg, sizeof(msg)) &&
	      back.watchdog_s == s.watchdog_s, "  which reads back the same");
	study_release(&s);
}

/*
 * The knob options a study gives a run (and keys it by) leave the run's
 * knobs out: the replay's own line has them (study/exec_stages.c), so
 * the runs' hashes are what they were before the rows.
 */
static void test_knob_args(void)
{
	char msg[GM_ERROR_MSG_LEN];
	struct plan_run run = { 0 };
	struct exec_argv a = { 0 };
	struct study s;
	int seen = 0, timeslice = 0;

	CHECK(!study_replay_key("min_replays", "3", &s, msg, sizeof(msg)),
	      "a study with min_replays: 3");
	run.variant = gm_variant_find("nss");
	exec_knob_args(&s, &run, &a);
	for (size_t i = 0; i < a.nr; i++) {
		seen += !strcmp(a.v[i], "--min-replays") ||
			!strcmp(a.v[i], "--watchdog");
		timeslice += !strcmp(a.v[i], "--timeslice-us");
	}
	CHECK(timeslice == 1, "  nss's knob options: --timeslice-us among them");
	CHECK_INT(seen, 0, "  neither --min-replays nor --watchdog");
	exec_argv_release(&a);
	study_release(&s);
}

/* --min-replays with --one-shot, refused by _finish() as before. */
static void test_one_shot(void)
{
	char *argv[] = { "replay", "--one-shot", "--min-replays", "3", "dir",
			 NULL };
	struct gm_replay_opts o;
	int first;

	gm_replay_opts_init(&o);
	CHECK(!gm_replay_opts_parse(&o, 5, argv, &first), "parsed");
	gm_error_clear();
	CHECK_INT(gm_replay_opts_finish(&o, "single"), -1,
		  "--one-shot with --min-replays: refused");
	CHECK_STR(gm_error_message(), "--one-shot replays every program once: "
		  "--min-replays does not apply", "  its message");
	gm_error_clear();
	gm_replay_opts_init(&o);
	CHECK(!gm_replay_opts_parse(&o, 3, (char *[]){ "replay", "--one-shot",
						      "dir", NULL }, &first) &&
	      !gm_replay_opts_finish(&o, "single") && o.min_replays == 1,
	      "--one-shot alone: one replay");
}

/* --help: each run knob once, with its row's bounds and default. */
static void test_help(void)
{
	char *text = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&text, &len);

	gm_replay_opts_help(f);
	fclose(f);
	CHECK(strstr(text, "  --min-replays R       every program replays "
		     "until each has completed R\n                        "
		     "replays, 2 to 1000; each program's last one is\n"
		     "                        discarded (7)\n") != NULL,
	      "--help: --min-replays, 2 to 1000 (7)");
	CHECK(strstr(text, "  --watchdog SECONDS    stop a replay that makes no "
		     "progress (60; 0: off)\n") != NULL,
	      "--help: --watchdog (60; 0: off)");
	CHECK(!strstr(strstr(text, "--min-replays R ") + 1, "\n  --min-replays"),
	      "  --min-replays once");
	CHECK(!strstr(strstr(text, "--watchdog SECONDS") + 1,
		      "\n  --watchdog"), "  --watchdog once");
	free(text);
}

/* Every option of getopt's table has a handler: none is "unknown". */
static void test_every_option_handled(void)
{
	for (const struct option *l = gm_replay_longopts; l->name; l++) {
		char opt[64], msg[GM_ERROR_MSG_LEN], what[128];
		char *argv[] = { "replay", opt, "1", "dir", NULL };
		struct gm_replay_opts o;
		int first;

		snprintf(opt, sizeof(opt), "--%s", l->name);
		gm_error_clear();
		gm_replay_opts_init(&o);
		gm_replay_opts_parse(&o, l->has_arg ? 4 : 3, l->has_arg ? argv :
				     (char *[]){ "replay", opt, "dir", NULL },
				     &first);
		snprintf(msg, sizeof(msg), "%s", gm_error_message());
		gm_error_clear();
		snprintf(what, sizeof(what), "%s has a handler", opt);
		CHECK(!strstr(msg, "unknown option"), what);
	}
}

/* ... and every row's option is one of getopt's (a row without its long
 * option would be a knob no command line can set). */
static void test_every_row_an_option(void)
{
	for (size_t i = 0; gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		const struct option *l = gm_replay_longopts;
		char what[128];

		while (l->name && strcmp(k->option + 2, l->name)) {
			l++;
		}
		snprintf(what, sizeof(what), "%s is a long option", k->option);
		CHECK(l->name && (l->has_arg == required_argument) == !!k->arg,
		      what);
	}
}

int main(void)
{
	test_rows();
	test_min_replays();
	test_watchdog();
	test_defaults_and_back();
	test_knob_args();
	test_one_shot();
	test_help();
	test_every_option_handled();
	test_every_row_an_option();
	return test_done();
}
