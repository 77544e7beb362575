/* SPDX-License-Identifier: MIT */
/*
 * Kernel-name demangling (see demangle.h).
 */
#include "demangle.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

/* From the C++ ABI (libstdc++, libc++abi); declared here to stay in C. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len,
			    int *status);

char *gm_demangle(const char *mangled)
{
	int status = -1;
	char *d;

	if (strncmp(mangled, "_Z", 2)) {
		return gm_xstrdup(mangled);
	}
	d = __cxa_demangle(mangled, NULL, NULL, &status);
	if (!d || status) {
		free(d);
		return gm_xstrdup(mangled);
	}
	return d;
}

/* Index of the bracket that opens the one closing at @close, or -1. */
static long match_back(const char *s, long close, char open_c, char close_c)
{
	int depth = 0;

	for (long i = close; i >= 0; i--) {
		if (s[i] == close_c) {
			depth++;
		} else if (s[i] == open_c && --depth == 0) {
			return i;
		}
	}
	return -1;
}

char *gm_short_name(const char *demangled)
{
	long len = (long)strlen(demangled), end = len, i;
	const char *close = strrchr(demangled, ')');
	int depth = 0;

	if (close) {
		long open = match_back(demangled, close - demangled, '(', ')');
		if (open > 0) {
			end = open;
		}
	}
	if (end > 0 && demangled[end - 1] == '>') {
		long open = match_back(demangled, end - 1, '<', '>');
		if (open > 0) {
			end = open;
		}
	}
	/* Walk back to the start of the last component at depth 0. */
	for (i = end - 1; i >= 0; i--) {
		char c = demangled[i];
		if (c == '>' || c == ')') {
			depth++;
		} else if (c == '<' || c == '(') {
			depth--;
		} else if (!depth && (c == ' ' || (c == ':' && i > 0 &&
						   demangled[i - 1] == ':'))) {
			break;
		}
	}
	if (end - (i + 1) <= 0) {
		return gm_xstrdup(demangled);
	}
	char *s = gm_xmalloc((size_t)(end - i));
	memcpy(s, demangled + i + 1, (size_t)(end - i - 1));
	s[end - i - 1] = '\0';
	return s;
}
