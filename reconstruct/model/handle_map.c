/* SPDX-License-Identifier: MIT */
/*
 * Handle map (see handle_map.h): linear probing over a power-of-two table
 * kept at most half full (tombstones included).
 */
#include "handle_map.h"

#include <stdlib.h>

#include "strbuf.h"

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdull;
	k ^= k >> 33;
	k *= 0xc4ceb9fe1a85ec53ull;
	k ^= k >> 33;
	return k;
}

void handle_map_release(struct handle_map *m)
{
	free(m->slots);
	m->slots = NULL;
	m->nr_slots = m->nr_used = m->nr_deleted = 0;
}

static struct handle_slot *find(const struct handle_map *m, uint64_t key,
				struct handle_slot **first_free)
{
	size_t mask = m->nr_slots - 1;

	*first_free = NULL;
	for (size_t i = mix(key) & mask;; i = (i + 1) & mask) {
		struct handle_slot *s = &m->slots[i];
		if (s->state == 0) {
			if (!*first_free) {
				*first_free = s;
			}
			return NULL;
		}
		if (s->state == 2) {
			if (!*first_free) {
				*first_free = s;
			}
		} else if (s->key == key) {
			return s;
		}
	}
}

static void grow(struct handle_map *m)
{
	struct handle_slot *old = m->slots;
	size_t n = m->nr_slots;

	m->nr_slots = n ? n * 2 : 64;
	if (m->nr_used * 4 < n) {
		m->nr_slots = n;	/* only tombstones to clear */
	}
	m->slots = gm_xcalloc(m->nr_slots, sizeof(*m->slots));
	m->nr_used = m->nr_deleted = 0;
	for (size_t i = 0; i < n; i++) {
		if (old[i].state == 1) {
			handle_map_put(m, old[i].key, old[i].value);
		}
	}
	free(old);
}

void handle_map_put(struct handle_map *m, uint64_t key, uint32_t value)
{
	struct handle_slot *s, *free_slot;

	if (!m->nr_slots || (m->nr_used + m->nr_deleted + 1) * 2 > m->nr_slots) {
		grow(m);
	}
	s = find(m, key, &free_slot);
	if (s) {
		s->value = value;
		return;
	}
	if (free_slot->state == 2) {
		m->nr_deleted--;
	}
	free_slot->state = 1;
	free_slot->key = key;
	free_slot->value = value;
	m->nr_used++;
}

int handle_map_get(const struct handle_map *m, uint64_t key, uint32_t *value)
{
	struct handle_slot *s, *free_slot;

	if (!m->nr_slots) {
		return 0;
	}
	s = find(m, key, &free_slot);
	if (!s) {
		return 0;
	}
	*value = s->value;
	return 1;
}

int handle_map_del(struct handle_map *m, uint64_t key)
{
	struct handle_slot *s, *free_slot;

	if (!m->nr_slots) {
		return 0;
	}
	s = find(m, key, &free_slot);
	if (!s) {
		return 0;
	}
	s->state = 2;
	m->nr_used--;
	m->nr_deleted++;
	return 1;
}
