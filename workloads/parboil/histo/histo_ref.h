/* SPDX-License-Identifier: MIT */
/*
 * histo reference side (plain C11, no CUDA): the deterministic image
 * generator, the -i/-o file formats, the CPU saturating histogram the GPU
 * result is checked against, and the comparison. Compiled into
 * build/workloads/parboil/histo by nvcc and into libparboil-ref.a by gcc
 * (unit-tested by tests/unit/test_parboil_histo.c).
 *
 * The histogram is 2-D: HISTO_BINS_Y rows of HISTO_BINS_X bins. Each pixel
 * of the image is a 16-bit bin number row * HISTO_BINS_X + col, and each
 * bin's final value is its pixel count saturated at 255 (an 8-bit
 * histogram, as in Parboil's histo). The generated image is dominated by a
 * few bright blobs (their bins saturate) over a thin uniform background
 * (those bins keep small counts), so both regimes are exercised.
 */
#ifndef HISTO_REF_H
#define HISTO_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define HISTO_BINS_X 256
#define HISTO_BINS_Y 96
#define HISTO_BINS (HISTO_BINS_X * HISTO_BINS_Y)	/* 24576 */
#define HISTO_SATURATE 255
#define HISTO_WIDTH 8192		/* image columns */
#define HISTO_BASE_HEIGHT 8192		/* image rows at scale 1 */
#define HISTO_ITERATIONS 1000		/* times the histogram is computed */
#define HISTO_SEED 0x6869737431ULL
#define HISTO_MAX_PIXELS (1u << 31)

struct histo_image {
	uint32_t width;
	uint32_t height;
	uint16_t *pixels;	/* width * height bin numbers, row-major */
};

/* Image rows for problem scale @scale (at least 1). */
uint32_t histo_height_for_scale(double scale);

/*
 * Generate a @width x @height image from @seed into @img (release with
 * histo_image_release()). Returns 0, or -1 with a message in @err when the
 * image is empty, has more than HISTO_MAX_PIXELS pixels or memory runs out.
 */
int histo_generate(struct histo_image *img, uint32_t width, uint32_t height,
		   uint64_t seed, char *err, size_t errlen);

/* Free the pixels of @img and zero it. */
void histo_image_release(struct histo_image *img);

/*
 * Input file: 8-byte magic "PBHSTIN1", little-endian uint32 width, height,
 * HISTO_BINS_X, HISTO_BINS_Y, then width * height uint16 pixels. The reader
 * checks the magic, the histogram shape, the exact size and that every
 * pixel is a bin number below HISTO_BINS. Returns 0, or -1 with a message
 * in @err (nothing to release).
 */
int histo_read_input(const char *path, struct histo_image *img, char *err,
		     size_t errlen);
int histo_write_input(const char *path, const struct histo_image *img,
		      char *err, size_t errlen);

/*
 * Output file: magic "PBHSTOU1", uint32 HISTO_BINS_X, HISTO_BINS_Y, then
 * the HISTO_BINS saturated 8-bit counts, row-major.
 * histo_read_output() fills @hist (HISTO_BINS bytes).
 */
int histo_write_output(const char *path, const uint8_t *hist, char *err,
		       size_t errlen);
int histo_read_output(const char *path, uint8_t *hist, char *err,
		      size_t errlen);

/*
 * CPU saturating histogram of @n pixels into @hist (HISTO_BINS bytes).
 * Returns the number of saturated bins.
 */
uint32_t histo_cpu(const uint16_t *pixels, size_t n, uint8_t *hist);

/*
 * Count the bins that differ between @got and @want; the first goes to
 * *@first_bad (HISTO_BINS when none).
 */
uint32_t histo_compare(const uint8_t *got, const uint8_t *want,
		       uint32_t *first_bad);

#ifdef __cplusplus
}
#endif

#endif
