/* SPDX-License-Identifier: MIT */
/*
 * Watchdog thread (see watchdog.h). It polls ten times per timeout (at
 * most once a second, at least every 10 ms) and calls the hang callback
 * at most once; the callback normally does not return.
 */
#include "watchdog.h"

#include <errno.h>
#include <string.h>
#include <time.h>

#include "error.h"

uint64_t gm_watchdog_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void gm_watchdog_target_init(struct watchdog_target *t)
{
	atomic_init(&t->active, 0);
	atomic_init(&t->progress, 0);
	atomic_init(&t->op, 0);
	t->seen_progress = 0;
	t->seen_ns = 0;
	t->seen_active = 0;
}

int gm_watchdog_scan(struct watchdog_target *targets, unsigned nr,
		  uint64_t timeout_ns, uint64_t now_ns, double *stalled_s)
{
	for (unsigned i = 0; i < nr; i++) {
		struct watchdog_target *t = &targets[i];
		int active = atomic_load_explicit(&t->active,
						  memory_order_relaxed);
		uint64_t p = atomic_load_explicit(&t->progress,
						  memory_order_relaxed);

		if (!active || !t->seen_active || p != t->seen_progress) {
			t->seen_progress = p;
			t->seen_ns = now_ns;
			t->seen_active = active;
			continue;
		}
		if (now_ns - t->seen_ns > timeout_ns) {
			if (stalled_s) {
				*stalled_s = (now_ns - t->seen_ns) / 1e9;
			}
			return (int)i;
		}
	}
	return -1;
}

static void *watchdog_main(void *arg)
{
	struct watchdog *wd = arg;
	int fired = 0;

	pthread_mutex_lock(&wd->lock);
	while (!wd->stop) {
		struct timespec until;
		uint64_t now;
		double stalled = 0;
		int hung;

		clock_gettime(CLOCK_REALTIME, &until);
		until.tv_nsec += (long)(wd->poll_ns % 1000000000u);
		until.tv_sec += (time_t)(wd->poll_ns / 1000000000u);
		if (until.tv_nsec >= 1000000000L) {
			until.tv_nsec -= 1000000000L;
			until.tv_sec++;
		}
		pthread_cond_timedwait(&wd->cond, &wd->lock, &until);
		if (wd->stop || fired) {
			continue;
		}
		now = gm_watchdog_now_ns();
		hung = gm_watchdog_scan(wd->targets, wd->nr, wd->timeout_ns,
					now, &stalled);
		if (hung >= 0) {
			fired = 1;
			pthread_mutex_unlock(&wd->lock);
			wd->on_hang(wd->arg, (unsigned)hung, stalled);
			pthread_mutex_lock(&wd->lock);
		}
	}
	pthread_mutex_unlock(&wd->lock);
	return NULL;
}

int gm_watchdog_start(struct watchdog *wd, struct watchdog_target *targets,
		   unsigned nr, double timeout_s, watchdog_hang_fn on_hang,
		   void *arg)
{
	int err;

	memset(wd, 0, sizeof(*wd));
	if (timeout_s <= 0) {
		return 0;
	}
	wd->targets = targets;
	wd->nr = nr;
	wd->timeout_ns = (uint64_t)(timeout_s * 1e9);
	wd->poll_ns = wd->timeout_ns / 10;
	if (wd->poll_ns > 1000000000u) {
		wd->poll_ns = 1000000000u;
	}
	if (wd->poll_ns < 10000000u) {
		wd->poll_ns = 10000000u;
	}
	wd->on_hang = on_hang;
	wd->arg = arg;
	pthread_mutex_init(&wd->lock, NULL);
	pthread_cond_init(&wd->cond, NULL);
	err = pthread_create(&wd->thread, NULL, watchdog_main, wd);
	if (err) {
		errno = err;
		return gm_error_errno("cannot start the watchdog thread");
	}
	wd->running = 1;
	return 0;
}

void gm_watchdog_stop(struct watchdog *wd)
{
	if (!wd->running) {
		return;
	}
	pthread_mutex_lock(&wd->lock);
	wd->stop = 1;
	pthread_cond_signal(&wd->cond);
	pthread_mutex_unlock(&wd->lock);
	pthread_join(wd->thread, NULL);
	pthread_mutex_destroy(&wd->lock);
	pthread_cond_destroy(&wd->cond);
	wd->running = 0;
}
