/* SPDX-License-Identifier: MIT */
/*
 * Internal to the report's tables: what an improvement ratio's interval
 * says, in the word the tables show (report_verdict.c). Not an API.
 */
#ifndef GM_REPORT_VERDICT_H
#define GM_REPORT_VERDICT_H

#include "interval.h"

/*
 * What an improvement ratio's interval says: "better" or "worse" when it
 * lies above or below 1 (better is above when @higher_better), "no
 * difference" when it contains 1, "n/a" without an interval.
 */
const char *gm_report_verdict(const struct gm_ci *ci, int higher_better);

#endif
