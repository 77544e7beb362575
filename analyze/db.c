/* SPDX-License-Identifier: MIT */
/*
 * The results database handle (see db.h): open or create, version check,
 * and checked wrappers around sqlite3_exec/prepare/step.
 */
#include "db.h"

#include <errno.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "schema.h"
#include "strbuf.h"

/* How long a statement waits for another connection's lock. */
#define GM_DB_BUSY_MS 10000

/* What each SQLite call does, for errors (by the start of its name). */
static const struct {
	const char *call;
	const char *what;
} sql_calls[] = {
	{ "sqlite3_open", "open the database" },
	{ "sqlite3_prepare", "prepare a statement" },
	{ "sqlite3_bind", "bind a statement's value" },
	{ "sqlite3_step", "run a statement" },
	{ "sqlite3_exec", "run SQL" },
	{ "sqlite3_backup", "copy the database" },
	{ "sqlite3_reset", "reset a statement" },
	{ "sqlite3_finalize", "finish a statement" },
};

int gm_sql_check(sqlite3 *sql, int rc, const char *call)
{
	const char *what = "use the database";
	const char *file = sql ? sqlite3_db_filename(sql, "main") : NULL;

	if (rc == SQLITE_OK || rc == SQLITE_ROW || rc == SQLITE_DONE) {
		return rc;
	}
	for (size_t i = 0; i < sizeof(sql_calls) / sizeof(sql_calls[0]); i++) {
		if (!strncmp(call, sql_calls[i].call, strlen(sql_calls[i].call))) {
			what = sql_calls[i].what;
			break;
		}
	}
	/* errmsg is only meaningful while the connection's last call failed. */
	const char *msg = sql && sqlite3_errcode(sql) == rc
		? sqlite3_errmsg(sql) : sqlite3_errstr(rc);
	if (file && *file) {
		return gm_error("sqlite: cannot %s on '%s': %s (%s)", what, file,
				msg, sqlite3_errstr(rc));
	}
	return gm_error("sqlite: cannot %s: %s (%s)", what, msg,
			sqlite3_errstr(rc));
}

int gm_db_exec(struct gm_db *db, const char *sql)
{
	char *msg = NULL;
	int rc = sqlite3_exec(db->sql, sql, NULL, NULL, &msg);

	if (rc != SQLITE_OK) {
		gm_error("sqlite: cannot run '%.60s%s': %s (%s)", sql,
			 strlen(sql) > 60 ? "..." : "",
			 msg ? msg : sqlite3_errmsg(db->sql), sqlite3_errstr(rc));
		sqlite3_free(msg);
		return -1;
	}
	return 0;
}

int gm_db_prepare(struct gm_db *db, sqlite3_stmt **st, const char *sql)
{
	*st = NULL;
	if (GM_SQL(db->sql, sqlite3_prepare_v2(db->sql, sql, -1, st, NULL)) < 0) {
		return gm_error("cannot prepare '%.60s%s'", sql,
				strlen(sql) > 60 ? "..." : "");
	}
	return 0;
}

int gm_db_query_int(struct gm_db *db, const char *sql, int64_t dflt,
		    int64_t *out)
{
	sqlite3_stmt *st;
	int rc;

	if (gm_db_prepare(db, &st, sql)) {
		return -1;
	}
	rc = GM_SQL(db->sql, sqlite3_step(st));
	if (rc == SQLITE_ROW) {
		*out = sqlite3_column_type(st, 0) == SQLITE_NULL
			? dflt : sqlite3_column_int64(st, 0);
	} else if (rc == SQLITE_DONE) {
		*out = dflt;
	}
	sqlite3_finalize(st);
	return rc < 0 ? -1 : 0;
}

int gm_db_begin(struct gm_db *db)
{
	return gm_db_exec(db, "BEGIN IMMEDIATE");
}

int gm_db_commit(struct gm_db *db)
{
	return gm_db_exec(db, "COMMIT");
}

void gm_db_rollback(struct gm_db *db)
{
	if (db->sql && !sqlite3_get_autocommit(db->sql)) {
		sqlite3_exec(db->sql, "ROLLBACK", NULL, NULL, NULL);
	}
}

static int create_schema(struct gm_db *db)
{
	struct strbuf sb = STRBUF_INIT;
	int ret;

	strbuf_addf(&sb, "BEGIN IMMEDIATE;\n%s"
		    "INSERT INTO gpumix_meta VALUES ('schema_version', '%d');\n"
		    "PRAGMA application_id = %d;\n"
		    "PRAGMA user_version = %d;\n"
		    "COMMIT;\n",
		    gm_schema_sql, GM_SCHEMA_VERSION, GM_APPLICATION_ID,
		    GM_SCHEMA_VERSION);
	ret = gm_db_exec(db, sb.buf);
	if (ret) {
		gm_db_rollback(db);
		gm_error("cannot create the schema in '%s'", db->path);
	}
	strbuf_release(&sb);
	return ret;
}

/*
 * 1 when @sql holds @column in @table, or (@column NULL) holds @table at
 * all; 0 otherwise.
 */
static int has_column(sqlite3 *sql, const char *table, const char *column)
{
	sqlite3_stmt *st;
	int found = 0;

	if (sqlite3_prepare_v2(sql, column
			       ? "SELECT 1 FROM pragma_table_info(?1) WHERE name = ?2"
			       : "SELECT 1 FROM sqlite_master WHERE type = 'table' "
				 "AND name = ?1", -1, &st, NULL) != SQLITE_OK) {
		return 0;
	}
	sqlite3_bind_text(st, 1, table, -1, SQLITE_STATIC);
	if (column) {
		sqlite3_bind_text(st, 2, column, -1, SQLITE_STATIC);
	}
	found = sqlite3_step(st) == SQLITE_ROW;
	sqlite3_finalize(st);
	return found;
}

/*
 * A database of our version must hold every table and column that
 * gm_schema_sql creates; otherwise the first query would fail with a raw
 * "no such table". The reference is that schema created in memory, so
 * this check cannot disagree with it.
 */
static int check_tables(struct gm_db *db)
{
	sqlite3 *ref = NULL;
	sqlite3_stmt *st = NULL;
	int ret = -1;

	if (GM_SQL(NULL, sqlite3_open_v2(":memory:", &ref, SQLITE_OPEN_READWRITE,
					 NULL)) < 0 ||
	    GM_SQL(ref, sqlite3_exec(ref, gm_schema_sql, NULL, NULL, NULL)) < 0 ||
	    GM_SQL(ref, sqlite3_prepare_v2(ref, "SELECT m.name, c.name FROM "
					   "sqlite_master AS m, pragma_table_info(m.name) "
					   "AS c WHERE m.type = 'table' ORDER BY m.name, c.cid",
					   -1, &st, NULL)) < 0) {
		gm_error("cannot check the tables of '%s'", db->path);
		goto out;
	}
	while (sqlite3_step(st) == SQLITE_ROW) {
		const char *t = (const char *)sqlite3_column_text(st, 0);
		const char *c = (const char *)sqlite3_column_text(st, 1);
		if (!has_column(db->sql, t, c)) {
			if (has_column(db->sql, t, NULL)) {
				gm_error("'%s' is a damaged gpumix database: table "
					 "'%s' has no column '%s'", db->path, t, c);
			} else {
				gm_error("'%s' is a damaged gpumix database: table "
					 "'%s' is missing", db->path, t);
			}
			gm_error_hint("the database is only a cache of the run "
				      "directories: remove it and load them again "
				      "with gpumix analyze");
			goto out;
		}
	}
	ret = 0;
out:
	sqlite3_finalize(st);
	sqlite3_close(ref);
	return ret;
}

/*
 * Decide what the file at db->path is: a fresh (empty) database, a gpumix
 * database of our version, or something we must refuse.
 */
static int check_version(struct gm_db *db, enum gm_db_mode mode)
{
	int64_t app, version, objects;

	if (gm_db_query_int(db, "PRAGMA application_id", 0, &app) ||
	    gm_db_query_int(db, "PRAGMA user_version", 0, &version) ||
	    gm_db_query_int(db, "SELECT count(*) FROM sqlite_master", 0,
			    &objects)) {
		int code = sqlite3_errcode(db->sql);

		if (code == SQLITE_BUSY || code == SQLITE_LOCKED) {
			/* Not damage: another connection holds it. */
			gm_error("database '%s' is locked: another program kept "
				 "it locked for %d s", db->path,
				 GM_DB_BUSY_MS / 1000);
			gm_error_hint("wait for the program using it (a gpumix "
				      "analyze, an open sqlite3 session) to "
				      "finish, then run this again");
			return -1;
		}
		return gm_error("cannot read '%s' as a SQLite database",
				db->path);
	}
	if (!objects && !app && !version) {
		if (mode == GM_DB_READ) {
			gm_error("'%s' is an empty database (nothing was loaded)",
				 db->path);
			gm_error_hint("load runs first: gpumix analyze RUNDIR... -o %s",
				      db->path);
			return -1;
		}
		if (create_schema(db)) {
			return -1;
		}
		db->created = 1;
		return 0;
	}
	if (app != GM_APPLICATION_ID) {
		gm_error("'%s' is a SQLite database but not a gpumix results database",
			 db->path);
		gm_error_hint("choose another file with -o");
		return -1;
	}
	if (version < GM_SCHEMA_VERSION) {
		gm_error("'%s' has schema version %" PRId64
			 ", older than version %d that this gpumix reads and writes",
			 db->path, version, GM_SCHEMA_VERSION);
		gm_error_hint("the database is only a cache of the run directories:"
			      " remove it and load them again with gpumix analyze");
		return -1;
	}
	if (version > GM_SCHEMA_VERSION) {
		gm_error("'%s' has schema version %" PRId64
			 ", newer than version %d that this gpumix reads and writes",
			 db->path, version, GM_SCHEMA_VERSION);
		gm_error_hint("use the gpumix that created it, or a newer one");
		return -1;
	}
	return check_tables(db);
}

/*
 * Why @path cannot be opened in @mode, as the system says ("Permission
 * denied"), or NULL: the file, or for a new one its directory, must be
 * readable (and writable to write).
 */
static const char *why_not_open(const char *path, enum gm_db_mode mode)
{
	int want = mode == GM_DB_READ ? R_OK : R_OK | W_OK;
	const char *slash = strrchr(path, '/');
	char *dir;
	int bad;

	if (!access(path, F_OK)) {
		return access(path, want) ? strerror(errno) : NULL;
	}
	if (mode == GM_DB_READ) {
		return strerror(errno);
	}
	dir = slash ? gm_xasprintf("%.*s", (int)(slash - path + 1), path)
		    : gm_xstrdup(".");
	bad = access(dir, W_OK | X_OK);
	free(dir);
	return bad ? strerror(errno) : NULL;
}

int gm_db_open(struct gm_db *db, const char *path, enum gm_db_mode mode)
{
	/* One connection, one thread: no need for SQLite's own mutexes. */
	int flags = SQLITE_OPEN_NOMUTEX | (mode == GM_DB_READ
		? SQLITE_OPEN_READONLY : SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE);
	struct stat st;
	struct gm_file_lock_wait w = { 1, db->waiting, db->waiting_arg };

	db->sql = NULL;
	db->created = 0;
	db->lock.fd = -1;
	db->lock.path = NULL;
	db->path = gm_xstrdup(path);
	if (mode == GM_DB_WRITE && strcmp(path, ":memory:") &&
	    gm_file_lock_take(&db->lock, path, 0, &w)) {
		gm_error("cannot open database '%s' for writing", path);
		goto fail;
	}
	if (mode == GM_DB_READ && stat(path, &st)) {
		gm_error_errno("cannot open database '%s'", path);
		goto fail;
	}
	if (mode == GM_DB_READ && S_ISDIR(st.st_mode)) {
		gm_error("cannot open database '%s': it is a directory", path);
		goto fail;
	}
	/* SQLite would wait on a FIFO (and read a device) for ever. */
	if (gm_regular_or_absent(path)) {
		gm_error("cannot open database '%s'", path);
		goto fail;
	}
	if (GM_SQL(NULL, sqlite3_open_v2(path, &db->sql, flags, NULL)) < 0) {
		const char *why = why_not_open(path, mode);
		/* SQLite's "unable to open database file" says not why. */
		gm_error("cannot open database '%s'%s%s", path,
			 why || db->sql ? ": " : "",
			 why ? why : db->sql ? sqlite3_errmsg(db->sql) : "");
		goto fail;
	}
	sqlite3_extended_result_codes(db->sql, 0);
	sqlite3_busy_timeout(db->sql, GM_DB_BUSY_MS);
	if (check_version(db, mode)) {
		goto fail;
	}
	/*
	 * Bulk loading: a big page cache, temporary data in memory. Durability
	 * stays the default (each committed run survives a crash).
	 */
	if (gm_db_exec(db, "PRAGMA cache_size = -131072;"
			   "PRAGMA temp_store = MEMORY;")) {
		goto fail;
	}
	return 0;
fail:
	gm_db_close(db);
	return -1;
}

int gm_db_close_unused(struct gm_db *db)
{
	int removed = 0;

	if (db->sql && db->created && db->path && strcmp(db->path, ":memory:")) {
		char *journal = gm_xasprintf("%s-journal", db->path);
		sqlite3_close_v2(db->sql);
		db->sql = NULL;
		removed = !unlink(db->path);
		unlink(journal);
		free(journal);
	}
	gm_db_close(db);
	return removed;
}

void gm_db_close(struct gm_db *db)
{
	if (db->sql) {
		sqlite3_close_v2(db->sql);
	}
	db->sql = NULL;
	free(db->path);
	db->path = NULL;
	/* After the connection: the next writer finds everything committed. */
	gm_file_lock_release(&db->lock);
}
