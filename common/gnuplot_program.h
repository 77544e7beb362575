/* SPDX-License-Identifier: MIT */
/*
 * Which gnuplot the report runs: $GPUMIX_GNUPLOT, else `gnuplot` from
 * PATH. Shared by `gpumix report` and the study executor, which must know
 * before a study starts whether its report will have figures.
 */
#ifndef GM_GNUPLOT_PROGRAM_H
#define GM_GNUPLOT_PROGRAM_H

#include <stdlib.h>

static inline const char *gm_gnuplot_program(void)
{
	const char *g = getenv("GPUMIX_GNUPLOT");

	return g && *g ? g : "gnuplot";
}

#endif
