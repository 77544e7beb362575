/* SPDX-License-Identifier: MIT */
/*
 * Loading the replay's driver-call times (see loader_parts.h).
 */
#include <string.h>

#include "drivercalls_reader.h"
#include "error.h"
#include "loader_parts.h"
#include "string_ids.h"

int gm_load_drivercalls(struct gm_db *db, const struct gm_run_dir *run,
			int64_t rid, const int64_t *pids)
{
	struct gm_drivercalls_data d;
	struct gm_string_ids ids;
	sqlite3_stmt *sc = NULL, *ss = NULL;
	int ret = -1;

	memset(&ids, 0, sizeof(ids));
	if (gm_drivercalls_read(&d, run)) {
		goto out;
	}
	if (!d.present || !d.nr) {
		ret = 0;
		goto out;
	}
	if (gm_string_ids_init(&ids, db) ||
	    gm_db_prepare(db, &sc, "INSERT INTO drivercalls VALUES (?1, ?2,"
			  " ?3, ?4, ?5, ?6, ?7, ?8, ?9)") ||
	    gm_db_prepare(db, &ss, "INSERT INTO drivercalls_slow VALUES"
			  " (?1, ?2, ?3, ?4, ?5, ?6)")) {
		goto out;
	}
	for (size_t i = 0; i < d.nr; i++) {
		const struct gm_drivercall *c = &d.v[i];
		sqlite3_stmt *st = c->slow ? ss : sc;
		int64_t name;
		int rc;
		if (gm_string_ids_get(&ids, c->call, &name)) {
			goto out;
		}
		sqlite3_bind_int64(st, 1, rid);
		sqlite3_bind_int64(st, 2, pids[c->program]);
		if (c->slow) {
			sqlite3_bind_int64(st, 3, name);
			sqlite3_bind_text(st, 4, c->kind, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 5, c->start);
			sqlite3_bind_int64(st, 6, c->end);
		} else {
			sqlite3_bind_text(st, 3, c->phase, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 4, name);
			sqlite3_bind_text(st, 5, c->kind, -1, SQLITE_STATIC);
			sqlite3_bind_int64(st, 6, c->count);
			sqlite3_bind_int64(st, 7, c->total_ns);
			sqlite3_bind_int64(st, 8, c->max_ns);
			sqlite3_bind_text(st, 9, c->hist, -1, SQLITE_STATIC);
		}
		rc = GM_SQL(db->sql, sqlite3_step(st));
		sqlite3_reset(st);
		if (rc < 0) {
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(sc);
	sqlite3_finalize(ss);
	gm_string_ids_release(&ids);
	gm_drivercalls_data_release(&d);
	return ret;
}
