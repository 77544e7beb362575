/* SPDX-License-Identifier: MIT */
/*
 * The paper's overlap categories (Pai et al. section 6.3, Fig. 6) for
 * every kernel instance of a run. Kernel instances are half-open
 * intervals [start, end): one that ends exactly when another starts does
 * not overlap it. The co-runners of K are the other instances that
 * overlap K. Then, with "earlier" meaning start <= K.start (a co-runner
 * with the same start counts as earlier, so neither of two kernels that
 * start together had the GPU first):
 *   EXCLUSIVE          no co-runners;
 *   SHARED/FULL        co-runners, and every one starts after K;
 *   SHARED/PARTIAL     an earlier co-runner ends strictly before K ends
 *                      (it frees resources while K runs);
 *   SHARED/RESTRICTED  earlier co-runners, none ending before K (an
 *                      equal end is not before).
 * An instance with end == start (zero length) overlaps nothing and is
 * EXCLUSIVE with no time. doc/database.md lists these rules.
 */
#ifndef GM_METRICS_OVERLAP_H
#define GM_METRICS_OVERLAP_H

#include <stddef.h>
#include <stdint.h>

enum gm_overlap {
	GM_OVERLAP_EXCLUSIVE,
	GM_OVERLAP_FULL,
	GM_OVERLAP_RESTRICTED,
	GM_OVERLAP_PARTIAL,
	GM_OVERLAP_COUNT
};

struct gm_interval {
	int64_t start, end;	/* [start, end), ns */
};

/* "EXCLUSIVE", "SHARED/FULL", "SHARED/RESTRICTED", "SHARED/PARTIAL". */
const char *gm_overlap_name(enum gm_overlap c);

/*
 * Classify the @n intervals @iv (any order, end >= start) into @out[i]
 * (an enum gm_overlap per interval). O(n log n): one sweep in start
 * order with a min-heap of the ends of the intervals still running.
 */
void gm_overlap_classify(const struct gm_interval *iv, size_t n,
			 unsigned char *out);

#endif
