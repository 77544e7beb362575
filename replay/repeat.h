/* SPDX-License-Identifier: MIT */
/*
 * The repetition controller (Tuck and Tullsen, as in the paper's section
 * 6.2): every program of a group keeps replaying until each of them has
 * completed at least R replays; each program's last replay is discarded,
 * because the others were no longer running beside it for all of it. In
 * the `cuda` variant the whole workload is one group; in `single` each
 * program is a group of its own. Pure bookkeeping: the caller serializes
 * calls (one mutex per group).
 */
#ifndef GM_REPEAT_H
#define GM_REPEAT_H

#include <stdint.h>

struct repeat_ctl {
	unsigned nr;		/* programs in the group */
	unsigned min_replays;	/* R */
	unsigned *done;		/* completed replays per program */
	unsigned below;		/* programs with done < R */
};

/* Start a group of @nr programs that must each complete @min_replays
 * (at least 1). */
void repeat_init(struct repeat_ctl *rc, unsigned nr, unsigned min_replays);
void repeat_release(struct repeat_ctl *rc);

/*
 * Program @i completed a replay. Returns 1 when it must start another, 0
 * when the replay it just completed was its last (to be discarded). Once
 * every program has R replays, every program's next completion is its
 * last.
 */
int repeat_completed(struct repeat_ctl *rc, unsigned i);

/* 1 once every program of the group has completed at least R replays. */
int repeat_all_done(const struct repeat_ctl *rc);

#endif
