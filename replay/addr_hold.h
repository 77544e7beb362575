/* SPDX-License-Identifier: MIT */
/*
 * Placeholders that hold address ranges of this process for later
 * (doc/gpumix-replay.md, "Addresses"). Under unified addressing a device
 * address is a host virtual address: the driver gives a range to
 * cuMemAddressReserve only where nothing is mapped in the process, and
 * what the replay process maps before placing its programs (the driver's
 * own reservations at cuInit, CUPTI, blobs) may land on a program's
 * captured range. So the replay maps its captured ranges inaccessible
 * (PROT_NONE, no memory behind them) at the very start, and gives each
 * back just before it reserves it: whatever maps memory in between goes
 * elsewhere. Also: what occupies a range, per /proc/self/maps, for the
 * reason a program is relocated.
 */
#ifndef GM_ADDR_HOLD_H
#define GM_ADDR_HOLD_H

#include <stddef.h>
#include <stdint.h>

/* One range asked for: held (a placeholder is mapped there), or missed
 * with what was there. */
struct gm_addr_hold_range {
	uint64_t start, size;
	int held;
	int named;		/* held by a memfd: /proc/self/maps tells */
	char occupant[256];	/* missed: what holds it, or why not */
};

/* The placeholders of one process. */
struct gm_addr_hold {
	struct gm_addr_hold_range *v;
	size_t nr, alloc;
};

#define GM_ADDR_HOLD_INIT { NULL, 0, 0 }

/*
 * Hold [@start, @start + @size) (page-aligned) with a placeholder (an
 * empty memfd named gpumix-hold, mapped inaccessible; anonymous where
 * there is no memfd_create): mapped there and nowhere else (MAP_FIXED_NOREPLACE; where the kernel takes the
 * flag for a hint, the address is checked). A range that meets one this
 * set holds already is left as it is (two programs captured at the same
 * addresses). Returns 1 held, 0 held already, -1 missed: something was
 * mapped there (its description recorded, gm_addr_hold_missed()) or the
 * kernel refused (why recorded); no error is recorded.
 */
int gm_addr_hold_take(struct gm_addr_hold *h, uint64_t start, uint64_t size);

/* Unmap every placeholder of @h that meets [@start, @start + @size):
 * the range is free for the driver (unless something else is there).
 * Only what /proc/self/maps still shows as a placeholder is unmapped:
 * what mapped over one (MAP_FIXED) stays. */
void gm_addr_hold_give(struct gm_addr_hold *h, uint64_t start, uint64_t size);

/* What held a part of [@start, @start + @size) when @h tried to take it
 * (borrowed), or NULL when nothing did. */
const char *gm_addr_hold_missed(const struct gm_addr_hold *h, uint64_t start,
				uint64_t size);

/* The number of placeholders @h holds now. */
size_t gm_addr_hold_count(const struct gm_addr_hold *h);

/* Unmap every placeholder and free @h's memory; @h is empty after. */
void gm_addr_hold_release(struct gm_addr_hold *h);

/*
 * Describe what /proc/self/maps says occupies [@start, @start + @size)
 * into @buf: "0xLO-0xHI PERMS PATH" per mapping met (PATH "anonymous"
 * without one), "; " between them, at most three then "and N more";
 * "nothing (per /proc/self/maps)" when nothing is mapped there;
 * "unknown (cannot read /proc/self/maps: ...)" when it cannot be read.
 */
void gm_addr_occupants(uint64_t start, uint64_t size, char *buf, size_t len);

#endif
