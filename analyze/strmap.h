/* SPDX-License-Identifier: MIT */
/*
 * A string -> integer hash map (open addressing, keys copied). Used to
 * intern StringIds and to look kernel names up once per run instead of
 * once per record.
 */
#ifndef GM_STRMAP_H
#define GM_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct gm_strmap_entry {
	char *key;		/* owned; NULL for an empty slot */
	uint64_t hash;
	int64_t value;
};

struct gm_strmap {
	size_t nr, cap;
	struct gm_strmap_entry *slots;
};

#define GM_STRMAP_INIT { 0, 0, NULL }

/* Look @key up: 1 and *@value when present, 0 when not. */
int gm_strmap_get(const struct gm_strmap *m, const char *key, int64_t *value);

/* Set @key (copied) to @value, replacing an existing value. */
void gm_strmap_put(struct gm_strmap *m, const char *key, int64_t value);

/* Free every key and the table; @m is empty and reusable afterwards. */
void gm_strmap_clear(struct gm_strmap *m);

#endif
