/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for common/sharing_scenario.c: the four scenarios of N
 * identical kernels (PAPER-NOTES 2.3, conditions (1)-(8)) at each
 * boundary on the H100 (132 SMs), with one block per SM, the 32-block
 * cap, and the paper's own kernels of Table 4 on its C2070 (14 SMs).
 */
#include "sharing_scenario.h"
#include "test.h"

#define X GM_SCENARIO_EXCLUSIVE
#define NX GM_SCENARIO_NON_EXCLUSIVE
#define ST GM_SCENARIO_SPACE_TIME
#define T GM_SCENARIO_TIME

static void check(uint64_t blocks, unsigned n, unsigned nmax, unsigned sms,
		  enum gm_scenario want, const char *what)
{
	enum gm_scenario got = gm_scenario_classify(blocks, n, nmax, sms);
	if (!test_result_(got == want, what, __FILE__, __LINE__)) {
		printf("#   expected %s, got %s\n", gm_scenario_name(want),
		       gm_scenario_name(got));
	}
}

int main(void)
{
	/* H100, 8 blocks per SM: room for 1056 blocks at once. */
	check(132, 1, 8, 132, X, "one copy of 132 blocks: an SM each");
	check(133, 1, 8, 132, NX, "133 blocks: two share an SM");
	check(33, 4, 8, 132, X, "4 copies of 33 = 132: exclusive (1)");
	check(34, 4, 8, 132, NX, "4 copies of 34 = 136: non-exclusive (3)");
	check(264, 4, 8, 132, NX, "4 x 264 = 1056 = Nmax*N_SM: still (4)");
	check(265, 4, 8, 132, ST, "4 x 265 > 1056, 265 < 1056: space-time (5)");
	check(1055, 4, 8, 132, ST, "1055 < 1056: space-time (6)");
	check(1056, 4, 8, 132, T, "1056 >= 1056: time (8)");
	check(1056, 1, 8, 132, NX, "one copy of 1056: all resident");
	check(1057, 1, 8, 132, T, "one copy of 1057: time");
	/* One block per SM: no non-exclusive space (it needs Nmax > 1). */
	check(66, 2, 1, 132, X, "Nmax 1: 2 x 66 = 132 exclusive");
	check(67, 2, 1, 132, ST, "Nmax 1: 2 x 67 > 132 is space-time at once");
	check(132, 2, 1, 132, T, "Nmax 1: 132 blocks fill the GPU: time");
	/* The H100's cap of 32 resident blocks per SM. */
	check(4224, 1, 32, 132, NX, "32 x 132 = 4224 blocks at once");
	check(4225, 1, 32, 132, T, "one more: time");
	check(528, 8, 32, 132, NX, "8 copies of 528 = 4224: non-exclusive");
	check(529, 8, 32, 132, ST, "8 copies of 529: space-time");
	/* The paper's Table 4 on the C2070 (14 SMs), 8 processes (EP 6). */
	check(1, 6, 7, 14, X, "EP (1 block, Nmax 7): exclusive");
	check(14, 8, 8, 14, NX, "BS (14 blocks, Nmax 8): non-exclusive");
	check(4096, 8, 8, 14, T, "MG (4096 blocks, Nmax 8): time");
	check(16000, 8, 1, 14, T, "VecM (16000 blocks, Nmax 1): time");
	/* (ES, 484 blocks with Nmax 5, is 'Space/Time' in the table as
	 * extracted, but 484 >= 5 x 14 makes it Time under conditions
	 * (7)-(8): the extraction or the table is off, not the rule.) */
	check(484, 8, 5, 14, T, "ES by the conditions: time");
	/* Degenerate input. */
	CHECK(gm_scenario_classify(0, 4, 8, 132) == GM_SCENARIO_NONE,
	      "an empty grid is not classified");
	CHECK(gm_scenario_classify(10, 4, 0, 132) == GM_SCENARIO_NONE,
	      "a block that does not fit is not classified");
	CHECK(gm_scenario_classify(UINT64_MAX, 4000000000u, 32, 132) == T,
	      "a huge grid of many copies does not overflow");
	CHECK_STR(gm_scenario_name(GM_SCENARIO_SPACE_TIME), "space-time",
		  "names");
	CHECK_STR(gm_scenario_name(GM_NR_SCENARIOS), "?", "out of range");
	return test_done();
}
