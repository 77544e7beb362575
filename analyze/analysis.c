/* SPDX-License-Identifier: MIT */
/*
 * Study analysis (see analysis.h). One pass over the runs: each run's
 * kernels and launch calls are read, analysed and dropped before the
 * next run, so memory follows the largest run, not the study.
 */
#include "analysis.h"

#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "metrics_resource.h"
#include "metrics_stp.h"
#include "metrics_util.h"
#include "run_reader.h"
#include "stats.h"
#include "strbuf.h"
#include "strmap.h"

static char *col_str(sqlite3_stmt *st, int i)
{
	const unsigned char *t = sqlite3_column_text(st, i);

	return gm_xstrdup(t ? (const char *)t : "");
}

static void add_note(struct gm_analysis *a, const char *fmt, ...)
	GM_PRINTF(2, 3);

static void add_note(struct gm_analysis *a, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;
	size_t alloc = a->nnotes;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	a->notes = gm_xrealloc(a->notes, (alloc + 1) * sizeof(*a->notes));
	a->notes[a->nnotes++] = strbuf_detach(&sb, NULL);
}

int gm_variant_rank(const char *vlabel)
{
	static const char *const order[] = {
		"single", "cuda", "nss", "elastic+mpmax", "elastic+median",
		"elastic+equal", "elastic+queuemold",
	};

	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		if (!strcmp(order[i], vlabel)) {
			return (int)i;
		}
	}
	return 100;
}

static int cmp_run(const void *x, const void *y)
{
	const struct gm_an_run *a = x, *b = y;
	int c = strcmp(a->workload, b->workload);

	if (c) {
		return c;
	}
	c = gm_variant_rank(a->vlabel) - gm_variant_rank(b->vlabel);
	return c ? c : strcmp(a->vlabel, b->vlabel);
}

static struct gm_an_run *run_by_id(struct gm_analysis *a, int64_t id)
{
	for (size_t i = 0; i < a->nruns; i++) {
		if (a->runs[i].id == id) {
			return &a->runs[i];
		}
	}
	return NULL;
}

static int load_runs(struct gm_analysis *a, struct gm_db *db)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	if (gm_db_prepare(db, &st,
			  "SELECT r.id, r.path, w.name, r.variant, r.policy,"
			  " r.status, r.failure, r.deviceName,"
			  " r.computeCapability, r.smCount, r.maxThreadsPerSm,"
			  " r.maxBlocksPerSm, r.regsPerSm, r.smemPerSm,"
			  " r.droppedRecords, r.kernelCount"
			  " FROM runs r JOIN workloads w ON w.id = r.workloadId")) {
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		GM_ALLOC_GROW(a->runs, a->nruns + 1, alloc);
		struct gm_an_run *r = &a->runs[a->nruns++];
		memset(r, 0, sizeof(*r));
		r->id = sqlite3_column_int64(st, 0);
		r->path = col_str(st, 1);
		r->workload = col_str(st, 2);
		r->variant = col_str(st, 3);
		r->policy = col_str(st, 4);
		r->status = col_str(st, 5);
		r->failure = sqlite3_column_type(st, 6) == SQLITE_NULL
			? NULL : col_str(st, 6);
		r->device_name = col_str(st, 7);
		r->device_cc = col_str(st, 8);
		gm_device_limits_for_run(&r->dev, r->device_name, r->device_cc,
					 sqlite3_column_int64(st, 9),
					 sqlite3_column_int64(st, 10),
					 sqlite3_column_int64(st, 11),
					 sqlite3_column_int64(st, 12),
					 sqlite3_column_int64(st, 13));
		r->dropped = sqlite3_column_int64(st, 14);
		r->kernel_count = sqlite3_column_int64(st, 15);
		r->label = gm_run_label(r->workload, r->variant, r->policy);
		r->vlabel = strcmp(r->policy, "none")
			? gm_xasprintf("%s+%s", r->variant, r->policy)
			: gm_xstrdup(r->variant);
		r->ok = !strcmp(r->status, "ok");
		r->single = !strcmp(r->variant, "single");
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
	sqlite3_finalize(st);
	if (rc < 0) {
		return -1;
	}
	qsort(a->runs, a->nruns, sizeof(*a->runs), cmp_run);

	/* Programs, then replays: mean kept replay time and the run span. */
	if (gm_db_prepare(db, &st, "SELECT runId, id, name, bundle FROM programs"
			  " ORDER BY runId, idx")) {
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		struct gm_an_run *r = run_by_id(a, sqlite3_column_int64(st, 0));
		if (!r) {
			continue;
		}
		r->progs = gm_xrealloc(r->progs, (r->nprog + 1) * sizeof(*r->progs));
		struct gm_an_program *p = &r->progs[r->nprog++];
		memset(p, 0, sizeof(*p));
		p->id = sqlite3_column_int64(st, 1);
		p->name = col_str(st, 2);
		p->bundle = col_str(st, 3);
		p->mp_ns = p->alone_ns = NAN;
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		return -1;
	}
	if (gm_db_prepare(db, &st, "SELECT runId, programId, start, end, io, kept"
			  " FROM replays")) {
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		struct gm_an_run *r = run_by_id(a, sqlite3_column_int64(st, 0));
		int64_t pid = sqlite3_column_int64(st, 1);
		int64_t s = sqlite3_column_int64(st, 2);
		int64_t e = sqlite3_column_int64(st, 3);
		if (!r) {
			continue;
		}
		if (r->span_start == r->span_end || s < r->span_start) {
			r->span_start = s;
		}
		if (e > r->span_end) {
			r->span_end = e;
		}
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
 * The alone time of program @p of run @r: the `single` run of the same
 * workload, else any `single` run with a program of the same bundle (the
 * one with the fewest programs, then the first by workload name).
 */
static void find_baseline(struct gm_analysis *a, const struct gm_an_run *r,
			  struct gm_an_program *p)
{
	const struct gm_an_run *best = NULL;
	const struct gm_an_program *bp = NULL;

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *s = &a->runs[i];
		if (!s->single || !s->ok) {
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
		if (r->single) {
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
			add_note(a, "run '%s': no kept replays of %s: no program time,"
				 " STP, ANTT or MTSpeedup for it", r->label, nokept.buf);
		} else if (missing.len) {
			add_note(a, "run '%s': no `single` run of %s: STP and ANTT not"
				 " computed for it (the other metrics are)", r->label,
				 missing.buf);
		} else if (!r->nprog) {
			add_note(a, "run '%s' has no programs", r->label);
		}
		strbuf_release(&missing);
		strbuf_release(&nokept);
		free(alone);
		free(mp);
	}
	/* MTSpeedup against the cuda run of the same workload. */
	for (size_t i = 0; i < a->nruns; i++) {
		struct gm_an_run *r = &a->runs[i];
		if (!r->ok || r->single) {
			continue;
		}
		for (size_t j = 0; j < a->nruns; j++) {
			struct gm_an_run *c = &a->runs[j];
			if (c->ok && !strcmp(c->vlabel, "cuda") &&
			    !strcmp(c->workload, r->workload) &&
			    r->wl_time_ns > 0 && c->wl_time_ns > 0) {
				r->mtspeedup = c->wl_time_ns / r->wl_time_ns;
			}
		}
	}
}

/* One kernel as read from the database. */
struct krow {
	int64_t start, end, queued, submitted, corr, name;
	struct gm_kernel_shape shape;
	int program;
};

static int load_kernels(struct gm_db *db, const struct gm_an_run *r,
			struct krow **out, size_t *n, size_t *no_ts)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	*no_ts = 0;
	if (gm_db_prepare(db, &st,
			  "SELECT programId, start, end, queued, submitted,"
			  " correlationId, gridX * gridY * gridZ,"
			  " blockX * blockY * blockZ, registersPerThread,"
			  " staticSharedMemory + dynamicSharedMemory, shortName"
			  " FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = ?1") ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 1, r->id)) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		struct krow k;
		int64_t pid = sqlite3_column_int64(st, 0);
		k.start = sqlite3_column_int64(st, 1);
		k.end = sqlite3_column_int64(st, 2);
		if (!k.start && !k.end) {
			(*no_ts)++;
			continue;
		}
		k.queued = sqlite3_column_int64(st, 3);
		k.submitted = sqlite3_column_int64(st, 4);
		k.corr = sqlite3_column_int64(st, 5);
		k.shape.grid_blocks = sqlite3_column_int64(st, 6);
		k.shape.threads_per_block = sqlite3_column_int64(st, 7);
		k.shape.regs_per_thread = sqlite3_column_int64(st, 8);
		k.shape.smem_per_block = sqlite3_column_int64(st, 9);
		k.name = sqlite3_column_int64(st, 10);
		k.program = 0;
		for (size_t i = 0; i < r->nprog; i++) {
			if (r->progs[i].id == pid) {
				k.program = (int)i;
				break;
			}
		}
		GM_ALLOC_GROW(*out, *n + 1, alloc);
		(*out)[(*n)++] = k;
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

struct api_start {
	int64_t corr, start;
};

static int cmp_api(const void *x, const void *y)
{
	const struct api_start *a = x, *b = y;

	if (a->corr != b->corr) {
		return a->corr < b->corr ? -1 : 1;
	}
	return a->start < b->start ? -1 : a->start > b->start;
}

static int load_api(struct gm_db *db, int64_t run, struct api_start **out,
		    size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (gm_db_prepare(db, &st, "SELECT correlationId, start FROM"
			  " CUPTI_ACTIVITY_KIND_RUNTIME WHERE runId = ?1") ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 1, run)) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		GM_ALLOC_GROW(*out, *n + 1, alloc);
		(*out)[*n].corr = sqlite3_column_int64(st, 0);
		(*out)[(*n)++].start = sqlite3_column_int64(st, 1);
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		return -1;
	}
	qsort(*out, *n, sizeof(**out), cmp_api);
	return 0;
}

/* Start of the first launch call with @corr, or 0 when there is none. */
static int find_api(const struct api_start *api, size_t n, int64_t corr,
		    int64_t *start)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (api[mid].corr < corr) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo < n && api[lo].corr == corr) {
		*start = api[lo].start;
		return 1;
	}
	return 0;
}

static void wait_stats(struct gm_wait_stats *w, double *v, size_t n,
		       const double *split_sum, size_t split_n)
{
	gm_sort_doubles(v, n);
	w->n = n;
	w->mean = gm_mean(v, n);
	w->median = gm_percentile_sorted(v, n, 50);
	w->p95 = gm_percentile_sorted(v, n, 95);
	w->split_n = split_n;
	for (int k = 0; k < GM_WAIT_SPLITS; k++) {
		w->split_mean[k] = split_n ? split_sum[k] / (double)split_n : NAN;
	}
}

/* Pooled per-variant waiting times, filled while runs are analysed. */
struct pool {
	double *waits;
	size_t n, alloc;
	double split_sum[GM_WAIT_SPLITS];
	size_t split_n;
	double run_sum, util_sum[GM_UTIL_KINDS];
	size_t run_n, util_n[GM_UTIL_KINDS];
};

struct shape_key {
	int64_t name, grid, tpb, regs, smem;
	int program;
};

static int cmp_shape(const void *x, const void *y)
{
	const struct shape_key *a = x, *b = y;
	const int64_t *p = &a->name, *q = &b->name;

	for (int i = 0; i < 5; i++) {
		if (p[i] != q[i]) {
			return p[i] < q[i] ? -1 : 1;
		}
	}
	return a->program - b->program;
}

struct resources {
	struct gm_strmap index;		/* key -> row */
	size_t alloc;
	sqlite3_stmt *name;		/* StringIds lookup */
};

static char *string_id(struct gm_db *db, sqlite3_stmt *st, int64_t id)
{
	char *s = NULL;

	sqlite3_reset(st);
	sqlite3_bind_int64(st, 1, id);
	if (sqlite3_step(st) == SQLITE_ROW) {
		s = col_str(st, 0);
	}
	sqlite3_reset(st);
	return s ? s : gm_xasprintf("#%" PRId64, id);
}

static void add_resources(struct gm_analysis *a, struct resources *res,
			  struct gm_db *db, const struct gm_an_run *r,
			  const struct krow *k, size_t n)
{
	struct shape_key *keys = gm_xmalloc((n ? n : 1) * sizeof(*keys));
	struct strbuf key = STRBUF_INIT;

	for (size_t i = 0; i < n; i++) {
		keys[i] = (struct shape_key){ k[i].name, k[i].shape.grid_blocks,
			k[i].shape.threads_per_block, k[i].shape.regs_per_thread,
			k[i].shape.smem_per_block, k[i].program };
	}
	qsort(keys, n, sizeof(*keys), cmp_shape);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		int64_t row;
		while (j < n && !cmp_shape(&keys[i], &keys[j])) {
			j++;
		}
		const struct shape_key *s = &keys[i];
		const char *prog = r->progs[s->program].name;
		strbuf_reset(&key);
		strbuf_addf(&key, "%s%c%s%c%" PRId64 "%c%" PRId64 "%c%" PRId64
			    "%c%" PRId64 "%c%" PRId64, r->device_name, 31, prog, 31,
			    s->name, 31, s->grid, 31, s->tpb, 31, s->regs, 31,
			    s->smem);
		if (!gm_strmap_get(&res->index, key.buf, &row)) {
			GM_ALLOC_GROW(a->resources, a->nresources + 1, res->alloc);
			struct gm_an_resource *x = &a->resources[a->nresources];
			struct gm_kernel_shape shape = { s->grid, s->tpb, s->regs,
							 s->smem };
			struct gm_residency rs;
			memset(x, 0, sizeof(*x));
			x->device = gm_xstrdup(r->device_name);
			x->program = gm_xstrdup(prog);
			x->kernel = string_id(db, res->name, s->name);
			x->grid = s->grid;
			x->tpb = s->tpb;
			x->regs = s->regs;
			x->smem = s->smem;
			gm_residency_compute(&r->dev, &shape, &rs);
			x->fits = rs.fits;
			x->limiting = rs.limiting;
			double sms = r->dev.sm_count;
			x->t = rs.threads / (sms * r->dev.max_threads_per_sm);
			x->r = rs.regs / (sms * r->dev.regs_per_sm);
			x->s = r->dev.smem_per_sm
				? rs.smem / (sms * (double)r->dev.smem_per_sm) : 0;
			x->b = rs.blocks / (sms * r->dev.max_blocks_per_sm);
			row = (int64_t)a->nresources++;
			gm_strmap_put(&res->index, key.buf, row);
		}
		a->resources[row].instances += (int64_t)(j - i);
		i = j;
	}
	strbuf_release(&key);
	free(keys);
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

static void count_names(struct gm_an_run *r, const struct krow *k, size_t n)
{
	int64_t *ids = gm_xmalloc((n ? n : 1) * sizeof(*ids));

	for (size_t i = 0; i < n; i++) {
		ids[i] = k[i].name;
	}
	qsort(ids, n, sizeof(*ids), cmp_i64);
	for (size_t i = 0; i < n;) {
		size_t j = i;
		while (j < n && ids[j] == ids[i]) {
			j++;
		}
		r->names = gm_xrealloc(r->names, (r->nnames + 1) * sizeof(*r->names));
		r->names[r->nnames][0] = ids[i];
		r->names[r->nnames++][1] = (int64_t)(j - i);
		i = j;
	}
	free(ids);
}

static int analyse_run(struct gm_analysis *a, struct gm_db *db,
		       struct gm_an_run *r, struct pool *pool,
		       struct resources *res, int want_resources)
{
	struct krow *k = NULL;
	struct api_start *api = NULL;
	size_t n, napi, nw = 0;
	struct gm_interval *iv = NULL;
	unsigned char *cat = NULL;
	int64_t *amount[GM_UTIL_KINDS] = { NULL };
	double *waits = NULL, split_sum[GM_WAIT_SPLITS] = { 0 };
	size_t split_n = 0;
	int ret = -1;

	if (load_kernels(db, r, &k, &n, &r->no_ts) ||
	    load_api(db, r->id, &api, &napi)) {
		goto out;
	}
	iv = gm_xmalloc((n ? n : 1) * sizeof(*iv));
	cat = gm_xmalloc(n ? n : 1);
	waits = gm_xmalloc((n ? n : 1) * sizeof(*waits));
	for (int u = 0; u < GM_UTIL_KINDS; u++) {
		amount[u] = gm_xmalloc((n ? n : 1) * sizeof(int64_t));
	}
	for (size_t i = 0; i < n; i++) {
		int64_t api_start;
		struct gm_residency rs;

		iv[i].start = k[i].start;
		iv[i].end = k[i].end;
		if (find_api(api, napi, k[i].corr, &api_start)) {
			waits[nw++] = (double)(k[i].start - api_start);
			if (k[i].queued && k[i].submitted) {
				split_sum[GM_WAIT_API_QUEUED] +=
					(double)(k[i].queued - api_start);
				split_sum[GM_WAIT_QUEUED_SUBMITTED] +=
					(double)(k[i].submitted - k[i].queued);
				split_sum[GM_WAIT_SUBMITTED_START] +=
					(double)(k[i].start - k[i].submitted);
				split_n++;
			}
		} else {
			r->no_api++;
		}
		gm_residency_compute(&r->dev, &k[i].shape, &rs);
		if (!rs.fits) {
			r->no_fit++;
		}
		amount[GM_UTIL_THREADS][i] = rs.threads;
		amount[GM_UTIL_REGISTERS][i] = rs.regs;
		amount[GM_UTIL_SHARED][i] = rs.smem;
		amount[GM_UTIL_BLOCKS][i] = rs.blocks;
	}

	/* Pool the waits into the variant before they are sorted. */
	GM_ALLOC_GROW(pool->waits, pool->n + nw, pool->alloc);
	memcpy(pool->waits + pool->n, waits, nw * sizeof(*waits));
	pool->n += nw;
	for (int s = 0; s < GM_WAIT_SPLITS; s++) {
		pool->split_sum[s] += split_sum[s];
	}
	pool->split_n += split_n;
	wait_stats(&r->wait, waits, nw, split_sum, split_n);

	gm_overlap_classify(iv, n, cat);
	for (size_t i = 0; i < n; i++) {
		r->cat_ns[cat[i]] += (double)(k[i].end - k[i].start);
		r->cat_n[cat[i]]++;
	}

	int64_t t0 = r->span_start, t1 = r->span_end;
	if (t1 <= t0 && n) {
		/* No replays: the kernels' own span. */
		t0 = k[0].start;
		t1 = k[0].end;
		for (size_t i = 1; i < n; i++) {
			t0 = k[i].start < t0 ? k[i].start : t0;
			t1 = k[i].end > t1 ? k[i].end : t1;
		}
		r->span_start = t0;
		r->span_end = t1;
	}
	int64_t sms = r->dev.sm_count;
	const int64_t caps[GM_UTIL_KINDS] = {
		sms * r->dev.max_threads_per_sm, sms * r->dev.regs_per_sm,
		sms * (int64_t)r->dev.smem_per_sm, sms * r->dev.max_blocks_per_sm,
	};
	r->running = gm_running_average(iv, n, t0, t1);
	if (!isnan(r->running)) {
		pool->run_sum += r->running;
		pool->run_n++;
	}
	for (int u = 0; u < GM_UTIL_KINDS; u++) {
		r->util[u] = gm_utilization(iv, amount[u], n, caps[u], t0, t1);
		if (!isnan(r->util[u])) {
			pool->util_sum[u] += r->util[u];
			pool->util_n[u]++;
		}
	}
	count_names(r, k, n);
	if (want_resources) {
		add_resources(a, res, db, r, k, n);
	}
	ret = 0;
out:
	free(k);
	free(api);
	free(iv);
	free(cat);
	free(waits);
	for (int u = 0; u < GM_UTIL_KINDS; u++) {
		free(amount[u]);
	}
	return ret;
}

static void per_variant(struct gm_analysis *a, struct pool *pools)
{
	for (size_t v = 0; v < a->nvariants; v++) {
		struct gm_an_variant *var = &a->variants[v];
		struct pool *p = &pools[v];
		wait_stats(&var->wait, p->waits, p->n, p->split_sum, p->split_n);
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

static const struct gm_an_run *cuda_run(const struct gm_analysis *a,
					const struct gm_an_run *r)
{
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *c = &a->runs[i];
		if (c->ok && !strcmp(c->vlabel, "cuda") &&
		    !strcmp(c->workload, r->workload)) {
			return c;
		}
	}
	return NULL;
}

static void summarize(struct gm_analysis *a)
{
	size_t alloc = 0;
	int have_cuda = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		have_cuda |= a->runs[i].ok && !strcmp(a->runs[i].vlabel, "cuda");
	}
	for (size_t v = 0; v < a->nvariants; v++) {
		const char *label = a->variants[v].label;
		if (!strcmp(label, "single")) {
			continue;
		}
		/* One row per workload size (2-program, 4-program, ...). */
		size_t sizes[64], nsizes = 0;
		for (size_t i = 0; i < a->nruns; i++) {
			const struct gm_an_run *r = &a->runs[i];
			size_t s;
			if (r->vindex != v || !r->ok) {
				continue;
			}
			for (s = 0; s < nsizes && sizes[s] != r->nprog; s++) {
			}
			if (s == nsizes && nsizes < 64) {
				sizes[nsizes++] = r->nprog;
			}
		}
		for (size_t s = 0; s < nsizes; s++) {
			double *stp = gm_xcalloc(a->nruns + 1, sizeof(double));
			double *antt = gm_xcalloc(a->nruns + 1, sizeof(double));
			double *cstp = gm_xcalloc(a->nruns + 1, sizeof(double));
			double *vstp = gm_xcalloc(a->nruns + 1, sizeof(double));
			double *cantt = gm_xcalloc(a->nruns + 1, sizeof(double));
			double *vantt = gm_xcalloc(a->nruns + 1, sizeof(double));
			double *mt = gm_xcalloc(a->nruns + 1, sizeof(double));
			size_t n = 0, nc = 0, nmt = 0;
			GM_ALLOC_GROW(a->summary, a->nsummary + 1, alloc);
			struct gm_an_summary *row = &a->summary[a->nsummary++];
			memset(row, 0, sizeof(*row));
			row->programs = sizes[s];
			row->vlabel = label;
			row->stp_best = row->antt_worst = NAN;
			for (size_t i = 0; i < a->nruns; i++) {
				const struct gm_an_run *r = &a->runs[i], *c;
				if (r->vindex != v || !r->ok || r->nprog != sizes[s]) {
					continue;
				}
				if (!isnan(r->stp)) {
					stp[n] = r->stp;
					antt[n++] = r->antt;
					if (isnan(row->stp_best) || r->stp > row->stp_best) {
						row->stp_best = r->stp;
					}
					if (isnan(row->antt_worst) || r->antt > row->antt_worst) {
						row->antt_worst = r->antt;
					}
				}
				c = cuda_run(a, r);
				if (c && !isnan(r->stp) && !isnan(c->stp)) {
					cstp[nc] = c->stp;
					vstp[nc] = r->stp;
					cantt[nc] = c->antt;
					vantt[nc++] = r->antt;
				}
				if (!isnan(r->mtspeedup)) {
					mt[nmt++] = r->mtspeedup;
				}
			}
			row->workloads = n;
			row->stp_geo = gm_geomean(stp, n);
			row->antt_geo = gm_geomean(antt, n);
			row->common = nc;
			row->stp_imp = gm_geomean(vstp, nc) / gm_geomean(cstp, nc);
			row->antt_imp = gm_geomean(cantt, nc) / gm_geomean(vantt, nc);
			row->mt_n = nmt;
			row->mtspeedup = gm_geomean(mt, nmt);
			free(stp);
			free(antt);
			free(cstp);
			free(vstp);
			free(cantt);
			free(vantt);
			free(mt);
		}
	}
	if (!have_cuda && a->nsummary) {
		add_note(a, "no `cuda` run: improvements over cuda and MTSpeedup"
			 " are not computed");
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

/* Resolve --kernel to a shortName id. Returns 0, or -1 when unknown. */
static int resolve_kernel(struct gm_analysis *a, struct gm_db *db,
			  const char *name, int64_t *id)
{
	sqlite3_stmt *st;
	int64_t sid = -1;
	int rc;

	if (gm_db_prepare(db, &st, "SELECT id FROM StringIds WHERE value = ?1")) {
		return -1;
	}
	sqlite3_bind_text(st, 1, name, -1, SQLITE_STATIC);
	rc = GM_SQL(db->sql, sqlite3_step(st));
	if (rc == SQLITE_ROW) {
		sid = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		return -1;
	}
	for (size_t i = 0; sid >= 0 && i < a->nruns; i++) {
		for (size_t j = 0; j < a->runs[i].nnames; j++) {
			if (a->runs[i].names[j][0] == sid) {
				*id = sid;
				return 0;
			}
		}
	}
	if (sid >= 0) {
		if (gm_db_prepare(db, &st, "SELECT shortName FROM"
				  " CUPTI_ACTIVITY_KIND_KERNEL WHERE"
				  " demangledName = ?1 OR mangledName = ?1 LIMIT 1")) {
			return -1;
		}
		sqlite3_bind_int64(st, 1, sid);
		rc = GM_SQL(db->sql, sqlite3_step(st));
		if (rc == SQLITE_ROW) {
			*id = sqlite3_column_int64(st, 0);
		}
		sqlite3_finalize(st);
		if (rc == SQLITE_ROW) {
			return 0;
		}
		if (rc < 0) {
			return -1;
		}
	}
	gm_error("no kernel called '%s' in '%s'", name, db->path);
	gm_error_hint("name it as the resource table shows it (its short name),"
		      " or give the demangled or mangled name");
	return -1;
}

static int64_t name_count(const struct gm_an_run *r, int64_t id)
{
	for (size_t j = 0; j < r->nnames; j++) {
		if (r->names[j][0] == id) {
			return r->names[j][1];
		}
	}
	return 0;
}

static int choose_focus(struct gm_analysis *a, struct gm_db *db,
			const struct gm_analysis_options *opt)
{
	int64_t kid = -1;
	const struct gm_an_run *run = NULL;
	struct krow *k = NULL;
	size_t n, no_ts;

	if (opt->run) {
		for (size_t i = 0; i < a->nruns; i++) {
			if (!strcmp(a->runs[i].label, opt->run)) {
				run = &a->runs[i];
			}
		}
		if (!run) {
			gm_error("no run '%s' in '%s'", opt->run, db->path);
			gm_error_hint("runs are named workload.variant[.policy];"
				      " the runs table lists them");
			return -1;
		}
	}
	if (opt->kernel) {
		if (resolve_kernel(a, db, opt->kernel, &kid)) {
			return -1;
		}
	} else {
		/* The kernel with the most instances in concurrent runs. */
		int64_t (*tot)[2] = NULL;
		size_t ntot = 0;
		for (int pass = 0; pass < 2 && !ntot; pass++) {
			for (size_t i = 0; i < a->nruns; i++) {
				const struct gm_an_run *r = &a->runs[i];
				if (!r->ok || (run && r != run) ||
				    (pass == 0 && r->single)) {
					continue;
				}
				for (size_t j = 0; j < r->nnames; j++) {
					size_t t;
					for (t = 0; t < ntot && tot[t][0] != r->names[j][0]; t++) {
					}
					if (t == ntot) {
						tot = gm_xrealloc(tot, (ntot + 1) * sizeof(*tot));
						tot[ntot][0] = r->names[j][0];
						tot[ntot++][1] = 0;
					}
					tot[t][1] += r->names[j][1];
				}
			}
		}
		int64_t most = 0;
		for (size_t t = 0; t < ntot; t++) {
			/* Ties: the name stored first (smallest id). */
			if (tot[t][1] > most ||
			    (tot[t][1] == most && tot[t][0] < kid)) {
				most = tot[t][1];
				kid = tot[t][0];
			}
		}
		free(tot);
	}
	if (kid < 0) {
		return 0;
	}
	if (!run) {
		int64_t best = 0;
		for (int pass = 0; pass < 2 && !run; pass++) {
			for (size_t i = 0; i < a->nruns; i++) {
				const struct gm_an_run *r = &a->runs[i];
				int64_t c = name_count(r, kid);
				if (r->ok && (pass || !r->single) && c > best) {
					best = c;
					run = r;
				}
			}
		}
	}
	sqlite3_stmt *st;
	if (gm_db_prepare(db, &st, "SELECT value FROM StringIds WHERE id = ?1")) {
		return -1;
	}
	a->focus_kernel = string_id(db, st, kid);
	sqlite3_finalize(st);
	if (!run) {
		add_note(a, "no run has instances of kernel '%s': no Fig. 7",
			 a->focus_kernel);
		return 0;
	}
	a->focus_run = run;
	if (load_kernels(db, run, &k, &n, &no_ts)) {
		return -1;
	}
	struct gm_interval *iv = gm_xmalloc((n ? n : 1) * sizeof(*iv));
	unsigned char *cat = gm_xmalloc(n ? n : 1);
	for (size_t i = 0; i < n; i++) {
		iv[i].start = k[i].start;
		iv[i].end = k[i].end;
	}
	gm_overlap_classify(iv, n, cat);
	a->focus = gm_xcalloc(n ? n : 1, sizeof(*a->focus));
	a->nfocus = n;
	for (size_t i = 0; i < n; i++) {
		a->focus[i].start = k[i].start;
		a->focus[i].end = k[i].end;
		a->focus[i].program = k[i].program;
		a->focus[i].category = cat[i];
		a->focus[i].chosen = k[i].name == kid;
		a->focus_instances += k[i].name == kid;
	}
	free(iv);
	free(cat);
	free(k);
	return 0;
}

int gm_analysis_compute(struct gm_analysis *a, struct gm_db *db,
			const struct gm_analysis_options *opt)
{
	struct pool *pools = NULL;
	struct resources res;
	int ret = -1, have_single = 0;

	memset(a, 0, sizeof(*a));
	memset(&res, 0, sizeof(res));
	if (load_runs(a, db)) {
		goto out;
	}
	make_variants(a);
	compute_stp(a);
	if (gm_db_prepare(db, &res.name, "SELECT value FROM StringIds WHERE id = ?1")) {
		goto out;
	}
	for (size_t i = 0; i < a->nruns; i++) {
		have_single |= a->runs[i].ok && a->runs[i].single;
	}
	a->resources_from_single = have_single;
	pools = gm_xcalloc(a->nvariants + 1, sizeof(*pools));
	for (size_t i = 0; i < a->nruns; i++) {
		struct gm_an_run *r = &a->runs[i];
		if (!r->ok) {
			const char *what = !strcmp(r->status, "hung") ? "hung" : "failed";
			if (r->failure) {
				add_note(a, "run '%s' %s (%s): left out of every metric",
					 r->label, what, r->failure);
			} else {
				add_note(a, "run '%s' %s: left out of every metric",
					 r->label, what);
			}
			continue;
		}
		if (analyse_run(a, db, r, &pools[r->vindex], &res,
				!have_single || r->single)) {
			goto out;
		}
		if (r->dropped) {
			add_note(a, "run '%s': CUPTI dropped %" PRId64 " activity"
				 " records: its kernel metrics are incomplete",
				 r->label, r->dropped);
		}
		if (r->no_api) {
			add_note(a, "run '%s': %zu kernel%s no launch call record"
				 " (left out of waiting time)", r->label, r->no_api,
				 r->no_api == 1 ? " has" : "s have");
		}
		if (r->no_ts) {
			add_note(a, "run '%s': %zu kernel%s no timestamps"
				 " (left out of the time metrics)", r->label, r->no_ts,
				 r->no_ts == 1 ? " has" : "s have");
		}
		if (r->no_fit) {
			add_note(a, "run '%s': %zu kernel instances do not fit one block"
				 " per SM under the manifest's limits (counted as"
				 " holding nothing)", r->label, r->no_fit);
		}
		if (r->nprog && r->kernel_count == 0) {
			add_note(a, "run '%s' has no kernel records", r->label);
		}
	}
	per_variant(a, pools);
	summarize(a);
	qsort(a->resources, a->nresources, sizeof(*a->resources), cmp_resource);
	if (choose_focus(a, db, opt)) {
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
		for (size_t j = 0; j < r->nprog; j++) {
			free(r->progs[j].name);
			free(r->progs[j].bundle);
		}
		free(r->progs);
		free(r->names);
	}
	free(a->runs);
	for (size_t v = 0; v < a->nvariants; v++) {
		free(a->variants[v].label);
	}
	free(a->variants);
	free(a->summary);
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
	free(a->focus_kernel);
	free(a->focus);
	memset(a, 0, sizeof(*a));
}
