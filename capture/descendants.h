/* SPDX-License-Identifier: MIT */
/*
 * Processes the captured program starts. `gpumix capture` makes itself a
 * child subreaper before it runs the program, so descendants orphaned
 * when their parent exits become its children; after the program exits it
 * waits, for a bounded time, for them to end, so that their events reach
 * the bundle before the session stops.
 */
#ifndef GM_CAPTURE_DESCENDANTS_H
#define GM_CAPTURE_DESCENDANTS_H

#include <stddef.h>
#include <sys/types.h>

/* Adopt orphaned descendants (PR_SET_CHILD_SUBREAPER); 0 or -1. */
int capture_adopt_orphans(void);

/*
 * Once the program has been waited for: wait up to @max_s seconds until
 * every process it left behind (adopted, so our children now) has ended,
 * reaping them. A process is traced from its first CUDA call, so all of
 * them are waited for, CUDA or not. @say is called once, when waiting
 * starts, with how many are running. Returns how many are still running
 * when it gives up (0: none), with their pids in @left (up to @nr_left).
 */
size_t capture_wait_descendants(double max_s, void (*say)(size_t running),
				pid_t *left, size_t nr_left);

#endif
