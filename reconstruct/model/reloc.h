/* SPDX-License-Identifier: MIT */
/*
 * Pointer relocation of kernel parameters. Two captured programs usually
 * used the same device addresses, so a replay cannot reuse them: every
 * parameter word that held a device address must become (region, offset)
 * and be patched with the replay's own address. The danger is the other
 * way round: an integer or a double that merely looks like a pointer must
 * never be patched.
 *
 * The rules, which keep that safe:
 *  1. Only candidate words are looked at: 8 bytes at an 8-aligned offset
 *     that lie entirely inside one parameter of the recorded layout (a
 *     pointer parameter, or an 8-aligned word inside a struct parameter).
 *     Two adjacent 4-byte parameters never form a candidate.
 *  2. Each candidate value is classified at the point of the trace where
 *     the launch happens: zero; inside a live allocation or global (a
 *     one-past-the-end value counts when no region contains it); inside
 *     freed memory only (dangling); a live texture object handle; inside
 *     page-locked host memory; or other.
 *  3. A word position of a kernel is relocated only when, over all of that
 *     kernel's launches, its non-zero values were pointers into live
 *     regions (or dangling) and never anything else; a texture handle
 *     position only when every non-zero value was a live handle. A
 *     position that mixes pointers and other values is ambiguous: it is
 *     left alone and reported. So a counter that once happened to equal a
 *     live address is not corrupted.
 */
#ifndef GM_RELOC_H
#define GM_RELOC_H

#include <stddef.h>
#include <stdint.h>

struct addr_map;
struct handle_map;

enum reloc_class {
	RELOC_ZERO,
	RELOC_LIVE,		/* ref + addend valid */
	RELOC_DEAD,
	RELOC_TEX,		/* ref = GM_T(id) */
	RELOC_HOST,
	RELOC_OTHER,
};

struct reloc_word {
	uint32_t offset;
	uint8_t cls;		/* enum reloc_class */
	uint32_t ref;		/* GM_A / GM_G / GM_T reference */
	uint64_t addend;
};

/*
 * 1 when the 8 bytes at @offset are a candidate word of the layout
 * (@nr params at @poff with sizes @psize). Without a layout (@nr == 0)
 * every 8-aligned word of the buffer is a candidate.
 */
int reloc_is_candidate(uint32_t offset, uint32_t size, const uint32_t *poff,
		       const uint32_t *psize, uint32_t nr);

/*
 * Classify every candidate word of the @size bytes at @bytes against the
 * live device regions @dev (kinds GM_REF_ALLOC / GM_REF_GLOBAL), the
 * page-locked host regions @host (may be NULL) and the live texture
 * handles @tex (handle -> texture id; may be NULL). Writes one entry per
 * candidate word into @out (room for size / 8 entries) and returns their
 * number.
 */
size_t reloc_classify(const uint8_t *bytes, uint32_t size, const uint32_t *poff,
		      const uint32_t *psize, uint32_t nr,
		      const struct addr_map *dev, const struct addr_map *host,
		      const struct handle_map *tex, struct reloc_word *out);

/* What one word position saw over all launches of its kernel. */
struct reloc_stat {
	uint32_t live, dead, tex, host, other;
};

enum reloc_verdict {
	VERDICT_NONE,		/* never a pointer: leave the bytes */
	VERDICT_PTR,		/* relocate live values */
	VERDICT_TEX,		/* relocate texture handles */
	VERDICT_AMBIGUOUS,	/* pointers mixed with other values: report */
	VERDICT_DANGLING,	/* only dangling pointers: report */
	VERDICT_HOST,		/* host pointers (zero-copy): report */
};

void reloc_stat_add(struct reloc_stat *s, enum reloc_class c);
enum reloc_verdict reloc_decide(const struct reloc_stat *s);
const char *reloc_verdict_name(enum reloc_verdict v);

#endif
