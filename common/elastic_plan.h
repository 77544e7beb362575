/* SPDX-License-Identifier: MIT */
/*
 * How the replay launches elastic kernels (`--elastic MODE`,
 * `--elastic-slice BLOCKS`): the setting, and for one captured launch the
 * physical launches that replace it. Pure functions, no CUDA.
 *
 * Modes: off (the original modules), identity (the elastic modules with
 * elasticity off: the captured grid, offset 0, every block), and the
 * physical grid sizes grid=N (or just N), sm (one block per SM), sm=K
 * (K blocks per SM, at most the resident maximum per SM when it is
 * known: the SM-stretch microbenchmark of doc/spmd-model.md), resident (the most blocks that can be resident at once: the
 * occupancy of the transformed kernel x SMs) and orig (as many blocks as
 * the logical grid has). A physical grid is 1-D, never larger than the
 * blocks it has to run, never below 1; the block size is the captured
 * one. A slice of S blocks turns a launch into ceil(blocks / S) launches
 * of consecutive offset/limit ranges on the same stream; a slice of "/N"
 * cuts each grid into N such ranges of ceil(blocks / N) blocks (fewer
 * when the grid has fewer blocks).
 *
 * A physical grid equal to the logical grid, running every block, would
 * take the kernel's identity path (the original body). So that such a
 * launch exercises the elastic path, as asked, it gets another shape of
 * the same size: (1, n, 1) for n <= 65535, (n/2, 2, 1) for an even n;
 * only a grid of one block and an odd 1-D grid above 65535 blocks stay
 * on the identity path
 * (gm_elastic_shape() says so).
 */
#ifndef GM_ELASTIC_PLAN_H
#define GM_ELASTIC_PLAN_H

#include <stddef.h>
#include <stdint.h>

enum gm_elastic_mode {
	GM_ELASTIC_OFF,
	GM_ELASTIC_IDENTITY,
	GM_ELASTIC_GRID,	/* a fixed number of blocks */
	GM_ELASTIC_SM,
	GM_ELASTIC_RESIDENT,
	GM_ELASTIC_ORIG,
};

struct gm_elastic_setting {
	enum gm_elastic_mode mode;
	uint32_t blocks;	/* GM_ELASTIC_GRID: physical blocks;
				   GM_ELASTIC_SM: blocks per SM (1 for sm) */
	uint32_t slice;		/* logical blocks per launch, 0: no slicing */
	uint32_t parts;		/* or ("/N") launches per grid, 0: none */
};

/* The most blocks per SM sm=K takes (sm_90's cap is 32). */
#define GM_ELASTIC_MAX_PER_SM 1024u

/* The largest x dimension of a grid (CUDA's limit). */
#define GM_ELASTIC_MAX_GRID_X 2147483647u

/*
 * Parse @mode (NULL: off) and @slice (NULL: none) into @out. Returns 0,
 * or -1 with a recorded cause for an unknown mode, a block count or
 * slice that is not an integer from 1 to 2^31-1, or a slice with a mode
 * that does not run the elastic path (off, identity).
 */
int gm_elastic_setting_parse(const char *mode, const char *slice,
			     struct gm_elastic_setting *out);

/* The mode as the option spells it: "off", "identity", "grid=N", "sm",
 * "sm=K" (K > 1), "resident", "orig". */
void gm_elastic_setting_name(const struct gm_elastic_setting *s, char *buf,
			     size_t len);

/*
 * Physical blocks for a range of @limit logical blocks (1 <= limit <
 * 2^32) of a grid of @total blocks, on @sms SMs where
 * @resident_per_sm blocks of the kernel fit per SM (0: unknown, taken as
 * 1). Mode off and identity give @limit.
 */
uint32_t gm_elastic_phys_blocks(const struct gm_elastic_setting *s,
				uint64_t total, uint32_t limit, uint32_t sms,
				uint32_t resident_per_sm);

/*
 * The grid dimensions of a physical grid of @n blocks for the range
 * (@offset, @limit) of logical grid @logical (see above) into @out.
 * Returns 1 when the launch will take the identity path anyway, else 0.
 */
int gm_elastic_shape(uint32_t n, const uint32_t logical[3], uint32_t offset,
		     uint32_t limit, uint32_t out[3]);

/* The slice as the option spells it: "0" (none), "S" or "/N". */
void gm_elastic_slice_name(const struct gm_elastic_setting *s, char *buf,
			   size_t len);

/* Logical blocks per launch for a grid of @total blocks (@total: none). */
uint64_t gm_elastic_slice_blocks(const struct gm_elastic_setting *s,
				 uint64_t total);

/* Number of launches a grid of @total blocks takes with @s. */
uint64_t gm_elastic_nr_slices(const struct gm_elastic_setting *s,
			      uint64_t total);

#endif
