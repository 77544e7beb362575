/* SPDX-License-Identifier: MIT */
/*
 * The ranking of the mechanisms (see analysis_priv.h). Geomeans over
 * different sets of workloads do not compare (a variant whose hard
 * workloads failed would look better), so each workload size is ranked
 * over the workloads that every ranked variant ran ok with an STP. A
 * variant with no such run at that size at all is left out of that
 * size's ranking rather than emptying the common set.
 */
#include <math.h>
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
	return a->rank_stp < b->rank_stp ? -1 : a->rank_stp > b->rank_stp;
}

/*
 * Rank the variants of workload size @size into a->ranking. One pass over
 * the runs (grouped by workload) fills a table of the run of each
 * workload under each variant, ok with an STP; everything else reads it.
 */
static void rank_size(struct gm_analysis *a, size_t size, size_t *alloc)
{
	size_t nv = a->nvariants, first = a->nranking, nwl = 0, ncommon = 0;
	const struct gm_an_run **cell = gm_xcalloc(a->nruns * nv + 1,
						   sizeof(*cell));
	size_t *common = gm_xcalloc(a->nruns + 1, sizeof(size_t));
	double *best = gm_xcalloc(a->nruns + 1, sizeof(double));
	int *ranked = gm_xcalloc(nv + 1, sizeof(int));
	const char *last = NULL;

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (r->alone || r->nprog != size) {
			continue;
		}
		if (!last || strcmp(last, r->workload)) {
			last = r->workload;
			nwl++;
		}
		if (r->ok && !isnan(r->stp)) {
			cell[(nwl - 1) * nv + r->vindex] = r;
			ranked[r->vindex] = 1;
		}
	}
	/* The workloads every ranked variant ran, and their best STP. */
	for (size_t w = 0; w < nwl; w++) {
		int all = 1;
		for (size_t v = 0; v < nv && all; v++) {
			all = !ranked[v] || cell[w * nv + v];
		}
		if (!all) {
			continue;
		}
		for (size_t v = 0; v < nv; v++) {
			const struct gm_an_run *r = cell[w * nv + v];
			if (r && r->stp > best[ncommon]) {
				best[ncommon] = r->stp;
			}
		}
		common[ncommon++] = w;
	}
	for (size_t v = 0; v < nv; v++) {
		double *stp, *antt, *p99;
		size_t n99 = 0;
		struct gm_an_rank *row;
		if (!ranked[v]) {
			continue;
		}
		GM_ALLOC_GROW(a->ranking, a->nranking + 1, *alloc);
		row = &a->ranking[a->nranking++];
		memset(row, 0, sizeof(*row));
		row->programs = size;
		row->vlabel = a->variants[v].label;
		row->workloads = ncommon;
		row->left_out = nwl - ncommon;
		stp = gm_xcalloc(ncommon + 1, sizeof(double));
		antt = gm_xcalloc(ncommon + 1, sizeof(double));
		p99 = gm_xcalloc(ncommon * size + 1, sizeof(double));
		for (size_t c = 0; c < ncommon; c++) {
			const struct gm_an_run *r = cell[common[c] * nv + v];
			stp[c] = r->stp;
			antt[c] = r->antt;
			for (size_t j = 0; j < r->nprog; j++) {
				double sd = r->progs[j].lat.slowdown[GM_LAT_P99];
				if (!isnan(sd)) {
					p99[n99++] = sd;
				}
			}
			row->best_stp += r->stp >= best[c];
		}
		row->stp_geo = gm_geomean(stp, ncommon);
		row->antt_geo = gm_geomean(antt, ncommon);
		row->p99_geo = gm_geomean(p99, n99);
		free(stp);
		free(antt);
		free(p99);
	}
	{
		struct gm_an_rank *rows = &a->ranking[first];
		size_t n = a->nranking - first;
		double *val = gm_xcalloc(3 * n + 1, sizeof(double));
		for (size_t k = 0; k < n; k++) {
			val[k] = rows[k].stp_geo;
			val[n + k] = rows[k].antt_geo;
			val[2 * n + k] = rows[k].p99_geo;
		}
		for (size_t k = 0; k < n; k++) {
			rows[k].rank_stp = rank_among(val, n, k, 1);
			rows[k].rank_antt = rank_among(val + n, n, k, 0);
			rows[k].rank_p99 = rank_among(val + 2 * n, n, k, 0);
		}
		free(val);
	}
	free(cell);
	free(common);
	free(best);
	free(ranked);
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
