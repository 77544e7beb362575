/* SPDX-License-Identifier: MIT */
/*
 * `gpumix report --compare A.db B.db`: the same workloads and variants of
 * two studies (before and after a change, two machines, 1 and N GPUs)
 * side by side, each number with its interval, and whether B differs
 * from A: "compare-summary" (per workload size and variant label, the
 * STP and ANTT geomeans) and "compare-workloads" (per workload).
 * doc/gpumix-report.md, "Comparing two studies".
 */
#ifndef GM_REPORT_COMPARE_H
#define GM_REPORT_COMPARE_H

#include "analysis.h"
#include "strbuf.h"
#include "table.h"

#define GM_COMPARE_TABLES 2

/*
 * Fill @t[0] ("compare-summary") and @t[1] ("compare-workloads") from
 * the analyses @a and @b (of the databases called @name_a and @name_b),
 * with intervals by @ci; append a line to @notes for the pairs only one
 * of them has. Release the tables with gm_table_release().
 */
void gm_report_compare(const struct gm_analysis *a, const struct gm_analysis *b,
		       const char *name_a, const char *name_b,
		       const struct gm_ci_opts *ci, struct gm_table *t,
		       struct strbuf *notes);

/*
 * What the interval of a ratio B/A says: "B higher", "B lower", "no
 * difference" (it contains 1), "n/a" (no interval).
 */
const char *gm_report_differs(const struct gm_ci *ratio);

#endif
