/* SPDX-License-Identifier: MIT */
/*
 * Range bookkeeping of the bulk allocator (see bulk_alloc.h). Free lists
 * are sorted arrays per chunk: replayed programs keep few blocks live, so
 * a linear best-fit scan is cheaper than a tree and easy to check.
 */
#include "bulk_alloc.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

/* The unbounded planning chunk: large, but far from overflowing. */
#define PLAN_CHUNK_SIZE (UINT64_C(1) << 60)

void gm_bulk_alloc_init(struct bulk_alloc *ba, uint64_t align)
{
	memset(ba, 0, sizeof(*ba));
	ba->align = align ? align : BULK_ALLOC_ALIGN;
}

void gm_bulk_alloc_release(struct bulk_alloc *ba)
{
	uint64_t align = ba->align;

	for (size_t i = 0; i < ba->nr_chunks; i++) {
		free(ba->chunks[i].free);
	}
	free(ba->chunks);
	gm_bulk_alloc_init(ba, align);
}

uint64_t gm_bulk_alloc_round(const struct bulk_alloc *ba, uint64_t size)
{
	if (!size) {
		size = 1;
	}
	if (size > UINT64_MAX - (ba->align - 1)) {
		return 0;	/* it would wrap to a small block */
	}
	return (size + ba->align - 1) & ~(ba->align - 1);
}

static void chunk_set_all_free(struct bulk_chunk *c)
{
	GM_ALLOC_GROW(c->free, 1, c->alloc_free);
	c->free[0].start = c->base;
	c->free[0].size = c->size;
	c->nr_free = 1;
}

int gm_bulk_alloc_add_chunk(struct bulk_alloc *ba, uint64_t base,
			    uint64_t size)
{
	struct bulk_chunk *c;

	if ((base & (ba->align - 1)) || !size) {
		return gm_error("bad device memory chunk at 0x%llx (%llu bytes)",
				(unsigned long long)base,
				(unsigned long long)size);
	}
	size &= ~(ba->align - 1);
	for (size_t i = 0; i < ba->nr_chunks; i++) {
		const struct bulk_chunk *o = &ba->chunks[i];
		if (base < o->base + o->size && o->base < base + size) {
			return gm_error("device memory chunk at 0x%llx overlaps"
					" another chunk",
					(unsigned long long)base);
		}
	}
	GM_ALLOC_GROW(ba->chunks, ba->nr_chunks + 1, ba->alloc_chunks);
	c = &ba->chunks[ba->nr_chunks++];
	memset(c, 0, sizeof(*c));
	c->base = base;
	c->size = size;
	chunk_set_all_free(c);
	return 0;
}

void gm_bulk_alloc_plan_init(struct bulk_alloc *ba, uint64_t align)
{
	gm_bulk_alloc_init(ba, align);
	gm_bulk_alloc_add_chunk(ba, 0, PLAN_CHUNK_SIZE);
}

static int is_tail(const struct bulk_chunk *c, const struct bulk_range *r)
{
	return r->start + r->size == c->base + c->size;
}

int gm_bulk_alloc_get(struct bulk_alloc *ba, uint64_t size, uint64_t *addr)
{
	uint64_t need = gm_bulk_alloc_round(ba, size);
	struct bulk_chunk *best_c = NULL, *tail_c = NULL;
	size_t best_i = 0, tail_i = 0;

	if (!need) {
		return 1;	/* larger than any memory */
	}
	/* Best fit among holes; first chunk with a big enough tail. */
	for (size_t ci = 0; ci < ba->nr_chunks; ci++) {
		struct bulk_chunk *c = &ba->chunks[ci];
		for (size_t i = 0; i < c->nr_free; i++) {
			struct bulk_range *r = &c->free[i];
			if (r->size < need) {
				continue;
			}
			if (is_tail(c, r)) {
				if (!tail_c) {
					tail_c = c;
					tail_i = i;
				}
				continue;
			}
			if (!best_c || r->size < best_c->free[best_i].size) {
				best_c = c;
				best_i = i;
			}
		}
	}
	if (!best_c) {
		best_c = tail_c;
		best_i = tail_i;
	}
	if (!best_c) {
		return 1;
	}

	struct bulk_range *r = &best_c->free[best_i];
	*addr = r->start;
	r->start += need;
	r->size -= need;
	if (!r->size) {
		memmove(r, r + 1,
			(best_c->nr_free - best_i - 1) * sizeof(*r));
		best_c->nr_free--;
	}
	if (*addr + need - best_c->base > ba->high_water) {
		ba->high_water = *addr + need - best_c->base;
	}
	ba->live_bytes += need;
	ba->nr_live++;
	if (ba->live_bytes > ba->peak_live_bytes) {
		ba->peak_live_bytes = ba->live_bytes;
	}
	return 0;
}

int gm_bulk_alloc_put(struct bulk_alloc *ba, uint64_t addr, uint64_t size)
{
	uint64_t need = gm_bulk_alloc_round(ba, size);
	struct bulk_chunk *c = NULL;
	size_t lo, hi;

	for (size_t ci = 0; ci < ba->nr_chunks; ci++) {
		struct bulk_chunk *o = &ba->chunks[ci];
		if (addr >= o->base && addr < o->base + o->size) {
			c = o;
			break;
		}
	}
	if (!c || !need || need > c->base + c->size - addr) {
		return gm_error("freeing 0x%llx (%llu bytes): not a block of the"
				" bulk allocator", (unsigned long long)addr,
				(unsigned long long)size);
	}

	/* First free range starting after addr. */
	lo = 0;
	hi = c->nr_free;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (c->free[mid].start <= addr) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	struct bulk_range *prev = lo ? &c->free[lo - 1] : NULL;
	struct bulk_range *next = lo < c->nr_free ? &c->free[lo] : NULL;
	if ((prev && prev->start + prev->size > addr) ||
	    (next && addr + need > next->start)) {
		return gm_error("freeing 0x%llx (%llu bytes): already free",
				(unsigned long long)addr,
				(unsigned long long)size);
	}

	int join_prev = prev && prev->start + prev->size == addr;
	int join_next = next && addr + need == next->start;
	if (join_prev && join_next) {
		prev->size += need + next->size;
		memmove(next, next + 1, (c->nr_free - lo - 1) * sizeof(*next));
		c->nr_free--;
	} else if (join_prev) {
		prev->size += need;
	} else if (join_next) {
		next->start = addr;
		next->size += need;
	} else {
		GM_ALLOC_GROW(c->free, c->nr_free + 1, c->alloc_free);
		memmove(&c->free[lo + 1], &c->free[lo],
			(c->nr_free - lo) * sizeof(c->free[0]));
		c->free[lo].start = addr;
		c->free[lo].size = need;
		c->nr_free++;
	}
	ba->live_bytes -= need;
	ba->nr_live--;
	return 0;
}

void gm_bulk_alloc_reset(struct bulk_alloc *ba)
{
	for (size_t i = 0; i < ba->nr_chunks; i++) {
		chunk_set_all_free(&ba->chunks[i]);
	}
	ba->live_bytes = 0;
	ba->nr_live = 0;
}
