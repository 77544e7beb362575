/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of kernel profiles (common/kernel_profile.c): merging rows
 * into running means, lookup by shape with a fallback to the kernel's
 * most launched shape, a write/read round trip, and the errors of a bad
 * file (header, field count, values), each naming the line.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "error.h"
#include "kernel_profile.h"
#include "test.h"

static char *write_tmp(const char *text)
{
	char *path = strdup("/tmp/gpumix-kprofile.XXXXXX");
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");

	fputs(text, f);
	fclose(f);
	return path;
}

static void test_add_find(void)
{
	struct gm_kprofile p = { 0 };
	const struct gm_kprofile_row *r;

	gm_kprofile_add(&p, "mm", "k", "H100", 100, 256, 32, 0, 0, 2, 10.0);
	gm_kprofile_add(&p, "mm", "k", "H100", 100, 256, 32, 0, 0, 2, 20.0);
	gm_kprofile_add(&p, "mm", "k", "H100", 50, 256, 32, 0, 0, 1, 7.0);
	CHECK_INT(p.nr, 2, "same shape merges, another grid is a row");
	r = gm_kprofile_find(&p, "mm", "k", 100);
	CHECK(r && r->launches == 4, "launches add up");
	CHECK_NEAR(r ? r->mean_ns : 0, 15.0, 1e-9, "the mean is weighted");
	r = gm_kprofile_find(&p, "mm", "k", 77);
	CHECK(r && r->grid_blocks == 100,
	      "an unknown grid falls back to the most launched shape");
	CHECK(!gm_kprofile_find(&p, "bfs", "k", 100), "another program: none");
	gm_kprofile_release(&p);
}

static void test_round_trip(void)
{
	struct gm_kprofile p = { 0 }, q;
	char *buf = NULL, *path;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	gm_kprofile_add(&p, "b", "k2", "NVIDIA H100", 4, 64, 40, 1024, 16, 3, 1.5);
	gm_kprofile_add(&p, "a", "k1", "NVIDIA H100", 8, 128, 20, 0, 0, 1, 2.0);
	gm_kprofile_sort(&p);
	CHECK_STR(p.rows[0].program, "a", "sorted by program");
	CHECK_INT(gm_kprofile_write(&p, f), 0, "written");
	fclose(f);
	path = write_tmp(buf);
	CHECK_INT(gm_kprofile_read(&q, path), 0, "read back");
	CHECK_INT(q.nr, 2, "both rows");
	CHECK(q.nr == 2 && q.rows[1].static_smem == 1024 &&
	      q.rows[1].dynamic_smem == 16 && q.rows[1].regs == 40 &&
	      !strcmp(q.rows[1].device, "NVIDIA H100"), "fields kept");
	gm_kprofile_release(&q);
	gm_kprofile_release(&p);
	unlink(path);
	free(path);
	free(buf);
}

static void bad(const char *text, const char *want, const char *what)
{
	struct gm_kprofile q;
	char *path = write_tmp(text);

	CHECK_INT(gm_kprofile_read(&q, path), -1, what);
	CHECK(strstr(gm_error_message(), want) != NULL, want);
	if (!strstr(gm_error_message(), want)) {
		printf("#   got: %s\n", gm_error_message());
	}
	gm_error_clear();
	unlink(path);
	free(path);
}

#define HEAD "# gpumix-profile 1\nprogram\tkernel\tgrid_blocks\tblock_threads\t" \
	"regs\tstatic_smem\tdynamic_smem\tlaunches\tmean_ns\tdevice\n"

static void test_errors(void)
{
	bad("program\tkernel\n", "is not a gpumix profile", "no header");
	bad("# gpumix-profile 1\nprogram\n", ":2: unexpected column header",
	    "bad columns");
	bad(HEAD "a\tk\t1\t32\t8\t0\t0\t1\n", ":3: bad profile row",
	    "too few fields");
	bad(HEAD "a\tk\t1\t2048\t8\t0\t0\t1\t5\tG\n", ":3: bad profile row",
	    "a block of 2048 threads");
	bad(HEAD "a\tk\t1\t32\t8\t0\t0\t0\t5\tG\n", ":3: bad profile row",
	    "no launches");
	bad(HEAD "a\tk\t1\t32\t8\t0\t0\t1\t-5\tG\n", ":3: bad profile row",
	    "a negative time");
}

int main(void)
{
	test_add_find();
	test_round_trip();
	test_errors();
	return test_done();
}
