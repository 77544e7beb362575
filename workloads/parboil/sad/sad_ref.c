/* SPDX-License-Identifier: MIT */
/*
 * sad's video generator, padding, file formats and CPU reference of the
 * motion search (see sad_ref.h).
 */
#include "sad_ref.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

#define IN_MAGIC "PBSADIN1"
#define OUT_MAGIC "PBSADOU1"
#define HEADER 20		/* magic + 3 int32 */
#define MAX_FRAME_PIXELS (1 << 26)
#define OBJECTS 12

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

int pb_sad_mbs(const struct pb_sad_problem *p)
{
	return (p->width / 16) * (p->height / 16);
}

int pb_sad_dims(double scale, int *width, int *height, int *nframes, char *err,
		size_t errlen)
{
	double pairs = floor(PB_SAD_PAIRS * scale + 0.5);
	double area = 1.0;

	if (PB_SAD_PAIRS * scale < 1.0) {
		area = PB_SAD_PAIRS * scale;
		pairs = 1;
	}
	if (pairs > 100000) {
		return fail(err, errlen, "scale %g is too large", scale);
	}
	long mw = lround(PB_SAD_WIDTH / 16 * sqrt(area));
	long mh = lround(PB_SAD_HEIGHT / 16 * sqrt(area));
	*width = 16 * (int)(mw < 2 ? 2 : mw);
	*height = 16 * (int)(mh < 2 ? 2 : mh);
	*nframes = (int)pairs + 1;
	return 0;
}

static uint32_t hash3(uint32_t a, uint32_t b, uint32_t c)
{
	uint64_t z = ((uint64_t)a << 32 | b) ^ ((uint64_t)c * 0x9e3779b97f4a7c15ULL);

	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return (uint32_t)(z ^ (z >> 31));
}

/* Bilinear value noise with lattice spacing @cell, in 0..255. */
static int noise(int x, int y, int cell, uint32_t seed)
{
	int i = x / cell, j = y / cell, fx = x % cell, fy = y % cell;
	int v00 = hash3(i, j, seed) & 255, v10 = hash3(i + 1, j, seed) & 255;
	int v01 = hash3(i, j + 1, seed) & 255, v11 = hash3(i + 1, j + 1, seed) & 255;

	return (v00 * (cell - fx) * (cell - fy) + v10 * fx * (cell - fy) +
		v01 * (cell - fx) * fy + v11 * fx * fy) / (cell * cell);
}

/* A w x h texture: two octaves of value noise. */
static void texture(uint8_t *t, int w, int h, uint32_t seed)
{
	for (int y = 0; y < h; y++) {
		for (int x = 0; x < w; x++) {
			t[(size_t)y * w + x] = (uint8_t)((2 * noise(x, y, 16, seed) +
							  noise(x, y, 4, seed + 1)) / 3);
		}
	}
}

struct object {
	int x0, y0, w, h, vx, vy;
	uint8_t *tex;
};

void pb_sad_generate(struct pb_sad_problem *p, int width, int height,
		     int nframes)
{
	int cw = width + 256, ch = height + 128;
	size_t fsize = (size_t)width * height;
	uint8_t *canvas = (uint8_t *)malloc((size_t)cw * ch);
	int8_t *grain = (int8_t *)malloc(65536);
	struct object obj[OBJECTS];
	struct pb_rng r;

	memset(p, 0, sizeof(*p));
	p->width = width;
	p->height = height;
	p->nframes = nframes;
	p->frames = (uint8_t *)malloc(fsize * nframes);
	if (!canvas || !grain || !p->frames) {
		fprintf(stderr, "sad: out of memory\n");
		exit(2);
	}
	pb_rng_seed(&r, 0x7361642d76696465ULL);
	texture(canvas, cw, ch, 0x5eed);
	for (int i = 0; i < 65536; i++) {
		grain[i] = (int8_t)((int)pb_rng_below(&r, 7) - 3);
	}
	for (int o = 0; o < OBJECTS; o++) {
		obj[o].w = 24 + (int)pb_rng_below(&r, 73);
		obj[o].h = 24 + (int)pb_rng_below(&r, 73);
		obj[o].x0 = (int)pb_rng_below(&r, (uint32_t)width);
		obj[o].y0 = (int)pb_rng_below(&r, (uint32_t)height);
		obj[o].vx = (int)pb_rng_below(&r, 21) - 10;
		obj[o].vy = (int)pb_rng_below(&r, 21) - 10;
		obj[o].tex = (uint8_t *)malloc((size_t)obj[o].w * obj[o].h);
		if (!obj[o].tex) {
			fprintf(stderr, "sad: out of memory\n");
			exit(2);
		}
		texture(obj[o].tex, obj[o].w, obj[o].h, 0x0b1ec7 + 2 * o);
	}
	for (int f = 0; f < nframes; f++) {
		uint8_t *fr = p->frames + fsize * f;
		int sx = 3 * f % cw;	/* the camera pans 3 right, 1 down per frame */

		for (int y = 0; y < height; y++) {
			const uint8_t *row = canvas + (size_t)((y + f) % ch) * cw;
			uint8_t *out = fr + (size_t)y * width;
			int first = cw - sx < width ? cw - sx : width;

			memcpy(out, row + sx, first);
			memcpy(out + first, row, width - first);
		}
		for (int o = 0; o < OBJECTS; o++) {
			struct object *b = &obj[o];
			int spanx = width + b->w, spany = height + b->h;
			int ox = ((b->x0 + b->vx * f) % spanx + spanx) % spanx - b->w;
			int oy = ((b->y0 + b->vy * f) % spany + spany) % spany - b->h;

			for (int y = oy < 0 ? 0 : oy; y < oy + b->h && y < height; y++) {
				for (int x = ox < 0 ? 0 : ox; x < ox + b->w && x < width; x++) {
					fr[(size_t)y * width + x] =
						b->tex[(size_t)(y - oy) * b->w + x - ox];
				}
			}
		}
		for (size_t i = 0; i < fsize; i++) {
			int v = fr[i] + grain[(i + (size_t)f * 7919) & 65535];
			fr[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
		}
	}
	for (int o = 0; o < OBJECTS; o++) {
		free(obj[o].tex);
	}
	free(canvas);
	free(grain);
}

void pb_sad_release(struct pb_sad_problem *p)
{
	free(p->frames);
	memset(p, 0, sizeof(*p));
}

static int clampi(int v, int lo, int hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void pb_sad_pad(const struct pb_sad_problem *p, int f, uint8_t *out)
{
	int w = p->width, h = p->height, wp = w + 2 * PB_SAD_PAD;
	const uint8_t *fr = p->frames + (size_t)w * h * f;

	for (int y = -PB_SAD_PAD; y < h + PB_SAD_PAD; y++) {
		const uint8_t *src = fr + (size_t)clampi(y, 0, h - 1) * w;
		uint8_t *dst = out + (size_t)(y + PB_SAD_PAD) * wp;

		memset(dst, src[0], PB_SAD_PAD);
		memcpy(dst + PB_SAD_PAD, src, w);
		memset(dst + PB_SAD_PAD + w, src[w - 1], PB_SAD_PAD);
	}
}

void pb_sad_mb_ref(const struct pb_sad_problem *p, int f, int mbx, int mby,
		   uint32_t keys[PB_SAD_BLOCKS])
{
	enum { WIN = 16 + 2 * PB_SAD_RANGE };
	int w = p->width, h = p->height;
	const uint8_t *cur = p->frames + (size_t)w * h * f;
	const uint8_t *ref = cur - (size_t)w * h;
	uint8_t c[16][16], win[WIN][WIN];
	int x0 = mbx * 16, y0 = mby * 16;

	for (int y = 0; y < 16; y++) {
		memcpy(c[y], cur + (size_t)(y0 + y) * w + x0, 16);
	}
	/* The reference around the MB, edges repeated. */
	for (int y = 0; y < WIN; y++) {
		const uint8_t *row = ref + (size_t)clampi(y0 - PB_SAD_RANGE + y, 0, h - 1) * w;
		for (int x = 0; x < WIN; x++) {
			win[y][x] = row[clampi(x0 - PB_SAD_RANGE + x, 0, w - 1)];
		}
	}
	for (int b = 0; b < PB_SAD_BLOCKS; b++) {
		keys[b] = UINT32_MAX;
	}
	for (int pos = 0; pos < PB_SAD_POSITIONS; pos++) {
		int oy = pos / PB_SAD_SPAN, ox = pos % PB_SAD_SPAN;
		uint32_t s4[16] = { 0 }, s8[4], s16;

		for (int y = 0; y < 16; y++) {
			const uint8_t *rr = &win[oy + y][ox];
			for (int bx = 0; bx < 4; bx++) {
				uint32_t s = 0;
				for (int x = 4 * bx; x < 4 * bx + 4; x++) {
					s += (uint32_t)abs((int)c[y][x] - (int)rr[x]);
				}
				s4[(y / 4) * 4 + bx] += s;
			}
		}
		for (int q = 0; q < 4; q++) {
			int b0 = (q / 2) * 8 + (q % 2) * 2;	/* top-left 4x4 of 8x8 q */
			s8[q] = s4[b0] + s4[b0 + 1] + s4[b0 + 4] + s4[b0 + 5];
		}
		s16 = s8[0] + s8[1] + s8[2] + s8[3];
		for (int b = 0; b < 16; b++) {
			uint32_t k = PB_SAD_KEY(s4[b], pos);
			keys[b] = k < keys[b] ? k : keys[b];
		}
		for (int q = 0; q < 4; q++) {
			uint32_t k = PB_SAD_KEY(s8[q], pos);
			keys[16 + q] = k < keys[16 + q] ? k : keys[16 + q];
		}
		uint32_t k = PB_SAD_KEY(s16, pos);
		keys[20] = k < keys[20] ? k : keys[20];
	}
}

void pb_sad_samples(const struct pb_sad_problem *p, int f, int *mbs, int count)
{
	int mbw = p->width / 16, n = pb_sad_mbs(p);
	int corners[4] = { 0, mbw - 1, n - mbw, n - 1 };
	struct pb_rng r;

	pb_rng_seed(&r, 0x5ad5a3b1e5ULL + (uint64_t)f);
	if (count >= n) {
		for (int i = 0; i < count; i++) {
			mbs[i] = i % n;
		}
		return;
	}
	for (int i = 0; i < count; i++) {
		int dup;

		do {
			mbs[i] = i < 4 ? corners[i] : (int)pb_rng_below(&r, (uint32_t)n);
			dup = 0;
			for (int j = 0; j < i; j++) {
				dup |= mbs[j] == mbs[i];
			}
		} while (dup && i >= 4);
	}
}

long pb_sad_check(const struct pb_sad_problem *p, const uint32_t *keys,
		  int count)
{
	int n = pb_sad_mbs(p), mbw = p->width / 16;
	int *mbs = (int *)malloc((size_t)count * sizeof(int));
	long bad = 0;

	if (!mbs) {
		return -1;
	}
	for (int f = 1; f < p->nframes; f++) {
		pb_sad_samples(p, f, mbs, count);
		for (int i = 0; i < count; i++) {
			uint32_t want[PB_SAD_BLOCKS];
			const uint32_t *got = keys + ((size_t)(f - 1) * n + mbs[i]) *
						     PB_SAD_BLOCKS;

			pb_sad_mb_ref(p, f, mbs[i] % mbw, mbs[i] / mbw, want);
			for (int b = 0; b < PB_SAD_BLOCKS; b++) {
				bad += got[b] != want[b];
			}
		}
	}
	free(mbs);
	return bad;
}

static int put(FILE *f, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, f) == len ? 0 : -1;
}

int pb_sad_write_input(const char *path, const struct pb_sad_problem *p)
{
	int32_t h[3] = { p->width, p->height, p->nframes };
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f) {
		return -1;
	}
	ret |= put(f, IN_MAGIC, 8);
	ret |= put(f, h, sizeof(h));
	ret |= put(f, p->frames, (size_t)p->width * p->height * p->nframes);
	if (fclose(f)) {
		ret = -1;
	}
	return ret;
}

int pb_sad_read_input(const char *path, struct pb_sad_problem *p, char *err,
		      size_t errlen)
{
	size_t len = 0, fsize;
	char *buf = (char *)pb_read_file(path, &len);
	int32_t h[3];

	memset(p, 0, sizeof(*p));
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < HEADER || memcmp(buf, IN_MAGIC, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not a sad input file", path);
	}
	memcpy(h, buf + 8, sizeof(h));
	if (h[0] < 32 || h[1] < 32 || h[0] % 16 || h[1] % 16 || h[2] < 2 ||
	    (double)h[0] * h[1] > MAX_FRAME_PIXELS || h[2] > 100001 ||
	    h[1] / 16 > 65535) {
		free(buf);
		return fail(err, errlen, "'%s': bad video %dx%d with %d frames "
			    "(need multiples of 16, at least 32x32, 2 frames)",
			    path, h[0], h[1], h[2]);
	}
	fsize = (size_t)h[0] * h[1];
	if (len != HEADER + fsize * h[2]) {
		free(buf);
		return fail(err, errlen, "'%s': size %zu does not match %d frames "
			    "of %dx%d", path, len, h[2], h[0], h[1]);
	}
	p->frames = (uint8_t *)malloc(fsize * h[2]);
	if (!p->frames) {
		free(buf);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	memcpy(p->frames, buf + HEADER, fsize * h[2]);
	p->width = h[0];
	p->height = h[1];
	p->nframes = h[2];
	free(buf);
	return 0;
}

int pb_sad_write_output(const char *path, const struct pb_sad_problem *p,
			const uint32_t *keys)
{
	int32_t h[3] = { p->width, p->height, p->nframes - 1 };
	size_t n = (size_t)(p->nframes - 1) * pb_sad_mbs(p) * PB_SAD_BLOCKS;
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f) {
		return -1;
	}
	ret |= put(f, OUT_MAGIC, 8);
	ret |= put(f, h, sizeof(h));
	ret |= put(f, keys, n * sizeof(uint32_t));
	if (fclose(f)) {
		ret = -1;
	}
	return ret;
}

int pb_sad_read_output(const char *path, int *width, int *height, int *pairs,
		       uint32_t **keys, char *err, size_t errlen)
{
	size_t len = 0, n;
	char *buf = (char *)pb_read_file(path, &len);
	int32_t h[3];

	*keys = NULL;
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < HEADER || memcmp(buf, OUT_MAGIC, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not a sad output file", path);
	}
	memcpy(h, buf + 8, sizeof(h));
	if (h[0] < 16 || h[1] < 16 || h[2] < 1 || h[0] % 16 || h[1] % 16 ||
	    (double)h[0] * h[1] > MAX_FRAME_PIXELS || h[2] > 100000) {
		free(buf);
		return fail(err, errlen, "'%s': bad header", path);
	}
	n = (size_t)h[2] * (h[0] / 16) * (h[1] / 16) * PB_SAD_BLOCKS;
	if (len != HEADER + n * sizeof(uint32_t)) {
		free(buf);
		return fail(err, errlen, "'%s': size does not match its header",
			    path);
	}
	*keys = (uint32_t *)malloc(n * sizeof(uint32_t));
	if (!*keys) {
		free(buf);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	memcpy(*keys, buf + HEADER, n * sizeof(uint32_t));
	*width = h[0];
	*height = h[1];
	*pairs = h[2];
	free(buf);
	return 0;
}
