/* SPDX-License-Identifier: MIT */
/*
 * The tables of a sweep's measured points (`gpumix sweep --cliffs` and
 * `--run`, doc/gpumix-sweep.md): per program, kernel and axis the
 * performance range, and the cliffs the detector of sweep.h finds, as
 * Markdown and as CSV (cliffs.csv, which `gpumix analyze` loads).
 */
#ifndef GM_SWEEP_REPORT_H
#define GM_SWEEP_REPORT_H

#include <stdio.h>

#include "sweep_points.h"

#define GM_SWEEP_CLIFFS_HEADER \
	"program,kernel,axis,from,to,from_ms,to_ms,jump_pct," \
	"from_blocks_per_sm,to_blocks_per_sm,binding"

/*
 * Write the ranges and cliffs of @p (a cliff: adjacent values of one
 * curve whose times differ by more than @threshold, a fraction, and
 * whose blocks per SM differ) to @md (Markdown) and @csv (the header
 * above, a line per cliff); either may be NULL. Returns the number of
 * cliffs.
 */
size_t gm_sweep_report(const struct gm_sweep_points *p, double threshold,
		       FILE *md, FILE *csv);

#endif
