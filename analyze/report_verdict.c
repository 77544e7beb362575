/* SPDX-License-Identifier: MIT */
/*
 * The word a report table gives an improvement ratio's interval (see
 * report_verdict.h). Apart from the tables that use it (report_tables.c,
 * report_ranking.c) so that the registry of tables calls the ranking's
 * builder and the builder calls nothing back in the registry's file.
 */
#include "report_verdict.h"

#include <math.h>

const char *gm_report_verdict(const struct gm_ci *ci, int higher_better)
{
	int side = gm_ci_side(ci, 1);

	if (isnan(ci->lo) || isnan(ci->hi)) {
		return "n/a";
	}
	if (!side) {
		return "no difference";
	}
	return (side > 0) == !!higher_better ? "better" : "worse";
}
