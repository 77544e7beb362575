/* SPDX-License-Identifier: MIT */
/*
 * Fatbin reader (see fatbin.h). All multi-byte fields are little-endian
 * and read byte by byte, so the input needs no alignment.
 */
#include "fatbin.h"

#include <stdlib.h>
#include <string.h>
#include <zstd.h>

#include "error.h"
#include "strbuf.h"

enum {
	FATBIN_HEADER_SIZE = 16,
	ENTRY_MIN_HEADER = 64,
	FLAG_LZ4 = 0x2000,
	FLAG_ZSTD = 0x8000,
	EM_CUDA = 190,
};

static uint16_t rd16(const unsigned char *p)
{
	return (uint16_t)(p[0] | p[1] << 8);
}

static uint32_t rd32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static uint64_t rd64(const unsigned char *p)
{
	return (uint64_t)rd32(p) | (uint64_t)rd32(p + 4) << 32;
}

int gm_fatbin_is_fatbin(const void *buf, size_t len)
{
	return len >= 4 && rd32(buf) == GM_FATBIN_MAGIC;
}

int gm_fatbin_is_elf(const void *buf, size_t len)
{
	return len >= 4 && !memcmp(buf, "\177ELF", 4);
}

static int parse_one(const unsigned char *b, size_t len, size_t at,
		     size_t *next, struct gm_fatbin *out)
{
	if (len - at < FATBIN_HEADER_SIZE) {
		return gm_error("truncated fatbin header at offset %zu", at);
	}
	const unsigned char *h = b + at;
	unsigned hsize = rd16(h + 6);
	uint64_t size = rd64(h + 8);
	if (rd32(h) != GM_FATBIN_MAGIC) {
		return gm_error("no fatbin at offset %zu (magic 0x%08x)", at,
				rd32(h));
	}
	if (hsize < FATBIN_HEADER_SIZE || hsize > len - at ||
	    size > len - at - hsize) {
		return gm_error("fatbin at offset %zu: size %llu overruns the %zu bytes available",
				at, (unsigned long long)size, len - at);
	}
	size_t p = at + hsize, end = p + (size_t)size;
	size_t container = out->nr_containers++;
	while (p < end) {
		if (end - p < ENTRY_MIN_HEADER) {
			/* trailing padding */
			break;
		}
		const unsigned char *e = b + p;
		uint32_t ehs = rd32(e + 4);
		uint64_t psize = rd64(e + 8);
		if (rd16(e) == 0 && ehs == 0) {
			break;	/* zero padding */
		}
		if (ehs < ENTRY_MIN_HEADER || ehs > end - p ||
		    psize > end - p - ehs) {
			return gm_error("fatbin entry at offset %zu overruns its fatbin (header %u, payload %llu bytes)",
					p, ehs, (unsigned long long)psize);
		}
		GM_ALLOC_GROW(out->entries, out->nr + 1, out->alloc);
		struct gm_fatbin_entry *en = &out->entries[out->nr++];
		memset(en, 0, sizeof(*en));
		en->kind = rd16(e);
		en->version_minor = rd16(e + 24);
		en->version_major = rd16(e + 26);
		en->arch = rd32(e + 28);
		en->flags = rd64(e + 40);
		en->offset = p;
		en->container = container;
		en->data = e + ehs;
		en->size = (size_t)psize;
		if (en->flags & (FLAG_LZ4 | FLAG_ZSTD)) {
			uint32_t csize = rd32(e + 16);
			en->compression = en->flags & FLAG_ZSTD ? GM_FATBIN_ZSTD
								: GM_FATBIN_LZ4;
			if (csize && csize <= psize) {
				en->size = csize;
			}
			en->uncompressed_size = (size_t)rd64(e + 56);
		} else {
			en->uncompressed_size = en->size;
		}
		p += ehs + (size_t)psize;
	}
	*next = end;
	return 0;
}

int gm_fatbin_parse(const void *buf, size_t len, struct gm_fatbin *out)
{
	const unsigned char *b = buf;
	size_t at = 0;

	memset(out, 0, sizeof(*out));
	if (len >= 4 && rd32(b) == GM_FATBIN_WRAPPER_MAGIC) {
		return gm_error("this is a fatbin wrapper (magic 0x%08x): it points at the fatbin in memory and holds no code",
				GM_FATBIN_WRAPPER_MAGIC);
	}
	while (at < len) {
		size_t next = len;
		if (parse_one(b, len, at, &next, out) < 0) {
			return -1;
		}
		at = next;
		while (at < len && b[at] == 0) {
			at++;
		}
	}
	if (!out->nr_containers) {
		return gm_error("empty fatbin");
	}
	return 0;
}

/* The section named @want of an ELF64 little-endian image, or -1. */
static int elf_section(const unsigned char *b, size_t len, const char *want,
		       size_t *off, size_t *size)
{
	if (len < 64 || b[4] != 2 || b[5] != 1) {
		return gm_error("not a 64-bit little-endian ELF file");
	}
	uint64_t shoff = rd64(b + 40);
	unsigned shentsize = rd16(b + 58), shnum = rd16(b + 60);
	unsigned shstrndx = rd16(b + 62);
	if (shentsize < 64 || shoff > len ||
	    (uint64_t)shnum * shentsize > len - shoff || shstrndx >= shnum) {
		return gm_error("ELF section table out of bounds");
	}
	const unsigned char *strh = b + shoff + (size_t)shstrndx * shentsize;
	uint64_t stroff = rd64(strh + 24), strsize = rd64(strh + 32);
	if (stroff > len || strsize > len - stroff) {
		return gm_error("ELF section names out of bounds");
	}
	for (unsigned i = 0; i < shnum; i++) {
		const unsigned char *sh = b + shoff + (size_t)i * shentsize;
		uint32_t name = rd32(sh);
		uint32_t type = rd32(sh + 4);
		uint64_t so = rd64(sh + 24), ss = rd64(sh + 32);
		if (name >= strsize) {
			continue;
		}
		const char *nm = (const char *)b + stroff + name;
		size_t maxn = (size_t)(strsize - name);
		if (strnlen(nm, maxn) == maxn || strcmp(nm, want)) {
			continue;
		}
		if (type == 8 /* SHT_NOBITS */ || so > len || ss > len - so) {
			return gm_error("section '%s' out of bounds", want);
		}
		*off = (size_t)so;
		*size = (size_t)ss;
		return 1;
	}
	return 0;
}

int gm_fatbin_from_image(const void *buf, size_t len, struct gm_fatbin *out)
{
	const unsigned char *b = buf;
	size_t off = 0, size = 0;
	int r;

	memset(out, 0, sizeof(*out));
	if (!gm_fatbin_is_elf(buf, len)) {
		return gm_fatbin_parse(buf, len, out);
	}
	if (len >= 20 && rd16(b + 18) == EM_CUDA) {
		return gm_error("this is a cubin (device ELF): it holds SASS only, no PTX");
	}
	r = elf_section(b, len, ".nv_fatbin", &off, &size);
	if (r < 0) {
		return -1;
	}
	if (r == 0) {
		return gm_error("no .nv_fatbin section: no CUDA device code in this file");
	}
	if (gm_fatbin_parse(b + off, size, out) < 0) {
		return gm_error("cannot read the .nv_fatbin section");
	}
	/* offsets relative to the image, not to the section */
	for (size_t i = 0; i < out->nr; i++) {
		out->entries[i].offset += off;
	}
	return 0;
}

int gm_lz4_block_decode(const void *src, size_t n, void *dst, size_t cap,
			size_t *outlen)
{
	const unsigned char *ip = src, *iend = ip + n;
	unsigned char *op = dst, *oend = op + cap;

	while (ip < iend) {
		unsigned token = *ip++;
		size_t lit = token >> 4;
		if (lit == 15) {
			unsigned char c;
			do {
				if (ip >= iend) {
					return gm_error("truncated LZ4 literal length");
				}
				c = *ip++;
				lit += c;
			} while (c == 255);
		}
		if (lit > (size_t)(iend - ip) || lit > (size_t)(oend - op)) {
			return gm_error("LZ4 literals overrun the %s",
					lit > (size_t)(iend - ip) ? "input" : "output");
		}
		memcpy(op, ip, lit);
		op += lit;
		ip += lit;
		if (ip >= iend) {
			break;	/* the last sequence has no match */
		}
		if (iend - ip < 2) {
			return gm_error("truncated LZ4 match offset");
		}
		size_t offset = (size_t)ip[0] | (size_t)ip[1] << 8;
		ip += 2;
		if (offset == 0 || offset > (size_t)(op - (unsigned char *)dst)) {
			return gm_error("LZ4 match offset %zu outside the output", offset);
		}
		size_t ml = token & 15;
		if (ml == 15) {
			unsigned char c;
			do {
				if (ip >= iend) {
					return gm_error("truncated LZ4 match length");
				}
				c = *ip++;
				ml += c;
			} while (c == 255);
		}
		ml += 4;
		if (ml > (size_t)(oend - op)) {
			return gm_error("LZ4 match overruns the output");
		}
		const unsigned char *from = op - offset;
		for (size_t i = 0; i < ml; i++) {
			op[i] = from[i];	/* overlapping copies repeat bytes */
		}
		op += ml;
	}
	*outlen = (size_t)(op - (unsigned char *)dst);
	return 0;
}

/*
 * The most @n compressed bytes can expand to: an LZ4 block at most 255
 * times plus a little (each literal-length or match-length byte adds at
 * most 255), a zstd frame at most 32768 times (a 3-byte RLE block header
 * per 128 KiB, and a frame header). The sizes a fatbin declares are
 * checked against it before anything is allocated: a corrupt header must
 * not make us ask for 2^61 bytes.
 */
static size_t max_expansion(const struct gm_fatbin_entry *e)
{
	size_t ratio = e->compression == GM_FATBIN_LZ4 ? 255 : 32768;

	if (e->size > SIZE_MAX / ratio - 65536) {
		return SIZE_MAX;
	}
	return e->size * ratio + 65536;
}

int gm_fatbin_entry_data(const struct gm_fatbin_entry *e, struct strbuf *out)
{
	size_t start = out->len;

	if (e->compression != GM_FATBIN_RAW &&
	    e->uncompressed_size > max_expansion(e)) {
		return gm_error("the entry at offset %zu claims %zu bytes "
				"uncompressed from %zu: the fatbin is corrupt",
				e->offset, e->uncompressed_size, e->size);
	}
	switch (e->compression) {
	case GM_FATBIN_RAW:
		strbuf_add(out, e->data, e->size);
		break;
	case GM_FATBIN_LZ4: {
		size_t got;
		strbuf_grow(out, e->uncompressed_size + 1);
		if (gm_lz4_block_decode(e->data, e->size, out->buf + out->len,
					e->uncompressed_size, &got) < 0) {
			return gm_error("cannot decompress the LZ4 entry at offset %zu",
					e->offset);
		}
		strbuf_setlen(out, out->len + got);
		break;
	}
	case GM_FATBIN_ZSTD: {
		unsigned long long want =
			ZSTD_getFrameContentSize(e->data, e->size);
		size_t cap = e->uncompressed_size;
		if (want != ZSTD_CONTENTSIZE_UNKNOWN &&
		    want != ZSTD_CONTENTSIZE_ERROR && want > cap) {
			if (want > max_expansion(e)) {
				return gm_error("the zstd entry at offset %zu claims "
						"%llu bytes uncompressed from %zu: the "
						"fatbin is corrupt", e->offset, want,
						e->size);
			}
			cap = (size_t)want;
		}
		strbuf_grow(out, cap + 1);
		size_t got = ZSTD_decompress(out->buf + out->len, cap, e->data,
					     e->size);
		if (ZSTD_isError(got)) {
			return gm_error("cannot decompress the zstd entry at offset %zu: %s",
					e->offset, ZSTD_getErrorName(got));
		}
		strbuf_setlen(out, out->len + got);
		break;
	}
	}
	if (e->kind == GM_FATBIN_PTX) {
		while (out->len > start && out->buf[out->len - 1] == '\0') {
			strbuf_setlen(out, out->len - 1);
		}
	}
	return 0;
}

long gm_fatbin_pick_ptx(const struct gm_fatbin *f, unsigned target_sm)
{
	long best = -1, above = -1;

	for (size_t i = 0; i < f->nr; i++) {
		const struct gm_fatbin_entry *e = &f->entries[i];
		if (e->kind != GM_FATBIN_PTX) {
			continue;
		}
		if (e->arch <= target_sm) {
			if (best < 0 || e->arch > f->entries[best].arch) {
				best = (long)i;
			}
		} else if (above < 0 || e->arch < f->entries[above].arch) {
			above = (long)i;
		}
	}
	return best >= 0 ? best : above;
}

void gm_fatbin_release(struct gm_fatbin *f)
{
	free(f->entries);
	memset(f, 0, sizeof(*f));
}
