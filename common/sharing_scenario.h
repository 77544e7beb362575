/* SPDX-License-Identifier: MIT */
/*
 * The sharing scenario of N identical kernels on one GPU (Li, Narayana,
 * El-Ghazawi, section 4.2; PAPER-NOTES 2.3, conditions (1)-(8)): how the
 * blocks of N copies of a kernel of Nblks blocks fit on a device of N_SM
 * SMs that holds at most Nmax of its blocks per SM (the occupancy
 * calculator's blocks_per_sm, common/occupancy.h, the 32-blocks-per-SM
 * cap of the H100 included: the fourth term the paper's eq. (2) lacks):
 *
 *   Exclusive space      Nblks*N <= N_SM: every block an SM of its own
 *   Non-exclusive space  N_SM < Nblks*N <= Nmax*N_SM: all blocks at
 *                        once, some sharing an SM (needs Nmax > 1)
 *   Space-time           Nblks*N > Nmax*N_SM and Nblks < Nmax*N_SM: one
 *                        copy fits at once, N of them do not
 *   Time                 Nblks*N > Nmax*N_SM and Nblks >= Nmax*N_SM: one
 *                        copy alone fills the GPU, the copies take turns
 *
 * The four cover every case: a kernel is in exactly one. Pure arithmetic
 * on 64-bit counts, for the analyzer and its tests.
 */
#ifndef GM_SHARING_SCENARIO_H
#define GM_SHARING_SCENARIO_H

#include <stdint.h>

enum gm_scenario {
	GM_SCENARIO_EXCLUSIVE,		/* exclusive space */
	GM_SCENARIO_NON_EXCLUSIVE,	/* non-exclusive space */
	GM_SCENARIO_SPACE_TIME,		/* space/time */
	GM_SCENARIO_TIME,		/* time */
	GM_SCENARIO_NONE,		/* not classified: no block fits */
	GM_NR_SCENARIOS
};

/*
 * The scenario of @copies copies of a kernel of @grid_blocks blocks on a
 * device of @sm_count SMs holding at most @blocks_per_sm of its blocks
 * per SM. GM_SCENARIO_NONE when an argument is 0 (a block that does not
 * fit, an empty grid, no copy, no SM).
 */
enum gm_scenario gm_scenario_classify(uint64_t grid_blocks, unsigned copies,
				      unsigned blocks_per_sm,
				      unsigned sm_count);

/* "exclusive-space", "non-exclusive-space", "space-time", "time", or
 * "none"; "?" for a value out of range. */
const char *gm_scenario_name(enum gm_scenario s);

#endif
