/* SPDX-License-Identifier: MIT */
/* babeltrace2's failures in gpumix's words (see bt_report.h). */
#include "bt_report.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "ctf_files.h"
#include "error.h"
#include "fs.h"
#include "strbuf.h"

char *gm_bt_error_file(const bt_error *err, char *const *traces, size_t nr)
{
	uint64_t n = err ? bt_error_get_cause_count(err) : 0;
	const char *comp = NULL, *port = NULL;
	char *end;

	for (uint64_t i = 0; i < n && !port; i++) {
		const bt_error_cause *c = bt_error_borrow_cause_by_index(err, i);

		switch (bt_error_cause_get_actor_type(c)) {
		case BT_ERROR_CAUSE_ACTOR_TYPE_MESSAGE_ITERATOR:
			comp = bt_error_cause_message_iterator_actor_get_component_name(c);
			port = bt_error_cause_message_iterator_actor_get_component_output_port_name(c);
			break;
		case BT_ERROR_CAUSE_ACTOR_TYPE_COMPONENT:
			comp = bt_error_cause_component_actor_get_component_name(c);
			break;
		default:
			continue;
		}
		if (!comp || strncmp(comp, "source-", 7)) {
			comp = port = NULL;
		}
	}
	if (comp) {
		unsigned long t = strtoul(comp + 7, &end, 10);
		const char *bar = port ? strrchr(port, '|') : NULL;
		char *file = NULL;

		if (*end || t >= nr) {
			return NULL;
		}
		if (bar) {
			unsigned long long inst = strtoull(bar + 1, &end, 10);
			if (end != bar + 1 && !*end) {
				file = gm_ctf_stream_file(traces[t], inst);
			}
		}
		return file ? file : gm_xasprintf("%s/", traces[t]);
	}
	return NULL;
}

/*
 * Record babeltrace2's message @m without the addresses of its objects
 * ("msg-it-addr=0x55d1c3a0f400, "): they differ from run to run and mean
 * nothing to a user.
 */
static void push_bt_message(const char *m)
{
	struct strbuf sb = STRBUF_INIT;

	while (*m) {
		const char *a = strstr(m, "-addr=0x");
		const char *start, *end;

		if (!a) {
			strbuf_addstr(&sb, m);
			break;
		}
		for (start = a; start > m && start[-1] != ' ' && start[-1] != '(';
		     start--) {
		}
		for (end = a + 8; isxdigit((unsigned char)*end); end++) {
		}
		if (*end == ',') {
			end++;
		}
		while (*end == ' ') {
			end++;
		}
		strbuf_add(&sb, m, (size_t)(start - m));
		m = end;
	}
	strbuf_rtrim(&sb);
	gm_error("babeltrace2: %s", sb.buf);
	strbuf_release(&sb);
}

void gm_bt_push_causes(const bt_error *err)
{
	if (err) {
		uint64_t n = bt_error_get_cause_count(err), shown = 0;
		/*
		 * Cause 0 is the root (most specific) cause: push it first so
		 * that it is printed last, under the more general ones; skip
		 * the generic "method failed" causes.
		 */
		for (uint64_t i = 0; i < n && shown < 3; i++) {
			const char *m = bt_error_cause_get_message(
				bt_error_borrow_cause_by_index(err, i));
			if (!strncmp(m, "Component initialization method failed", 39) ||
			    !strncmp(m, "Component class's", 17) ||
			    !strncmp(m, "Component's \"consume\" method failed", 36)) {
				continue;
			}
			push_bt_message(m);
			shown++;
		}
		bt_error_release(err);
	}
}

int gm_bt_fail(const char *what)
{
	gm_bt_push_causes(bt_current_thread_take_error());
	return gm_error("%s", what);
}

/*
 * The message of babeltrace2 log line @line (@len bytes): what follows
 * "FUNC@FILE:LINE " (the seventh word), its level in *@level; the whole
 * line, level '?', when it is of another form.
 */
static const char *log_message(const char *line, size_t len, char *level,
			       size_t *msg_len)
{
	const char *p = line, *end = line + len, *word = NULL;

	*level = '?';
	*msg_len = len;
	for (int w = 0; w < 7; w++) {
		while (p < end && *p == ' ') {
			p++;
		}
		word = p;
		while (p < end && *p != ' ') {
			p++;
		}
		if (p == word) {
			return line;
		}
		if (w == 4 && p - word == 1) {
			*level = *word;
		}
	}
	/* the seventh word is FUNC@FILE:LINE */
	if (*level == '?' || !memchr(word, '@', (size_t)(p - word)) ||
	    !memchr(word, ':', (size_t)(p - word))) {
		*level = '?';
		return line;
	}
	while (p < end && *p == ' ') {
		p++;
	}
	*msg_len = (size_t)(end - p);
	return p;
}

const char *gm_bt_push_log(const char *log, char *const *traces, size_t nr)
{
	enum { KEEP = 3 };
	struct strbuf kept[KEEP];
	const char *trace = NULL;
	size_t n = 0;

	for (int i = 0; i < KEEP; i++) {
		strbuf_init(&kept[i], 0);
	}
	while (*log) {
		const char *nl = strchrnul(log, '\n'), *msg;
		size_t len;
		char level;

		msg = log_message(log, (size_t)(nl - log), &level, &len);
		log = *nl ? nl + 1 : nl;
		if (level != '?' && level != 'E' && level != 'F') {
			continue;
		}
		if (len > 8 && !strncmp(msg, "[source-", 8)) {
			char *end;
			unsigned long t = strtoul(msg + 8, &end, 10);
			if (*end == ']' && t < nr) {
				trace = traces[t];
			}
		}
		if (level == '?') {
			/* babeltrace2's failed assertions start with a
			 * picture in UTF-8: from its last byte on. */
			size_t pic = 0;
			for (size_t i = 0; i < len && i < 32; i++) {
				if ((unsigned char)msg[i] >= 0x80) {
					pic = i + 1;
				}
			}
			msg += pic;
			len -= pic;
		}
		if (len && *msg == '[') {
			const char *close = memchr(msg, ']', len);
			if (close) {
				len -= (size_t)(close + 1 - msg);
				msg = close + 1;
			}
		}
		while (len && isspace((unsigned char)*msg)) {
			msg++;
			len--;
		}
		while (len && isspace((unsigned char)msg[len - 1])) {
			len--;
		}
		if (!len || (len == 11 && !strncmp(msg, "Aborting...", 11)) ||
		    !strncmp(msg, "Babeltrace 2 library precondition not "
			     "satisfied", 46)) {
			continue;
		}
		strbuf_reset(&kept[n % KEEP]);
		strbuf_add(&kept[n % KEEP], msg, len);
		n++;
	}
	for (size_t i = n > KEEP ? n - KEEP : 0; i < n; i++) {
		push_bt_message(kept[i % KEEP].buf);
	}
	for (int i = 0; i < KEEP; i++) {
		strbuf_release(&kept[i]);
	}
	return trace;
}
