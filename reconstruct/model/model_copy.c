/* SPDX-License-Identifier: MIT */
/*
 * 2-D and 3-D copies and CUDA arrays in the replay model (see model.h):
 * arrays map to ids (an id whose array was destroyed serves a later array
 * of the same description, so a program that makes and destroys arrays
 * in a loop replays with as many arrays as it had at once), and a copy
 * becomes a COPY_IN, COPY_OUT or COPY_DEV operation over a copy
 * description, its device ends relocated like any address (the whole
 * extent the copy touches must lie in one live allocation or global),
 * its host end packed (the capture stores and hashes host rows packed).
 */
#include <cuda.h>
#include <inttypes.h>
#include <string.h>

#include "error.h"
#include "model_int.h"

#define EVF "event %" PRIu64 " (%s): "

/* Bytes of an element of CUarray_format @f (one channel), 0: unknown. */
static unsigned format_bytes(uint32_t f)
{
	switch (f) {
	case 0x01: case 0x08:			/* UNSIGNED_INT8, SIGNED_INT8 */
		return 1;
	case 0x02: case 0x09: case 0x10:	/* INT16s, HALF */
		return 2;
	case 0x03: case 0x0a: case 0x20:	/* INT32s, FLOAT */
		return 4;
	default:
		return 0;
	}
}

long model_array_id(const struct model_prog *p, uint64_t handle)
{
	uint32_t id;

	if (!handle_map_get(&p->array_map, handle, &id) || id >= p->nr_arrays ||
	    !p->arrays[id].live) {
		return -1;
	}
	return (long)id;
}

int model_array_live(const struct model_prog *p, uint32_t id)
{
	return id < p->nr_arrays && p->arrays[id].live;
}

uint64_t model_array_row_bytes(const struct model_prog *p, uint32_t id)
{
	const struct gm_array_desc *d;

	if (id >= p->nr_arrays) {
		return 0;
	}
	d = &p->arrays[id].d;
	return (uint64_t)format_bytes(d->format) * d->channels * d->width;
}

int model_add_array(struct model_prog *p, uint64_t ev, const char *api,
		    uint64_t handle, const struct gm_array_desc *d)
{
	size_t id;
	struct mop *op;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (!d->width || !d->channels) {
		return gm_error(EVF "an array of %" PRIu64 " elements of %" PRIu32
				" channels", ev, api, d->width, d->channels);
	}
	for (id = 0; id < p->nr_arrays; id++) {
		if (!p->arrays[id].live &&
		    !memcmp(&p->arrays[id].d, d, sizeof(*d))) {
			break;
		}
	}
	if (id == p->nr_arrays) {
		GM_ALLOC_GROW(p->arrays, p->nr_arrays + 1, p->alloc_arrays);
		memset(&p->arrays[id], 0, sizeof(p->arrays[id]));
		p->arrays[id].d = *d;
		p->nr_arrays++;
	}
	p->arrays[id].live = 1;
	handle_map_put(&p->array_map, handle, (uint32_t)id);
	op = model_op_add(p, ev, api, GM_OP_ARRAY_CREATE);
	op->a = (uint32_t)id;
	return 0;
}

int model_destroy_array(struct model_prog *p, uint64_t ev, const char *api,
			uint64_t handle)
{
	long id;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if ((id = model_array_id(p, handle)) < 0) {
		return gm_error(EVF "unknown array 0x%" PRIx64, ev, api, handle);
	}
	p->arrays[id].live = 0;
	handle_map_del(&p->array_map, handle);
	model_op_add(p, ev, api, GM_OP_ARRAY_DESTROY)->a = (uint32_t)id;
	return 0;
}

/* The bytes from an end's first byte to one past its last. */
static uint64_t extent(const struct model_copy_nd *c,
		       const struct model_copy_end *e, uint64_t *first)
{
	uint64_t rows = c->height ? c->height : 1;
	uint64_t depth = c->depth ? c->depth : 1;
	uint64_t slice = e->pitch * (e->height ? e->height : rows);

	*first = e->z * slice + e->y * e->pitch + e->x;
	return (depth - 1) * slice + (rows - 1) * e->pitch + c->width;
}

/* One end of @c into @out. */
static int end(struct model_prog *p, uint64_t ev, const char *api,
	       const struct model_copy_nd *c, const struct model_copy_end *e,
	       const char *what, struct gm_copy_end *out)
{
	memset(out, 0, sizeof(*out));
	if (e->host) {
		out->kind = GM_END_HOST;
		return 0;
	}
	if (e->type == CU_MEMORYTYPE_ARRAY) {
		long id = model_array_id(p, e->array);
		if (id < 0) {
			return gm_error(EVF "the %s is not a live array "
					"(0x%" PRIx64 ")", ev, api, what,
					e->array);
		}
		out->kind = GM_END_ARRAY;
		out->ref = (uint32_t)id;
		out->x = e->x;
		out->y = e->y;
		out->z = e->z;
		return 0;
	}
	{
		uint64_t first, len = extent(c, e, &first);
		out->kind = GM_END_DEVICE;
		out->x = e->x;
		out->y = e->y;
		out->z = e->z;
		out->pitch = e->pitch;
		out->height = e->height;
		/* the base as captured, with room for all it touches */
		return model_resolve_device(p, ev, api, what, e->addr,
					    first + len, &out->ref,
					    &out->offset);
	}
}

/* Is the host end of @c page-locked memory? */
static int host_pinned(const struct model_prog *p,
		       const struct model_copy_nd *c,
		       const struct model_copy_end *e)
{
	uint64_t first, len = extent(c, e, &first);
	const struct addr_region *r = addr_map_find(&p->host, e->addr + first,
						    0);

	return r && len <= r->size - (e->addr + first - r->start);
}

int model_add_copy_nd(struct model_prog *p, uint64_t ev, const char *api,
		      const struct model_copy_nd *c)
{
	struct gm_copy_desc d;
	uint64_t packed = c->width * (c->height ? c->height : 1) *
			  (c->depth ? c->depth : 1);
	uint16_t s;
	struct mop *op;

	if (model_check_open(p) < 0 ||
	    model_stream_lookup(p, ev, api, c->stream, &s) < 0) {
		return -1;
	}
	if (!packed) {
		p->nr_skipped++;
		return 0;
	}
	if (c->src.host && c->dst.host) {
		model_add_unsupported(p, ev, api);
		return 0;
	}
	if ((c->src.host || c->dst.host) && model_graph_capturing(p, s)) {
		/* A graph's 2-D copy with host memory: its result per launch
		 * is not followed (doc/graphs.md). */
		model_add_unsupported(p, ev, api);
		return 0;
	}
	memset(&d, 0, sizeof(d));
	d.call = c->call;
	d.width = c->width;
	d.height = c->height ? c->height : 1;
	d.depth = c->depth ? c->depth : 1;
	if (end(p, ev, api, c, &c->src, "source", &d.src) < 0 ||
	    end(p, ev, api, c, &c->dst, "destination", &d.dst) < 0) {
		return -1;
	}
	if (c->src.host) {
		if (c->blob >= p->m->nr_blobs ||
		    p->m->blobs[c->blob].size != packed) {
			return gm_error(EVF "the source rows (blob %" PRIu32
					") are missing or not %" PRIu64
					" bytes", ev, api, c->blob, packed);
		}
		op = model_op_add(p, ev, api, GM_OP_COPY_IN);
		op->b = c->blob;
		op->y = 0;
		op->z = packed;
		if (host_pinned(p, c, &c->src)) {
			op->flags |= GM_F_PINNED;
			p->m->blobs[c->blob].flags |= GM_BLOB_PINNED;
		}
	} else if (c->dst.host) {
		op = model_op_add(p, ev, api, GM_OP_COPY_OUT);
		op->z = packed;
		if (c->d2h_hash) {
			char h[33];
			if (model_canonical_hash(c->d2h_hash, h) < 0) {
				return gm_error(EVF "bad result hash '%s'", ev,
						api, c->d2h_hash);
			}
			op->b = gm_strmap_intern(&p->checks, h);
		} else {
			op->b = GM_NONE;
			p->nr_unverifiable++;
			handle_map_put(&p->unchecked, ev,
				       (uint32_t)(p->nr_ops - 1));
		}
		if (host_pinned(p, c, &c->dst)) {
			op->flags |= GM_F_PINNED;
		}
	} else {
		op = model_op_add(p, ev, api, GM_OP_COPY_DEV);
	}
	op->stream = s;
	op->a = gm_strmap_add(&p->copydescs, &d, sizeof(d), NULL);
	if (c->flags & MODEL_SYNC) {
		op->flags |= GM_F_SYNC;
	}
	return 0;
}
