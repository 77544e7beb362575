/* SPDX-License-Identifier: MIT */
/*
 * Bulk allocator bookkeeping: placement, coalescing, errors, and the
 * property the runtime relies on: a plan in an unbounded chunk places
 * every block where a replay into a chunk of the planned size does.
 */
#include <stdlib.h>

#include "replay/bulk_alloc.h"
#include "error.h"
#include "test.h"

static void test_basic(void)
{
	struct bulk_alloc ba;
	uint64_t a, b, c, d;

	gm_bulk_alloc_init(&ba, 0);
	CHECK_INT(ba.align, 512, "default alignment is 512");
	CHECK_INT(gm_bulk_alloc_get(&ba, 100, &a), 1, "no chunk: no room");
	CHECK_INT(gm_bulk_alloc_add_chunk(&ba, 0x100000, 4096), 0, "add chunk");
	CHECK(gm_bulk_alloc_add_chunk(&ba, 0x100200, 4096) < 0,
	      "overlapping chunk refused");
	gm_error_clear();
	CHECK(gm_bulk_alloc_add_chunk(&ba, 0x200010, 4096) < 0,
	      "misaligned chunk refused");
	gm_error_clear();
	CHECK_INT(gm_bulk_alloc_get(&ba, 1, &a), 0, "get 1 byte");
	CHECK_INT(a, 0x100000, "first block at the chunk base");
	CHECK_INT(gm_bulk_alloc_get(&ba, 513, &b), 0, "get 513 bytes");
	CHECK_INT(b, 0x100200, "rounded to the alignment");
	CHECK_INT(gm_bulk_alloc_get(&ba, 512, &c), 0, "get 512");
	CHECK_INT(c, 0x100600, "next block");
	CHECK_INT(ba.live_bytes, 2048, "live bytes counted rounded");
	CHECK_INT(gm_bulk_alloc_get(&ba, 4096, &d), 1, "too big: no room");
	CHECK_INT(gm_bulk_alloc_put(&ba, b, 513), 0, "put the middle block");
	CHECK(gm_bulk_alloc_put(&ba, b, 513) < 0, "double free detected");
	gm_error_clear();
	CHECK(gm_bulk_alloc_put(&ba, 0x900000, 8) < 0, "foreign block detected");
	gm_error_clear();
	/* Best fit prefers the 1024-byte hole over the end space. */
	CHECK_INT(gm_bulk_alloc_get(&ba, 1000, &d), 0, "fits the hole");
	CHECK_INT(d, b, "hole reused");
	CHECK_INT(gm_bulk_alloc_put(&ba, a, 1), 0, "put a");
	CHECK_INT(gm_bulk_alloc_put(&ba, d, 1000), 0, "put d");
	CHECK_INT(gm_bulk_alloc_put(&ba, c, 512), 0, "put c");
	CHECK_INT(ba.chunks[0].nr_free, 1, "everything coalesced");
	CHECK_INT(ba.chunks[0].free[0].size, 4096, "one free range");
	CHECK_INT(ba.nr_live, 0, "nothing live");
	CHECK_INT(ba.peak_live_bytes, 2048, "peak live bytes");
	CHECK_INT(ba.high_water, 2048, "high water mark");
	gm_bulk_alloc_release(&ba);
}

static void test_best_fit_and_tail(void)
{
	struct bulk_alloc ba;
	uint64_t x[6], y;

	gm_bulk_alloc_init(&ba, 0);
	gm_bulk_alloc_add_chunk(&ba, 0, 1 << 20);
	for (int i = 0; i < 6; i++) {
		gm_bulk_alloc_get(&ba, 512 * (i % 2 ? 1 : 3), &x[i]);
	}
	/* holes: 3 units at x[0], 1 unit at x[3] after freeing them */
	gm_bulk_alloc_put(&ba, x[0], 1536);
	gm_bulk_alloc_put(&ba, x[3], 512);
	CHECK_INT(gm_bulk_alloc_get(&ba, 512, &y), 0, "small request");
	CHECK_INT(y, x[3], "best fit takes the smallest hole");
	CHECK_INT(gm_bulk_alloc_get(&ba, 1024, &y), 0, "medium request");
	CHECK_INT(y, x[0], "then the larger hole");
	CHECK_INT(gm_bulk_alloc_get(&ba, 4096, &y), 0, "large request");
	CHECK_INT(y, x[5] + 512, "end space only when no hole fits");
	gm_bulk_alloc_reset(&ba);
	CHECK_INT(ba.chunks[0].nr_free, 1, "reset frees everything");
	CHECK_INT(gm_bulk_alloc_get(&ba, 10, &y), 0, "get after reset");
	CHECK_INT(y, 0, "from the base again");
	gm_bulk_alloc_release(&ba);
}

/* A pseudo-random get/put sequence, replayed into plan and real chunk. */
static void test_plan_matches_replay(void)
{
	enum { N = 400, LIVE = 40 };
	struct bulk_alloc plan, real;
	uint64_t pa[LIVE] = { 0 }, ps[LIVE] = { 0 }, ra[LIVE] = { 0 };
	uint64_t seq_size[N];
	int seq_slot[N];
	unsigned seed = 12345;
	int same = 1;

	for (int i = 0; i < N; i++) {
		seed = seed * 1103515245u + 12345u;
		seq_slot[i] = (seed >> 8) % LIVE;
		seq_size[i] = ((seed >> 16) % 100000) + 1;
	}
	gm_bulk_alloc_plan_init(&plan, 0);
	for (int i = 0; i < N; i++) {
		int s = seq_slot[i];
		if (ps[s]) {
			gm_bulk_alloc_put(&plan, pa[s], ps[s]);
			ps[s] = 0;
		} else {
			gm_bulk_alloc_get(&plan, seq_size[i], &pa[s]);
			ps[s] = seq_size[i];
		}
	}
	CHECK(plan.high_water >= plan.peak_live_bytes,
	      "planned size covers the peak");

	gm_bulk_alloc_init(&real, 0);
	gm_bulk_alloc_add_chunk(&real, 0x7f0000000000ull, plan.high_water);
	memset(ps, 0, sizeof(ps));
	for (int i = 0; i < N; i++) {
		int s = seq_slot[i];
		if (ps[s]) {
			gm_bulk_alloc_put(&real, ra[s], ps[s]);
			ps[s] = 0;
		} else {
			if (gm_bulk_alloc_get(&real, seq_size[i], &ra[s])) {
				same = 0;
				break;
			}
			ps[s] = seq_size[i];
		}
	}
	CHECK(same, "a chunk of the planned size is never too small");
	gm_bulk_alloc_release(&real);

	/* Placement identical: replay both again side by side. */
	gm_bulk_alloc_release(&plan);
	gm_bulk_alloc_plan_init(&plan, 0);
	gm_bulk_alloc_init(&real, 0);
	memset(ps, 0, sizeof(ps));
	{
		struct bulk_alloc sizing;
		uint64_t sa[LIVE] = { 0 }, ss[LIVE] = { 0 };
		gm_bulk_alloc_plan_init(&sizing, 0);
		for (int i = 0; i < N; i++) {
			int s = seq_slot[i];
			if (ss[s]) {
				gm_bulk_alloc_put(&sizing, sa[s], ss[s]);
				ss[s] = 0;
			} else {
				gm_bulk_alloc_get(&sizing, seq_size[i], &sa[s]);
				ss[s] = seq_size[i];
			}
		}
		gm_bulk_alloc_add_chunk(&real, 1ull << 40, sizing.high_water);
		gm_bulk_alloc_release(&sizing);
	}
	for (int i = 0; i < N && same; i++) {
		int s = seq_slot[i];
		if (ps[s]) {
			gm_bulk_alloc_put(&plan, pa[s], ps[s]);
			gm_bulk_alloc_put(&real, ra[s], ps[s]);
			ps[s] = 0;
		} else {
			gm_bulk_alloc_get(&plan, seq_size[i], &pa[s]);
			gm_bulk_alloc_get(&real, seq_size[i], &ra[s]);
			ps[s] = seq_size[i];
			if (ra[s] - (1ull << 40) != pa[s]) {
				same = 0;
			}
		}
	}
	CHECK(same, "plan and replay place every block at the same offset");
	gm_bulk_alloc_release(&plan);
	gm_bulk_alloc_release(&real);
}

/*
 * Sizes near 2^64 (a damaged or forged trace): rounding them up to the
 * alignment wrapped to a small block, so that the allocator handed out
 * a few hundred bytes for an 18-exabyte request.
 */
static void test_huge_sizes(void)
{
	struct bulk_alloc ba, plan;
	uint64_t a = 0;

	gm_bulk_alloc_init(&ba, 0);
	CHECK_INT(gm_bulk_alloc_round(&ba, UINT64_MAX), 0,
		  "2^64 - 1 bytes: no rounded size (0)");
	CHECK_INT(gm_bulk_alloc_round(&ba, UINT64_MAX - 510), 0,
		  "... nor 2^64 - 511");
	CHECK(gm_bulk_alloc_round(&ba, UINT64_MAX - 511) == UINT64_MAX - 511,
	      "2^64 - 512 rounds to itself");
	CHECK_INT(gm_bulk_alloc_add_chunk(&ba, 0x100000, 1 << 20), 0, "a chunk");
	CHECK_INT(gm_bulk_alloc_get(&ba, UINT64_MAX, &a), 1,
		  "2^64 - 1 bytes: no room (not a small block)");
	CHECK_INT(ba.live_bytes, 0, "... nothing allocated");
	CHECK(gm_bulk_alloc_put(&ba, 0x100000, UINT64_MAX) < 0,
	      "putting back 2^64 - 1 bytes is refused");
	gm_error_clear();
	CHECK(gm_bulk_alloc_put(&ba, 0x100000, UINT64_MAX - 600) < 0,
	      "... and a block past the chunk's end (no wrap-around)");
	gm_error_clear();
	gm_bulk_alloc_release(&ba);
	gm_bulk_alloc_plan_init(&plan, 0);
	CHECK_INT(gm_bulk_alloc_get(&plan, UINT64_MAX - 1000, &a), 1,
		  "the plan has no room either");
	CHECK_INT(plan.high_water, 0, "... and plans nothing");
	gm_bulk_alloc_release(&plan);
}

int main(void)
{
	test_basic();
	test_best_fit_and_tail();
	test_plan_matches_replay();
	test_huge_sizes();
	return test_done();
}
