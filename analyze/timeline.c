/* SPDX-License-Identifier: MIT */
/*
 * One run's timeline as Chrome trace-event JSON (see timeline.h). The
 * run's records are read once, the limits folded into one window, and
 * then written process by process: names first, then slices, flows and
 * replay markers.
 */
#include "timeline.h"

#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "metrics_overlap.h"
#include "sm_time.h"
#include "strbuf.h"
#include "trace_json.h"

static const char *const kind_names[GM_TL_KINDS] = {
	[GM_TL_KERNEL] = "kernel", [GM_TL_MEMCPY] = "memcpy",
	[GM_TL_MEMSET] = "memset", [GM_TL_API] = "api",
};

/*
 * The categories of Kineto's traces, which HTA selects on (the API's by
 * its domain: cuda_runtime or cuda_driver).
 */
static const char *const hta_names[GM_TL_KINDS] = {
	[GM_TL_KERNEL] = "kernel", [GM_TL_MEMCPY] = "gpu_memcpy",
	[GM_TL_MEMSET] = "gpu_memset", [GM_TL_API] = "cuda_runtime",
};

const char *gm_timeline_kind_name(enum gm_timeline_kind k)
{
	return k < GM_TL_KINDS ? kind_names[k] : "?";
}

/*
 * One record of any kind; v[] holds the kind's numbers (see queries), the
 * last two ids of its name and detail text, looked up only when the
 * record is written (most of a large run is not).
 */
struct rec {
	int64_t start, end, corr, track;	/* track: stream or thread id */
	int64_t v[11];
	int64_t name_id, detail_id;
	int prog;
	unsigned char kind, category, in;	/* in: inside the window */
};

struct replay {
	int64_t start, end, io, replay;
	int prog, kept;
};

struct tl {
	const struct gm_an_run *r;
	struct rec *recs;
	size_t n, alloc;
	struct replay *reps;
	size_t nreps, areps;
	size_t no_ts;
};

/*
 * Per kind: the query (programId, correlationId, start, end, track, the
 * kind's nv numbers into v[], the name's and the detail's ids) and the
 * lookups of those ids (id -> text; NULL: none). The API domain is text
 * in the table, so its query turns it into an id of the domains below.
 */
static const struct {
	enum gm_timeline_kind kind;
	int nv;
	const char *sql, *name_sql, *detail_sql;
} queries[] = {
	{ GM_TL_KERNEL, 11,
	  "SELECT programId, correlationId, start, end, streamId,"
	  " gridX, gridY, gridZ, blockX, blockY, blockZ,"
	  " registersPerThread, staticSharedMemory, dynamicSharedMemory,"
	  " queued, submitted, shortName, demangledName"
	  " FROM CUPTI_ACTIVITY_KIND_KERNEL WHERE runId = ?1",
	  "SELECT value FROM StringIds WHERE id = ?1",
	  "SELECT value FROM StringIds WHERE id = ?1" },
	{ GM_TL_MEMCPY, 1,
	  "SELECT programId, correlationId, start, end, streamId, bytes,"
	  " copyKind, copyKind FROM CUPTI_ACTIVITY_KIND_MEMCPY WHERE runId = ?1",
	  "SELECT 'memcpy ' || label FROM ENUM_CUDA_MEMCPY_OPER WHERE id = ?1",
	  "SELECT name FROM ENUM_CUDA_MEMCPY_OPER WHERE id = ?1" },
	{ GM_TL_MEMSET, 2,
	  "SELECT programId, correlationId, start, end, streamId, bytes, value,"
	  " 0, 0 FROM CUPTI_ACTIVITY_KIND_MEMSET WHERE runId = ?1",
	  "SELECT 'memset'", NULL },
	{ GM_TL_API, 1,
	  "SELECT programId, correlationId, start, end, globalTid, cbid,"
	  " nameId, domain = 'driver' FROM CUPTI_ACTIVITY_KIND_RUNTIME"
	  " WHERE runId = ?1",
	  "SELECT value FROM StringIds WHERE id = ?1",
	  "SELECT CASE ?1 WHEN 1 THEN 'driver' ELSE 'runtime' END" },
};

static int prog_index(const struct gm_an_run *r, int64_t id)
{
	for (size_t i = 0; i < r->nprog; i++) {
		if (r->progs[i].id == id) {
			return (int)i;
		}
	}
	return 0;
}

static int load(struct tl *t, struct gm_db *db)
{
	sqlite3_stmt *st = NULL;
	int rc = 0;

	for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
		int nv = queries[q].nv;
		if (gm_db_prepare(db, &st, queries[q].sql) ||
		    GM_SQL(db->sql, sqlite3_bind_int64(st, 1, t->r->id)) < 0) {
			sqlite3_finalize(st);
			return -1;
		}
		while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
			struct rec x;
			memset(&x, 0, sizeof(x));
			x.kind = queries[q].kind;
			x.prog = prog_index(t->r, sqlite3_column_int64(st, 0));
			x.corr = sqlite3_column_int64(st, 1);
			x.start = sqlite3_column_int64(st, 2);
			x.end = sqlite3_column_int64(st, 3);
			x.track = sqlite3_column_int64(st, 4);
			if (x.kind != GM_TL_API && !x.start && !x.end) {
				t->no_ts++;	/* as the metrics: no timestamps */
				continue;
			}
			for (int i = 0; i < nv; i++) {
				x.v[i] = sqlite3_column_int64(st, 5 + i);
			}
			x.name_id = sqlite3_column_int64(st, 5 + nv);
			x.detail_id = sqlite3_column_int64(st, 6 + nv);
			GM_ALLOC_GROW(t->recs, t->n + 1, t->alloc);
			t->recs[t->n++] = x;
		}
		sqlite3_finalize(st);
		if (rc < 0) {
			return -1;
		}
	}
	if (gm_db_prepare(db, &st, "SELECT programId, replay, start, end, io,"
			  " kept FROM replays WHERE runId = ?1 ORDER BY programId,"
			  " replay") ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 1, t->r->id)) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		struct replay p;
		p.prog = prog_index(t->r, sqlite3_column_int64(st, 0));
		p.replay = sqlite3_column_int64(st, 1);
		p.start = sqlite3_column_int64(st, 2);
		p.end = sqlite3_column_int64(st, 3);
		p.io = sqlite3_column_int64(st, 4);
		p.kept = (int)sqlite3_column_int64(st, 5);
		GM_ALLOC_GROW(t->reps, t->nreps + 1, t->areps);
		t->reps[t->nreps++] = p;
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

/* Overlap categories of the kernels, over the whole run (database.md). */
static void classify(struct tl *t)
{
	struct gm_interval *iv = gm_xmalloc((t->n + 1) * sizeof(*iv));
	unsigned char *cat = gm_xmalloc(t->n + 1);
	size_t *at = gm_xmalloc((t->n + 1) * sizeof(*at));
	size_t m = 0;

	for (size_t i = 0; i < t->n; i++) {
		if (t->recs[i].kind == GM_TL_KERNEL) {
			iv[m].start = t->recs[i].start;
			iv[m].end = t->recs[i].end;
			at[m++] = i;
		}
	}
	gm_overlap_classify(iv, m, cat);
	for (size_t i = 0; i < m; i++) {
		t->recs[at[i]].category = cat[i];
	}
	free(iv);
	free(cat);
	free(at);
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

/* Fold @lim into [*from, *to) (absolute ns). */
static void window(struct tl *t, const struct gm_timeline_limits *lim,
		   int64_t origin, int64_t *from, int64_t *to)
{
	*from = lim->from_ns >= 0 ? origin + lim->from_ns : INT64_MIN;
	*to = lim->to_ns >= 0 ? origin + lim->to_ns : INT64_MAX;
	if (lim->replays > 0 && t->nreps) {
		/* Where the slowest program finishes its N-th replay (or its
		 * last, when it has fewer); reps are by program, replay. */
		int64_t end = INT64_MIN;
		for (size_t i = 0; i < t->nreps; i++) {
			const struct replay *p = &t->reps[i];
			int last = i + 1 == t->nreps || t->reps[i + 1].prog != p->prog;
			if ((p->replay == lim->replays - 1 || (last && p->replay <
							       lim->replays - 1)) &&
			    p->end > end) {
				end = p->end;
			}
		}
		if (end != INT64_MIN && end < *to) {
			*to = end;
		}
	}
	if (lim->max_slices) {
		int64_t *s = gm_xmalloc((t->n + 1) * sizeof(*s));
		size_t m = 0;
		for (size_t i = 0; i < t->n; i++) {
			const struct rec *x = &t->recs[i];
			if (x->kind != GM_TL_API && x->start >= *from &&
			    x->start < *to) {
				s[m++] = x->start;
			}
		}
		if (m > lim->max_slices) {
			qsort(s, m, sizeof(*s), cmp_i64);
			*to = s[lim->max_slices];
		}
		free(s);
	}
}

/* A track: (program, is a stream, id) -> tid. */
struct track {
	int prog, stream;
	int64_t id, tid;
};

static int cmp_track(const void *x, const void *y)
{
	const struct track *a = x, *b = y;

	if (a->prog != b->prog) {
		return a->prog < b->prog ? -1 : 1;
	}
	if (a->stream != b->stream) {
		return a->stream < b->stream ? -1 : 1;
	}
	return a->id < b->id ? -1 : a->id > b->id;
}

static int64_t tid_of(const struct track *tr, size_t n, const struct rec *x)
{
	struct track key = { x->prog, x->kind != GM_TL_API, x->track, 0 };
	const struct track *f = bsearch(&key, tr, n, sizeof(*tr), cmp_track);

	return f ? f->tid : 0;
}

struct corr_ix {
	int64_t corr, start;
	size_t i;
};

static int cmp_corr(const void *x, const void *y)
{
	const struct corr_ix *a = x, *b = y;

	if (a->corr != b->corr) {
		return a->corr < b->corr ? -1 : 1;
	}
	return a->start < b->start ? -1 : a->start > b->start;
}

/* The launch call of @x: the first API record by start with its corr. */
static const struct rec *launch_call(const struct tl *t,
				     const struct corr_ix *ix, size_t n,
				     const struct rec *x)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (ix[mid].corr < x->corr) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < n && ix[lo].corr == x->corr ? &t->recs[ix[lo].i] : NULL;
}

static const char *category(enum gm_trace_format f, const struct rec *x,
			    const char *detail)
{
	if (f != GM_TRACE_HTA) {
		return kind_names[x->kind];
	}
	if (x->kind == GM_TL_API && !strcmp(detail, "driver")) {
		return "cuda_driver";
	}
	return hta_names[x->kind];
}

static void slice_args(struct strbuf *sb, const struct rec *x,
		       const char *detail, const struct rec *call,
		       enum gm_trace_format f)
{
	strbuf_reset(sb);
	switch ((enum gm_timeline_kind)x->kind) {
	case GM_TL_KERNEL:
		gm_tj_arg_str(sb, "kernel", detail);
		gm_tj_arg_str(sb, "overlap", gm_overlap_name(x->category));
		strbuf_addf(sb, ",\"grid\":[%lld,%lld,%lld],\"block\":"
			    "[%lld,%lld,%lld]", (long long)x->v[0],
			    (long long)x->v[1], (long long)x->v[2],
			    (long long)x->v[3], (long long)x->v[4],
			    (long long)x->v[5]);
		gm_tj_arg_int(sb, "registers_per_thread", x->v[6]);
		gm_tj_arg_int(sb, "static_shared_bytes", x->v[7]);
		gm_tj_arg_int(sb, "dynamic_shared_bytes", x->v[8]);
		if (call) {
			gm_tj_arg_double(sb, "waiting_us",
					 (double)(x->start - call->start) / 1e3);
		}
		break;
	case GM_TL_MEMCPY:
		gm_tj_arg_str(sb, "kind", detail);
		gm_tj_arg_int(sb, "bytes", x->v[0]);
		break;
	case GM_TL_MEMSET:
		gm_tj_arg_int(sb, "bytes", x->v[0]);
		gm_tj_arg_int(sb, "value", x->v[1]);
		break;
	case GM_TL_API:
		gm_tj_arg_str(sb, "domain", detail);
		gm_tj_arg_int(sb, "cbid", x->v[0]);
		break;
	case GM_TL_KINDS:
		break;
	}
	gm_tj_arg_int(sb, "correlation_id", x->corr);
	if (f == GM_TRACE_HTA) {
		/* Kineto's names: HTA joins calls and GPU work on them. */
		gm_tj_arg_int(sb, "correlation", x->corr);
		if (x->kind != GM_TL_API) {
			gm_tj_arg_int(sb, "stream", x->track);
			gm_tj_arg_int(sb, "device", 0);
		}
	}
}

static void other_data(struct strbuf *sb, const struct gm_an_run *r,
		       const struct gm_timeline_limits *lim, int64_t origin,
		       const struct gm_timeline_stats *s)
{
	struct strbuf o = STRBUF_INIT;

	gm_tj_arg_str(sb, "tool", "gpumix report");
	gm_tj_arg_str(sb, "run", r->label);
	gm_tj_arg_str(sb, "status", r->status);
	gm_tj_arg_str(sb, "device", r->device_name);
	gm_tj_arg_str(sb, "clock", "CUPTI (ns); ts 0 is origin_ns, the run's"
		      " first replay start or earlier record");
	/* A string: 2^53 and more, which a JavaScript number rounds. */
	strbuf_reset(&o);
	strbuf_addf(&o, "%lld", (long long)origin);
	gm_tj_arg_str(sb, "origin_ns", o.buf);
	strbuf_reset(&o);
	gm_tj_arg_double(sb, "window_from_us", s->from_ns / 1e3);
	if (s->to_ns >= 0) {
		gm_tj_arg_double(sb, "window_to_us", s->to_ns / 1e3);
	} else {
		gm_tj_arg_raw(sb, "window_to_us", "null");
	}
	gm_tj_arg_int(sb, "limit_replays", lim->replays);
	gm_tj_arg_int(sb, "limit_max_slices", (int64_t)lim->max_slices);
	strbuf_addch(&o, '{');
	for (int k = 0; k < GM_TL_KINDS; k++) {
		strbuf_addf(&o, "%s\"%s\":%zu", k ? "," : "", kind_names[k],
			    s->written[k]);
	}
	strbuf_addch(&o, '}');
	gm_tj_arg_raw(sb, "written", o.buf);
	strbuf_reset(&o);
	strbuf_addch(&o, '{');
	for (int k = 0; k < GM_TL_KINDS; k++) {
		strbuf_addf(&o, "%s\"%s\":%zu", k ? "," : "", kind_names[k],
			    s->left_out[k]);
	}
	strbuf_addch(&o, '}');
	gm_tj_arg_raw(sb, "left_out", o.buf);
	gm_tj_arg_int(sb, "left_out_no_timestamps", (int64_t)s->no_timestamps);
	if (s->sm_slices || s->sm_left_out) {
		gm_tj_arg_int(sb, "sm_slices", (int64_t)s->sm_slices);
		gm_tj_arg_int(sb, "sm_slices_left_out", (int64_t)s->sm_left_out);
	}
	strbuf_release(&o);
}

/* Prepared lookups of the names and details (queries[]), per kind. */
struct lookups {
	sqlite3_stmt *name[GM_TL_KINDS], *detail[GM_TL_KINDS];
};

static void lookups_release(struct lookups *l)
{
	for (int k = 0; k < GM_TL_KINDS; k++) {
		sqlite3_finalize(l->name[k]);
		sqlite3_finalize(l->detail[k]);
	}
}

static int lookups_prepare(struct lookups *l, struct gm_db *db)
{
	memset(l, 0, sizeof(*l));
	for (size_t q = 0; q < sizeof(queries) / sizeof(queries[0]); q++) {
		int k = queries[q].kind;
		if (gm_db_prepare(db, &l->name[k], queries[q].name_sql) ||
		    (queries[q].detail_sql &&
		     gm_db_prepare(db, &l->detail[k], queries[q].detail_sql))) {
			lookups_release(l);
			return -1;
		}
	}
	return 0;
}

/* The text of @id through @st (its one parameter), or "" without @st. */
static char *lookup(sqlite3_stmt *st, int64_t id)
{
	if (!st) {
		return gm_xstrdup("");
	}
	if (sqlite3_bind_parameter_count(st) == 0) {
		char *s = NULL;
		sqlite3_reset(st);
		if (sqlite3_step(st) == SQLITE_ROW) {
			s = gm_an_col_str(st, 0);
		}
		sqlite3_reset(st);
		return s ? s : gm_xstrdup("");
	}
	return gm_an_string(st, id);
}

/*
 * The block probe's SM tracks (process @pid: one track per SM and
 * program), for the part of [@from, @to) the run's blocks cover: the
 * segments of sm_time.h, at most GM_TIMELINE_MAX_SM_SLICES (the
 * earliest).
 */
static int sm_tracks(struct gm_db *db, const struct gm_an_run *r,
		     struct gm_trace_json *j, int64_t pid, int64_t from,
		     int64_t to, struct gm_timeline_stats *s)
{
	struct gm_sm_interval *v = NULL;
	struct gm_sm_segments seg = { 0 };
	struct gm_sm_time acc;
	struct strbuf name = STRBUF_INIT, args = STRBUF_INIT;
	sqlite3_stmt *st;
	size_t n = 0, alloc = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN;
	int rc, ret = -1;

	if (gm_db_prepare(db, &st, "SELECT b.sm, p.idx, b.start, b.end FROM"
			  " probe_blocks b JOIN programs p ON p.id = b.programId"
			  " WHERE b.runId = ?1") ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 1, r->id)) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		GM_ALLOC_GROW(v, n + 1, alloc);
		v[n] = (struct gm_sm_interval){ sqlite3_column_int(st, 0),
			sqlite3_column_int(st, 1), sqlite3_column_int64(st, 2),
			sqlite3_column_int64(st, 3) };
		lo = v[n].start < lo ? v[n].start : lo;
		hi = v[n].end > hi ? v[n].end : hi;
		n++;
	}
	sqlite3_finalize(st);
	if (rc < 0) {
		goto out;
	}
	from = from > lo ? from : lo;
	to = to < hi ? to : hi;
	if (!n || to <= from) {
		ret = 0;
		goto out;
	}
	if (gm_sm_time_compute(v, n, r->nprog, r->dev.sm_count, from, to, &acc,
			       &seg)) {
		goto out;
	}
	gm_sm_time_release(&acc);
	/* A track per SM and program, side by side: two programs' blocks
	 * on one SM overlap, which one track cannot nest. */
	gm_tj_process(j, pid, "SMs (block probe)", (int)pid);
	/* SM ids may reach beyond the SM count (%smid is not contiguous). */
	int64_t nr_sm = r->dev.sm_count;
	for (size_t i = 0; i < seg.n; i++) {
		nr_sm = seg.v[i].sm >= nr_sm ? seg.v[i].sm + 1 : nr_sm;
	}
	for (int64_t sm = 0; sm < nr_sm; sm++) {
		for (size_t p = 0; p < r->nprog; p++) {
			int64_t tid = sm * (int64_t)r->nprog + (int64_t)p + 1;
			strbuf_reset(&name);
			strbuf_addf(&name, "SM %lld %s", (long long)sm,
				    r->progs[p].name);
			gm_tj_thread(j, pid, tid, name.buf, (int)tid);
		}
	}
	for (size_t i = 0; i < seg.n; i++) {
		const struct gm_sm_interval *g = &seg.v[i];
		if (s->sm_slices == GM_TIMELINE_MAX_SM_SLICES) {
			s->sm_left_out++;
			continue;
		}
		strbuf_reset(&args);
		gm_tj_arg_int(&args, "sm", g->sm);
		gm_tj_arg_str(&args, "program", r->progs[g->program].name);
		gm_tj_slice(j, pid, (int64_t)g->sm * (int64_t)r->nprog +
				    g->program + 1, "probe",
			    r->progs[g->program].name, g->start, g->end,
			    args.buf);
		s->sm_slices++;
	}
	ret = 0;
out:
	free(v);
	free(seg.v);
	strbuf_release(&name);
	strbuf_release(&args);
	return ret;
}

static int write_json(struct tl *t, struct gm_db *db,
		      const struct gm_timeline_limits *lim,
		      struct lookups *lk, int64_t origin, int64_t from,
		      int64_t to, enum gm_trace_format format, struct strbuf *out,
		      struct gm_timeline_stats *s)
{
	int ret = 0;
	struct gm_trace_json j;
	struct strbuf args = STRBUF_INIT, name = STRBUF_INIT;
	struct track *tr = gm_xmalloc((t->n + 1) * sizeof(*tr));
	struct corr_ix *ix = gm_xmalloc((t->n + 1) * sizeof(*ix));
	size_t ntr = 0, nix = 0;
	const struct gm_an_run *r = t->r;

	for (size_t i = 0; i < t->n; i++) {
		struct rec *x = &t->recs[i];
		x->in = x->start >= from && x->start < to;
		(x->in ? s->written : s->left_out)[x->kind]++;
		if (x->kind == GM_TL_API) {
			ix[nix++] = (struct corr_ix){ x->corr, x->start, i };
		}
		if (x->in) {
			tr[ntr++] = (struct track){ x->prog, x->kind != GM_TL_API,
						    x->track, 0 };
		}
	}
	qsort(ix, nix, sizeof(*ix), cmp_corr);
	qsort(tr, ntr, sizeof(*tr), cmp_track);
	size_t u = 0;
	for (size_t i = 0; i < ntr; i++) {
		if (u && !cmp_track(&tr[u - 1], &tr[i])) {
			continue;
		}
		tr[u] = tr[i];
		/* Threads first, then streams, numbered from 1 per program. */
		tr[u].tid = u && tr[u - 1].prog == tr[u].prog ? tr[u - 1].tid + 1 : 1;
		u++;
	}
	ntr = u;

	gm_tj_begin_as(&j, out, origin, format);
	j.device = r->device_name;
	for (size_t p = 0; p < r->nprog; p++) {
		gm_tj_process(&j, (int64_t)p + 1, r->progs[p].name, (int)p);
	}
	for (size_t i = 0; i < ntr; i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "%s %lld", tr[i].stream ? "stream" : "thread",
			    (long long)tr[i].id);
		gm_tj_thread(&j, tr[i].prog + 1, tr[i].tid, name.buf,
			     (int)tr[i].tid);
	}
	for (size_t i = 0; i < t->n; i++) {
		const struct rec *x = &t->recs[i];
		const struct rec *call = NULL;
		int64_t tid;
		if (!x->in) {
			continue;
		}
		tid = tid_of(tr, ntr, x);
		if (x->kind != GM_TL_API) {
			call = launch_call(t, ix, nix, x);
		}
		char *nm = lookup(lk->name[x->kind], x->name_id);
		char *detail = lookup(lk->detail[x->kind], x->detail_id);
		if (format == GM_TRACE_HTA && (x->kind == GM_TL_MEMCPY ||
					       x->kind == GM_TL_MEMSET) &&
		    nm[0] == 'm') {
			nm[0] = 'M';	/* Kineto's "Memcpy ...": HTA's memory */
		}
		slice_args(&args, x, detail, call, format);
		gm_tj_slice(&j, x->prog + 1, tid, category(format, x, detail), nm,
			    x->start, x->end, args.buf);
		free(nm);
		free(detail);
		if (call && call->in) {
			if (format == GM_TRACE_HTA) {
				gm_tj_flow_id(&j, "ac2g", (uint64_t)x->corr,
					      call->prog + 1, tid_of(tr, ntr, call),
					      call->start, x->prog + 1, tid,
					      x->start);
			} else {
				gm_tj_flow(&j, "launch", call->prog + 1,
					   tid_of(tr, ntr, call), call->start,
					   x->prog + 1, tid, x->start);
			}
			s->flows++;
		}
	}
	for (size_t i = 0; i < t->nreps; i++) {
		const struct replay *p = &t->reps[i];
		for (int e = 0; e < 2; e++) {
			int64_t ts = e ? p->end : p->start;
			if (ts < from || ts >= to) {
				continue;
			}
			strbuf_reset(&name);
			strbuf_addf(&name, "replay %lld %s%s", (long long)p->replay,
				    e ? "end" : "start", p->kept ? "" : " (not kept)");
			strbuf_reset(&args);
			gm_tj_arg_int(&args, "replay", p->replay);
			gm_tj_arg_int(&args, "kept", p->kept);
			gm_tj_arg_int(&args, "io_ns", p->io);
			if (e) {
				gm_tj_arg_double(&args, "time_us",
						 (double)(p->end - p->start - p->io) / 1e3);
			}
			gm_tj_instant(&j, p->prog + 1, 0, "replay", name.buf, ts,
				      args.buf);
			s->replays += !e;
		}
	}
	if (r->probe && sm_tracks(db, r, &j, (int64_t)r->nprog + 1, from, to,
				  s) < 0) {
		ret = -1;
	}
	s->from_ns = from == INT64_MIN ? 0 : from - origin;
	s->to_ns = to == INT64_MAX ? -1 : to - origin;
	s->no_timestamps = t->no_ts;
	strbuf_reset(&args);
	other_data(&args, r, lim, origin, s);
	gm_tj_end(&j, args.buf);
	strbuf_release(&args);
	strbuf_release(&name);
	free(tr);
	free(ix);
	return ret;
}

int gm_timeline_run(struct gm_db *db, const struct gm_an_run *r,
		    const struct gm_timeline_limits *lim,
		    enum gm_trace_format format, struct strbuf *out,
		    struct gm_timeline_stats *stats)
{
	struct tl t;
	struct lookups lk;
	int64_t origin, from, to;
	int ret = -1;

	memset(&lk, 0, sizeof(lk));
	memset(&t, 0, sizeof(t));
	memset(stats, 0, sizeof(*stats));
	t.r = r;
	if (load(&t, db) || lookups_prepare(&lk, db)) {
		gm_error("cannot read the timeline of run '%s'", r->label);
		goto out;
	}
	classify(&t);
	/* The first replay start, or an earlier record's (a launch call
	 * made before it): no negative time in the file. */
	origin = t.nreps ? r->span_start : INT64_MAX;
	for (size_t i = 0; i < t.n; i++) {
		if (t.recs[i].start < origin) {
			origin = t.recs[i].start;
		}
	}
	if (origin == INT64_MAX) {
		origin = 0;
	}
	window(&t, lim, origin, &from, &to);
	if (write_json(&t, db, lim, &lk, origin, from, to, format, out, stats)) {
		gm_error("cannot read the SM tracks of run '%s'", r->label);
		goto out;
	}
	ret = 0;
out:
	lookups_release(&lk);
	free(t.recs);
	free(t.reps);
	return ret;
}
