/* SPDX-License-Identifier: MIT */
/*
 * The Chrome trace-event JSON writer (common/trace_json.c): string
 * escaping (controls, quotes, valid UTF-8 kept, invalid bytes, overlong
 * forms and surrogates replaced), exact microsecond timestamps (negative
 * ones too), the event shapes, and the timeline limits' parser.
 */
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "test.h"
#include "trace_json.h"
#include "trace_perfetto.h"

static void check_json_str(const char *in, const char *want, const char *what)
{
	struct strbuf sb = STRBUF_INIT;

	gm_json_str(&sb, in);
	CHECK_STR(sb.buf, want, what);
	strbuf_release(&sb);
}

static void test_strings(void)
{
	check_json_str("plain", "\"plain\"", "plain text");
	check_json_str("a\"b\\c", "\"a\\\"b\\\\c\"", "quote and backslash escaped");
	check_json_str("t\tn\n\x01\x7f", "\"t\\u0009n\\u000a\\u0001\\u007f\"",
		       "controls as \\u escapes");
	check_json_str("\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80",
		       "\"\xc3\xbc\xe2\x82\xac\xf0\x9f\x98\x80\"",
		       "2-, 3- and 4-byte UTF-8 kept");
	check_json_str("a\xff" "b", "\"a\\ufffdb\"", "a stray byte replaced");
	check_json_str("\xc0\xaf", "\"\\ufffd\\ufffd\"", "an overlong form replaced");
	check_json_str("\xed\xa0\x80", "\"\\ufffd\\ufffd\\ufffd\"",
		       "a surrogate replaced");
	check_json_str("\xe2\x82", "\"\\ufffd\\ufffd\"", "a cut sequence replaced");
	check_json_str("\xf4\x90\x80\x80", "\"\\ufffd\\ufffd\\ufffd\\ufffd\"",
		       "beyond U+10FFFF replaced");
}

static void test_events(void)
{
	struct strbuf sb = STRBUF_INIT, args = STRBUF_INIT;
	struct gm_trace_json j;

	gm_tj_begin(&j, &sb, 1000);
	gm_tj_process(&j, 1, "p", 0);
	gm_tj_slice(&j, 1, 2, "kernel", "k", 2500, 4001, NULL);
	gm_tj_slice(&j, 1, 2, "kernel", "early", 999, 999, NULL);
	gm_tj_arg_int(&args, "n", -3);
	gm_tj_arg_double(&args, "nan", NAN);
	gm_tj_instant(&j, 1, 0, "replay", "r", 1000, args.buf);
	gm_tj_flow(&j, "launch", 1, 1, 1500, 1, 2, 2500);
	gm_tj_end(&j, NULL);
	CHECK_STR(sb.buf,
		  "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[\n"
		  "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_name\","
		  "\"args\":{\"name\":\"p\"}},\n"
		  "{\"ph\":\"M\",\"pid\":1,\"tid\":0,\"name\":\"process_sort_index\","
		  "\"args\":{\"sort_index\":0}},\n"
		  "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"cat\":\"kernel\",\"name\":\"k\","
		  "\"ts\":1.500,\"dur\":1.501},\n"
		  "{\"ph\":\"X\",\"pid\":1,\"tid\":2,\"cat\":\"kernel\",\"name\":\"early\","
		  "\"ts\":-0.001,\"dur\":0.000},\n"
		  "{\"ph\":\"i\",\"pid\":1,\"tid\":0,\"cat\":\"replay\",\"name\":\"r\","
		  "\"ts\":0.000,\"s\":\"p\",\"args\":{\"n\":-3,\"nan\":null}},\n"
		  "{\"ph\":\"s\",\"pid\":1,\"tid\":1,\"cat\":\"launch\",\"name\":\"launch\","
		  "\"ts\":0.500,\"id\":1},\n"
		  "{\"ph\":\"f\",\"pid\":1,\"tid\":2,\"cat\":\"launch\",\"name\":\"launch\","
		  "\"ts\":1.500,\"id\":1,\"bp\":\"e\"}\n"
		  "],\"otherData\":{}}\n",
		  "a document with every kind of event, exact microseconds");
	CHECK_INT(j.events, 7, "events counted");
	strbuf_release(&sb);
	strbuf_release(&args);
}

static void test_limits(void)
{
	struct gm_timeline_limits l = { 0, -1, -1, 7 };

	CHECK_INT(gm_timeline_limit_set(&l, "window", "1.5:2"), 0, "window 1.5:2");
	CHECK_INT(l.from_ns, 1500000, "from in ns");
	CHECK_INT(l.to_ns, 2000000, "to in ns");
	CHECK_INT(gm_timeline_limit_set(&l, "window", ":3"), 0, "window :3");
	CHECK_INT(l.from_ns, 0, "empty from: the start");
	CHECK_INT(gm_timeline_limit_set(&l, "window", "4:"), 0, "window 4:");
	CHECK_INT(l.to_ns, -1, "empty to: no end");
	gm_error_clear();
	CHECK_INT(gm_timeline_limit_set(&l, "window", "4:4"), -1, "empty window refused");
	CHECK_INT(gm_timeline_limit_set(&l, "window", "-1:4"), -1, "negative refused");
	CHECK_INT(gm_timeline_limit_set(&l, "window", "1e999:"), -1, "overflow refused");
	CHECK_INT(gm_timeline_limit_set(&l, "window", "x:1"), -1, "text refused");
	CHECK_INT(gm_timeline_limit_set(&l, "replays", "0"), -1, "0 replays refused");
	CHECK_INT(gm_timeline_limit_set(&l, "replays", "+2"), -1, "a sign refused");
	CHECK_INT(gm_timeline_limit_set(&l, "max", "99999999999999999999"), -1,
		  "a count too large refused");
	CHECK_STR(gm_error_message(), "--timeline-max needs a count of slices (0:"
		  " all), not '99999999999999999999'", "the message names the value");
	gm_error_clear();
	CHECK_INT(gm_timeline_limit_set(&l, "replays", "3"), 0, "3 replays");
	CHECK_INT(l.replays, 3, "replays set");
	CHECK_INT(gm_timeline_limit_set(&l, "max", "0"), 0, "max 0");
	CHECK_INT(l.max_slices, 0, "no cap");
}

/* The protobuf bytes of a process track and a slice, worked by hand. */
static void test_perfetto(void)
{
	static const unsigned char process[] = {
		0x0a, 0x12,			/* Trace.packet, 18 bytes */
		0xe2, 0x03, 0x0d,		/* .track_descriptor (60), 13 */
		0x08, 0x81, 0x80, 0x80, 0x80, 0x10,	/* uuid 2^32 + 1 */
		0x1a, 0x05,			/* .process (3), 5 bytes */
		0x08, 0x01, 0x32, 0x01, 'p',	/* pid 1, process_name "p" */
		0x50, 0x01,			/* trusted_packet_sequence_id 1 */
	};
	static const unsigned char instant[] = {
		0x0a, 0x23,			/* Trace.packet, 35 bytes */
		0x40, 0x96, 0x01,		/* timestamp (8) 150 */
		0x5a, 0x1c,			/* .track_event (11), 28 bytes */
		0x22, 0x0e, 0x52, 0x01, 'n',	/* debug_annotations (4), 14: name "n" */
		0x20, 0xfd, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
		0x01,				/* int_value -3 */
		0x48, 0x03,			/* type INSTANT */
		0x58, 0x03,			/* track_uuid 3 (pid 0, tid 2) */
		0xb2, 0x01, 0x01, 'c',		/* categories (22) "c" */
		0xba, 0x01, 0x01, 'x',		/* name (23) "x" */
		0x50, 0x01,
	};
	struct strbuf sb = STRBUF_INIT;

	gm_pf_process(&sb, 1, "p");
	CHECK(sb.len == sizeof(process) && !memcmp(sb.buf, process, sb.len),
	      "perfetto: a process track, byte for byte");
	strbuf_reset(&sb);
	gm_pf_event(&sb, 3, 0, 2, 150, "c", "x", "\"n\":-3,\"z\":null", 0, 0);
	CHECK(sb.len == sizeof(instant) && !memcmp(sb.buf, instant, sb.len),
	      "perfetto: an instant with an int annotation, null left out");
	strbuf_release(&sb);
}

int main(void)
{
	test_strings();
	test_events();
	test_limits();
	test_perfetto();
	return test_done();
}
