/* SPDX-License-Identifier: MIT */
/*
 * A sweep's per-kernel knobs at module load (kernel_knobs.h): the
 * --kernel-module file that replaces a module, the --smem-pad padding
 * and the shared-memory opt-in it needs.
 */
#include <inttypes.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cu_check.h"
#include "error.h"
#include "kernel_knobs.h"
#include "replay_int.h"
#include "strbuf.h"
#include "fs.h"

/*
 * --kernel-module: the file module @m of @p is loaded from instead of its
 * captured one, when it holds a kernel the option names (a sweep's
 * point: the module's PTX with that kernel's registers capped,
 * reassembled). The whole module is replaced, so its globals stay the
 * ones the program sets. NULL: none; -1 in *@err when two files claim
 * one module.
 */
const char *gm_kernel_module_file(struct gm_prog *p, uint32_t m, int *err)
{
	const struct gm_program_desc *d = p->d;
	const char *path = NULL, *by = NULL;

	for (uint32_t i = 0; i < d->nr_kernels; i++) {
		const char *f;
		if (d->kernels[i].module != m ||
		    !(f = gm_kernel_module_for(&p->run->opt,
					       d->kernels[i].name))) {
			continue;
		}
		if (path && strcmp(path, f)) {
			*err = gm_error("program '%s': --kernel-module: "
					"kernels '%s' and '%s' are of one "
					"module, given two files", d->name, by,
					d->kernels[i].name);
			return NULL;
		}
		path = f;
		by = d->kernels[i].name;
	}
	return path;
}

/* Load module @i of @p from --kernel-module file @path into p->libs[i]. */
int gm_load_kernel_module(struct gm_prog *p, uint32_t i, const char *path)
{
	struct strbuf img = STRBUF_INIT;
	int ret;

	/* (a strbuf ends in a NUL: PTX text needs one) */
	ret = gm_read_file(path, &img);
	if (!ret && !img.len) {
		ret = gm_error("'%s' is empty", path);
	}
	if (!ret) {
		ret = CU_CHECK(cuLibraryLoadData(&p->libs[i], img.buf, NULL,
						 NULL, 0, NULL, NULL, 0));
	}
	strbuf_release(&img);
	if (ret < 0) {
		return gm_error("program '%s': --kernel-module: cannot load "
				"module %" PRIu32 " from '%s'", p->d->name, i,
				path);
	}
	gm_log(p->run, "replay: kernel-module: program=%s, module=%" PRIu32
	       ", loaded '%s'", p->d->name, i, path);
	return 0;
}
/* --smem-pad on kernel @i of @p. */
void gm_smem_pad_setup(struct gm_prog *p, uint32_t i)
{
	const struct gm_kernel_desc *k = &p->d->kernels[i];
	uint32_t pad = gm_smem_pad_for(&p->run->opt, k->name);

	if (!pad) {
		return;
	}
	if (!p->smem_pad) {
		p->smem_pad = gm_xcalloc(p->d->nr_kernels + 1,
					 sizeof(*p->smem_pad));
	}
	p->smem_pad[i] = pad;
	gm_log(p->run, "replay: smem-pad: program=%s, kernel=%s, %" PRIu32
	       " bytes more per launch", p->d->name, k->name, pad);
}

/*
 * With --smem-pad, let kernel @i take its largest padded launch (above
 * 48 KiB a kernel must opt in). Called after the captured attributes are
 * set: a program that opted in itself (histo: 98304 bytes, its own
 * launches' size) would otherwise put its smaller limit back over ours
 * and the driver refuse the padded launch; its own limit stands when it
 * is the larger.
 */
int gm_smem_pad_optin(struct gm_prog *p, uint32_t i)
{
	const struct gm_kernel_desc *k = &p->d->kernels[i];
	uint32_t most = 0;

	if (!p->smem_pad || !p->smem_pad[i]) {
		return 0;
	}
	for (uint32_t l = 0; l < p->d->nr_launches; l++) {
		if (p->d->launches[l].kernel == i &&
		    gm_launch_smem(p, &p->d->launches[l]) > most) {
			most = gm_launch_smem(p, &p->d->launches[l]);
		}
	}
	for (uint32_t a = 0; a < k->nr_attrs; a++) {
		if (k->attrs[a].attrib ==
			    CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES &&
		    k->attrs[a].value >= 0 && (uint32_t)k->attrs[a].value >= most) {
			return 0;
		}
	}
	if (CU_CHECK(cuFuncSetAttribute(
		    p->funcs[i], CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
		    (int)most))) {
		return gm_error("program '%s': --smem-pad: kernel '%s' cannot "
				"have %" PRIu32 " bytes of dynamic shared memory",
				p->d->name, k->name, most);
	}
	return 0;
}

/* The knobs of kernel @i, for a message: "--smem-pad of N bytes", ... */
static void knobs_text(struct gm_prog *p, uint32_t i, const char *mod,
		       char *buf, size_t len)
{
	uint32_t pad = p->smem_pad ? p->smem_pad[i] : 0;

	if (pad && mod) {
		snprintf(buf, len, "its --smem-pad of %" PRIu32 " bytes and "
			 "its --kernel-module '%s'", pad, mod);
	} else if (pad) {
		snprintf(buf, len, "its --smem-pad of %" PRIu32 " bytes", pad);
	} else {
		snprintf(buf, len, "its --kernel-module '%s'", mod);
	}
}

/*
 * A cooperative launch must have its whole grid resident at once. When
 * a sweep's knob (--smem-pad, or a --kernel-module with more registers)
 * leaves kernel @i fewer blocks per SM than a cooperative launch's grid
 * needs, the point cannot exist: said here, before any replay, with the
 * driver's own occupancy of the function as loaded (rather than
 * CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE at the launch), and the run's
 * no_point set, so that its exit status tells it from a failure. The
 * device's SMs are counted (a green context's partition is not).
 */
int gm_knob_cooperative_check(struct gm_prog *p, uint32_t i)
{
	const struct gm_program_desc *d = p->d;
	const struct gm_kernel_desc *k = &d->kernels[i];
	const char *mod = gm_kernel_module_for(&p->run->opt, k->name);
	struct gm_run *run = p->run;
	int sms = run->device.sm_count;
	char knobs[PATH_MAX + 96];

	if ((!p->smem_pad || !p->smem_pad[i]) && !mod) {
		return 0;
	}
	for (uint32_t l = 0; l < d->nr_launches && sms > 0; l++) {
		const struct gm_launch_desc *ld = &d->launches[l];
		uint64_t grid = (uint64_t)ld->grid[0] * ld->grid[1] * ld->grid[2];
		int threads = (int)(ld->block[0] * ld->block[1] * ld->block[2]);
		uint32_t smem = gm_launch_smem(p, ld);
		int per_sm = 0;

		if (ld->kernel != i || !(ld->flags & GM_LAUNCH_COOPERATIVE)) {
			continue;
		}
		if (CU_CHECK(cuOccupancyMaxActiveBlocksPerMultiprocessor(
			    &per_sm, p->funcs[i], threads, smem))) {
			return gm_error("program '%s': cannot get the occupancy "
					"of cooperative kernel '%s'", d->name,
					k->name);
		}
		if (grid <= (uint64_t)per_sm * (uint64_t)sms) {
			continue;
		}
		pthread_mutex_lock(&run->lock);
		run->no_point = !run->failed;
		pthread_mutex_unlock(&run->lock);
		knobs_text(p, i, mod, knobs, sizeof(knobs));
		gm_error_hint("a cooperative launch's point below the blocks "
			      "per SM its grid needs cannot be measured (gpumix "
			      "sweep skips it, doc/gpumix-sweep.md)");
		return gm_error("program '%s': kernel '%s' cannot be launched "
				"cooperatively with %s: its grid of %" PRIu64
				" blocks (%d threads, %" PRIu32 " bytes of dynamic "
				"shared memory each) must be resident at once, "
				"%" PRIu64 " per SM on the device's %d SMs, and it "
				"would get %d block%s per SM: not a point that can "
				"exist (the driver refuses such a launch: "
				"CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE)",
				d->name, k->name, knobs, grid, threads, smem,
				(grid + (uint64_t)sms - 1) / (uint64_t)sms, sms,
				per_sm, per_sm == 1 ? "" : "s");
	}
	return 0;
}
