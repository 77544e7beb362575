/* SPDX-License-Identifier: MIT */
/*
 * The results-database schema: its version, the SQLite application id
 * that marks a file as a gpumix database, and the statements that create
 * it. doc/database.md documents every table and column; a change here is
 * a new GM_SCHEMA_VERSION and a change there. A new column that holds the
 * id of a row of another table also needs a row in db_merge.c's remaps,
 * and a new table without a runId column one in its roles.
 */
#ifndef GM_SCHEMA_H
#define GM_SCHEMA_H

/* PRAGMA user_version of databases this gpumix reads and writes. */
#define GM_SCHEMA_VERSION 17

/* PRAGMA application_id: "gmx1" as a big-endian 32-bit number. */
#define GM_APPLICATION_ID 0x676d7831

/* The CREATE statements (tables, indexes, enum rows), in one string. */
extern const char gm_schema_sql[];

#endif
