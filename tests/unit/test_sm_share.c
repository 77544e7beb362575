/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for common/sm_share.c: the green variant's SM share syntax
 * and the partition arithmetic (granularity, rounding, the remainder,
 * shares that do not fit).
 */
#include <stdlib.h>
#include <unistd.h>

#include "error.h"
#include "sm_share.h"
#include "test.h"

static void test_parse(void)
{
	struct gm_sm_share s = GM_SM_SHARE_INIT;
	char *f;

	CHECK_INT(gm_sm_share_parse(&s, "bfs=50%,lbm=32,sad=12.5%"), 0,
		  "a list of counts and percentages parses");
	CHECK_INT(s.nr, 3, "three items");
	CHECK(s.items[0].percent && s.items[0].value == 50, "50% is a percentage");
	CHECK(!s.items[1].percent && s.items[1].value == 32, "32 is a count");
	f = gm_sm_share_format(&s);
	CHECK_STR(f, "bfs=50%,lbm=32,sad=12.5%", "format gives the list back");
	free(f);
	CHECK(gm_sm_share_find(&s, "lbm") == &s.items[1], "find by program");
	CHECK(gm_sm_share_find(&s, "mm") == NULL, "no share for another");

	static const struct {
		const char *spec, *msg;
	} bad[] = {
		{ "", "empty" },
		{ "bfs", "is not PROGRAM=SMS" },
		{ "=4", "is not PROGRAM=SMS" },
		{ "bfs=", "is not PROGRAM=SMS" },
		{ "bfs=0", "whole number of SMs" },
		{ "bfs=2.5", "whole number of SMs" },
		{ "bfs=101%", "up to 100%" },
		{ "bfs=-3", "whole number" },
		{ "bfs=x", "whole number" },
		{ "bfs=8,,lbm=8", "is not PROGRAM=SMS" },
		{ "bfs=8,bfs=16", "'bfs' is named twice" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		gm_error_clear();
		CHECK_INT(gm_sm_share_parse(&s, bad[i].spec), -1, bad[i].spec);
		CHECK(strstr(gm_error_message(), bad[i].msg) != NULL,
		      "the error names the problem");
		CHECK_INT(s.nr, 0, "nothing half-parsed");
	}
	gm_error_clear();
	gm_sm_share_release(&s);
}

static void test_partition(void)
{
	struct gm_sm_share s = GM_SM_SHARE_INIT;
	const char *two[] = { "bfs", "lbm" }, *three[] = { "bfs", "lbm", "sad" };
	unsigned g[3];

	/* H100: 132 SMs split into 16 groups of 8 and a remainder of 4. */
	CHECK_INT(gm_sm_partition(NULL, two, 2, 16, 8, 132, g), 0,
		  "equal shares by default");
	CHECK(g[0] == 8 && g[1] == 8, "two programs: 8 groups (64 SMs) each");
	CHECK_INT(gm_sm_partition(NULL, three, 3, 16, 8, 132, g), 0,
		  "three programs");
	CHECK(g[0] == 5 && g[1] == 5 && g[2] == 5,
	      "what does not divide stays unused: 5 groups each");
	/* Another granularity: 12 groups of 16 on a 200-SM device. */
	CHECK_INT(gm_sm_partition(NULL, two, 2, 12, 16, 200, g), 0,
		  "granularity 16");
	CHECK(g[0] == 6 && g[1] == 6, "6 groups of 16 each");

	gm_sm_share_parse(&s, "bfs=25%");
	CHECK_INT(gm_sm_partition(&s, two, 2, 16, 8, 132, g), 0, "a percentage");
	CHECK(g[0] == 4 && g[1] == 12,
	      "25% of 132 = 33 SMs: nearest is 4 groups; the other gets the rest");
	gm_sm_share_parse(&s, "bfs=50%,lbm=50%");
	CHECK_INT(gm_sm_partition(&s, two, 2, 16, 8, 132, g), 0,
		  "50% + 50% of 132 fits in 16 groups of 8");
	CHECK(g[0] == 8 && g[1] == 8, "66 SMs round to 8 groups each");
	gm_sm_share_parse(&s, "bfs=60,lbm=3");
	CHECK_INT(gm_sm_partition(&s, two, 2, 16, 8, 132, g), 0, "counts");
	CHECK(g[0] == 8 && g[1] == 1,
	      "60 SMs round to 64; 3 SMs get the smallest partition");
	gm_sm_share_parse(&s, "bfs=12");
	CHECK_INT(gm_sm_partition(&s, two, 2, 16, 8, 132, g), 0, "a half");
	CHECK(g[0] == 2, "12 SMs are 1.5 groups: halves round up");
	gm_sm_share_parse(&s, "mm=100%,bfs=16");
	CHECK_INT(gm_sm_partition(&s, two, 2, 16, 8, 132, g), 0,
		  "a share of a program not in the workload is ignored");
	CHECK(g[0] == 2 && g[1] == 14, "the other gets the rest");

	{
		/* N copies of one program (common/instance_name.h). */
		const char *copies[] = { "lbm#1", "lbm#2", "lbm#3", "mm" };
		unsigned h[4];
		CHECK_INT(gm_sm_partition(NULL, copies, 4, 16, 8, 132, h), 0,
			  "four instances, no shares");
		CHECK(h[0] == 4 && h[1] == 4 && h[2] == 4 && h[3] == 4,
		      "N partitions: 4 groups each");
		gm_sm_share_parse(&s, "lbm=16");
		CHECK_INT(gm_sm_partition(&s, copies, 4, 16, 8, 132, h), 0,
			  "a program's share reaches its copies");
		CHECK(h[0] == 2 && h[1] == 2 && h[2] == 2 && h[3] == 10,
		      "each copy of lbm 16 SMs, mm the rest");
		gm_sm_share_parse(&s, "lbm=16,lbm#2=32");
		CHECK_INT(gm_sm_partition(&s, copies, 4, 16, 8, 132, h), 0,
			  "a copy named exactly");
		CHECK(h[0] == 2 && h[1] == 4 && h[2] == 2,
		      "the exact name wins over the program's");
	}

	gm_error_clear();
	gm_sm_share_parse(&s, "bfs=72,lbm=64");
	CHECK_INT(gm_sm_partition(&s, two, 2, 16, 8, 132, g), -1,
		  "shares that do not fit fail");
	CHECK_STR(gm_error_message(),
		  "the SM shares do not fit: 'bfs' 72 + 'lbm' 64 SMs, but the "
		  "device has 16 partitions of 8 SMs (132 SMs, 4 of them in "
		  "the remainder)", "the error gives the sizes");
	gm_error_clear();
	gm_sm_share_parse(&s, "bfs=100%");
	CHECK_INT(gm_sm_partition(&s, two, 2, 16, 8, 132, g), -1,
		  "no room left for the program without a share");
	CHECK(strstr(gm_error_message(), "1 other program at least 8 each"),
	      "the error counts the programs left without SMs");
	gm_error_clear();
	CHECK_INT(gm_sm_partition(NULL, three, 3, 2, 8, 16, g), -1,
		  "more programs than partitions fail");
	CHECK(strstr(gm_error_message(), "3 other programs at least 8 each"),
	      "and say so");
	gm_error_clear();
	CHECK_INT(gm_sm_partition(NULL, two, 2, 0, 8, 4, g), -1,
		  "a device too small to split fails");
	gm_error_clear();
	gm_sm_share_release(&s);
}

static void test_scaled(void)
{
	unsigned want[3], g[3];

	want[0] = 16;
	want[1] = 20;
	CHECK_INT(gm_sm_partition_scaled(want, 2, 16, 8, g), 0, "knees that fit");
	CHECK(g[0] == 2 && g[1] == 3,
	      "each gets the whole groups that hold its knee (16 -> 2, 20 -> 3)");
	want[0] = 96;
	want[1] = 64;
	CHECK_INT(gm_sm_partition_scaled(want, 2, 16, 8, g), 0,
		  "knees that do not fit");
	CHECK(g[0] == 9 && g[1] == 6,
	      "shrunk in proportion: 12 and 8 groups of 20 become 9 and 6 of 16");
	want[0] = 128;
	want[1] = 8;
	want[2] = 8;
	CHECK_INT(gm_sm_partition_scaled(want, 3, 4, 8, g), 0,
		  "shrinking keeps one group each");
	CHECK(g[0] == 2 && g[1] == 1 && g[2] == 1,
	      "the largest gives up groups until they fit");
	want[0] = 0;
	CHECK_INT(gm_sm_partition_scaled(want, 1, 16, 8, g), 0, "a knee of 0");
	CHECK_INT(g[0], 1, "still one group");
	gm_error_clear();
	CHECK_INT(gm_sm_partition_scaled(want, 3, 2, 8, g), -1,
		  "more programs than groups fail");
	gm_error_clear();
}

static void test_knees(void)
{
	char path[] = "/tmp/gm-knees-XXXXXX";
	int fd = mkstemp(path);
	const char *names[] = { "bfs", "lbm" };
	unsigned knee[2] = { 0, 0 };
	FILE *f = fdopen(fd, "w");

	fputs("program,kernel,knee_sms,full_sms,full_ms\n"
	      "bfs,,32,132,10.5\nbfs,_Z1kv,16,132,2.0\n"
	      "lbm,,128,132,100.25\n", f);
	fclose(f);
	CHECK_INT(gm_sm_knees_read(path, names, 2, 132, knee), 0,
		  "a knees file of gpumix scale");
	CHECK(knee[0] == 32 && knee[1] == 128, "the programs' knees, not the kernels'");
	gm_error_clear();
	CHECK_INT(gm_sm_knees_read(path, names, 2, 114, knee), -1,
		  "another GPU's curves are refused");
	CHECK(strstr(gm_error_message(), "was measured on a GPU of 132 SMs, "
		     "this one has 114"), "  saying so");
	gm_error_clear();
	names[1] = "sad";
	CHECK_INT(gm_sm_knees_read(path, names, 2, 132, knee), -1,
		  "a program without a curve is refused");
	CHECK(strstr(gm_error_message(), "has no curve of program 'sad'"),
	      "  naming it");
	gm_error_clear();
	f = fopen(path, "w");
	fputs("program,kernel,knee_sms,full_sms,full_ms\nbfs,,x,132,1\n", f);
	fclose(f);
	CHECK_INT(gm_sm_knees_read(path, names, 1, 132, knee), -1,
		  "a malformed line is refused");
	CHECK(strstr(gm_error_message(), ":2: malformed line"), "  with its line");
	gm_error_clear();
	f = fopen(path, "w");
	fputs("a,b\n", f);
	fclose(f);
	CHECK_INT(gm_sm_knees_read(path, names, 1, 132, knee), -1,
		  "another CSV is refused");
	gm_error_clear();
	unlink(path);
}

int main(void)
{
	test_parse();
	test_partition();
	test_scaled();
	test_knees();
	return test_done();
}
