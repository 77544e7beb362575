/* SPDX-License-Identifier: MIT */
/*
 * The start barrier of a native co-run (gpumix corun, doc/gpumix-corun.md):
 * a file of one page, mapped shared by the co-running programs, at which
 * each waits at its first GPU operation until all have arrived, so that
 * their GPU sections start together. The command creates it, one per
 * co-run, for a number of parties; the co-run interposer
 * (corun/inject.c) in each program opens it and waits in its slot, with a
 * time limit, so that a partner that crashed or never reaches the GPU
 * does not hold the others for ever. Waiters sleep on a futex in the
 * mapping (the last to arrive wakes them), so they leave the barrier
 * within microseconds of one another.
 *
 * Several processes of one program (a program that forks) share its
 * slot: the first to arrive counts, the others wait with it.
 */
#ifndef GM_START_BARRIER_H
#define GM_START_BARRIER_H

#include <stdint.h>

/* Most programs one barrier holds. */
#define GM_BARRIER_MAX_PARTIES 64

/* The barrier's file in the directory the command gives. */
#define GM_BARRIER_FILE "barrier"

enum gm_barrier_state {
	GM_BARRIER_WAITING,	/* not everyone has arrived */
	GM_BARRIER_RELEASED,	/* everyone arrived: go */
	GM_BARRIER_BROKEN,	/* the command gave up on it (a partner
				   ended before arriving) */
};

/* How a wait ended. */
enum gm_barrier_outcome {
	GM_BARRIER_GO,		/* released: all arrived */
	GM_BARRIER_TIMEOUT,	/* the time limit passed first */
	GM_BARRIER_GAVE_UP,	/* broken by the command */
};

struct gm_barrier_shm;

struct gm_start_barrier {
	struct gm_barrier_shm *shm;	/* the mapping, NULL when closed */
};

/*
 * Create the barrier file @path for @parties programs (1 to
 * GM_BARRIER_MAX_PARTIES), replacing any older one atomically: a waiter
 * that still has the old file mapped never sees the new one. Returns 0
 * or -1 with the cause recorded.
 */
int gm_barrier_create(const char *path, unsigned parties);

/*
 * Map the barrier file @path into @b. Fails (-1, cause recorded) when it
 * cannot be opened or is not a barrier of this version. Release with
 * gm_barrier_close().
 */
int gm_barrier_open(struct gm_start_barrier *b, const char *path);

/* Unmap; harmless on a closed barrier. */
void gm_barrier_close(struct gm_start_barrier *b);

/* The number of parties the barrier was created for. */
unsigned gm_barrier_parties(const struct gm_start_barrier *b);

/*
 * Arrive in slot @slot (0 to parties - 1) and wait until every slot has
 * arrived, the command breaks the barrier, or @timeout_s seconds pass.
 * A slot that has already arrived (another process of the same program)
 * waits without counting again. Returns the outcome; never fails (a
 * slot out of range is -1, with a cause).
 */
int gm_barrier_wait(struct gm_start_barrier *b, unsigned slot,
		    double timeout_s);

/* 1 when slot @slot has arrived. */
int gm_barrier_arrived(const struct gm_start_barrier *b, unsigned slot);

/* How many slots have arrived. */
unsigned gm_barrier_count(const struct gm_start_barrier *b);

/* The state (enum gm_barrier_state). */
int gm_barrier_state(const struct gm_start_barrier *b);

/* CLOCK_MONOTONIC ns at which the last party arrived, 0 before. */
uint64_t gm_barrier_release_ns(const struct gm_start_barrier *b);

/*
 * Break the barrier (the command, when a program ends before arriving):
 * its waiters return GM_BARRIER_GAVE_UP at once, later arrivals too. A
 * barrier already released stays released.
 */
void gm_barrier_break(struct gm_start_barrier *b);

#endif
