/* SPDX-License-Identifier: MIT */
/*
 * Repetition controller: Tuck and Tullsen's rule on simulated programs of
 * different speeds (no GPU, no threads: a discrete-time simulation).
 */
#include "replay/repeat.h"
#include "test.h"

/* Programs i take len[i] time units per replay; run until all stop. */
static void simulate(unsigned nr, unsigned r, int one_shot,
		     const unsigned *len, unsigned *replays, unsigned *kept)
{
	struct repeat_ctl rc;
	unsigned t_next[8], running = nr;

	gm_repeat_init(&rc, nr, r, one_shot);
	for (unsigned i = 0; i < nr; i++) {
		t_next[i] = len[i];
		replays[i] = kept[i] = 0;
	}
	for (unsigned t = 1; running && t < 100000; t++) {
		for (unsigned i = 0; i < nr; i++) {
			if (t_next[i] != t) {
				continue;
			}
			int more, k;
			replays[i]++;
			more = gm_repeat_completed(&rc, i, &k);
			kept[i] += k;
			if (more) {
				t_next[i] = t + len[i];
			} else {
				t_next[i] = 0;
				running--;
			}
		}
	}
	gm_repeat_release(&rc);
}

int main(void)
{
	unsigned replays[8], kept[8];
	struct repeat_ctl rc;

	{
		unsigned len[2] = { 3, 10 };
		simulate(2, 7, 0, len, replays, kept);
		CHECK_INT(replays[1], 7, "slow program does exactly R replays");
		CHECK_INT(kept[1], 6, "its last one is discarded");
		CHECK_INT(replays[0], 24, "fast program keeps going until the "
					  "slow one has R, then ends its replay");
		CHECK_INT(kept[0], 23, "its last one is discarded too");
	}
	{
		unsigned len[3] = { 3, 5, 7 };
		simulate(3, 3, 0, len, replays, kept);
		CHECK_INT(replays[2], 3, "slowest: R replays");
		CHECK(replays[0] >= 7 && replays[1] >= 4,
		      "others replay while it runs");
		CHECK(kept[0] == replays[0] - 1 && kept[1] == replays[1] - 1 &&
		      kept[2] == replays[2] - 1, "exactly one discarded each");
	}
	{
		unsigned len[1] = { 4 };
		simulate(1, 7, 0, len, replays, kept);
		CHECK_INT(replays[0], 7, "a group of one (single) does R");
		CHECK_INT(kept[0], 6, "and keeps R-1");
	}
	{
		unsigned len[3] = { 3, 10, 7 };
		simulate(3, 7, 1, len, replays, kept);
		CHECK(replays[0] == 1 && replays[1] == 1 && replays[2] == 1,
		      "one-shot: every program replays exactly once, the fast "
		      "one too");
		CHECK(kept[0] == 1 && kept[1] == 1 && kept[2] == 1,
		      "one-shot: and that replay is kept");
		simulate(1, 7, 1, len, replays, kept);
		CHECK(replays[0] == 1 && kept[0] == 1,
		      "one-shot, a group of one (single): once, kept");
	}
	int k;
	gm_repeat_init(&rc, 2, 2, 0);
	CHECK_INT(gm_repeat_completed(&rc, 0, &k), 1, "continue below R");
	CHECK_INT(k, 1, "a replay that another follows is kept");
	CHECK_INT(gm_repeat_completed(&rc, 5, &k), 0, "unknown program stops");
	CHECK_INT(k, 0, "and keeps nothing");
	CHECK(!gm_repeat_all_done(&rc), "not done");
	CHECK_INT(gm_repeat_completed(&rc, 0, &k), 1, "continue while another is below R");
	CHECK_INT(gm_repeat_completed(&rc, 1, &k), 1, "one below R");
	CHECK_INT(gm_repeat_completed(&rc, 1, &k), 0, "last one reaches R: stop");
	CHECK_INT(k, 0, "its last replay is discarded");
	CHECK(gm_repeat_all_done(&rc), "all done");
	CHECK_INT(gm_repeat_completed(&rc, 0, &k), 0, "the other stops at its next");
	gm_repeat_release(&rc);
	/* An open-loop program (gm_repeat_set_fixed): exactly its requests,
	 * every one kept; the batch program goes on until it is done. */
	gm_repeat_init(&rc, 2, 2, 0);
	gm_repeat_set_fixed(&rc, 0, 4);
	CHECK_INT(gm_repeat_completed(&rc, 1, &k), 1, "fixed: batch below R");
	CHECK_INT(gm_repeat_completed(&rc, 1, &k), 1,
		  "fixed: batch at R goes on while the open-loop one serves");
	CHECK_INT(k, 1, "fixed: and keeps that replay");
	for (int r = 0; r < 3; r++) {
		CHECK_INT(gm_repeat_completed(&rc, 0, &k), 1,
			  "fixed: open-loop program before its last request");
		CHECK_INT(k, 1, "fixed: each request kept");
	}
	CHECK(!gm_repeat_all_done(&rc), "fixed: not done before its last");
	CHECK_INT(gm_repeat_completed(&rc, 0, &k), 0,
		  "fixed: its last request ends it");
	CHECK_INT(k, 1, "fixed: the last request kept too");
	CHECK(gm_repeat_all_done(&rc), "fixed: done");
	CHECK_INT(gm_repeat_completed(&rc, 1, &k), 0, "fixed: batch stops next");
	CHECK_INT(k, 0, "fixed: its last replay discarded");
	gm_repeat_release(&rc);
	gm_repeat_init(&rc, 2, 7, 1);
	CHECK_INT(gm_repeat_completed(&rc, 0, &k), 0,
		  "one-shot: the first to finish stops while the other runs");
	CHECK_INT(k, 1, "one-shot: its replay kept");
	CHECK(!gm_repeat_all_done(&rc), "one-shot: not done until the other is");
	CHECK_INT(gm_repeat_completed(&rc, 1, &k), 0, "one-shot: the other stops");
	CHECK(gm_repeat_all_done(&rc), "one-shot: all done");
	gm_repeat_release(&rc);
	return test_done();
}
