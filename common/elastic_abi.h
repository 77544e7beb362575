/* SPDX-License-Identifier: MIT */
/*
 * The launch interface of an elastic kernel, shared by the PTX transformer
 * (reconstruct/) and the replay runtime (replay/). The transformer appends
 * one parameter, ".param .align 8 .b8 gm_el_args[64]", after a kernel's
 * own parameters; the runtime passes a struct gm_elastic_args in it (one
 * more kernelParams entry). Logical blocks are numbered linearly, x
 * fastest: id = x + gridX * (y + gridY * z).
 *
 * With elasticity off -- physical grid and block equal to the logical
 * ones, offset 0, limit covering every block, done_flag 0 -- the kernel
 * does exactly what the original does (gm_elastic_args_identity()). With
 * probe set, each logical block also leaves a struct gm_probe_rec (its
 * SM, start and duration) in slot (block - offset) of the probe buffer
 * (doc/elastic.md, "The block probe").
 */
#ifndef GM_ELASTIC_ABI_H
#define GM_ELASTIC_ABI_H

#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define GM_ELASTIC_PARAM_SIZE 64
#define GM_ELASTIC_PARAM_ALIGN 8

struct gm_elastic_args {
	uint32_t grid[3];	/* logical grid, blocks (x, y, z) */
	uint32_t block[3];	/* logical block, threads (x, y, z) */
	uint32_t offset;	/* first logical block to run */
	uint32_t limit;		/* how many, clamped to the grid's end */
	uint64_t done_flag;	/* device address of a host-mapped uint32_t
				 * set to 1 when the launch completes; 0: off */
	uint64_t done_count;	/* device address of a uint32_t, 0 before
				 * the launch and reset to 0 by it */
	uint64_t probe;		/* device address of probe_cap records
				 * (struct gm_probe_rec), 0: no probe */
	uint32_t probe_cap;	/* records there: slots 0..probe_cap-1 */
	uint32_t reserved;	/* 0 */
};

/*
 * One logical block as the probe saw it, written by the block's thread 0
 * (the thread running its first logical thread in a resized
 * thread-elastic launch): at its start the start time and the SM, after
 * a barrier at its end the duration. A slot whose start is 0 was not
 * written. 16 bytes, little-endian as the device writes it.
 */
struct gm_probe_rec {
	uint64_t start;		/* %globaltimer at the block's start, ns */
	uint32_t dur;		/* end - start, ns; UINT32_MAX: that or more */
	uint32_t sm;		/* %smid */
};

#define GM_PROBE_REC_SIZE 16

/* Byte offsets of the fields inside the parameter. */
enum {
	GM_ELASTIC_OFF_GRID = 0,
	GM_ELASTIC_OFF_BLOCK = 12,
	GM_ELASTIC_OFF_OFFSET = 24,
	GM_ELASTIC_OFF_LIMIT = 28,
	GM_ELASTIC_OFF_DONE_FLAG = 32,
	GM_ELASTIC_OFF_DONE_COUNT = 40,
	GM_ELASTIC_OFF_PROBE = 48,
	GM_ELASTIC_OFF_PROBE_CAP = 56,
};

_Static_assert(sizeof(struct gm_elastic_args) == GM_ELASTIC_PARAM_SIZE,
	       "gm_el_args is one struct gm_elastic_args");
_Static_assert(offsetof(struct gm_elastic_args, probe) == GM_ELASTIC_OFF_PROBE &&
	       offsetof(struct gm_elastic_args, probe_cap) ==
		       GM_ELASTIC_OFF_PROBE_CAP,
	       "the transformer's offsets");
_Static_assert(sizeof(struct gm_probe_rec) == GM_PROBE_REC_SIZE,
	       "a probe record is 16 bytes");

/*
 * The elastic/ directory of a reconstruct output: `gpumix reconstruct
 * --elastic` writes its index, the replay reads it (doc/elastic.md).
 * Format 2 has the 64-byte gm_el_args (the block probe).
 */
#define GM_ELASTIC_INDEX_FORMAT "gpumix-elastic 2"

/* What a kernel's transformation allows. */
enum gm_elastic_class {
	GM_ELASTIC_NONE,	/* not elastic: runs unmodified */
	GM_ELASTIC_BLOCK,	/* physical grid may change, block may not */
	GM_ELASTIC_THREAD,	/* physical grid and block may change */
};

/* "thread-elastic", "block-elastic" or "not-elastic". */
static inline const char *gm_elastic_class_name(enum gm_elastic_class c)
{
	switch (c) {
	case GM_ELASTIC_THREAD:
		return "thread-elastic";
	case GM_ELASTIC_BLOCK:
		return "block-elastic";
	case GM_ELASTIC_NONE:
		break;
	}
	return "not-elastic";
}

/* The class that gm_elastic_class_name() spells @s; -1 for no class. */
static inline int gm_elastic_class_parse(const char *s,
					 enum gm_elastic_class *out)
{
	for (int c = GM_ELASTIC_NONE; c <= GM_ELASTIC_THREAD; c++) {
		if (!strcmp(s, gm_elastic_class_name((enum gm_elastic_class)c))) {
			*out = (enum gm_elastic_class)c;
			return 0;
		}
	}
	return -1;
}

/* Fill @a for a launch with elasticity off (the original behaviour). */
static inline void gm_elastic_args_identity(struct gm_elastic_args *a,
					    const uint32_t grid[3],
					    const uint32_t block[3])
{
	for (int i = 0; i < 3; i++) {
		a->grid[i] = grid[i];
		a->block[i] = block[i];
	}
	a->offset = 0;
	a->limit = UINT32_MAX;
	a->done_flag = 0;
	a->done_count = 0;
	a->probe = 0;
	a->probe_cap = 0;
	a->reserved = 0;
}

#endif
