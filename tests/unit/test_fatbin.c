/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the fatbin reader: fatbins built here byte by byte (raw,
 * LZ4 and zstd entries, several fatbins back to back, inside a minimal
 * ELF file), the LZ4 block decoder, and every malformed input it must
 * refuse with its message. (tests/cli/elastic.sh reads real nvcc output.)
 */
#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "error.h"
#include "reconstruct/ptx/fatbin.h"
#include "strbuf.h"
#include "test.h"

static void put16(struct strbuf *sb, unsigned v)
{
	unsigned char b[2] = { (unsigned char)v, (unsigned char)(v >> 8) };
	strbuf_add(sb, b, 2);
}

static void put32(struct strbuf *sb, uint32_t v)
{
	put16(sb, v & 0xffff);
	put16(sb, v >> 16);
}

static void put64(struct strbuf *sb, uint64_t v)
{
	put32(sb, (uint32_t)v);
	put32(sb, (uint32_t)(v >> 32));
}

static void set64(struct strbuf *sb, size_t at, uint64_t v)
{
	for (int i = 0; i < 8; i++) {
		sb->buf[at + i] = (char)(v >> (8 * i));
	}
}

/* One entry: header (64 bytes) and payload padded to 8. */
static void entry(struct strbuf *sb, unsigned kind, unsigned arch,
		  uint64_t flags, const void *data, size_t len, size_t raw_len)
{
	size_t padded = (len + 7) & ~(size_t)7;

	put16(sb, kind);
	put16(sb, 0x101);
	put32(sb, 64);
	put64(sb, padded);
	put32(sb, flags & 0xa000 ? (uint32_t)len : 0);
	put32(sb, kind == 1 ? 0x40 : 0);
	put32(sb, kind == 1 ? 0x90000 : 0x10008);	/* PTX ISA 9.0 */
	put32(sb, arch);
	put32(sb, 0);
	put32(sb, 0);
	put64(sb, flags);
	put64(sb, 0);
	put64(sb, flags & 0xa000 ? raw_len : 0);
	strbuf_add(sb, data, len);
	for (size_t i = len; i < padded; i++) {
		strbuf_addch(sb, '\0');
	}
}

static size_t begin_fatbin(struct strbuf *sb)
{
	size_t at = sb->len;
	put32(sb, GM_FATBIN_MAGIC);
	put16(sb, 1);
	put16(sb, 16);
	put64(sb, 0);
	return at;
}

static void end_fatbin(struct strbuf *sb, size_t at)
{
	set64(sb, at + 8, sb->len - at - 16);
}

static const char ptx90[] = ".version 9.0\n.target sm_90\n.address_size 64\n";
static const char ptx80[] = ".version 8.0\n.target sm_80\n.address_size 64\n";
/* "abcabcabcabc" as an LZ4 block: 3 literals, then a 9-byte match at 3. */
static const unsigned char lz4_abc[] = { 0x35, 'a', 'b', 'c', 3, 0, 0x10, '!' };

static void test_lz4(void)
{
	char out[64];
	size_t n = 0;

	CHECK(gm_lz4_block_decode(lz4_abc, sizeof(lz4_abc), out, sizeof(out), &n) == 0 &&
	      n == 13 && !memcmp(out, "abcabcabcabc!", 13),
	      "lz4: literals and an overlapping match");
	unsigned char longlit[300];
	longlit[0] = 0xf0;
	longlit[1] = 255;
	longlit[2] = 10;	/* 15 + 255 + 10 = 280 literals */
	memset(longlit + 3, 'x', 280);
	char big[400];
	CHECK(gm_lz4_block_decode(longlit, 283, big, sizeof(big), &n) == 0 && n == 280 &&
	      big[279] == 'x', "lz4: extended literal length");
	static const unsigned char bad_off[] = { 0x10, 'a', 0, 0 };
	CHECK(gm_lz4_block_decode(bad_off, sizeof(bad_off), out, sizeof(out), &n) < 0 &&
	      strstr(gm_error_message(), "offset 0 outside"), "lz4: offset 0 is refused");
	gm_error_clear();
	static const unsigned char far_off[] = { 0x10, 'a', 9, 0 };
	CHECK(gm_lz4_block_decode(far_off, sizeof(far_off), out, sizeof(out), &n) < 0,
	      "lz4: an offset before the output is refused");
	gm_error_clear();
	CHECK(gm_lz4_block_decode(lz4_abc, sizeof(lz4_abc), out, 5, &n) < 0 &&
	      strstr(gm_error_message(), "overrun"), "lz4: output larger than announced");
	gm_error_clear();
	static const unsigned char trunc[] = { 0x50, 'a', 'b' };
	CHECK(gm_lz4_block_decode(trunc, sizeof(trunc), out, sizeof(out), &n) < 0,
	      "lz4: truncated literals");
	gm_error_clear();
	static const unsigned char trunc_off[] = { 0x10, 'a', 1 };
	CHECK(gm_lz4_block_decode(trunc_off, sizeof(trunc_off), out, sizeof(out), &n) < 0 &&
	      strstr(gm_error_message(), "truncated LZ4 match offset"),
	      "lz4: truncated match offset");
	gm_error_clear();
}

/* A fatbin with every kind of entry, plus a second fatbin after it. */
static void build(struct strbuf *sb)
{
	static const char elf[] = "\177ELF-pretend-cubin";
	char zbuf[256];
	size_t zn = ZSTD_compress(zbuf, sizeof(zbuf), ptx90, strlen(ptx90), 3);

	size_t f0 = begin_fatbin(sb);
	entry(sb, 2, 90, 0x11, elf, sizeof(elf), sizeof(elf));
	entry(sb, 1, 90, 0x8011, zbuf, zn, strlen(ptx90));
	entry(sb, 1, 80, 0x2011, lz4_abc, sizeof(lz4_abc), 13);
	end_fatbin(sb, f0);
	for (int i = 0; i < 8; i++) {
		strbuf_addch(sb, '\0');	/* padding between fatbins */
	}
	size_t f1 = begin_fatbin(sb);
	entry(sb, 1, 80, 0x11, ptx80, sizeof(ptx80), sizeof(ptx80));
	end_fatbin(sb, f1);
}

static void test_parse(void)
{
	struct strbuf sb = STRBUF_INIT, data = STRBUF_INIT;
	struct gm_fatbin fb;

	build(&sb);
	CHECK(gm_fatbin_parse(sb.buf, sb.len, &fb) == 0, "fatbin: parses");
	CHECK_INT(fb.nr_containers, 2, "fatbin: two fatbins back to back");
	CHECK_INT(fb.nr, 4, "fatbin: four entries");
	if (fb.nr == 4) {
		CHECK(fb.entries[0].kind == GM_FATBIN_ELF && fb.entries[0].arch == 90 &&
		      fb.entries[0].compression == GM_FATBIN_RAW, "fatbin: sm_90 cubin");
		CHECK(fb.entries[1].kind == GM_FATBIN_PTX &&
		      fb.entries[1].compression == GM_FATBIN_ZSTD &&
		      fb.entries[1].version_major == 9 && fb.entries[1].version_minor == 0,
		      "fatbin: zstd compute_90 PTX, ISA 9.0");
		CHECK(fb.entries[2].compression == GM_FATBIN_LZ4, "fatbin: LZ4 entry");
		CHECK_INT(fb.entries[3].container, 1, "fatbin: entry of the second fatbin");
		CHECK(gm_fatbin_entry_data(&fb.entries[1], &data) == 0 &&
		      !strcmp(data.buf, ptx90), "fatbin: zstd payload decompresses");
		strbuf_reset(&data);
		CHECK(gm_fatbin_entry_data(&fb.entries[2], &data) == 0 &&
		      !strcmp(data.buf, "abcabcabcabc!"), "fatbin: LZ4 payload decompresses");
		strbuf_reset(&data);
		CHECK(gm_fatbin_entry_data(&fb.entries[3], &data) == 0 &&
		      !strcmp(data.buf, ptx80) && data.len == strlen(ptx80),
		      "fatbin: raw PTX loses its NUL padding");
		strbuf_reset(&data);
		CHECK_INT(gm_fatbin_pick_ptx(&fb, 90), 1, "fatbin: sm_90 picks compute_90");
		CHECK_INT(gm_fatbin_pick_ptx(&fb, 86), 2, "fatbin: sm_86 picks compute_80");
		CHECK_INT(gm_fatbin_pick_ptx(&fb, 75), 2, "fatbin: sm_75 takes the lowest above");
	}
	gm_fatbin_release(&fb);

	/* corrupt zstd payload */
	struct strbuf bad = STRBUF_INIT;
	strbuf_add(&bad, sb.buf, sb.len);
	CHECK(gm_fatbin_parse(bad.buf, bad.len, &fb) == 0, "fatbin: copy parses");
	if (fb.nr == 4) {
		size_t at = (size_t)((const char *)fb.entries[1].data - bad.buf);
		bad.buf[at + 6] ^= 0x5a;
		bad.buf[at + 9] ^= 0x5a;
		CHECK(gm_fatbin_entry_data(&fb.entries[1], &data) < 0 &&
		      strstr(gm_error_message(), "cannot decompress the zstd entry"),
		      "fatbin: a corrupt zstd entry is an error");
		gm_error_clear();
	}
	gm_fatbin_release(&fb);
	strbuf_release(&bad);

	/* truncation: the header claims more than there is */
	CHECK(gm_fatbin_parse(sb.buf, 100, &fb) < 0 &&
	      strstr(gm_error_message(), "overruns the 100 bytes available"),
	      "fatbin: truncated fatbin");
	gm_error_clear();
	gm_fatbin_release(&fb);
	/* an entry that overruns its fatbin */
	strbuf_add(&bad, sb.buf, sb.len);
	set64(&bad, 16 + 8, 1u << 20);
	CHECK(gm_fatbin_parse(bad.buf, bad.len, &fb) < 0 &&
	      strstr(gm_error_message(), "overruns its fatbin"),
	      "fatbin: entry larger than its fatbin");
	gm_error_clear();
	gm_fatbin_release(&fb);
	strbuf_reset(&bad);
	put32(&bad, GM_FATBIN_WRAPPER_MAGIC);
	put32(&bad, 1);
	put64(&bad, 0x7f0000001000ull);
	CHECK(gm_fatbin_parse(bad.buf, bad.len, &fb) < 0 &&
	      strstr(gm_error_message(), "wrapper"), "fatbin: a wrapper is refused");
	gm_error_clear();
	gm_fatbin_release(&fb);
	CHECK(gm_fatbin_parse(sb.buf, 0, &fb) < 0 && strstr(gm_error_message(), "empty"),
	      "fatbin: empty input");
	gm_error_clear();
	gm_fatbin_release(&fb);
	strbuf_reset(&bad);
	strbuf_addstr(&bad, "not a fatbin at all");
	CHECK(gm_fatbin_parse(bad.buf, bad.len, &fb) < 0 &&
	      strstr(gm_error_message(), "no fatbin at offset 0"), "fatbin: bad magic");
	gm_error_clear();
	gm_fatbin_release(&fb);
	strbuf_release(&bad);
	strbuf_release(&data);
	strbuf_release(&sb);
}

/* A minimal ELF64 with sections: null, .shstrtab, and @name holding @data. */
static void build_elf(struct strbuf *sb, unsigned machine, const char *name,
		      const struct strbuf *data)
{
	struct strbuf names = STRBUF_INIT;
	strbuf_addch(&names, '\0');
	strbuf_addstr(&names, ".shstrtab");
	strbuf_addch(&names, '\0');
	size_t name_off = names.len;
	strbuf_addstr(&names, name);
	strbuf_addch(&names, '\0');

	size_t data_off = 64, names_off = data_off + data->len;
	size_t shoff = (names_off + names.len + 7) & ~(size_t)7;

	strbuf_add(sb, "\177ELF\2\1\1\0", 8);
	put64(sb, 0);
	put16(sb, 2);		/* ET_EXEC */
	put16(sb, machine);
	put32(sb, 1);
	put64(sb, 0);		/* entry */
	put64(sb, 0);		/* phoff */
	put64(sb, shoff);
	put32(sb, 0);
	put16(sb, 64);
	put16(sb, 56);
	put16(sb, 0);
	put16(sb, 64);		/* shentsize */
	put16(sb, 3);		/* shnum */
	put16(sb, 1);		/* shstrndx */
	strbuf_add(sb, data->buf, data->len);
	strbuf_add(sb, names.buf, names.len);
	while (sb->len < shoff) {
		strbuf_addch(sb, '\0');
	}
	for (int i = 0; i < 64; i++) {
		strbuf_addch(sb, '\0');	/* SHN_UNDEF */
	}
	/* .shstrtab */
	put32(sb, 1);
	put32(sb, 3);
	put64(sb, 0);
	put64(sb, 0);
	put64(sb, names_off);
	put64(sb, names.len);
	put32(sb, 0);
	put32(sb, 0);
	put64(sb, 1);
	put64(sb, 0);
	/* the data section */
	put32(sb, (uint32_t)name_off);
	put32(sb, 1);
	put64(sb, 2);
	put64(sb, 0);
	put64(sb, data_off);
	put64(sb, data->len);
	put32(sb, 0);
	put32(sb, 0);
	put64(sb, 8);
	put64(sb, 0);
	strbuf_release(&names);
}

static void test_elf(void)
{
	struct strbuf fat = STRBUF_INIT, elf = STRBUF_INIT;
	struct gm_fatbin fb;

	build(&fat);
	build_elf(&elf, 62, ".nv_fatbin", &fat);
	CHECK(gm_fatbin_from_image(elf.buf, elf.len, &fb) == 0 && fb.nr == 4 &&
	      fb.entries[0].offset == 64 + 16, "elf: .nv_fatbin found, offsets in the file");
	gm_fatbin_release(&fb);
	strbuf_reset(&elf);
	build_elf(&elf, 62, ".data", &fat);
	CHECK(gm_fatbin_from_image(elf.buf, elf.len, &fb) < 0 &&
	      strstr(gm_error_message(), "no .nv_fatbin section"), "elf: no device code");
	gm_error_clear();
	gm_fatbin_release(&fb);
	strbuf_reset(&elf);
	build_elf(&elf, 190, ".nv.info", &fat);
	CHECK(gm_fatbin_from_image(elf.buf, elf.len, &fb) < 0 &&
	      strstr(gm_error_message(), "cubin"), "elf: a cubin has no PTX");
	gm_error_clear();
	gm_fatbin_release(&fb);
	strbuf_reset(&elf);
	build_elf(&elf, 62, ".nv_fatbin", &fat);
	set64(&elf, 40, 1u << 30);	/* section table far away */
	CHECK(gm_fatbin_from_image(elf.buf, elf.len, &fb) < 0 &&
	      strstr(gm_error_message(), "out of bounds"), "elf: bad section table");
	gm_error_clear();
	gm_fatbin_release(&fb);
	CHECK(gm_fatbin_from_image(fat.buf, fat.len, &fb) == 0 && fb.nr == 4,
	      "image: a bare fatbin");
	gm_fatbin_release(&fb);
	strbuf_release(&fat);
	strbuf_release(&elf);
}

int main(void)
{
	test_lz4();
	test_parse();
	test_elf();
	return test_done();
}
