/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the replay's elastic launch setting (common/elastic_plan.c):
 * option parsing and its errors, names, physical grid sizes per mode,
 * shapes that avoid the identity path, slice counts.
 */
#include <string.h>

#include "error.h"
#include "elastic_plan.h"
#include "test.h"

static void test_parse(void)
{
	struct gm_elastic_setting s;
	char name[32];

	CHECK_INT(gm_elastic_setting_parse(NULL, NULL, &s), 0, "default");
	CHECK_INT(s.mode, GM_ELASTIC_OFF, "default is off");
	CHECK_INT(gm_elastic_setting_parse("grid=1", NULL, &s), 0, "grid=1");
	CHECK_INT(s.mode, GM_ELASTIC_GRID, "grid mode");
	CHECK_INT(s.blocks, 1, "1 block");
	CHECK_INT(gm_elastic_setting_parse("264", "7", &s), 0, "bare count");
	CHECK_INT(s.blocks, 264, "264 blocks");
	CHECK_INT(s.slice, 7, "slice 7");
	gm_elastic_setting_name(&s, name, sizeof(name));
	CHECK_STR(name, "grid=264", "canonical name");
	CHECK_INT(gm_elastic_setting_parse("resident", NULL, &s), 0, "resident");
	gm_elastic_setting_name(&s, name, sizeof(name));
	CHECK_STR(name, "resident", "name resident");

	CHECK_INT(gm_elastic_setting_parse("big", NULL, &s), -1, "unknown mode");
	CHECK_STR(gm_error_message(), "bad elastic mode 'big' (off, identity, "
		  "grid=N, N, sm, sm=K, resident, orig; N from 1 to 2147483647)",
		  "its message");
	gm_error_clear();
	CHECK_INT(gm_elastic_setting_parse("0", NULL, &s), -1, "0 blocks");
	gm_error_clear();
	CHECK_INT(gm_elastic_setting_parse("grid=4294967296", NULL, &s), -1,
		  "too many blocks");
	gm_error_clear();
	CHECK_INT(gm_elastic_setting_parse("sm", "-3", &s), -1, "bad slice");
	CHECK_STR(gm_error_message(), "bad elastic slice '-3' (logical blocks "
		  "per launch, or /N for N launches per grid; from 1 to "
		  "2147483647)", "its message");
	gm_error_clear();
	CHECK_INT(gm_elastic_setting_parse("sm", "/0", &s), -1, "bad parts");
	gm_error_clear();
	CHECK_INT(gm_elastic_setting_parse("sm", "/4", &s), 0, "/4");
	CHECK_INT(s.parts, 4, "4 parts");
	gm_elastic_slice_name(&s, name, sizeof(name));
	CHECK_STR(name, "/4", "slice name /4");
	gm_error_clear();
	CHECK_INT(gm_elastic_setting_parse("identity", "4", &s), -1,
		  "slice without a grid mode");
	CHECK_STR(gm_error_message(), "an elastic slice needs a physical grid "
		  "mode (grid=N, sm, resident, orig), not 'identity'",
		  "its message");
	gm_error_clear();
	CHECK_INT(gm_elastic_setting_parse(NULL, "4", &s), -1,
		  "slice with elastic off");
	gm_error_clear();
}

static void test_phys(void)
{
	struct gm_elastic_setting s;

	gm_elastic_setting_parse("1", NULL, &s);
	CHECK_INT(gm_elastic_phys_blocks(&s, 1000, 1000, 132, 8), 1, "grid=1");
	gm_elastic_setting_parse("sm", NULL, &s);
	CHECK_INT(gm_elastic_phys_blocks(&s, 1000, 1000, 132, 8), 132, "sm");
	CHECK_INT(gm_elastic_phys_blocks(&s, 100, 100, 132, 8), 100,
		  "sm: never more than the blocks");
	CHECK_INT(gm_elastic_phys_blocks(&s, 1000, 7, 132, 8), 7,
		  "sm: never more than the slice");
	/* sm=K: the SM-stretch microbenchmark's K blocks on every SM */
	CHECK_INT(gm_elastic_setting_parse("sm=3", NULL, &s), 0, "sm=3");
	CHECK_INT(gm_elastic_phys_blocks(&s, 5000, 5000, 132, 8), 396,
		  "sm=3: 3 x 132");
	CHECK_INT(gm_elastic_phys_blocks(&s, 5000, 5000, 132, 3), 396,
		  "sm=3 with 3 resident: all of them");
	CHECK_INT(gm_elastic_phys_blocks(&s, 5000, 5000, 132, 2), 264,
		  "sm=3 with 2 resident: capped at 2 per SM");
	CHECK_INT(gm_elastic_phys_blocks(&s, 5000, 5000, 132, 0), 396,
		  "sm=3, resident unknown: 3 per SM");
	CHECK_INT(gm_elastic_phys_blocks(&s, 300, 300, 132, 8), 300,
		  "sm=3: capped at the grid");
	{
		char name[32];
		gm_elastic_setting_name(&s, name, sizeof(name));
		CHECK_STR(name, "sm=3", "sm=3 named");
		gm_elastic_setting_parse("sm=1", NULL, &s);
		gm_elastic_setting_name(&s, name, sizeof(name));
		CHECK_STR(name, "sm", "sm=1 is sm");
	}
	CHECK_INT(gm_elastic_setting_parse("sm=0", NULL, &s), -1, "sm=0");
	CHECK_INT(gm_elastic_setting_parse("sm=1025", NULL, &s), -1,
		  "sm=1025: above the limit");
	CHECK_INT(gm_elastic_setting_parse("sm=x", NULL, &s), -1, "sm=x");
	gm_error_clear();
	gm_elastic_setting_parse("resident", NULL, &s);
	CHECK_INT(gm_elastic_phys_blocks(&s, 5000, 5000, 132, 8), 1056,
		  "resident: 8 x 132");
	CHECK_INT(gm_elastic_phys_blocks(&s, 5000, 5000, 132, 0), 132,
		  "resident unknown: 1 per SM");
	CHECK_INT(gm_elastic_phys_blocks(&s, 500, 500, 132, 8), 500,
		  "resident: capped at the grid");
	gm_elastic_setting_parse("orig", NULL, &s);
	CHECK_INT(gm_elastic_phys_blocks(&s, 5000, 5000, 132, 8), 5000, "orig");
	CHECK_INT(gm_elastic_phys_blocks(&s, 5000, 1250, 132, 8), 1250,
		  "orig: capped at the slice");
	gm_elastic_setting_parse("grid=9999", NULL, &s);
	CHECK_INT(gm_elastic_phys_blocks(&s, 5000, 5000, 132, 8), 5000,
		  "grid=N above the grid");
}

static void test_shape(void)
{
	const uint32_t g1[3] = { 1000, 1, 1 }, g2[3] = { 40, 25, 1 };
	const uint32_t big[3] = { 100001, 1, 1 }, bige[3] = { 100000, 1, 1 };
	const uint32_t one[3] = { 1, 1, 1 };
	uint32_t o[3];

	CHECK_INT(gm_elastic_shape(132, g1, 0, 1000, o), 0, "smaller grid");
	CHECK(o[0] == 132 && o[1] == 1 && o[2] == 1, "1-D");
	CHECK_INT(gm_elastic_shape(1000, g1, 0, 1000, o), 0, "same size");
	CHECK(o[0] == 1 && o[1] == 1000 && o[2] == 1,
	      "(1, n, 1): not the identity path");
	CHECK_INT(gm_elastic_shape(1000, g1, 0, 500, o), 0, "part of the grid");
	CHECK(o[0] == 1000 && o[1] == 1, "a range: 1-D is not identity");
	CHECK_INT(gm_elastic_shape(1000, g2, 0, 1000, o), 0, "2-D logical grid");
	CHECK(o[0] == 1000 && o[1] == 1, "1-D physical grid differs");
	CHECK_INT(gm_elastic_shape(100000, bige, 0, 100000, o), 0, "even, large");
	CHECK(o[0] == 50000 && o[1] == 2, "(n/2, 2, 1)");
	CHECK_INT(gm_elastic_shape(100001, big, 0, 100001, o), 1,
		  "odd and large: identity path");
	CHECK_INT(gm_elastic_shape(1, one, 0, 1, o), 1,
		  "one block: identity path");
}

static void test_slices(void)
{
	struct gm_elastic_setting s;

	gm_elastic_setting_parse("sm", "7", &s);
	CHECK_INT(gm_elastic_nr_slices(&s, 100), 15, "ceil(100 / 7)");
	CHECK_INT(gm_elastic_nr_slices(&s, 7), 1, "one slice");
	gm_elastic_setting_parse("sm", NULL, &s);
	CHECK_INT(gm_elastic_nr_slices(&s, 100), 1, "no slicing");
	gm_elastic_setting_parse("sm", "/4", &s);
	CHECK_INT(gm_elastic_slice_blocks(&s, 100), 25, "a quarter");
	CHECK_INT(gm_elastic_nr_slices(&s, 101), 4, "ceil: still 4 launches");
	CHECK_INT(gm_elastic_nr_slices(&s, 3), 3, "3 blocks: 3 launches");
	gm_elastic_setting_parse("sm", "1000", &s);
	CHECK_INT(gm_elastic_slice_blocks(&s, 100), 100, "slice above the grid");
}

int main(void)
{
	test_parse();
	test_phys();
	test_shape();
	test_slices();
	return test_done();
}
