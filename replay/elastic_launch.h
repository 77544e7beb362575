/* SPDX-License-Identifier: MIT */
/*
 * The replay's side of elastic kernels (`--elastic`): which image each
 * module loads, the class of each kernel, the resident blocks of each
 * launch. The physical launches that replace a captured launch are the
 * launch planners' (launch_plan.h). Internal to libgpumix-replay.
 */
#ifndef GM_ELASTIC_LAUNCH_H
#define GM_ELASTIC_LAUNCH_H

#include <stdint.h>

#include <cuda.h>

#include "elastic_abi.h"

struct gm_prog;
struct gm_run;
struct gm_module_desc;
struct gm_elastic_image;

/*
 * The file (relative to the data directory, newly allocated), size and
 * content hash to load for module @m of the run: its elastic version
 * when the run uses elastic modules and one exists (the cubin when it
 * was assembled for this device, else the PTX), else modules/<hash>.
 * *@img receives the elastic image or NULL.
 */
char *gm_elastic_module_file(const struct gm_run *run,
			     const struct gm_module_desc *m, uint64_t *size,
			     const char **hash,
			     const struct gm_elastic_image **img);

/*
 * After the modules are loaded: each kernel's class (p->el_class), which
 * resolving the kernels needs (a transformed kernel takes one more
 * parameter).
 */
void gm_elastic_classify(struct gm_prog *p);

/*
 * After kernels are resolved, for the resident mode: the resident blocks
 * per SM of every launch of a transformed kernel (occupancy of the
 * transformed function with the launch's block and dynamic shared
 * memory). Returns 0 or -1 (cause recorded).
 */
int gm_elastic_prog_init(struct gm_prog *p);

#endif
