/* SPDX-License-Identifier: MIT */
/*
 * Per run: the block probe's metrics, the replay's driver calls and the
 * waiting split (see analysis_priv.h, gm_an_run_probe()). The
 * definitions are doc/database.md's ("The block probe", "Waiting split",
 * "Driver calls").
 */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "demangle.h"
#include "strbuf.h"

static int prog_index(const struct gm_an_run *r, int64_t pid)
{
	for (size_t i = 0; i < r->nprog; i++) {
		if (r->progs[i].id == pid) {
			return (int)i;
		}
	}
	return -1;
}

static int prepare_run(struct gm_db *db, sqlite3_stmt **st, const char *sql,
		       int64_t run)
{
	if (gm_db_prepare(db, st, sql) ||
	    GM_SQL(db->sql, sqlite3_bind_int64(*st, 1, run)) < 0) {
		sqlite3_finalize(*st);
		*st = NULL;
		return -1;
	}
	return 0;
}

/* ---- launch call starts, by correlation id ---- */

struct corr_start {
	int64_t corr, start;
};

static int cmp_corr(const void *x, const void *y)
{
	const struct corr_start *a = x, *b = y;

	if (a->corr != b->corr) {
		return a->corr < b->corr ? -1 : 1;
	}
	return a->start < b->start ? -1 : a->start > b->start;
}

static int load_calls(struct gm_db *db, int64_t run, struct corr_start **out,
		      size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*out = NULL;
	*n = 0;
	if (prepare_run(db, &st, "SELECT correlationId, start FROM"
			" CUPTI_ACTIVITY_KIND_RUNTIME WHERE runId = ?1", run)) {
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
	if (*n) {
		qsort(*out, *n, sizeof(**out), cmp_corr);
	}
	return 0;
}

static int find_call(const struct corr_start *c, size_t n, int64_t corr,
		     int64_t *start)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c[mid].corr < corr) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	if (lo < n && c[lo].corr == corr) {
		*start = c[lo].start;
		return 1;
	}
	return 0;
}

/* ---- the waiting split ---- */

/* One GPU record: kernels are the ones whose wait is split. */
struct gpu_op {
	int program;
	int64_t stream, start, end, corr;
	int kernel;
};

static int cmp_op(const void *x, const void *y)
{
	const struct gpu_op *a = x, *b = y;

	if (a->program != b->program) {
		return a->program - b->program;
	}
	if (a->stream != b->stream) {
		return a->stream < b->stream ? -1 : 1;
	}
	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * Each kernel's wait (its start - its launch call's start) split at the
 * end of the work before it in its stream: the part before that end is
 * queued behind its own stream, the rest waiting for SMs.
 */
static int wait_split(struct gm_db *db, struct gm_an_run *r,
		      const struct corr_start *calls, size_t ncalls)
{
	static const char *const sql =
		"SELECT programId, streamId, start, end, correlationId, 1"
		" FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = ?1 AND end > 0"
		" UNION ALL SELECT programId, streamId, start, end, 0, 0"
		" FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE runId = ?1 AND end > 0"
		" UNION ALL SELECT programId, streamId, start, end, 0, 0"
		" FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE runId = ?1 AND end > 0";
	struct gpu_op *ops = NULL;
	size_t n = 0, alloc = 0;
	sqlite3_stmt *st;
	double *sum = gm_xcalloc(3 * (r->nprog + 1), sizeof(double));
	int rc;

	if (prepare_run(db, &st, sql, r->id)) {
		free(sum);
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		int p = prog_index(r, sqlite3_column_int64(st, 0));
		if (p < 0) {
			continue;
		}
		GM_ALLOC_GROW(ops, n + 1, alloc);
		ops[n++] = (struct gpu_op){ p, sqlite3_column_int64(st, 1),
			sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
			sqlite3_column_int64(st, 4), sqlite3_column_int(st, 5) };
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		free(ops);
		free(sum);
		return -1;
	}
	if (n) {
		qsort(ops, n, sizeof(*ops), cmp_op);
	}
	int64_t prev_end = 0;
	for (size_t i = 0; i < n; i++) {
		const struct gpu_op *o = &ops[i];
		int64_t call;
		if (i && (o->program != ops[i - 1].program ||
			  o->stream != ops[i - 1].stream)) {
			prev_end = 0;
		}
		if (o->kernel && find_call(calls, ncalls, o->corr, &call)) {
			int64_t ready = prev_end > call ? prev_end : call;
			int64_t own, wait = o->start - call;
			ready = ready < o->start ? ready : o->start;
			own = ready - call;
			struct gm_an_program *p = &r->progs[o->program];
			p->ws_n++;
			sum[3 * o->program] += (double)wait;
			sum[3 * o->program + 1] += (double)own;
			sum[3 * o->program + 2] += (double)(o->start - ready);
		}
		prev_end = o->end > prev_end ? o->end : prev_end;
	}
	for (size_t p = 0; p < r->nprog; p++) {
		struct gm_an_program *x = &r->progs[p];
		if (x->ws_n) {
			x->ws_wait = sum[3 * p] / (double)x->ws_n;
			x->ws_own = sum[3 * p + 1] / (double)x->ws_n;
			x->ws_sm = sum[3 * p + 2] / (double)x->ws_n;
		}
	}
	free(ops);
	free(sum);
	return 0;
}

/* ---- the block probe ---- */

/* The window every program replayed in, else the whole replay span. */
static int probe_window(struct gm_db *db, struct gm_an_run *r, int64_t *t0,
			int64_t *t1)
{
	sqlite3_stmt *st;
	int rc, any = 0;

	*t0 = INT64_MIN;
	*t1 = INT64_MAX;
	if (prepare_run(db, &st, "SELECT MIN(start), MAX(end) FROM replays"
			" WHERE runId = ?1 GROUP BY programId", r->id)) {
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		int64_t s = sqlite3_column_int64(st, 0);
		int64_t e = sqlite3_column_int64(st, 1);
		*t0 = s > *t0 ? s : *t0;
		*t1 = e < *t1 ? e : *t1;
		any = 1;
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		return -1;
	}
	if (!any || *t1 <= *t0) {
		*t0 = r->span_start;
		*t1 = r->span_end;
	}
	return 0;
}

static int cmp_seg(const void *x, const void *y)
{
	const struct gm_sm_interval *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

static int probe_sm_time(struct gm_db *db, struct gm_an_run *r,
			 struct gm_an_probe *pr)
{
	struct gm_sm_interval *v = NULL;
	size_t n = 0, alloc = 0;
	sqlite3_stmt *st;
	int rc, ret;

	if (prepare_run(db, &st, "SELECT sm, programId, start, end FROM"
			" probe_blocks WHERE runId = ?1", r->id)) {
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		GM_ALLOC_GROW(v, n + 1, alloc);
		v[n++] = (struct gm_sm_interval){ sqlite3_column_int(st, 0),
			prog_index(r, sqlite3_column_int64(st, 1)),
			sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3) };
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		free(v);
		return -1;
	}
	ret = gm_sm_time_compute(v, n, r->nprog, r->dev.sm_count, pr->t0, pr->t1,
				 &pr->sm, &pr->seg);
	if (!ret && pr->seg.n) {
		qsort(pr->seg.v, pr->seg.n, sizeof(*pr->seg.v), cmp_seg);
	}
	free(v);
	return ret;
}

struct launch_row {
	int program;
	int64_t name, corr, records, first, last, sms;
	char *why;
};

static int cmp_launch(const void *x, const void *y)
{
	const struct launch_row *a = x, *b = y;

	if (a->program != b->program) {
		return a->program - b->program;
	}
	return a->name < b->name ? -1 : a->name > b->name;
}

static char *short_name(struct gm_db *db, int64_t id)
{
	sqlite3_stmt *st;
	char *s = NULL, *dem, *shrt;

	if (gm_db_prepare(db, &st, "SELECT value FROM StringIds WHERE id = ?1")) {
		gm_error_clear();
		return gm_xstrdup("?");
	}
	sqlite3_bind_int64(st, 1, id);
	s = gm_an_string(st, id);
	sqlite3_finalize(st);
	dem = gm_demangle(s);
	shrt = gm_short_name(dem);
	free(s);
	free(dem);
	return shrt;
}

/* Per program and kernel: its launches' waits for SMs and the SMs. */
static int probe_kernels(struct gm_db *db, struct gm_an_run *r,
			 struct gm_an_probe *pr, const struct corr_start *calls,
			 size_t ncalls)
{
	static const char *const sql =
		"SELECT l.programId, l.mangledName, l.correlationId, l.records,"
		" l.notProbed, MIN(b.start), MAX(b.start), COUNT(DISTINCT b.sm)"
		" FROM probe_launches l LEFT JOIN probe_blocks b"
		" ON b.runId = l.runId AND b.launch = l.seq"
		" WHERE l.runId = ?1 GROUP BY l.seq";
	struct launch_row *l = NULL;
	size_t n = 0, alloc = 0;
	sqlite3_stmt *st;
	int rc;

	if (prepare_run(db, &st, sql, r->id)) {
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		int p = prog_index(r, sqlite3_column_int64(st, 0));
		if (p < 0) {
			continue;
		}
		GM_ALLOC_GROW(l, n + 1, alloc);
		l[n] = (struct launch_row){ p, sqlite3_column_int64(st, 1),
			sqlite3_column_int64(st, 2), sqlite3_column_int64(st, 3),
			sqlite3_column_int64(st, 5), sqlite3_column_int64(st, 6),
			sqlite3_column_int64(st, 7), NULL };
		if (sqlite3_column_type(st, 4) != SQLITE_NULL) {
			l[n].why = gm_an_col_str(st, 4);
		}
		n++;
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		goto fail;
	}
	if (n) {
		qsort(l, n, sizeof(*l), cmp_launch);
	}
	for (size_t i = 0; i < n;) {
		size_t j = i;
		struct gm_an_probe_kernel *k;
		double first = 0, last = 0, sms = 0;
		while (j < n && !cmp_launch(&l[i], &l[j])) {
			j++;
		}
		pr->k = gm_xrealloc(pr->k, (pr->nk + 1) * sizeof(*pr->k));
		k = &pr->k[pr->nk++];
		memset(k, 0, sizeof(*k));
		k->program = l[i].program;
		k->kernel = short_name(db, l[i].name);
		k->launches = j - i;
		k->sms_min = -1;
		for (size_t x = i; x < j; x++) {
			int64_t call;
			pr->launches++;
			if (!l[x].records) {
				if (!k->why && l[x].why) {
					k->why = gm_xstrdup(l[x].why);
				}
				continue;
			}
			k->probed++;
			pr->probed++;
			sms += (double)l[x].sms;
			if (k->sms_min < 0 || l[x].sms < k->sms_min) {
				k->sms_min = l[x].sms;
			}
			if (l[x].corr && find_call(calls, ncalls, l[x].corr, &call)) {
				first += (double)(l[x].first - call);
				last += (double)(l[x].last - call);
				k->nwait++;
			}
		}
		k->first_ns = k->nwait ? first / (double)k->nwait : NAN;
		k->last_ns = k->nwait ? last / (double)k->nwait : NAN;
		k->sms_mean = k->probed ? sms / (double)k->probed : NAN;
		i = j;
	}
	for (size_t i = 0; i < n; i++) {
		free(l[i].why);
	}
	free(l);
	return 0;
fail:
	for (size_t i = 0; i < n; i++) {
		free(l[i].why);
	}
	free(l);
	return -1;
}

static int probe(struct gm_db *db, struct gm_an_run *r,
		 const struct corr_start *calls, size_t ncalls)
{
	sqlite3_stmt *st;
	struct gm_an_probe *pr;
	int rc;

	if (prepare_run(db, &st, "SELECT clockOffset, blocks FROM probe_runs"
			" WHERE runId = ?1", r->id)) {
		return -1;
	}
	rc = GM_SQL(db->sql, sqlite3_step(st));
	if (rc != SQLITE_ROW) {
		sqlite3_finalize(st);
		return rc < 0 ? -1 : 0;	/* no probe */
	}
	pr = gm_xcalloc(1, sizeof(*pr));
	r->probe = pr;
	pr->offset_known = sqlite3_column_type(st, 0) != SQLITE_NULL;
	pr->clock_offset = sqlite3_column_int64(st, 0);
	pr->blocks = sqlite3_column_int64(st, 1);
	sqlite3_finalize(st);
	if (probe_window(db, r, &pr->t0, &pr->t1) ||
	    probe_kernels(db, r, pr, calls, ncalls)) {
		return -1;
	}
	if (pr->t1 > pr->t0 && probe_sm_time(db, r, pr)) {
		return -1;
	}
	return 0;
}

/* ---- driver calls ---- */

static int drivercalls(struct gm_db *db, struct gm_an_run *r)
{
	static const char *const sql =
		"SELECT d.programId, s.value, d.kind, d.count, d.totalNs, d.maxNs"
		" FROM drivercalls d JOIN StringIds s ON s.id = d.nameId"
		" WHERE d.runId = ?1 AND d.phase = 'replay'"
		" ORDER BY d.programId, d.totalNs DESC, s.value";
	sqlite3_stmt *st;
	int rc;

	if (prepare_run(db, &st, sql, r->id)) {
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		int p = prog_index(r, sqlite3_column_int64(st, 0));
		struct gm_an_drivercall *c;
		if (p < 0) {
			continue;
		}
		r->dc = gm_xrealloc(r->dc, (r->ndc + 1) * sizeof(*r->dc));
		c = &r->dc[r->ndc++];
		c->program = p;
		c->call = gm_an_col_str(st, 1);
		c->kind = gm_an_col_str(st, 2);
		c->count = sqlite3_column_int64(st, 3);
		c->total_ns = sqlite3_column_int64(st, 4);
		c->max_ns = sqlite3_column_int64(st, 5);
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

int gm_an_run_probe(struct gm_db *db, struct gm_an_run *r)
{
	struct corr_start *calls;
	size_t ncalls;
	int ret = -1;

	for (size_t p = 0; p < r->nprog; p++) {
		r->progs[p].ws_n = 0;
		r->progs[p].ws_wait = r->progs[p].ws_own = r->progs[p].ws_sm = NAN;
	}
	if (load_calls(db, r->id, &calls, &ncalls)) {
		return -1;
	}
	if (!wait_split(db, r, calls, ncalls) && !probe(db, r, calls, ncalls) &&
	    !drivercalls(db, r)) {
		ret = 0;
	}
	free(calls);
	return ret;
}

void gm_an_run_probe_release(struct gm_an_run *r)
{
	struct gm_an_probe *pr = r->probe;

	if (pr) {
		gm_sm_time_release(&pr->sm);
		free(pr->seg.v);
		for (size_t i = 0; i < pr->nk; i++) {
			free(pr->k[i].kernel);
			free(pr->k[i].why);
		}
		free(pr->k);
		free(pr);
		r->probe = NULL;
	}
	for (size_t i = 0; i < r->ndc; i++) {
		free(r->dc[i].call);
		free(r->dc[i].kind);
	}
	free(r->dc);
	r->dc = NULL;
	r->ndc = 0;
}
