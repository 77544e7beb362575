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
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "error.h"
#include "stats.h"
#include "strbuf.h"

/* The run of @workload under variant @v, ok with an STP, or NULL. */
static const struct gm_an_run *run_of(const struct gm_analysis *a,
				      const char *workload, size_t v)
{
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (r->vindex == v && r->ok && !isnan(r->stp) &&
		    !strcmp(r->workload, workload)) {
			return r;
		}
	}
	return NULL;
}

/* 1 + the number of rows whose @key is strictly better than row @i's. */
static size_t rank_of(const struct gm_an_rank *rows, size_t n, size_t i,
		      size_t offset, int higher_better)
{
	double mine = *(const double *)((const char *)&rows[i] + offset);
	size_t rank = 1;

	for (size_t j = 0; j < n; j++) {
		double other = *(const double *)((const char *)&rows[j] + offset);
		if (isnan(other) || j == i) {
			continue;
		}
		if (isnan(mine) || (higher_better ? other > mine : other < mine)) {
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

/* Rank the variants of workload size @size into a->ranking. */
static void rank_size(struct gm_analysis *a, size_t size, size_t *alloc)
{
	size_t nv = a->nvariants, first = a->nranking, nwl = 0, ncommon = 0;
	const char **common = gm_xcalloc(a->nruns + 1, sizeof(char *));
	int *ranked = gm_xcalloc(nv + 1, sizeof(int));

	for (size_t v = 0; v < nv; v++) {
		for (size_t i = 0; i < a->nruns && !ranked[v]; i++) {
			const struct gm_an_run *r = &a->runs[i];
			ranked[v] = r->vindex == v && !r->alone && r->ok &&
				    r->nprog == size && !isnan(r->stp);
		}
	}
	/* Workloads (runs are grouped by workload) that every ranked
	 * variant ran. */
	const char *last = NULL;
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		int all = 1;
		if (r->alone || r->nprog != size ||
		    (last && !strcmp(last, r->workload))) {
			continue;
		}
		last = r->workload;
		nwl++;
		for (size_t v = 0; v < nv && all; v++) {
			all = !ranked[v] || run_of(a, r->workload, v);
		}
		if (all) {
			common[ncommon++] = r->workload;
		}
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
		for (size_t w = 0; w < ncommon; w++) {
			const struct gm_an_run *r = run_of(a, common[w], v);
			double best = 0;
			stp[w] = r->stp;
			antt[w] = r->antt;
			for (size_t j = 0; j < r->nprog; j++) {
				double s = r->progs[j].lat.slowdown[GM_LAT_P99];
				if (!isnan(s)) {
					p99[n99++] = s;
				}
			}
			for (size_t u = 0; u < nv; u++) {
				const struct gm_an_run *o;
				if (ranked[u] && (o = run_of(a, common[w], u)) &&
				    o->stp > best) {
					best = o->stp;
				}
			}
			row->best_stp += r->stp >= best;
		}
		row->stp_geo = gm_geomean(stp, ncommon);
		row->antt_geo = gm_geomean(antt, ncommon);
		row->p99_geo = gm_geomean(p99, n99);
		free(stp);
		free(antt);
		free(p99);
	}
	for (size_t i = first; i < a->nranking; i++) {
		struct gm_an_rank *rows = &a->ranking[first];
		size_t n = a->nranking - first, k = i - first;
		rows[k].rank_stp = rank_of(rows, n, k,
					   offsetof(struct gm_an_rank, stp_geo), 1);
		rows[k].rank_antt = rank_of(rows, n, k,
					    offsetof(struct gm_an_rank, antt_geo), 0);
		rows[k].rank_p99 = rank_of(rows, n, k,
					   offsetof(struct gm_an_rank, p99_geo), 0);
	}
	free(common);
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
