/* SPDX-License-Identifier: MIT */
/*
 * Chrome trace-event JSON writer (see trace_json.h). Every event goes on
 * a line of its own, so a large file still reads with grep and diff.
 */
#include "trace_json.h"

#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "trace_perfetto.h"

/* Length of the valid UTF-8 sequence at @s, or 0 when it is not one. */
static size_t utf8_len(const unsigned char *s)
{
	unsigned char c = s[0], lo = 0x80, hi = 0xbf;
	size_t n;

	if (c >= 0xc2 && c <= 0xdf) {
		n = 2;
	} else if (c >= 0xe0 && c <= 0xef) {
		n = 3;
		lo = c == 0xe0 ? 0xa0 : 0x80;	/* no overlong forms */
		hi = c == 0xed ? 0x9f : 0xbf;	/* no surrogates */
	} else if (c >= 0xf0 && c <= 0xf4) {
		n = 4;
		lo = c == 0xf0 ? 0x90 : 0x80;
		hi = c == 0xf4 ? 0x8f : 0xbf;	/* up to U+10FFFF */
	} else {
		return 0;
	}
	if (s[1] < lo || s[1] > hi) {
		return 0;
	}
	for (size_t i = 2; i < n; i++) {
		if (s[i] < 0x80 || s[i] > 0xbf) {
			return 0;
		}
	}
	return n;
}

void gm_json_str(struct strbuf *sb, const char *s)
{
	const unsigned char *p = (const unsigned char *)s;

	strbuf_addch(sb, '"');
	while (*p) {
		size_t n;
		if (*p == '"' || *p == '\\') {
			strbuf_addch(sb, '\\');
			strbuf_addch(sb, *p++);
		} else if (*p < 0x20 || *p == 0x7f) {
			strbuf_addf(sb, "\\u%04x", *p++);
		} else if (*p < 0x80) {
			strbuf_addch(sb, *p++);
		} else if ((n = utf8_len(p))) {
			strbuf_add(sb, p, n);
			p += n;
		} else {
			strbuf_addstr(sb, "\\ufffd");
			p++;
		}
	}
	strbuf_addch(sb, '"');
}

/* @ns as microseconds with exactly three decimals. */
static void add_us(struct strbuf *sb, int64_t ns)
{
	uint64_t a = ns < 0 ? (uint64_t)0 - (uint64_t)ns : (uint64_t)ns;

	strbuf_addf(sb, "%s%" PRIu64 ".%03" PRIu64, ns < 0 ? "-" : "",
		    a / 1000, a % 1000);
}

static void event_head(struct gm_trace_json *j, const char *ph, int64_t pid,
		       int64_t tid)
{
	struct strbuf *sb = j->sb;

	strbuf_addstr(sb, j->events++ ? ",\n" : "\n");
	strbuf_addf(sb, "{\"ph\":\"%s\",\"pid\":%" PRId64 ",\"tid\":%" PRId64,
		    ph, pid, tid);
}

static const char *const format_names[] = {
	[GM_TRACE_CHROME] = "chrome",
	[GM_TRACE_HTA] = "hta",
	[GM_TRACE_PERFETTO] = "perfetto",
};

int gm_trace_format_parse(const char *name, enum gm_trace_format *format)
{
	for (size_t i = 0; i < sizeof(format_names) / sizeof(*format_names); i++) {
		if (!strcmp(name, format_names[i])) {
			*format = (enum gm_trace_format)i;
			return 0;
		}
	}
	return gm_error("no timeline format '%s' (chrome, hta or perfetto)", name);
}

const char *gm_trace_format_ext(enum gm_trace_format format)
{
	return format == GM_TRACE_PERFETTO ? ".pftrace" : ".json";
}

void gm_tj_begin_as(struct gm_trace_json *j, struct strbuf *sb,
		    int64_t origin_ns, enum gm_trace_format format)
{
	memset(j, 0, sizeof(*j));
	j->sb = sb;
	j->origin_ns = origin_ns;
	j->next_flow = 1;
	j->format = format;
	if (format != GM_TRACE_PERFETTO) {
		strbuf_addstr(sb, "{\"displayTimeUnit\":\"ns\",\"traceEvents\":[");
	}
}

void gm_tj_begin(struct gm_trace_json *j, struct strbuf *sb,
		 int64_t origin_ns)
{
	gm_tj_begin_as(j, sb, origin_ns, GM_TRACE_CHROME);
}

static void meta(struct gm_trace_json *j, int64_t pid, int64_t tid,
		 const char *what, const char *name, int sort)
{
	event_head(j, "M", pid, tid);
	strbuf_addf(j->sb, ",\"name\":\"%s_name\",\"args\":{\"name\":", what);
	gm_json_str(j->sb, name);
	strbuf_addstr(j->sb, "}}");
	event_head(j, "M", pid, tid);
	strbuf_addf(j->sb, ",\"name\":\"%s_sort_index\",\"args\":"
		    "{\"sort_index\":%d}}", what, sort);
}

void gm_tj_process(struct gm_trace_json *j, int64_t pid, const char *name,
		   int sort)
{
	if (j->format == GM_TRACE_PERFETTO) {
		gm_pf_process(j->sb, pid, name);
		return;
	}
	meta(j, pid, 0, "process", name, sort);
}

void gm_tj_thread(struct gm_trace_json *j, int64_t pid, int64_t tid,
		  const char *name, int sort)
{
	if (j->format == GM_TRACE_PERFETTO) {
		gm_pf_thread(j->sb, pid, tid, name);
		return;
	}
	meta(j, pid, tid, "thread", name, sort);
}

static void name_cat_ts(struct gm_trace_json *j, const char *cat,
			const char *name, int64_t ts_ns)
{
	strbuf_addstr(j->sb, ",\"cat\":");
	gm_json_str(j->sb, cat);
	strbuf_addstr(j->sb, ",\"name\":");
	gm_json_str(j->sb, name);
	strbuf_addstr(j->sb, ",\"ts\":");
	add_us(j->sb, ts_ns - j->origin_ns);
}

static void args_end(struct gm_trace_json *j, const char *args)
{
	if (args && *args) {
		strbuf_addf(j->sb, ",\"args\":{%s}", args);
	}
	strbuf_addch(j->sb, '}');
}

void gm_tj_slice(struct gm_trace_json *j, int64_t pid, int64_t tid,
		 const char *cat, const char *name, int64_t start_ns,
		 int64_t end_ns, const char *args)
{
	if (j->format == GM_TRACE_PERFETTO) {
		j->events++;
		gm_pf_event(j->sb, 1, pid, tid, start_ns - j->origin_ns, cat, name,
			    args, 0, 0);
		gm_pf_event(j->sb, 2, pid, tid, (end_ns > start_ns ? end_ns :
						 start_ns) - j->origin_ns,
			    NULL, NULL, NULL, 0, 0);
		return;
	}
	event_head(j, "X", pid, tid);
	name_cat_ts(j, cat, name, start_ns);
	strbuf_addstr(j->sb, ",\"dur\":");
	add_us(j->sb, end_ns > start_ns ? end_ns - start_ns : 0);
	args_end(j, args);
}

void gm_tj_instant(struct gm_trace_json *j, int64_t pid, int64_t tid,
		   const char *cat, const char *name, int64_t ts_ns,
		   const char *args)
{
	if (j->format == GM_TRACE_PERFETTO) {
		j->events++;
		gm_pf_event(j->sb, 3, pid, tid, ts_ns - j->origin_ns, cat, name,
			    args, 0, 0);
		return;
	}
	event_head(j, "i", pid, tid);
	name_cat_ts(j, cat, name, ts_ns);
	strbuf_addstr(j->sb, ",\"s\":\"p\"");
	args_end(j, args);
}

void gm_tj_flow(struct gm_trace_json *j, const char *cat, int64_t from_pid,
		int64_t from_tid, int64_t from_ns, int64_t to_pid,
		int64_t to_tid, int64_t to_ns)
{
	gm_tj_flow_id(j, cat, j->next_flow++, from_pid, from_tid, from_ns,
		      to_pid, to_tid, to_ns);
}

void gm_tj_flow_id(struct gm_trace_json *j, const char *cat, uint64_t id,
		   int64_t from_pid, int64_t from_tid, int64_t from_ns,
		   int64_t to_pid, int64_t to_tid, int64_t to_ns)
{
	if (j->format == GM_TRACE_PERFETTO) {
		/* Perfetto binds a flow to an event: an instant inside the
		 * slice at each end, the arrow between them. */
		j->events += 2;
		gm_pf_event(j->sb, 3, from_pid, from_tid, from_ns - j->origin_ns,
			    cat, cat, NULL, id, 0);
		gm_pf_event(j->sb, 3, to_pid, to_tid, to_ns - j->origin_ns, cat,
			    cat, NULL, 0, id);
		return;
	}
	event_head(j, "s", from_pid, from_tid);
	name_cat_ts(j, cat, cat, from_ns);
	strbuf_addf(j->sb, ",\"id\":%" PRIu64 "}", id);
	event_head(j, "f", to_pid, to_tid);
	name_cat_ts(j, cat, cat, to_ns);
	strbuf_addf(j->sb, ",\"id\":%" PRIu64 ",\"bp\":\"e\"}", id);
}

/* The process that holds the file's own description (Perfetto). */
#define INFO_PID 0x7fffffff

void gm_tj_end(struct gm_trace_json *j, const char *other)
{
	if (j->format == GM_TRACE_PERFETTO) {
		gm_pf_process(j->sb, INFO_PID, "gpumix");
		gm_pf_event(j->sb, 3, INFO_PID, 0, 0, "gpumix", "timeline",
			    other, 0, 0);
		return;
	}
	strbuf_addstr(j->sb, "\n]");
	if (j->format == GM_TRACE_HTA) {
		/* What HTA's parser reads besides the events (one rank;
		 * it finds the rank by the pattern "rank":<space>N). */
		strbuf_addstr(j->sb, ",\"schemaVersion\":1,\"distributedInfo\":"
			      "{\"rank\": 0, \"world_size\": 1},"
			      "\"deviceProperties\":[{\"id\":0,\"name\":");
		gm_json_str(j->sb, j->device ? j->device : "");
		strbuf_addstr(j->sb, "}]");
	}
	strbuf_addf(j->sb, ",\"otherData\":{%s}}\n", other ? other : "");
}

static void arg_key(struct strbuf *sb, const char *key)
{
	if (sb->len) {
		strbuf_addch(sb, ',');
	}
	gm_json_str(sb, key);
	strbuf_addch(sb, ':');
}

void gm_tj_arg_str(struct strbuf *sb, const char *key, const char *value)
{
	arg_key(sb, key);
	gm_json_str(sb, value);
}

void gm_tj_arg_int(struct strbuf *sb, const char *key, int64_t value)
{
	arg_key(sb, key);
	strbuf_addf(sb, "%" PRId64, value);
}

void gm_tj_arg_double(struct strbuf *sb, const char *key, double value)
{
	arg_key(sb, key);
	if (isfinite(value)) {
		strbuf_addf(sb, "%.9g", value);
	} else {
		strbuf_addstr(sb, "null");	/* JSON has no NaN */
	}
}

void gm_tj_arg_raw(struct strbuf *sb, const char *key, const char *raw)
{
	arg_key(sb, key);
	strbuf_addstr(sb, raw);
}

/* A count: digits only, no sign, fits int64. */
static int parse_count(const char *s, int64_t *out)
{
	char *end;

	if (*s < '0' || *s > '9') {
		return -1;
	}
	errno = 0;
	long long v = strtoll(s, &end, 10);
	if (errno || *end) {
		return -1;
	}
	*out = v;
	return 0;
}

/* Milliseconds (a non-negative decimal) as ns; "" leaves *@out alone. */
static int parse_ms(const char *s, size_t len, int64_t *out)
{
	char buf[64], *end;
	double v;

	if (!len) {
		return 0;
	}
	if (len >= sizeof(buf) || *s == '-' || *s == '+' || *s == ' ') {
		return -1;
	}
	memcpy(buf, s, len);
	buf[len] = '\0';
	errno = 0;
	v = strtod(buf, &end);
	if (errno || *end || !(v >= 0) || v > 9e12) {
		return -1;
	}
	*out = (int64_t)(v * 1e6 + 0.5);
	return 0;
}

int gm_timeline_limit_set(struct gm_timeline_limits *lim, const char *name,
			  const char *value)
{
	int64_t v;

	if (!strcmp(name, "replays")) {
		if (parse_count(value, &v) || v < 1) {
			return gm_error("--timeline-replays needs a count of"
					" replays >= 1, not '%s'", value);
		}
		lim->replays = v;
	} else if (!strcmp(name, "max")) {
		if (parse_count(value, &v)) {
			return gm_error("--timeline-max needs a count of slices"
					" (0: all), not '%s'", value);
		}
		lim->max_slices = (size_t)v;
	} else {
		const char *colon = strchr(value, ':');
		int64_t from = 0, to = -1;
		if (!colon || parse_ms(value, (size_t)(colon - value), &from) ||
		    parse_ms(colon + 1, strlen(colon + 1), &to) ||
		    (to >= 0 && to <= from)) {
			return gm_error("--timeline-window needs FROM:TO in ms"
					" with FROM < TO (either may be empty),"
					" not '%s'", value);
		}
		lim->from_ns = from;
		lim->to_ns = to;
	}
	return 0;
}
