/* SPDX-License-Identifier: MIT */
/*
 * Content hashes: XXH3-128 (libxxhash) printed as 32 lowercase hex digits.
 * Used as blob and module file names and as the check values that a replay
 * compares its device-to-host results against. Not cryptographic: it only
 * has to catch accidental differences.
 */
#ifndef GM_HASH_H
#define GM_HASH_H

#include <stddef.h>
#include <stdint.h>

#define GM_HASH_HEX_LEN 32

struct gm_hash {
	uint64_t hi, lo;
};

/* Hash @len bytes of @data. */
struct gm_hash gm_hash_bytes(const void *data, size_t len);

/* Write the 32 hex digits and a NUL into @out. */
void gm_hash_hex(struct gm_hash h, char out[GM_HASH_HEX_LEN + 1]);

/* Parse 32 hex digits; returns 0 or -1 (no cause recorded). */
int gm_hash_parse(const char *hex, struct gm_hash *out);

/* Incremental hashing for data that arrives in pieces. */
struct gm_hasher;
struct gm_hasher *gm_hasher_new(void);
void gm_hasher_update(struct gm_hasher *h, const void *data, size_t len);
struct gm_hash gm_hasher_final(struct gm_hasher *h);
void gm_hasher_free(struct gm_hasher *h);

/*
 * Hash the content of the regular file @path (gm_open_regular(): never a
 * FIFO or a device) into @out and its length into @size (may be NULL).
 * Returns 0, or -1 with a cause naming the file.
 */
int gm_hash_file(const char *path, struct gm_hash *out, uint64_t *size);

#endif
