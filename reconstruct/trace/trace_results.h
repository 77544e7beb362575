/* SPDX-License-Identifier: MIT */
/*
 * The results of a bundle (device-to-host copies, and host reads of
 * mapped or managed memory: hostmem results), in the order of their
 * copies:
 * what a replay verifies, and what `gpumix trace diff` compares between
 * two captures of one program (a program whose results differ between
 * its own runs is nondeterministic by nature).
 */
#ifndef GM_TRACE_RESULTS_H
#define GM_TRACE_RESULTS_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

struct trace_reader;

#define TRACE_RESULT_HOSTMEM (-2)	/* a hostmem result event */

struct trace_result {
	uint64_t event;		/* the copy's entry event */
	int api;		/* the copy's call (enum gm_api_id), or
				   TRACE_RESULT_HOSTMEM */
	uint32_t pid;
	uint64_t bytes;
	struct gm_hash hash;
	int unsynced;		/* hashed at exit, never synchronized */
};

struct trace_results {
	struct trace_result *r;
	size_t nr, alloc;
};

/*
 * Read the rest of @rd: every hashed result (synchronous copies at their
 * exit, asynchronous ones at their d2h_hash event, hostmem results at
 * theirs), sorted by the copy's entry event (a hostmem result's own). Returns 0, or -1 with the reader's cause.
 */
int trace_results_collect(struct trace_reader *rd, struct trace_results *out);

void trace_results_release(struct trace_results *res);

#endif
