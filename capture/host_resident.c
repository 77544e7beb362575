/* SPDX-License-Identifier: MIT */
/*
 * Resident host pages (see host_resident.h): mincore over the span's
 * extent, a window of pages at a time.
 */
#include "host_resident.h"

#include <stdint.h>
#include <sys/mman.h>
#include <unistd.h>

#define WINDOW 4096	/* pages asked about per mincore call */

/* The bytes from the span's first byte to one past its last. */
static uint64_t extent(const struct gm_span *s)
{
	if (!s->width || !s->height || !s->depth) {
		return 0;
	}
	return (uint64_t)(s->depth - 1) * s->slice_pitch +
	       (uint64_t)(s->height - 1) * s->pitch + s->width;
}

int host_pages_resident(const struct gm_span *s)
{
	static __thread unsigned char vec[WINDOW];
	uint64_t page = (uint64_t)sysconf(_SC_PAGESIZE);
	uint64_t len = extent(s), first, end, resident = 0, pages;

	if (!len || !s->base) {
		return 0;
	}
	first = (uintptr_t)s->base & ~(page - 1);
	end = ((uintptr_t)s->base + len + page - 1) & ~(page - 1);
	pages = (end - first) / page;
	for (uint64_t at = first; at < end; at += WINDOW * page) {
		uint64_t n = (end - at) / page < WINDOW ? (end - at) / page :
							  WINDOW;
		if (mincore((void *)(uintptr_t)at, n * page, vec)) {
			return 0;	/* not mapped: nothing to say */
		}
		for (uint64_t i = 0; i < n; i++) {
			resident += vec[i] & 1;
		}
	}
	return resident * 2 > pages;
}
