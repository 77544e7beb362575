/* SPDX-License-Identifier: MIT */
/*
 * The model's memory: allocations, frees, page-locked host buffers,
 * copies (with the device pointers their bytes store) and memsets.
 */
#include "model_int.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "hash.h"
#include "instance_name.h"

/* "event 12 (cuMemcpyHtoD_v2): " prefix of every per-call message. */
#define EVF "event %" PRIu64 " (%s): "

/* ---- memory ---- */

int model_alloc_region(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t start, uint64_t span, uint64_t size,
		       size_t *op_index)
{
	struct addr_region r;
	struct mop *op;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (!size || !start || span < size) {
		return gm_error(EVF "allocation of %" PRIu64 " bytes at 0x%"
				PRIx64, ev, api, size, start);
	}
	r.start = start;
	r.size = span;
	r.kind = GM_REF_ALLOC;
	r.id = id_pool_get(&p->alloc_ids);
	r.event = ev;
	if (addr_map_add(&p->dev, &r) < 0) {
		id_pool_put(&p->alloc_ids, r.id);
		return gm_error(EVF "allocation", ev, api);
	}
	op = model_op_add(p, ev, api, GM_OP_ALLOC);
	op->a = r.id;
	op->x = start;
	op->z = size;
	if (op_index) {
		*op_index = p->nr_ops - 1;
	}
	return 0;
}

int model_add_alloc(struct model_prog *p, uint64_t ev, const char *api,
		    uint64_t dptr, uint64_t size)
{
	return model_alloc_region(p, ev, api, dptr, size, size, NULL);
}

int model_add_free(struct model_prog *p, uint64_t ev, const char *api,
		   uint64_t dptr)
{
	const struct addr_region *f;
	struct addr_region r;
	struct mop *op;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (!dptr) {
		return 0;	/* cuMemFree(0) does nothing */
	}
	f = addr_map_find(&p->dev, dptr, 0);
	if (f && f->start == dptr && f->kind == GM_REF_HOSTMEM &&
	    p->hostmems[f->id].kind == GM_HOSTMEM_MANAGED) {
		/* Managed memory: allocated for the whole replay. */
		model_hostmem_drop(p, dptr);
		return 0;
	}
	if (!f || f->start != dptr || f->kind != GM_REF_ALLOC) {
		return gm_error(EVF "0x%" PRIx64 " is not a live allocation",
				ev, api, dptr);
	}
	addr_map_remove(&p->dev, dptr, &r);
	id_pool_put(&p->alloc_ids, r.id);
	op = model_op_add(p, ev, api, GM_OP_FREE);
	op->a = r.id;
	return 0;
}


int model_add_host_alloc(struct model_prog *p, uint64_t ev, uint64_t hptr,
			 uint64_t size)
{
	struct addr_region r = { hptr, size, 0, 0, ev };

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (addr_map_add(&p->host, &r) < 0) {
		return gm_error("event %" PRIu64 ": page-locked host buffer",
				ev);
	}
	/* Kernels may read it at its address too (unified addressing). */
	return model_hostmem_add(p, ev, hptr, size, GM_HOSTMEM_MAPPED);
}

int model_add_host_free(struct model_prog *p, uint64_t ev, uint64_t hptr)
{
	if (model_check_open(p) < 0) {
		return -1;
	}
	if (addr_map_remove(&p->host, hptr, NULL) < 0) {
		return gm_error("event %" PRIu64 ": 0x%" PRIx64 " is not a live"
				" page-locked host buffer", ev, hptr);
	}
	model_hostmem_drop(p, hptr);
	return 0;
}

/* Host-to-device copies up to these sizes are looked at for device
 * pointers: into a module global (a pointer variable or a small table),
 * into an allocation (a table of pointers, as batched cuBLAS reads one:
 * 8192 of them); bulk data is not. Above GM_INLINE_MAX their bytes are a
 * blob file of the bundle. */
#define PTR_STORE_MAX 4096
#define PTR_STORE_ALLOC_MAX 65536

/*
 * After host-to-device copy @copy (an index into p->ops) into a module
 * global or an allocation: a PTR_STORE for each 8-aligned word of the
 * copied bytes that held an address inside a live allocation or global,
 * so that the replay's memory holds the replay's address (a replay that
 * places the allocations at their captured addresses skips the stores
 * of allocation addresses; globals are never placed). Copies
 * captured into a graph are left as they are (a node cannot be patched
 * at each launch), with a warning.
 */
static int pointer_stores(struct model_prog *p, uint64_t ev,
			  const char *api, size_t copy,
			  const struct model_copy *c)
{
	const struct model_blob *b = &p->m->blobs[c->blob];
	struct mop h2d = p->ops[copy];
	struct strbuf file = STRBUF_INIT;
	const uint8_t *bytes = b->bytes;
	struct reloc_word *words;
	uint32_t kind = h2d.a & GM_REF_KIND_MASK;
	size_t nw;

	if ((kind != GM_REF_GLOBAL && kind != GM_REF_ALLOC) ||
	    c->size > (kind == GM_REF_GLOBAL ? PTR_STORE_MAX :
					       PTR_STORE_ALLOC_MAX) ||
	    h2d.x % 8 || (!bytes && !b->path)) {
		return 0;
	}
	if (!bytes) {
		if (gm_read_file(b->path, &file) < 0) {
			return -1;
		}
		if (file.len < c->blob_offset + c->size) {
			strbuf_release(&file);
			return gm_error(EVF "source data '%s' holds %zu bytes, "
					"fewer than the copy's", ev, api,
					b->path, file.len);
		}
		bytes = (const uint8_t *)file.buf;
	}
	words = gm_xcalloc(c->size / 8 + 1, sizeof(*words));
	nw = reloc_classify(bytes + c->blob_offset, (uint32_t)c->size, NULL,
			    NULL, 0, &p->dev, NULL, NULL, words);
	for (size_t i = 0; i < nw; i++) {
		struct mop *op;
		uint32_t to = words[i].ref & GM_REF_KIND_MASK;
		/* Into an allocation, or a module global (which lies where
		 * the replay's driver puts it, in every mode). */
		if (words[i].cls != RELOC_LIVE ||
		    (to != GM_REF_ALLOC && to != GM_REF_GLOBAL)) {
			continue;
		}
		if (model_graph_capturing(p, h2d.stream)) {
			model_add_warning(p, ev, "a device pointer copied into device memory "
			     "inside a graph is not relocated: the replay keeps "
			     "the captured address");
			break;
		}
		op = model_op_add(p, ev, api, GM_OP_PTR_STORE);
		op->stream = h2d.stream;
		op->flags = h2d.flags & GM_F_SYNC;
		op->a = h2d.a;
		op->x = h2d.x + words[i].offset;
		op->b = words[i].ref;
		op->y = words[i].addend;
		p->nr_pointer_stores++;
	}
	free(words);
	strbuf_release(&file);
	return 0;
}

int model_add_copy(struct model_prog *p, uint64_t ev, const char *api,
		   const struct model_copy *c)
{
	struct model *m = p->m;
	uint32_t dref = 0, sref = 0;
	uint64_t doff = 0, soff = 0;
	uint16_t s;
	struct mop *op;

	if (model_check_open(p) < 0 ||
	    model_stream_lookup(p, ev, api, c->stream, &s) < 0) {
		return -1;
	}
	if (!c->size) {
		p->nr_skipped++;
		return 0;
	}
	switch (c->kind) {
	case MODEL_H2D:
		if (model_resolve_device(p, ev, api, "destination", c->dst, c->size,
				&dref, &doff) < 0) {
			return -1;
		}
		if (c->blob >= m->nr_blobs ||
		    c->blob_offset > m->blobs[c->blob].size ||
		    c->size > m->blobs[c->blob].size - c->blob_offset) {
			return gm_error(EVF "source data (blob %" PRIu32
					") is missing or too small", ev, api,
					c->blob);
		}
		op = model_op_add(p, ev, api, GM_OP_H2D);
		op->a = dref;
		op->x = doff;
		op->b = c->blob;
		op->y = c->blob_offset;
		/* A graph's copy reads its source at every launch, and
		 * CUDA captures copies from page-locked memory only. */
		if (model_host_pinned(p, c->src, c->size) || model_graph_capturing(p, s)) {
			op->flags |= GM_F_PINNED;
			m->blobs[c->blob].flags |= GM_BLOB_PINNED;
		}
		break;
	case MODEL_D2H:
		if (model_resolve_device(p, ev, api, "source", c->src, c->size, &sref,
				&soff) < 0) {
			return -1;
		}
		if (model_graph_capturing(p, s)) {
			/* A node of a graph: each launch delivers it. */
			op = model_op_add(p, ev, api, GM_OP_D2H);
			op->b = GM_NONE;
			op->flags |= GM_F_GRAPH;
			model_graph_copy_node(p, s, (uint32_t)(p->nr_ops - 1),
					      c->dst);
		} else if (c->d2h_hash) {
			char h[33];
			if (model_canonical_hash(c->d2h_hash, h) < 0) {
				return gm_error(EVF "bad result hash '%s'", ev,
						api, c->d2h_hash);
			}
			op = model_op_add(p, ev, api, GM_OP_D2H);
			op->b = gm_strmap_intern(&p->checks, h);
		} else {
			op = model_op_add(p, ev, api, GM_OP_D2H);
			op->b = GM_NONE;
			p->nr_unverifiable++;
			handle_map_put(&p->unchecked, ev,
				       (uint32_t)(p->nr_ops - 1));
		}
		op->a = sref;
		op->x = soff;
		if (model_host_pinned(p, c->dst, c->size) || (op->flags & GM_F_GRAPH)) {
			op->flags |= GM_F_PINNED;
		} else if (c->flags & MODEL_HOST_WARM) {
			op->flags |= GM_F_HOST_WARM;
		}
		break;
	case MODEL_D2D:
		if (model_resolve_device(p, ev, api, "destination", c->dst, c->size,
				&dref, &doff) < 0 ||
		    model_resolve_device(p, ev, api, "source", c->src, c->size, &sref,
				&soff) < 0) {
			return -1;
		}
		op = model_op_add(p, ev, api, GM_OP_D2D);
		op->a = dref;
		op->x = doff;
		op->b = sref;
		op->y = soff;
		break;
	default:
		return gm_error(EVF "unknown copy kind %d", ev, api, c->kind);
	}
	op->stream = s;
	op->z = c->size;
	if (c->flags & MODEL_SYNC) {
		op->flags |= GM_F_SYNC;
	}
	if (c->kind == MODEL_H2D) {
		return pointer_stores(p, ev, api, op - p->ops, c);
	}
	return 0;
}

int model_set_result_hash(struct model_prog *p, uint64_t ev, uint64_t copy_ev,
			  const char *hash)
{
	uint32_t idx;
	char h[33];

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->unchecked, copy_ev, &idx)) {
		return gm_error("event %" PRIu64 ": no device-to-host copy at "
				"event %" PRIu64 " waits for a result hash", ev,
				copy_ev);
	}
	if (model_canonical_hash(hash, h) < 0) {
		return gm_error("event %" PRIu64 ": bad result hash '%s'", ev,
				hash ? hash : "(null)");
	}
	handle_map_del(&p->unchecked, copy_ev);
	p->ops[idx].b = gm_strmap_intern(&p->checks, h);
	p->nr_unverifiable--;
	return 0;
}

int model_set_result_overwritten(struct model_prog *p, uint64_t ev,
				 uint64_t copy_ev)
{
	uint32_t idx;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->unchecked, copy_ev, &idx)) {
		return gm_error("event %" PRIu64 ": no device-to-host copy at "
				"event %" PRIu64 " waits for a result hash", ev,
				copy_ev);
	}
	handle_map_del(&p->unchecked, copy_ev);
	p->nr_unverifiable--;
	p->nr_overwritten++;
	return 0;
}

int model_add_memset(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t dst, uint32_t value, unsigned elem_size,
		     uint64_t count, uint64_t stream, unsigned flags)
{
	unsigned code;
	uint32_t ref;
	uint64_t off;
	uint16_t s;
	struct mop *op;

	if (model_check_open(p) < 0 ||
	    model_stream_lookup(p, ev, api, stream, &s) < 0) {
		return -1;
	}
	switch (elem_size) {
	case 1:
		code = GM_OP_MEMSET8;
		value &= 0xff;
		break;
	case 2:
		code = GM_OP_MEMSET16;
		value &= 0xffff;
		break;
	case 4:
		code = GM_OP_MEMSET32;
		break;
	default:
		return gm_error(EVF "memset of %u-byte elements", ev, api,
				elem_size);
	}
	if (!count) {
		p->nr_skipped++;
		return 0;
	}
	if (model_resolve_device(p, ev, api, "destination", dst, count * elem_size,
			&ref, &off) < 0) {
		return -1;
	}
	op = model_op_add(p, ev, api, code);
	op->stream = s;
	op->a = ref;
	op->x = off;
	op->c = value;
	op->z = count;
	if (flags & MODEL_SYNC) {
		op->flags |= GM_F_SYNC;
	}
	return 0;
}
