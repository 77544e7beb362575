/* SPDX-License-Identifier: MIT */
/*
 * A program's captured host time in the replay: when each operation may
 * be issued, and how close to that the replay issued it. The program's
 * tables (gm_program_desc.host_gap, host_thread) give per operation the
 * time its captured thread spent on the host since that thread's
 * previous operation returned; operation i is due at the return of its
 * thread's previous operation in this replay plus its gap (capped by
 * --max-host-gap). A thread's first operation of a replay, and so each
 * replay's first operation, is due at once. The operations are still
 * issued in their captured order by one replay thread, so an operation
 * of one captured thread also waits for what the replay thread did
 * before it for another (doc/gpumix-replay.md, "Host time").
 *
 * The error of an issue is its time less the time it could be issued
 * at: when it was due, or when the replay thread's previous operation
 * returned if that was later, for the operations that had a gap to
 * spend. A log-linear histogram (about 6% resolution) gives its median
 * and 99th percentile, and its maximum is kept exactly. An operation
 * due before the previous operation (of another captured thread)
 * returned is late by the captured order, not by the replay's timing:
 * those are counted apart, with their lateness. No CUDA and no clock here: the caller passes the times
 * (ns, one monotonic clock), which keeps this testable on its own
 * (tests/unit/test_host_gap.c). Waiting is the replay loop's (ops.c).
 */
#ifndef GM_HOST_GAP_H
#define GM_HOST_GAP_H

#include <stdint.h>

#include "replay_opts.h"

struct gm_program_desc;
struct kvfile;

#define GM_HOST_GAP_BUCKETS 896

struct gm_host_gaps {
	const uint32_t *gap;		/* NULL: no host time (none, or the
					   program has no tables) */
	const uint16_t *thread;		/* NULL: one captured thread */
	uint32_t nr_threads;
	uint64_t nr_ops;
	uint64_t cap_ns;		/* UINT64_MAX: no limit */
	int have_tables;		/* the program has host times */
	uint64_t *ret_ns;		/* per thread: its last return in this
					   replay, 0: none yet */
	uint64_t last_ret_ns;		/* the last return of any thread */
	/* what was spent, over every replay */
	uint64_t waits;			/* operations that had a gap */
	uint64_t capped;		/* of them, gaps cut to cap_ns */
	uint64_t gap_ns;		/* the gaps, as spent (capped) */
	uint64_t order_late;		/* operations due before the previous
					   one returned */
	uint64_t order_late_ns;		/* by how much, in all */
	uint64_t err_max_ns;
	uint64_t hist[GM_HOST_GAP_BUCKETS];
};

/*
 * Set up @h for program @d under @o (--host-time, --max-host-gap): off
 * when host time is none or @d has no host gap table. Never fails
 * (aborts on OOM). gm_host_gaps_release() frees what replays need; what
 * was spent stays readable (gm_host_gaps_manifest()), and no operation
 * is due any more.
 */
void gm_host_gaps_init(struct gm_host_gaps *h, const struct gm_program_desc *d,
		       const struct gm_replay_opts *o);
void gm_host_gaps_release(struct gm_host_gaps *h);

/* 1 when @h spends host time. */
static inline int gm_host_gaps_on(const struct gm_host_gaps *h)
{
	return h->gap != NULL;
}

/* A new replay: no operation returned yet. */
void gm_host_gaps_begin(struct gm_host_gaps *h);

/*
 * When operation @i is due: 0 when at once (no gap, or its thread's
 * first of the replay), else the time (ns). Counts the gap (and its cap).
 */
uint64_t gm_host_gaps_due(struct gm_host_gaps *h, uint64_t i);

/* Operation @i, due at @due_ns (non-zero), was issued at @now_ns. */
void gm_host_gaps_issued(struct gm_host_gaps *h, uint64_t due_ns,
			 uint64_t now_ns);

/* Operation @i returned at @now_ns. */
void gm_host_gaps_returned(struct gm_host_gaps *h, uint64_t i,
			   uint64_t now_ns);

/* The @q-quantile (0..1) of the issue errors (ns; 0 when none). */
uint64_t gm_host_gaps_error_quantile(const struct gm_host_gaps *h, double q);

/*
 * The run manifest's keys of program @index (doc/run-directory.md):
 * program.I.host_time (captured or none) and, when captured,
 * host_gaps, host_gaps_capped, host_gap_s, host_error_us_median,
 * host_error_us_p99, host_error_us_max, host_order_late,
 * host_order_late_s.
 */
void gm_host_gaps_manifest(const struct gm_host_gaps *h, struct kvfile *kv,
			   unsigned index);

#endif
