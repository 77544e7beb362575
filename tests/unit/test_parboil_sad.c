/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for sad's CPU side (workloads/parboil/sad/sad_ref.c): flat
 * and shifted frames with known answers, an independent naive search
 * with explicit clamping, padding, the generator's motion, sampling, the
 * check and the input/output files with their errors.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "workloads/parboil/common/pb.h"
#include "workloads/parboil/sad/sad_ref.h"

static void make(struct pb_sad_problem *p, int w, int h, int n)
{
	p->width = w;
	p->height = h;
	p->nframes = n;
	p->frames = calloc((size_t)w * h * n, 1);
}

static uint8_t *frame(struct pb_sad_problem *p, int f)
{
	return p->frames + (size_t)p->width * p->height * f;
}

static int pos(int dx, int dy)
{
	return (dy + 16) * 33 + dx + 16;
}

static void test_flat(void)
{
	struct pb_sad_problem p;
	uint32_t k[PB_SAD_BLOCKS];
	int ok = 1;

	make(&p, 32, 32, 2);
	memset(p.frames, 77, 32 * 32 * 2);
	pb_sad_mb_ref(&p, 1, 1, 0, k);
	for (int b = 0; b < PB_SAD_BLOCKS; b++) {
		ok &= k[b] == 0;
	}
	CHECK(ok, "identical flat frames: SAD 0 at the first position");
	memset(frame(&p, 1), 80, 32 * 32);
	pb_sad_mb_ref(&p, 1, 0, 1, k);
	CHECK_INT(k[0], PB_SAD_KEY(16 * 3, 0), "4x4 SAD of a difference of 3");
	CHECK_INT(k[16], PB_SAD_KEY(64 * 3, 0), "8x8 SAD");
	CHECK_INT(k[20], PB_SAD_KEY(256 * 3, 0), "16x16 SAD");
	pb_sad_release(&p);
}

static void test_shift(void)
{
	struct pb_sad_problem p;
	struct pb_rng r;
	uint32_t k[PB_SAD_BLOCKS];
	int ok = 1;

	make(&p, 64, 64, 2);
	pb_rng_seed(&r, 42);
	for (int i = 0; i < 64 * 64; i++) {
		p.frames[i] = (uint8_t)pb_rng_below(&r, 256);
	}
	/* cur(x, y) = ref(x + 5, y - 3): the match is at (dx, dy) = (5, -3). */
	for (int y = 0; y < 64; y++) {
		for (int x = 0; x < 64; x++) {
			int sx = x + 5 < 64 ? x + 5 : 63, sy = y - 3 > 0 ? y - 3 : 0;
			frame(&p, 1)[y * 64 + x] = p.frames[sy * 64 + sx];
		}
	}
	pb_sad_mb_ref(&p, 1, 1, 1, k);
	for (int b = 0; b < PB_SAD_BLOCKS; b++) {
		ok &= k[b] == PB_SAD_KEY(0, pos(5, -3));
	}
	CHECK(ok, "a shifted frame is found at (5, -3) by every block");
	pb_sad_release(&p);
}

/* The search written out directly, clamping every coordinate. */
static void naive(const struct pb_sad_problem *p, int f, int mbx, int mby,
		  uint32_t keys[PB_SAD_BLOCKS])
{
	int w = p->width, h = p->height;
	const uint8_t *cur = p->frames + (size_t)w * h * f, *ref = cur - (size_t)w * h;

	for (int b = 0; b < PB_SAD_BLOCKS; b++) {
		keys[b] = UINT32_MAX;
	}
	for (int dy = -16; dy <= 16; dy++) {
		for (int dx = -16; dx <= 16; dx++) {
			for (int b = 0; b < PB_SAD_BLOCKS; b++) {
				int size = b < 16 ? 4 : b < 20 ? 8 : 16;
				int i = b < 16 ? b : b < 20 ? b - 16 : 0;
				int per = 16 / size;
				int bx = mbx * 16 + i % per * size, by = mby * 16 + i / per * size;
				uint32_t s = 0;

				for (int y = by; y < by + size; y++) {
					for (int x = bx; x < bx + size; x++) {
						int rx = x + dx < 0 ? 0 : x + dx >= w ? w - 1 : x + dx;
						int ry = y + dy < 0 ? 0 : y + dy >= h ? h - 1 : y + dy;
						s += abs(cur[y * w + x] - ref[ry * w + rx]);
					}
				}
				uint32_t key = PB_SAD_KEY(s, pos(dx, dy));
				keys[b] = key < keys[b] ? key : keys[b];
			}
		}
	}
}

static void test_against_naive(void)
{
	struct pb_sad_problem p;
	uint32_t a[PB_SAD_BLOCKS], b[PB_SAD_BLOCKS];
	int same = 1;

	pb_sad_generate(&p, 64, 48, 3);
	for (int mb = 0; mb < 12; mb++) {
		pb_sad_mb_ref(&p, 2, mb % 4, mb / 4, a);
		naive(&p, 2, mb % 4, mb / 4, b);
		same &= !memcmp(a, b, sizeof(a));
	}
	CHECK(same, "reference equals a naive clamped search on every MB");
	pb_sad_release(&p);
}

static void test_pad(void)
{
	struct pb_sad_problem p;
	int wp = 32 + 32;
	uint8_t *out = malloc((size_t)wp * wp);

	pb_sad_generate(&p, 32, 32, 1);
	pb_sad_pad(&p, 0, out);
	CHECK(out[0] == p.frames[0], "top-left padding repeats the corner");
	CHECK(out[wp * wp - 1] == p.frames[32 * 32 - 1], "bottom-right too");
	CHECK(out[16 * wp + 16 + 5] == p.frames[5], "interior is the frame");
	CHECK(out[20 * wp + 3] == p.frames[4 * 32], "left edge repeats column 0");
	CHECK(out[2 * wp + 16 + 31] == p.frames[31], "top edge repeats row 0");
	free(out);
	pb_sad_release(&p);
}

static void test_generator(void)
{
	struct pb_sad_problem a, b;
	int w, h, n;
	char err[256];

	CHECK_INT(pb_sad_dims(1.0, &w, &h, &n, err, sizeof(err)), 0, "dims at -s 1");
	CHECK(w == 1920 && h == 1088 && n == 97, "1920x1088, 96 pairs");
	pb_sad_dims(0.05, &w, &h, &n, err, sizeof(err));
	CHECK(w == 1920 && n == 6, "-s 0.05: 5 pairs at full size");
	pb_sad_dims(0.01, &w, &h, &n, err, sizeof(err));
	CHECK(w == 1888 && h == 1072 && n == 2, "-s 0.01: one smaller pair");
	pb_sad_dims(1e-7, &w, &h, &n, err, sizeof(err));
	CHECK(w == 32 && h == 32 && n == 2, "tiny scale: 32x32");
	CHECK_INT(pb_sad_dims(1e6, &w, &h, &n, err, sizeof(err)), -1, "huge scale refused");

	pb_sad_generate(&a, 256, 128, 4);
	pb_sad_generate(&b, 256, 128, 4);
	CHECK(!memcmp(a.frames, b.frames, 256 * 128 * 4), "generator is deterministic");
	CHECK(memcmp(a.frames, a.frames + 256 * 128, 256 * 128) != 0, "frames differ");
	pb_sad_release(&a);
	pb_sad_release(&b);
	/* The camera pans by (3, 1): most MBs find their match there. */
	int found = 0, tried = 0;
	pb_sad_generate(&a, 640, 368, 3);
	for (int mb = 0; mb < pb_sad_mbs(&a); mb += 7, tried++) {
		uint32_t k[PB_SAD_BLOCKS];
		pb_sad_mb_ref(&a, 2, mb % 40, mb / 40, k);
		found += (k[20] & 2047) == (uint32_t)pos(3, 1);
	}
	printf("# %d of %d MBs match at (3, 1)\n", found, tried);
	CHECK(found * 3 > tried * 2, "most MBs move with the camera");
	pb_sad_release(&a);
}

static void test_check(void)
{
	struct pb_sad_problem p;
	int mbs[8], mbs2[8], all[40], n;

	pb_sad_generate(&p, 128, 64, 3);
	n = pb_sad_mbs(&p);
	uint32_t *keys = malloc((size_t)2 * n * PB_SAD_BLOCKS * sizeof(uint32_t));
	for (int f = 1; f < 3; f++) {
		for (int mb = 0; mb < n; mb++) {
			pb_sad_mb_ref(&p, f, mb % 8, mb / 8,
				      keys + ((size_t)(f - 1) * n + mb) * PB_SAD_BLOCKS);
		}
	}
	CHECK_INT(pb_sad_check(&p, keys, 8), 0, "correct keys pass");
	pb_sad_samples(&p, 2, mbs, 8);
	pb_sad_samples(&p, 2, mbs2, 8);
	CHECK(mbs[0] == 0 && mbs[1] == 7 && mbs[2] == 24 && mbs[3] == 31,
	      "samples start with the corners");
	int ok = !memcmp(mbs, mbs2, sizeof(mbs));
	for (int i = 0; i < 8; i++) {
		ok &= mbs[i] >= 0 && mbs[i] < n;
		for (int j = 0; j < i; j++) {
			ok &= mbs[i] != mbs[j];
		}
	}
	CHECK(ok, "samples deterministic, distinct and in range");
	pb_sad_samples(&p, 1, all, 40);
	ok = 1;
	for (int i = 0; i < 40; i++) {
		ok &= all[i] == i % n;
	}
	CHECK(ok, "as many samples as MBs: all of them");
	keys[((size_t)n + 7) * PB_SAD_BLOCKS + 17] ^= 1;	/* pair 2, MB 7 */
	CHECK_INT(pb_sad_check(&p, keys, 8), 1, "one wrong key is caught");
	free(keys);
	pb_sad_release(&p);
}

static void test_files(void)
{
	char dir[] = "/tmp/gpumix-sad.XXXXXX";
	char in[256], out[256], bad[256], err[256];
	struct pb_sad_problem p, q;
	int w, h, pairs;
	uint32_t *k, keys[2 * 8 * PB_SAD_BLOCKS];

	if (!mkdtemp(dir)) {
		test_skip("no temporary directory");
		return;
	}
	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(bad, sizeof(bad), "%s/bad", dir);
	pb_sad_generate(&p, 64, 32, 3);
	CHECK_INT(pb_sad_write_input(in, &p), 0, "write input");
	CHECK_INT(pb_sad_read_input(in, &q, err, sizeof(err)), 0, "read input");
	CHECK(q.width == 64 && q.height == 32 && q.nframes == 3 &&
	      !memcmp(q.frames, p.frames, 64 * 32 * 3), "input round trip");
	pb_sad_release(&q);
	for (size_t i = 0; i < sizeof(keys) / 4; i++) {
		keys[i] = (uint32_t)(i * 2654435761u);
	}
	CHECK_INT(pb_sad_write_output(out, &p, keys), 0, "write output");
	CHECK_INT(pb_sad_read_output(out, &w, &h, &pairs, &k, err, sizeof(err)), 0,
		  "read output");
	CHECK(w == 64 && h == 32 && pairs == 2 && !memcmp(k, keys, sizeof(keys)),
	      "output round trip");
	free(k);
	CHECK_INT(pb_sad_read_input(out, &q, err, sizeof(err)), -1, "output is not input");
	CHECK(strstr(err, "not a sad input") != NULL, "wrong magic named");
	CHECK_INT(pb_sad_read_input("/nonexistent/x", &q, err, sizeof(err)), -1,
		  "missing file");
	size_t len = 0;
	char *buf = pb_read_file(in, &len);
	pb_write_file(bad, buf, len - 1);
	CHECK_INT(pb_sad_read_input(bad, &q, err, sizeof(err)), -1, "truncated input");
	CHECK(strstr(err, "does not match") != NULL, "size mismatch named");
	int32_t odd = 40;
	memcpy(buf + 8, &odd, 4);
	pb_write_file(bad, buf, len);
	CHECK_INT(pb_sad_read_input(bad, &q, err, sizeof(err)), -1, "width not a multiple of 16");
	CHECK(strstr(err, "multiples of 16") != NULL, "the rule is named");
	CHECK_INT(pb_sad_read_output(in, &w, &h, &pairs, &k, err, sizeof(err)), -1,
		  "input is not output");
	free(buf);
	pb_sad_release(&p);
	unlink(in);
	unlink(out);
	unlink(bad);
	rmdir(dir);
}

int main(void)
{
	test_flat();
	test_shift();
	test_against_naive();
	test_pad();
	test_generator();
	test_check();
	test_files();
	return test_done();
}
