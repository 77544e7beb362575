/* SPDX-License-Identifier: MIT */
/*
 * Interning of byte strings: each distinct key gets a stable id, in order
 * of first appearance (so generated tables are deterministic). Used for
 * API names, kernel parameter buffers, launch configurations, texture
 * descriptions and expected hashes, which repeat a lot in real traces.
 */
#ifndef GM_INTERN_H
#define GM_INTERN_H

#include <stddef.h>
#include <stdint.h>

struct intern {
	struct intern_item {
		uint64_t hash;
		size_t len;
		unsigned char *key;	/* owned, NUL-terminated copy */
	} *items;
	size_t nr, alloc;
	uint32_t *slots;		/* id + 1, 0 empty */
	size_t nr_slots;
};

#define INTERN_INIT { NULL, 0, 0, NULL, 0 }

void intern_release(struct intern *in);

/* Id of @key (added when new; *@is_new tells, may be NULL). */
uint32_t intern_add(struct intern *in, const void *key, size_t len,
		    int *is_new);

/* Id of the string @s. */
uint32_t intern_str(struct intern *in, const char *s);

/* The key of @id (NUL-terminated; valid until release). */
const void *intern_key(const struct intern *in, uint32_t id, size_t *len);

#endif
