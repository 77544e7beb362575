/* SPDX-License-Identifier: MIT */
/*
 * Placing programs' allocations at their captured device addresses (see
 * addr_space.h). The driver treats cuMemAddressReserve's address as a
 * hint, so every reservation is checked: one that lands elsewhere is
 * given back, and the program is relocated with the reason. Reserving
 * happens before the runtime's own device memory exists (the driver
 * hands out the same first addresses in every process, so the replay's
 * own allocations would take a program's captured range), and the ranges
 * live for the whole run. Before even that, at the process's start, the
 * ranges are held by placeholders (addr_hold.h), given back one by one
 * just before each is reserved: what the process maps in between (the
 * driver's own reservations at cuInit, CUPTI, blobs) goes elsewhere.
 */
#include "addr_space.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cu_check.h"
#include "error.h"
#include "kvfile.h"
#include "replay_int.h"

/* The reason a program is relocated, from the recorded error. */
static void why_from_error(struct gm_addr_prog *a, const char *what)
{
	snprintf(a->why, sizeof(a->why), "%s: %s", what, gm_error_message());
	gm_error_clear();
}

static int cmp_range(const void *x, const void *y)
{
	const struct gm_addr_range *a = x, *b = y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/*
 * The ranges of program @d: its allocations rounded out to @gran, sorted
 * and merged. 0, or -1 with the reason in @a (an allocation without a
 * captured address: a program reconstructed by hand).
 */
static int program_ranges(const struct gm_program_desc *d, uint64_t gran,
			  struct gm_addr_prog *a)
{
	uint64_t n = 0, k = 0;

	for (uint64_t i = 0; i < d->nr_ops; i++) {
		n += d->ops[i].code == GM_OP_ALLOC;
	}
	a->ranges = gm_xcalloc(n + 1, sizeof(*a->ranges));
	for (uint64_t i = 0; i < d->nr_ops; i++) {
		const struct gm_op *op = &d->ops[i];
		uint64_t lo, hi;
		if (op->code != GM_OP_ALLOC) {
			continue;
		}
		if (!op->x || op->x + op->z < op->x) {
			snprintf(a->why, sizeof(a->why), "operation %" PRIu64
				 " (trace event %" PRIu64 ") allocates without "
				 "a captured address", i, op->event);
			return -1;
		}
		lo = op->x & ~(gran - 1);
		hi = (op->x + op->z + gran - 1) & ~(gran - 1);
		a->ranges[k].start = lo;
		a->ranges[k].size = hi - lo;
		k++;
	}
	qsort(a->ranges, k, sizeof(*a->ranges), cmp_range);
	n = 0;
	for (uint64_t i = 0; i < k; i++) {
		struct gm_addr_range *last = n ? &a->ranges[n - 1] : NULL;
		uint64_t end = a->ranges[i].start + a->ranges[i].size;
		if (last && a->ranges[i].start <= last->start + last->size) {
			if (end > last->start + last->size) {
				last->size = end - last->start;
			}
			continue;
		}
		a->ranges[n++] = a->ranges[i];
	}
	a->nr_ranges = n;
	for (uint64_t i = 0; i < n; i++) {
		a->bytes += a->ranges[i].size;
	}
	return 0;
}

/* The first range of @b that meets one of @a's, or NULL. */
static const struct gm_addr_range *meets(const struct gm_addr_prog *a,
					 const struct gm_addr_prog *b)
{
	for (uint64_t i = 0; i < a->nr_ranges; i++) {
		const struct gm_addr_range *x = &a->ranges[i];
		for (uint64_t j = 0; j < b->nr_ranges; j++) {
			const struct gm_addr_range *y = &b->ranges[j];
			if (x->start < y->start + y->size &&
			    y->start < x->start + x->size) {
				return y;
			}
		}
	}
	return NULL;
}

static void release_ranges(struct gm_addr_prog *a)
{
	for (uint64_t i = 0; i < a->nr_ranges; i++) {
		struct gm_addr_range *r = &a->ranges[i];
		if (r->mapped) {
			cuMemUnmap(r->start, r->size);
		}
		if (r->created) {
			cuMemRelease(r->mem);
		}
		if (r->reserved) {
			cuMemAddressFree(r->start, r->size);
		}
		r->mapped = r->created = r->reserved = 0;
	}
}

/* Reserve, back and open every range of @a on device @dev, giving back
 * @hold's placeholders there first. 0, or -1 with the reason in @a and
 * nothing kept. */
static int place(struct gm_addr_prog *a, CUdevice dev,
		 struct gm_addr_hold *hold)
{
	CUmemAllocationProp prop;
	CUmemAccessDesc acc;

	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	memset(&acc, 0, sizeof(acc));
	acc.location = prop.location;
	acc.flags = CU_MEM_ACCESS_FLAGS_PROT_READWRITE;
	for (uint64_t i = 0; i < a->nr_ranges; i++) {
		struct gm_addr_range *r = &a->ranges[i];
		CUdeviceptr got = 0;
		char what[160];

		snprintf(what, sizeof(what), "cannot reserve its captured "
			 "range 0x%" PRIx64 "-0x%" PRIx64, (uint64_t)r->start,
			 (uint64_t)(r->start + r->size));
		gm_addr_hold_give(hold, r->start, r->size);
		if (CU_CHECK(cuMemAddressReserve(&got, r->size, 0, r->start,
						 0))) {
			why_from_error(a, what);
			goto fail;
		}
		if (got != r->start) {
			/* A hint, not a promise: the range is in use here.
			 * Say by what, so that a run on a GPU tells. */
			const char *before = gm_addr_hold_missed(hold, r->start,
								 r->size);
			char occ[512];
			cuMemAddressFree(got, r->size);
			gm_addr_occupants(r->start, r->size, occ, sizeof(occ));
			snprintf(a->why, sizeof(a->why), "%s: the driver placed "
				 "it at 0x%" PRIx64 " (the range is in use in "
				 "this process: %s%s%s)", what, (uint64_t)got,
				 occ, !before ? "" : strcmp(before, occ) ?
				 "; before the replay started: " :
				 ", there before the replay started",
				 before && strcmp(before, occ) ? before : "");
			goto fail;
		}
		r->reserved = 1;
		snprintf(what, sizeof(what), "cannot back its captured range "
			 "0x%" PRIx64 " (%" PRIu64 " bytes)", (uint64_t)r->start,
			 r->size);
		if (CU_CHECK(cuMemCreate(&r->mem, r->size, &prop, 0))) {
			why_from_error(a, what);
			goto fail;
		}
		r->created = 1;
		if (CU_CHECK(cuMemMap(r->start, r->size, 0, r->mem, 0))) {
			why_from_error(a, what);
			goto fail;
		}
		r->mapped = 1;
		if (CU_CHECK(cuMemSetAccess(r->start, r->size, &acc, 1))) {
			why_from_error(a, what);
			goto fail;
		}
	}
	return 0;
fail:
	release_ranges(a);
	return -1;
}

/* Program @i's PTR_STOREs of allocation addresses: what placing it at
 * its captured addresses spares. */
static uint64_t pointer_stores(const struct gm_program_desc *d)
{
	uint64_t n = 0;

	for (uint64_t i = 0; i < d->nr_ops; i++) {
		n += d->ops[i].code == GM_OP_PTR_STORE &&
		     (d->ops[i].b & GM_REF_KIND_MASK) == GM_REF_ALLOC;
	}
	return n;
}

/* The order programs are placed in: those with pointer stores first. */
static unsigned *placing_order(const struct gm_workload_desc *w)
{
	unsigned *order = gm_xcalloc(w->nr_programs + 1, sizeof(*order));
	unsigned n = 0;

	for (int pass = 0; pass < 2; pass++) {
		for (unsigned i = 0; i < w->nr_programs; i++) {
			if ((pointer_stores(w->programs[i]) > 0) == !pass) {
				order[n++] = i;
			}
		}
	}
	return order;
}

/* The VMM granularity of @dev, or 0 with the reason in @why. */
static uint64_t granularity(CUdevice dev, char *why, size_t len)
{
	CUmemAllocationProp prop;
	size_t gran = 0;
	int vmm = 0;

	if (CU_CHECK(cuDeviceGetAttribute(
		    &vmm, CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED,
		    dev)) || !vmm) {
		snprintf(why, len, "the device has no virtual memory "
			 "management%s%s", gm_error_count() ? ": " : "",
			 gm_error_count() ? gm_error_message() : "");
		gm_error_clear();
		return 0;
	}
	memset(&prop, 0, sizeof(prop));
	prop.type = CU_MEM_ALLOCATION_TYPE_PINNED;
	prop.location.type = CU_MEM_LOCATION_TYPE_DEVICE;
	prop.location.id = dev;
	if (CU_CHECK(cuMemGetAllocationGranularity(
		    &gran, &prop, CU_MEM_ALLOC_GRANULARITY_MINIMUM)) ||
	    !gran || (gran & (gran - 1))) {
		snprintf(why, len, "no usable allocation granularity%s%s",
			 gm_error_count() ? ": " : "",
			 gm_error_count() ? gm_error_message() : "");
		gm_error_clear();
		return 0;
	}
	return gran;
}

void gm_addr_space_hold(struct gm_run *run)
{
	const struct gm_workload_desc *w = run->w;
	unsigned *order;

	if (run->opt.addresses == GM_ADDRESSES_RELOCATED) {
		return;
	}
	order = placing_order(w);
	for (unsigned k = 0; k < w->nr_programs; k++) {
		struct gm_addr_prog a;

		memset(&a, 0, sizeof(a));
		if (program_ranges(w->programs[order[k]], GM_ADDR_HOLD_GRANULE,
				   &a) == 0) {
			for (uint64_t i = 0; i < a.nr_ranges; i++) {
				gm_addr_hold_take(&run->addr_hold,
						  a.ranges[i].start,
						  a.ranges[i].size);
			}
		}
		free(a.ranges);
	}
	free(order);
}

int gm_addr_space_init(struct gm_run *run)
{
	const struct gm_workload_desc *w = run->w;
	struct gm_addr_prog *all = gm_xcalloc(w->nr_programs + 1, sizeof(*all));
	char why[512] = "";
	uint64_t gran = 0;
	unsigned *order;

	run->addr = all;
	if (run->opt.addresses == GM_ADDRESSES_RELOCATED) {
		snprintf(why, sizeof(why), "--addresses relocated");
	} else {
		gran = granularity(run->dev, why, sizeof(why));
	}
	if (gm_addr_hold_count(&run->addr_hold)) {
		gm_log(run, "replay: %zu captured ranges held since the replay "
		       "started", gm_addr_hold_count(&run->addr_hold));
	}
	order = placing_order(w);
	for (unsigned k = 0; k < w->nr_programs; k++) {
		unsigned i = order[k];
		const struct gm_program_desc *d = w->programs[i];
		struct gm_addr_prog *a = &all[i];

		if (!gran) {
			snprintf(a->why, sizeof(a->why), "%s", why);
		} else if (program_ranges(d, gran, a) == 0) {
			const struct gm_addr_range *hit = NULL;
			unsigned o = 0;
			for (unsigned j = 0; j < k && !hit; j++) {
				o = order[j];
				hit = all[o].captured ? meets(a, &all[o]) :
							NULL;
			}
			if (hit) {
				snprintf(a->why, sizeof(a->why), "its captured "
					 "addresses overlap those of program "
					 "'%s' (0x%" PRIx64 "-0x%" PRIx64 "), "
					 "placed there first",
					 w->programs[o]->name,
					 (uint64_t)hit->start,
					 (uint64_t)(hit->start + hit->size));
			} else if (place(a, run->dev, &run->addr_hold) == 0) {
				a->captured = 1;
			}
		}
		if (!a->captured) {
			free(a->ranges);
			a->ranges = NULL;
			a->nr_ranges = a->bytes = 0;
			gm_log(run, "replay: program '%s': allocations relocated: "
			       "%s", d->name, a->why);
		} else {
			gm_log(run, "replay: program '%s': allocations at their "
			       "captured addresses (%" PRIu64 " ranges, %" PRIu64
			       " bytes)", d->name, a->nr_ranges, a->bytes);
		}
	}
	free(order);
	/* Those of programs relocated: the runtime's memory may go there. */
	gm_addr_hold_release(&run->addr_hold);
	return 0;
}

void gm_addr_space_release(struct gm_run *run)
{
	gm_addr_hold_release(&run->addr_hold);
	if (!run->addr) {
		return;
	}
	for (unsigned i = 0; i < run->w->nr_programs; i++) {
		release_ranges(&run->addr[i]);
		free(run->addr[i].ranges);
	}
	free(run->addr);
	run->addr = NULL;
}

static const struct gm_addr_prog *of(const struct gm_prog *p)
{
	return p->run->addr ? &p->run->addr[p->index] : NULL;
}

int gm_addr_captured(const struct gm_prog *p)
{
	const struct gm_addr_prog *a = of(p);

	return a && a->captured;
}

int gm_addr_holds(const struct gm_prog *p, uint64_t x, uint64_t size)
{
	const struct gm_addr_prog *a = of(p);

	for (uint64_t i = 0; a && i < a->nr_ranges; i++) {
		const struct gm_addr_range *r = &a->ranges[i];
		if (x >= r->start && size <= r->size &&
		    x - r->start <= r->size - size) {
			return 1;
		}
	}
	return 0;
}

int gm_addr_zero(struct gm_prog *p)
{
	const struct gm_addr_prog *a = of(p);

	for (uint64_t i = 0; a && a->captured && i < a->nr_ranges; i++) {
		if (CU_CHECK(cuMemsetD8Async(a->ranges[i].start, 0,
					     a->ranges[i].size, p->aux_stream))) {
			return -1;
		}
	}
	return 0;
}

void gm_addr_manifest(const struct gm_run *run, struct kvfile *kv, unsigned i)
{
	const struct gm_addr_prog *a;
	char key[64];

	if (!run->addr || i >= run->w->nr_programs) {
		return;
	}
	a = &run->addr[i];
	snprintf(key, sizeof(key), "program.%u.addresses", i);
	kvfile_set(kv, key, a->captured ? "captured" : "relocated");
	snprintf(key, sizeof(key), "program.%u.address_ranges", i);
	kvfile_set_u64(kv, key, a->nr_ranges);
	snprintf(key, sizeof(key), "program.%u.address_bytes", i);
	kvfile_set_u64(kv, key, a->bytes);
	if (!a->captured) {
		snprintf(key, sizeof(key), "program.%u.addresses_why", i);
		kvfile_set(kv, key, a->why);
	}
}
