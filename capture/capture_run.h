/* SPDX-License-Identifier: MIT */
/*
 * Running a program under capture: prepare the temporary bundle directory,
 * make sure an LTTng session daemon runs, create and start a session that
 * writes into the bundle, run the program with CUDA_INJECTION64_PATH set
 * to libgpumix-capture.so (its stdin, stdout and stderr untouched), then
 * stop and destroy the session. What the trace holds is checked
 * afterwards by the caller (bundle.h), which needs the bundle reader.
 */
#ifndef GM_CAPTURE_RUN_H
#define GM_CAPTURE_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "session.h"

struct capture_opts {
	char *const *argv;	/* the program and its arguments */
	const char *output;	/* final bundle directory */
	int force;		/* replace an existing bundle */
	enum gm_kernel_mode kernel;
	size_t subbuf_size;	/* 0: GM_LTTNG_SUBBUF_DEFAULT */
	unsigned nr_subbuf;	/* 0: GM_LTTNG_NUM_SUBBUF_DEFAULT */
	const char *lib;	/* path of libgpumix-capture.so */
	int no_fork_helper;	/* do not preload liblttng-ust-fork.so */
	double wait_s;		/* for processes the program started, after
				 * it exited (< 0: GM_CAPTURE_WAIT_DEFAULT) */
};

#define GM_CAPTURE_WAIT_DEFAULT 10.0
#define GM_CAPTURE_MAX_LEFT 8

struct capture_run {
	const struct capture_opts *opts;
	char *tmp;		/* temporary bundle directory (owned) */
	struct lttng_session session;
	/* The program. */
	int started;		/* exec succeeded */
	int exit_code;
	int signal;		/* killed by this signal, or 0 */
	int interrupted;	/* we got SIGINT/SIGTERM/SIGHUP meanwhile */
	uint64_t start_ns, end_ns;
	char *capture_error;	/* session problems after the start (owned) */
	/* Traced processes still running after the wait (not in the bundle
	 * from then on). */
	size_t nr_left;
	pid_t left[GM_CAPTURE_MAX_LEFT];
};

/*
 * Prepare the bundle and start tracing. Returns 0, or -1 with a cause
 * (nothing is left behind then).
 */
int capture_run_begin(struct capture_run *cr, const struct capture_opts *o);

/*
 * Run the program to completion. Returns 0 once it ran (whatever its exit
 * status), or -1 with a cause when it could not be started at all (then
 * cr->started is 0).
 */
int capture_run_program(struct capture_run *cr);

/*
 * Stop and destroy the session so that the whole trace is on disk.
 * Failures are kept in cr->capture_error (the bundle is then incomplete).
 */
void capture_run_end(struct capture_run *cr);

/* Remove the temporary directory (after a failed begin or program). */
void capture_run_discard(struct capture_run *cr);

void capture_run_release(struct capture_run *cr);

/* The exit status a shell would report for the program (128+signal). */
int capture_run_status(const struct capture_run *cr);

#endif
