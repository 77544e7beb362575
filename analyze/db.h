/* SPDX-License-Identifier: MIT */
/*
 * The results database: a SQLite file holding the runs that `gpumix
 * analyze` loaded (schema in schema.h, documented in doc/database.md).
 * This file opens and creates it, checks that its schema version is the
 * one this gpumix writes, and wraps the few SQLite calls everything else
 * uses. Every SQLite call goes through GM_SQL(), which records the call
 * text, file:line and SQLite's own message as an error cause.
 */
#ifndef GM_DB_H
#define GM_DB_H

#include <sqlite3.h>
#include <stdint.h>

#include "file_lock.h"

struct gm_db {
	sqlite3 *sql;		/* owned */
	char *path;		/* owned */
	int created;		/* 1 when this open created the schema */
	/* GM_DB_WRITE: the database's lock, held until gm_db_close(). */
	struct gm_file_lock lock;
	/* In, may be NULL: called once when gm_db_open() must wait for
	 * another writer's lock (the CLI says so); kept by gm_db_open(). */
	void (*waiting)(void *arg, const char *lock_path);
	void *waiting_arg;
};

#define GM_DB_INIT { NULL, NULL, 0, GM_FILE_LOCK_INIT, NULL, NULL }

/*
 * Check the result @rc of the SQLite call whose source text is @call.
 * SQLITE_OK, SQLITE_ROW and SQLITE_DONE are returned unchanged; any other
 * code records "sqlite: cannot OPERATION on 'FILE': message (code)" (the
 * operation the call does, "run a statement"; the connection's file) and
 * returns -1: what went wrong, not where in gpumix's source. @sql may be
 * NULL (then only the code is decoded).
 */
int gm_sql_check(sqlite3 *sql, int rc, const char *call);

#define GM_SQL(sql, call) gm_sql_check((sql), (call), #call)

enum gm_db_mode {
	GM_DB_READ,		/* existing database, read only */
	GM_DB_WRITE,		/* create the file and schema when missing */
	/* GM_DB_WRITE of a temporary file that will replace a database
	 * whose lock the caller holds (the merge): no lock of its own. */
	GM_DB_WRITE_TEMP,
};

/*
 * Open the database at @path. GM_DB_READ needs an existing gpumix
 * database; GM_DB_WRITE creates the file (and the schema) when it does
 * not exist or is empty. Either way the schema version must be exactly
 * GM_SCHEMA_VERSION: an older or newer database, or a SQLite file that
 * is not a gpumix database, is an error with a hint.
 *
 * GM_DB_WRITE first takes the database's lock (file_lock.h: "PATH.lock",
 * exclusive), waiting for another writer to finish, and holds it until
 * gm_db_close(): every writer (gpumix analyze, analyze --merge, a study's
 * analyze stages) holds it for its whole read-modify-write, so that two
 * of them neither lose each other's runs nor race to create the schema.
 * A reader takes no lock: SQLite's own locking and the merge's rename
 * give it a whole database, the old or the new. ":memory:" is not
 * locked. Set @db->waiting before to hear of a wait. Returns 0 or -1
 * (cause recorded, @db left closed).
 */
int gm_db_open(struct gm_db *db, const char *path, enum gm_db_mode mode);

/* Close @db (harmless when not open); frees what gm_db_open allocated. */
void gm_db_close(struct gm_db *db);

/*
 * Close @db, which this gm_db_open() created (@db->created) and into which
 * nothing was loaded, and remove its file (and SQLite's journal), before
 * its lock is released: a command that loaded nothing leaves no empty
 * database behind. A database that existed before is only closed.
 * Returns 1 when the file was removed, 0 when it was not.
 */
int gm_db_close_unused(struct gm_db *db);

/* Run one or more SQL statements without results. Returns 0 or -1. */
int gm_db_exec(struct gm_db *db, const char *sql);

/* Prepare @sql into *@st (caller finalizes). Returns 0 or -1. */
int gm_db_prepare(struct gm_db *db, sqlite3_stmt **st, const char *sql);

/*
 * Run @sql, which must return one integer (or NULL, read as @dflt), into
 * *@out. Returns 0 or -1.
 */
int gm_db_query_int(struct gm_db *db, const char *sql, int64_t dflt,
		    int64_t *out);

/* BEGIN IMMEDIATE / COMMIT / ROLLBACK. Rollback never fails loudly. */
int gm_db_begin(struct gm_db *db);
int gm_db_commit(struct gm_db *db);
void gm_db_rollback(struct gm_db *db);

#endif
