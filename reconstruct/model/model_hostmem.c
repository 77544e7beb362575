/* SPDX-License-Identifier: MIT */
/*
 * Mapped page-locked and managed memory in the replay model (model.h).
 * Every page-locked buffer and managed allocation is a region of the
 * device address map with a GM_REF_HOSTMEM reference, so that kernel
 * arguments, copies and memsets that point into it are relocated like
 * device pointers; a region that nothing names is not allocated by the
 * replay (gm_hostmem_desc.size 0). Region ids are never reused: the
 * replay allocates each region once, at init.
 */
#include <inttypes.h>
#include <string.h>

#include "error.h"
#include "model_int.h"

#define EVF "event %" PRIu64 " (%s): "

/* The live region starting at @start, or NULL. */
static struct model_hostmem *find(struct model_prog *p, uint64_t start)
{
	const struct addr_region *r = addr_map_find(&p->dev, start, 0);

	if (!r || r->kind != GM_REF_HOSTMEM || r->start != start) {
		return NULL;
	}
	return &p->hostmems[r->id];
}

int model_hostmem_add(struct model_prog *p, uint64_t ev, uint64_t start,
		      uint64_t size, uint32_t kind)
{
	struct addr_region r = { start, size, GM_REF_HOSTMEM, 0, ev };
	struct model_hostmem *h;

	if (p->nr_hostmems >= GM_REF_ID_MASK) {
		return gm_error("event %" PRIu64 ": more than %u mapped or "
				"managed allocations", ev, GM_REF_ID_MASK);
	}
	r.id = (uint32_t)p->nr_hostmems;
	if (addr_map_add(&p->dev, &r) < 0) {
		/* Only a trace whose host and device addresses overlap
		 * (no unified addressing) gets here. */
		model_add_warning(p, ev, "page-locked or managed memory at 0x%"
				  PRIx64 " overlaps device memory: kernels "
				  "cannot be given it in the replay", start);
		return 0;
	}
	GM_ALLOC_GROW(p->hostmems, p->nr_hostmems + 1, p->alloc_hostmems);
	h = &p->hostmems[p->nr_hostmems++];
	memset(h, 0, sizeof(*h));
	h->kind = kind;
	h->start = start;
	h->size = size;
	h->event = ev;
	h->live = 1;
	return 0;
}

void model_hostmem_drop(struct model_prog *p, uint64_t start)
{
	struct model_hostmem *h = find(p, start);

	if (!h) {
		return;
	}
	addr_map_remove(&p->dev, start, NULL);
	if (h->alias) {
		addr_map_remove(&p->dev, h->alias, NULL);
	}
	h->live = 0;
}

int model_add_managed(struct model_prog *p, uint64_t ev, uint64_t dptr,
		      uint64_t size)
{
	if (model_check_open(p) < 0) {
		return -1;
	}
	if (!dptr || !size) {
		return gm_error("event %" PRIu64 ": managed allocation of %"
				PRIu64 " bytes at 0x%" PRIx64, ev, size, dptr);
	}
	return model_hostmem_add(p, ev, dptr, size, GM_HOSTMEM_MANAGED);
}

int model_alias_host(struct model_prog *p, uint64_t ev, uint64_t hptr,
		     uint64_t dptr)
{
	const struct addr_region *r;
	struct addr_region a;
	struct model_hostmem *h;

	if (model_check_open(p) < 0) {
		return -1;
	}
	r = addr_map_find(&p->dev, hptr, 0);
	if (!r || r->kind != GM_REF_HOSTMEM) {
		return gm_error("event %" PRIu64 ": 0x%" PRIx64 " is not "
				"inside a live page-locked host buffer", ev,
				hptr);
	}
	h = &p->hostmems[r->id];
	a = *r;
	a.start = dptr - (hptr - r->start);
	/* Unified addressing: the same address, nothing to add. */
	if (a.start == r->start || h->alias == a.start) {
		return 0;
	}
	if (h->alias || addr_map_add(&p->dev, &a) < 0) {
		model_add_warning(p, ev, "page-locked buffer 0x%" PRIx64
				  " has device address 0x%" PRIx64 ", which "
				  "is not replayed", hptr, dptr);
		return 0;
	}
	h->alias = a.start;
	return 0;
}

/* @size bytes at @addr inside one region. */
static int resolve(struct model_prog *p, uint64_t ev, const char *api,
		   uint64_t addr, uint64_t size, uint32_t *ref, uint64_t *off)
{
	if (model_resolve_device(p, ev, api, "address", addr, size, ref,
			      off) < 0) {
		return -1;
	}
	if ((*ref & GM_REF_KIND_MASK) != GM_REF_HOSTMEM) {
		return gm_error(EVF "0x%" PRIx64 " is device memory, not "
				"page-locked or managed memory", ev, api, addr);
	}
	return 0;
}

int model_add_host_fill(struct model_prog *p, uint64_t ev, uint64_t addr,
			uint64_t size, uint32_t blob)
{
	struct model *m = p->m;
	uint32_t ref;
	uint64_t off;
	struct mop *op;

	if (model_check_open(p) < 0 ||
	    resolve(p, ev, "hostmem", addr, size, &ref, &off) < 0) {
		return -1;
	}
	if (blob >= m->nr_blobs || size > m->blobs[blob].size) {
		return gm_error("event %" PRIu64 " (hostmem): its content (blob %"
				PRIu32 ") is missing or too small", ev, blob);
	}
	op = model_op_add(p, ev, "hostmem", GM_OP_HOST_FILL);
	op->a = ref;
	op->x = off;
	op->b = blob;
	op->y = 0;
	op->z = size;
	return 0;
}

int model_add_host_check(struct model_prog *p, uint64_t ev, uint64_t addr,
			 uint64_t size, const char *hash)
{
	char h[33];
	uint32_t ref;
	uint64_t off;
	struct mop *op;

	if (model_check_open(p) < 0 ||
	    resolve(p, ev, "hostmem", addr, size, &ref, &off) < 0) {
		return -1;
	}
	if (model_canonical_hash(hash, h) < 0) {
		return gm_error("event %" PRIu64 " (hostmem): bad result hash "
				"'%s'", ev, hash ? hash : "(null)");
	}
	op = model_op_add(p, ev, "hostmem", GM_OP_HOST_CHECK);
	op->a = ref;
	op->x = off;
	op->b = gm_strmap_intern(&p->checks, h);
	op->z = size;
	return 0;
}

int model_add_prefetch(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t addr, uint64_t size, unsigned where,
		       uint64_t stream)
{
	uint16_t s;
	uint32_t ref;
	uint64_t off;
	struct mop *op;

	if (model_check_open(p) < 0 ||
	    model_stream_lookup(p, ev, api, stream, &s) < 0 ||
	    resolve(p, ev, api, addr, size, &ref, &off) < 0) {
		return -1;
	}
	op = model_op_add(p, ev, api, GM_OP_PREFETCH);
	op->stream = s;
	op->a = ref;
	op->x = off;
	op->z = size;
	op->c = where;
	return 0;
}

int model_add_attach(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t addr, uint64_t size, unsigned flags,
		     uint64_t stream)
{
	uint16_t s;
	uint32_t ref;
	uint64_t off;
	struct mop *op;

	if (model_check_open(p) < 0 ||
	    model_stream_lookup(p, ev, api, stream, &s) < 0 ||
	    resolve(p, ev, api, addr, size, &ref, &off) < 0) {
		return -1;
	}
	if ((ref & GM_REF_KIND_MASK) != GM_REF_HOSTMEM ||
	    p->hostmems[ref & GM_REF_ID_MASK].kind != GM_HOSTMEM_MANAGED) {
		return gm_error(EVF "0x%" PRIx64 " is not managed memory", ev,
				api, addr);
	}
	p->hostmems[ref & GM_REF_ID_MASK].used = 1;
	op = model_op_add(p, ev, api, GM_OP_ATTACH);
	op->stream = s;
	op->a = ref;
	op->x = off;
	op->z = size;
	op->c = flags;
	return 0;
}

int model_add_advise(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t addr, uint64_t size, unsigned advice,
		     unsigned where)
{
	uint32_t ref;
	uint64_t off;
	struct mop *op;

	if (model_check_open(p) < 0 ||
	    resolve(p, ev, api, addr, size, &ref, &off) < 0) {
		return -1;
	}
	op = model_op_add(p, ev, api, GM_OP_ADVISE);
	op->a = ref;
	op->x = off;
	op->z = size;
	op->b = advice;
	op->c = where;
	return 0;
}

void model_hostmem_report(const struct model_prog *p, struct strbuf *out)
{
	uint64_t used = 0, bytes = 0, fills = 0, fill_bytes = 0, checks = 0;

	for (size_t i = 0; i < p->nr_hostmems; i++) {
		if (p->hostmems[i].used) {
			used++;
			bytes += p->hostmems[i].size;
		}
	}
	for (size_t i = 0; i < p->nr_ops; i++) {
		if (p->ops[i].code == GM_OP_HOST_FILL) {
			fills++;
			fill_bytes += p->ops[i].z;
		}
		checks += p->ops[i].code == GM_OP_HOST_CHECK;
	}
	if (!used) {
		return;
	}
	strbuf_addf(out, "program '%s': %" PRIu64 " mapped or managed "
		    "allocations (%" PRIu64 " bytes) used by kernels, %" PRIu64
		    " host writes replayed (%" PRIu64 " bytes), %" PRIu64
		    " host reads verified\n", p->name, used, bytes, fills,
		    fill_bytes, checks);
}
