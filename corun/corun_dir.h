/* SPDX-License-Identifier: MIT */
/*
 * Writing a corun directory, what `gpumix corun` leaves and `gpumix
 * analyze` loads (analyze/corun_reader.c reads it): its manifest and
 * sections.tsv, exactly as doc/gpumix-corun.md ("The corun directory")
 * defines them. Both go through temporary names, the manifest last, into
 * the directory being built; the command then puts the whole directory
 * in place at once (gm_dir_install).
 */
#ifndef GM_CORUN_DIR_H
#define GM_CORUN_DIR_H

#include <stddef.h>

#include "corun_run.h"
#include "plan.h"
#include "program.h"

#define CORUN_FORMAT "gpumix-corun 1"

/* The header line of sections.tsv. */
#define CORUN_SECTIONS_HEADER                                                  \
	"mode\trepeat\tprogram\tstart_ns\tend_ns\tops\tprocesses\tfirst_op"    \
	"\tlast_op"

struct corun_dir_info {
	const char *workload;
	const struct corun_program *progs;
	const struct corun_plan *plan;	/* what ran (mechanisms left out
					   are in @skipped) */
	const struct corun_results *r;
	const char *const *skipped;	/* "mps: why", NULL-terminated, or
					   NULL */
	double barrier_timeout_s;
	const char *started_at, *finished_at;	/* UTC ISO 8601 */
	const char *version;		/* gpumix's */
	unsigned repetition;		/* of a study's co-run (0-based) */
};

/*
 * Write sections.tsv and the manifest of @info into the directory @dir.
 * The status is `ok` when the whole plan ran, `failed` (with the
 * failure) when it stopped at a program's failure. Returns 0 or -1 with
 * the cause recorded.
 */
int corun_dir_write(const char *dir, const struct corun_dir_info *info);

#endif
