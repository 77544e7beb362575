/* SPDX-License-Identifier: MIT */
/*
 * The StringIds table (Nsight Systems' name): every kernel and API name is
 * stored once and referred to by id. This keeps a cache of the table for
 * the length of one load transaction (ids inserted by a transaction that
 * is rolled back must not outlive it).
 */
#ifndef GM_STRING_IDS_H
#define GM_STRING_IDS_H

#include <stdint.h>

#include "db.h"
#include "strmap.h"

struct gm_string_ids {
	struct gm_db *db;		/* borrowed */
	sqlite3_stmt *insert;		/* owned */
	struct gm_strmap map;		/* string -> id (common/strmap.h) */
};

/*
 * Prepare @s for @db and read the existing table. Call inside the
 * transaction that will use it. Returns 0 or -1; release either way.
 */
int gm_string_ids_init(struct gm_string_ids *s, struct gm_db *db);

/* The id of @str, inserting it when new. Returns 0 or -1. */
int gm_string_ids_get(struct gm_string_ids *s, const char *str, int64_t *id);

/* Finalize statements and drop the cache. */
void gm_string_ids_release(struct gm_string_ids *s);

#endif
