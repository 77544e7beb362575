/* SPDX-License-Identifier: MIT */
/*
 * The sharing scenario of N identical kernels (see sharing_scenario.h).
 */
#include "sharing_scenario.h"

static const char *const scenario_names[GM_NR_SCENARIOS] = {
	[GM_SCENARIO_EXCLUSIVE] = "exclusive-space",
	[GM_SCENARIO_NON_EXCLUSIVE] = "non-exclusive-space",
	[GM_SCENARIO_SPACE_TIME] = "space-time",
	[GM_SCENARIO_TIME] = "time",
	[GM_SCENARIO_NONE] = "none",
};

const char *gm_scenario_name(enum gm_scenario s)
{
	return (unsigned)s < GM_NR_SCENARIOS ? scenario_names[s] : "?";
}

enum gm_scenario gm_scenario_classify(uint64_t grid_blocks, unsigned copies,
				      unsigned blocks_per_sm,
				      unsigned sm_count)
{
	/* (a grid of 2^64 - 1 blocks times 2^32 copies overflows 64 bits:
	 * the product is compared as a quotient instead) */
	uint64_t room = (uint64_t)blocks_per_sm * sm_count;

	if (!grid_blocks || !copies || !blocks_per_sm || !sm_count) {
		return GM_SCENARIO_NONE;
	}
	if (grid_blocks <= sm_count / copies) {
		return GM_SCENARIO_EXCLUSIVE;		/* (1) */
	}
	if (grid_blocks <= room / copies) {
		return GM_SCENARIO_NON_EXCLUSIVE;	/* (3)-(4) */
	}
	return grid_blocks < room ? GM_SCENARIO_SPACE_TIME	/* (5)-(6) */
				  : GM_SCENARIO_TIME;		/* (7)-(8) */
}
