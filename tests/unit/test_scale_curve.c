/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for analyze/scale_curve.c: the knee of an SM-scalability
 * curve (the smallest SM count within 5% of the time on the most SMs),
 * point order, and the CSV, knee and Markdown tables.
 */
#include <stdlib.h>

#include "analyze/scale_curve.h"
#include "test.h"

static void test_knee(void)
{
	struct gm_scale s = GM_SCALE_INIT;
	unsigned knee;
	double full;

	/* Added out of order, as the runs come (whole GPU first). */
	gm_scale_add_point(&s, "bfs", NULL, 132, 10.0);
	gm_scale_add_point(&s, "bfs", NULL, 8, 80.0);
	gm_scale_add_point(&s, "bfs", NULL, 64, 10.4);
	gm_scale_add_point(&s, "bfs", NULL, 32, 10.6);
	gm_scale_add_point(&s, "bfs", "k", 132, 2.0);
	gm_scale_add_point(&s, "bfs", "k", 8, 2.0);
	gm_scale_sort(&s);
	CHECK_INT(s.nr, 2, "a program curve and a kernel curve");
	CHECK_INT(s.curves[0].pts[0].sms, 8, "points sorted by SMs");
	CHECK_INT(gm_scale_knee(&s.curves[0], 0.05, &knee, &full), 0, "a knee");
	CHECK_INT(knee, 64, "the smallest SMs within 5% of the whole GPU "
		  "(10.6 ms is 6% more)");
	CHECK_NEAR(full, 10.0, 1e-9, "the time on the most SMs");
	gm_scale_knee(&s.curves[0], 0.07, &knee, &full);
	CHECK_INT(knee, 32, "a wider tolerance moves it down");
	gm_scale_knee(&s.curves[1], 0.05, &knee, &full);
	CHECK_INT(knee, 8, "a flat curve's knee is its smallest partition");

	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	gm_scale_write(&s, NULL, f, NULL);
	fclose(f);
	CHECK_STR(buf, "program,kernel,knee_sms,full_sms,full_ms\n"
		  "bfs,,64,132,10.000000\nbfs,k,8,132,2.000000\n",
		  "knees.csv");
	free(buf);
	f = open_memstream(&buf, &len);
	gm_scale_write(&s, f, NULL, NULL);
	fclose(f);
	CHECK(strstr(buf, "bfs,,8,80.000000,1.0000,1.0000,8.0000\n") != NULL,
	      "scale.csv: the smallest partition is the speedup's base");
	CHECK(strstr(buf, "bfs,,64,10.400000,7.6923,0.9615,1.0400\n") != NULL,
	      "scale.csv: speedup, efficiency per SM added, share of full");
	free(buf);
	f = open_memstream(&buf, &len);
	gm_scale_write(&s, NULL, NULL, f);
	fclose(f);
	CHECK(strstr(buf, "| curve | 8 | 32 | 64 | 132 | knee (SMs) |") != NULL,
	      "scale.md: a column per SM count");
	CHECK(strstr(buf, "| k | 2.000 | | | 2.000 | 8 |") != NULL,
	      "scale.md: a kernel row, empty where it has no point");
	free(buf);
	gm_scale_release(&s);
}

int main(void)
{
	test_knee();
	return test_done();
}
