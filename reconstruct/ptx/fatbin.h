/* SPDX-License-Identifier: MIT */
/*
 * A reader for NVIDIA fatbins, written from what the files show (there is
 * no cuobjdump on the build machines). A fatbin is a 16-byte header
 * (magic 0xBA55ED50, u16 version, u16 header size, u64 payload size)
 * followed by entries, each a header (u16 kind: 1 PTX, 2 ELF cubin;
 * u32 header size; u64 padded payload size; u32 compressed size; u32 PTX
 * ISA or ELF version; u32 architecture; u64 flags; u64 uncompressed size)
 * and its payload. Executables keep one or more fatbins back to back in
 * their .nv_fatbin section; the CUDA runtime registers a wrapper (magic
 * 0x466243b1) that points at one.
 *
 * Compression: nvcc 13 compresses PTX entries by default, with zstd
 * (flag 0x8000; "--compress-mode=size" compresses the cubins too);
 * "--compress-mode=speed" uses an LZ4 block (flag 0x2000). Both are
 * decoded here: zstd through libzstd, LZ4 by our own decoder.
 */
#ifndef GM_FATBIN_H
#define GM_FATBIN_H

#include <stddef.h>
#include <stdint.h>

struct strbuf;

#define GM_FATBIN_MAGIC 0xBA55ED50u
#define GM_FATBIN_WRAPPER_MAGIC 0x466243b1u

enum gm_fatbin_kind {
	GM_FATBIN_PTX = 1,
	GM_FATBIN_ELF = 2,
};

enum gm_fatbin_compression {
	GM_FATBIN_RAW,
	GM_FATBIN_LZ4,
	GM_FATBIN_ZSTD,
};

struct gm_fatbin_entry {
	unsigned kind;			/* enum gm_fatbin_kind, or another value */
	unsigned arch;			/* 90 for sm_90 / compute_90 */
	unsigned version_major;		/* PTX ISA version for PTX entries */
	unsigned version_minor;
	uint64_t flags;
	enum gm_fatbin_compression compression;
	const unsigned char *data;	/* payload, borrowed from the input */
	size_t size;			/* bytes at @data (compressed or not) */
	size_t uncompressed_size;
	size_t offset;			/* of the entry header in the input */
	size_t container;		/* index of the fatbin holding it */
};

struct gm_fatbin {
	struct gm_fatbin_entry *entries;
	size_t nr, alloc;
	size_t nr_containers;
};

/*
 * Parse one fatbin, or several back to back (zero padding between them
 * allowed), from @buf. Entries borrow @buf, which must outlive @out.
 * Returns 0, or -1 with a recorded error naming the offset of a bad
 * header or an entry that overruns its fatbin.
 */
int gm_fatbin_parse(const void *buf, size_t len, struct gm_fatbin *out);

/*
 * Find the fatbins of an image: a fatbin, or an ELF executable or shared
 * object with a .nv_fatbin section. Returns 0, or -1 (cause recorded) for
 * a cubin (no PTX), a fatbin wrapper (it holds a pointer, not the data),
 * an ELF without device code, or a malformed file.
 */
int gm_fatbin_from_image(const void *buf, size_t len, struct gm_fatbin *out);

/* Whether @buf starts like an ELF file or a fatbin. */
int gm_fatbin_is_elf(const void *buf, size_t len);
int gm_fatbin_is_fatbin(const void *buf, size_t len);

/*
 * The payload of @e, decompressed, appended to @out; PTX loses its NUL
 * padding. Returns 0, or -1 with a recorded error for corrupt data.
 */
int gm_fatbin_entry_data(const struct gm_fatbin_entry *e, struct strbuf *out);

/*
 * The PTX entry to use for @target_sm: the highest architecture not above
 * it, else the lowest above it. Returns its index, or -1 when the fatbin
 * holds no PTX.
 */
long gm_fatbin_pick_ptx(const struct gm_fatbin *f, unsigned target_sm);

/* Free the entry list of @f (the input buffer is the caller's). */
void gm_fatbin_release(struct gm_fatbin *f);

/*
 * Decode one LZ4 block (no frame) of @n bytes into @dst, at most @cap
 * bytes; *@outlen receives the decoded size. Returns 0, or -1 (cause
 * recorded) for truncated input, an offset before the start of the
 * output, or output larger than @cap.
 */
int gm_lz4_block_decode(const void *src, size_t n, void *dst, size_t cap,
			size_t *outlen);

#endif
