/* SPDX-License-Identifier: MIT */
/*
 * SM-stretch curves (see stretch_curve.h).
 */
#include "stretch_curve.h"

#include <stdlib.h>
#include <string.h>

#include "activity_reader.h"
#include "error.h"
#include "run_reader.h"
#include "strbuf.h"

/* One kernel record inside a kept replay. */
struct krec {
	size_t replay;		/* index of its kept replay */
	int64_t start, dur;
	uint64_t blocks;	/* its (physical) grid */
	char *name;
};

struct krecs {
	struct krec *v;
	size_t nr, alloc, kept;
	unsigned sms;
	char *program;
};

static void krecs_release(struct krecs *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		free(r->v[i].name);
	}
	free(r->v);
	free(r->program);
	memset(r, 0, sizeof(*r));
}

static int by_time(const void *a, const void *b)
{
	const struct krec *x = a, *y = b;

	if (x->replay != y->replay) {
		return x->replay < y->replay ? -1 : 1;
	}
	return (x->start > y->start) - (x->start < y->start);
}

/* The kernel records of the kept replays of run @path, by replay and
 * start, into @r. */
static int read_run(const char *path, struct krecs *r)
{
	struct gm_run_dir run;
	struct gm_activity_reader rd;
	struct gm_activity a;
	size_t *kept_index = NULL;
	int ret = -1, got;

	memset(r, 0, sizeof(*r));
	memset(&rd, 0, sizeof(rd));
	if (gm_run_dir_read_alone(&run, path) < 0) {
		goto out;
	}
	if (run.sm_count <= 0) {
		gm_error("the run has no SM count");
		goto out;
	}
	kept_index = gm_xcalloc(run.nr_replays + 1, sizeof(*kept_index));
	for (size_t i = 0; i < run.nr_replays; i++) {
		kept_index[i] = run.replays[i].kept ? r->kept++ : (size_t)-1;
	}
	if (!r->kept) {
		gm_error("the run has no kept replay");
		goto out;
	}
	r->sms = (unsigned)run.sm_count;
	r->program = gm_xstrdup(run.programs[0].name);
	if (gm_activity_reader_open(&rd, &run) < 0) {
		goto out;
	}
	while ((got = gm_activity_reader_next(&rd, &a)) == 1) {
		long i;
		if (a.kind != GM_ACT_KERNEL || a.end <= a.start) {
			continue;
		}
		i = gm_run_kept_replay(&run, a.start, a.end);
		if (i < 0) {
			continue;
		}
		GM_ALLOC_GROW(r->v, r->nr + 1, r->alloc);
		r->v[r->nr].replay = kept_index[i];
		r->v[r->nr].start = a.start;
		r->v[r->nr].dur = a.end - a.start;
		r->v[r->nr].blocks = (uint64_t)a.grid[0] * a.grid[1] * a.grid[2];
		r->v[r->nr].name = gm_xstrdup(a.name);
		r->nr++;
	}
	if (got < 0) {
		goto out;
	}
	qsort(r->v, r->nr, sizeof(*r->v), by_time);
	ret = 0;
out:
	gm_activity_reader_close(&rd);
	gm_run_dir_release(&run);
	free(kept_index);
	if (ret < 0) {
		gm_error("cannot read the stretch run '%s'", path);
		krecs_release(r);
	}
	return ret;
}

static struct gm_stretch_kernel *find(struct gm_stretch *s,
				      const char *program, const char *kernel,
				      int add)
{
	struct gm_stretch_kernel *k;

	for (size_t i = 0; i < s->nr; i++) {
		if (!strcmp(s->kernels[i].program, program) &&
		    !strcmp(s->kernels[i].kernel, kernel)) {
			return &s->kernels[i];
		}
	}
	if (!add) {
		return NULL;
	}
	GM_ALLOC_GROW(s->kernels, s->nr + 1, s->alloc);
	k = &s->kernels[s->nr++];
	memset(k, 0, sizeof(*k));
	k->program = gm_xstrdup(program);
	k->kernel = gm_xstrdup(kernel);
	return k;
}

static int same_sms(struct gm_stretch *s, const struct krecs *r)
{
	if (s->sm_count && s->sm_count != r->sms) {
		return gm_error("the run has %u SMs, the runs before %u", r->sms,
				s->sm_count);
	}
	s->sm_count = r->sms;
	return 0;
}

int gm_stretch_add_identity(struct gm_stretch *s, const char *path)
{
	struct krecs r;

	if (read_run(path, &r) < 0) {
		return -1;
	}
	if (same_sms(s, &r) < 0) {
		gm_error("cannot read the stretch run '%s'", path);
		krecs_release(&r);
		return -1;
	}
	for (size_t i = 0; i < r.nr; i++) {
		struct gm_stretch_kernel *k = find(s, r.program, r.v[i].name, 1);
		if (r.v[i].replay == r.v[0].replay) {
			k->grids = gm_xrealloc(k->grids, (k->nr_grids + 1) *
						       sizeof(*k->grids));
			k->grids[k->nr_grids++] = r.v[i].blocks;
		}
		k->alone_ms += (double)r.v[i].dur / 1e6 / (double)r.kept;
	}
	krecs_release(&r);
	return 0;
}

void gm_stretch_add_point(struct gm_stretch *s, const char *program,
			  const char *kernel, unsigned k, size_t launches,
			  double time_ms, double round_ms)
{
	struct gm_stretch_kernel *kern = find(s, program, kernel, 1);
	size_t at = kern->nr;

	while (at && kern->pts[at - 1].k > k) {
		at--;
	}
	GM_ALLOC_GROW(kern->pts, kern->nr + 1, kern->alloc);
	memmove(&kern->pts[at + 1], &kern->pts[at],
		(kern->nr - at) * sizeof(*kern->pts));
	kern->pts[at].k = k;
	kern->pts[at].launches = launches;
	kern->pts[at].time_ms = time_ms;
	kern->pts[at].round_ms = round_ms;
	kern->nr++;
}

int gm_stretch_add_run(struct gm_stretch *s, const char *path, unsigned k,
		       size_t *exact)
{
	struct krecs r;
	size_t *pos = NULL, *n = NULL, replay = (size_t)-1, total = 0;
	double *time = NULL, *round = NULL;
	int ret = -1;

	if (read_run(path, &r) < 0) {
		return -1;
	}
	if (same_sms(s, &r) < 0) {
		goto out;
	}
	pos = gm_xcalloc(s->nr + 1, sizeof(*pos));
	n = gm_xcalloc(s->nr + 1, sizeof(*n));
	time = gm_xcalloc(s->nr + 1, sizeof(*time));
	round = gm_xcalloc(s->nr + 1, sizeof(*round));
	for (size_t i = 0; i < r.nr; i++) {
		const struct krec *e = &r.v[i];
		struct gm_stretch_kernel *kern = find(s, r.program, e->name, 0);
		size_t ki;
		uint64_t logical;
		if (!kern) {
			gm_error("kernel '%s' is not in the identity run",
				 e->name);
			goto out;
		}
		ki = (size_t)(kern - s->kernels);
		if (e->replay != replay) {
			memset(pos, 0, (s->nr + 1) * sizeof(*pos));
			replay = e->replay;
		}
		if (pos[ki] >= kern->nr_grids) {
			gm_error("kernel '%s' launches more than %zu times a "
				 "replay, as in the identity run", e->name,
				 kern->nr_grids);
			goto out;
		}
		logical = kern->grids[pos[ki]++];
		time[ki] += (double)e->dur / 1e6 / (double)r.kept;
		if (e->blocks == (uint64_t)k * r.sms && logical >= e->blocks) {
			/* exactly k on every SM: L / (k N_SM) rounds */
			round[ki] += (double)e->dur / 1e6 * (double)e->blocks /
				     (double)logical;
			n[ki]++;
			total++;
		}
	}
	for (size_t i = 0; i < s->nr; i++) {
		if (n[i] && !strcmp(s->kernels[i].program, r.program)) {
			gm_stretch_add_point(s, r.program, s->kernels[i].kernel,
					     k, n[i], time[i],
					     round[i] / (double)n[i]);
		}
	}
	if (exact) {
		*exact = total;
	}
	ret = 0;
out:
	if (ret < 0) {
		gm_error("cannot read the stretch run '%s'", path);
	}
	free(pos);
	free(n);
	free(time);
	free(round);
	krecs_release(&r);
	return ret;
}

/* T(k - 1) of @kern before point @p: 0 for k = 1, else the point k - 1,
 * or -1 when it was not measured. */
static double before(const struct gm_stretch_kernel *kern, size_t p)
{
	if (kern->pts[p].k == 1) {
		return 0;
	}
	if (p && kern->pts[p - 1].k == kern->pts[p].k - 1) {
		return kern->pts[p - 1].round_ms;
	}
	return -1;
}

static unsigned max_k(const struct gm_stretch *s, const char *program)
{
	unsigned m = 0;

	for (size_t i = 0; i < s->nr; i++) {
		const struct gm_stretch_kernel *k = &s->kernels[i];
		if (!strcmp(k->program, program) && k->nr &&
		    k->pts[k->nr - 1].k > m) {
			m = k->pts[k->nr - 1].k;
		}
	}
	return m;
}

static void write_md(const struct gm_stretch *s, FILE *md)
{
	for (size_t i = 0; i < s->nr; i++) {
		const char *prog = s->kernels[i].program;
		unsigned m = max_k(s, prog);
		int first = 1;

		for (size_t j = 0; j < i && first; j++) {
			first = strcmp(s->kernels[j].program, prog) != 0;
		}
		if (!first) {
			continue;
		}
		fprintf(md, "## %s: T(k) and TSM_str(k-1) (ms), k blocks on "
			"every one of %u SMs\n\n| kernel | alone |", prog,
			s->sm_count);
		for (unsigned k = 1; k <= m; k++) {
			fprintf(md, " k=%u |", k);
		}
		fputs("\n| --- | ---: |", md);
		for (unsigned k = 1; k <= m; k++) {
			fputs(" ---: |", md);
		}
		fputc('\n', md);
		for (size_t j = i; j < s->nr; j++) {
			const struct gm_stretch_kernel *kern = &s->kernels[j];
			size_t p = 0;
			if (strcmp(kern->program, prog)) {
				continue;
			}
			fprintf(md, "| %s | %.3f |", kern->kernel,
				kern->alone_ms);
			for (unsigned k = 1; k <= m; k++) {
				while (p < kern->nr && kern->pts[p].k < k) {
					p++;
				}
				if (p < kern->nr && kern->pts[p].k == k) {
					double b = before(kern, p);
					fprintf(md, " %.4f", kern->pts[p].round_ms);
					if (b >= 0) {
						fprintf(md, " (+%.4f)",
							kern->pts[p].round_ms - b);
					}
					fputs(" |", md);
				} else {
					fputs(" |", md);
				}
			}
			fputc('\n', md);
		}
		fputc('\n', md);
	}
}

void gm_stretch_write(const struct gm_stretch *s, FILE *csv, FILE *md)
{
	if (csv) {
		fputs("program,kernel,k,launches,time_ms,round_ms,stretch_ms,"
		      "linear_ms\n", csv);
		for (size_t i = 0; i < s->nr; i++) {
			const struct gm_stretch_kernel *kern = &s->kernels[i];
			double t1 = kern->nr && kern->pts[0].k == 1 ?
					    kern->pts[0].round_ms : -1;
			for (size_t p = 0; p < kern->nr; p++) {
				const struct gm_stretch_point *pt = &kern->pts[p];
				double b = before(kern, p);
				fprintf(csv, "%s,%s,%u,%zu,%.6f,%.6f,", kern->program,
					kern->kernel, pt->k, pt->launches,
					pt->time_ms, pt->round_ms);
				if (b >= 0) {
					fprintf(csv, "%.6f,", pt->round_ms - b);
				} else {
					fputc(',', csv);
				}
				if (t1 >= 0) {
					fprintf(csv, "%.6f\n", pt->k * t1);
				} else {
					fputc('\n', csv);
				}
			}
		}
	}
	if (md) {
		write_md(s, md);
	}
}

void gm_stretch_release(struct gm_stretch *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free(s->kernels[i].program);
		free(s->kernels[i].kernel);
		free(s->kernels[i].grids);
		free(s->kernels[i].pts);
	}
	free(s->kernels);
	memset(s, 0, sizeof(*s));
}
