/* SPDX-License-Identifier: MIT */
/*
 * Memory the host and the kernels share (gm_hostmem_desc): page-locked
 * memory mapped into the device's address space and managed memory, of
 * the same kind as the captured program's, so that kernels read it the
 * same way (over the bus, or migrating pages). The captured program's
 * host writes become HOST_FILL operations (the bytes it had written,
 * before the launch that reads them) and its reads HOST_CHECK operations
 * (the content hashed after the synchronization, as the capture did);
 * prefetches and advice are replayed on the replay's device.
 */
#include <inttypes.h>
#include <string.h>

#include "cu_check.h"
#include "error.h"
#include "hash.h"
#include "replay_int.h"

int gm_hostmem_init(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;

	if (!d->nr_hostmems) {
		return 0;
	}
	p->hm_host = gm_xcalloc(d->nr_hostmems, sizeof(*p->hm_host));
	p->hm_dev = gm_xcalloc(d->nr_hostmems, sizeof(*p->hm_dev));
	for (uint32_t i = 0; i < d->nr_hostmems; i++) {
		const struct gm_hostmem_desc *h = &d->hostmems[i];
		void *host = NULL;

		if (!h->size) {
			continue;	/* never referenced */
		}
		if (h->kind == GM_HOSTMEM_MANAGED) {
			if (CU_CHECK(cuMemAllocManaged(&p->hm_dev[i], h->size,
						       CU_MEM_ATTACH_GLOBAL))) {
				return gm_error("cannot allocate %" PRIu64
						" bytes of managed memory",
						h->size);
			}
			p->hm_host[i] = (uint8_t *)(uintptr_t)p->hm_dev[i];
		} else if (h->kind == GM_HOSTMEM_MAPPED) {
			if (CU_CHECK(cuMemHostAlloc(&host, h->size,
						    CU_MEMHOSTALLOC_DEVICEMAP |
						    CU_MEMHOSTALLOC_PORTABLE))) {
				return gm_error("cannot allocate %" PRIu64
						" bytes of mapped page-locked "
						"memory", h->size);
			}
			p->hm_host[i] = host;
			if (CU_CHECK(cuMemHostGetDevicePointer(&p->hm_dev[i],
							       host, 0))) {
				return -1;
			}
		} else {
			return gm_error("mapped or managed memory %" PRIu32
					" has an unknown kind %" PRIu32, i,
					h->kind);
		}
	}
	return 0;
}

void gm_hostmem_release(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;

	for (uint32_t i = 0; p->hm_host && i < d->nr_hostmems; i++) {
		if (!p->hm_host[i]) {
			continue;
		}
		if (d->hostmems[i].kind == GM_HOSTMEM_MANAGED) {
			cuMemFree(p->hm_dev[i]);
		} else {
			cuMemFreeHost(p->hm_host[i]);
		}
	}
	free(p->hm_host);
	free(p->hm_dev);
	p->hm_host = NULL;
	p->hm_dev = NULL;
}

/* The host address of @len bytes at @off in hostmem reference @ref. */
static uint8_t *host_of(struct gm_prog *p, uint32_t ref, uint64_t off,
			uint64_t len)
{
	CUdeviceptr dev;
	uint32_t id = ref & GM_REF_ID_MASK;

	if ((ref & GM_REF_KIND_MASK) != GM_REF_HOSTMEM) {
		gm_error("reference 0x%" PRIx32 " is not mapped or managed "
			 "memory", ref);
		return NULL;
	}
	if (gm_resolve(p, ref, off, len, &dev) < 0) {
		return NULL;
	}
	return p->hm_host[id] + off;
}

static int check(struct gm_prog *p, const struct gm_op *op)
{
	const uint8_t *host = host_of(p, op->a, op->x, op->z);
	struct gm_hash got;
	uint64_t t0;

	if (!host) {
		return -1;
	}
	if (op->b == GM_NONE || !p->d->deterministic) {
		return 0;
	}
	t0 = gm_now();
	got = gm_hash_bytes(host, op->z);
	p->io_ns += gm_now() - t0;
	if (got.hi != p->checks[op->b].hi || got.lo != p->checks[op->b].lo) {
		char want[GM_HASH_HEX_LEN + 1], have[GM_HASH_HEX_LEN + 1];
		gm_hash_hex(p->checks[op->b], want);
		gm_hash_hex(got, have);
		return gm_error("result differs from the captured run: the %"
				PRIu64 " bytes of %s memory the program reads "
				"back hash to %s, expected %s; if program '%s' "
				"computes them differently on every run, mark "
				"it nondeterministic (gpumix reconstruct "
				"--nondeterministic %s; deterministic: false "
				"in a study)", op->z,
				p->d->hostmems[op->a & GM_REF_ID_MASK].kind ==
						GM_HOSTMEM_MANAGED ?
					"managed" : "mapped page-locked",
				have, want, p->d->name, p->d->name);
	}
	return 0;
}

static CUmemLocation location(uint32_t where)
{
	CUmemLocation l;

	memset(&l, 0, sizeof(l));
	if (where == GM_LOC_HOST) {
		l.type = CU_MEM_LOCATION_TYPE_HOST;
	} else if (where == GM_LOC_DEVICE) {
		l.type = CU_MEM_LOCATION_TYPE_DEVICE;
		l.id = 0;	/* the replay's one device */
	} else {
		l.type = CU_MEM_LOCATION_TYPE_NONE;
	}
	return l;
}

/* ---- one handler per host memory operation (hostmem_ops below) ---- */

static int op_host_fill(struct gm_prog *p, const struct gm_op *op, CUstream s)
{
	const uint8_t *blob = p->run->blob_host[op->b];
	uint64_t t0 = gm_now();
	uint8_t *host;

	if (!(host = host_of(p, op->a, op->x, op->z))) {
		return -1;
	}
	memcpy(host, blob + op->y, op->z);
	/* The program's own host work, not the GPU's: like the time spent
	 * reading trace data, not counted. */
	p->io_ns += gm_now() - t0;
	return 0;
}

static int op_host_check(struct gm_prog *p, const struct gm_op *op,
			 CUstream s)
{
	return check(p, op);
}

static int op_prefetch(struct gm_prog *p, const struct gm_op *op, CUstream s)
{
	CUdeviceptr dev;

	if (gm_resolve(p, op->a, op->x, op->z, &dev) < 0) {
		return -1;
	}
	return CU_CHECK(cuMemPrefetchAsync(dev, op->z, location(op->c), 0, s));
}

static int op_attach(struct gm_prog *p, const struct gm_op *op, CUstream s)
{
	CUdeviceptr dev;

	if (gm_resolve(p, op->a, op->x, op->z, &dev) < 0) {
		return -1;
	}
	return CU_CHECK(cuStreamAttachMemAsync(s, dev, op->z, op->c));
}

static int op_advise(struct gm_prog *p, const struct gm_op *op, CUstream s)
{
	CUdeviceptr dev;

	if (gm_resolve(p, op->a, op->x, op->z, &dev) < 0) {
		return -1;
	}
	return CU_CHECK(cuMemAdvise(dev, op->z, (CUmem_advise)op->b,
				    location(op->c)));
}

typedef int hostmem_op_fn(struct gm_prog *p, const struct gm_op *op,
			  CUstream s);

/* The handler of each code (tests/unit/test_op_tables.c holds the table
 * to the GM_OPT_HOSTMEM traits of GM_OPS). */
static hostmem_op_fn *const hostmem_ops[GM_OP_COUNT] = {
	[GM_OP_HOST_FILL] = op_host_fill,
	[GM_OP_HOST_CHECK] = op_host_check,
	[GM_OP_PREFETCH] = op_prefetch,
	[GM_OP_ATTACH] = op_attach,
	[GM_OP_ADVISE] = op_advise,
};

int gm_hostmem_handles(unsigned code)
{
	return code < GM_OP_COUNT && hostmem_ops[code];
}

int gm_hostmem_op(struct gm_prog *p, const struct gm_op *op, CUstream s)
{
	if (gm_hostmem_handles(op->code)) {
		return hostmem_ops[op->code](p, op, s);
	}
	return gm_error("operation %u is not a host memory operation",
			op->code);
}
