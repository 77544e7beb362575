/* SPDX-License-Identifier: MIT */
/*
 * The order of a study's runs within a repetition (plan.h): each block
 * of runs (the alone runs listed first, then each workload's runs) is
 * shuffled with a generator seeded from the study's seed, the
 * repetition and the block's name only, so the order of one block in
 * one repetition does not change when workloads, variants or
 * repetitions are added around it, and the same seed gives the same
 * order on every machine (doc/study-yaml.md, "repeats").
 */
#ifndef GM_STUDY_PLAN_ORDER_H
#define GM_STUDY_PLAN_ORDER_H

#include <stddef.h>
#include <stdint.h>

/*
 * Shuffle the @n entries of @v in place for repetition @rep of block
 * @block (a workload's name, or PLAN_ORDER_ALONE_BLOCK): a Fisher-Yates
 * shuffle (from the last entry down, entry i swapped with entry
 * next() mod (i + 1)) driven by splitmix64 whose state starts at the low
 * 64 bits of the XXH3-128 hash of the text "SEED/REP/BLOCK" (decimal
 * numbers). Never fails.
 */
void plan_order_shuffle(size_t *v, size_t n, uint64_t seed, unsigned rep,
			const char *block);

/* The name of the block of alone runs in the shuffle's seed text. */
#define PLAN_ORDER_ALONE_BLOCK "alone"

#endif
