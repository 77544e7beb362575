/* SPDX-License-Identifier: MIT */
/*
 * Code images in host memory: find out what a pointer handed to
 * cuModuleLoadData/cuLibraryLoadData points at (a fatbin wrapper, a
 * fatbin, an ELF cubin or PTX text) and how many bytes it spans, so that
 * the whole image can be stored. CUDA 13's runtime passes a fatbin
 * wrapper (magic 0x466243b1) whose third word points at the fatbin
 * (magic 0xBA55ED50, 16-byte header whose second 8 bytes are the payload
 * size); the fatbin holds SASS and PTX.
 */
#ifndef GM_IMAGE_H
#define GM_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#define GM_FATBIN_WRAPPER_MAGIC 0x466243b1u
#define GM_FATBIN_MAGIC 0xBA55ED50u

/* Images larger than this are refused (a corrupt size field). */
#define GM_IMAGE_MAX ((size_t)4 << 30)

struct gm_image {
	const void *data;	/* start of the bytes to store */
	size_t size;
	unsigned kind;		/* enum gm_image_kind (api.h) */
	int wrapped;		/* data came from a fatbin wrapper */
};

/*
 * Inspect @p. Returns 0 and fills @img, or -1 when @p is NULL or the
 * image is malformed (no cause recorded: the caller counts the failure).
 */
int gm_image_inspect(const void *p, struct gm_image *img);

/* Suffix of the stored file for an image kind: ".fatbin", ".cubin", ... */
const char *gm_image_suffix(unsigned kind);

#endif
