/* SPDX-License-Identifier: MIT */
/*
 * The content-addressed store of a bundle: blobs/ (argument payloads) and
 * modules/ (code images). A payload is stored once under the 32 hex digits
 * of its XXH3-128 hash (plus an optional suffix such as ".fatbin"), so
 * identical buffers cost one file. Writes go to a temporary name and are
 * renamed into place: a reader never sees half a blob, and two writers of
 * the same content (threads, forked processes) are harmless.
 *
 * The writer side runs inside the captured program: it never allocates for
 * contiguous payloads, never prints and never exits; failures return -1
 * with errno set and are counted by the caller.
 */
#ifndef GM_BLOB_STORE_H
#define GM_BLOB_STORE_H

#include <stddef.h>
#include <stdint.h>

#include "hash.h"

struct strbuf;

/*
 * A host buffer of @depth slices of @height rows of @width bytes; rows are
 * @pitch bytes apart and slices @slice_pitch bytes apart. A contiguous
 * buffer of n bytes is { base, n, 1, 1, n, n }; gm_span_bytes() makes one.
 */
struct gm_span {
	const void *base;
	size_t width, height, depth;
	size_t pitch, slice_pitch;
};

static inline struct gm_span gm_span_bytes(const void *base, size_t len)
{
	struct gm_span s = { base, len, 1, 1, len, len };
	return s;
}

/* Bytes the span packs into. */
static inline uint64_t gm_span_size(const struct gm_span *s)
{
	return (uint64_t)s->width * s->height * s->depth;
}

/* Hash of the packed bytes of @s (allocates a hasher only for rows). */
int gm_span_hash(const struct gm_span *s, struct gm_hash *out);

/* Copy the packed bytes of @s into @dst (gm_span_size(s) bytes). */
void gm_span_pack(const struct gm_span *s, void *dst);

struct blob_store {
	int dirfd;		/* -1 when closed */
	uint64_t seq;		/* temporary-name counter (atomic) */
};

/* Open the store in directory @dir (which must exist). 0 or -1/errno. */
int blob_store_open(struct blob_store *bs, const char *dir);
void blob_store_close(struct blob_store *bs);

/*
 * Store the packed bytes of @span under their hash plus @suffix ("" for
 * none) and write the hash to @out. Returns 1 when written, 0 when the
 * content was already stored, -1 on failure (errno set; nothing is left
 * under the final name).
 */
int blob_store_put(struct blob_store *bs, const struct gm_span *span,
		   const char *suffix, struct gm_hash *out);

/*
 * Reader side: append the blob @hash@suffix of directory @dir to @out,
 * checking that it has @size bytes and hashes to @hash. Returns 0, or -1
 * with a cause ("blob ... is missing", "... is corrupt").
 */
int blob_store_read(const char *dir, struct gm_hash hash, const char *suffix,
		    uint64_t size, struct strbuf *out);

#endif
