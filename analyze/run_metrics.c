/* SPDX-License-Identifier: MIT */
/*
 * One run's kernel metrics (see analysis_priv.h): its kernels and launch
 * calls are read, the waiting times, overlap categories, running kernels
 * and utilization computed, the kernel shapes added to the resource
 * table, and everything dropped before the next run, so memory follows
 * the largest run, not the study.
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "metrics_util.h"
#include "stats.h"
#include "strbuf.h"

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
	/* (qsort and memcpy take no NULL array, even for zero items.) */
	if (*n) {
		qsort(*out, *n, sizeof(**out), cmp_api);
	}
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

static void add_resources(struct gm_analysis *a, struct gm_an_resources *res,
			  struct gm_db *db, const struct gm_an_run *r,
			  const struct gm_an_krow *k, size_t n)
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
			x->kernel = gm_an_string(res->name, s->name);
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

static void count_names(struct gm_an_run *r, const struct gm_an_krow *k, size_t n)
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

int gm_an_run_kernels(struct gm_analysis *a, struct gm_db *db,
		       struct gm_an_run *r, struct gm_an_pool *pool,
		       struct gm_an_resources *res, int want_resources)
{
	struct gm_an_krow *k = NULL;
	struct api_start *api = NULL;
	size_t n, napi, nw = 0;
	struct gm_interval *iv = NULL;
	unsigned char *cat = NULL;
	int64_t *amount[GM_UTIL_KINDS] = { NULL };
	double *waits = NULL, split_sum[GM_WAIT_SPLITS] = { 0 };
	size_t split_n = 0;
	int ret = -1;

	if (gm_an_load_kernels(db, r, &k, &n, &r->no_ts) ||
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
	if (nw) {
		GM_ALLOC_GROW(pool->waits, pool->n + nw, pool->alloc);
		memcpy(pool->waits + pool->n, waits, nw * sizeof(*waits));
		pool->n += nw;
	}
	for (int s = 0; s < GM_WAIT_SPLITS; s++) {
		pool->split_sum[s] += split_sum[s];
	}
	pool->split_n += split_n;
	gm_an_wait_stats(&r->wait, waits, nw, split_sum, split_n);

	gm_overlap_classify(iv, n, cat);
	for (size_t i = 0; i < n; i++) {
		r->cat_ns[cat[i]] += (double)(k[i].end - k[i].start);
		r->cat_n[cat[i]]++;
	}

	int64_t t0 = r->span_start, t1 = r->span_end;
	if (!r->nreplays && n) {
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
