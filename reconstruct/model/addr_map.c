/* SPDX-License-Identifier: MIT */
/*
 * Address map (see addr_map.h): sorted arrays and binary search. Programs
 * keep few regions live at once, so inserting with memmove is cheap.
 */
#include "addr_map.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

void addr_map_release(struct addr_map *am)
{
	free(am->live);
	free(am->dead);
	memset(am, 0, sizeof(*am));
}

/* Index of the first live region with start > addr. */
static size_t upper(const struct addr_map *am, uint64_t addr)
{
	size_t lo = 0, hi = am->nr_live;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (am->live[mid].start <= addr) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/* Subtract [start, end) from the dead set: the memory is live again. */
static void revive(struct addr_map *am, uint64_t start, uint64_t end)
{
	size_t keep = 0;
	struct addr_span extra = { 0, 0 };
	int have_extra = 0;

	for (size_t i = 0; i < am->nr_dead; i++) {
		struct addr_span d = am->dead[i];
		if (d.end <= start || d.start >= end) {
			am->dead[keep++] = d;
			continue;
		}
		if (d.start < start && d.end > end) {
			extra.start = end;
			extra.end = d.end;
			have_extra = 1;
			d.end = start;
			am->dead[keep++] = d;
			continue;
		}
		if (d.start < start) {
			d.end = start;
			am->dead[keep++] = d;
		} else if (d.end > end) {
			d.start = end;
			am->dead[keep++] = d;
		}
	}
	am->nr_dead = keep;
	if (have_extra) {
		size_t i = 0;
		GM_ALLOC_GROW(am->dead, am->nr_dead + 1, am->alloc_dead);
		while (i < am->nr_dead && am->dead[i].start < extra.start) {
			i++;
		}
		memmove(&am->dead[i + 1], &am->dead[i],
			(am->nr_dead - i) * sizeof(*am->dead));
		am->dead[i] = extra;
		am->nr_dead++;
	}
}

int addr_map_add(struct addr_map *am, const struct addr_region *r)
{
	size_t i;

	if (!r->size) {
		return gm_error("empty region at 0x%llx",
				(unsigned long long)r->start);
	}
	i = upper(am, r->start);
	if ((i > 0 && am->live[i - 1].start + am->live[i - 1].size > r->start) ||
	    (i < am->nr_live && r->start + r->size > am->live[i].start)) {
		const struct addr_region *o =
			(i > 0 && am->live[i - 1].start + am->live[i - 1].size >
					  r->start) ? &am->live[i - 1] :
						      &am->live[i];
		return gm_error("region 0x%llx-0x%llx overlaps the live region "
				"0x%llx-0x%llx created by event %llu",
				(unsigned long long)r->start,
				(unsigned long long)(r->start + r->size),
				(unsigned long long)o->start,
				(unsigned long long)(o->start + o->size),
				(unsigned long long)o->event);
	}
	GM_ALLOC_GROW(am->live, am->nr_live + 1, am->alloc_live);
	memmove(&am->live[i + 1], &am->live[i],
		(am->nr_live - i) * sizeof(*am->live));
	am->live[i] = *r;
	am->nr_live++;
	if (am->nr_dead) {
		revive(am, r->start, r->start + r->size);
	}
	return 0;
}

static void add_dead(struct addr_map *am, uint64_t start, uint64_t end)
{
	size_t i = 0, j;

	while (i < am->nr_dead && am->dead[i].end < start) {
		i++;
	}
	j = i;
	while (j < am->nr_dead && am->dead[j].start <= end) {
		if (am->dead[j].start < start) {
			start = am->dead[j].start;
		}
		if (am->dead[j].end > end) {
			end = am->dead[j].end;
		}
		j++;
	}
	if (j > i) {
		am->dead[i].start = start;
		am->dead[i].end = end;
		memmove(&am->dead[i + 1], &am->dead[j],
			(am->nr_dead - j) * sizeof(*am->dead));
		am->nr_dead -= j - i - 1;
		return;
	}
	GM_ALLOC_GROW(am->dead, am->nr_dead + 1, am->alloc_dead);
	memmove(&am->dead[i + 1], &am->dead[i],
		(am->nr_dead - i) * sizeof(*am->dead));
	am->dead[i].start = start;
	am->dead[i].end = end;
	am->nr_dead++;
}

int addr_map_remove(struct addr_map *am, uint64_t start,
		    struct addr_region *out)
{
	size_t i = upper(am, start);

	if (!i || am->live[i - 1].start != start) {
		return -1;
	}
	i--;
	if (out) {
		*out = am->live[i];
	}
	add_dead(am, start, start + am->live[i].size);
	memmove(&am->live[i], &am->live[i + 1],
		(am->nr_live - i - 1) * sizeof(*am->live));
	am->nr_live--;
	return 0;
}

const struct addr_region *addr_map_find(const struct addr_map *am,
					uint64_t addr, int allow_end)
{
	size_t i = upper(am, addr);

	if (i > 0) {
		const struct addr_region *r = &am->live[i - 1];
		if (addr - r->start < r->size) {
			return r;
		}
		if (allow_end && addr - r->start == r->size) {
			return r;
		}
	}
	return NULL;
}

int addr_map_is_dead(const struct addr_map *am, uint64_t addr)
{
	size_t lo = 0, hi = am->nr_dead;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (am->dead[mid].end <= addr) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo < am->nr_dead && am->dead[lo].start <= addr;
}
