/* SPDX-License-Identifier: MIT */
/*
 * Virtual memory management in the replay model (model.h): JAX's
 * allocator, PyTorch's expandable segments and the CUDA VMM samples
 * reserve a virtual address range, create physical allocations and map
 * them into it. What kernels and copies see is the mapped part of the
 * reservation, contiguous even where it is made of several physical
 * allocations (a tensor may straddle two). So a reservation is one
 * allocation of the replay: it becomes addressable as a whole (a region
 * of the device address map) at its first mapping, where its GM_OP_ALLOC
 * is added, and that allocation grows to the end of its furthest mapping;
 * cuMemAddressFree frees it. Unmapping keeps the memory (a program reads
 * nothing where it unmapped), and so does a release.
 *
 * What the replay cannot do this way is refused: physical memory mapped
 * at two places at once, or moved from one place to another (its content
 * would have to follow), and physical memory on the host.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "model_int.h"

#define EVF "event %" PRIu64 " (%s): "
#define NO_OP SIZE_MAX

#define LOC_DEVICE 1		/* CU_MEM_LOCATION_TYPE_DEVICE */

struct vmm_reservation {
	uint64_t start, size;
	uint64_t event;
	size_t op;		/* its GM_OP_ALLOC, NO_OP: never mapped */
	uint64_t extent;	/* end of the furthest mapping - start */
	int live;
};

struct vmm_handle {
	uint64_t handle, size;
	uint64_t event;
	int live;		/* not released */
	int host;		/* on the host: not replayed */
	int mapped;		/* mapped now */
	int placed;		/* its content lives at (res, off) */
	size_t res;
	uint64_t off;
};

struct model_vmm {
	struct vmm_reservation *res;
	size_t nr_res, alloc_res;
	struct vmm_handle *handles;
	size_t nr_handles, alloc_handles;
	uint64_t nr_mapped;	/* mappings replayed */
};

static struct model_vmm *vmm_of(struct model_prog *p)
{
	if (!p->vmm) {
		p->vmm = gm_xcalloc(1, sizeof(*p->vmm));
	}
	return p->vmm;
}

void model_vmm_free_state(struct model_vmm *v)
{
	if (!v) {
		return;
	}
	free(v->res);
	free(v->handles);
	free(v);
}

/* The live reservation holding [@va, @va + @size), or NULL. */
static struct vmm_reservation *res_find(struct model_vmm *v, uint64_t va,
					uint64_t size)
{
	for (size_t i = 0; i < v->nr_res; i++) {
		struct vmm_reservation *r = &v->res[i];
		if (r->live && va >= r->start && va - r->start <= r->size &&
		    size <= r->size - (va - r->start)) {
			return r;
		}
	}
	return NULL;
}

static struct vmm_handle *handle_find(struct model_vmm *v, uint64_t h)
{
	for (size_t i = v->nr_handles; i-- > 0;) {
		if (v->handles[i].handle == h && v->handles[i].live) {
			return &v->handles[i];
		}
	}
	return NULL;
}

int model_vmm_reserve(struct model_prog *p, uint64_t ev, const char *api,
		      uint64_t va, uint64_t size)
{
	struct model_vmm *v;
	struct vmm_reservation *r;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (!va || !size) {
		return gm_error(EVF "reservation of %" PRIu64 " bytes at 0x%"
				PRIx64, ev, api, size, va);
	}
	v = vmm_of(p);
	for (size_t i = 0; i < v->nr_res; i++) {
		const struct vmm_reservation *o = &v->res[i];
		if (o->live && va < o->start + o->size && o->start < va + size) {
			return gm_error(EVF "the reservation of 0x%" PRIx64
					" overlaps the one of event %" PRIu64,
					ev, api, va, o->event);
		}
	}
	GM_ALLOC_GROW(v->res, v->nr_res + 1, v->alloc_res);
	r = &v->res[v->nr_res++];
	memset(r, 0, sizeof(*r));
	r->start = va;
	r->size = size;
	r->event = ev;
	r->op = NO_OP;
	r->live = 1;
	return 0;
}

int model_vmm_free(struct model_prog *p, uint64_t ev, const char *api,
		   uint64_t va)
{
	struct model_vmm *v;

	if (model_check_open(p) < 0) {
		return -1;
	}
	v = vmm_of(p);
	for (size_t i = 0; i < v->nr_res; i++) {
		struct vmm_reservation *r = &v->res[i];
		if (!r->live || r->start != va) {
			continue;
		}
		r->live = 0;
		for (size_t h = 0; h < v->nr_handles; h++) {
			if (v->handles[h].placed && v->handles[h].res == i) {
				v->handles[h].mapped = 0;
				v->handles[h].placed = 0;
			}
		}
		if (r->op != NO_OP) {
			return model_add_free(p, ev, api, va);
		}
		return 0;
	}
	return gm_error(EVF "0x%" PRIx64 " is not a live reservation", ev,
			api, va);
}

int model_vmm_create(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t handle, uint64_t size, unsigned loc_type)
{
	struct model_vmm *v;
	struct vmm_handle *h;

	if (model_check_open(p) < 0) {
		return -1;
	}
	v = vmm_of(p);
	if (handle_find(v, handle)) {
		return gm_error(EVF "physical allocation 0x%" PRIx64 " is "
				"created twice", ev, api, handle);
	}
	GM_ALLOC_GROW(v->handles, v->nr_handles + 1, v->alloc_handles);
	h = &v->handles[v->nr_handles++];
	memset(h, 0, sizeof(*h));
	h->handle = handle;
	h->size = size;
	h->event = ev;
	h->live = 1;
	if (loc_type != LOC_DEVICE) {
		/* Host memory the program reads and writes directly: its
		 * accesses are not in the trace. */
		h->host = 1;
		model_add_unsupported(p, ev, "cuMemCreate.host");
	}
	return 0;
}

int model_vmm_release(struct model_prog *p, uint64_t ev, const char *api,
		      uint64_t handle)
{
	struct vmm_handle *h;

	if (model_check_open(p) < 0) {
		return -1;
	}
	h = handle_find(vmm_of(p), handle);
	if (!h) {
		return gm_error(EVF "0x%" PRIx64 " is not a live physical "
				"allocation", ev, api, handle);
	}
	h->live = 0;
	return 0;
}

int model_vmm_map(struct model_prog *p, uint64_t ev, const char *api,
		  uint64_t va, uint64_t size, uint64_t offset, uint64_t handle)
{
	struct model_vmm *v;
	struct vmm_reservation *r;
	struct vmm_handle *h;
	size_t ri;
	uint64_t off, end;

	if (model_check_open(p) < 0) {
		return -1;
	}
	v = vmm_of(p);
	h = handle_find(v, handle);
	if (!h) {
		return gm_error(EVF "0x%" PRIx64 " is not a live physical "
				"allocation", ev, api, handle);
	}
	if (h->host) {
		return 0;	/* reported at its creation */
	}
	r = res_find(v, va, size);
	if (!r || !size) {
		return gm_error(EVF "%" PRIu64 " bytes at 0x%" PRIx64 " are "
				"not inside a live reservation", ev, api, size,
				va);
	}
	if (offset || size > h->size) {
		return gm_error(EVF "a mapping of %" PRIu64 " bytes from offset "
				"%" PRIu64 " of a %" PRIu64 "-byte physical "
				"allocation", ev, api, size, offset, h->size);
	}
	ri = (size_t)(r - v->res);
	off = va - r->start;
	if (h->mapped || (h->placed && (h->res != ri || h->off != off))) {
		/* Aliases, or content that moves with its memory. */
		model_add_warning(p, ev, "physical allocation 0x%" PRIx64
				  " (event %" PRIu64 ") is mapped at 0x%" PRIx64
				  " while its content lives elsewhere: not "
				  "replayed", handle, h->event, va);
		model_add_unsupported(p, ev, "cuMemMap.alias");
		return 0;
	}
	end = off + size;
	if (r->op == NO_OP) {
		if (model_alloc_region(p, ev, api, r->start, r->size, end,
				       &r->op) < 0) {
			return -1;
		}
	}
	if (end > r->extent) {
		r->extent = end;
		p->ops[r->op].z = end;
	}
	h->mapped = 1;
	h->placed = 1;
	h->res = ri;
	h->off = off;
	v->nr_mapped++;
	return 0;
}

int model_vmm_unmap(struct model_prog *p, uint64_t ev, const char *api,
		    uint64_t va, uint64_t size)
{
	struct model_vmm *v;
	struct vmm_reservation *r;

	if (model_check_open(p) < 0) {
		return -1;
	}
	v = vmm_of(p);
	r = res_find(v, va, size);
	if (!r) {
		return gm_error(EVF "%" PRIu64 " bytes at 0x%" PRIx64 " are "
				"not inside a live reservation", ev, api, size,
				va);
	}
	for (size_t i = 0; i < v->nr_handles; i++) {
		struct vmm_handle *h = &v->handles[i];
		uint64_t at;
		if (!h->mapped || &v->res[h->res] != r) {
			continue;
		}
		at = r->start + h->off;
		if (at >= va && at - va < size) {
			h->mapped = 0;
		}
	}
	return 0;
}

void model_vmm_report(const struct model_prog *p, struct strbuf *out)
{
	const struct model_vmm *v = p->vmm;
	uint64_t replayed = 0;

	if (!v || !v->nr_res) {
		return;
	}
	for (size_t i = 0; i < v->nr_res; i++) {
		replayed += v->res[i].op != NO_OP;
	}
	strbuf_addf(out, "note: program '%s': %zu virtual address "
		    "reservations, %" PRIu64 " of them mapped (%" PRIu64
		    " mappings), replayed as allocations\n", p->name,
		    v->nr_res, replayed, v->nr_mapped);
}
