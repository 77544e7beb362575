/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the knob table (common/knobs.h): every row is well
 * formed; each row that the table parses names its own field of struct
 * gm_knob_values (common/knob_values.h), which a knob stored through the
 * row reads back from by name in both the replay's options and a study;
 * the two front ends that
 * read a knob, a study's `replay:` key (study/study_replay.c) and `gpumix
 * replay`'s option (common/replay_opts.c), accept and refuse the same
 * values (each bound and just past it), with the same range in their
 * messages, and what the study writes back for the replay is what the
 * replay reads; the knobs' enums and their names agree; the doc pages
 * state each bound the table has.
 */
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "knobs.h"
#include "replay_opts.h"
#include "strbuf.h"
#include "study/study.h"
#include "study_replay_key.h"
#include "test.h"
#include "variant.h"

/* The kinds both front ends take through the table. */
static int table_kind(const struct gm_knob_desc *k)
{
	return k->kind != GM_KNOB_OTHER;
}

static void test_rows(void)
{
	unsigned seen = 0;

	for (size_t i = 0; gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		char what[128];

		snprintf(what, sizeof(what), "%s: one row per knob bit", k->option);
		CHECK(!(seen & k->knob) && k->knob && !(k->knob & (k->knob - 1)),
		      what);
		seen |= k->knob;
		CHECK(gm_knob_find(k->knob) == k, "  gm_knob_find() finds it");
		CHECK((k->field_type != GM_KNOB_FIELD_NONE) ==
		      (k->kind != GM_KNOB_OTHER || k->parse != NULL),
		      "  a field, exactly when the table parses its value");
		CHECK(k->option_min == 0 ||
		      ((k->kind == GM_KNOB_DURATION || k->kind == GM_KNOB_SIZE) &&
		       k->option_min < k->min),
		      "  an option_min only below a duration's or size's min");
		for (size_t j = 0; j < i; j++) {
			const struct gm_knob_desc *o = gm_knob_at(j);
			CHECK(strcmp(o->option, k->option) &&
			      (!k->study_key || !o->study_key ||
			       strcmp(o->study_key, k->study_key)),
			      "  its option and study key are no other row's");
			CHECK(k->field_type == GM_KNOB_FIELD_NONE ||
			      o->field_type == GM_KNOB_FIELD_NONE ||
			      o->field != k->field,
			      "  its field is no other row's");
		}
		if (!table_kind(k)) {
			continue;
		}
		CHECK(k->study_key && k->option, "  the table checks it: both "
		      "a study and gpumix replay take it");
		CHECK((k->kind == GM_KNOB_FLAG) == !k->arg,
		      "  a flag, and only a flag, has no argument");
		if (k->kind == GM_KNOB_DURATION || k->kind == GM_KNOB_SIZE) {
			CHECK(k->min <= k->max && k->min >= 0,
			      "  its bounds are ordered");
			CHECK(k->def < 0 || (k->def == 0 && k->zero) ||
			      (k->def >= k->min && k->def <= k->max),
			      "  its default is within them");
		}
		if (k->kind == GM_KNOB_DURATION) {
			CHECK(k->option_per_s > 0 && k->unit,
			      "  a duration names its option's unit");
		}
		if (k->kind == GM_KNOB_CHOICE) {
			size_t n = 0;
			while (k->choices[n]) {
				n++;
			}
			CHECK(n >= 2 && k->def >= 0 && k->def < (double)n,
			      "  a choice of two or more, its default one of them");
		}
	}
	for (unsigned bit = 1; bit <= GM_KNOB_ARRIVALS; bit <<= 1) {
		CHECK(gm_knob_find((enum gm_knob)bit) != NULL,
		      "every GM_KNOB_* bit has its row");
	}
}

/* The value `gpumix replay` parsed for knob @k, in the table's terms
 * (seconds, bytes, a choice's index, 0 or 1), read by the field's name. */
static double replay_value(const struct gm_replay_opts *o,
			   const struct gm_knob_desc *k)
{
	switch (k->knob) {
	case GM_KNOB_MIN_REPLAYS:
		return o->min_replays;
	case GM_KNOB_WATCHDOG:
		return o->watchdog_s;
	case GM_KNOB_TIMESLICE:
		return o->timeslice_us / k->option_per_s;
	case GM_KNOB_COPY_CHUNK:
		return (double)o->copy_chunk;
	case GM_KNOB_COMPLETION:
		return o->completion;
	case GM_KNOB_GRID:
		return o->grid;
	case GM_KNOB_HOST_TIME:
		return o->host_time;
	case GM_KNOB_MAX_HOST_GAP:
		return o->max_host_gap_s;
	case GM_KNOB_ONE_SHOT:
		return o->one_shot;
	case GM_KNOB_PROBE:
		return o->probe;
	default:
		return -2;
	}
}

/* The value the study loaded for knob @k, in the table's terms, read by
 * the field's name. */
static double study_value(const struct study *s, const struct gm_knob_desc *k)
{
	switch (k->knob) {
	case GM_KNOB_MIN_REPLAYS:
		return s->min_replays;
	case GM_KNOB_WATCHDOG:
		return s->watchdog_s;
	case GM_KNOB_TIMESLICE:
		return s->timeslice_us / k->option_per_s;
	case GM_KNOB_COPY_CHUNK:
		return (double)s->copy_chunk;
	case GM_KNOB_COMPLETION:
		return s->completion;
	case GM_KNOB_GRID:
		return s->grid;
	case GM_KNOB_HOST_TIME:
		return s->host_time;
	case GM_KNOB_MAX_HOST_GAP:
		return s->max_host_gap_s;
	case GM_KNOB_ONE_SHOT:
		return s->one_shot;
	case GM_KNOB_PROBE:
		return s->probe;
	default:
		return -3;
	}
}

/* Parse `gpumix replay OPTION [ARG] dir`: 0 or -1, the message in @msg. */
static int replay_parse(const struct gm_knob_desc *k, const char *arg,
			struct gm_replay_opts *o, char *msg, size_t len)
{
	char *argv[] = { "replay", (char *)k->option, (char *)arg, "dir", NULL };
	int first, argc = arg ? 4 : 3, ret;

	if (!arg) {
		argv[2] = "dir";
		argv[3] = NULL;
	}
	gm_error_clear();
	gm_replay_opts_init(o);
	ret = gm_replay_opts_parse(o, argc, argv, &first);
	snprintf(msg, len, "%s", ret ? gm_error_message() : "");
	gm_error_clear();
	return ret;
}

/*
 * Give knob @k value @v (the table's terms) to both front ends, spelled
 * @opt for the option and @yaml for the study, or @opt for both when
 * @yaml is NULL; @ropt, @rstudy: whether the option and the study must
 * take it (they differ only below a row's min, down to its option_min).
 */
static void agree_each(const struct gm_knob_desc *k, const char *opt,
		       const char *yaml, int ropt, int rstudy)
{
	char what[256], rmsg[GM_ERROR_MSG_LEN], smsg[GM_ERROR_MSG_LEN];
	struct gm_replay_opts o;
	struct study s;
	int rret = replay_parse(k, opt, &o, rmsg, sizeof(rmsg));
	int sret = study_replay_key(k->study_key, yaml ? yaml : opt, &s, smsg,
				    sizeof(smsg));
	int accept = ropt && rstudy;

	if (ropt == rstudy) {
		snprintf(what, sizeof(what), "%s %s and %s: %s by both",
			 k->option, opt ? opt : "", k->study_key,
			 accept ? "accepted" : "refused");
	} else {
		snprintf(what, sizeof(what), "%s %s: %s, %s: %s", k->option,
			 opt ? opt : "", ropt ? "accepted" : "refused",
			 k->study_key, rstudy ? "accepted" : "refused");
	}
	if (!CHECK(rret == (ropt ? 0 : -1) && sret == (rstudy ? 0 : -1),
		   what)) {
		printf("#   replay: %s\n#   study: %s\n", rret ? rmsg : "ok",
		       sret ? smsg : "ok");
	}
	if (!ropt && !rstudy && rret && sret) {
		struct strbuf range = STRBUF_INIT, orange = STRBUF_INIT;
		gm_knob_range(k, &range);
		gm_knob_option_range(k, &orange);
		/* (a syntax error names the front end's syntax, a range
		 * error the range: "-0.001" is a range error to the option
		 * and a syntax error to the study, which has no '-') */
		if (strstr(rmsg, " must be ") && !strstr(smsg, " such as ")) {
			CHECK(strstr(rmsg, orange.buf) &&
			      strstr(smsg, range.buf),
			      "  both messages give the table's range");
		}
		CHECK(!strncmp(smsg, "tests/data/study/mem.yaml:5:", 28),
		      "  the study's names FILE:LINE:COL");
		strbuf_release(&range);
		strbuf_release(&orange);
	}
	if (accept && !rret && !sret) {
		char arg[256];
		struct gm_replay_opts back;
		CHECK(fabs(replay_value(&o, k) - study_value(&s, k)) <=
		      1e-12 * fabs(study_value(&s, k)), "  to the same value");
		/* What the study writes into the replay's command line reads
		 * back as the same value. */
		if (!study_knob_arg(&s, k, arg, sizeof(arg))) {
			int ret = replay_parse(k, k->arg ? arg : NULL, &back,
					       rmsg, sizeof(rmsg));
			CHECK(!ret && replay_value(&back, k) ==
			      replay_value(&o, k),
			      "  the study's argument for it reads back the same");
		}
	}
	study_release(&s);
}

/* agree_each() when both front ends must take it (@accept) or not. */
static void agree(const struct gm_knob_desc *k, const char *opt,
		  const char *yaml, int accept)
{
	agree_each(k, opt, yaml, accept, accept);
}

/* @v seconds as the option's number and as a study's duration. */
static void agree_duration_each(const struct gm_knob_desc *k, double v,
				int ropt, int rstudy)
{
	char opt[64], yaml[64];

	snprintf(opt, sizeof(opt), "%.9g", v * k->option_per_s);
	snprintf(yaml, sizeof(yaml), "%.9gs", v);
	agree_each(k, opt, yaml, ropt, rstudy);
}

static void agree_duration(const struct gm_knob_desc *k, double v, int accept)
{
	agree_duration_each(k, v, accept, accept);
}

static void agree_size(const struct gm_knob_desc *k, double v, int accept)
{
	char opt[64];

	snprintf(opt, sizeof(opt), "%.0f", v);
	agree(k, opt, NULL, accept);
}

static void test_front_ends_agree(void)
{
	for (size_t i = 0; gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);

		switch (k->kind) {
		case GM_KNOB_DURATION:
			agree_duration(k, k->min, 1);
			if (k->option_min > 0) {
				/* (the option alone goes lower) */
				agree_duration_each(k, k->min * 0.999, 1, 0);
				agree_duration_each(k, k->option_min, 1, 0);
				agree_duration(k, k->option_min * 0.999, 0);
			} else if (k->min > 0) {
				agree_duration(k, k->min * 0.999, 0);
			} else {
				agree(k, "-0.001", NULL, 0);
			}
			if (isinf(k->max)) {
				agree_duration(k, 1e6, 1);
			} else {
				agree_duration(k, k->max, 1);
				agree_duration(k, k->max * 1.001, 0);
			}
			if (k->zero) {
				agree(k, "0", NULL, 1);
			}
			agree(k, "abc", NULL, 0);
			break;
		case GM_KNOB_SIZE:
			agree_size(k, k->min, 1);
			agree_size(k, k->max, 1);
			agree_size(k, k->max + 1, 0);
			if (k->min > 1) {
				agree_size(k, k->min - 1, 0);
			}
			agree_size(k, 0, k->zero != NULL);
			agree(k, "4MiB", NULL, 1);
			agree(k, "4x", NULL, 0);
			break;
		case GM_KNOB_CHOICE:
			for (size_t c = 0; k->choices[c]; c++) {
				agree(k, k->choices[c], NULL, 1);
			}
			{
				char *typo = gm_xasprintf("%sx", k->choices[0]);
				agree(k, typo, NULL, 0);
				free(typo);
			}
			break;
		case GM_KNOB_FLAG: {
			char msg[GM_ERROR_MSG_LEN];
			struct gm_replay_opts o;
			struct study s;
			CHECK(!replay_parse(k, NULL, &o, msg, sizeof(msg)) &&
			      replay_value(&o, k) == 1, "a flag's option sets it");
			CHECK(!study_replay_key(k->study_key, "true", &s, msg,
						sizeof(msg)) && s.one_shot,
			      "... as its study key does");
			study_release(&s);
			break;
		}
		case GM_KNOB_OTHER:
			break;
		}
	}
}

/*
 * A knob stored through its row reads back by its field's name in both
 * the replay's options and a study, and no other row's field changes: a
 * row naming another's field fails here.
 */
static void test_store_reads_back(void)
{
	for (size_t i = 0; gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		struct gm_replay_opts o;
		struct study s;
		double x, want;
		char what[256];

		if (k->field_type == GM_KNOB_FIELD_NONE) {
			continue;
		}
		/* (the option's terms; none is any row's default) */
		x = k->field_type == GM_KNOB_FIELD_ENUM ||
		    k->field_type == GM_KNOB_FIELD_INT ? 1 : 3;
		want = k->kind == GM_KNOB_DURATION ? x / k->option_per_s : x;
		gm_replay_opts_init(&o);
		memset(&s, 0, sizeof(s));
		gm_knob_values_init(&s.knob_values);
		gm_knob_store(&o.knob_values, k, x);
		gm_knob_store(&s.knob_values, k, x);
		snprintf(what, sizeof(what), "%s stored through its row reads "
			 "back by name in the replay's options and a study",
			 k->option);
		CHECK(replay_value(&o, k) == want && study_value(&s, k) == want,
		      what);
		CHECK(gm_knob_value(&o.knob_values, k) == x &&
		      gm_knob_value(&s.knob_values, k) == x,
		      "  and through the row");
		for (size_t j = 0; gm_knob_at(j); j++) {
			const struct gm_knob_desc *n = gm_knob_at(j);
			if (j == i || n->field_type == GM_KNOB_FIELD_NONE) {
				continue;
			}
			snprintf(what, sizeof(what), "  %s is still its "
				 "default", n->option);
			CHECK(gm_knob_value(&o.knob_values, n) ==
			      gm_knob_default(n) &&
			      gm_knob_value(&s.knob_values, n) ==
			      gm_knob_default(n), what);
		}
	}
}

/* The message of a range error, as the replay gives it. */
static void test_messages(void)
{
	struct gm_replay_opts o;
	char msg[GM_ERROR_MSG_LEN];
	struct study s;

	replay_parse(gm_knob_find(GM_KNOB_COPY_CHUNK), "2G", &o, msg,
		     sizeof(msg));
	CHECK_STR(msg, "--copy-chunk must be 0 (whole copies) or between 4096 "
		  "and 1073741824 bytes, not 2G", "--copy-chunk above 1 GiB");
	replay_parse(gm_knob_find(GM_KNOB_TIMESLICE), "0.5", &o, msg,
		     sizeof(msg));
	CHECK_STR(msg, "--timeslice-us must be 0 (no timeslicing) or between "
		  "1us and 10s, not 0.5", "--timeslice-us below 1 us");
	replay_parse(gm_knob_find(GM_KNOB_GRID), "resdent", &o, msg,
		     sizeof(msg));
	CHECK_STR(msg, "--grid must be 'captured' or 'resident', not 'resdent' "
		  "(did you mean 'resident'?)", "--grid: a typo");
	study_replay_key("copy_chunk", "2GiB", &s, msg, sizeof(msg));
	CHECK_STR(msg, "tests/data/study/mem.yaml:5:15: 'copy_chunk' must be 0 "
		  "(whole copies) or between 4096 and 1073741824 bytes, not "
		  "2GiB", "... and the study's 'copy_chunk', at its position");
	study_release(&s);
}

/* Each knob enum's values have the names the table gives, both ways. */
static void test_enum_names(void)
{
	enum gm_grid_mode g;
	enum gm_host_time h;
	enum gm_probe_mode p;

	CHECK_STR(gm_completion_name(GM_COMPLETION_POLL), "poll", "completion");
	CHECK_STR(gm_completion_name(GM_COMPLETION_EVENT), "event", "...");
	CHECK(!gm_grid_mode_parse(gm_grid_mode_name(GM_GRID_RESIDENT), &g) &&
	      g == GM_GRID_RESIDENT, "grid: resident both ways");
	CHECK(!gm_grid_mode_parse("captured", &g) && g == GM_GRID_CAPTURED,
	      "grid: captured");
	CHECK(!gm_host_time_parse(gm_host_time_name(GM_HOST_TIME_NONE), &h) &&
	      h == GM_HOST_TIME_NONE, "host time: none both ways");
	CHECK_STR(gm_host_time_name(GM_HOST_TIME_CAPTURED), "captured", "...");
	CHECK(!gm_probe_mode_parse(gm_probe_mode_name(GM_PROBE_BLOCKS), &p) &&
	      p == GM_PROBE_BLOCKS, "probe: blocks both ways");
	CHECK_STR(gm_probe_mode_name(GM_PROBE_OFF), "off", "probe: off");
	CHECK(gm_probe_mode_parse("all", &p) < 0, "probe: no other name");
}

/* Each doc page that lists a knob states the table's range for it. */
static void test_docs(void)
{
	static const char *const pages[] = { "doc/study-yaml.md",
					     "doc/gpumix-replay.md", NULL };

	for (size_t p = 0; pages[p]; p++) {
		struct strbuf text = STRBUF_INIT;
		FILE *f = fopen(pages[p], "r");
		char buf[4096];
		size_t n;

		if (!CHECK(f != NULL, pages[p])) {
			continue;
		}
		/* (as one line: the pages wrap their sentences) */
		while ((n = fread(buf, 1, sizeof(buf), f)) > 0) {
			for (size_t c = 0; c < n; c++) {
				int blank = buf[c] == '\n' || buf[c] == ' ';
				if (!blank || (text.len &&
					       text.buf[text.len - 1] != ' ')) {
					strbuf_addch(&text, blank ? ' ' : buf[c]);
				}
			}
		}
		fclose(f);
		for (size_t i = 0; gm_knob_at(i); i++) {
			const struct gm_knob_desc *k = gm_knob_at(i);
			struct strbuf range = STRBUF_INIT;
			char what[256];
			if (k->kind != GM_KNOB_DURATION &&
			    k->kind != GM_KNOB_SIZE) {
				continue;
			}
			gm_knob_range(k, &range);
			snprintf(what, sizeof(what), "%s gives %s's range: %s",
				 pages[p], k->option, range.buf);
			CHECK(strstr(text.buf, range.buf), what);
			if (k->option_min > 0 && strstr(pages[p], "replay")) {
				strbuf_reset(&range);
				gm_knob_option_range(k, &range);
				snprintf(what, sizeof(what), "%s gives %s's "
					 "option range: %s", pages[p],
					 k->option, range.buf);
				CHECK(strstr(text.buf, range.buf), what);
			}
			strbuf_release(&range);
		}
		strbuf_release(&text);
	}
}

int main(void)
{
	test_rows();
	test_front_ends_agree();
	test_store_reads_back();
	test_messages();
	test_enum_names();
	test_docs();
	return test_done();
}
