/* SPDX-License-Identifier: MIT */
/*
 * The latency part of the study analysis (see analysis_priv.h): each
 * program's kept replay times are read from the replays table (the
 * discarded last replay is left out, as for T_MP), their percentiles
 * computed, and the slowdown taken against the program that gave its
 * alone time. Per workload size and variant label, the geometric mean and
 * the worst of the p99 slowdowns, and the same for the high-priority
 * programs of the priority variant.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "stats.h"
#include "strbuf.h"
#include "variant.h"

struct prog_ref {
	int64_t id;
	struct gm_an_program *p;
};

static int cmp_ref(const void *x, const void *y)
{
	int64_t a = ((const struct prog_ref *)x)->id;
	int64_t b = ((const struct prog_ref *)y)->id;

	return a < b ? -1 : a > b;
}

/* The programs of ok runs, sorted by id for the replay rows. */
static struct prog_ref *ok_programs(struct gm_analysis *a, size_t *n)
{
	struct prog_ref *refs;
	size_t count = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		count += a->runs[i].ok ? a->runs[i].nprog : 0;
	}
	refs = gm_xmalloc((count + 1) * sizeof(*refs));
	*n = 0;
	for (size_t i = 0; i < a->nruns; i++) {
		struct gm_an_run *r = &a->runs[i];
		for (size_t j = 0; r->ok && j < r->nprog; j++) {
			refs[(*n)++] = (struct prog_ref){ r->progs[j].id, &r->progs[j] };
		}
	}
	if (*n) {
		qsort(refs, *n, sizeof(*refs), cmp_ref);
	}
	return refs;
}

/* Percentiles of every program of the ok runs. */
static int percentiles(struct gm_analysis *a, struct gm_db *db)
{
	struct prog_ref *refs, *cur = NULL;
	sqlite3_stmt *st;
	double *t = NULL;
	size_t n, nt = 0, alloc = 0;
	int rc;

	refs = ok_programs(a, &n);
	for (size_t i = 0; i < n; i++) {
		gm_latency_from_times(&refs[i].p->lat, NULL, 0);
	}
	if (gm_db_prepare(db, &st, "SELECT programId, end - start - io"
			  " FROM replays WHERE kept = 1 ORDER BY programId")) {
		free(refs);
		return -1;
	}
	/* Rows come grouped by program: each group is one program's times. */
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		struct prog_ref key = { sqlite3_column_int64(st, 0), NULL };
		if (!cur || cur->id != key.id) {
			if (cur) {
				gm_latency_from_times(&cur->p->lat, t, nt);
			}
			nt = 0;
			cur = n ? bsearch(&key, refs, n, sizeof(*refs), cmp_ref)
				: NULL;
		}
		if (cur) {
			GM_ALLOC_GROW(t, nt + 1, alloc);
			t[nt++] = (double)sqlite3_column_int64(st, 1);
		}
	}
	if (cur && rc >= 0) {
		gm_latency_from_times(&cur->p->lat, t, nt);
	}
	sqlite3_finalize(st);
	free(t);
	free(refs);
	return rc < 0 ? -1 : 0;
}

/*
 * The p99 slowdown of the program called @name in the reference run
 * (cuda) of @r's workload and repetition; NAN when there is none.
 */
static double reference_p99(const struct gm_analysis *a,
			    const struct gm_an_run *r, const char *name)
{
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *c = &a->runs[i];
		if (!c->ok || !c->reference || c->repetition != r->repetition ||
		    strcmp(c->workload, r->workload)) {
			continue;
		}
		for (size_t j = 0; j < c->nprog; j++) {
			if (!strcmp(c->progs[j].name, name)) {
				return c->progs[j].lat.slowdown[GM_LAT_P99];
			}
		}
	}
	return NAN;
}

/* Geometric mean of @n values, or NAN. */
static double geo(const double *v, size_t n)
{
	return n ? gm_geomean(v, n) : NAN;
}

/*
 * The geometric mean of the slowdowns @get of variant @v's programs in the
 * workloads of @size that have them in every repetition, per repetition,
 * and its interval over the repetitions.
 */
static void geo_ci(struct gm_analysis *a, size_t v, size_t size,
		   gm_an_values_fn get, struct gm_ci *ci)
{
	struct gm_an_grid g;
	struct gm_an_common c;
	double *per;

	gm_an_grid_init(&g, a, size, &v, 1);
	gm_an_common(&g, get, &c);
	per = gm_xcalloc(c.nrep + 1, sizeof(*per));
	gm_an_per_rep(&g, 0, &c, get, per);
	gm_ci_geomean(ci, per, c.nw ? c.nrep : 0, &a->ci);
	free(per);
	gm_an_common_release(&c);
	gm_an_grid_release(&g);
}

static void variant_rows(struct gm_analysis *a, size_t v)
{
	const char *label = a->variants[v].label;
	size_t sizes[64], nsizes = 0;
	size_t count = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		size_t s;
		if (r->vindex != v || !r->ok) {
			continue;
		}
		count += r->nprog;
		for (s = 0; s < nsizes && sizes[s] != r->nprog; s++) {
		}
		if (s == nsizes && nsizes < 64) {
			sizes[nsizes++] = r->nprog;
		}
	}
	double *p50 = gm_xcalloc(count + 1, sizeof(double));
	double *p99 = gm_xcalloc(count + 1, sizeof(double));
	double *high = gm_xcalloc(count + 1, sizeof(double));
	double *other = gm_xcalloc(count + 1, sizeof(double));
	double *ref = gm_xcalloc(count + 1, sizeof(double));
	for (size_t s = 0; s < nsizes; s++) {
		size_t n = 0, n50 = 0, nh = 0, no = 0, nr = 0;
		a->latency = gm_xrealloc(a->latency,
					 (a->nlatency + 1) * sizeof(*a->latency));
		struct gm_an_latency *row = &a->latency[a->nlatency++];
		memset(row, 0, sizeof(*row));
		row->programs = sizes[s];
		row->vlabel = label;
		row->p99_worst = row->high_p99_worst = NAN;
		for (size_t i = 0; i < a->nruns; i++) {
			const struct gm_an_run *r = &a->runs[i];
			int has_high = 0;
			if (r->vindex != v || !r->ok || r->nprog != sizes[s]) {
				continue;
			}
			for (size_t j = 0; j < r->nprog; j++) {
				has_high |= r->progs[j].high_priority;
			}
			for (size_t j = 0; j < r->nprog; j++) {
				const struct gm_an_program *p = &r->progs[j];
				double x = p->lat.slowdown[GM_LAT_P99];
				if (!isnan(p->lat.slowdown[GM_LAT_P50])) {
					p50[n50++] = p->lat.slowdown[GM_LAT_P50];
				}
				if (isnan(x)) {
					continue;
				}
				p99[n++] = x;
				if (isnan(row->p99_worst) || x > row->p99_worst) {
					row->p99_worst = x;
					row->worst_run = r->label;
					row->worst_program = p->name;
				}
				if (p->high_priority) {
					double y = reference_p99(a, r, p->name);
					if (!isnan(y)) {
						ref[nr++] = y;
					}
					high[nh++] = x;
					if (isnan(row->high_p99_worst) ||
					    x > row->high_p99_worst) {
						row->high_p99_worst = x;
					}
				} else if (has_high) {
					other[no++] = x;
				}
			}
		}
		row->n = n;
		(void)n50;
		geo_ci(a, v, sizes[s], gm_an_v_p50, &row->p50_geo);
		geo_ci(a, v, sizes[s], gm_an_v_p99, &row->p99_geo);
		row->high_n = nh;
		row->high_p99_geo = geo(high, nh);
		row->other_p99_geo = geo(other, no);
		row->high_ref_n = nr;
		row->high_ref_p99_geo = geo(ref, nr);
	}
	free(p50);
	free(p99);
	free(high);
	free(other);
	free(ref);
}

int gm_an_latency(struct gm_analysis *a, struct gm_db *db)
{
	if (percentiles(a, db)) {
		return -1;
	}
	for (size_t i = 0; i < a->nruns; i++) {
		struct gm_an_run *r = &a->runs[i];
		for (size_t j = 0; r->ok && j < r->nprog; j++) {
			struct gm_an_program *p = &r->progs[j];
			gm_latency_slowdown(&p->lat,
					    p->alone_prog ? &p->alone_prog->lat : NULL);
		}
	}
	return 0;
}

void gm_an_latency_rows(struct gm_analysis *a)
{
	/* Same rows as the summary: the alone runs are the baseline. */
	for (size_t v = 0; v < a->nvariants; v++) {
		if (!gm_variant_is(a->variants[v].label, GM_VARIANT_ALONE)) {
			variant_rows(a, v);
		}
	}
}
