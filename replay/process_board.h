/* SPDX-License-Identifier: MIT */
/*
 * The shared board of a process variant's replay (procs, mps; doc/mps.md):
 * one page of
 * shared memory (a memfd the parent creates and its replay processes
 * inherit) through which n processes, one per program, keep the rules
 * the threads of one process keep with repeat.h and run.c's barriers:
 * all start replaying together (after every process is initialised),
 * every program replays until all have done R replays (each one's last
 * replay discarded), or exactly once (one-shot, kept), and a failure
 * anywhere stops everyone. A
 * process-shared robust mutex guards it: a process killed while holding
 * it does not block the others. Every wait has a deadline, and the
 * parent marks the board stopped when a process dies, so no wait outlives
 * its partners.
 */
#ifndef GM_PROCESS_BOARD_H
#define GM_PROCESS_BOARD_H

#include <pthread.h>
#include <stdint.h>

/* MPS serves 48 clients per GPU (Volta+); time-sliced processes are held
 * to the same (the board's size). */
#define GM_PROCESS_MAX_PROGRAMS 48

struct gm_process_board {
	pthread_mutex_t lock;
	pthread_cond_t cond;
	unsigned nr, min_replays;
	int one_shot;			/* each program replays once, kept */
	unsigned done[GM_PROCESS_MAX_PROGRAMS];	/* completed replays */
	unsigned fixed[GM_PROCESS_MAX_PROGRAMS];	/* 0, or an open-loop
					   program's exact replays (repeat.h) */
	unsigned below;			/* programs with done < R */
	unsigned ready, finished;	/* at the init / cleanup barrier */
	int stop;			/* a process failed or died */
	/* Clock pairs each process measured: its replay clock (CUPTI's)
	 * minus CLOCK_MONOTONIC, in ns (doc/mps.md "One clock"). */
	int64_t clock_offset[GM_PROCESS_MAX_PROGRAMS];
	uint8_t have_offset[GM_PROCESS_MAX_PROGRAMS];
};

/*
 * Create a board for @nr programs that must each complete @min_replays
 * (or, with @one_shot, replay exactly once), in a new memfd (returned in
 * *@fd, inherited across exec: not close-on-exec). Returns the mapped
 * board or NULL (cause recorded).
 */
struct gm_process_board *gm_process_board_create(unsigned nr,
						 unsigned min_replays,
						 int one_shot, int *fd);

/* Map the board of inherited descriptor @fd (a replay process). NULL and
 * a cause when @fd is no board. */
struct gm_process_board *gm_process_board_attach(int fd);

/* Unmap (the memfd closes with its last descriptor). */
void gm_process_board_detach(struct gm_process_board *b);

/*
 * Program @i is initialised (@ok 0: its init failed, which stops the
 * board). Waits until every program is, the board stops, or @timeout_s
 * passes. Returns 0 to start replaying, -1 when the board stopped or the
 * others did not come in time (cause recorded).
 */
int gm_process_board_ready(struct gm_process_board *b, unsigned i, int ok,
		       double timeout_s);

/* Program @i replays exactly @n times, each kept (gm_repeat_set_fixed());
 * the parent calls it before starting the processes. */
void gm_process_board_set_fixed(struct gm_process_board *b, unsigned i,
				unsigned n);

/* Program @i completed a replay: 1 to start another, 0 when it was its
 * last; *@kept whether it counts (as gm_repeat_completed()). */
int gm_process_board_completed(struct gm_process_board *b, unsigned i,
			       int *kept);

/* Program @i is done replaying; waits (up to @timeout_s) until every
 * program is, so nobody frees while another still replays. */
void gm_process_board_finish(struct gm_process_board *b, unsigned i,
			 double timeout_s);

/* Stop everyone (a failure, a dead process). */
void gm_process_board_stop(struct gm_process_board *b);

/* 1 once the board is stopped. */
int gm_process_board_stopped(struct gm_process_board *b);

/* Record program @i's clock offset (see the struct). */
void gm_process_board_set_offset(struct gm_process_board *b, unsigned i,
			     int64_t offset_ns);

#endif
