/* SPDX-License-Identifier: MIT */
/*
 * histo reference side: image generator, file formats, CPU saturating
 * histogram and comparison (see histo_ref.h).
 */
#include "histo_ref.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

static const char in_magic[8] = { 'P', 'B', 'H', 'S', 'T', 'I', 'N', '1' };
static const char out_magic[8] = { 'P', 'B', 'H', 'S', 'T', 'O', 'U', '1' };

/* Bright blobs: centre row and column, half-widths in rows and columns. */
static const struct {
	int cy, cx, ry, rx;
} blobs[] = {
	{ 20, 40, 10, 24 }, { 30, 180, 14, 30 }, { 60, 100, 18, 40 },
	{ 75, 220, 8, 16 }, { 48, 20, 6, 12 },   { 85, 140, 9, 50 },
};
#define NBLOBS ((int)(sizeof(blobs) / sizeof(blobs[0])))

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (errlen) {
		vsnprintf(err, errlen, fmt, ap);
	}
	va_end(ap);
	return -1;
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static int write_file2(const char *path, const unsigned char *hdr,
		       size_t hdrlen, const void *data, size_t len, char *err,
		       size_t errlen)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f) {
		return fail(err, errlen, "cannot create '%s'", path);
	}
	ok = fwrite(hdr, 1, hdrlen, f) == hdrlen;
	ok = ok && (!len || fwrite(data, 1, len, f) == len);
	ok = (fclose(f) == 0) && ok;
	if (!ok) {
		return fail(err, errlen, "cannot write '%s'", path);
	}
	return 0;
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

uint32_t histo_height_for_scale(double scale)
{
	double h = HISTO_BASE_HEIGHT * scale + 0.5;

	if (h < 1) {
		return 1;
	}
	if (h > 4e9) {
		return 4000000000u;
	}
	return (uint32_t)h;
}

int histo_generate(struct histo_image *img, uint32_t width, uint32_t height,
		   uint64_t seed, char *err, size_t errlen)
{
	uint64_t n = (uint64_t)width * height;
	struct pb_rng rng;

	memset(img, 0, sizeof(*img));
	if (!n || n > HISTO_MAX_PIXELS) {
		return fail(err, errlen, "an image of %u x %u pixels is not supported",
			    width, height);
	}
	img->pixels = malloc(n * sizeof(*img->pixels));
	if (!img->pixels) {
		return fail(err, errlen, "out of memory for %llu pixels",
			    (unsigned long long)n);
	}
	img->width = width;
	img->height = height;
	pb_rng_seed(&rng, seed);
	for (uint64_t i = 0; i < n; i++) {
		uint64_t u = pb_rng_next(&rng);
		unsigned sel = (unsigned)(u & 0xff);

		if (sel < 8) {
			/* about 3% uniform background */
			img->pixels[i] = (uint16_t)pb_rng_below(&rng, HISTO_BINS);
			continue;
		}
		int b = (int)(sel % NBLOBS);
		int r = (int)((u >> 8) & 0xfff) + (int)((u >> 20) & 0xfff) - 4095;
		int c = (int)((u >> 32) & 0xfff) + (int)((u >> 44) & 0xfff) - 4095;
		int row = clampi(blobs[b].cy + r * blobs[b].ry / 4096, 0,
				 HISTO_BINS_Y - 1);
		int col = clampi(blobs[b].cx + c * blobs[b].rx / 4096, 0,
				 HISTO_BINS_X - 1);

		img->pixels[i] = (uint16_t)(row * HISTO_BINS_X + col);
	}
	return 0;
}

void histo_image_release(struct histo_image *img)
{
	free(img->pixels);
	memset(img, 0, sizeof(*img));
}

int histo_write_input(const char *path, const struct histo_image *img,
		      char *err, size_t errlen)
{
	unsigned char hdr[24];

	memcpy(hdr, in_magic, 8);
	put_u32(hdr + 8, img->width);
	put_u32(hdr + 12, img->height);
	put_u32(hdr + 16, HISTO_BINS_X);
	put_u32(hdr + 20, HISTO_BINS_Y);
	return write_file2(path, hdr, sizeof(hdr), img->pixels,
			   (size_t)img->width * img->height * 2, err, errlen);
}

int histo_read_input(const char *path, struct histo_image *img, char *err,
		     size_t errlen)
{
	size_t len = 0;
	unsigned char *buf = pb_read_file(path, &len);
	uint64_t w, h, n;
	int rc = -1;

	memset(img, 0, sizeof(*img));
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < 24 || memcmp(buf, in_magic, 8)) {
		fail(err, errlen, "'%s' is not a histo input file (bad magic)", path);
		goto out;
	}
	w = get_u32(buf + 8);
	h = get_u32(buf + 12);
	n = w * h;
	if (get_u32(buf + 16) != HISTO_BINS_X || get_u32(buf + 20) != HISTO_BINS_Y) {
		fail(err, errlen, "'%s': histogram of %u x %u bins, this program "
		     "computes %d x %d", path, get_u32(buf + 16),
		     get_u32(buf + 20), HISTO_BINS_X, HISTO_BINS_Y);
		goto out;
	}
	if (!n || n > HISTO_MAX_PIXELS) {
		fail(err, errlen, "'%s': an image of %llu x %llu pixels is not "
		     "supported", path, (unsigned long long)w,
		     (unsigned long long)h);
		goto out;
	}
	if (len != 24 + n * 2) {
		fail(err, errlen, "'%s': %zu bytes, expected %llu for %llu x %llu "
		     "pixels", path, len, (unsigned long long)(24 + n * 2),
		     (unsigned long long)w, (unsigned long long)h);
		goto out;
	}
	img->pixels = malloc(n * 2);
	if (!img->pixels) {
		fail(err, errlen, "out of memory reading '%s'", path);
		goto out;
	}
	memcpy(img->pixels, buf + 24, n * 2);
	for (uint64_t i = 0; i < n; i++) {
		if (img->pixels[i] >= HISTO_BINS) {
			fail(err, errlen, "'%s': pixel %llu is %u, not a bin below %d",
			     path, (unsigned long long)i, img->pixels[i], HISTO_BINS);
			goto out;
		}
	}
	img->width = (uint32_t)w;
	img->height = (uint32_t)h;
	rc = 0;
out:
	free(buf);
	if (rc) {
		histo_image_release(img);
	}
	return rc;
}

int histo_write_output(const char *path, const uint8_t *hist, char *err,
		       size_t errlen)
{
	unsigned char hdr[16];

	memcpy(hdr, out_magic, 8);
	put_u32(hdr + 8, HISTO_BINS_X);
	put_u32(hdr + 12, HISTO_BINS_Y);
	return write_file2(path, hdr, sizeof(hdr), hist, HISTO_BINS, err, errlen);
}

int histo_read_output(const char *path, uint8_t *hist, char *err,
		      size_t errlen)
{
	size_t len = 0;
	unsigned char *buf = pb_read_file(path, &len);
	int rc = -1;

	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < 16 || memcmp(buf, out_magic, 8)) {
		fail(err, errlen, "'%s' is not a histo output file (bad magic)", path);
	} else if (get_u32(buf + 8) != HISTO_BINS_X ||
		   get_u32(buf + 12) != HISTO_BINS_Y || len != 16 + HISTO_BINS) {
		fail(err, errlen, "'%s': not a %d x %d histogram", path,
		     HISTO_BINS_X, HISTO_BINS_Y);
	} else {
		memcpy(hist, buf + 16, HISTO_BINS);
		rc = 0;
	}
	free(buf);
	return rc;
}

uint32_t histo_cpu(const uint16_t *pixels, size_t n, uint8_t *hist)
{
	uint32_t count[HISTO_BINS];
	uint32_t saturated = 0;

	memset(count, 0, sizeof(count));
	for (size_t i = 0; i < n; i++) {
		count[pixels[i]]++;
	}
	for (int b = 0; b < HISTO_BINS; b++) {
		hist[b] = count[b] < HISTO_SATURATE ? (uint8_t)count[b] : HISTO_SATURATE;
		saturated += count[b] >= HISTO_SATURATE;
	}
	return saturated;
}

uint32_t histo_compare(const uint8_t *got, const uint8_t *want,
		       uint32_t *first_bad)
{
	uint32_t bad = 0;

	*first_bad = HISTO_BINS;
	for (uint32_t b = 0; b < HISTO_BINS; b++) {
		if (got[b] != want[b]) {
			if (!bad) {
				*first_bad = b;
			}
			bad++;
		}
	}
	return bad;
}
