/* SPDX-License-Identifier: MIT */
/*
 * The intervals table (see interval_store.h): the analysis computed
 * without the kernel metrics (metrics_only), and each of its intervals
 * written as a row; the same analysis fills the per-run metrics tables
 * (metrics_store.h).
 */
#include "interval_store.h"

#include <math.h>
#include <string.h>

#include "analysis.h"
#include "error.h"
#include "metrics_store.h"

struct store {
	struct gm_db *db;
	sqlite3_stmt *st;
	const struct gm_ci_opts *ci;
};

static int bind_real(struct store *s, int i, double v)
{
	return GM_SQL(s->db->sql, isnan(v) ? sqlite3_bind_null(s->st, i)
					   : sqlite3_bind_double(s->st, i, v));
}

static int bind_text(struct store *s, int i, const char *v)
{
	return GM_SQL(s->db->sql, v ? sqlite3_bind_text(s->st, i, v, -1,
							  SQLITE_STATIC)
				    : sqlite3_bind_null(s->st, i));
}

/* One row; nothing for an interval of no value. */
static int row(struct store *s, size_t programs, const char *workload,
	       const char *variant, const char *program, const char *metric,
	       const struct gm_ci *ci)
{
	int rc;

	if (!ci->n || isnan(ci->mean)) {
		return 0;
	}
	if (GM_SQL(s->db->sql, sqlite3_bind_int64(s->st, 1,
						  (int64_t)programs)) < 0 ||
	    bind_text(s, 2, workload) < 0 || bind_text(s, 3, variant) < 0 ||
	    bind_text(s, 4, program) < 0 || bind_text(s, 5, metric) < 0 ||
	    bind_text(s, 6, gm_ci_method_name(s->ci->method)) < 0 ||
	    GM_SQL(s->db->sql, s->ci->method == GM_CI_BOOTSTRAP
		   ? sqlite3_bind_int64(s->st, 7, (int64_t)s->ci->seed)
		   : sqlite3_bind_null(s->st, 7)) < 0 ||
	    GM_SQL(s->db->sql, sqlite3_bind_int64(s->st, 8,
						  (int64_t)ci->n)) < 0 ||
	    bind_real(s, 9, ci->mean) < 0 || bind_real(s, 10, ci->lo) < 0 ||
	    bind_real(s, 11, ci->hi) < 0) {
		return -1;
	}
	rc = GM_SQL(s->db->sql, sqlite3_step(s->st));
	sqlite3_reset(s->st);
	return rc < 0 ? -1 : 0;
}

static int store_analysis(struct store *s, const struct gm_analysis *a)
{
	static const char *const pct[GM_LAT_PCTS] = { "p50", "p95", "p99" };
	char metric[64];

	for (size_t i = 0; i < a->ncells; i++) {
		const struct gm_an_cell *c = &a->cells[i];
		if (row(s, c->nprog, c->workload, c->vlabel, NULL, "STP", &c->stp) ||
		    row(s, c->nprog, c->workload, c->vlabel, NULL, "ANTT", &c->antt) ||
		    row(s, c->nprog, c->workload, c->vlabel, NULL,
			"workload time (ns)", &c->wl_time) ||
		    row(s, c->nprog, c->workload, c->vlabel, NULL, "MTSpeedup",
			&c->mtspeedup)) {
			return -1;
		}
		for (size_t j = 0; j < c->nprog; j++) {
			const struct gm_an_cell_program *p = &c->progs[j];
			if (row(s, c->nprog, c->workload, c->vlabel, p->name,
				"T_MP (ns)", &p->mp) ||
			    row(s, c->nprog, c->workload, c->vlabel, p->name,
				"T_SP (ns)", &p->alone) ||
			    row(s, c->nprog, c->workload, c->vlabel, p->name,
				"T_SP/T_MP", &p->speed)) {
				return -1;
			}
			for (int k = 0; k < GM_LAT_PCTS; k++) {
				snprintf(metric, sizeof(metric), "%s (ns)", pct[k]);
				if (row(s, c->nprog, c->workload, c->vlabel, p->name,
					metric, &p->p[k])) {
					return -1;
				}
				snprintf(metric, sizeof(metric), "%s slowdown", pct[k]);
				if (row(s, c->nprog, c->workload, c->vlabel, p->name,
					metric, &p->slowdown[k])) {
					return -1;
				}
			}
		}
	}
	for (size_t i = 0; i < a->nsummary; i++) {
		const struct gm_an_summary *r = &a->summary[i];
		if (row(s, r->programs, NULL, r->vlabel, NULL, "STP geomean",
			&r->stp_geo) ||
		    row(s, r->programs, NULL, r->vlabel, NULL, "ANTT geomean",
			&r->antt_geo) ||
		    row(s, r->programs, NULL, r->vlabel, NULL,
			"STP improvement", &r->stp_imp) ||
		    row(s, r->programs, NULL, r->vlabel, NULL,
			"ANTT improvement", &r->antt_imp) ||
		    row(s, r->programs, NULL, r->vlabel, NULL,
			"MTSpeedup geomean", &r->mtspeedup)) {
			return -1;
		}
	}
	for (size_t i = 0; i < a->nlatency; i++) {
		const struct gm_an_latency *l = &a->latency[i];
		if (row(s, l->programs, NULL, l->vlabel, NULL,
			"p50 slowdown geomean", &l->p50_geo) ||
		    row(s, l->programs, NULL, l->vlabel, NULL,
			"p99 slowdown geomean", &l->p99_geo)) {
			return -1;
		}
	}
	return 0;
}

int gm_intervals_store(struct gm_db *db, const struct gm_ci_opts *ci)
{
	static const struct gm_ci_opts dflt = GM_CI_OPTS_INIT;
	struct gm_analysis_options opt = { .ci = ci ? *ci : dflt,
					   .metrics_only = 1 };
	struct store s = { db, NULL, &opt.ci };
	struct gm_analysis a;
	int ret = -1, computed = 0;

	if (gm_db_begin(db)) {
		return -1;
	}
	if (gm_db_exec(db, "DELETE FROM intervals") ||
	    gm_db_prepare(db, &s.st, "INSERT INTO intervals VALUES (?1, ?2, ?3,"
			  " ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11)")) {
		goto out;
	}
	computed = 1;
	if (gm_analysis_compute(&a, db, &opt) || store_analysis(&s, &a) ||
	    gm_metrics_store(db, &a)) {
		goto out;
	}
	ret = gm_db_commit(db);
out:
	if (computed) {
		gm_analysis_release(&a);
	}
	sqlite3_finalize(s.st);
	if (ret) {
		gm_db_rollback(db);
		gm_error("cannot refresh the intervals and metrics tables of"
			 " '%s'", db->path);
	}
	return ret;
}
