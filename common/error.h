/* SPDX-License-Identifier: MIT */
/*
 * Error causes: library code records what went wrong and returns -1; only
 * the command-line front end prints, once. Each call to gm_error() pushes a
 * message on a per-thread stack; the newest message is the headline and the
 * older ones are printed under it as "caused by:" lines, so a low-level
 * failure ("cannot open 'x/manifest': No such file") reads naturally under
 * the high-level one ("cannot load run 'x'").
 */
#ifndef GM_ERROR_H
#define GM_ERROR_H

#include <stdio.h>

#define GM_ERROR_MAX_CAUSES 8
#define GM_ERROR_MSG_LEN 512

#if defined(__GNUC__)
#define GM_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define GM_PRINTF(a, b)
#endif

/*
 * Record a message (printf format). Returns -1 so that callers can write
 * "return gm_error(...)". When the stack is full, the oldest cause is
 * dropped and counted, never the newest.
 */
int gm_error(const char *fmt, ...) GM_PRINTF(1, 2);

/* Like gm_error() with ": strerror(errno)" appended; errno is preserved. */
int gm_error_errno(const char *fmt, ...) GM_PRINTF(1, 2);

/* Attach a hint ("hint: ...") to the current error; the last one wins. */
void gm_error_hint(const char *fmt, ...) GM_PRINTF(1, 2);

/* Number of messages recorded on this thread since the last clear. */
int gm_error_count(void);

/* The newest message, or "" when none; valid until the next gm_error*(). */
const char *gm_error_message(void);

/* The i-th message, newest first (0 is the headline); NULL past the end. */
const char *gm_error_cause(int i);

/*
 * Print the recorded error as
 *   error: <headline>
 *     caused by: <older message>
 *   hint: <hint>
 * to @out and clear it. Prints nothing when no error was recorded.
 */
void gm_error_report(FILE *out);

/* Forget everything recorded on this thread. */
void gm_error_clear(void);

/* Print "warning: <message>" to stderr (CLI and tools only). */
void gm_warning(const char *fmt, ...) GM_PRINTF(1, 2);

#endif
