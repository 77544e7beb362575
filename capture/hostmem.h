/* SPDX-License-Identifier: MIT */
/*
 * Memory the host writes and reads outside any CUDA call: page-locked
 * allocations (on a 64-bit unified-addressing system every one is
 * device-accessible at its host address; cuMemHostGetDevicePointer may
 * name another) and managed allocations. Kernels read and write them
 * directly, so no copy carries their content: the capture records it.
 *
 * The rule (doc/gpumix-capture.md): at the entry of a launch whose
 * argument words point into such an allocation, and when no launch that
 * used it is still unsynchronized, its content is hashed; when the hash
 * differs from the last one recorded for it (or none was), the bytes go
 * to the blob store in a hostmem snapshot event, emitted before the
 * launch's entry. At a synchronization that completes the launches that
 * used it, its content is hashed again and recorded as a hostmem result
 * (what the host reads back; the replay verifies it). Internal to
 * libgpumix-capture.so; thread-safe.
 */
#ifndef GM_CAPTURE_HOSTMEM_H
#define GM_CAPTURE_HOSTMEM_H

#include <stddef.h>
#include <stdint.h>

#include "tracking.h"

/* An allocation of @size bytes at @base of enum gm_hostmem_kind @kind. */
void hostmem_add(uint64_t base, uint64_t size, unsigned kind);

/* Allocation @host is also seen by the device at @dev. */
void hostmem_alias(uint64_t host, uint64_t dev);

/* The allocation at @base is freed (nothing when it is not one). */
void hostmem_remove(uint64_t base);

/*
 * A launch on stream @key (track_stream_key()) with packed argument bytes
 * @params (@len bytes): snapshot what it may read, as described above.
 */
void hostmem_launch(const void *params, size_t len, uint64_t key,
		    uint32_t corr);

/* A synchronization (track_pending_complete()'s @how and @arg): record
 * the results of the allocations it completes. */
void hostmem_sync(enum track_sync how, uint64_t arg);

#endif
