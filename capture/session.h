/* SPDX-License-Identifier: MIT */
/*
 * LTTng session control for a capture, through the `lttng` command-line
 * tool (found on PATH): make sure a session daemon is reachable (starting
 * one if needed), create one uniquely named session writing to a given
 * directory with one blocking, per-process-buffered user-space channel
 * whose sub-buffers hold the largest gpumix event, enable the
 * gpumix_capture events with the vpid/vtid contexts, start, stop and
 * destroy it.
 *
 * The daemon: as root there is one per machine (/var/run/lttng; LTTNG_HOME
 * does not change that), and it needs --no-kernel where no LTTng kernel
 * modules exist; a non-root user gets a per-user daemon that honours
 * LTTNG_HOME. LTTNG_SESSIOND_PATH names the daemon binary when set.
 */
#ifndef GM_CAPTURE_SESSION_H
#define GM_CAPTURE_SESSION_H

#include <stddef.h>

/* The channel every gpumix event goes to. */
#define GM_LTTNG_CHANNEL "gpumix"
#define GM_LTTNG_SUBBUF_DEFAULT ((size_t)1 << 20)
#define GM_LTTNG_NUM_SUBBUF_DEFAULT 8

/* When to pass --no-kernel to a daemon we start. */
enum gm_kernel_mode {
	GM_KERNEL_AUTO,		/* when root and no LTTng kernel modules */
	GM_KERNEL_NO,		/* always (gpumix capture --no-kernel) */
};

struct lttng_session {
	char *name;		/* unique: gpumix-<pid>-<random> */
	char *output;		/* trace directory */
	int created, started;
	int daemon_started;	/* this process started the daemon */
};

#define LTTNG_SESSION_INIT { NULL, NULL, 0, 0, 0 }

/*
 * Make sure a session daemon is reachable, starting one when none is.
 * Returns 0, or -1 with a cause (no lttng tools, daemon fails to start).
 * @started is set to 1 when a daemon was started here.
 */
int lttng_daemon_ensure(enum gm_kernel_mode mode, int *started);

/*
 * Create the session writing to @output (created by LTTng; must not
 * exist), with the gpumix channel of @nr_subbuf sub-buffers of
 * @subbuf_size bytes, contexts and events. On failure the session is
 * destroyed again and -1 returned with a cause.
 */
int lttng_session_create(struct lttng_session *s, const char *output,
			 size_t subbuf_size, unsigned nr_subbuf);

int lttng_session_start(struct lttng_session *s);

/* Stop (waiting until all buffered data is on disk). */
int lttng_session_stop(struct lttng_session *s);

/* Destroy (stopping first if needed) and release @s; safe to call twice. */
int lttng_session_destroy(struct lttng_session *s);

/* Environment a traced child needs (blocking mode); "NAME=VALUE" strings. */
extern const char *const gm_lttng_child_env[];

#endif
