/* SPDX-License-Identifier: MIT */
/*
 * Whether the host pages a device-to-host copy writes were resident when
 * the program made the call. A copy into pageable pages that were never
 * touched pays a page fault per 4 KiB inside the copy (cutcp's 131 MB
 * result: about 107 ms against 12 ms on an H100), so the replay gives
 * each copy's room the state its captured destination had
 * (GM_RF_HOST_WARM, doc/gpumix-capture.md). Internal to
 * libgpumix-capture.so.
 */
#ifndef GM_CAPTURE_HOST_RESIDENT_H
#define GM_CAPTURE_HOST_RESIDENT_H

#include "blob_store.h"	/* struct gm_span */

/*
 * 1 when more than half of the pages that span @s touches are resident
 * (mincore), 0 otherwise, and when they cannot be asked about (an
 * address that is not mapped).
 */
int host_pages_resident(const struct gm_span *s);

#endif
