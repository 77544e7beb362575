/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the histo reference (workloads/parboil/histo/histo_ref.c):
 * hand-counted histograms and saturation, the image generator's
 * determinism and range, the -i/-o round trips and the errors on bad files.
 */
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "workloads/parboil/common/pb.h"
#include "workloads/parboil/histo/histo_ref.h"

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

static void test_counts(void)
{
	uint16_t px[1000];
	uint8_t h[HISTO_BINS], h2[HISTO_BINS];
	uint32_t first;

	px[0] = 0;
	px[1] = 0;
	px[2] = 5;
	px[3] = HISTO_BINS - 1;
	px[4] = 5;
	px[5] = 5;
	CHECK_INT(histo_cpu(px, 6, h), 0, "nothing saturates");
	CHECK(h[0] == 2 && h[5] == 3 && h[HISTO_BINS - 1] == 1 && h[1] == 0,
	      "hand counts 2, 3, 1");

	for (int i = 0; i < 1000; i++) {
		px[i] = i < 300 ? 7 : i < 555 ? 8 : i < 809 ? 9 : 10;
	}
	CHECK_INT(histo_cpu(px, 1000, h), 2, "two bins saturate");
	CHECK_INT(h[7], 255, "300 saturates at 255");
	CHECK_INT(h[8], 255, "255 is saturated");
	CHECK_INT(h[9], 254, "254 is not");
	CHECK_INT(h[10], 191, "191 stays");

	memcpy(h2, h, sizeof(h));
	CHECK_INT(histo_compare(h, h2, &first), 0, "equal histograms");
	CHECK_INT(first, HISTO_BINS, "no mismatch");
	h2[9] = 3;
	h2[100] = 1;
	CHECK_INT(histo_compare(h2, h, &first), 2, "two mismatches");
	CHECK_INT(first, 9, "first mismatch");
}

static void test_generator(void)
{
	struct histo_image a, b, c;
	char err[256];
	uint8_t h[HISTO_BINS];

	CHECK_INT(histo_generate(&a, 8192, 64, 3, err, sizeof(err)), 0, "generate");
	CHECK_INT(histo_generate(&b, 8192, 64, 3, err, sizeof(err)), 0, "again");
	CHECK_INT(histo_generate(&c, 8192, 64, 4, err, sizeof(err)), 0, "other seed");
	size_t n = (size_t)8192 * 64;
	CHECK(!memcmp(a.pixels, b.pixels, n * 2), "same seed, same image");
	CHECK(memcmp(a.pixels, c.pixels, n * 2), "other seed, other image");
	int inrange = 1;
	for (size_t i = 0; i < n; i++) {
		inrange &= a.pixels[i] < HISTO_BINS;
	}
	CHECK(inrange, "every pixel is a bin");
	uint32_t sat = histo_cpu(a.pixels, n, h);
	int partial = 0, empty = 0;
	for (int i = 0; i < HISTO_BINS; i++) {
		partial += h[i] > 0 && h[i] < 255;
		empty += h[i] == 0;
	}
	CHECK(sat > 100, "blob centres saturate");
	CHECK(partial > 1000, "many bins keep partial counts");
	CHECK(empty > 0, "some bins stay empty");

	CHECK_INT(histo_height_for_scale(1.0), HISTO_BASE_HEIGHT, "scale 1");
	CHECK_INT(histo_height_for_scale(0.01), 82, "scale 0.01");
	CHECK_INT(histo_height_for_scale(1e-9), 1, "at least one row");
	histo_image_release(&b);
	CHECK_INT(histo_generate(&b, 65536, 65536, 1, err, sizeof(err)), -1,
		  "too large an image is refused");
	CHECK_INT(histo_generate(&b, 0, 5, 1, err, sizeof(err)), -1,
		  "an empty image is refused");
	histo_image_release(&c);

	/* round trips */
	struct histo_image r;
	a.height = 3;	/* a smaller file: the first 3 rows */
	CHECK_INT(histo_write_input(tmp_path("in.bin"), &a, err, sizeof(err)), 0,
		  "write input");
	CHECK_INT(histo_read_input(tmp_path("in.bin"), &r, err, sizeof(err)), 0,
		  "read input back");
	CHECK(r.width == 8192 && r.height == 3 &&
	      !memcmp(r.pixels, a.pixels, 8192 * 3 * 2), "input round trip");
	histo_image_release(&r);

	uint8_t back[HISTO_BINS];
	CHECK_INT(histo_write_output(tmp_path("out.bin"), h, err, sizeof(err)), 0,
		  "write output");
	CHECK_INT(histo_read_output(tmp_path("out.bin"), back, err, sizeof(err)), 0,
		  "read output back");
	CHECK(!memcmp(back, h, HISTO_BINS), "output round trip");

	/* bad files */
	CHECK_INT(histo_read_input(tmp_path("none"), &r, err, sizeof(err)), -1,
		  "missing file");
	CHECK_INT(histo_read_input(tmp_path("out.bin"), &r, err, sizeof(err)), -1,
		  "an output is not an input");
	CHECK(strstr(err, "bad magic") != NULL, "bad magic message");
	CHECK_INT(histo_read_output(tmp_path("in.bin"), back, err, sizeof(err)), -1,
		  "an input is not an output");

	size_t len = 0;
	unsigned char *buf = pb_read_file(tmp_path("in.bin"), &len);
	if (!CHECK(buf && len == 24 + 8192 * 3 * 2, "input file size")) {
		return;
	}
	pb_write_file(tmp_path("short.bin"), buf, len - 2);
	CHECK_INT(histo_read_input(tmp_path("short.bin"), &r, err, sizeof(err)), -1,
		  "truncated input");
	CHECK(strstr(err, "bytes, expected") != NULL, "truncation message");

	buf[len - 1] = 0xff;	/* last pixel becomes 0xffxx */
	pb_write_file(tmp_path("badpx.bin"), buf, len);
	CHECK_INT(histo_read_input(tmp_path("badpx.bin"), &r, err, sizeof(err)), -1,
		  "pixel out of range");
	CHECK(strstr(err, "not a bin") != NULL, "bad pixel message");

	buf[17] = 0;	/* HISTO_BINS_X (256) becomes 0 */
	pb_write_file(tmp_path("badshape.bin"), buf, len);
	CHECK_INT(histo_read_input(tmp_path("badshape.bin"), &r, err, sizeof(err)),
		  -1, "other histogram shape");
	CHECK(strstr(err, "bins") != NULL, "shape message");
	free(buf);
	histo_image_release(&a);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_parboil_histo.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_counts();
	test_generator();
	const char *names[] = { "in.bin", "out.bin", "short.bin", "badpx.bin",
				"badshape.bin" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		unlink(tmp_path(names[i]));
	}
	rmdir(tmpdir);
	return test_done();
}
