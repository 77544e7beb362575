/* SPDX-License-Identifier: MIT */
/*
 * Internal to analyze/: what the pieces of the study analysis share
 * (analysis.c drives; run_metrics.c analyses one run's kernels; focus.c
 * picks the kernel and run of Fig. 7 and the timeline; same_kernels.c
 * compares the runs' kernels). The helpers they all use are in
 * analysis_util.c, which calls none of them: the calls go one way,
 * analysis.c -> run_metrics.c, focus.c, same_kernels.c -> analysis_util.c.
 * Not an API.
 */
#ifndef GM_ANALYSIS_PRIV_H
#define GM_ANALYSIS_PRIV_H

#include "analysis.h"
#include "error.h"
#include "metrics_resource.h"
#include "strmap.h"

/* One kernel instance as read from the database (with timestamps). */
struct gm_an_krow {
	int64_t start, end, queued, submitted, corr, name, stream;
	struct gm_kernel_shape shape;
	int program;			/* index into the run's programs */
};

/* What the run pass accumulates per variant. */
struct gm_an_pool {
	double *waits;
	size_t n, alloc;
	double split_sum[GM_WAIT_SPLITS];
	size_t split_n;
	double run_sum, util_sum[GM_UTIL_KINDS];
	size_t run_n, util_n[GM_UTIL_KINDS];
};

/* The resource table being built (rows live in gm_analysis). */
struct gm_an_resources {
	struct gm_strmap index;		/* row key -> row (common/strmap.h) */
	size_t alloc;
	sqlite3_stmt *name;		/* StringIds lookup */
};

/* ---- analysis_util.c ---- */

/* Text of column @i (never NULL; caller frees). */
char *gm_an_col_str(sqlite3_stmt *st, int i);

/* Add a note for the reader (printf format). */
void gm_an_note(struct gm_analysis *a, const char *fmt, ...) GM_PRINTF(2, 3);

/* StringIds value of @id through the prepared @st, or "#id" (caller frees). */
char *gm_an_string(sqlite3_stmt *st, int64_t id);

/*
 * Read the kernels of @r that have timestamps into *@out (caller frees);
 * *@no_ts counts those without. Returns 0 or -1.
 */
int gm_an_load_kernels(struct gm_db *db, const struct gm_an_run *r,
		       struct gm_an_krow **out, size_t *n, size_t *no_ts);

/* Fill @w from @n waits (sorted in place) and the split sums. */
void gm_an_wait_stats(struct gm_wait_stats *w, double *v, size_t n,
		      const double *split_sum, size_t split_n);

/* ---- run_metrics.c ---- */

/*
 * Every per-run metric of @r (waiting, overlap, running kernels,
 * utilization, kernel-name counts), pooled into @pool; resource rows are
 * added when @want_resources. Returns 0 or -1.
 */
int gm_an_run_kernels(struct gm_analysis *a, struct gm_db *db,
		      struct gm_an_run *r, struct gm_an_pool *pool,
		      struct gm_an_resources *res, int want_resources);

/* ---- analysis_probe.c ---- */

/*
 * The block probe of @r (r->probe: the SM-time over the window in which
 * every program replayed, or the whole replay span, and each kernel's
 * probed launches), its driver calls of the timed part (r->dc) and each
 * program's waiting split (queued behind its own stream vs waiting for
 * SMs). Runs without probe or driver-call rows get none. 0 or -1.
 */
int gm_an_run_probe(struct gm_db *db, struct gm_an_run *r);

/* Free what gm_an_run_probe() gave @r. */
void gm_an_run_probe_release(struct gm_an_run *r);

/* ---- same_kernels.c ---- */

/*
 * Say which kernels the ok runs of @a ran (a->kernels, a->same_kernels),
 * from each run's `elastic` column (paper item 49), with a note when
 * they differ.
 */
void gm_an_kernels(struct gm_analysis *a);

/*
 * The latency of every program of the ok runs (percentiles of its kept
 * replays, slowdown against its alone-time baseline, which find_baseline
 * set) and the per-variant latency rows. Returns 0 or -1.
 */
int gm_an_latency(struct gm_analysis *a, struct gm_db *db);

/*
 * The ranking of the variants per workload size, over the workloads
 * every ranked variant ran ok (analysis_ranking.c); after the latency.
 */
void gm_an_ranking(struct gm_analysis *a);

/* ---- analysis_corun.c ---- */

/*
 * The co-runs of the database against the one-shot replays of their
 * workloads (a->coruns), after find_baseline() set the alone times.
 * Returns 0 or -1.
 */
int gm_an_coruns(struct gm_analysis *a, struct gm_db *db);
void gm_an_coruns_release(struct gm_analysis *a);

/* ---- focus.c ---- */

/* Choose and load the Fig. 7 / timeline kernel and run. Returns 0 or -1. */
int gm_an_choose_focus(struct gm_analysis *a, struct gm_db *db,
		       const struct gm_analysis_options *opt);

#endif
