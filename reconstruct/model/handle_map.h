/* SPDX-License-Identifier: MIT */
/*
 * A map from captured handle values (CUstream, CUevent, CUlibrary,
 * CUkernel, CUtexObject, pointers: any non-zero or zero 64-bit value) to
 * small model ids: apitrace's "swizzling" table. Open addressing with
 * tombstones, so handles the program destroys and the driver hands out
 * again simply map to their new object.
 */
#ifndef GM_HANDLE_MAP_H
#define GM_HANDLE_MAP_H

#include <stddef.h>
#include <stdint.h>

struct handle_map {
	struct handle_slot {
		uint64_t key;
		uint32_t value;
		uint8_t state;	/* 0 empty, 1 used, 2 deleted */
	} *slots;
	size_t nr_slots, nr_used, nr_deleted;
};

#define HANDLE_MAP_INIT { NULL, 0, 0, 0 }

void handle_map_release(struct handle_map *m);

/* Map @key to @value (replacing an older mapping). */
void handle_map_put(struct handle_map *m, uint64_t key, uint32_t value);

/* 1 and *@value when @key is mapped, else 0. */
int handle_map_get(const struct handle_map *m, uint64_t key, uint32_t *value);

/* Forget @key; returns 1 when it was mapped. */
int handle_map_del(struct handle_map *m, uint64_t key);

#endif
