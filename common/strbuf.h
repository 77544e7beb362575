/* SPDX-License-Identifier: MIT */
/*
 * A growable, always NUL-terminated byte buffer (git's strbuf idea, written
 * here). Initialise with STRBUF_INIT or strbuf_init(); strbuf_release()
 * frees and re-initialises; strbuf_detach() hands the bytes to the caller.
 * Allocation failure aborts: these are for CLI-side code, not for the
 * capture hot path.
 */
#ifndef GM_STRBUF_H
#define GM_STRBUF_H

#include <stdarg.h>
#include <stddef.h>

#include "error.h"

struct strbuf {
	size_t len;
	size_t alloc;
	char *buf;
};

extern char strbuf_empty[];
#define STRBUF_INIT { 0, 0, strbuf_empty }

void strbuf_init(struct strbuf *sb, size_t hint);
void strbuf_release(struct strbuf *sb);
/* Return the buffer (caller frees) and re-initialise @sb. */
char *strbuf_detach(struct strbuf *sb, size_t *len);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_reset(struct strbuf *sb);
void strbuf_setlen(struct strbuf *sb, size_t len);
void strbuf_add(struct strbuf *sb, const void *data, size_t len);
void strbuf_addstr(struct strbuf *sb, const char *s);
void strbuf_addch(struct strbuf *sb, int c);
/* @s as one POSIX shell word: as it is when nothing in it is special,
 * else in single quotes (a quote inside as '\'') */
void strbuf_add_shell_word(struct strbuf *sb, const char *s);
/* @s for a line of text output, as C writes it in a string: a backslash,
 * a double quote and every control byte escaped (\\, \", \n, \t, \r,
 * else \xHH), so that a name from a trace cannot break or forge a line */
void strbuf_add_escaped(struct strbuf *sb, const char *s);
void strbuf_addf(struct strbuf *sb, const char *fmt, ...) GM_PRINTF(2, 3);
void strbuf_vaddf(struct strbuf *sb, const char *fmt, va_list ap);
/* Remove trailing whitespace. */
void strbuf_rtrim(struct strbuf *sb);
/* Append what @fd gives until its end (a child's output through a pipe);
 * 0 at the end, -1 with errno when a read fails (what came before stays). */
int strbuf_read_fd(struct strbuf *sb, int fd);

/* malloc/realloc/strdup that abort with a message on failure. */
void *gm_xmalloc(size_t n);
void *gm_xcalloc(size_t n, size_t size);
void *gm_xrealloc(void *p, size_t n);
char *gm_xstrdup(const char *s);
/* printf into a new string (caller frees). */
char *gm_xasprintf(const char *fmt, ...) GM_PRINTF(1, 2);

/* Grow an array (ptr, nr, alloc) to hold at least @need elements. */
#define GM_ALLOC_GROW(ptr, need, alloc)                                        \
	do {                                                                   \
		if ((size_t)(need) > (size_t)(alloc)) {                        \
			size_t gm_n_ = (alloc) ? (size_t)(alloc) * 2 : 16;     \
			if (gm_n_ < (size_t)(need))                            \
				gm_n_ = (size_t)(need);                        \
			(ptr) = gm_xrealloc((ptr), gm_n_ * sizeof(*(ptr)));    \
			(alloc) = gm_n_;                                       \
		}                                                              \
	} while (0)

#endif
