/* SPDX-License-Identifier: MIT */
/*
 * The capture library's pending device-to-host copies (capture/tracking.c,
 * linked in): which destinations overlap (contiguous, pitched rows that
 * interleave, 3-D slices), and the rule that a copy into a destination a
 * pending copy has not delivered to the program yet overwrites it (a
 * buffer reused by the rounds of a multi-stream pipeline, or by a
 * synchronous copy), while a copy after the synchronization, or after a
 * host function that saw the result on the same stream, does not.
 */
#include <stdlib.h>

#include "capture/tracking.h"
#include "test.h"

static char buf[1 << 16];

static struct gm_span rows(size_t off, size_t width, size_t height,
			   size_t pitch)
{
	struct gm_span s = { buf + off, width, height, 1, pitch,
			     pitch * height };
	return s;
}

struct seen {
	unsigned n, overwritten;
	uint32_t corr[8];
};

static void done(const struct gm_pending *p, void *ctx)
{
	struct seen *s = ctx;

	if (s->n < 8) {
		s->corr[s->n] = p->corr;
	}
	s->n++;
	s->overwritten |= (unsigned)p->overwritten << p->corr;
}

int main(void)
{
	struct gm_span a = gm_span_bytes(buf, 100), b = gm_span_bytes(buf + 100, 50);
	struct gm_span c = gm_span_bytes(buf + 99, 2), p1, p2, cube, slab;
	struct seen s = { 0 };

	CHECK(!track_spans_overlap(&a, &b), "adjacent runs do not overlap");
	CHECK(track_spans_overlap(&a, &c) && track_spans_overlap(&c, &b),
	      "a run across their border overlaps both");
	/* Two column blocks of one pitched image: rows of 16 bytes at
	 * offsets 0 and 16 of a 64-byte pitch. */
	p1 = rows(0, 16, 10, 64);
	p2 = rows(16, 16, 10, 64);
	CHECK(!track_spans_overlap(&p1, &p2) && !track_spans_overlap(&p2, &p1),
	      "interleaved rows of two pitched copies do not overlap");
	p2 = rows(8, 16, 10, 64);
	CHECK(track_spans_overlap(&p1, &p2), "rows that share bytes overlap");
	c = gm_span_bytes(buf + 64 * 9 + 20, 30);
	CHECK(!track_spans_overlap(&p1, &c),
	      "a run in the gap after the last row does not");
	c = gm_span_bytes(buf + 64 * 9 + 10, 30);
	CHECK(track_spans_overlap(&p1, &c) && track_spans_overlap(&c, &p1),
	      "a run into the last row does");
	cube = (struct gm_span){ buf, 8, 4, 3, 32, 1024 };
	slab = gm_span_bytes(buf + 200, 600);
	CHECK(!track_spans_overlap(&cube, &slab),
	      "a run between two slices of a 3-D copy does not overlap it");
	slab = gm_span_bytes(buf + 2048 + 96, 4);
	CHECK(track_spans_overlap(&cube, &slab), "a run in its third slice does");

	/* The rule: rounds into one buffer before a synchronization. */
	a = gm_span_bytes(buf, 4096);
	b = gm_span_bytes(buf + 4096, 4096);
	CHECK_INT(track_pending_add(44, 1, 0x100, &a, NULL), 0, "round 1, quarter 1");
	CHECK_INT(track_pending_add(44, 2, 0x200, &b, NULL), 0, "round 1, quarter 2");
	CHECK_INT(track_pending_add(44, 3, 0x100, &a, NULL), 0, "round 2, quarter 1");
	CHECK_INT(track_pending_add(44, 4, 0x200, &b, NULL), 0, "round 2, quarter 2");
	track_pending_complete(TRACK_SYNC_ALL, 0, done, &s);
	CHECK_INT(s.n, 4, "a synchronization completes the four copies");
	CHECK_INT(s.overwritten, (1u << 1) | (1u << 2),
		  "the first round's copies were overwritten, not the second's");

	/* After a synchronization the buffer is the program's again. */
	memset(&s, 0, sizeof(s));
	CHECK_INT(track_pending_add(44, 5, 0x100, &a, NULL), 0, "round 3, quarter 1");
	track_pending_complete(TRACK_SYNC_STREAM, 0x100, done, &s);
	CHECK_INT(track_pending_add(44, 6, 0x100, &a, NULL), 0, "round 4, quarter 1");
	track_pending_complete(TRACK_SYNC_ALL, 0, done, &s);
	CHECK_INT(s.n, 2, "each round synchronized on its own");
	CHECK_INT(s.overwritten, 0, "neither was overwritten");

	/* A synchronous copy over a pending one. */
	memset(&s, 0, sizeof(s));
	CHECK_INT(track_pending_add(44, 7, 0x100, &a, NULL), 0, "a pending copy");
	c = gm_span_bytes(buf + 4000, 200);
	track_pending_overwrite(&c, 0);
	track_pending_complete(TRACK_SYNC_ALL, 0, done, &s);
	CHECK_INT(s.overwritten, 1u << 7,
		  "a synchronous copy into part of it overwrote it");

	/* A host function after a copy sees its result before a later copy
	 * on its stream writes: the staging buffer of a pipeline. */
	memset(&s, 0, sizeof(s));
	CHECK_INT(track_pending_add(44, 8, 0x100, &a, NULL), 0, "a pending copy");
	track_pending_watch(0x100, track_position());
	CHECK_INT(track_pending_add(44, 9, 0x100, &a, NULL), 0,
		  "the next copy on the host function's stream");
	track_pending_complete(TRACK_SYNC_ALL, 0, done, &s);
	CHECK_INT(s.overwritten, 0,
		  "neither is overwritten (the function saw the first)");
	memset(&s, 0, sizeof(s));
	CHECK_INT(track_pending_add(44, 10, 0x100, &a, NULL), 0, "a pending copy");
	track_pending_watch(0x100, track_position());
	CHECK_INT(track_pending_add(44, 11, 0x300, &a, NULL), 0,
		  "a copy on another stream, not ordered after the function");
	track_pending_complete(TRACK_SYNC_ALL, 0, done, &s);
	CHECK_INT(s.overwritten, 1u << 10, "it may overwrite the first");
	return test_done();
}
