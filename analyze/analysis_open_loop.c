/* SPDX-License-Identifier: MIT */
/*
 * The open-loop programs' metrics (see analysis.h, struct
 * gm_an_open_loop, and doc/database.md "Open-loop metrics"): per ok run
 * and open-loop program, from its rows of `requests` and `open_loop`,
 * the latency percentiles (gm_percentile_sorted(): linear interpolation),
 * the mean queueing delay and service time, the share of requests whose
 * latency is within the SLO target, the offered rate (the arrival
 * process's, else the requests' over the span of their arrivals), the
 * achieved rate (requests over first arrival to last end), the load (the
 * offered rate times the program's alone service time) and the batch
 * programs' throughput relative to alone (alone time over their mean
 * multiprogram replay time, averaged over them).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "replay_opts.h"
#include "stats.h"
#include "strbuf.h"

static const struct {
	double pct;
	const char *name;
} pcts[GM_OL_PCTS] = {
	[GM_OL_P50] = { 50, "p50" },
	[GM_OL_P95] = { 95, "p95" },
	[GM_OL_P99] = { 99, "p99" },
	[GM_OL_P999] = { 99.9, "p99.9" },
};

double gm_an_ol_pct(enum gm_ol_pct p)
{
	return pcts[p].pct;
}

const char *gm_an_ol_pct_name(enum gm_ol_pct p)
{
	return pcts[p].name;
}

/* The rate an arrival process names ("poisson:R", "trace:...@R"), or
 * NAN (a trace as recorded). */
static double spec_rate(const char *spec)
{
	const char *at = !strncmp(spec, "poisson:", 8) ? spec + 7 :
			 !strncmp(spec, "trace:", 6) ? strrchr(spec, '@') : NULL;
	char *end;
	double v;

	if (!at) {
		return NAN;
	}
	v = strtod(at + 1, &end);
	return *end || !(v > 0) ? NAN : v;
}

static void metrics(struct gm_an_open_loop *o, const int64_t (*req)[3],
		    size_t n)
{
	const struct gm_an_program *p = &o->run->progs[o->prog];
	double f, ms, q = 0, s = 0;
	int64_t first = req[0][0], last_arr = req[0][0], last_end = 0;
	size_t within = 0;

	o->n = n;
	o->latency = gm_xcalloc(n, sizeof(*o->latency));
	for (size_t i = 0; i < n; i++) {
		o->latency[i] = (double)(req[i][2] - req[i][0]);
		q += (double)(req[i][1] - req[i][0]);
		s += (double)(req[i][2] - req[i][1]);
		first = req[i][0] < first ? req[i][0] : first;
		last_arr = req[i][0] > last_arr ? req[i][0] : last_arr;
		last_end = req[i][2] > last_end ? req[i][2] : last_end;
	}
	gm_sort_doubles(o->latency, n);
	for (int k = 0; k < GM_OL_PCTS; k++) {
		o->lat[k] = gm_percentile_sorted(o->latency, n, pcts[k].pct);
	}
	o->queue_mean = q / (double)n;
	o->service_mean = s / (double)n;
	o->alone_ns = p->alone_ns;
	o->slo_ns = NAN;
	if (!gm_slo_parse(o->slo, &f, &ms)) {
		o->slo_ns = f > 0 ? f * o->alone_ns : ms * 1e6;
	}
	gm_error_clear();
	o->slo_attained = NAN;
	if (!isnan(o->slo_ns)) {
		for (size_t i = 0; i < n; i++) {
			within += o->latency[i] <= o->slo_ns;
		}
		o->slo_attained = (double)within / (double)n;
	}
	o->offered_rate = spec_rate(o->arrivals);
	if (isnan(o->offered_rate) && n > 1 && last_arr > first) {
		o->offered_rate = (double)(n - 1) / ((double)(last_arr - first) / 1e9);
	}
	o->achieved_rate = last_end > first ?
		(double)n / ((double)(last_end - first) / 1e9) : NAN;
	o->load = o->offered_rate * o->alone_ns / 1e9;
}

/* The batch programs of @o's run: those not in the run's open_loop rows
 * (@open, by program index). */
static void batch(struct gm_an_open_loop *o, const unsigned char *open)
{
	const struct gm_an_run *r = o->run;
	double sum = 0;

	o->nbatch = 0;
	for (size_t j = 0; j < r->nprog; j++) {
		const struct gm_an_program *p = &r->progs[j];
		if (open[j] || isnan(p->alone_ns) || !(p->mp_ns > 0)) {
			continue;
		}
		sum += p->alone_ns / p->mp_ns;
		o->nbatch++;
	}
	o->batch_speed = o->nbatch ? sum / (double)o->nbatch : NAN;
}

int gm_an_open_loop(struct gm_analysis *a, struct gm_db *db)
{
	sqlite3_stmt *so = NULL, *sr = NULL;
	int64_t (*req)[3] = NULL;
	size_t alloc_req = 0, alloc = 0;
	unsigned char *open = NULL;
	int ret = -1;

	if (gm_db_prepare(db, &so, "SELECT programId, arrivals, seed, slo FROM"
			  " open_loop WHERE runId = ?1 ORDER BY programId") ||
	    gm_db_prepare(db, &sr, "SELECT arrival, start, end FROM requests"
			  " WHERE runId = ?1 AND programId = ?2 ORDER BY"
			  " request")) {
		goto out;
	}
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		size_t first = a->nopen_loop;
		int rc;
		if (!r->ok) {
			continue;
		}
		free(open);
		open = gm_xcalloc(r->nprog + 1, 1);
		sqlite3_bind_int64(so, 1, r->id);
		while ((rc = GM_SQL(db->sql, sqlite3_step(so))) == SQLITE_ROW) {
			int64_t pid = sqlite3_column_int64(so, 0);
			size_t j, n = 0;
			for (j = 0; j < r->nprog && r->progs[j].id != pid; j++) {
			}
			if (j == r->nprog) {
				continue;
			}
			sqlite3_bind_int64(sr, 1, r->id);
			sqlite3_bind_int64(sr, 2, pid);
			while ((rc = GM_SQL(db->sql, sqlite3_step(sr))) ==
			       SQLITE_ROW) {
				GM_ALLOC_GROW(req, n + 1, alloc_req);
				for (int c = 0; c < 3; c++) {
					req[n][c] = sqlite3_column_int64(sr, c);
				}
				n++;
			}
			sqlite3_reset(sr);
			if (rc < 0) {
				goto out;
			}
			open[j] = 1;
			if (!n) {
				gm_an_note(a, "run '%s': open-loop program '%s' "
					   "has no requests", r->label,
					   r->progs[j].name);
				continue;
			}
			GM_ALLOC_GROW(a->open_loop, a->nopen_loop + 1, alloc);
			struct gm_an_open_loop *o = &a->open_loop[a->nopen_loop++];
			memset(o, 0, sizeof(*o));
			o->run = r;
			o->prog = j;
			o->arrivals = gm_an_col_str(so, 1);
			o->seed = sqlite3_column_int64(so, 2);
			o->slo = gm_an_col_str(so, 3);
			metrics(o, (const int64_t (*)[3])req, n);
			if (isnan(o->slo_ns)) {
				gm_an_note(a, "run '%s': no alone time of '%s' "
					   "(no %s run): its SLO target %s "
					   "and load are unknown", r->label,
					   r->progs[j].name, a->alone_variant,
					   o->slo);
			}
		}
		sqlite3_reset(so);
		if (rc < 0) {
			goto out;
		}
		for (size_t k = first; k < a->nopen_loop; k++) {
			batch(&a->open_loop[k], open);
		}
	}
	ret = 0;
out:
	sqlite3_finalize(so);
	sqlite3_finalize(sr);
	free(req);
	free(open);
	return ret;
}

void gm_an_open_loop_release(struct gm_analysis *a)
{
	for (size_t i = 0; i < a->nopen_loop; i++) {
		free(a->open_loop[i].arrivals);
		free(a->open_loop[i].slo);
		free(a->open_loop[i].latency);
	}
	free(a->open_loop);
	a->open_loop = NULL;
	a->nopen_loop = 0;
}
