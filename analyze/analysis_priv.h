/* SPDX-License-Identifier: MIT */
/*
 * Internal to analyze/: what the pieces of the study analysis share
 * (analysis.c drives; run_metrics.c analyses one run's kernels; focus.c
 * picks the kernel and run of Fig. 7 and the timeline; same_kernels.c
 * compares the runs' kernels; analysis_cells.c groups the repetitions;
 * analysis_noise.c flags noisy runs). The helpers they all use are in
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
 * set). Returns 0 or -1.
 */
int gm_an_latency(struct gm_analysis *a, struct gm_db *db);

/* The per-variant latency rows (after gm_an_cells()). */
void gm_an_latency_rows(struct gm_analysis *a);

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
/* ---- analysis_cells.c ---- */

/*
 * Group the ok runs into a->cells (a workload under a variant label, its
 * repetitions) with every per-workload and per-program mean and interval
 * (after compute_stp and the latency); notes runs left out.
 */
void gm_an_cells(struct gm_analysis *a);

/* Free a->cells. */
void gm_an_cells_release(struct gm_analysis *a);

/*
 * The cells of one workload size as a grid: a row per workload (in name
 * order), a column per variant index asked for; NULL where that workload
 * has no cell of that variant.
 */
struct gm_an_grid {
	size_t nw, nv;
	const struct gm_an_cell **cell;	/* nw x nv (owned array) */
	size_t *first;			/* a->cells index of each row's first
					   cell, for its name (owned) */
};

/* Build @g over the non-alone cells of @size for the @nv columns @vindex. */
void gm_an_grid_init(struct gm_an_grid *g, const struct gm_analysis *a,
		     size_t size, const size_t *vindex, size_t nv);
void gm_an_grid_release(struct gm_an_grid *g);

/*
 * A metric's values in one run: written to @out (room for the run's
 * programs + 1), their number returned (0: the run has none).
 */
typedef size_t (*gm_an_values_fn)(const struct gm_an_run *r, double *out);

size_t gm_an_v_stp(const struct gm_an_run *r, double *out);
size_t gm_an_v_antt(const struct gm_an_run *r, double *out);
size_t gm_an_v_mtspeedup(const struct gm_an_run *r, double *out);
size_t gm_an_v_p50(const struct gm_an_run *r, double *out);	/* slowdowns */
size_t gm_an_v_p99(const struct gm_an_run *r, double *out);

/*
 * What an aggregate is computed over: the repetitions in which some cell
 * of the grid has values of the metric, and the workloads whose every
 * column has values in every one of them (@left: the workloads that have
 * some values but not all, left out).
 */
struct gm_an_common {
	size_t nrep;
	int64_t *rep;		/* ascending (owned) */
	size_t nw;
	size_t *w;		/* rows of the grid (owned) */
	size_t left;
};

void gm_an_common(const struct gm_an_grid *g, gm_an_values_fn get,
		  struct gm_an_common *c);
void gm_an_common_release(struct gm_an_common *c);

/*
 * For column @v: per repetition of @c, the geometric mean of the metric's
 * values in the runs of @c's workloads at that repetition, into
 * @out[0..c->nrep) (NAN where none).
 */
void gm_an_per_rep(const struct gm_an_grid *g, size_t v,
		   const struct gm_an_common *c, gm_an_values_fn get,
		   double *out);

/*
 * The geometric mean of @num[i] / @den[i] over the @n repetitions and its
 * interval (a paired ratio: each repetition against the same one).
 */
void gm_an_ratio_ci(const struct gm_analysis *a, const double *num,
		    const double *den, size_t n, struct gm_ci *ci);

/* ---- analysis_noise.c ---- */

/*
 * The noise diagnostics: the median replay-time CV of the ok runs'
 * programs (a->median_cv) and a note for each run whose spread is
 * unusual or whose GPU throttled or changed its clock (doc/database.md,
 * "Noise"), the runs' enum gm_noise bits set.
 */
void gm_an_noise(struct gm_analysis *a);

/* ---- focus.c ---- */

/* Choose and load the Fig. 7 / timeline kernel and run. Returns 0 or -1. */
int gm_an_choose_focus(struct gm_analysis *a, struct gm_db *db,
		       const struct gm_analysis_options *opt);

/* ---- analysis_spmd.c ---- */

/* The SPMD predictor's rows (struct gm_an_spmd), after the alone times
 * are known. 0 or -1. */
int gm_an_spmd(struct gm_analysis *a, struct gm_db *db);
void gm_an_spmd_release(struct gm_analysis *a);

/* ---- analysis_open_loop.c ---- */

/* The open-loop programs of the ok runs and their metrics (after
 * gm_an_cells(): the alone times are known). 0 or -1. */
int gm_an_open_loop(struct gm_analysis *a, struct gm_db *db);
void gm_an_open_loop_release(struct gm_analysis *a);

/* The percentile (0..100) of each enum gm_ol_pct, and its column name
 * ("p50", "p99.9"). */
double gm_an_ol_pct(enum gm_ol_pct p);
const char *gm_an_ol_pct_name(enum gm_ol_pct p);

#endif
