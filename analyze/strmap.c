/* SPDX-License-Identifier: MIT */
/*
 * String -> integer hash map (see strmap.h): FNV-1a hashes, linear
 * probing, the table kept at most half full.
 */
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static uint64_t hash_str(const char *s)
{
	uint64_t h = 1469598103934665603ULL;

	for (; *s; s++) {
		h ^= (unsigned char)*s;
		h *= 1099511628211ULL;
	}
	return h;
}

static struct gm_strmap_entry *find(const struct gm_strmap *m, const char *key,
				    uint64_t h)
{
	size_t mask = m->cap - 1;

	for (size_t i = h & mask;; i = (i + 1) & mask) {
		struct gm_strmap_entry *e = &m->slots[i];
		if (!e->key || (e->hash == h && !strcmp(e->key, key))) {
			return e;
		}
	}
}

int gm_strmap_get(const struct gm_strmap *m, const char *key, int64_t *value)
{
	if (!m->cap) {
		return 0;
	}
	struct gm_strmap_entry *e = find(m, key, hash_str(key));
	if (!e->key) {
		return 0;
	}
	*value = e->value;
	return 1;
}

static void grow(struct gm_strmap *m)
{
	struct gm_strmap old = *m;

	m->cap = old.cap ? old.cap * 2 : 64;
	m->slots = gm_xcalloc(m->cap, sizeof(*m->slots));
	for (size_t i = 0; i < old.cap; i++) {
		if (old.slots[i].key) {
			*find(m, old.slots[i].key, old.slots[i].hash) =
				old.slots[i];
		}
	}
	free(old.slots);
}

void gm_strmap_put(struct gm_strmap *m, const char *key, int64_t value)
{
	uint64_t h = hash_str(key);
	struct gm_strmap_entry *e;

	if ((m->nr + 1) * 2 > m->cap) {
		grow(m);
	}
	e = find(m, key, h);
	if (!e->key) {
		e->key = gm_xstrdup(key);
		e->hash = h;
		m->nr++;
	}
	e->value = value;
}

void gm_strmap_clear(struct gm_strmap *m)
{
	for (size_t i = 0; i < m->cap; i++) {
		free(m->slots[i].key);
	}
	free(m->slots);
	m->slots = NULL;
	m->nr = m->cap = 0;
}
