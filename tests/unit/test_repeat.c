/* SPDX-License-Identifier: MIT */
/*
 * Repetition controller: Tuck and Tullsen's rule on simulated programs of
 * different speeds (no GPU, no threads: a discrete-time simulation).
 */
#include "replay/repeat.h"
#include "test.h"

/* Programs i take len[i] time units per replay; run until all stop. */
static void simulate(unsigned nr, unsigned r, const unsigned *len,
		     unsigned *replays, unsigned *kept)
{
	struct repeat_ctl rc;
	unsigned t_next[8], running = nr;

	repeat_init(&rc, nr, r);
	for (unsigned i = 0; i < nr; i++) {
		t_next[i] = len[i];
		replays[i] = kept[i] = 0;
	}
	for (unsigned t = 1; running && t < 100000; t++) {
		for (unsigned i = 0; i < nr; i++) {
			if (t_next[i] != t) {
				continue;
			}
			replays[i]++;
			if (repeat_completed(&rc, i)) {
				kept[i]++;
				t_next[i] = t + len[i];
			} else {
				t_next[i] = 0;
				running--;
			}
		}
	}
	repeat_release(&rc);
}

int main(void)
{
	unsigned replays[8], kept[8];
	struct repeat_ctl rc;

	{
		unsigned len[2] = { 3, 10 };
		simulate(2, 7, len, replays, kept);
		CHECK_INT(replays[1], 7, "slow program does exactly R replays");
		CHECK_INT(kept[1], 6, "its last one is discarded");
		CHECK_INT(replays[0], 24, "fast program keeps going until the "
					  "slow one has R, then ends its replay");
		CHECK_INT(kept[0], 23, "its last one is discarded too");
	}
	{
		unsigned len[3] = { 3, 5, 7 };
		simulate(3, 3, len, replays, kept);
		CHECK_INT(replays[2], 3, "slowest: R replays");
		CHECK(replays[0] >= 7 && replays[1] >= 4,
		      "others replay while it runs");
		CHECK(kept[0] == replays[0] - 1 && kept[1] == replays[1] - 1 &&
		      kept[2] == replays[2] - 1, "exactly one discarded each");
	}
	{
		unsigned len[1] = { 4 };
		simulate(1, 7, len, replays, kept);
		CHECK_INT(replays[0], 7, "a group of one (single) does R");
		CHECK_INT(kept[0], 6, "and keeps R-1");
	}
	repeat_init(&rc, 2, 2);
	CHECK_INT(repeat_completed(&rc, 0), 1, "continue below R");
	CHECK_INT(repeat_completed(&rc, 5), 0, "unknown program stops");
	CHECK(!repeat_all_done(&rc), "not done");
	CHECK_INT(repeat_completed(&rc, 0), 1, "continue while another is below R");
	CHECK_INT(repeat_completed(&rc, 1), 1, "one below R");
	CHECK_INT(repeat_completed(&rc, 1), 0, "last one reaches R: stop");
	CHECK(repeat_all_done(&rc), "all done");
	CHECK_INT(repeat_completed(&rc, 0), 0, "the other stops at its next");
	repeat_release(&rc);
	return test_done();
}
