/* SPDX-License-Identifier: MIT */
/*
 * Forgetting what was loaded from a directory (`gpumix analyze
 * --forget`, loader.h): its runs and co-runs leave the database in one
 * transaction, with every row that belongs to them. A study forgets so
 * the runs of an earlier version of itself (a variant dropped, a program
 * renamed, fewer repetitions), so that its database holds what it now
 * describes (doc/gpumix-run.md).
 */
#include <inttypes.h>
#include <stdlib.h>

#include "db.h"
#include "error.h"
#include "loader.h"
#include "loader_int.h"
#include "strbuf.h"

/* The ids @sql finds for @dir, into *@ids (caller frees). */
static int find_ids(struct gm_loader *l, const char *sql, const char *dir,
		    int64_t **ids, size_t *n)
{
	sqlite3_stmt *st;
	size_t alloc = 0;
	int rc;

	*ids = NULL;
	*n = 0;
	if (gm_db_prepare(l->db, &st, sql) || BIND_TEXT(l, st, 1, dir) < 0) {
		sqlite3_finalize(st);
		return -1;
	}
	while ((rc = GM_SQL(l->db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		GM_ALLOC_GROW(*ids, *n + 1, alloc);
		(*ids)[(*n)++] = sqlite3_column_int64(st, 0);
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

int gm_loader_forget(struct gm_loader *l, const char *dir, size_t *nr)
{
	int64_t *runs = NULL, *coruns = NULL;
	size_t nruns = 0, ncoruns = 0;
	int ret = -1;

	*nr = 0;
	if (gm_db_begin(l->db) ||
	    find_ids(l, "SELECT id FROM runs WHERE path = ?1", dir, &runs,
		     &nruns) ||
	    find_ids(l, "SELECT id FROM coruns WHERE path = ?1", dir, &coruns,
		     &ncoruns)) {
		goto out;
	}
	for (size_t i = 0; i < nruns; i++) {
		if (gm_loader_delete_run(l, runs[i])) {
			goto out;
		}
	}
	for (size_t i = 0; i < ncoruns; i++) {
		if (gm_loader_delete_corun(l, coruns[i])) {
			goto out;
		}
	}
	if (gm_db_commit(l->db)) {
		goto out;
	}
	*nr = nruns + ncoruns;
	ret = 0;
out:
	if (ret) {
		gm_db_rollback(l->db);
		gm_error("cannot forget the runs loaded from '%s' (the database"
			 " is unchanged)", dir);
	}
	free(runs);
	free(coruns);
	return ret;
}
