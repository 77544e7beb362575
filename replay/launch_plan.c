/* SPDX-License-Identifier: MIT */
/*
 * The identity and explicit launch planners, and the one place that
 * turns a physical launch into a CUDA call (see launch_plan.h).
 */
#include "launch_plan.h"

#include <inttypes.h>
#include <string.h>

#include "cu_check.h"
#include "elastic_launch.h"
#include "elastic_plan.h"
#include "error.h"
#include "probe.h"
#include "replay_int.h"

int64_t gm_params_fill(struct gm_prog *p, uint32_t launch, uint8_t *buf)
{
	const struct gm_launch_desc *l = &p->d->launches[launch];
	const struct gm_params_desc *pd = &p->d->params[l->params];

	if (pd->size) {
		memcpy(buf, pd->bytes, pd->size);
	}
	for (uint32_t i = 0; i < pd->nr_relocs; i++) {
		const struct gm_reloc *r = &pd->relocs[i];
		CUdeviceptr v;
		uint64_t w;

		if (gm_resolve(p, r->ref, r->addend, 0, &v) < 0) {
			gm_error("parameter bytes %" PRIu32 "-%" PRIu32
				 " of '%s'", r->offset, r->offset + 7,
				 p->d->kernels[l->kernel].name);
			return -1;
		}
		w = (uint64_t)v;
		memcpy(buf + r->offset, &w, sizeof(w));
	}
	return pd->size;
}

/* A transformed kernel launched as captured, or an original one. */
static int takes_args(const struct gm_prog *p, const struct gm_launch_desc *l)
{
	return p->el_class && p->el_class[l->kernel] != GM_ELASTIC_NONE;
}

int gm_launch_physical(struct gm_prog *p, uint32_t launch,
		       const uint32_t grid[3], const uint32_t block[3],
		       const struct gm_elastic_args *a, size_t size,
		       CUstream st)
{
	const struct gm_launch_desc *l = &p->d->launches[launch];
	CUfunction f = p->funcs[l->kernel];
	void **args = p->kargs[l->kernel];
	void *extra[] = { CU_LAUNCH_PARAM_BUFFER_POINTER, p->param_buf,
			  CU_LAUNCH_PARAM_BUFFER_SIZE, &size,
			  CU_LAUNCH_PARAM_END };
	void **ex = NULL;
	struct gm_probe_slot probe;
	int r;

	/* Without a recorded layout, the buffer goes as one block. */
	if (!p->d->kernels[l->kernel].nr_params && size) {
		args = NULL;
		ex = extra;
	}
	if (a) {
		memcpy(&p->el_args, a, sizeof(*a));
	}
	gm_probe_before(p, launch, grid, block, a ? &p->el_args : NULL,
			&probe);
	if (a) {
		/* kargs' extra slot points at p->el_args; the block form
		 * carries it after the parameters, aligned. */
		if (ex) {
			size_t at = (size + GM_ELASTIC_PARAM_ALIGN - 1) &
				    ~(size_t)(GM_ELASTIC_PARAM_ALIGN - 1);
			memcpy(p->param_buf + at, &p->el_args, sizeof(*a));
			size = at + GM_ELASTIC_PARAM_SIZE;
		}
	}
	if (l->cluster[0] || (l->flags & GM_LAUNCH_COOPERATIVE)) {
		CUlaunchAttribute attrs[2];
		CUlaunchConfig cfg;
		unsigned n = 0;

		memset(attrs, 0, sizeof(attrs));
		memset(&cfg, 0, sizeof(cfg));
		if (l->cluster[0]) {
			attrs[n].id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
			attrs[n].value.clusterDim.x = l->cluster[0];
			attrs[n].value.clusterDim.y = l->cluster[1] ? l->cluster[1] : 1;
			attrs[n].value.clusterDim.z = l->cluster[2] ? l->cluster[2] : 1;
			n++;
		}
		if (l->flags & GM_LAUNCH_COOPERATIVE) {
			attrs[n].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
			attrs[n].value.cooperative = 1;
			n++;
		}
		cfg.gridDimX = grid[0];
		cfg.gridDimY = grid[1];
		cfg.gridDimZ = grid[2];
		cfg.blockDimX = block[0];
		cfg.blockDimY = block[1];
		cfg.blockDimZ = block[2];
		cfg.sharedMemBytes = gm_launch_smem(p, l);
		cfg.hStream = st;
		cfg.attrs = attrs;
		cfg.numAttrs = n;
		r = CU_CHECK(cuLaunchKernelEx(&cfg, f, args, ex));
	} else {
		r = CU_CHECK(cuLaunchKernel(f, grid[0], grid[1], grid[2],
					    block[0], block[1], block[2],
					    gm_launch_smem(p, l), st, args, ex));
	}
	gm_probe_after(p, &probe, r != 0);
	return r;
}

/* ---- identity: the captured grid, once ---- */

static int identity_begin(struct gm_prog *p, uint32_t launch,
			  struct gm_launch_cursor *c)
{
	const struct gm_launch_desc *l = &p->d->launches[launch];

	memset(c, 0, sizeof(*c));
	c->launch = launch;
	memcpy(c->block, l->block, sizeof(c->block));
	c->takes_args = takes_args(p, l);
	c->back_to_back = 1;
	c->total = c->step = 1;
	return 0;
}

static int identity_next(struct gm_prog *p, struct gm_launch_cursor *c,
			 uint32_t grid[3], struct gm_elastic_args *a)
{
	const struct gm_launch_desc *l = &p->d->launches[c->launch];

	if (c->next >= c->total) {
		return 0;
	}
	c->next = c->total;
	c->launches++;
	memcpy(grid, l->grid, sizeof(l->grid));
	if (c->takes_args) {
		gm_elastic_args_identity(a, l->grid, l->block);
	}
	return 1;
}

static void identity_end(struct gm_prog *p, struct gm_launch_cursor *c)
{
	struct gm_run *run = p->run;

	if (run->opt.elastic.mode != GM_ELASTIC_OFF) {
		atomic_fetch_add_explicit(c->takes_args ?
						  &run->el_count.identity :
						  &run->el_count.unmodified,
					  1, memory_order_relaxed);
	}
}

const struct gm_planner gm_planner_identity = {
	.name = "identity",
	.prog_init = NULL,
	.begin = identity_begin,
	.next = identity_next,
	.end = identity_end,
};

/* ---- explicit: --elastic MODE [--elastic-slice] ---- */

static int explicit_begin(struct gm_prog *p, uint32_t launch,
			  struct gm_launch_cursor *c)
{
	const struct gm_launch_desc *l = &p->d->launches[launch];
	const struct gm_elastic_setting *s = &p->run->opt.elastic;

	identity_begin(p, launch, c);
	/* Cooperative and cluster launches are never made elastic. */
	if (!c->takes_args || l->cluster[0] ||
	    (l->flags & GM_LAUNCH_COOPERATIVE) ||
	    s->mode <= GM_ELASTIC_IDENTITY) {
		return 0;
	}
	c->total = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
	if (!c->total || c->total > UINT32_MAX) {
		return gm_error("'%s': a grid of %" PRIu64 " blocks cannot run "
				"elastically (1 to 2^32-1)",
				p->d->kernels[l->kernel].name, c->total);
	}
	c->elastic = 1;
	c->step = gm_elastic_slice_blocks(s, c->total);
	c->resident = p->el_resident ? p->el_resident[launch] : 0;
	return 0;
}

static int explicit_next(struct gm_prog *p, struct gm_launch_cursor *c,
			 uint32_t grid[3], struct gm_elastic_args *a)
{
	const struct gm_launch_desc *l = &p->d->launches[c->launch];
	const struct gm_elastic_setting *s = &p->run->opt.elastic;
	uint64_t off = c->next;
	uint32_t lim, n;

	if (!c->elastic) {
		return identity_next(p, c, grid, a);
	}
	if (off >= c->total) {
		return 0;
	}
	lim = (uint32_t)(c->total - off < c->step ? c->total - off : c->step);
	n = gm_elastic_phys_blocks(s, c->total, lim,
				   (uint32_t)p->run->device.sm_count,
				   c->resident);
	c->shaped += gm_elastic_shape(n, l->grid, (uint32_t)off, lim, grid);
	gm_elastic_args_identity(a, l->grid, l->block);
	a->offset = (uint32_t)off;
	a->limit = lim;
	c->next = off + lim;
	c->launches++;
	return 1;
}

static void explicit_end(struct gm_prog *p, struct gm_launch_cursor *c)
{
	struct gm_run *run = p->run;

	if (!c->elastic) {
		identity_end(p, c);
		return;
	}
	atomic_fetch_add_explicit(&run->el_count.elastic, 1,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&run->el_count.physical, c->launches,
				  memory_order_relaxed);
	if (c->shaped) {
		atomic_fetch_add_explicit(&run->el_count.identity_shape,
					  c->shaped, memory_order_relaxed);
	}
}

const struct gm_planner gm_planner_explicit = {
	.name = "explicit",
	.prog_init = gm_elastic_prog_init,
	.begin = explicit_begin,
	.next = explicit_next,
	.end = explicit_end,
};
