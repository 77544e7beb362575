/* SPDX-License-Identifier: MIT */
/*
 * The replay watchdog: a thread that looks at each program's progress
 * counter and calls back when a program that is replaying has not
 * advanced for longer than the timeout (a kernel spinning on a barrier
 * its co-runner starves, a deadlocked stream wait). Programs publish
 * their state with relaxed atomic stores, so watching costs the replay
 * nothing but one store per operation. No CUDA here: the hang callback
 * decides what to do (the runtime writes the run directory and exits).
 */
#ifndef GM_WATCHDOG_H
#define GM_WATCHDOG_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>

/* What one program publishes (written by its thread only). */
struct watchdog_target {
	atomic_int active;		/* 1 while replaying */
	atomic_uint_fast64_t progress;	/* bumped after every operation */
	atomic_uint_fast64_t op;	/* index of the current operation */
	/* watchdog-private */
	uint64_t seen_progress;
	uint64_t seen_ns;		/* when seen_progress was taken */
	int seen_active;
};

/* Called from the watchdog thread with the stalled target's index. */
typedef void (*watchdog_hang_fn)(void *arg, unsigned target,
				 double stalled_s);

struct watchdog {
	struct watchdog_target *targets;
	unsigned nr;
	uint64_t timeout_ns;
	uint64_t poll_ns;
	watchdog_hang_fn on_hang;
	void *arg;
	pthread_t thread;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int running, stop;
};

/* Reset a target (before the program starts). */
void gm_watchdog_target_init(struct watchdog_target *t);

/* Program side: cheap progress publication. */
static inline void watchdog_at(struct watchdog_target *t, uint64_t op)
{
	atomic_store_explicit(&t->op, op, memory_order_relaxed);
}

static inline void watchdog_step(struct watchdog_target *t)
{
	atomic_fetch_add_explicit(&t->progress, 1, memory_order_relaxed);
}

static inline void watchdog_set_active(struct watchdog_target *t, int on)
{
	atomic_fetch_add_explicit(&t->progress, 1, memory_order_relaxed);
	atomic_store_explicit(&t->active, on, memory_order_relaxed);
}

/*
 * One look at every target at time @now_ns (monotonic). Returns the index
 * of a target that has been active without progress for more than
 * @timeout_ns, or -1. Exposed for tests; the thread calls it.
 */
int gm_watchdog_scan(struct watchdog_target *targets, unsigned nr,
		  uint64_t timeout_ns, uint64_t now_ns, double *stalled_s);

/*
 * Start the thread over @nr targets. @timeout_s <= 0 starts nothing (the
 * watchdog is off). Returns 0 or -1 (cause recorded).
 */
int gm_watchdog_start(struct watchdog *wd, struct watchdog_target *targets,
		   unsigned nr, double timeout_s, watchdog_hang_fn on_hang,
		   void *arg);

/* Stop and join the thread (harmless when not started). */
void gm_watchdog_stop(struct watchdog *wd);

/* Monotonic clock in nanoseconds. */
uint64_t gm_watchdog_now_ns(void);

#endif
