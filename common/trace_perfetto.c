/* SPDX-License-Identifier: MIT */
/*
 * Perfetto protobuf writer (see trace_perfetto.h). Each message is built
 * in a buffer of its own and appended to its parent with its length:
 * the messages are small (one event), so the copies cost little.
 */
#include "trace_perfetto.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

enum { WT_VARINT = 0, WT_I64 = 1, WT_LEN = 2 };

/* The sequence every packet is on (one writer). */
#define SEQUENCE_ID 1

static void varint(struct strbuf *sb, uint64_t v)
{
	while (v >= 0x80) {
		strbuf_addch(sb, (char)(v | 0x80));
		v >>= 7;
	}
	strbuf_addch(sb, (char)v);
}

static void tag(struct strbuf *sb, int field, int wt)
{
	varint(sb, ((uint64_t)field << 3) | (uint64_t)wt);
}

static void f_varint(struct strbuf *sb, int field, uint64_t v)
{
	tag(sb, field, WT_VARINT);
	varint(sb, v);
}

static void f_bytes(struct strbuf *sb, int field, const void *p, size_t n)
{
	tag(sb, field, WT_LEN);
	varint(sb, n);
	strbuf_add(sb, p, n);
}

static void f_str(struct strbuf *sb, int field, const char *s)
{
	f_bytes(sb, field, s, strlen(s));
}

/* A submessage @m as field @field of @sb; @m is emptied. */
static void f_msg(struct strbuf *sb, int field, struct strbuf *m)
{
	f_bytes(sb, field, m->buf, m->len);
	strbuf_reset(m);
}

static void f_fixed64(struct strbuf *sb, int field, uint64_t v)
{
	tag(sb, field, WT_I64);
	for (int i = 0; i < 8; i++) {
		strbuf_addch(sb, (char)(v >> (8 * i)));
	}
}

static void f_double(struct strbuf *sb, int field, double d)
{
	uint64_t v;

	memcpy(&v, &d, sizeof(v));
	f_fixed64(sb, field, v);
}

/* The track of @pid/@tid: unique per pair, never 0 (the global track). */
static uint64_t track_uuid(int64_t pid, int64_t tid)
{
	return ((uint64_t)pid << 32 | (uint32_t)tid) + 1;
}

/* Append packet @p (its fields) to the trace @sb as field 1. */
static void packet(struct strbuf *sb, struct strbuf *p)
{
	f_varint(p, 10, SEQUENCE_ID);
	f_msg(sb, 1, p);
}

void gm_pf_process(struct strbuf *sb, int64_t pid, const char *name)
{
	struct strbuf p = STRBUF_INIT, td = STRBUF_INIT, pd = STRBUF_INIT;

	f_varint(&pd, 1, (uint64_t)pid);
	f_str(&pd, 6, name);
	f_varint(&td, 1, track_uuid(pid, 0));
	f_msg(&td, 3, &pd);
	f_msg(&p, 60, &td);
	packet(sb, &p);
	strbuf_release(&p);
	strbuf_release(&td);
	strbuf_release(&pd);
}

void gm_pf_thread(struct strbuf *sb, int64_t pid, int64_t tid,
		  const char *name)
{
	struct strbuf p = STRBUF_INIT, td = STRBUF_INIT;

	f_varint(&td, 1, track_uuid(pid, tid));
	f_str(&td, 2, name);
	f_varint(&td, 5, track_uuid(pid, 0));
	f_msg(&p, 60, &td);
	packet(sb, &p);
	strbuf_release(&p);
	strbuf_release(&td);
}

/* The JSON string at *@s (after its quote) into @out, *@s past it. */
static void json_string(const char **s, struct strbuf *out)
{
	const char *p = *s;

	while (*p && *p != '"') {
		if (*p != '\\' || !p[1]) {
			strbuf_addch(out, *p++);
			continue;
		}
		p++;
		switch (*p) {
		case 'n':
			strbuf_addch(out, '\n');
			break;
		case 't':
			strbuf_addch(out, '\t');
			break;
		case 'u': {
			char hex[5] = { 0 };
			unsigned c;
			strncpy(hex, p + 1, 4);
			c = (unsigned)strtoul(hex, NULL, 16);
			if (c < 0x80) {
				strbuf_addch(out, (char)c);
			} else if (c < 0x800) {
				strbuf_addch(out, (char)(0xc0 | c >> 6));
				strbuf_addch(out, (char)(0x80 | (c & 0x3f)));
			} else {
				strbuf_addch(out, (char)(0xe0 | c >> 12));
				strbuf_addch(out, (char)(0x80 | ((c >> 6) & 0x3f)));
				strbuf_addch(out, (char)(0x80 | (c & 0x3f)));
			}
			p += strlen(hex);
			break;
		}
		default:	/* \" \\ \/ and the rare others as themselves */
			strbuf_addch(out, *p);
		}
		p++;
	}
	*s = *p ? p + 1 : p;
}

/*
 * The members of the flat JSON object text @args as debug annotations
 * (field 4 of @ev): strings as strings, integers as ints, other numbers
 * as doubles, true/false as bools, null left out, arrays and objects as
 * their JSON text.
 */
static void annotations(struct strbuf *ev, const char *args)
{
	struct strbuf a = STRBUF_INIT, key = STRBUF_INIT, val = STRBUF_INIT;
	const char *s = args;

	while (s && *s) {
		while (*s == ',' || *s == ' ' || *s == '\n') {
			s++;
		}
		if (*s != '"') {
			break;
		}
		s++;
		strbuf_reset(&key);
		strbuf_reset(&val);
		json_string(&s, &key);
		if (*s == ':') {
			s++;
		}
		f_str(&a, 10, key.buf);
		if (*s == '"') {
			s++;
			json_string(&s, &val);
			f_str(&a, 6, val.buf);
		} else {
			/* A scalar, or an array/object up to its match. */
			const char *start = s;
			int depth = 0, str = 0;
			for (; *s && (depth || str || *s != ','); s++) {
				if (str) {
					s += *s == '\\' && s[1];
					str = *s != '"';
				} else if (*s == '"') {
					str = 1;
				} else if (*s == '[' || *s == '{') {
					depth++;
				} else if (*s == ']' || *s == '}') {
					depth--;
				}
			}
			strbuf_add(&val, start, (size_t)(s - start));
			if (!strcmp(val.buf, "null")) {
				strbuf_reset(&a);
				continue;
			} else if (!strcmp(val.buf, "true") ||
				   !strcmp(val.buf, "false")) {
				f_varint(&a, 2, val.buf[0] == 't');
			} else if (*start == '[' || *start == '{') {
				f_str(&a, 6, val.buf);
			} else if (strpbrk(val.buf, ".eE")) {
				f_double(&a, 5, strtod(val.buf, NULL));
			} else {
				f_varint(&a, 4, (uint64_t)strtoll(val.buf, NULL, 10));
			}
		}
		f_msg(ev, 4, &a);
	}
	strbuf_release(&a);
	strbuf_release(&key);
	strbuf_release(&val);
}

void gm_pf_event(struct strbuf *sb, int type, int64_t pid, int64_t tid,
		 int64_t ts, const char *cat, const char *name,
		 const char *args, uint64_t flow, uint64_t end_flow)
{
	struct strbuf p = STRBUF_INIT, ev = STRBUF_INIT;

	if (args && *args) {
		annotations(&ev, args);
	}
	f_varint(&ev, 9, (uint64_t)type);
	f_varint(&ev, 11, track_uuid(pid, tid));
	if (cat) {
		f_str(&ev, 22, cat);
	}
	if (name) {
		f_str(&ev, 23, name);
	}
	if (flow) {
		f_fixed64(&ev, 47, flow);
	}
	if (end_flow) {
		f_fixed64(&ev, 48, end_flow);
	}
	f_varint(&p, 8, (uint64_t)(ts < 0 ? 0 : ts));
	f_msg(&p, 11, &ev);
	packet(sb, &p);
	strbuf_release(&p);
	strbuf_release(&ev);
}
