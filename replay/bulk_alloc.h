/* SPDX-License-Identifier: MIT */
/*
 * The bulk allocator's bookkeeping: device memory is reserved in a few
 * large chunks (cuMemAlloc at init) and replayed allocations are carved
 * out of them and recycled without any CUDA call, so allocation and free
 * never serialize the GPU (the paper's jemalloc-based allocator, section
 * 6.2, used by every variant). This file only manages address ranges; the
 * caller obtains the chunks.
 *
 * Placement is deterministic: best fit among the holes inside a chunk
 * (lowest address on ties), and the free space at the end of a chunk only
 * when no hole fits. The end space is used last on purpose: a plan made
 * with one unbounded chunk (bulk_alloc_plan_*) then places every block
 * exactly where a replay into a real chunk of the planned size does.
 */
#ifndef GM_BULK_ALLOC_H
#define GM_BULK_ALLOC_H

#include <stddef.h>
#include <stdint.h>

#define BULK_ALLOC_ALIGN 512	/* like cudaMalloc, and enough for textures */

struct bulk_range {
	uint64_t start, size;
};

struct bulk_chunk {
	uint64_t base, size;
	struct bulk_range *free;	/* sorted by start, coalesced */
	size_t nr_free, alloc_free;
};

struct bulk_alloc {
	uint64_t align;
	struct bulk_chunk *chunks;
	size_t nr_chunks, alloc_chunks;
	uint64_t live_bytes;		/* sum of rounded live block sizes */
	uint64_t peak_live_bytes;
	uint64_t high_water;		/* max (end - chunk base) ever used */
	uint64_t nr_live;
};

#define BULK_ALLOC_INIT { BULK_ALLOC_ALIGN, NULL, 0, 0, 0, 0, 0, 0 }

/* Initialise with @align (a power of two; 0 means BULK_ALLOC_ALIGN). */
void gm_bulk_alloc_init(struct bulk_alloc *ba, uint64_t align);

/* Free the bookkeeping (not the chunks' memory) and re-initialise. */
void gm_bulk_alloc_release(struct bulk_alloc *ba);

/*
 * Hand the allocator a chunk [@base, @base + @size). @base must be aligned.
 * Returns 0, or -1 (cause recorded) when it overlaps a chunk or is
 * misaligned.
 */
int gm_bulk_alloc_add_chunk(struct bulk_alloc *ba, uint64_t base,
			    uint64_t size);

/*
 * Size a request is rounded to (at least one alignment unit), or 0 when
 * that does not fit in 64 bits (a size within an alignment unit of 2^64,
 * which would wrap to a small block): no memory has room for it.
 */
uint64_t gm_bulk_alloc_round(const struct bulk_alloc *ba, uint64_t size);

/*
 * Carve a block of @size bytes. Returns 0 and the address in *@addr, or 1
 * when no chunk has room (nothing recorded; the caller may add a chunk,
 * except for a size gm_bulk_alloc_round() gives 0 for: none will do).
 */
int gm_bulk_alloc_get(struct bulk_alloc *ba, uint64_t size, uint64_t *addr);

/*
 * Give back the block at @addr of @size bytes (the size passed to get).
 * Returns 0, or -1 (cause recorded) when the block is not inside a chunk
 * or overlaps free space (a double free).
 */
int gm_bulk_alloc_put(struct bulk_alloc *ba, uint64_t addr, uint64_t size);

/* Make every chunk entirely free again (end of a replay). */
void gm_bulk_alloc_reset(struct bulk_alloc *ba);

/*
 * Planning: an allocator with one unbounded chunk at address 0. After the
 * same sequence of get/put the replay will make, ba->high_water is the
 * chunk size the replay needs.
 */
void gm_bulk_alloc_plan_init(struct bulk_alloc *ba, uint64_t align);

#endif
