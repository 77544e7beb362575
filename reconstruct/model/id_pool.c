/* SPDX-License-Identifier: MIT */
/*
 * Id pool (see id_pool.h): a binary min-heap of freed ids.
 */
#include "id_pool.h"

#include <stdlib.h>

#include "strbuf.h"

void id_pool_release(struct id_pool *ip)
{
	free(ip->heap);
	ip->heap = NULL;
	ip->nr = ip->alloc = 0;
	ip->next = 0;
}

uint32_t id_pool_get(struct id_pool *ip)
{
	uint32_t top, *h = ip->heap;
	size_t i = 0;

	if (!ip->nr) {
		return ip->next++;
	}
	top = h[0];
	h[0] = h[--ip->nr];
	for (;;) {
		size_t l = 2 * i + 1, r = l + 1, m = i;
		if (l < ip->nr && h[l] < h[m]) {
			m = l;
		}
		if (r < ip->nr && h[r] < h[m]) {
			m = r;
		}
		if (m == i) {
			break;
		}
		uint32_t t = h[i];
		h[i] = h[m];
		h[m] = t;
		i = m;
	}
	return top;
}

void id_pool_put(struct id_pool *ip, uint32_t id)
{
	size_t i;

	GM_ALLOC_GROW(ip->heap, ip->nr + 1, ip->alloc);
	i = ip->nr++;
	ip->heap[i] = id;
	while (i && ip->heap[(i - 1) / 2] > ip->heap[i]) {
		uint32_t t = ip->heap[i];
		ip->heap[i] = ip->heap[(i - 1) / 2];
		ip->heap[(i - 1) / 2] = t;
		i = (i - 1) / 2;
	}
}
