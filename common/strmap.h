/* SPDX-License-Identifier: MIT */
/*
 * The one string map of gpumix: byte strings (not necessarily
 * NUL-terminated, possibly binary: hashes, packed descriptors) each get a
 * dense id, in the order they were first added, and an integer value.
 * Used to intern (reconstruct's model tables: an id is an index into the
 * generated program's tables), to map names to indices (PTX labels and
 * registers, kernel names) and to count. Keys are copied: the map owns
 * them. Open addressing over XXH3, the table kept at most half full.
 */
#ifndef GM_STRMAP_H
#define GM_STRMAP_H

#include <stddef.h>
#include <stdint.h>

struct gm_strmap {
	struct gm_strmap_item {
		uint64_t hash;
		size_t len;
		unsigned char *key;	/* owned, NUL-terminated copy */
		int64_t value;
	} *items;			/* by id */
	size_t nr, alloc;
	uint32_t *slots;		/* id + 1, 0 empty */
	size_t nr_slots;
};

#define GM_STRMAP_INIT { NULL, 0, 0, NULL, 0 }

/* Free the keys and the table; @m is empty (GM_STRMAP_INIT) again. */
void gm_strmap_clear(struct gm_strmap *m);

/*
 * The id of @key (@len bytes), adding it with value 0 when it is new;
 * *@is_new (may be NULL) says which. Aborts on OOM.
 */
uint32_t gm_strmap_add(struct gm_strmap *m, const void *key, size_t len,
		       int *is_new);

/* gm_strmap_add() of the NUL-terminated string @s. */
uint32_t gm_strmap_intern(struct gm_strmap *m, const char *s);

/* The id of @key, or -1 when it is not in the map. */
int64_t gm_strmap_find(const struct gm_strmap *m, const void *key, size_t len);

/* The key of id @id (borrowed, NUL-terminated); its length in *@len. */
const void *gm_strmap_key(const struct gm_strmap *m, uint32_t id, size_t *len);

/* Set the value of @key, adding the key when it is new. */
void gm_strmap_put_bytes(struct gm_strmap *m, const void *key, size_t len,
			 int64_t value);

/* 1 and the value of @key in *@value, or 0 when it is not in the map. */
int gm_strmap_get_bytes(const struct gm_strmap *m, const void *key, size_t len,
			int64_t *value);

/* The same for NUL-terminated keys. */
void gm_strmap_put(struct gm_strmap *m, const char *key, int64_t value);
int gm_strmap_get(const struct gm_strmap *m, const char *key, int64_t *value);

#endif
