/* SPDX-License-Identifier: MIT */
/*
 * StringIds interning (see string_ids.h).
 */
#include "string_ids.h"

#include <string.h>

#include "error.h"

int gm_string_ids_init(struct gm_string_ids *s, struct gm_db *db)
{
	sqlite3_stmt *st = NULL;
	int rc;

	memset(s, 0, sizeof(*s));
	s->db = db;
	if (gm_db_prepare(db, &s->insert,
			  "INSERT INTO StringIds (value) VALUES (?1)") ||
	    gm_db_prepare(db, &st, "SELECT id, value FROM StringIds")) {
		return -1;
	}
	while ((rc = GM_SQL(db->sql, sqlite3_step(st))) == SQLITE_ROW) {
		gm_strmap_put(&s->map, (const char *)sqlite3_column_text(st, 1),
			      sqlite3_column_int64(st, 0));
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

int gm_string_ids_get(struct gm_string_ids *s, const char *str, int64_t *id)
{
	sqlite3 *sql = s->db->sql;

	if (gm_strmap_get(&s->map, str, id)) {
		return 0;
	}
	sqlite3_reset(s->insert);
	if (GM_SQL(sql, sqlite3_bind_text(s->insert, 1, str, -1,
					  SQLITE_TRANSIENT)) < 0 ||
	    GM_SQL(sql, sqlite3_step(s->insert)) < 0) {
		return gm_error("cannot store the name '%.80s'", str);
	}
	*id = sqlite3_last_insert_rowid(sql);
	gm_strmap_put(&s->map, str, *id);
	return 0;
}

void gm_string_ids_release(struct gm_string_ids *s)
{
	sqlite3_finalize(s->insert);
	gm_strmap_clear(&s->map);
	memset(s, 0, sizeof(*s));
}
