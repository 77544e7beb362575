/* SPDX-License-Identifier: MIT */
/*
 * Tab-separated field helpers (see tsv.h). Hand-written integer parsing:
 * strtoll accepts spaces, '+' and trailing junk, and is slower for the
 * million-line logs the loader reads.
 */
#include "tsv.h"

#include <stdarg.h>
#include <string.h>

#include "strbuf.h"

size_t gm_tsv_split(char *line, char **fields, size_t max)
{
	size_t n = 0;
	char *p = line;

	for (;;) {
		char *tab = strchr(p, '\t');
		if (n < max) {
			fields[n] = p;
		}
		n++;
		if (!tab) {
			break;
		}
		*tab = '\0';
		p = tab + 1;
	}
	return n;
}

int gm_tsv_int(const char *s, int64_t min, int64_t max, int64_t *out)
{
	int neg = 0;
	uint64_t v = 0, limit;

	if (*s == '-' && min < 0) {
		neg = 1;
		s++;
	}
	if (!*s) {
		return -1;
	}
	limit = neg ? (uint64_t)INT64_MAX + 1 : (uint64_t)INT64_MAX;
	for (; *s; s++) {
		unsigned d = (unsigned)(*s - '0');
		if (d > 9 || v > (limit - d) / 10) {
			return -1;
		}
		v = v * 10 + d;
	}
	int64_t r = neg ? (int64_t)(0 - v) : (int64_t)v;
	if (r < min || r > max) {
		return -1;
	}
	*out = r;
	return 0;
}

int gm_tsv_unescape(char *s)
{
	char *w = strchr(s, '\\');

	if (!w) {
		return 0;
	}
	for (char *r = w; *r; r++) {
		if (*r != '\\') {
			*w++ = *r;
			continue;
		}
		switch (*++r) {
		case '\\':
			*w++ = '\\';
			break;
		case 't':
			*w++ = '\t';
			break;
		case 'n':
			*w++ = '\n';
			break;
		default:
			return -1;
		}
	}
	*w = '\0';
	return 0;
}

int gm_tsv_error(const char *path, unsigned long line, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	gm_error("%s:%lu: %s", path, line, sb.buf);
	strbuf_release(&sb);
	return -1;
}
