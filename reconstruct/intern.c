/* SPDX-License-Identifier: MIT */
/*
 * Interning table (see intern.h): XXH3 over the key, open addressing.
 */
#include "intern.h"

#include <stdlib.h>
#include <string.h>

#include "hash.h"
#include "strbuf.h"

void intern_release(struct intern *in)
{
	for (size_t i = 0; i < in->nr; i++) {
		free(in->items[i].key);
	}
	free(in->items);
	free(in->slots);
	memset(in, 0, sizeof(*in));
}

static void rehash(struct intern *in)
{
	size_t n = in->nr_slots ? in->nr_slots * 2 : 256;

	free(in->slots);
	in->slots = gm_xcalloc(n, sizeof(*in->slots));
	in->nr_slots = n;
	for (size_t i = 0; i < in->nr; i++) {
		size_t j = in->items[i].hash & (n - 1);
		while (in->slots[j]) {
			j = (j + 1) & (n - 1);
		}
		in->slots[j] = (uint32_t)i + 1;
	}
}

uint32_t intern_add(struct intern *in, const void *key, size_t len,
		    int *is_new)
{
	uint64_t h = gm_hash_bytes(key, len).lo;
	size_t j;

	if ((in->nr + 1) * 2 > in->nr_slots) {
		rehash(in);
	}
	for (j = h & (in->nr_slots - 1); in->slots[j];
	     j = (j + 1) & (in->nr_slots - 1)) {
		struct intern_item *it = &in->items[in->slots[j] - 1];
		if (it->hash == h && it->len == len &&
		    !memcmp(it->key, key, len)) {
			if (is_new) {
				*is_new = 0;
			}
			return in->slots[j] - 1;
		}
	}
	GM_ALLOC_GROW(in->items, in->nr + 1, in->alloc);
	in->items[in->nr].hash = h;
	in->items[in->nr].len = len;
	in->items[in->nr].key = gm_xmalloc(len + 1);
	if (len) {
		memcpy(in->items[in->nr].key, key, len);
	}
	in->items[in->nr].key[len] = 0;
	in->slots[j] = (uint32_t)in->nr + 1;
	if (is_new) {
		*is_new = 1;
	}
	return (uint32_t)in->nr++;
}

uint32_t intern_str(struct intern *in, const char *s)
{
	return intern_add(in, s, strlen(s), NULL);
}

const void *intern_key(const struct intern *in, uint32_t id, size_t *len)
{
	if (len) {
		*len = in->items[id].len;
	}
	return in->items[id].key;
}
