/* SPDX-License-Identifier: MIT */
/*
 * Content-addressed blob store (see blob_store.h).
 */
#include "blob_store.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "strbuf.h"

#define STAGE_SIZE (1u << 20)

static int span_contiguous(const struct gm_span *s)
{
	return (s->height <= 1 || s->pitch == s->width) &&
	       (s->depth <= 1 || s->slice_pitch == s->width * s->height);
}

/* Calls @fn on each row of @s in order. */
static void span_rows(const struct gm_span *s,
		      void (*fn)(void *ctx, const void *row, size_t len),
		      void *ctx)
{
	if (span_contiguous(s)) {
		fn(ctx, s->base, (size_t)gm_span_size(s));
		return;
	}
	for (size_t z = 0; z < s->depth; z++) {
		const char *slice = (const char *)s->base + z * s->slice_pitch;
		for (size_t y = 0; y < s->height; y++) {
			fn(ctx, slice + y * s->pitch, s->width);
		}
	}
}

static void hash_row(void *ctx, const void *row, size_t len)
{
	gm_hasher_update(ctx, row, len);
}

int gm_span_hash(const struct gm_span *s, struct gm_hash *out)
{
	struct gm_hasher *h;

	if (span_contiguous(s)) {
		*out = gm_hash_bytes(s->base, (size_t)gm_span_size(s));
		return 0;
	}
	h = gm_hasher_new();
	if (!h) {
		errno = ENOMEM;
		return -1;
	}
	span_rows(s, hash_row, h);
	*out = gm_hasher_final(h);
	gm_hasher_free(h);
	return 0;
}

static void pack_row(void *ctx, const void *row, size_t len)
{
	char **p = ctx;
	memcpy(*p, row, len);
	*p += len;
}

void gm_span_pack(const struct gm_span *s, void *dst)
{
	char *p = dst;
	span_rows(s, pack_row, &p);
}

int blob_store_open(struct blob_store *bs, const char *dir)
{
	bs->seq = 0;
	bs->dirfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	return bs->dirfd < 0 ? -1 : 0;
}

void blob_store_close(struct blob_store *bs)
{
	if (bs->dirfd >= 0) {
		close(bs->dirfd);
	}
	bs->dirfd = -1;
}

static int write_full(int fd, const void *buf, size_t len)
{
	const char *p = buf;

	while (len) {
		ssize_t n = write(fd, p, len);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n < 0) {
			return -1;
		}
		if (n == 0) {
			errno = ENOSPC;
			return -1;
		}
		p += n;
		len -= (size_t)n;
	}
	return 0;
}

struct stage {
	int fd, failed, err;
	char *buf;
	size_t len;
};

static void stage_flush(struct stage *st)
{
	if (!st->failed && st->len && write_full(st->fd, st->buf, st->len)) {
		st->failed = 1;
		st->err = errno;
	}
	st->len = 0;
}

static void stage_row(void *ctx, const void *row, size_t len)
{
	struct stage *st = ctx;

	if (st->failed) {
		return;
	}
	if (!st->buf || len >= STAGE_SIZE) {
		stage_flush(st);
		if (!st->failed && write_full(st->fd, row, len)) {
			st->failed = 1;
			st->err = errno;
		}
		return;
	}
	if (st->len + len > STAGE_SIZE) {
		stage_flush(st);
	}
	memcpy(st->buf + st->len, row, len);
	st->len += len;
}

int blob_store_put(struct blob_store *bs, const struct gm_span *span,
		   const char *suffix, struct gm_hash *out)
{
	char name[GM_HASH_HEX_LEN + 32], tmp[GM_HASH_HEX_LEN + 96];
	struct stage st = { -1, 0, 0, NULL, 0 };
	uint64_t seq;

	if (gm_span_hash(span, out)) {
		return -1;
	}
	gm_hash_hex(*out, name);
	snprintf(name + GM_HASH_HEX_LEN, sizeof(name) - GM_HASH_HEX_LEN, "%s",
		 suffix);
	if (!faccessat(bs->dirfd, name, F_OK, 0)) {
		return 0;
	}
	seq = __atomic_fetch_add(&bs->seq, 1, __ATOMIC_RELAXED);
	snprintf(tmp, sizeof(tmp), ".tmp-%s-%ld-%llu", name, (long)getpid(),
		 (unsigned long long)seq);
	st.fd = openat(bs->dirfd, tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC,
		       0644);
	if (st.fd < 0) {
		return -1;
	}
	if (!span_contiguous(span)) {
		st.buf = malloc(STAGE_SIZE);
	}
	span_rows(span, stage_row, &st);
	stage_flush(&st);
	free(st.buf);
	if (close(st.fd) && !st.failed) {
		st.failed = 1;
		st.err = errno;
	}
	if (!st.failed && renameat(bs->dirfd, tmp, bs->dirfd, name)) {
		st.failed = 1;
		st.err = errno;
	}
	if (st.failed) {
		unlinkat(bs->dirfd, tmp, 0);
		errno = st.err;
		return -1;
	}
	return 1;
}

int blob_store_read(const char *dir, struct gm_hash hash, const char *suffix,
		    uint64_t size, struct strbuf *out)
{
	char hex[GM_HASH_HEX_LEN + 1];
	struct strbuf path = STRBUF_INIT;
	size_t start = out->len;
	struct gm_hash got;
	int ret = -1;

	gm_hash_hex(hash, hex);
	strbuf_addf(&path, "%s/%s%s", dir, hex, suffix);
	if (access(path.buf, F_OK)) {
		gm_error("blob '%s%s' is missing from '%s'", hex, suffix, dir);
		goto out;
	}
	/* A regular file of another size is named as such, with both
	 * sizes; and never read more than the trace says: a blob replaced
	 * by a link to /dev/zero or a huge file is refused, not read. */
	struct stat st;
	if (!stat(path.buf, &st) && S_ISREG(st.st_mode) &&
	    (uint64_t)st.st_size != size) {
		gm_error("blob '%s' has %llu bytes, the trace says %llu",
			 path.buf, (unsigned long long)st.st_size,
			 (unsigned long long)size);
		goto out;
	}
	if (gm_read_file_max(path.buf, out, size)) {
		goto out;
	}
	if (out->len - start != size) {
		gm_error("blob '%s%s' has %zu bytes, the trace says %llu", hex,
			 suffix, out->len - start, (unsigned long long)size);
		strbuf_setlen(out, start);
		goto out;
	}
	got = gm_hash_bytes(out->buf + start, out->len - start);
	if (got.hi != hash.hi || got.lo != hash.lo) {
		gm_error("blob '%s%s' is corrupt (its content hash differs)", hex,
			 suffix);
		strbuf_setlen(out, start);
		goto out;
	}
	ret = 0;
out:
	strbuf_release(&path);
	return ret;
}
