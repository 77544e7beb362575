/* SPDX-License-Identifier: MIT */
/*
 * Study analysis (see analysis.h): runs, programs and replays, the
 * alone-time baselines, STP/ANTT/MTSpeedup, the per-variant and
 * across-workload aggregates; one pass over the runs for the kernel
 * metrics (run_metrics.c) and the Fig. 7 choice (focus.c).
 */
#include "analysis_priv.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "metrics_resource.h"
#include "metrics_stp.h"
#include "run_reader.h"
#include "sharing_scenario.h"
#include "stats.h"
#include "strbuf.h"
#include "strmap.h"
#include "variant.h"

static int cmp_run(const void *x, const void *y)
{
	const struct gm_an_run *a = x, *b = y;
	int c = strcmp(a->workload, b->workload);

	if (c) {
		return c;
	}
	c = gm_variant_rank(a->vlabel) - gm_variant_rank(b->vlabel);
	c = c ? c : strcmp(a->vlabel, b->vlabel);
	if (c) {
		return c;
	}
	return a->repetition < b->repetition ? -1 : a->repetition > b->repetition;
}

/* Runs by database id, for the program and replay rows. */
struct run_index {
	int64_t id;
	struct gm_an_run *run;
};

static int cmp_index(const void *x, const void *y)
{
	int64_t a = ((const struct run_index *)x)->id;
	int64_t b = ((const struct run_index *)y)->id;

	return a < b ? -1 : a > b;
}

static struct gm_an_run *run_by_id(const struct run_index *idx, size_t n,
				   int64_t id)
{
	struct run_index key = { id, NULL };
	const struct run_index *r = bsearch(&key, idx, n, sizeof(*idx), cmp_index);

	return r ? r->run : NULL;
}

/* ", r.elasticPlannedLaunches, ...": columns 30 on of load_run_rows() */
#define COUNTER_COLUMN_(id, key, column, title) ", r." column
#define FIRST_COUNTER_COLUMN 30

/* Run @r from a row of load_run_rows()'s query. */
static void read_run_row(struct gm_an_run *r, sqlite3_stmt *st)
{
	memset(r, 0, sizeof(*r));
	r->id = sqlite3_column_int64(st, 0);
	r->path = gm_an_col_str(st, 1);
	r->workload = gm_an_col_str(st, 2);
	r->variant = gm_an_col_str(st, 3);
	r->policy = gm_an_col_str(st, 4);
	r->status = gm_an_col_str(st, 5);
	r->failure = sqlite3_column_type(st, 6) == SQLITE_NULL
		? NULL : gm_an_col_str(st, 6);
	r->device_name = gm_an_col_str(st, 7);
	r->device_cc = gm_an_col_str(st, 8);
	gm_device_limits_for_run(&r->dev, r->device_name, r->device_cc,
				 sqlite3_column_int64(st, 9),
				 sqlite3_column_int64(st, 10),
				 sqlite3_column_int64(st, 11),
				 sqlite3_column_int64(st, 12),
				 sqlite3_column_int64(st, 13));
	r->dropped = sqlite3_column_int64(st, 14);
	r->kernel_count = sqlite3_column_int64(st, 15);
	r->elastic = gm_an_col_str(st, 16);
	r->timeslice_us = sqlite3_column_type(st, 17) == SQLITE_NULL
		? NAN : sqlite3_column_double(st, 17);
	r->copy_chunk = sqlite3_column_type(st, 18) == SQLITE_NULL
		? -1 : sqlite3_column_int64(st, 18);
	r->hostname = sqlite3_column_type(st, 19) == SQLITE_NULL
		? NULL : gm_an_col_str(st, 19);
	r->gpu = sqlite3_column_type(st, 20) == SQLITE_NULL
		? NULL : gm_an_col_str(st, 20);
	r->one_shot = sqlite3_column_int64(st, 21) != 0;
	r->repetition = sqlite3_column_int64(st, 22);
	for (int k = 0; k < 2; k++) {
		int col = 23 + 3 * k;
		r->gpu_clock[k] = sqlite3_column_type(st, col) == SQLITE_NULL
			? -1 : sqlite3_column_int64(st, col);
		r->gpu_temp[k] = sqlite3_column_type(st, col + 1) == SQLITE_NULL
			? -1 : sqlite3_column_int64(st, col + 1);
		r->gpu_throttle[k] = sqlite3_column_type(st, col + 2) ==
			SQLITE_NULL ? NULL : gm_an_col_str(st, col + 2);
	}
	r->open_loop = gm_an_col_str(st, 29);
	for (int c = 0; c < GM_ELASTIC_COUNTERS_NR; c++) {
		int col = FIRST_COUNTER_COLUMN + c;
		r->elastic_counters[c] = sqlite3_column_type(st, col) ==
			SQLITE_NULL ? -1 : sqlite3_column_int64(st, col);
	}
	r->cell = SIZE_MAX;
	r->label = gm_run_label_open(r->workload, r->variant, r->policy,
				     r->open_loop, r->one_shot, r->repetition);
	/* A one-shot run measures otherwise than repeated replays: a label
	 * of its own, after its variant's (gm_variant_rank); so does each
	 * point of an open-loop sweep. */
	r->vlabel = gm_variant_label(r->variant, r->policy, r->open_loop,
				     r->one_shot);
	r->ok = !strcmp(r->status, "ok");
	r->alone = gm_variant_is(r->variant, GM_VARIANT_ALONE);
	r->reference = !strcmp(r->policy, "none") &&
		       gm_variant_is(r->variant, GM_VARIANT_REFERENCE);
	r->stp = r->antt = r->wl_time_ns = r->mtspeedup = NAN;
	r->running = NAN;
	for (int k = 0; k < GM_UTIL_KINDS; k++) {
		r->util[k] = NAN;
	}
	r->wait.mean = r->wait.median = r->wait.p95 = NAN;
	for (int k = 0; k < GM_WAIT_SPLITS; k++) {
		r->wait.split_mean[k] = NAN;
	}
}

/* Every run of the database into a->runs, sorted (cmp_run). */
static int load_run_rows(struct gm_analysis *a, struct gm_db *db)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	if (gm_db_prepare(db, &st,
			  "SELECT r.id, r.path, w.name, r.variant, r.policy,"
			  " r.status, r.failure, r.deviceName,"
			  " r.computeCapability, r.smCount, r.maxThreadsPerSm,"
			  " r.maxBlocksPerSm, r.regsPerSm, r.smemPerSm,"
			  " r.droppedRecords, r.kernelCount, r.elastic,"
			  " r.timesliceUs, r.copyChunk, r.hostname, r.gpu,"
			  " r.oneShot, r.repetition, r.gpuStartSmClockMhz,"
			  " r.gpuStartTempC, r.gpuStartThrottle,"
			  " r.gpuEndSmClockMhz, r.gpuEndTempC, r.gpuEndThrottle,"
			  " r.openLoop" GM_ELASTIC_COUNTERS(COUNTER_COLUMN_)
			  " FROM runs r JOIN workloads w ON w.id = r.workloadId")) {
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		GM_ALLOC_GROW(a->runs, a->nruns + 1, alloc);
		read_run_row(&a->runs[a->nruns++], st);
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		return -1;
	}
	/* (No runs: a->runs is NULL, which qsort does not take.) */
	if (a->nruns) {
		qsort(a->runs, a->nruns, sizeof(*a->runs), cmp_run);
	}
	return 0;
}

/* Each run's programs, in their manifest order. */
static int load_programs(struct gm_analysis *a, struct gm_db *db,
			 const struct run_index *idx)
{
	sqlite3_stmt *st;
	int rc;

	if (gm_db_prepare(db, &st, "SELECT runId, id, name, bundle, highPriority,"
			  " replayCv FROM programs ORDER BY runId, idx")) {
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		struct gm_an_run *r = run_by_id(idx, a->nruns, sqlite3_column_int64(st, 0));
		if (!r) {
			continue;
		}
		r->progs = gm_xrealloc(r->progs, (r->nprog + 1) * sizeof(*r->progs));
		struct gm_an_program *p = &r->progs[r->nprog++];
		memset(p, 0, sizeof(*p));
		p->id = sqlite3_column_int64(st, 1);
		p->name = gm_an_col_str(st, 2);
		p->bundle = gm_an_col_str(st, 3);
		p->high_priority = sqlite3_column_int64(st, 4) != 0;
		p->replay_cv = sqlite3_column_type(st, 5) == SQLITE_NULL
			? NAN : sqlite3_column_double(st, 5);
		p->mp_ns = p->alone_ns = NAN;
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

/* The replays: each run's span, and each program's mean kept replay
 * time (end - start - io). */
static int load_replays(struct gm_analysis *a, struct gm_db *db,
			const struct run_index *idx)
{
	sqlite3_stmt *st;
	int rc;

	if (gm_db_prepare(db, &st, "SELECT runId, programId, start, end, io, kept"
			  " FROM replays")) {
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		struct gm_an_run *r = run_by_id(idx, a->nruns, sqlite3_column_int64(st, 0));
		int64_t pid = sqlite3_column_int64(st, 1);
		int64_t s = sqlite3_column_int64(st, 2);
		int64_t e = sqlite3_column_int64(st, 3);
		if (!r) {
			continue;
		}
		if (!r->nreplays || s < r->span_start) {
			r->span_start = s;
		}
		if (!r->nreplays || e > r->span_end) {
			r->span_end = e;
		}
		r->nreplays++;
		if (!sqlite3_column_int64(st, 5)) {
			continue;
		}
		for (size_t i = 0; i < r->nprog; i++) {
			struct gm_an_program *p = &r->progs[i];
			if (p->id == pid) {
				double t = (double)(e - s - sqlite3_column_int64(st, 4));
				p->mp_ns = p->kept ? p->mp_ns + t : t;
				p->kept++;
			}
		}
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		return -1;
	}
	for (size_t i = 0; i < a->nruns; i++) {
		for (size_t j = 0; j < a->runs[i].nprog; j++) {
			struct gm_an_program *p = &a->runs[i].progs[j];
			if (p->kept) {
				p->mp_ns /= (double)p->kept;
			}
		}
	}
	return 0;
}

/* Each run's sharing scenario: the one its kernels spent the most time
 * in (doc/database.md, "Sharing scenarios"). */
static int load_scenarios(struct gm_analysis *a, struct gm_db *db,
			  const struct run_index *idx)
{
	sqlite3_stmt *st;
	int rc;

	if (gm_db_prepare(db, &st, "SELECT runId, scenario, sum(end - start) AS t"
			  " FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE scenario IS NOT"
			  " NULL GROUP BY runId, scenario ORDER BY runId, t DESC,"
			  " scenario")) {
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		struct gm_an_run *r = run_by_id(idx, a->nruns, sqlite3_column_int64(st, 0));
		const char *sc = (const char *)sqlite3_column_text(st, 1);
		if (!r || r->scenario || !sc) {
			continue;
		}
		for (int k = 0; k < GM_NR_SCENARIOS; k++) {
			if (!strcmp(sc, gm_scenario_name((enum gm_scenario)k))) {
				r->scenario = gm_scenario_name((enum gm_scenario)k);
			}
		}
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

/* The runs, their programs, replays and scenarios. */
static int load_runs(struct gm_analysis *a, struct gm_db *db)
{
	struct run_index *idx;
	int ret;

	if (load_run_rows(a, db) < 0) {
		return -1;
	}
	idx = gm_xmalloc((a->nruns + 1) * sizeof(*idx));
	for (size_t i = 0; i < a->nruns; i++) {
		idx[i] = (struct run_index){ a->runs[i].id, &a->runs[i] };
	}
	qsort(idx, a->nruns, sizeof(*idx), cmp_index);
	ret = load_programs(a, db, idx) < 0 || load_replays(a, db, idx) < 0 ||
	      load_scenarios(a, db, idx) < 0 ? -1 : 0;
	free(idx);
	return ret;
}

static void make_variants(struct gm_analysis *a)
{
	for (size_t i = 0; i < a->nruns; i++) {
		struct gm_an_run *r = &a->runs[i];
		size_t v;
		for (v = 0; v < a->nvariants; v++) {
			if (!strcmp(a->variants[v].label, r->vlabel)) {
				break;
			}
		}
		if (v == a->nvariants) {
			a->variants = gm_xrealloc(a->variants,
						  (v + 1) * sizeof(*a->variants));
			memset(&a->variants[v], 0, sizeof(a->variants[v]));
			a->variants[v].label = gm_xstrdup(r->vlabel);
			a->nvariants++;
		}
	}
	/* Canonical order, then fix up the runs' indexes. */
	for (size_t i = 1; i < a->nvariants; i++) {
		for (size_t j = i; j > 0; j--) {
			struct gm_an_variant *x = &a->variants[j - 1], *y = &a->variants[j];
			int c = gm_variant_rank(x->label) - gm_variant_rank(y->label);
			if (c < 0 || (!c && strcmp(x->label, y->label) <= 0)) {
				break;
			}
			struct gm_an_variant t = *x;
			*x = *y;
			*y = t;
		}
	}
	for (size_t i = 0; i < a->nruns; i++) {
		for (size_t v = 0; v < a->nvariants; v++) {
			if (!strcmp(a->variants[v].label, a->runs[i].vlabel)) {
				a->runs[i].vindex = v;
			}
		}
	}
}

/*
 * The alone time of program @p of run @r: the alone run (`single`) of the
 * same workload, else any alone run with a program of the same bundle (the
 * one with the fewest programs, then the first by workload name); a
 * one-shot run's from a one-shot alone run, any other's from another;
 * always of the same repetition as @r, so that the slowdown of each
 * repetition is against the alone times measured in its own round
 * (doc/database.md, "Intervals": the pairing).
 */
static void find_baseline(struct gm_analysis *a, const struct gm_an_run *r,
			  struct gm_an_program *p)
{
	const struct gm_an_run *best = NULL;
	const struct gm_an_program *bp = NULL;

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *s = &a->runs[i];
		/* one-shot runs against one-shot alone runs, the others
		 * against the others; each repetition against its own */
		if (!s->alone || !s->ok || s->one_shot != r->one_shot ||
		    s->repetition != r->repetition) {
			continue;
		}
		int same_wl = !strcmp(s->workload, r->workload);
		for (size_t j = 0; j < s->nprog; j++) {
			const struct gm_an_program *q = &s->progs[j];
			int match = same_wl ? !strcmp(q->name, p->name)
				: !strcmp(q->bundle, p->bundle);
			if (!match || isnan(q->mp_ns)) {
				continue;
			}
			if (same_wl) {
				best = s;
				bp = q;
				goto found;
			}
			if (!best || s->nprog < best->nprog) {
				best = s;
				bp = q;
			}
		}
	}
	if (!best) {
		return;
	}
found:
	p->alone_ns = bp->mp_ns;
	p->alone_from = best->label;
	p->alone_run = best;
	p->alone_prog = bp;
}

static void compute_stp(struct gm_analysis *a)
{
	for (size_t i = 0; i < a->nruns; i++) {
		struct gm_an_run *r = &a->runs[i];
		double *alone, *mp;
		struct strbuf missing = STRBUF_INIT, nokept = STRBUF_INIT;

		if (!r->ok) {
			continue;
		}
		for (size_t j = 0; j < r->nprog; j++) {
			find_baseline(a, r, &r->progs[j]);
		}
		if (r->alone) {
			continue;
		}
		alone = gm_xcalloc(r->nprog + 1, sizeof(double));
		mp = gm_xcalloc(r->nprog + 1, sizeof(double));
		for (size_t j = 0; j < r->nprog; j++) {
			struct gm_an_program *p = &r->progs[j];
			alone[j] = p->alone_ns;
			mp[j] = p->mp_ns;
			if (isnan(p->alone_ns)) {
				strbuf_addf(&missing, "%s'%s'", missing.len ? ", " : "",
					    p->name);
			}
			if (!p->kept) {
				strbuf_addf(&nokept, "%s'%s'", nokept.len ? ", " : "",
					    p->name);
			}
		}
		r->wl_time_ns = gm_workload_time(mp, r->nprog);
		r->stp = gm_stp(alone, mp, r->nprog);
		r->antt = gm_antt(alone, mp, r->nprog);
		if (nokept.len) {
			gm_an_note(a, "run '%s': no kept replays of %s: no program time,"
				 " STP, ANTT or MTSpeedup for it", r->label, nokept.buf);
		} else if (missing.len) {
			gm_an_note(a, "run '%s': no `%s` run of %s%s: STP and"
				 " ANTT not computed for it (the other metrics"
				 " are)", r->label, a->alone_variant, missing.buf,
				 r->repetition ? " in its repetition" : "");
		} else if (!r->nprog) {
			gm_an_note(a, "run '%s' has no programs", r->label);
		}
		strbuf_release(&missing);
		strbuf_release(&nokept);
		free(alone);
		free(mp);
	}
	/* MTSpeedup against the reference run (cuda) of the same workload
	 * and repetition. */
	for (size_t i = 0; i < a->nruns; i++) {
		struct gm_an_run *r = &a->runs[i];
		if (!r->ok || r->alone) {
			continue;
		}
		for (size_t j = 0; j < a->nruns; j++) {
			struct gm_an_run *c = &a->runs[j];
			if (c->ok && c->reference &&
			    c->repetition == r->repetition &&
			    !strcmp(c->workload, r->workload) &&
			    r->wl_time_ns > 0 && c->wl_time_ns > 0) {
				r->mtspeedup = c->wl_time_ns / r->wl_time_ns;
			}
		}
	}
}

static void per_variant(struct gm_analysis *a, struct gm_an_pool *pools)
{
	for (size_t v = 0; v < a->nvariants; v++) {
		struct gm_an_variant *var = &a->variants[v];
		struct gm_an_pool *p = &pools[v];
		gm_an_wait_stats(&var->wait, p->waits, p->n, p->split_sum, p->split_n);
		var->running = p->run_n ? p->run_sum / (double)p->run_n : NAN;
		for (int u = 0; u < GM_UTIL_KINDS; u++) {
			var->util[u] = p->util_n[u]
				? p->util_sum[u] / (double)p->util_n[u] : NAN;
		}
	}
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->ok) {
			continue;
		}
		a->variants[r->vindex].runs++;
		for (int c = 0; c < GM_OVERLAP_COUNT; c++) {
			a->variants[r->vindex].cat_ns[c] += r->cat_ns[c];
			a->variants[r->vindex].cat_n[c] += r->cat_n[c];
		}
	}
}

/*
 * The geometric mean of a metric over the workloads of grid column @v
 * that have it in every repetition, per repetition, with its interval
 * over the repetitions; the common set goes to @c (release it).
 */
static void geo_ci(struct gm_analysis *a, const struct gm_an_grid *g,
		   gm_an_values_fn get, struct gm_an_common *c, struct gm_ci *ci)
{
	double *per = NULL;

	gm_an_common(g, get, c);
	per = gm_xcalloc(c->nrep + 1, sizeof(*per));
	gm_an_per_rep(g, 0, c, get, per);
	gm_ci_geomean(ci, per, c->nw ? c->nrep : 0, &a->ci);
	free(per);
}

/*
 * A paired improvement: per repetition, the geomean of @get under column
 * @num over that under column @den, over the workloads both have in every
 * repetition; its geometric mean and interval into @ci. Returns the
 * number of workloads.
 */
static size_t paired_ci(struct gm_analysis *a, const struct gm_an_grid *g,
			gm_an_values_fn get, size_t num, size_t den,
			struct gm_ci *ci)
{
	struct gm_an_common c;
	double *x, *y;
	size_t n;

	gm_an_common(g, get, &c);
	x = gm_xcalloc(c.nrep + 1, sizeof(*x));
	y = gm_xcalloc(c.nrep + 1, sizeof(*y));
	gm_an_per_rep(g, num, &c, get, x);
	gm_an_per_rep(g, den, &c, get, y);
	gm_an_ratio_ci(a, x, y, c.nw ? c.nrep : 0, ci);
	n = c.nw;
	free(x);
	free(y);
	gm_an_common_release(&c);
	return n;
}

static void left_out_note(struct gm_analysis *a, const struct gm_an_summary *row,
			  size_t left)
{
	if (left) {
		gm_an_note(a, "%zu-program workloads under %s: %zu workload%s"
			   " left out of the geometric means (not in every"
			   " repetition: failed or missing runs)", row->programs,
			   row->vlabel, left, left == 1 ? "" : "s");
	}
}

static void summary_row(struct gm_analysis *a, size_t v, size_t size,
			size_t ref, struct gm_an_summary *row)
{
	struct gm_an_grid g;
	struct gm_an_common c;
	size_t cols[2] = { v, ref };

	gm_an_grid_init(&g, a, size, cols, 1);
	geo_ci(a, &g, gm_an_v_stp, &c, &row->stp_geo);
	row->workloads = c.nw;
	row->repetitions = c.nw ? c.nrep : 0;
	left_out_note(a, row, c.left);
	gm_an_common_release(&c);
	geo_ci(a, &g, gm_an_v_antt, &c, &row->antt_geo);
	gm_an_common_release(&c);
	geo_ci(a, &g, gm_an_v_mtspeedup, &c, &row->mtspeedup);
	row->mt_n = c.nw;
	gm_an_common_release(&c);
	/* The extremes: the cells with the highest mean STP and ANTT. */
	row->stp_best.mean = row->antt_worst.mean = NAN;
	row->stp_best.lo = row->stp_best.hi = NAN;
	row->antt_worst.lo = row->antt_worst.hi = NAN;
	for (size_t w = 0; w < g.nw; w++) {
		const struct gm_an_cell *cell = g.cell[w * g.nv];
		if (!cell) {
			continue;
		}
		if (!isnan(cell->stp.mean) && (isnan(row->stp_best.mean) ||
		    cell->stp.mean > row->stp_best.mean)) {
			row->stp_best = cell->stp;
		}
		if (!isnan(cell->antt.mean) && (isnan(row->antt_worst.mean) ||
		    cell->antt.mean > row->antt_worst.mean)) {
			row->antt_worst = cell->antt;
		}
	}
	row->stp_imp.mean = row->antt_imp.mean = NAN;
	row->stp_imp.lo = row->stp_imp.hi = NAN;
	row->antt_imp.lo = row->antt_imp.hi = NAN;
	gm_an_grid_release(&g);
	if (ref != SIZE_MAX) {
		gm_an_grid_init(&g, a, size, cols, 2);
		row->common = paired_ci(a, &g, gm_an_v_stp, 0, 1, &row->stp_imp);
		paired_ci(a, &g, gm_an_v_antt, 1, 0, &row->antt_imp);
		gm_an_grid_release(&g);
	}
}

static void summarize(struct gm_analysis *a)
{
	size_t alloc = 0, ref = SIZE_MAX;

	for (size_t i = 0; i < a->nruns; i++) {
		if (a->runs[i].ok && a->runs[i].reference) {
			ref = a->runs[i].vindex;
		}
	}
	for (size_t v = 0; v < a->nvariants; v++) {
		const char *label = a->variants[v].label;
		/* The alone runs are the baseline of STP and ANTT. */
		if (gm_variant_is(label, GM_VARIANT_ALONE)) {
			continue;
		}
		/* One row per workload size (2-program, 4-program, ...). */
		size_t sizes[64], nsizes = 0;
		for (size_t i = 0; i < a->ncells; i++) {
			const struct gm_an_cell *c = &a->cells[i];
			size_t s;
			if (c->vindex != v) {
				continue;
			}
			for (s = 0; s < nsizes && sizes[s] != c->nprog; s++) {
			}
			if (s == nsizes && nsizes < 64) {
				sizes[nsizes++] = c->nprog;
			}
		}
		for (size_t s = 0; s < nsizes; s++) {
			GM_ALLOC_GROW(a->summary, a->nsummary + 1, alloc);
			struct gm_an_summary *row = &a->summary[a->nsummary++];
			memset(row, 0, sizeof(*row));
			row->programs = sizes[s];
			row->vlabel = label;
			summary_row(a, v, sizes[s], ref, row);
		}
	}
	if (ref == SIZE_MAX && a->nsummary) {
		gm_an_note(a, "no `%s` run: improvements over %s and MTSpeedup"
			 " are not computed", a->reference_variant,
			 a->reference_variant);
	}
}

static int cmp_resource(const void *x, const void *y)
{
	const struct gm_an_resource *a = x, *b = y;
	int c = strcmp(a->device, b->device);

	if (!c) {
		c = strcmp(a->program, b->program);
	}
	if (!c) {
		c = strcmp(a->kernel, b->kernel);
	}
	if (!c) {
		c = a->grid < b->grid ? -1 : a->grid > b->grid;
	}
	if (!c) {
		c = a->tpb < b->tpb ? -1 : a->tpb > b->tpb;
	}
	if (!c) {
		c = a->regs < b->regs ? -1 : a->regs > b->regs;
	}
	if (!c) {
		c = a->smem < b->smem ? -1 : a->smem > b->smem;
	}
	return c;
}

int gm_analysis_compute(struct gm_analysis *a, struct gm_db *db,
			const struct gm_analysis_options *opt)
{
	struct gm_an_pool *pools = NULL;
	struct gm_an_resources res;
	int ret = -1, have_alone = 0;

	memset(a, 0, sizeof(*a));
	memset(&res, 0, sizeof(res));
	a->ci = opt->ci;
	a->median_cv = NAN;
	a->alone_variant = gm_variant_with(GM_VARIANT_ALONE)->name;
	a->reference_variant = gm_variant_with(GM_VARIANT_REFERENCE)->name;
	if (load_runs(a, db)) {
		goto out;
	}
	if (!a->nruns) {
		gm_an_note(a, "the database holds no runs");
	}
	make_variants(a);
	gm_an_kernels(a);
	compute_stp(a);
	if (gm_an_latency(a, db)) {
		goto out;
	}
	gm_an_cells(a);
	gm_an_latency_rows(a);
	gm_an_ranking(a);
	if (gm_an_open_loop(a, db) || gm_an_spmd(a, db)) {
		goto out;
	}
	if (!opt->metrics_only && gm_an_coruns(a, db)) {
		goto out;
	}
	for (size_t i = 0; i < a->nruns; i++) {
		have_alone |= a->runs[i].ok && a->runs[i].alone;
	}
	a->resources_from_alone = have_alone;
	if (!opt->metrics_only &&
	    gm_db_prepare(db, &res.name, "SELECT value FROM StringIds WHERE id = ?1")) {
		goto out;
	}
	pools = gm_xcalloc(a->nvariants + 1, sizeof(*pools));
	for (size_t i = 0; i < a->nruns; i++) {
		struct gm_an_run *r = &a->runs[i];
		if (!r->ok) {
			const char *what = !strcmp(r->status, "hung") ? "hung" : "failed";
			if (r->failure) {
				gm_an_note(a, "run '%s' %s (%s): left out of every metric",
					 r->label, what, r->failure);
			} else {
				gm_an_note(a, "run '%s' %s: left out of every metric",
					 r->label, what);
			}
			continue;
		}
		if (opt->metrics_only) {
			continue;
		}
		if (gm_an_run_kernels(a, db, r, &pools[r->vindex], &res,
				!have_alone || r->alone) ||
		    gm_an_run_probe(db, r)) {
			goto out;
		}
		if (r->dropped) {
			gm_an_note(a, "run '%s': CUPTI dropped %" PRId64 " activity"
				 " records: its kernel metrics are incomplete",
				 r->label, r->dropped);
		}
		if (r->no_api) {
			gm_an_note(a, "run '%s': %zu kernel%s no launch call record"
				 " (left out of waiting time)", r->label, r->no_api,
				 r->no_api == 1 ? " has" : "s have");
		}
		if (r->no_ts) {
			gm_an_note(a, "run '%s': %zu kernel%s no timestamps"
				 " (left out of the time metrics)", r->label, r->no_ts,
				 r->no_ts == 1 ? " has" : "s have");
		}
		if (r->no_fit) {
			gm_an_note(a, "run '%s': %zu kernel instances do not fit one block"
				 " per SM under the manifest's limits (counted as"
				 " holding nothing)", r->label, r->no_fit);
		}
		if (r->nprog && r->kernel_count == 0) {
			gm_an_note(a, "run '%s' has no kernel records", r->label);
		}
	}
	summarize(a);
	gm_an_noise(a);
	if (opt->metrics_only) {
		ret = 0;
		goto out;
	}
	per_variant(a, pools);
	if (a->nresources) {
		qsort(a->resources, a->nresources, sizeof(*a->resources),
		      cmp_resource);
	}
	if (gm_an_choose_focus(a, db, opt)) {
		goto out;
	}
	ret = 0;
out:
	if (pools) {
		for (size_t v = 0; v < a->nvariants; v++) {
			free(pools[v].waits);
		}
		free(pools);
	}
	sqlite3_finalize(res.name);
	gm_strmap_clear(&res.index);
	return ret;
}

void gm_analysis_release(struct gm_analysis *a)
{
	for (size_t i = 0; i < a->nruns; i++) {
		struct gm_an_run *r = &a->runs[i];
		free(r->path);
		free(r->workload);
		free(r->variant);
		free(r->policy);
		free(r->status);
		free(r->failure);
		free(r->label);
		free(r->vlabel);
		free(r->device_name);
		free(r->device_cc);
		free(r->hostname);
		free(r->gpu);
		free(r->elastic);
		free(r->open_loop);
		free(r->gpu_throttle[0]);
		free(r->gpu_throttle[1]);
		for (size_t j = 0; j < r->nprog; j++) {
			free(r->progs[j].name);
			free(r->progs[j].bundle);
		}
		gm_an_run_probe_release(r);
		free(r->progs);
		free(r->names);
	}
	gm_an_cells_release(a);
	free(a->runs);
	gm_an_coruns_release(a);
	gm_an_open_loop_release(a);
	gm_an_spmd_release(a);
	for (size_t v = 0; v < a->nvariants; v++) {
		free(a->variants[v].label);
	}
	free(a->variants);
	free(a->summary);
	free(a->latency);
	free(a->ranking);
	for (size_t i = 0; i < a->nresources; i++) {
		free(a->resources[i].device);
		free(a->resources[i].program);
		free(a->resources[i].kernel);
	}
	free(a->resources);
	for (size_t i = 0; i < a->nnotes; i++) {
		free(a->notes[i]);
	}
	free(a->notes);
	free(a->kernels);
	free(a->focus_kernel);
	free(a->focus);
	free(a->focus_replays);
	memset(a, 0, sizeof(*a));
}
