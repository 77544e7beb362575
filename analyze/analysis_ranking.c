/* SPDX-License-Identifier: MIT */
/*
 * The ranking of the mechanisms (see analysis_priv.h). Geomeans over
 * different sets of workloads do not compare (a variant whose hard
 * workloads failed would look better), so each workload size is ranked
 * over the workloads that every ranked variant ran ok with an STP, in
 * every repetition. A variant with no such run at that size at all is
 * left out of that size's ranking rather than emptying the common set.
 * With repetitions, two variants are ranked apart only when the interval
 * of their paired STP (ANTT, p99) ratio excludes 1; otherwise they tie.
 */
#include <math.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "error.h"
#include "stats.h"
#include "strbuf.h"

/* 1 + the number of values of @v[0..n) strictly better than @v[i]. */
static size_t rank_among(const double *v, size_t n, size_t i,
			 int higher_better)
{
	size_t rank = 1;

	for (size_t j = 0; j < n; j++) {
		if (j == i || isnan(v[j])) {
			continue;
		}
		if (isnan(v[i]) || (higher_better ? v[j] > v[i] : v[j] < v[i])) {
			rank++;
		}
	}
	return rank;
}

static int cmp_stp(const void *x, const void *y)
{
	const struct gm_an_rank *a = x, *b = y;

	if (a->programs != b->programs) {
		return a->programs < b->programs ? -1 : 1;
	}
	if (a->rank_stp != b->rank_stp) {
		return a->rank_stp < b->rank_stp ? -1 : 1;
	}
	/* Tied: the higher STP first (the stable order after that). */
	return a->stp_geo.mean > b->stp_geo.mean ? -1 :
	       a->stp_geo.mean < b->stp_geo.mean;
}

/*
 * The ranks of the @n rows by the per-repetition geomeans @g[k * nrep +
 * q] and their values @v: with 2 repetitions or more, 1 + the rows whose
 * paired ratio to row k has an interval entirely on the better side of 1
 * (rows that cannot be told apart share a rank); with fewer, 1 + the rows
 * whose value is better.
 */
static void rank_rows(const struct gm_analysis *a, const double *g,
		      size_t nrep, size_t n, const double *v,
		      int higher_better, size_t *rank)
{
	for (size_t k = 0; k < n; k++) {
		size_t r = 1;
		if (nrep < 2) {
			r = rank_among(v, n, k, higher_better);
		} else {
			for (size_t u = 0; u < n; u++) {
				struct gm_ci ci;
				if (u == k) {
					continue;
				}
				gm_an_ratio_ci(a, g + u * nrep, g + k * nrep, nrep, &ci);
				r += gm_ci_side(&ci, 1) == (higher_better ? 1 : -1);
			}
		}
		rank[k] = r;
	}
}

/*
 * Rank the variants of workload size @size into a->ranking, over the
 * workloads that every ranked variant ran ok with an STP in every
 * repetition (the grid's common set).
 */
static void rank_size(struct gm_analysis *a, size_t size, size_t *alloc)
{
	size_t nv = 0, first = a->nranking, n;
	size_t *vindex = gm_xcalloc(a->nvariants + 1, sizeof(*vindex));
	struct gm_an_grid g;
	struct gm_an_common c;
	double *stp, *antt, *p99;
	size_t *rank, nwl = 0;
	double *val;
	const char *last = NULL;

	/* The ranked variants: those with an STP at this size. */
	for (size_t i = 0; i < a->ncells; i++) {
		const struct gm_an_cell *cell = &a->cells[i];
		size_t k;
		if (cell->alone || cell->nprog != size || !cell->stp.n) {
			continue;
		}
		for (k = 0; k < nv && vindex[k] != cell->vindex; k++) {
		}
		if (k == nv) {
			vindex[nv++] = cell->vindex;
		}
	}
	/* (In the variant table's order: the rows' stable order.) */
	for (size_t i = 1; i < nv; i++) {
		for (size_t j = i; j > 0 && vindex[j - 1] > vindex[j]; j--) {
			size_t t = vindex[j];
			vindex[j] = vindex[j - 1];
			vindex[j - 1] = t;
		}
	}
	gm_an_grid_init(&g, a, size, vindex, nv);
	/* Every workload of this size, whatever became of its runs. */
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->alone && r->nprog == size &&
		    (!last || strcmp(last, r->workload))) {
			last = r->workload;
			nwl++;
		}
	}
	gm_an_common(&g, gm_an_v_stp, &c);
	n = c.nw ? c.nrep : 0;
	stp = gm_xcalloc(nv * n + 1, sizeof(*stp));
	antt = gm_xcalloc(nv * n + 1, sizeof(*antt));
	p99 = gm_xcalloc(nv * n + 1, sizeof(*p99));
	for (size_t v = 0; v < nv; v++) {
		struct gm_an_rank *row;
		GM_ALLOC_GROW(a->ranking, a->nranking + 1, *alloc);
		row = &a->ranking[a->nranking++];
		memset(row, 0, sizeof(*row));
		row->programs = size;
		row->vlabel = a->variants[vindex[v]].label;
		row->workloads = c.nw;
		row->left_out = nwl - c.nw;
		row->repetitions = n;
		row->by_interval = n >= 2;
		/* No common workload: n is 0 while c.nrep need not be, and
		 * gm_an_per_rep() writes c.nrep values. */
		if (n) {
			gm_an_per_rep(&g, v, &c, gm_an_v_stp, stp + v * n);
			gm_an_per_rep(&g, v, &c, gm_an_v_antt, antt + v * n);
			gm_an_per_rep(&g, v, &c, gm_an_v_p99, p99 + v * n);
		}
		gm_ci_geomean(&row->stp_geo, stp + v * n, n, &a->ci);
		gm_ci_geomean(&row->antt_geo, antt + v * n, n, &a->ci);
		gm_ci_geomean(&row->p99_geo, p99 + v * n, n, &a->ci);
		/* Best STP in: the workloads where no variant's mean is higher. */
		for (size_t i = 0; i < c.nw; i++) {
			const struct gm_an_cell *mine = g.cell[c.w[i] * nv + v];
			int best = 1;
			for (size_t u = 0; u < nv; u++) {
				best &= g.cell[c.w[i] * nv + u]->stp.mean <=
					mine->stp.mean;
			}
			row->best_stp += best;
		}
	}
	rank = gm_xcalloc(nv + 1, sizeof(*rank));
	val = gm_xcalloc(nv + 1, sizeof(*val));
	struct {
		const double *g;
		int higher;
		size_t off;
	} by[] = {
		{ stp, 1, offsetof(struct gm_an_rank, rank_stp) },
		{ antt, 0, offsetof(struct gm_an_rank, rank_antt) },
		{ p99, 0, offsetof(struct gm_an_rank, rank_p99) },
	};
	for (size_t m = 0; m < sizeof(by) / sizeof(by[0]); m++) {
		for (size_t v = 0; v < nv; v++) {
			const struct gm_an_rank *row = &a->ranking[first + v];
			val[v] = m == 0 ? row->stp_geo.mean : m == 1 ?
				row->antt_geo.mean : row->p99_geo.mean;
		}
		rank_rows(a, by[m].g, n, nv, val, by[m].higher, rank);
		for (size_t v = 0; v < nv; v++) {
			*(size_t *)((char *)&a->ranking[first + v] + by[m].off) =
				rank[v];
		}
	}
	/* Each row's STP against the best-ranked one's (highest STP). */
	size_t top = 0;
	for (size_t v = 1; v < nv; v++) {
		const struct gm_an_rank *x = &a->ranking[first + v];
		const struct gm_an_rank *t = &a->ranking[first + top];
		if (x->rank_stp < t->rank_stp ||
		    (x->rank_stp == t->rank_stp && x->stp_geo.mean > t->stp_geo.mean)) {
			top = v;
		}
	}
	for (size_t v = 0; v < nv; v++) {
		struct gm_an_rank *row = &a->ranking[first + v];
		if (v == top) {
			row->stp_top.mean = row->stp_top.lo = row->stp_top.hi = NAN;
			continue;
		}
		gm_an_ratio_ci(a, stp + v * n, stp + top * n, n, &row->stp_top);
	}
	free(rank);
	free(val);
	free(stp);
	free(antt);
	free(p99);
	free(vindex);
	gm_an_common_release(&c);
	gm_an_grid_release(&g);
}

void gm_an_ranking(struct gm_analysis *a)
{
	size_t alloc = 0, sizes[64], nsizes = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		size_t s;
		if (r->alone || !r->ok || isnan(r->stp)) {
			continue;
		}
		for (s = 0; s < nsizes && sizes[s] != r->nprog; s++) {
		}
		if (s == nsizes && nsizes < 64) {
			sizes[nsizes++] = r->nprog;
		}
	}
	for (size_t s = 0; s < nsizes; s++) {
		rank_size(a, sizes[s], &alloc);
	}
	/* Best STP first within each size (a stable order for ties: the
	 * variant table's, which the rows were made in). */
	for (size_t i = 1; i < a->nranking; i++) {
		for (size_t j = i; j > 0 && cmp_stp(&a->ranking[j - 1],
						    &a->ranking[j]) > 0; j--) {
			struct gm_an_rank t = a->ranking[j];
			a->ranking[j] = a->ranking[j - 1];
			a->ranking[j - 1] = t;
		}
	}
}
