/* SPDX-License-Identifier: MIT */
/*
 * Watchdog: stall detection on a fake clock, and the thread itself with a
 * short timeout (the callback records instead of exiting).
 */
#include <unistd.h>

#include "replay/watchdog.h"
#include "test.h"

static atomic_int fired = -1;

static void on_hang(void *arg, unsigned target, double stalled)
{
	(void)arg;
	(void)stalled;
	atomic_store(&fired, (int)target);
}

int main(void)
{
	struct watchdog_target t[2];
	struct watchdog wd;
	uint64_t s = 1000000000ull;
	double stalled = 0;

	gm_watchdog_target_init(&t[0]);
	gm_watchdog_target_init(&t[1]);
	CHECK_INT(gm_watchdog_scan(t, 2, s, 0, NULL), -1, "idle: nothing");
	CHECK_INT(gm_watchdog_scan(t, 2, s, 5 * s, NULL), -1,
		  "inactive programs are never hung");
	watchdog_set_active(&t[1], 1);
	CHECK_INT(gm_watchdog_scan(t, 2, s, 6 * s, NULL), -1, "just started");
	watchdog_step(&t[1]);
	CHECK_INT(gm_watchdog_scan(t, 2, s, 6 * s + s / 2, NULL), -1,
		  "progress resets the clock");
	CHECK_INT(gm_watchdog_scan(t, 2, s, 7 * s, NULL), -1, "not yet");
	CHECK_INT(gm_watchdog_scan(t, 2, s, 8 * s, &stalled), 1,
		  "stalled for more than the timeout");
	CHECK_NEAR(stalled, 1.5, 1e-9, "stall duration reported");
	watchdog_set_active(&t[1], 0);
	CHECK_INT(gm_watchdog_scan(t, 2, s, 20 * s, NULL), -1,
		  "finished program not hung");

	/* The thread: program 0 stalls, program 1 keeps going. */
	gm_watchdog_target_init(&t[0]);
	gm_watchdog_target_init(&t[1]);
	CHECK_INT(gm_watchdog_start(&wd, t, 2, 0, on_hang, NULL), 0,
		  "timeout 0: off");
	gm_watchdog_stop(&wd);
	CHECK_INT(gm_watchdog_start(&wd, t, 2, 0.2, on_hang, NULL), 0,
		  "start the thread");
	watchdog_set_active(&t[0], 1);
	watchdog_set_active(&t[1], 1);
	for (int i = 0; i < 100 && atomic_load(&fired) < 0; i++) {
		watchdog_step(&t[1]);
		usleep(10000);
	}
	gm_watchdog_stop(&wd);
	CHECK_INT(atomic_load(&fired), 0, "the stalled program is reported");
	return test_done();
}
