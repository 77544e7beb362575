/* SPDX-License-Identifier: MIT */
/*
 * Growable string buffer and aborting allocation helpers (see strbuf.h).
 */
#include "strbuf.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

char strbuf_empty[1];

static void die_oom(size_t n)
{
	fprintf(stderr, "fatal: out of memory allocating %zu bytes\n", n);
	abort();
}

void *gm_xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p) {
		die_oom(n);
	}
	return p;
}

void *gm_xcalloc(size_t n, size_t size)
{
	void *p = calloc(n ? n : 1, size ? size : 1);
	if (!p) {
		die_oom(n * size);
	}
	return p;
}

void *gm_xrealloc(void *p, size_t n)
{
	void *q = realloc(p, n ? n : 1);
	if (!q) {
		die_oom(n);
	}
	return q;
}

char *gm_xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *p = gm_xmalloc(n);
	memcpy(p, s, n);
	return p;
}

char *gm_xasprintf(const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	return strbuf_detach(&sb, NULL);
}

void strbuf_init(struct strbuf *sb, size_t hint)
{
	sb->len = 0;
	sb->alloc = 0;
	sb->buf = strbuf_empty;
	if (hint) {
		strbuf_grow(sb, hint);
	}
}

void strbuf_release(struct strbuf *sb)
{
	if (sb->alloc) {
		free(sb->buf);
	}
	strbuf_init(sb, 0);
}

char *strbuf_detach(struct strbuf *sb, size_t *len)
{
	char *r;

	if (len) {
		*len = sb->len;
	}
	r = sb->alloc ? sb->buf : gm_xstrdup("");
	strbuf_init(sb, 0);
	return r;
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	size_t need = sb->len + extra + 1;

	if (need <= sb->alloc) {
		return;
	}
	size_t n = sb->alloc ? sb->alloc : 64;
	while (n < need) {
		n *= 2;
	}
	if (sb->alloc) {
		sb->buf = gm_xrealloc(sb->buf, n);
	} else {
		sb->buf = gm_xmalloc(n);
		sb->buf[0] = '\0';
	}
	sb->alloc = n;
}

void strbuf_reset(struct strbuf *sb)
{
	strbuf_setlen(sb, 0);
}

void strbuf_setlen(struct strbuf *sb, size_t len)
{
	if (!sb->alloc) {
		return;
	}
	sb->len = len;
	sb->buf[len] = '\0';
}

void strbuf_add(struct strbuf *sb, const void *data, size_t len)
{
	strbuf_grow(sb, len);
	memcpy(sb->buf + sb->len, data, len);
	sb->len += len;
	sb->buf[sb->len] = '\0';
}

void strbuf_addstr(struct strbuf *sb, const char *s)
{
	strbuf_add(sb, s, strlen(s));
}

void strbuf_addch(struct strbuf *sb, int c)
{
	strbuf_grow(sb, 1);
	sb->buf[sb->len++] = (char)c;
	sb->buf[sb->len] = '\0';
}

void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap)
{
	va_list cp;
	int n;

	strbuf_grow(sb, 64);
	va_copy(cp, ap);
	n = vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, cp);
	va_end(cp);
	if (n < 0) {
		return;
	}
	if ((size_t)n >= sb->alloc - sb->len) {
		strbuf_grow(sb, (size_t)n);
		vsnprintf(sb->buf + sb->len, sb->alloc - sb->len, fmt, ap);
	}
	sb->len += (size_t)n;
}

void strbuf_addf(struct strbuf *sb, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(sb, fmt, ap);
	va_end(ap);
}

void strbuf_rtrim(struct strbuf *sb)
{
	while (sb->len && (sb->buf[sb->len - 1] == ' ' ||
			   sb->buf[sb->len - 1] == '\t' ||
			   sb->buf[sb->len - 1] == '\n' ||
			   sb->buf[sb->len - 1] == '\r')) {
		sb->len--;
	}
	if (sb->alloc) {
		sb->buf[sb->len] = '\0';
	}
}

int strbuf_read_fd(struct strbuf *sb, int fd)
{
	char buf[4096];

	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			return n < 0 ? -1 : 0;
		}
		strbuf_add(sb, buf, (size_t)n);
	}
}

void strbuf_add_escaped(struct strbuf *sb, const char *s)
{
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		switch (c) {
		case '\\': strbuf_addstr(sb, "\\\\"); break;
		case '"': strbuf_addstr(sb, "\\\""); break;
		case '\n': strbuf_addstr(sb, "\\n"); break;
		case '\t': strbuf_addstr(sb, "\\t"); break;
		case '\r': strbuf_addstr(sb, "\\r"); break;
		default:
			if (c < 0x20 || c == 0x7f) {
				strbuf_addf(sb, "\\x%02x", c);
			} else {
				strbuf_addch(sb, c);
			}
		}
	}
}

void strbuf_add_shell_word(struct strbuf *sb, const char *s)
{
	if (*s && !s[strcspn(s, " \t\n'\"\\$`*?[]{}()<>|&;#~!")]) {
		strbuf_addstr(sb, s);
		return;
	}
	strbuf_addch(sb, '\'');
	for (; *s; s++) {
		if (*s == '\'') {
			strbuf_addstr(sb, "'\\''");
		} else {
			strbuf_addch(sb, *s);
		}
	}
	strbuf_addch(sb, '\'');
}
