/* SPDX-License-Identifier: MIT */
/*
 * Recycled small ids: an id freed by the trace (cuMemFree, texture
 * destroy) is handed out again, smallest first, so the replay's tables
 * are as large as the most objects live at once, not as the number ever
 * created, and the choice is deterministic.
 */
#ifndef GM_ID_POOL_H
#define GM_ID_POOL_H

#include <stddef.h>
#include <stdint.h>

struct id_pool {
	uint32_t *heap;		/* min-heap of free ids */
	size_t nr, alloc;
	uint32_t next;		/* ids ever issued: [0, next) */
};

#define ID_POOL_INIT { NULL, 0, 0, 0 }

void id_pool_release(struct id_pool *ip);
uint32_t id_pool_get(struct id_pool *ip);
void id_pool_put(struct id_pool *ip, uint32_t id);

#endif
