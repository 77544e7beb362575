/* SPDX-License-Identifier: MIT */
/*
 * The repetition controller (Tuck and Tullsen, as in the paper's section
 * 6.2): every program of a group keeps replaying until each of them has
 * completed at least R replays; each program's last replay is discarded,
 * because the others were no longer running beside it for all of it. In
 * the `cuda` variant the whole workload is one group; in `single` each
 * program is a group of its own. A one-shot group (--one-shot) replays
 * each program exactly once and keeps that replay: the programs start
 * together and are measured as a native co-run is. Pure bookkeeping: the
 * caller serializes calls (one mutex per group).
 */
#ifndef GM_REPEAT_H
#define GM_REPEAT_H

#include <stdint.h>

struct repeat_ctl {
	unsigned nr;		/* programs in the group */
	unsigned min_replays;	/* R */
	unsigned *done;		/* completed replays per program */
	unsigned below;		/* programs with done < R */
	int one_shot;		/* each program replays once, kept */
	unsigned *fixed;	/* per program: 0, or its exact number of
				   replays (an open-loop program's
				   requests), every one kept */
};

/* Start a group of @nr programs that must each complete @min_replays
 * (at least 1), or, with @one_shot, each replay exactly once. */
void gm_repeat_init(struct repeat_ctl *rc, unsigned nr, unsigned min_replays,
		 int one_shot);
void gm_repeat_release(struct repeat_ctl *rc);

/*
 * Program @i of the group replays exactly @n times (@n >= 1), each
 * replay kept: an open-loop program, whose replays are its requests
 * (common/arrivals.h). The group is not done before it has; the other
 * programs keep their rule (R replays, the last discarded) and go on
 * beside it until it has. Call before the first gm_repeat_completed().
 */
void gm_repeat_set_fixed(struct repeat_ctl *rc, unsigned i, unsigned n);

/*
 * Program @i completed a replay. Returns 1 when it must start another, 0
 * when the replay it just completed was its last. Once every program has
 * R replays, every program's next completion is its last. Sets *@kept to
 * whether the completed replay counts: every one but a program's last,
 * which the others no longer ran beside for all of it; in a one-shot
 * group the only one, always its last and always kept.
 */
int gm_repeat_completed(struct repeat_ctl *rc, unsigned i, int *kept);

/* 1 once every program of the group has completed at least R replays. */
int gm_repeat_all_done(const struct repeat_ctl *rc);

#endif
