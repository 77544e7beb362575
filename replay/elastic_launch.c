/* SPDX-License-Identifier: MIT */
/*
 * Elastic launches in the replay (see elastic_launch.h).
 */
#include "elastic_launch.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cu_check.h"
#include "elastic_index.h"
#include "elastic_plan.h"
#include "error.h"
#include "replay_int.h"

char *gm_elastic_module_file(const struct gm_run *run,
			     const struct gm_module_desc *m, uint64_t *size,
			     const char **hash,
			     const struct gm_elastic_image **img)
{
	const struct gm_elastic_image *e = NULL;
	unsigned cc = (unsigned)(run->device.cc_major * 10 +
				 run->device.cc_minor);

	if (run->opt.elastic.mode != GM_ELASTIC_OFF) {
		e = gm_elastic_index_find(&run->el_index, m->hash);
	}
	*img = e;
	if (!e) {
		*size = m->size;
		*hash = m->hash;
		return gm_xasprintf("modules/%s", m->hash);
	}
	if (e->cubin && e->cubin_arch == cc) {
		*size = e->cubin_size;
		*hash = e->cubin_hash;
		return gm_xasprintf("elastic/%s", e->cubin);
	}
	*size = e->ptx_size;
	*hash = e->ptx_hash;
	return gm_xasprintf("elastic/%s", e->ptx);
}

void gm_elastic_classify(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;
	struct gm_run *run = p->run;

	p->el_class = gm_xcalloc(d->nr_kernels + 1, sizeof(*p->el_class));
	for (uint32_t i = 0; i < d->nr_kernels; i++) {
		const struct gm_kernel_desc *k = &d->kernels[i];
		const struct gm_elastic_image *img = p->el_image[k->module];
		p->el_class[i] = img ? gm_elastic_image_class(img, k->name)
				     : GM_ELASTIC_NONE;
		if (gm_debug_on()) {
			gm_log(run, "replay: elastic: program=%s, kernel=%s, "
			       "class=%s", d->name, k->name,
			       gm_elastic_class_name(p->el_class[i]));
		}
	}
}

int gm_elastic_prog_init(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;

	if (p->run->opt.elastic.mode != GM_ELASTIC_RESIDENT) {
		return 0;
	}
	p->el_resident = gm_xcalloc(d->nr_launches + 1, sizeof(uint32_t));
	for (uint32_t i = 0; i < d->nr_launches; i++) {
		const struct gm_launch_desc *l = &d->launches[i];
		uint64_t threads = (uint64_t)l->block[0] * l->block[1] *
				   l->block[2];
		int n = 0;
		if (l->kernel >= d->nr_kernels ||
		    p->el_class[l->kernel] == GM_ELASTIC_NONE) {
			continue;
		}
		if (CU_CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(
			    &n, p->funcs[l->kernel], (int)threads, l->smem))) {
			return gm_error("cannot get the occupancy of '%s' "
					"(%" PRIu64 " threads, %" PRIu32
					" bytes of dynamic shared memory)",
					d->kernels[l->kernel].name, threads,
					l->smem);
		}
		p->el_resident[i] = n > 0 ? (uint32_t)n : 1;
	}
	return 0;
}

int gm_elastic_launch(struct gm_prog *p, uint32_t launch, CUfunction f,
		      void **args, void **extra, void *where, CUstream st)
{
	const struct gm_launch_desc *l = &p->d->launches[launch];
	struct gm_run *run = p->run;
	const struct gm_elastic_setting *s = &run->opt.elastic;
	uint64_t total = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
	uint32_t resident = p->el_resident ? p->el_resident[launch] : 0;
	uint64_t step, launches = 0, shaped = 0;
	struct gm_elastic_args a;

	if (!total || total > UINT32_MAX) {
		return gm_error("'%s': a grid of %" PRIu64 " blocks cannot run "
				"elastically (1 to 2^32-1)",
				p->d->kernels[l->kernel].name, total);
	}
	step = gm_elastic_slice_blocks(s, total);
	gm_elastic_args_identity(&a, l->grid, l->block);
	for (uint64_t off = 0; off < total; off += step) {
		uint32_t lim = (uint32_t)(total - off < step ? total - off : step);
		uint32_t n = gm_elastic_phys_blocks(s, total, lim,
						    (uint32_t)run->device.sm_count,
						    resident);
		uint32_t g[3];

		shaped += gm_elastic_shape(n, l->grid, (uint32_t)off, lim, g);
		a.offset = (uint32_t)off;
		a.limit = lim;
		memcpy(where, &a, sizeof(a));
		if (CU_CHECK(cuLaunchKernel(f, g[0], g[1], g[2], l->block[0],
					    l->block[1], l->block[2], l->smem,
					    st, args, extra))) {
			return gm_error("'%s': elastic launch of blocks %" PRIu64
					"-%" PRIu64 " on %" PRIu32 " physical "
					"blocks", p->d->kernels[l->kernel].name,
					off, off + lim - 1, n);
		}
		launches++;
	}
	atomic_fetch_add_explicit(&run->el_count.elastic, 1,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&run->el_count.physical, launches,
				  memory_order_relaxed);
	if (shaped) {
		atomic_fetch_add_explicit(&run->el_count.identity_shape, shaped,
					  memory_order_relaxed);
	}
	return 0;
}
