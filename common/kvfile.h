/* SPDX-License-Identifier: MIT */
/*
 * Key/value text files: the format of every gpumix manifest (bundles, run
 * directories, study state). One "key = value" per line, keys in
 * [A-Za-z0-9_.-], values with \\, \n, \t and \r escaped, '#' comments and
 * blank lines ignored, order kept. Human-readable and trivially parsed
 * from C, shell (grep) or Python.
 *
 *   # gpumix bundle manifest
 *   format = gpumix-bundle 1
 *   command = ./bfs -s 1
 */
#ifndef GM_KVFILE_H
#define GM_KVFILE_H

#include <stddef.h>
#include <stdint.h>

#include "strmap.h"

/*
 * The most keys a parsed file may hold, and its most bytes: a manifest
 * beyond them is refused with a message saying so rather than read (the
 * largest gpumix writes hold a few thousand keys: bundles with many
 * processes or trace files, runs of many programs).
 */
#define KVFILE_MAX_KEYS 1000000
#define KVFILE_MAX_BYTES (64u << 20)

struct kvfile {
	size_t nr, alloc;
	char **keys;		/* owned */
	char **values;		/* owned, unescaped */
	struct gm_strmap index;	/* key -> its position: every lookup, and
				 * so every parse, takes constant time */
};

#define KVFILE_INIT { 0, 0, NULL, NULL, GM_STRMAP_INIT }

void kvfile_init(struct kvfile *kv);
void kvfile_release(struct kvfile *kv);

/* Set @key to @value (copied); replaces an existing key in place. */
void kvfile_set(struct kvfile *kv, const char *key, const char *value);
void kvfile_setf(struct kvfile *kv, const char *key, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
void kvfile_set_u64(struct kvfile *kv, const char *key, uint64_t value);

/*
 * Append @key = @value (copied) without looking for an existing @key: O(1)
 * for building large files from scratch. The caller guarantees that @key
 * is not already present.
 */
void kvfile_append(struct kvfile *kv, const char *key, const char *value);

/* Value of @key, or NULL (borrowed, valid until the key is changed). */
const char *kvfile_get(const struct kvfile *kv, const char *key);

/*
 * Parse @key as an unsigned decimal integer. Returns 0, or -1 with a cause
 * naming @what (usually the file) when missing or malformed.
 */
int kvfile_get_u64(const struct kvfile *kv, const char *key, uint64_t *out,
		   const char *what);

/* Same for a floating-point value. */
int kvfile_get_double(const struct kvfile *kv, const char *key, double *out,
		      const char *what);

/* Serialise into @out (appended). */
struct strbuf;
void kvfile_format(const struct kvfile *kv, struct strbuf *out,
		   const char *comment);

/*
 * Parse @len bytes; errors name "@what:LINE". Appends to @kv. More than
 * KVFILE_MAX_KEYS keys in all is an error ("@what: more than 1000000 keys,
 * the limit for a manifest").
 */
int kvfile_parse(struct kvfile *kv, const char *text, size_t len,
		 const char *what);

/*
 * Read and parse @path, which must be a regular file (gm_open_regular) of
 * at most KVFILE_MAX_BYTES.
 */
int kvfile_read(struct kvfile *kv, const char *path);

/* Write atomically to @path (see atomic_file.h), replacing it. */
int kvfile_write(const struct kvfile *kv, const char *path,
		 const char *comment);

#endif
