/* SPDX-License-Identifier: MIT */
/*
 * How long the replay's own CUDA driver calls take, per program thread
 * (doc/run-directory.md, drivercalls.tsv): every call made through
 * CU_CHECK (cu_check.h) or CU_TIMED is timed on the monotonic clock and
 * counted, per call site, in the calling thread's table: calls, total,
 * maximum and a histogram of powers of two of microseconds, separately
 * for the timed part of the replays ("replay": from a replay's start to
 * the end of its drain) and the rest ("setup": init, clearing between
 * replays, cleanup); the slowest calls of the timed part are kept with
 * their start and end on the run's clock. So a thread blocked inside the
 * driver shows as such (a cuTexObjectCreate that waited 200 ms for
 * another thread's pageable copy, doc/results/cuda-starvation.md).
 * Always on: two clock reads and a table update per call
 * (bench/drivercalls_cost measures it). Threads without a table (the
 * main thread, CUDA's own) are not timed.
 */
#ifndef GM_DRVCALLS_H
#define GM_DRVCALLS_H

#include <stdint.h>
#include <stdio.h>

struct strbuf;

/* Histogram buckets: 0: < 1 us; i: [2^(i-1), 2^i) us; the last: more. */
#define GM_DRV_BUCKETS 25
/* Call sites per table (the runtime has about a hundred). */
#define GM_DRV_SITES 256
/* The slowest calls kept per thread, and the least that counts. */
#define GM_DRV_SLOW 64
#define GM_DRV_SLOW_MIN_NS 100000

enum gm_drv_phase {
	GM_DRV_SETUP,		/* init, between replays, cleanup */
	GM_DRV_REPLAY,		/* the timed part of a replay */
	GM_DRV_PHASES
};

struct gm_drv_site {
	const char *call;	/* CU_CHECK's text (a string literal) */
	uint64_t count[GM_DRV_PHASES], total_ns[GM_DRV_PHASES],
		 max_ns[GM_DRV_PHASES];
	uint64_t hist[GM_DRV_PHASES][GM_DRV_BUCKETS];
};

struct gm_drv_slow {
	const char *call;
	uint64_t start, end;	/* the run's clock (CUPTI's) */
};

/* One thread's table. */
struct gm_drvcalls {
	struct gm_drv_site site[GM_DRV_SITES];
	unsigned nr_sites;
	uint64_t lost;		/* calls of sites past GM_DRV_SITES */
	enum gm_drv_phase phase;
	struct gm_drv_slow slow[GM_DRV_SLOW];
	unsigned nr_slow;
	int64_t clock_offset;	/* run clock - monotonic clock */
};

/*
 * Make @t (zeroed by the caller) the calling thread's table, or detach
 * the thread's (NULL). @clock_offset turns the monotonic clock into the
 * run's (gm_now() - gm_now_ns()).
 */
void gm_drv_attach(struct gm_drvcalls *t, int64_t clock_offset);

/* The phase the calling thread's calls count in (nothing without a
 * table). */
void gm_drv_phase(enum gm_drv_phase phase);

/* Around one call (CU_CHECK, CU_TIMED): begin pushes the time, end pops
 * it and counts the call under @call. Nesting is allowed. */
void gm_drv_begin(void);
void gm_drv_end(const char *call);

/* Count one call of @call that began at @start (monotonic clock) and
 * took @ns, in @t's current phase (what gm_drv_end() does). */
void gm_drv_count(struct gm_drvcalls *t, const char *call, uint64_t start,
		  uint64_t ns);

/* The histogram bucket of a call of @ns. */
unsigned gm_drv_bucket(uint64_t ns);

/* What kind of call @name is: "launch", "copy", "memset", "sync",
 * "query", "event", "texture", "memory" or "other" (by its name). */
const char *gm_drv_kind(const char *name);

/*
 * Append @t's lines for program @program (escaped) to @out: one CALLS
 * line per call name and phase with calls (sites of one name summed),
 * one SLOW line per kept call, the formats of doc/run-directory.md.
 * Returns the number of lines appended.
 */
uint64_t gm_drv_format(const struct gm_drvcalls *t, const char *program,
		       struct strbuf *out);

#endif
