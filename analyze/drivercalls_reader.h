/* SPDX-License-Identifier: MIT */
/*
 * A run directory's drivercalls.tsv (doc/run-directory.md): how long the
 * replay's own driver calls took, per program, phase and call (CALLS
 * lines) and the slowest calls of the timed part (SLOW lines). Reading
 * validates the kinds, field counts and ranges, the programs, the
 * histogram (25 counts adding up to the count) and the END line, naming
 * file:line for the first thing that is wrong. A run without the file
 * (older runs) has none, which is not an error.
 */
#ifndef GM_DRIVERCALLS_READER_H
#define GM_DRIVERCALLS_READER_H

#include <stddef.h>
#include <stdint.h>

#include "run_reader.h"

#define GM_DRIVERCALLS_BUCKETS 25

struct gm_drivercall {
	int slow;		/* a SLOW line (else CALLS) */
	size_t program;		/* index into the run's programs */
	const char *phase;	/* "setup" or "replay" (CALLS) */
	char *call, *kind;	/* into the reader's text */
	int64_t count, total_ns, max_ns;	/* CALLS */
	char *hist;		/* CALLS: the 25 counts, as written */
	int64_t start, end;	/* SLOW */
};

struct gm_drivercalls_data {
	int present;
	struct gm_drivercall *v;
	size_t nr;
	char *text;		/* owned, split in place */
};

/*
 * Read @run's drivercalls.tsv into @d (zeroed first; release it with
 * gm_drivercalls_data_release() in every case). Returns 0 or -1 with a
 * cause naming the file and line.
 */
int gm_drivercalls_read(struct gm_drivercalls_data *d,
			const struct gm_run_dir *run);

void gm_drivercalls_data_release(struct gm_drivercalls_data *d);

#endif
