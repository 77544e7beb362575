/* SPDX-License-Identifier: MIT */
/*
 * The elastic modules of a reconstructed workload (`gpumix reconstruct
 * --elastic`): for every code image the programs load, its PTX for the
 * target architecture (fatbin.h) made elastic (elastic_build.h) and, when
 * ptxas is there, assembled to a cubin with the register caps, so that
 * the replay neither JIT-compiles nor changes occupancy. Written into the
 * output directory:
 *
 *   elastic/index           kvfile: format "gpumix-elastic 2", arch,
 *                           modules, per module i: module.<i>.hash (the
 *                           original image), .ptx/.ptx_size/.ptx_hash,
 *                           .cubin/.cubin_size/.cubin_hash (when
 *                           assembled), .cubin_arch, .kernels, and per
 *                           kernel k: module.<i>.kernel.<k>.{name,class}
 *   elastic/<hash>.ptx      the transformed PTX of original image <hash>
 *   elastic/<hash>.sm_NN.cubin
 *   elastic/kernels.tsv     one row per kernel of every image: module,
 *                           kernel, class, regs, regs', smem, smem',
 *                           maxnreg, reason ("-" where unknown)
 *
 * Only images with at least one transformed kernel are in the index; the
 * replay loads the others unmodified. Output is deterministic: images in
 * order of first load over the programs, kernels in module order.
 */
#ifndef GM_RECON_ELASTIC_H
#define GM_RECON_ELASTIC_H

#include <stddef.h>


struct model;
struct strbuf;

struct recon_elastic_opts {
	/* ptxas target and PTX choice ("sm_90"); NULL: the device.cc of
	 * the first bundle manifest that has one, else sm_90. */
	const char *arch;
	int no_assemble;	/* never run ptxas (PTX only, no caps) */
};

struct recon_elastic_stats {
	size_t images;		/* distinct code images */
	size_t transformed;	/* images with an elastic version */
	size_t kept;		/* images that keep their code (the
				   reasons are in the report) */
	size_t kernels, thread, block, none;
	char arch[16];
	int assembled;		/* cubins were written */
};

/*
 * Write the elastic/ directory for finished model @m under @dir (which
 * exists). What runs unmodified, and why, goes to @report as "elastic:
 * ..." lines and to the kernel table: an image without PTX, PTX that
 * targets an architecture above the device, PTX that does not parse or
 * that ptxas refuses (e.g. a newer .version), a transformation that
 * fails, a kernel that is not elastic. None of those stops the
 * reconstruct. Returns 0, or -1 with a recorded cause for an unreadable
 * image or a failed write. @st may be NULL.
 */
int recon_elastic_write(const struct model *m, const char *dir,
			const struct recon_elastic_opts *o,
			struct strbuf *report, struct recon_elastic_stats *st);

#endif
