/* SPDX-License-Identifier: MIT */
/*
 * Per-thread error-cause stack (see error.h). Fixed-size storage so that
 * recording an error never allocates: it is also used from the capture
 * library, where malloc on an error path would be a second failure.
 */
#include "error.h"

#include <errno.h>
#include <stdarg.h>
#include <string.h>

struct gm_error_state {
	char msg[GM_ERROR_MAX_CAUSES][GM_ERROR_MSG_LEN];
	int count;		/* messages held, <= GM_ERROR_MAX_CAUSES */
	int dropped;		/* oldest messages pushed out of the stack */
	char hint[GM_ERROR_MSG_LEN];
};

static _Thread_local struct gm_error_state state;

static void push(const char *fmt, va_list ap, const char *suffix)
{
	if (state.count == GM_ERROR_MAX_CAUSES) {
		memmove(state.msg[0], state.msg[1],
			sizeof(state.msg[0]) * (GM_ERROR_MAX_CAUSES - 1));
		state.count--;
		state.dropped++;
	}
	char *m = state.msg[state.count++];
	int n = vsnprintf(m, GM_ERROR_MSG_LEN, fmt, ap);
	if (suffix && n >= 0 && n < GM_ERROR_MSG_LEN) {
		snprintf(m + n, GM_ERROR_MSG_LEN - n, ": %s", suffix);
	}
}

int gm_error(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	push(fmt, ap, NULL);
	va_end(ap);
	return -1;
}

int gm_error_errno(const char *fmt, ...)
{
	int saved = errno;
	va_list ap;

	va_start(ap, fmt);
	push(fmt, ap, strerror(saved));
	va_end(ap);
	errno = saved;
	return -1;
}

void gm_error_hint(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(state.hint, sizeof(state.hint), fmt, ap);
	va_end(ap);
}

int gm_error_count(void)
{
	return state.count;
}

const char *gm_error_message(void)
{
	return state.count ? state.msg[state.count - 1] : "";
}

const char *gm_error_cause(int i)
{
	if (i < 0 || i >= state.count) {
		return NULL;
	}
	return state.msg[state.count - 1 - i];
}

void gm_error_report(FILE *out)
{
	if (!state.count) {
		return;
	}
	fprintf(out, "error: %s\n", state.msg[state.count - 1]);
	for (int i = state.count - 2; i >= 0; i--) {
		fprintf(out, "  caused by: %s\n", state.msg[i]);
	}
	if (state.dropped) {
		fprintf(out, "  (%d older causes not shown)\n", state.dropped);
	}
	if (state.hint[0]) {
		fprintf(out, "hint: %s\n", state.hint);
	}
	gm_error_clear();
}

void gm_error_clear(void)
{
	state.count = 0;
	state.dropped = 0;
	state.hint[0] = '\0';
}

void gm_warning(const char *fmt, ...)
{
	va_list ap;

	fputs("warning: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputc('\n', stderr);
}
