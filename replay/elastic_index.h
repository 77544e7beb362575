/* SPDX-License-Identifier: MIT */
/*
 * The replay's view of DIR/elastic/index, written by `gpumix reconstruct
 * --elastic` (reconstruct/recon_elastic.h): for each original code image
 * (by content hash) its elastic version (transformed PTX, and a cubin for
 * one architecture) and the class of each of its kernels; and of
 * DIR/elastic/kernels.tsv, why a kernel was not made elastic (the block
 * probe lists such kernels as not probed). Pure: reads files, no CUDA.
 */
#ifndef GM_ELASTIC_INDEX_H
#define GM_ELASTIC_INDEX_H

#include <stddef.h>
#include <stdint.h>

#include "elastic_abi.h"


struct gm_elastic_image {
	char *hash;		/* of the original image */
	char *ptx, *ptx_hash;	/* file name in elastic/, content hash */
	uint64_t ptx_size;
	char *cubin, *cubin_hash;	/* NULL: none */
	uint64_t cubin_size;
	unsigned cubin_arch;	/* 90 for sm_90 */
	size_t nr_kernels;
	char **kernel;		/* mangled names */
	enum gm_elastic_class *cls;
};

struct gm_elastic_index {
	char *arch;
	struct gm_elastic_image *images;
	size_t nr;
};

/*
 * Read @data_dir/elastic/index into @x (zero it first; release it with
 * gm_elastic_index_release() in every case). Returns 0, or -1 with a
 * recorded cause (missing, with a hint to reconstruct with --elastic;
 * another format; a missing or bad key, named).
 */
int gm_elastic_index_read(struct gm_elastic_index *x, const char *data_dir);

/* The elastic version of original image @hash, or NULL. */
const struct gm_elastic_image *gm_elastic_index_find(
	const struct gm_elastic_index *x, const char *hash);

/* The class of kernel @name of @img (GM_ELASTIC_NONE when unknown). */
enum gm_elastic_class gm_elastic_image_class(const struct gm_elastic_image *img,
					      const char *name);

void gm_elastic_index_release(struct gm_elastic_index *x);

/*
 * Why kernels were not made elastic: the reason column of
 * @data_dir/elastic/kernels.tsv for every not-elastic kernel, by module
 * hash and kernel name.
 */
struct gm_elastic_reasons {
	char **module, **kernel, **reason;
	size_t nr, alloc;
};

/*
 * Read them into @r (zero it first; release it with
 * gm_elastic_reasons_release() in every case). A missing file gives no
 * reasons and is not an error (gm_elastic_reason() then says where to
 * look); a malformed line is, with its number. 0 or -1.
 */
int gm_elastic_reasons_read(struct gm_elastic_reasons *r, const char *data_dir);

/* The reason kernel @kernel of module @module was not made elastic, or
 * NULL when the table does not say. */
const char *gm_elastic_reason(const struct gm_elastic_reasons *r,
			      const char *module, const char *kernel);

void gm_elastic_reasons_release(struct gm_elastic_reasons *r);

#endif
