/* SPDX-License-Identifier: MIT */
/*
 * Loading the open-loop programs' requests (see loader_parts.h).
 */
#include <string.h>

#include "error.h"
#include "loader_parts.h"
#include "replay_opts.h"
#include "requests_reader.h"

int gm_load_requests(struct gm_db *db, const struct gm_run_dir *run,
		     int64_t rid, const int64_t *pids)
{
	struct gm_requests_data d;
	sqlite3_stmt *so = NULL, *sr = NULL;
	int ret = -1;

	if (gm_requests_read(&d, run)) {
		goto out;
	}
	if (!d.nprog) {
		ret = 0;
		goto out;
	}
	if (gm_db_prepare(db, &so, "INSERT INTO open_loop VALUES (?1, ?2, ?3,"
			  " ?4, ?5, ?6)") ||
	    gm_db_prepare(db, &sr, "INSERT INTO requests VALUES (?1, ?2, ?3,"
			  " ?4, ?5, ?6)")) {
		goto out;
	}
	for (size_t i = 0; i < d.nprog; i++) {
		const struct gm_open_loop_program *o = &d.progs[i];
		int rc;
		sqlite3_bind_int64(so, 1, rid);
		sqlite3_bind_int64(so, 2, pids[o->program]);
		sqlite3_bind_text(so, 3, o->arrivals, -1, SQLITE_STATIC);
		sqlite3_bind_int64(so, 4, o->requests);
		sqlite3_bind_int64(so, 5, d.seed);
		sqlite3_bind_text(so, 6, d.slo ? d.slo : GM_DEFAULT_SLO, -1,
				  SQLITE_STATIC);
		rc = GM_SQL(db->sql, sqlite3_step(so));
		sqlite3_reset(so);
		if (rc < 0) {
			goto out;
		}
	}
	for (size_t i = 0; i < d.nr; i++) {
		const struct gm_request *r = &d.v[i];
		int rc;
		sqlite3_bind_int64(sr, 1, rid);
		sqlite3_bind_int64(sr, 2, pids[r->program]);
		sqlite3_bind_int64(sr, 3, r->request);
		sqlite3_bind_int64(sr, 4, r->arrival);
		sqlite3_bind_int64(sr, 5, r->start);
		sqlite3_bind_int64(sr, 6, r->end);
		rc = GM_SQL(db->sql, sqlite3_step(sr));
		sqlite3_reset(sr);
		if (rc < 0) {
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(so);
	sqlite3_finalize(sr);
	gm_requests_data_release(&d);
	return ret;
}
