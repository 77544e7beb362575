/* SPDX-License-Identifier: MIT */
/*
 * A bundle's timeline (see bundle_timeline.h): the events are read once
 * into slices (calls paired entry to exit per thread, GPU records as they
 * are), the GPU clock moved onto the tracer's per process, then written
 * like a run's timeline (analyze/timeline.c).
 */
#include "bundle_timeline.h"

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "trace_reader.h"

enum { S_CALL, S_KERNEL, S_MEMCPY, S_MEMSET, S_HOST };
static const char *const cat_name[] = { "call", "kernel", "memcpy", "memset",
					"host_func" };

/* Calls and host functions are on thread tracks, GPU work on streams. */
static int on_stream(int kind)
{
	return kind != S_CALL && kind != S_HOST;
}

struct slice {
	int64_t start, end;	/* tracer clock for calls, CUPTI for GPU */
	int64_t track;		/* tid or stream */
	int64_t v[6];
	uint32_t pid, corr;
	int32_t status;
	unsigned char kind, open, in;
	char *name, *runtime;	/* owned */
	int64_t tid_out;	/* the file's tid */
};

struct proc {
	uint32_t pid;
	int aligned;
	int64_t offset;		/* add to a CUPTI time for the tracer's */
	int64_t first_call, first_gpu;
	char *exe;		/* owned */
};

/* A runtime call's name by its correlation id (per process). */
struct rt_name {
	uint32_t pid, corr;
	char *name;
};

struct bt {
	struct slice *s;
	size_t n, alloc;
	struct proc *p;
	size_t np, palloc;
	struct rt_name *rt;
	size_t nrt, rtalloc;
	int64_t last_ns;
};

static struct proc *proc_of(struct bt *b, uint32_t pid)
{
	for (size_t i = 0; i < b->np; i++) {
		if (b->p[i].pid == pid) {
			return &b->p[i];
		}
	}
	GM_ALLOC_GROW(b->p, b->np + 1, b->palloc);
	memset(&b->p[b->np], 0, sizeof(b->p[0]));
	b->p[b->np].pid = pid;
	b->p[b->np].first_call = b->p[b->np].first_gpu = INT64_MAX;
	return &b->p[b->np++];
}

static struct slice *add_slice(struct bt *b)
{
	GM_ALLOC_GROW(b->s, b->n + 1, b->alloc);
	memset(&b->s[b->n], 0, sizeof(b->s[0]));
	return &b->s[b->n++];
}

static const char *runtime_name(const struct bt *b, uint32_t pid,
				uint32_t corr)
{
	for (size_t i = b->nrt; corr && i-- > 0;) {
		if (b->rt[i].pid == pid && b->rt[i].corr == corr) {
			return b->rt[i].name;
		}
	}
	return NULL;
}

/* The innermost open call of @pid/@tid (slices are few per thread open). */
static struct slice *open_call(struct bt *b, uint32_t pid, uint32_t tid)
{
	for (size_t i = b->n; i-- > 0;) {
		struct slice *s = &b->s[i];
		if (s->kind == S_CALL && s->open && s->pid == pid &&
		    s->track == tid) {
			return s;
		}
	}
	return NULL;
}

static void gpu_slice(struct bt *b, const struct gm_event *ev)
{
	struct slice *s = add_slice(b);
	struct proc *p = proc_of(b, ev->pid);

	s->pid = ev->pid;
	s->corr = ev->corr;
	if (ev->kind == GM_EV_ACT_KERNEL) {
		const struct gm_ev_act_kernel *k = GM_EVENT_AS(ev, act_kernel);
		s->kind = S_KERNEL;
		s->start = (int64_t)k->start;
		s->end = (int64_t)k->end;
		s->track = (int64_t)k->stream;
		s->v[0] = (int64_t)k->gridX;
		s->v[1] = (int64_t)k->gridY;
		s->v[2] = (int64_t)k->gridZ;
		s->v[3] = (int64_t)k->blockX;
		s->v[4] = (int64_t)k->blockY;
		s->v[5] = (int64_t)k->blockZ;
		s->name = gm_xstrdup(ev->str);
	} else if (ev->kind == GM_EV_ACT_MEMCPY) {
		const struct gm_ev_act_memcpy *m = GM_EVENT_AS(ev, act_memcpy);
		s->kind = S_MEMCPY;
		s->start = (int64_t)m->start;
		s->end = (int64_t)m->end;
		s->track = (int64_t)m->stream;
		s->v[0] = (int64_t)m->bytes;
		s->v[1] = (int64_t)m->copyKind;
		s->name = gm_xstrdup("memcpy");
	} else {
		const struct gm_ev_act_memset *m = GM_EVENT_AS(ev, act_memset);
		s->kind = S_MEMSET;
		s->start = (int64_t)m->start;
		s->end = (int64_t)m->end;
		s->track = (int64_t)m->stream;
		s->v[0] = (int64_t)m->bytes;
		s->v[1] = (int64_t)m->value;
		s->name = gm_xstrdup("memset");
	}
	if (s->start < p->first_gpu) {
		p->first_gpu = s->start;
	}
}

static int read_bundle(struct bt *b, struct trace_reader *r)
{
	const struct gm_event *ev;
	int rc;

	while ((rc = trace_reader_next(r, &ev)) > 0) {
		struct slice *s;
		struct proc *p;
		b->last_ns = ev->time_ns;
		switch (ev->kind) {
		case GM_EV_ENTER:
			s = add_slice(b);
			s->kind = S_CALL;
			s->open = 1;
			s->pid = ev->pid;
			s->track = ev->tid;
			s->corr = ev->corr;
			s->start = s->end = ev->time_ns;
			s->name = gm_xstrdup(gm_event_name(ev));
			if (runtime_name(b, ev->pid, ev->rt_corr)) {
				s->runtime = gm_xstrdup(runtime_name(b, ev->pid,
								     ev->rt_corr));
			}
			p = proc_of(b, ev->pid);
			if (ev->time_ns < p->first_call) {
				p->first_call = ev->time_ns;
			}
			break;
		case GM_EV_EXIT:
			s = open_call(b, ev->pid, ev->tid);
			if (s) {
				s->end = ev->time_ns;
				s->status = ev->status;
				s->open = 0;
			}
			break;
		case GM_EV_RT_ENTER:
			GM_ALLOC_GROW(b->rt, b->nrt + 1, b->rtalloc);
			b->rt[b->nrt].pid = ev->pid;
			b->rt[b->nrt].corr = ev->corr;
			b->rt[b->nrt++].name = gm_xstrdup(ev->str);
			break;
		case GM_EV_ACT_KERNEL:
		case GM_EV_ACT_MEMCPY:
		case GM_EV_ACT_MEMSET:
			gpu_slice(b, ev);
			break;
		case GM_EV_HOST_FUNC: {
			/* On the CUDA thread that ran it, in CUPTI's clock. */
			const struct gm_ev_host_func *h = GM_EVENT_AS(ev, host_func);
			s = add_slice(b);
			s->kind = S_HOST;
			s->pid = ev->pid;
			s->corr = ev->corr;
			s->track = ev->tid;
			s->start = (int64_t)h->start;
			s->end = (int64_t)h->end;
			s->name = gm_xstrdup(gm_event_name(ev));
			p = proc_of(b, ev->pid);
			if (s->start < p->first_gpu) {
				p->first_gpu = s->start;
			}
			break;
		}
		case GM_EV_PROCESS:
			p = proc_of(b, ev->pid);
			if (!p->aligned) {
				const struct gm_ev_process *e = GM_EVENT_AS(ev, process);
				p->aligned = 1;
				p->offset = ev->time_ns - (int64_t)e->cupti_ns;
				p->exe = gm_xstrdup(ev->str);
			}
			break;
		case GM_EV_RT_EXIT:
		case GM_EV_UNSUPPORTED:
		case GM_EV_D2H_HASH:
		case GM_EV_LAYOUT:
		case GM_EV_DEVICE:
		case GM_EV_HOSTMEM:
		case GM_EV_COUNT:
			/* No time span of their own on a timeline. */
			break;
		}
	}
	return rc;
}

/* Move GPU times onto the tracer clock; calls left open end at the end. */
static void place(struct bt *b, struct gm_bundle_timeline_stats *st)
{
	for (size_t i = 0; i < b->np; i++) {
		struct proc *p = &b->p[i];
		if (!p->aligned) {
			p->offset = p->first_gpu == INT64_MAX ? 0 :
				(p->first_call == INT64_MAX ? 0 : p->first_call) -
				p->first_gpu;
			st->unaligned += p->first_gpu != INT64_MAX;
		}
	}
	for (size_t i = 0; i < b->n; i++) {
		struct slice *s = &b->s[i];
		if (s->kind != S_CALL) {
			int64_t off = proc_of(b, s->pid)->offset;
			s->start += off;
			s->end += off;
		} else if (s->open) {
			s->end = b->last_ns;
			st->no_exit++;
		}
	}
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

/* The window [*from, *to) (absolute) from @lim, relative to @origin. */
static void window(struct bt *b, const struct gm_timeline_limits *lim,
		   int64_t origin, int64_t *from, int64_t *to)
{
	*from = lim->from_ns >= 0 ? origin + lim->from_ns : INT64_MIN;
	*to = lim->to_ns >= 0 ? origin + lim->to_ns : INT64_MAX;
	if (lim->max_slices) {
		int64_t *v = gm_xmalloc((b->n + 1) * sizeof(*v));
		size_t m = 0;
		for (size_t i = 0; i < b->n; i++) {
			if (b->s[i].start >= *from && b->s[i].start < *to) {
				v[m++] = b->s[i].start;
			}
		}
		if (m > lim->max_slices) {
			qsort(v, m, sizeof(*v), cmp_i64);
			*to = v[lim->max_slices];
		}
		free(v);
	}
}

struct track {
	uint32_t pid;
	int stream;
	int64_t id, tid;
};

static int cmp_track(const void *x, const void *y)
{
	const struct track *a = x, *b = y;

	if (a->pid != b->pid) {
		return a->pid < b->pid ? -1 : 1;
	}
	if (a->stream != b->stream) {
		return a->stream < b->stream ? -1 : 1;
	}
	return a->id < b->id ? -1 : a->id > b->id;
}

struct corr_ix {
	uint32_t pid, corr;
	size_t i;
};

static int cmp_corr(const void *x, const void *y)
{
	const struct corr_ix *a = x, *b = y;

	if (a->pid != b->pid) {
		return a->pid < b->pid ? -1 : 1;
	}
	if (a->corr != b->corr) {
		return a->corr < b->corr ? -1 : 1;
	}
	return a->i < b->i ? -1 : a->i > b->i;
}

static void args_of(const struct slice *s, struct strbuf *sb)
{
	strbuf_reset(sb);
	if (s->kind == S_CALL) {
		if (s->open) {
			gm_tj_arg_raw(sb, "no_exit", "true");
		} else {
			gm_tj_arg_int(sb, "status", s->status);
		}
		if (s->runtime) {
			gm_tj_arg_str(sb, "runtime_call", s->runtime);
		}
	} else if (s->kind == S_HOST) {
		/* the correlation id below names its call */
	} else if (s->kind == S_KERNEL) {
		strbuf_addf(sb, "\"grid\":[%lld,%lld,%lld],\"block\":[%lld,%lld,%lld]",
			    (long long)s->v[0], (long long)s->v[1],
			    (long long)s->v[2], (long long)s->v[3],
			    (long long)s->v[4], (long long)s->v[5]);
	} else {
		gm_tj_arg_int(sb, "bytes", s->v[0]);
		gm_tj_arg_int(sb, s->kind == S_MEMCPY ? "copy_kind" : "value",
			      s->v[1]);
	}
	gm_tj_arg_int(sb, "correlation_id", s->corr);
}

static void write_json(struct bt *b, const struct kvfile *m,
		       const char *dir, const struct gm_timeline_limits *lim,
		       enum gm_trace_format format, struct strbuf *out,
		       struct gm_bundle_timeline_stats *st)
{
	struct gm_trace_json j;
	struct strbuf args = STRBUF_INIT, name = STRBUF_INIT;
	struct track *tr = gm_xmalloc((b->n + 1) * sizeof(*tr));
	struct corr_ix *ix = gm_xmalloc((b->n + 1) * sizeof(*ix));
	size_t ntr = 0, nix = 0, u = 0;
	int64_t origin = INT64_MAX, from, to;

	for (size_t i = 0; i < b->n; i++) {
		origin = b->s[i].start < origin ? b->s[i].start : origin;
	}
	origin = origin == INT64_MAX ? 0 : origin;
	window(b, lim, origin, &from, &to);
	for (size_t i = 0; i < b->n; i++) {
		struct slice *s = &b->s[i];
		s->in = s->start >= from && s->start < to;
		if (!s->in) {
			st->left_out++;
			continue;
		}
		tr[ntr++] = (struct track){ s->pid, on_stream(s->kind), s->track,
					    0 };
		if (s->kind == S_CALL) {
			ix[nix++] = (struct corr_ix){ s->pid, s->corr, i };
		}
	}
	qsort(tr, ntr, sizeof(*tr), cmp_track);
	qsort(ix, nix, sizeof(*ix), cmp_corr);
	for (size_t i = 0; i < ntr; i++) {
		if (u && !cmp_track(&tr[u - 1], &tr[i])) {
			continue;
		}
		tr[u] = tr[i];
		tr[u].tid = u && tr[u - 1].pid == tr[u].pid ? tr[u - 1].tid + 1 : 1;
		u++;
	}
	ntr = u;

	gm_tj_begin_as(&j, out, origin, format);
	for (size_t i = 0; i < b->np; i++) {
		const char *exe = b->p[i].exe ? b->p[i].exe : kvfile_get(m, "program");
		const char *base = exe ? strrchr(exe, '/') : NULL;
		strbuf_reset(&name);
		strbuf_addf(&name, "%s (pid %u)", base ? base + 1 : exe ? exe : "process",
			    b->p[i].pid);
		gm_tj_process(&j, b->p[i].pid, name.buf, (int)i);
	}
	for (size_t i = 0; i < ntr; i++) {
		strbuf_reset(&name);
		strbuf_addf(&name, "%s %lld", tr[i].stream ? "stream" : "thread",
			    (long long)tr[i].id);
		gm_tj_thread(&j, tr[i].pid, tr[i].tid, name.buf, (int)tr[i].tid);
	}
	for (size_t i = 0; i < b->n; i++) {
		struct slice *s = &b->s[i];
		struct track key = { s->pid, on_stream(s->kind), s->track, 0 };
		const struct track *t;
		if (!s->in) {
			continue;
		}
		t = bsearch(&key, tr, ntr, sizeof(*tr), cmp_track);
		s->tid_out = t ? t->tid : 0;
	}
	for (size_t i = 0; i < b->n; i++) {
		const struct slice *s = &b->s[i];
		if (!s->in) {
			continue;
		}
		args_of(s, &args);
		gm_tj_slice(&j, s->pid, s->tid_out, cat_name[s->kind], s->name,
			    s->start, s->end, args.buf);
		if (s->kind == S_CALL) {
			st->calls++;
			continue;
		}
		if (s->kind == S_HOST) {
			st->host++;
		} else {
			st->gpu++;
		}
		/* The first call of the process with this correlation id. */
		struct corr_ix key = { s->pid, s->corr, 0 };
		size_t lo = 0, hi = nix;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (cmp_corr(&ix[mid], &key) < 0) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		if (s->corr && lo < nix && ix[lo].pid == s->pid &&
		    ix[lo].corr == s->corr) {
			const struct slice *c = &b->s[ix[lo].i];
			gm_tj_flow(&j, "launch", c->pid, c->tid_out, c->start,
				   s->pid, s->tid_out, s->start);
			st->flows++;
		}
	}
	strbuf_reset(&args);
	gm_tj_arg_str(&args, "tool", "gpumix trace export");
	gm_tj_arg_str(&args, "bundle", dir);
	gm_tj_arg_str(&args, "complete", kvfile_get(m, "complete") ?
		      kvfile_get(m, "complete") : "unknown");
	gm_tj_arg_str(&args, "losses", kvfile_get(m, "losses") ?
		      kvfile_get(m, "losses") : "unknown");
	gm_tj_arg_str(&args, "clock", "tracer (ns); GPU records moved from"
		      " CUPTI's clock by each process event");
	{
		/* A string: 2^53 and more, which a JavaScript number rounds. */
		char o[32];
		snprintf(o, sizeof(o), "%lld", (long long)origin);
		gm_tj_arg_str(&args, "origin_ns", o);
	}
	gm_tj_arg_int(&args, "unaligned_processes", (int64_t)st->unaligned);
	gm_tj_arg_double(&args, "window_from_us",
			 from == INT64_MIN ? 0 : (from - origin) / 1e3);
	if (to == INT64_MAX) {
		gm_tj_arg_raw(&args, "window_to_us", "null");
	} else {
		gm_tj_arg_double(&args, "window_to_us", (to - origin) / 1e3);
	}
	gm_tj_arg_int(&args, "limit_max_slices", (int64_t)lim->max_slices);
	strbuf_reset(&name);
	strbuf_addf(&name, "{\"call\":%zu,\"gpu\":%zu", st->calls, st->gpu);
	if (st->host) {
		strbuf_addf(&name, ",\"host_func\":%zu", st->host);
	}
	strbuf_addch(&name, '}');
	gm_tj_arg_raw(&args, "written", name.buf);
	gm_tj_arg_int(&args, "left_out", (int64_t)st->left_out);
	gm_tj_arg_int(&args, "calls_without_exit", (int64_t)st->no_exit);
	gm_tj_end(&j, args.buf);
	strbuf_release(&args);
	strbuf_release(&name);
	free(tr);
	free(ix);
}

int gm_bundle_timeline(const char *dir, const struct gm_timeline_limits *lim,
		       enum gm_trace_format format, struct strbuf *out,
		       struct gm_bundle_timeline_stats *st)
{
	struct trace_reader *r = NULL;
	struct bt b;
	int ret = -1;

	memset(&b, 0, sizeof(b));
	memset(st, 0, sizeof(*st));
	if (trace_reader_open(&r, dir, GM_READER_ALLOW_INCOMPLETE |
					       GM_READER_ALLOW_LOSSY |
					       GM_READER_ALLOW_UNKNOWN)) {
		return -1;
	}
	if (read_bundle(&b, r) < 0) {
		gm_error("cannot export the timeline of '%s'", dir);
		goto out;
	}
	place(&b, st);
	write_json(&b, trace_reader_manifest(r), dir, lim, format, out, st);
	ret = 0;
out:
	for (size_t i = 0; i < b.n; i++) {
		free(b.s[i].name);
		free(b.s[i].runtime);
	}
	for (size_t i = 0; i < b.np; i++) {
		free(b.p[i].exe);
	}
	for (size_t i = 0; i < b.nrt; i++) {
		free(b.rt[i].name);
	}
	free(b.s);
	free(b.p);
	free(b.rt);
	trace_reader_free(r);
	return ret;
}
