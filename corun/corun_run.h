/* SPDX-License-Identifier: MIT */
/*
 * Carrying out the plan of a native co-run: each step starts its
 * programs as processes (study/stage_exec.h: a process group each, their
 * output to a log, a time limit) with the co-run interposer injected
 * (CUDA_INJECTION64_PATH) and, when they run together, a start barrier
 * for them; waits for them, breaking the barrier when one ends before it
 * arrived so that its partners need not wait for the time limit; and
 * reads each program's GPU section from the section files of its
 * processes (the earliest start, the latest end). A mechanism with an MPS
 * daemon (replay/mps_daemon.h) gets one for its steps; the others, and
 * the programs alone, get an MPS pipe directory with no daemon in it, so
 * that no MPS daemon of the machine takes them as clients.
 *
 * Everything goes under the output directory being written:
 *   logs/MODE.REPEAT.PROGRAM.log      the program's stdout and stderr
 *   sections/MODE.REPEAT.PROGRAM/     its processes' section files
 *   barrier/MODE.REPEAT/              the start barrier of a step
 *   mps/MECHANISM/                    the daemon's logs
 */
#ifndef GM_CORUN_RUN_H
#define GM_CORUN_RUN_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "plan.h"
#include "program.h"

struct corun_opts {
	const char *lib;	/* libgpumix-corun.so */
	const char *dir;	/* where logs, sections and barriers go */
	double barrier_timeout_s; /* a program's wait for its partners */
	double time_limit_s;	/* a step's processes, 0: none */
	FILE *progress;		/* a line per step, or NULL */
};

/* One program's GPU section in one step. */
struct corun_measure {
	size_t step;		/* index into the plan's steps */
	size_t program;
	uint64_t start_ns, end_ns, ops;
	unsigned processes;	/* its processes that made GPU operations */
	char first_op[64], last_op[64];
	char device[128];
};

struct corun_results {
	struct corun_measure *m;
	size_t nr, alloc;
	size_t steps_done;
	char *failure;		/* why the co-run stopped (owned), or NULL */
	int interrupted;	/* the signal that stopped it, or 0 */
	int daemon_trouble;	/* an MPS daemon had to be killed */
};

/*
 * Carry out @plan for @progs. Returns 0 when the plan ran to its end or
 * stopped at a program's failure (r->failure says which and why: it
 * exited non-zero, measured no GPU section, never reached the start
 * barrier), -1 when it could not run: a directory or barrier cannot be
 * made, a program cannot be started, an MPS daemon does not start, or
 * it was interrupted (r->interrupted). Release @r either way.
 */
int corun_execute(const struct corun_plan *plan,
		  const struct corun_program *progs,
		  const struct corun_opts *o, struct corun_results *r);

void corun_results_release(struct corun_results *r);

#endif
