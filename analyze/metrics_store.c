/* SPDX-License-Identifier: MIT */
/*
 * run_metrics and program_metrics (see metrics_store.h): a row per ok
 * run and per program of it, the values taken from the analysis as they
 * are, NULL where the analysis has none (NAN).
 */
#include "metrics_store.h"

#include <math.h>

#include "error.h"
#include "metrics_stp.h"

/* Bind the doubles @v[0..n) from parameter @first on, NAN as NULL. */
static int bind_reals(struct gm_db *db, sqlite3_stmt *st, int first,
		      const double *v, int n)
{
	for (int i = 0; i < n; i++) {
		if (GM_SQL(db->sql, isnan(v[i]) ? sqlite3_bind_null(st, first + i)
			   : sqlite3_bind_double(st, first + i, v[i])) < 0) {
			return -1;
		}
	}
	return 0;
}

static int step(struct gm_db *db, sqlite3_stmt *st)
{
	int rc = GM_SQL(db->sql, sqlite3_step(st));

	sqlite3_reset(st);
	return rc < 0 ? -1 : 0;
}

static int store_run(struct gm_db *db, sqlite3_stmt *st,
		     const struct gm_an_run *r)
{
	const double v[] = { r->stp, r->antt, r->wl_time_ns, r->mtspeedup };

	if (GM_SQL(db->sql, sqlite3_bind_int64(st, 1, r->id)) < 0 ||
	    GM_SQL(db->sql, sqlite3_bind_text(st, 2, r->vlabel, -1,
					      SQLITE_STATIC)) < 0 ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 3, (int64_t)r->nprog)) < 0 ||
	    bind_reals(db, st, 4, v, 4)) {
		return -1;
	}
	return step(db, st);
}

static int store_program(struct gm_db *db, sqlite3_stmt *st,
			 const struct gm_an_run *r, const struct gm_an_program *p)
{
	/* One program's share of STP and of ANTT: its speed and slowdown. */
	const double v[] = {
		p->mp_ns, p->alone_ns, gm_stp(&p->alone_ns, &p->mp_ns, 1),
		gm_antt(&p->alone_ns, &p->mp_ns, 1),
		p->lat.p[0], p->lat.p[1], p->lat.p[2],
		p->lat.slowdown[0], p->lat.slowdown[1], p->lat.slowdown[2],
	};

	if (GM_SQL(db->sql, sqlite3_bind_int64(st, 1, r->id)) < 0 ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 2, p->id)) < 0 ||
	    GM_SQL(db->sql, sqlite3_bind_int64(st, 3, (int64_t)p->kept)) < 0 ||
	    GM_SQL(db->sql, sqlite3_bind_int(st, 4, p->high_priority)) < 0 ||
	    bind_reals(db, st, 5, v, (int)(sizeof(v) / sizeof(v[0])))) {
		return -1;
	}
	return step(db, st);
}

int gm_metrics_store(struct gm_db *db, const struct gm_analysis *a)
{
	sqlite3_stmt *run = NULL, *prog = NULL;
	int ret = -1;

	if (gm_db_exec(db, "DELETE FROM run_metrics") ||
	    gm_db_exec(db, "DELETE FROM program_metrics") ||
	    gm_db_prepare(db, &run, "INSERT INTO run_metrics VALUES (?1, ?2,"
			  " ?3, ?4, ?5, ?6, ?7)") ||
	    gm_db_prepare(db, &prog, "INSERT INTO program_metrics VALUES (?1,"
			  " ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13,"
			  " ?14)")) {
		goto out;
	}
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->ok) {
			continue;
		}
		if (store_run(db, run, r)) {
			goto out;
		}
		for (size_t j = 0; j < r->nprog; j++) {
			if (store_program(db, prog, r, &r->progs[j])) {
				goto out;
			}
		}
	}
	ret = 0;
out:
	sqlite3_finalize(run);
	sqlite3_finalize(prog);
	if (ret) {
		gm_error("cannot store the per-run metrics");
	}
	return ret;
}
