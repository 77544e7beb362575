/* SPDX-License-Identifier: MIT */
/*
 * Kernel-parameter relocation rules (see reloc.h).
 */
#include "reloc.h"

#include <string.h>

#include "addr_map.h"
#include "handle_map.h"
#include "replay/gpumix_replay.h"

int reloc_is_candidate(uint32_t offset, uint32_t size, const uint32_t *poff,
		       const uint32_t *psize, uint32_t nr)
{
	if (offset % 8 || offset + 8 > size) {
		return 0;
	}
	if (!nr) {
		return 1;
	}
	for (uint32_t i = 0; i < nr; i++) {
		if (offset >= poff[i] && offset + 8 <= poff[i] + psize[i]) {
			return 1;
		}
	}
	return 0;
}

size_t reloc_classify(const uint8_t *bytes, uint32_t size, const uint32_t *poff,
		      const uint32_t *psize, uint32_t nr,
		      const struct addr_map *dev, const struct addr_map *host,
		      const struct handle_map *tex, struct reloc_word *out)
{
	size_t n = 0;

	for (uint32_t off = 0; off + 8 <= size; off += 8) {
		struct reloc_word *w;
		const struct addr_region *r;
		uint64_t v;
		uint32_t tid;

		if (!reloc_is_candidate(off, size, poff, psize, nr)) {
			continue;
		}
		memcpy(&v, bytes + off, sizeof(v));
		w = &out[n++];
		memset(w, 0, sizeof(*w));
		w->offset = off;
		if (!v) {
			w->cls = RELOC_ZERO;
		} else if ((r = addr_map_find(dev, v, 1))) {
			w->cls = RELOC_LIVE;
			w->ref = r->kind | r->id;
			w->addend = v - r->start;
		} else if (tex && handle_map_get(tex, v, &tid)) {
			w->cls = RELOC_TEX;
			w->ref = GM_T(tid);
		} else if (host && addr_map_find(host, v, 0)) {
			w->cls = RELOC_HOST;
		} else if (addr_map_is_dead(dev, v)) {
			w->cls = RELOC_DEAD;
		} else {
			w->cls = RELOC_OTHER;
		}
	}
	return n;
}

void reloc_stat_add(struct reloc_stat *s, enum reloc_class c)
{
	switch (c) {
	case RELOC_ZERO:
		break;
	case RELOC_LIVE:
		s->live++;
		break;
	case RELOC_DEAD:
		s->dead++;
		break;
	case RELOC_TEX:
		s->tex++;
		break;
	case RELOC_HOST:
		s->host++;
		break;
	case RELOC_OTHER:
		s->other++;
		break;
	}
}

enum reloc_verdict reloc_decide(const struct reloc_stat *s)
{
	if (s->live && !s->other && !s->tex && !s->host) {
		return VERDICT_PTR;
	}
	if (s->tex && !s->live && !s->dead && !s->other && !s->host) {
		return VERDICT_TEX;
	}
	if (!s->live && !s->tex && !s->host && s->dead && !s->other) {
		return VERDICT_DANGLING;
	}
	if (s->host && !s->live && !s->tex && !s->other) {
		return VERDICT_HOST;
	}
	if (!s->live && !s->tex && !s->host && !s->dead) {
		return VERDICT_NONE;
	}
	return VERDICT_AMBIGUOUS;
}

const char *reloc_verdict_name(enum reloc_verdict v)
{
	switch (v) {
	case VERDICT_NONE:
		return "not a pointer";
	case VERDICT_PTR:
		return "device pointer";
	case VERDICT_TEX:
		return "texture object";
	case VERDICT_AMBIGUOUS:
		return "ambiguous";
	case VERDICT_DANGLING:
		return "dangling pointer";
	case VERDICT_HOST:
		return "host pointer";
	}
	return "?";
}
