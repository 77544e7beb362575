/* SPDX-License-Identifier: MIT */
/*
 * The address space of a captured program at one point of its trace: the
 * live regions (device allocations, module globals, page-locked host
 * buffers) and the union of freed ones. Relocation asks it which region
 * a captured address falls in: inside a live region, the address becomes
 * (region id, offset); inside freed memory only, it is a dangling pointer
 * to report; elsewhere it is not a pointer this trace knows.
 */
#ifndef GM_ADDR_MAP_H
#define GM_ADDR_MAP_H

#include <stddef.h>
#include <stdint.h>

struct addr_region {
	uint64_t start, size;
	uint32_t kind;		/* caller-defined (e.g. GM_REF_ALLOC) */
	uint32_t id;
	uint64_t event;		/* trace event that created it */
};

struct addr_map {
	struct addr_region *live;	/* sorted by start, disjoint */
	size_t nr_live, alloc_live;
	struct addr_span {
		uint64_t start, end;
	} *dead;			/* sorted, disjoint, merged */
	size_t nr_dead, alloc_dead;
};

#define ADDR_MAP_INIT { NULL, 0, 0, NULL, 0, 0 }

void addr_map_release(struct addr_map *am);

/*
 * Add a live region. Returns 0, or -1 (cause recorded) when it overlaps a
 * live region or is empty.
 */
int addr_map_add(struct addr_map *am, const struct addr_region *r);

/*
 * Remove the live region starting exactly at @start; it becomes freed
 * memory. Returns 0 and the region in *@out (may be NULL), or -1 (no
 * cause recorded) when no live region starts there.
 */
int addr_map_remove(struct addr_map *am, uint64_t start,
		    struct addr_region *out);

/*
 * The live region containing @addr: start <= addr < start + size, or,
 * when @allow_end and no region contains it, addr == start + size (a
 * one-past-the-end pointer). NULL when none.
 */
const struct addr_region *addr_map_find(const struct addr_map *am,
					uint64_t addr, int allow_end);

/* 1 when @addr lies in memory that was freed and is not live again. */
int addr_map_is_dead(const struct addr_map *am, uint64_t addr);

#endif
