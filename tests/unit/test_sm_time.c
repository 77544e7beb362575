/* SPDX-License-Identifier: MIT */
/*
 * The SM-time accounting of the block probe (analyze/sm_time.h) against
 * values computed by hand. The example is the one of doc/database.md
 * ("The block probe") and of tests/data/runs/good/probe: a device of 4
 * SMs, a window of 100 us; program p's kernel has 8 blocks, two waves of
 * one block per SM (the last block starting 2 us late), program q's two
 * blocks land on SMs 2 and 3 while p's first wave is there:
 *
 *   SM 0  p [10, 30) [30, 50)
 *   SM 1  p [10, 30) [30, 50)
 *   SM 2  p [10, 30) [30, 50)   q [20, 40)
 *   SM 3  p [10, 30) [32, 50)   q [25, 35)
 *
 * p holds 40 + 40 + 40 + 38 = 158 us of SM-time, q 20 + 10 = 30; shared
 * (both on one SM): SM 2 [20, 40) = 20, SM 3 [25, 30) and [32, 35) = 8,
 * 28 in all; busy: 40 on each SM (SM 3's gap [30, 32) is q's), 160 of
 * 400; p had 4 SMs, q 2.
 */
#include <stdlib.h>

#include "analyze/sm_time.h"
#include "test.h"

#define US 1000

static const struct gm_sm_interval blocks[] = {
	{ 0, 0, 10 * US, 30 * US }, { 1, 0, 10 * US, 30 * US },
	{ 2, 0, 10 * US, 30 * US }, { 3, 0, 10 * US, 30 * US },
	{ 0, 0, 30 * US, 50 * US }, { 1, 0, 30 * US, 50 * US },
	{ 2, 0, 30 * US, 50 * US }, { 3, 0, 32 * US, 50 * US },
	{ 2, 1, 20 * US, 40 * US }, { 3, 1, 25 * US, 35 * US },
};
#define NB (sizeof(blocks) / sizeof(blocks[0]))

static void test_example(void)
{
	struct gm_sm_interval v[NB];
	struct gm_sm_time t;
	struct gm_sm_segments seg = { 0 };

	for (size_t i = 0; i < NB; i++) {
		v[i] = blocks[NB - 1 - i];	/* any order */
	}
	CHECK(gm_sm_time_compute(v, NB, 2, 4, 0, 100 * US, &t, &seg) == 0,
	      "example: computed");
	CHECK_INT(t.capacity_ns, 400 * US, "example: capacity 4 SMs x 100 us");
	CHECK_INT(t.held_ns[0], 158 * US, "example: p held 158 us of SM-time");
	CHECK_INT(t.held_ns[1], 30 * US, "example: q held 30 us");
	CHECK_INT(t.shared_ns, 28 * US, "example: 28 us with both on one SM");
	CHECK_INT(t.with_other_ns[0], 28 * US, "example: p shared 28 us");
	CHECK_INT(t.with_other_ns[1], 28 * US, "example: q shared 28 us");
	CHECK_INT(t.busy_ns, 160 * US, "example: 160 us busy");
	CHECK_INT(t.sms[0], 4, "example: p had 4 SMs");
	CHECK_INT(t.sms[1], 2, "example: q had 2");
	/* p: one segment on SMs 0-2 (back-to-back blocks joined), two on
	 * SM 3; q: one on SMs 2 and 3 */
	CHECK_INT(seg.n, 7, "example: 7 segments");
	int ok = 0;
	for (size_t i = 0; i < seg.n; i++) {
		const struct gm_sm_interval *s = &seg.v[i];
		ok += s->sm == 3 && s->program == 0 &&
		      ((s->start == 10 * US && s->end == 30 * US) ||
		       (s->start == 32 * US && s->end == 50 * US));
		ok += s->sm == 2 && s->program == 0 && s->start == 10 * US &&
		      s->end == 50 * US;
	}
	CHECK_INT(ok, 3, "example: SM 2 joined, SM 3 with its gap");
	gm_sm_time_release(&t);
	free(seg.v);
}

static void test_window(void)
{
	struct gm_sm_interval v[NB];
	struct gm_sm_time t;

	for (size_t i = 0; i < NB; i++) {
		v[i] = blocks[i];
	}
	/* [30, 45): p 15 on SMs 0-2, 13 on SM 3 (from 32); q 10 on SM 2
	 * (to 40), 5 on SM 3 (to 35); shared: 10 + 3 */
	CHECK(gm_sm_time_compute(v, NB, 2, 4, 30 * US, 45 * US, &t, NULL) == 0,
	      "window: computed");
	CHECK_INT(t.held_ns[0], 58 * US, "window: p clipped to 58 us");
	CHECK_INT(t.held_ns[1], 15 * US, "window: q clipped to 15 us");
	CHECK_INT(t.shared_ns, 13 * US, "window: 13 us shared");
	CHECK_INT(t.busy_ns, 60 * US, "window: busy 60 us");
	gm_sm_time_release(&t);
	/* Program 1 left out of one program; SM 3 of a "3-SM device"
	 * still counts (%smid is not contiguous: ids beyond the SM count
	 * are real SMs), only the capacity follows the count. */
	{
		struct gm_sm_time t4;
		for (size_t i = 0; i < NB; i++) {
			v[i] = blocks[i];
		}
		CHECK(gm_sm_time_compute(v, NB, 1, 4, 0, 100 * US, &t4,
					 NULL) == 0, "window: 4 SMs computed");
		for (size_t i = 0; i < NB; i++) {
			v[i] = blocks[i];
		}
		CHECK(gm_sm_time_compute(v, NB, 1, 3, 0, 100 * US, &t, NULL) == 0 &&
		      t.held_ns[0] == t4.held_ns[0] && t.sms[0] == 4 &&
		      t.busy_ns == t4.busy_ns && t.shared_ns == 0 &&
		      t.capacity_ns == 3 * 100 * US,
		      "window: a program outside counts for nothing, an SM id"
		      " beyond the count still counts");
		gm_sm_time_release(&t4);
	}
	gm_sm_time_release(&t);
	CHECK(gm_sm_time_compute(v, NB, 1, 4, 5, 5, &t, NULL) < 0,
	      "window: an empty window is an error");
	gm_sm_time_release(&t);
}

int main(void)
{
	test_example();
	test_window();
	return test_done();
}
