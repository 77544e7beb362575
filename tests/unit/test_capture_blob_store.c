/* SPDX-License-Identifier: MIT */
/*
 * The content-addressed blob store: contiguous and strided payloads are
 * stored under their hash, identical content once; reading checks size
 * and hash; a failed write (directory gone, disk full) leaves nothing
 * under the final name.
 */
#include <dirent.h>
#include <errno.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "blob_store.h"
#include "fs.h"
#include "strbuf.h"
#include "test.h"

static char dir[256];

static int count_files(const char *d)
{
	DIR *dd = opendir(d);
	struct dirent *de;
	int n = 0;

	while (dd && (de = readdir(dd))) {
		n += de->d_name[0] != '.' || strncmp(de->d_name, ".tmp", 4) == 0;
	}
	if (dd) {
		closedir(dd);
	}
	return n;
}

static void fill(uint8_t *p, size_t n, unsigned seed)
{
	for (size_t i = 0; i < n; i++) {
		p[i] = (uint8_t)(i * 131 + seed);
	}
}

static void test_put_read(void)
{
	struct blob_store bs;
	uint8_t *buf = malloc(1 << 20), *packed = malloc(700 * 64);
	struct gm_span s = gm_span_bytes(buf, 1 << 20), s2;
	struct gm_hash h, h2, hp;
	struct strbuf sb = STRBUF_INIT;
	char hex[GM_HASH_HEX_LEN + 1], *path;
	FILE *f;

	fill(buf, 1 << 20, 1);
	CHECK_INT(blob_store_open(&bs, dir), 0, "open the store");
	CHECK_INT(blob_store_put(&bs, &s, "", &h), 1, "a new payload is written");
	CHECK_INT(blob_store_put(&bs, &s, "", &h2), 0,
		  "identical content is stored once");
	CHECK(h.hi == h2.hi && h.lo == h2.lo, "same content, same hash");
	CHECK_INT(count_files(dir), 1, "one file, no temporaries left");
	CHECK_INT(blob_store_read(dir, h, "", 1 << 20, &sb), 0, "read it back");
	CHECK(sb.len == (1 << 20) && !memcmp(sb.buf, buf, sb.len),
	      "the stored bytes are the payload");

	/* 64 rows of 700 bytes, 1024 bytes apart. */
	s2.base = buf;
	s2.width = 700;
	s2.height = 64;
	s2.depth = 1;
	s2.pitch = 1024;
	s2.slice_pitch = 1024 * 64;
	CHECK_INT(gm_span_size(&s2), 700 * 64, "span size is rows times width");
	gm_span_pack(&s2, packed);
	CHECK(!memcmp(packed + 700, buf + 1024, 700), "rows are packed");
	CHECK_INT(gm_span_hash(&s2, &h2), 0, "hash a strided span");
	hp = gm_hash_bytes(packed, 700 * 64);
	CHECK(h2.hi == hp.hi && h2.lo == hp.lo, "its hash is that of the packed bytes");
	CHECK_INT(blob_store_put(&bs, &s2, ".x", &h2), 1, "store a strided span");
	strbuf_reset(&sb);
	CHECK_INT(blob_store_read(dir, h2, ".x", 700 * 64, &sb), 0,
		  "read a span back (with a suffix)");
	CHECK(sb.len == 700 * 64 && !memcmp(sb.buf, packed, sb.len),
	      "the span was stored packed");

	strbuf_reset(&sb);
	CHECK_INT(blob_store_read(dir, h, "", 5, &sb), -1, "a wrong size is an error");
	CHECK(strstr(gm_error_message(), "has 1048576 bytes, the trace says 5") != NULL,
	      "... naming both sizes");
	gm_error_clear();

	gm_hash_hex(h, hex);
	path = gm_xasprintf("%s/%s", dir, hex);
	f = fopen(path, "r+");
	if (f) {
		fputc('X', f);
		fclose(f);
	}
	CHECK_INT(blob_store_read(dir, h, "", 1 << 20, &sb), -1,
		  "a changed blob is an error");
	CHECK(strstr(gm_error_message(), "is corrupt") != NULL, "... called corrupt");
	gm_error_clear();
	unlink(path);
	free(path);
	CHECK_INT(blob_store_read(dir, h, "", 1 << 20, &sb), -1,
		  "a missing blob is an error");
	CHECK(strstr(gm_error_message(), "is missing") != NULL, "... called missing");
	gm_error_clear();
	blob_store_close(&bs);
	strbuf_release(&sb);
	free(buf);
	free(packed);
}

static void test_failures(void)
{
	struct blob_store bs;
	char *sub = gm_path_join(dir, "gone");
	uint8_t buf[4096];
	struct gm_span s = gm_span_bytes(buf, sizeof(buf));
	struct gm_hash h;
	char *mnt, cmd[512];

	fill(buf, sizeof(buf), 2);
	mkdir(sub, 0755);
	CHECK_INT(blob_store_open(&bs, sub), 0, "open a store");
	rmdir(sub);
	errno = 0;
	CHECK_INT(blob_store_put(&bs, &s, "", &h), -1,
		  "writing into a removed directory fails");
	CHECK(errno != 0, "... with errno set");
	blob_store_close(&bs);
	free(sub);

	mnt = gm_path_join(dir, "small");
	mkdir(mnt, 0755);
	snprintf(cmd, sizeof(cmd),
		 "mount -t tmpfs -o size=256k tmpfs '%s' 2>/dev/null", mnt);
	if (system(cmd) != 0) {
		test_skip("cannot mount a small tmpfs (needs root): no full-disk test");
		free(mnt);
		return;
	}
	{
		size_t n = 1 << 20;
		uint8_t *big = malloc(n);
		struct gm_span sb = gm_span_bytes(big, n);
		fill(big, n, 3);
		blob_store_open(&bs, mnt);
		errno = 0;
		CHECK_INT(blob_store_put(&bs, &sb, "", &h), -1,
			  "a payload larger than the free space fails");
		CHECK_INT(errno, ENOSPC, "... with ENOSPC");
		CHECK_INT(count_files(mnt), 0,
			  "nothing is left behind (not even a temporary)");
		CHECK_INT(blob_store_put(&bs, &s, "", &h), 1,
			  "a small payload still fits afterwards");
		blob_store_close(&bs);
		free(big);
	}
	snprintf(cmd, sizeof(cmd), "umount '%s'", mnt);
	if (system(cmd) != 0) {
		printf("# could not unmount %s\n", mnt);
	}
	free(mnt);
}

int main(void)
{
	snprintf(dir, sizeof(dir), "%s/gpumix-blobs.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		CHECK(0, "scratch directory");
		return test_done();
	}
	test_put_read();
	test_failures();
	gm_remove_tree(dir);
	return test_done();
}
