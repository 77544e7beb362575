/* SPDX-License-Identifier: MIT */
/*
 * Repetition controller (see repeat.h).
 */
#include "repeat.h"

#include <stdlib.h>

#include "strbuf.h"

void gm_repeat_init(struct repeat_ctl *rc, unsigned nr, unsigned min_replays,
		 int one_shot)
{
	rc->nr = nr;
	rc->one_shot = one_shot;
	rc->min_replays = min_replays && !one_shot ? min_replays : 1;
	rc->done = gm_xcalloc(nr ? nr : 1, sizeof(*rc->done));
	rc->below = nr;
	rc->fixed = NULL;
}

void gm_repeat_set_fixed(struct repeat_ctl *rc, unsigned i, unsigned n)
{
	if (i >= rc->nr || !n) {
		return;
	}
	if (!rc->fixed) {
		rc->fixed = gm_xcalloc(rc->nr, sizeof(*rc->fixed));
	}
	rc->fixed[i] = n;
}

/* The replays program @i must complete before the group may end. */
static unsigned needed(const struct repeat_ctl *rc, unsigned i)
{
	return rc->fixed && rc->fixed[i] ? rc->fixed[i] : rc->min_replays;
}

void gm_repeat_release(struct repeat_ctl *rc)
{
	free(rc->done);
	free(rc->fixed);
	rc->done = NULL;
	rc->fixed = NULL;
	rc->nr = 0;
	rc->below = 0;
}

int gm_repeat_completed(struct repeat_ctl *rc, unsigned i, int *kept)
{
	int more;

	*kept = 0;
	if (i >= rc->nr) {
		return 0;
	}
	rc->done[i]++;
	if (rc->done[i] == needed(rc, i)) {
		rc->below--;
	}
	if (rc->fixed && rc->fixed[i]) {
		*kept = 1;
		return rc->done[i] < rc->fixed[i];
	}
	more = !rc->one_shot && rc->below > 0;
	*kept = more || rc->one_shot;
	return more;
}

int gm_repeat_all_done(const struct repeat_ctl *rc)
{
	return rc->below == 0;
}
