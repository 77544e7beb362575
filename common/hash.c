/* SPDX-License-Identifier: MIT */
/*
 * XXH3-128 content hashes (see hash.h).
 */
#include "hash.h"

#include <errno.h>
#include <stdio.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
/*
 * Inline xxhash from its header: no run-time library is needed, so the
 * capture library and generated replay programs run on hosts that have
 * only the CUDA driver (the GPU machines lack libxxhash.so).
 */
#define XXH_INLINE_ALL
#include <xxhash.h>

struct gm_hash gm_hash_bytes(const void *data, size_t len)
{
	XXH128_hash_t h = XXH3_128bits(data, len);
	struct gm_hash r = { h.high64, h.low64 };
	return r;
}

void gm_hash_hex(struct gm_hash h, char out[GM_HASH_HEX_LEN + 1])
{
	snprintf(out, GM_HASH_HEX_LEN + 1, "%016llx%016llx",
		 (unsigned long long)h.hi, (unsigned long long)h.lo);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9') {
		return c - '0';
	}
	if (c >= 'a' && c <= 'f') {
		return c - 'a' + 10;
	}
	return -1;
}

int gm_hash_parse(const char *hex, struct gm_hash *out)
{
	uint64_t v[2] = { 0, 0 };

	for (int i = 0; i < GM_HASH_HEX_LEN; i++) {
		int d = hexval(hex[i]);
		if (d < 0) {
			return -1;
		}
		v[i / 16] = v[i / 16] << 4 | (uint64_t)d;
	}
	if (hex[GM_HASH_HEX_LEN] != '\0') {
		return -1;
	}
	out->hi = v[0];
	out->lo = v[1];
	return 0;
}

/* struct gm_hasher is an XXH3_state_t in disguise: no extra allocation. */
struct gm_hasher *gm_hasher_new(void)
{
	XXH3_state_t *st = XXH3_createState();
	if (!st) {
		return NULL;
	}
	XXH3_128bits_reset(st);
	return (struct gm_hasher *)st;
}

void gm_hasher_update(struct gm_hasher *h, const void *data, size_t len)
{
	XXH3_128bits_update((XXH3_state_t *)h, data, len);
}

struct gm_hash gm_hasher_final(struct gm_hasher *h)
{
	XXH128_hash_t x = XXH3_128bits_digest((XXH3_state_t *)h);
	struct gm_hash r = { x.high64, x.low64 };
	return r;
}

void gm_hasher_free(struct gm_hasher *h)
{
	XXH3_freeState((XXH3_state_t *)h);
}

int gm_hash_file(const char *path, struct gm_hash *out, uint64_t *size)
{
	int fd = gm_open_regular(path);
	struct gm_hasher *h;
	uint64_t total = 0;
	char buf[1 << 16];

	if (fd < 0) {
		return -1;
	}
	h = gm_hasher_new();
	if (!h) {
		close(fd);
		return gm_error("out of memory hashing '%s'", path);
	}
	for (;;) {
		ssize_t n = read(fd, buf, sizeof(buf));
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			gm_error_errno("cannot read '%s'", path);
			gm_hasher_free(h);
			close(fd);
			return -1;
		}
		if (!n) {
			break;
		}
		gm_hasher_update(h, buf, (size_t)n);
		total += (uint64_t)n;
	}
	close(fd);
	*out = gm_hasher_final(h);
	gm_hasher_free(h);
	if (size) {
		*size = total;
	}
	return 0;
}
