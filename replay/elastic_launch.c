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
			    &n, p->funcs[l->kernel], (int)threads,
			    gm_launch_smem(p, l)))) {
			return gm_error("cannot get the occupancy of '%s' "
					"(%" PRIu64 " threads, %" PRIu32
					" bytes of dynamic shared memory)",
					d->kernels[l->kernel].name, threads,
					gm_launch_smem(p, l));
		}
		p->el_resident[i] = n > 0 ? (uint32_t)n : 1;
	}
	return 0;
}
