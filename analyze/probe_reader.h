/* SPDX-License-Identifier: MIT */
/*
 * The block probe's files of a run directory (doc/run-directory.md,
 * probe.tsv and probe.bin, written by `gpumix replay --probe blocks`):
 * the launches, probed or not, and each probed launch's records, one per
 * logical block. Reading validates what the format promises (the header,
 * the END line's counts, fields and their ranges, a program of the
 * manifest, a record per block of each probed launch, the file size) and
 * names file:line (or the record) for the first thing that is wrong. A
 * run without probe.tsv has no probe; probe.tsv without probe.bin, or the
 * other way round, is an error.
 */
#ifndef GM_PROBE_READER_H
#define GM_PROBE_READER_H

#include <stddef.h>
#include <stdint.h>

#include "run_reader.h"

struct gm_probe_launch {
	size_t program;		/* index into the run's programs */
	int64_t replay;
	int64_t correlation_id;	/* 0: unknown */
	int64_t host_ns;
	char *kernel;		/* mangled (points into the reader's text) */
	int64_t grid[3], block[3], phys[3];
	int64_t offset, blocks, records;
	char *not_probed;	/* NULL when probed (into the text) */
	uint64_t first;		/* its first record in the file */
};

/* One record as read: the block is offset + its index in its launch. */
struct gm_probe_block {
	uint64_t start;		/* %globaltimer, ns */
	uint32_t dur;		/* ns; UINT32_MAX: that or more */
	uint32_t sm;
};

struct gm_probe_data {
	int present;		/* the run has probe.tsv */
	struct gm_probe_launch *launches;
	size_t nr_launches;
	struct gm_probe_block *blocks;	/* every record, in file order */
	uint64_t nr_blocks;
	char *text;		/* probe.tsv, split in place (owned) */
};

/*
 * Read @run's probe files into @pd (zeroed first; release with
 * gm_probe_data_release() in every case). No probe.tsv: @pd->present is
 * 0 and that is not an error. Returns 0 or -1 with a cause naming the
 * file and line or record.
 */
int gm_probe_data_read(struct gm_probe_data *pd, const struct gm_run_dir *run);

void gm_probe_data_release(struct gm_probe_data *pd);

#endif
