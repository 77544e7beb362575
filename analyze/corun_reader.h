/* SPDX-License-Identifier: MIT */
/*
 * A corun directory as doc/gpumix-corun.md ("The corun directory")
 * defines it, what `gpumix corun` writes (corun/corun_dir.c): the
 * manifest and sections.tsv, each program's GPU section per run, alone
 * or together under a mechanism. Reading validates what the format
 * promises and names file:line for the first thing that is wrong.
 */
#ifndef GM_CORUN_READER_H
#define GM_CORUN_READER_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "kvfile.h"

#define GM_CORUN_DIR_FORMAT "gpumix-corun 1"

/* The mode of the alone runs in sections.tsv (the others: mechanisms). */
#define GM_CORUN_ALONE "alone"

struct gm_corun_section {
	char *mode;		/* "alone" or a mechanism (owned) */
	int64_t repeat;
	size_t program;		/* index into programs[] */
	int64_t start, end;	/* ns, CLOCK_MONOTONIC */
	int64_t ops, processes;
	char *first_op, *last_op;	/* owned */
};

struct gm_corun_dir {
	char *path;				/* owned */
	struct kvfile manifest;
	char hash[GM_HASH_HEX_LEN + 1];		/* the manifest's and
						   sections.tsv's bytes */
	/* Borrowed from the manifest; hostname and gpu NULL when absent,
	 * failure NULL unless failed. */
	const char *workload, *mechanisms, *status, *failure, *device_name;
	const char *hostname, *gpu, *gpumix_version, *started_at;
	const char *finished_at;
	char *skipped;		/* "mps: why" per skipped mechanism, joined
				   by "; ", or NULL (owned) */
	int64_t repeats;
	int64_t repetition;	/* run.repetition: of a study's co-run (0
				   when absent) */
	double barrier_timeout_s;
	size_t nr_programs;
	const char **programs;	/* names, borrowed (owned array) */
	const char **bundles;	/* "" for NAME=COMMAND (owned array) */
	size_t nr_sections, alloc_sections;
	struct gm_corun_section *sections;	/* owned */
};

/*
 * 1 when the directory @path holds a corun directory's manifest (its
 * format is GM_CORUN_DIR_FORMAT), 0 otherwise (a run directory, or
 * nothing readable: gm_run_dir_read() says what is wrong with it).
 */
int gm_corun_dir_is(const char *path);

/*
 * Read @path/manifest and @path/sections.tsv into @c. Returns 0 or -1
 * with the file (and line) named; release @c with gm_corun_dir_release()
 * either way.
 */
int gm_corun_dir_read(struct gm_corun_dir *c, const char *path);

void gm_corun_dir_release(struct gm_corun_dir *c);

#endif
