/* SPDX-License-Identifier: MIT */
/*
 * The string map (see strmap.h): items in id order, a slot table of ids
 * probed linearly from the key's XXH3 hash.
 */
#include "strmap.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "strbuf.h"

void gm_strmap_clear(struct gm_strmap *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		free(m->items[i].key);
	}
	free(m->items);
	free(m->slots);
	memset(m, 0, sizeof(*m));
}

static void rehash(struct gm_strmap *m)
{
	size_t n = m->nr_slots ? m->nr_slots * 2 : 256;

	free(m->slots);
	m->slots = gm_xcalloc(n, sizeof(*m->slots));
	m->nr_slots = n;
	for (size_t i = 0; i < m->nr; i++) {
		size_t j = m->items[i].hash & (n - 1);
		while (m->slots[j]) {
			j = (j + 1) & (n - 1);
		}
		m->slots[j] = (uint32_t)i + 1;
	}
}

/* The slot that holds @key, or the empty slot where it would go. */
static size_t slot_of(const struct gm_strmap *m, const void *key, size_t len,
		      uint64_t h)
{
	size_t mask = m->nr_slots - 1, j;

	for (j = h & mask; m->slots[j]; j = (j + 1) & mask) {
		const struct gm_strmap_item *it = &m->items[m->slots[j] - 1];
		if (it->hash == h && it->len == len &&
		    !memcmp(it->key, key, len)) {
			break;
		}
	}
	return j;
}

uint32_t gm_strmap_add(struct gm_strmap *m, const void *key, size_t len,
		       int *is_new)
{
	uint64_t h = gm_hash_bytes(key, len).lo;
	struct gm_strmap_item *it;
	size_t j;

	if ((m->nr + 1) * 2 > m->nr_slots) {
		rehash(m);
	}
	j = slot_of(m, key, len, h);
	if (is_new) {
		*is_new = !m->slots[j];
	}
	if (m->slots[j]) {
		return m->slots[j] - 1;
	}
	GM_ALLOC_GROW(m->items, m->nr + 1, m->alloc);
	it = &m->items[m->nr];
	it->hash = h;
	it->len = len;
	it->key = gm_xmalloc(len + 1);
	if (len) {
		memcpy(it->key, key, len);
	}
	it->key[len] = 0;
	it->value = 0;
	m->slots[j] = (uint32_t)m->nr + 1;
	return (uint32_t)m->nr++;
}

uint32_t gm_strmap_intern(struct gm_strmap *m, const char *s)
{
	return gm_strmap_add(m, s, strlen(s), NULL);
}

int64_t gm_strmap_find(const struct gm_strmap *m, const void *key, size_t len)
{
	size_t j;

	if (!m->nr_slots) {
		return -1;
	}
	j = slot_of(m, key, len, gm_hash_bytes(key, len).lo);
	return m->slots[j] ? (int64_t)m->slots[j] - 1 : -1;
}

const void *gm_strmap_key(const struct gm_strmap *m, uint32_t id, size_t *len)
{
	if (len) {
		*len = m->items[id].len;
	}
	return m->items[id].key;
}

void gm_strmap_put_bytes(struct gm_strmap *m, const void *key, size_t len,
			 int64_t value)
{
	uint32_t id = gm_strmap_add(m, key, len, NULL);	/* may move items */

	m->items[id].value = value;
}

int gm_strmap_get_bytes(const struct gm_strmap *m, const void *key, size_t len,
			int64_t *value)
{
	int64_t id = gm_strmap_find(m, key, len);

	if (id < 0) {
		return 0;
	}
	*value = m->items[id].value;
	return 1;
}

void gm_strmap_put(struct gm_strmap *m, const char *key, int64_t value)
{
	gm_strmap_put_bytes(m, key, strlen(key), value);
}

int gm_strmap_get(const struct gm_strmap *m, const char *key, int64_t *value)
{
	return gm_strmap_get_bytes(m, key, strlen(key), value);
}
