/* SPDX-License-Identifier: MIT */
/*
 * Repetitions in the study analysis (see analysis_priv.h): the cells (a
 * workload under a variant label, over its repetitions) with the mean and
 * interval of every per-workload and per-program metric, and the grid
 * that the aggregates across workloads are computed from: for each
 * repetition, the geometric mean of a metric over the workloads that
 * have it in every repetition, so that the repetitions, not the replays
 * inside one process, are the sample the interval is over.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "run_reader.h"
#include "stats.h"
#include "strbuf.h"

/* The mean and interval of the non-NAN values @v[0..n). */
static void ci_of(const struct gm_analysis *a, struct gm_ci *ci, double *v,
		  size_t n)
{
	size_t k = 0;

	for (size_t i = 0; i < n; i++) {
		if (!isnan(v[i])) {
			v[k++] = v[i];
		}
	}
	gm_ci_mean(ci, v, k, &a->ci);
}

static void cell_program(const struct gm_analysis *a, struct gm_an_cell *c,
			 size_t j, double *v)
{
	struct gm_an_cell_program *cp = &c->progs[j];
	const struct gm_an_program *first = &c->runs[0]->progs[j];

	cp->name = first->name;
	cp->high_priority = first->high_priority;
	for (size_t i = 0; i < c->nruns; i++) {
		const struct gm_an_program *p = &c->runs[i]->progs[j];
		cp->kept += p->kept;
		if (!cp->alone_from && p->alone_run) {
			const struct gm_an_run *s = p->alone_run;
			cp->alone_from = gm_run_label(s->workload, s->variant,
						      s->policy, s->one_shot, 0);
		}
	}
#define EACH(field, expr)                                       \
	do {                                                    \
		for (size_t i = 0; i < c->nruns; i++) {         \
			const struct gm_an_program *p =         \
				&c->runs[i]->progs[j];          \
			v[i] = (expr);                          \
		}                                               \
		ci_of(a, &cp->field, v, c->nruns);              \
	} while (0)
	EACH(mp, p->kept ? p->mp_ns : NAN);
	EACH(alone, p->alone_ns);
	EACH(speed, p->kept ? p->alone_ns / p->mp_ns : NAN);
	for (int k = 0; k < GM_LAT_PCTS; k++) {
		EACH(p[k], p->lat.p[k]);
		EACH(slowdown[k], p->lat.slowdown[k]);
	}
#undef EACH
}

/* Whether run @r has the same programs (by name, in order) as @first. */
static int same_programs(const struct gm_an_run *r, const struct gm_an_run *first)
{
	if (r->nprog != first->nprog) {
		return 0;
	}
	for (size_t j = 0; j < r->nprog; j++) {
		if (strcmp(r->progs[j].name, first->progs[j].name)) {
			return 0;
		}
	}
	return 1;
}

void gm_an_cells(struct gm_analysis *a)
{
	size_t alloc = 0;
	double *v = gm_xcalloc(a->nruns + 1, sizeof(double));

	for (size_t i = 0; i < a->nruns;) {
		struct gm_an_run *r = &a->runs[i];
		size_t j = i;
		if (!r->ok) {
			i++;
			continue;
		}
		GM_ALLOC_GROW(a->cells, a->ncells + 1, alloc);
		struct gm_an_cell *c = &a->cells[a->ncells];
		memset(c, 0, sizeof(*c));
		c->workload = r->workload;
		c->vlabel = r->vlabel;
		c->vindex = r->vindex;
		c->nprog = r->nprog;
		c->alone = r->alone;
		c->reference = r->reference;
		c->runs = gm_xcalloc(a->nruns - i + 1, sizeof(*c->runs));
		/* The runs are sorted by workload, label and repetition. */
		for (; j < a->nruns && !strcmp(a->runs[j].workload, r->workload) &&
		       a->runs[j].vindex == r->vindex; j++) {
			struct gm_an_run *s = &a->runs[j];
			if (!s->ok) {
				continue;
			}
			if (!same_programs(s, r)) {
				gm_an_note(a, "run '%s' has other programs than '%s':"
					   " left out of the repetitions' intervals",
					   s->label, r->label);
				continue;
			}
			s->cell = a->ncells;
			c->runs[c->nruns++] = s;
		}
		a->ncells++;
		i = j;
#define EACH(field, expr)                                       \
		do {                                            \
			for (size_t k = 0; k < c->nruns; k++) { \
				v[k] = c->runs[k]->expr;        \
			}                                       \
			ci_of(a, &c->field, v, c->nruns);       \
		} while (0)
		EACH(stp, stp);
		EACH(antt, antt);
		EACH(wl_time, wl_time_ns);
		EACH(mtspeedup, mtspeedup);
#undef EACH
		c->progs = gm_xcalloc(c->nprog + 1, sizeof(*c->progs));
		for (size_t p = 0; p < c->nprog; p++) {
			cell_program(a, c, p, v);
		}
	}
	free(v);
}

void gm_an_cells_release(struct gm_analysis *a)
{
	for (size_t i = 0; i < a->ncells; i++) {
		for (size_t j = 0; j < a->cells[i].nprog; j++) {
			free(a->cells[i].progs[j].alone_from);
		}
		free(a->cells[i].progs);
		free(a->cells[i].runs);
	}
	free(a->cells);
	a->cells = NULL;
	a->ncells = 0;
}

/* ---- the grid of one workload size ---- */

void gm_an_grid_init(struct gm_an_grid *g, const struct gm_analysis *a,
		     size_t size, const size_t *vindex, size_t nv)
{
	memset(g, 0, sizeof(*g));
	g->nv = nv;
	g->cell = gm_xcalloc(a->ncells * nv + 1, sizeof(*g->cell));
	for (size_t i = 0; i < a->ncells; i++) {
		const struct gm_an_cell *c = &a->cells[i];
		if (c->alone || c->nprog != size) {
			continue;
		}
		/* Cells come by workload: a new name is a new row. */
		if (!g->nw || strcmp(a->cells[g->first[g->nw - 1]].workload,
				     c->workload)) {
			g->first = gm_xrealloc(g->first,
					       (g->nw + 1) * sizeof(*g->first));
			g->first[g->nw++] = i;
		}
		for (size_t v = 0; v < nv; v++) {
			if (vindex[v] == c->vindex) {
				g->cell[(g->nw - 1) * nv + v] = c;
			}
		}
	}
}

void gm_an_grid_release(struct gm_an_grid *g)
{
	free(g->cell);
	free(g->first);
	memset(g, 0, sizeof(*g));
}

/* The run of @c at repetition @rep, or NULL. */
static const struct gm_an_run *at(const struct gm_an_cell *c, int64_t rep)
{
	for (size_t i = 0; c && i < c->nruns; i++) {
		if (c->runs[i]->repetition == rep) {
			return c->runs[i];
		}
	}
	return NULL;
}

static int has(const struct gm_an_cell *c, int64_t rep, gm_an_values_fn get,
	       double *buf)
{
	const struct gm_an_run *r = at(c, rep);

	return r && get(r, buf) > 0;
}

static int cmp_i64(const void *x, const void *y)
{
	int64_t a = *(const int64_t *)x, b = *(const int64_t *)y;

	return a < b ? -1 : a > b;
}

void gm_an_common(const struct gm_an_grid *g, gm_an_values_fn get,
		  struct gm_an_common *c)
{
	size_t alloc = 0, maxprog = 1;
	double *buf;

	memset(c, 0, sizeof(*c));
	for (size_t k = 0; k < g->nw * g->nv; k++) {
		const struct gm_an_cell *cell = g->cell[k];
		maxprog = cell && cell->nprog + 1 > maxprog ? cell->nprog + 1 : maxprog;
	}
	buf = gm_xcalloc(maxprog, sizeof(*buf));
	/* The repetitions where any column of any workload has a value. */
	for (size_t k = 0; k < g->nw * g->nv; k++) {
		const struct gm_an_cell *cell = g->cell[k];
		for (size_t i = 0; cell && i < cell->nruns; i++) {
			int64_t rep = cell->runs[i]->repetition;
			size_t q;
			if (get(cell->runs[i], buf) == 0) {
				continue;
			}
			for (q = 0; q < c->nrep && c->rep[q] != rep; q++) {
			}
			if (q == c->nrep) {
				GM_ALLOC_GROW(c->rep, c->nrep + 1, alloc);
				c->rep[c->nrep++] = rep;
			}
		}
	}
	if (c->nrep) {
		qsort(c->rep, c->nrep, sizeof(*c->rep), cmp_i64);
	}
	/* The workloads where every column has it in every one of them. */
	c->w = gm_xcalloc(g->nw + 1, sizeof(*c->w));
	for (size_t w = 0; w < g->nw; w++) {
		int all = c->nrep > 0, any = 0;
		for (size_t v = 0; v < g->nv; v++) {
			for (size_t q = 0; q < c->nrep; q++) {
				int h = has(g->cell[w * g->nv + v], c->rep[q], get, buf);
				all &= h;
				any |= h;
			}
		}
		if (all) {
			c->w[c->nw++] = w;
		} else if (any) {
			c->left++;
		}
	}
	free(buf);
}

void gm_an_common_release(struct gm_an_common *c)
{
	free(c->rep);
	free(c->w);
	memset(c, 0, sizeof(*c));
}

void gm_an_per_rep(const struct gm_an_grid *g, size_t v,
		   const struct gm_an_common *c, gm_an_values_fn get,
		   double *out)
{
	size_t maxprog = 1, n, alloc = 0;
	double *buf, *all = NULL;

	for (size_t k = 0; k < g->nw * g->nv; k++) {
		const struct gm_an_cell *cell = g->cell[k];
		maxprog = cell && cell->nprog + 1 > maxprog ? cell->nprog + 1 : maxprog;
	}
	buf = gm_xcalloc(maxprog, sizeof(*buf));
	for (size_t q = 0; q < c->nrep; q++) {
		n = 0;
		for (size_t i = 0; i < c->nw; i++) {
			const struct gm_an_run *r =
				at(g->cell[c->w[i] * g->nv + v], c->rep[q]);
			size_t m = r ? get(r, buf) : 0;
			GM_ALLOC_GROW(all, n + m + 1, alloc);
			memcpy(all + n, buf, m * sizeof(*buf));
			n += m;
		}
		out[q] = n ? gm_geomean(all, n) : NAN;
	}
	free(all);
	free(buf);
}

size_t gm_an_v_stp(const struct gm_an_run *r, double *out)
{
	out[0] = r->stp;
	return !isnan(r->stp);
}

size_t gm_an_v_antt(const struct gm_an_run *r, double *out)
{
	out[0] = r->antt;
	return !isnan(r->antt);
}

size_t gm_an_v_mtspeedup(const struct gm_an_run *r, double *out)
{
	out[0] = r->mtspeedup;
	return !isnan(r->mtspeedup);
}

static size_t slowdowns(const struct gm_an_run *r, double *out, int k)
{
	size_t n = 0;

	for (size_t j = 0; j < r->nprog; j++) {
		double x = r->progs[j].lat.slowdown[k];
		if (!isnan(x)) {
			out[n++] = x;
		}
	}
	return n;
}

size_t gm_an_v_p50(const struct gm_an_run *r, double *out)
{
	return slowdowns(r, out, GM_LAT_P50);
}

size_t gm_an_v_p99(const struct gm_an_run *r, double *out)
{
	return slowdowns(r, out, GM_LAT_P99);
}

void gm_an_ratio_ci(const struct gm_analysis *a, const double *num,
		    const double *den, size_t n, struct gm_ci *ci)
{
	double *r = gm_xcalloc(n + 1, sizeof(*r));

	for (size_t i = 0; i < n; i++) {
		r[i] = num[i] / den[i];
	}
	gm_ci_geomean(ci, r, n, &a->ci);
	free(r);
}
