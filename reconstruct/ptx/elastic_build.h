/* SPDX-License-Identifier: MIT */
/*
 * Making one PTX module elastic the way gpumix does everywhere: parse,
 * classify (ptx_analysis.h), transform (ptx_elastic.h) and, when asked,
 * assemble the original and the transformed text with ptxas, then cap
 * the registers of kernels whose transformation would lower their
 * occupancy (or raise the .maxnreg of one that now spills) and transform
 * and assemble again. `gpumix elastic` prints what this finds;
 * `gpumix reconstruct --elastic` stores the text and the cubin for the
 * replay.
 */
#ifndef GM_ELASTIC_BUILD_H
#define GM_ELASTIC_BUILD_H

#include <stddef.h>

#include "ptx_analysis.h"
#include "ptx_elastic.h"
#include "ptx_ptxas.h"
#include "strbuf.h"

struct gm_elastic_build_opts {
	const char *arch;	/* ptxas target, "sm_90" */
	int assemble;		/* run ptxas (register columns, caps, cubin) */
	int register_cap;	/* apply gm_ptx_register_cap() where needed */
	int want_cubin;		/* keep the cubin of the transformed text */
	int block_only;		/* never resize thread blocks */
};

/* One kernel of the module, in module order. */
struct gm_elastic_build_kernel {
	char *name;
	enum gm_elastic_class cls;
	char reason[256];
	int maxnreg;		/* cap applied by us, 0: none */
};

struct gm_elastic_build {
	struct strbuf ptx;		/* the transformed module */
	struct strbuf cubin;		/* its cubin (want_cubin; may be empty) */
	struct gm_elastic_build_kernel *kernels;
	size_t nr_kernels;
	size_t nr_transformed;
	struct gm_ptxas_report before, after;	/* empty without assemble */
};

/*
 * Make the @len bytes of PTX at @ptx elastic into @out (zero it first;
 * release it with gm_elastic_build_release() in every case). @label
 * names the module in errors ("modules/<hash>"). Returns 0, or -1 with a
 * recorded cause: text that does not parse or cannot be analysed, an
 * original or transformed text that ptxas refuses (the latter is a bug of
 * the transformation and says so in a hint).
 */
int gm_elastic_build(const char *ptx, size_t len, const char *label,
		     const struct gm_elastic_build_opts *o,
		     struct gm_elastic_build *out);

/* Free everything @b holds and zero it. */
void gm_elastic_build_release(struct gm_elastic_build *b);

#endif
