/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for common/cliff_map.c, the cliff-aware limit of the
 * `mpmax-cliff` policy, on hand-made maps at each boundary: a limit on
 * a cliff's slow side (its slower point included, the next point
 * excluded) moves to the nearest point at or above the faster side that
 * fits; a jump at the threshold exactly is no cliff, just above it is;
 * a fast side that does not fit keeps the limit; a cliff where more
 * blocks are slower moves the limit down; a chain of cliffs is followed
 * to its end; the map read from a sweep's points (the blocks axis first,
 * else smem, the fastest point per residency).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cliff_map.h"
#include "error.h"
#include "test.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

static void test_fewer_is_slower(void)
{
	/* MST-like: 1 block per SM 50% slower than 2, then flat */
	struct gm_cliff_map m = { 0 };
	int bps[] = { 4, 1, 2 };
	double ms[] = { 10, 15, 10 };
	const struct gm_cliff_curve *c;

	gm_cliff_map_add(&m, "mst", bps, ms, N(bps));
	c = gm_cliff_map_find(&m, "mst");
	CHECK(c && c->nr == 3 && c->bps[0] == 1 && c->bps[2] == 4,
	      "points sorted by residency");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 1, 32), 2,
		  "1 (the slower point) moves to 2 (the faster)");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 2, 32), 2, "2 stays: fast side");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 3, 32), 3,
		  "3 stays: between points, no cliff");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 4, 32), 4, "4 stays");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 1, 1), 1,
		  "1 stays when 2 does not fit");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 1, 2), 2, "fits at exactly 2");
	CHECK_INT(gm_cliff_adjust(c, 0.5, 1, 32), 1,
		  "a jump of exactly the threshold (50%) is no cliff");
	CHECK_INT(gm_cliff_adjust(c, 0.49, 1, 32), 2, "just above it is");
	CHECK_INT(gm_cliff_adjust(NULL, 0.2, 1, 32), 1, "no curve: no move");
	gm_cliff_map_release(&m);
}

static void test_slow_side_span(void)
{
	/* points 2 and 6: 2 is twice as slow; 3..5 lie on its side */
	struct gm_cliff_map m = { 0 };
	int bps[] = { 2, 6, 8 };
	double ms[] = { 20, 10, 10 };
	const struct gm_cliff_curve *c;

	gm_cliff_map_add(&m, "k", bps, ms, N(bps));
	c = gm_cliff_map_find(&m, "k");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 1, 32), 1,
		  "below the slower point: not on the cliff");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 5, 32), 6, "5 (slow side) -> 6");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 6, 32), 6, "6 (the next point) stays");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 3, 7), 6, "fits under 7: 6");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 3, 5), 3, "nothing fits under 5: 3");
	gm_cliff_map_release(&m);
}

static void test_more_is_slower(void)
{
	/* cache thrashing: 3 per SM 40% slower than 2 */
	struct gm_cliff_map m = { 0 };
	int bps[] = { 1, 2, 3, 4 };
	double ms[] = { 10, 10, 14, 14 };
	const struct gm_cliff_curve *c;

	gm_cliff_map_add(&m, "t", bps, ms, N(bps));
	c = gm_cliff_map_find(&m, "t");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 3, 32), 2, "3 moves down to 2");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 4, 32), 4,
		  "4 stays: 3 -> 4 is no cliff");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 2, 32), 2, "2 stays");
	gm_cliff_map_release(&m);
}

static void test_chain(void)
{
	/* 1 slower than 2, 2 slower than 3: 1 goes to 3 */
	struct gm_cliff_map m = { 0 };
	int bps[] = { 1, 2, 3 };
	double ms[] = { 40, 20, 10 };
	const struct gm_cliff_curve *c;

	gm_cliff_map_add(&m, "c", bps, ms, N(bps));
	c = gm_cliff_map_find(&m, "c");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 1, 32), 3, "a chain followed to 3");
	CHECK_INT(gm_cliff_adjust(c, 0.2, 1, 2), 2, "to 2 when 3 does not fit");
	gm_cliff_map_release(&m);
}

static void test_read(void)
{
	char path[] = "/tmp/gm-cliff-XXXXXX";
	int fd = mkstemp(path);
	FILE *f = fdopen(fd, "w");
	struct gm_cliff_map m;
	const struct gm_cliff_curve *c;

	fprintf(f, "program,kernel,axis,value,time_ms,blocks_per_sm,limiting\n"
		"p,a,smem,0,10,2,threads\np,a,smem,100,15,1,shared-memory\n"
		"p,a,blocks,1,30,1,elastic-grid\np,a,blocks,2,10,2,elastic-grid\n"
		"p,b,smem,0,10,2,threads\np,b,smem,100,15,1,shared-memory\n"
		"p,b,regs,32,9,2,registers\n");
	fclose(f);
	CHECK_INT(gm_cliff_map_read(&m, path, 0.2), 0, "a points file reads");
	c = gm_cliff_map_find(&m, "a");
	CHECK(c && c->nr == 2 && c->ms[0] == 30, "a: its blocks axis");
	c = gm_cliff_map_find(&m, "b");
	CHECK(c && c->nr == 2 && c->ms[0] == 15 && c->ms[1] == 10,
	      "b: no blocks axis, its smem axis");
	CHECK_INT(gm_cliff_adjust(c, m.threshold, 1, 32), 2, "b: 1 -> 2");
	gm_cliff_map_release(&m);
	f = fopen(path, "w");
	fprintf(f, "program,kernel,axis,value,time_ms,blocks_per_sm,limiting\n"
		"p,a,smem,0,-1,2,threads\n");
	fclose(f);
	CHECK_INT(gm_cliff_map_read(&m, path, 0.2), -1, "a bad line fails");
	CHECK(strstr(gm_error_message(), "cliff map") != NULL,
	      "naming the map");
	gm_error_clear();
	gm_cliff_map_release(&m);
	unlink(path);
}

int main(void)
{
	test_fewer_is_slower();
	test_slow_side_span();
	test_more_is_slower();
	test_chain();
	test_read();
	return test_done();
}
