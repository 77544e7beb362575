/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the nss dependency tracker (replay/dep_tracker.c): the
 * rules on hand-made cases (one stream, independent streams, events,
 * stream waits, an event never recorded, the legacy stream against
 * blocking and non-blocking streams, readiness on the same queue), and
 * adversarial random programs run by a random device: every command
 * must only complete after everything the captured program ordered
 * before it (checked against a reference that keeps whole transitive
 * sets), syncs must only return when what they wait for is complete,
 * and no schedule may deadlock.
 */
#include <stdlib.h>
#include <string.h>

#include "replay/dep_tracker.h"
#include "strbuf.h"
#include "test.h"

static int has(const struct gm_dep_set *s, uint64_t seq)
{
	for (uint32_t i = 0; i < s->nr; i++) {
		if (s->seq[i] == seq) {
			return 1;
		}
	}
	return 0;
}

static void test_rules(void)
{
	struct gm_dep_tracker t;
	struct gm_dep_set d = { 0 };
	uint8_t blocking[4] = { 0, 1, 0, 1 };	/* 1 and 3 are blocking */
	uint64_t a, b, c, k, x;

	gm_dep_init(&t, 4, blocking, 2);

	/* Same stream: in order. */
	a = gm_dep_add(&t, 2, GM_DEP_MEM, &d);
	CHECK_INT(d.nr, 0, "first command: no dependency");
	b = gm_dep_add(&t, 2, GM_DEP_KERNEL, &d);
	CHECK(d.nr == 1 && has(&d, a), "kernel after a copy on its stream");
	CHECK(!gm_dep_ready(&t, &d, GM_DEP_KERNEL), "not ready while it waits");
	gm_dep_issued(&t, a);
	CHECK(!gm_dep_ready(&t, &d, GM_DEP_KERNEL),
	      "an issued copy does not free a kernel (other queue)");
	CHECK(gm_dep_ready(&t, &d, GM_DEP_MEM),
	      "but would free a copy (same queue keeps order)");
	gm_dep_done(&t, a);
	CHECK(gm_dep_ready(&t, &d, GM_DEP_KERNEL), "ready once the copy is done");
	CHECK_INT(gm_dep_state_of(&t, a), GM_DEP_DONE, "the copy is done");

	/* Independent non-blocking stream 2 vs legacy stream 0. */
	c = gm_dep_add(&t, 0, GM_DEP_KERNEL, &d);
	CHECK(!has(&d, b), "the legacy stream does not wait for a "
	      "non-blocking stream");

	/* Blocking stream 1 waits for the legacy stream... */
	x = gm_dep_add(&t, 1, GM_DEP_MEM, &d);
	CHECK(has(&d, c), "a blocking stream follows the legacy stream");
	/* ...and the legacy stream waits for every blocking stream. */
	k = gm_dep_add(&t, 3, GM_DEP_MEM, &d);
	CHECK(has(&d, c) && !has(&d, x),
	      "two blocking streams do not wait for each other");
	uint64_t l = gm_dep_add(&t, 0, GM_DEP_MEM, &d);
	CHECK(has(&d, x) && has(&d, k) && has(&d, c),
	      "the legacy stream follows both blocking streams");

	/* Events: record on 2, wait on 3. */
	gm_dep_record(&t, 2, 0);
	CHECK(has(gm_dep_event(&t, 0), b), "the event stands for the kernel");
	gm_dep_wait(&t, 3, 1);	/* never recorded */
	uint64_t m = gm_dep_add(&t, 3, GM_DEP_KERNEL, &d);
	CHECK(!has(&d, b), "waiting on an event never recorded waits for "
	      "nothing");
	gm_dep_wait(&t, 3, 0);
	uint64_t n = gm_dep_add(&t, 3, GM_DEP_KERNEL, &d);
	CHECK(has(&d, b) && has(&d, m), "a stream wait adds the event");
	/* Stream 2 moved on after the record: the event does not follow. */
	uint64_t o = gm_dep_add(&t, 2, GM_DEP_MEM, &d);
	CHECK(has(gm_dep_event(&t, 0), b) && !has(gm_dep_event(&t, 0), o),
	      "an event keeps what it was recorded after");
	CHECK(has(gm_dep_stream(&t, 0), l) && has(gm_dep_stream(&t, 0), n),
	      "a legacy-stream sync waits for the blocking streams too");

	/* Completion retires the prefix. */
	for (uint64_t q = 0; q <= o; q++) {
		gm_dep_issued(&t, q);
		gm_dep_done(&t, q);
	}
	CHECK(gm_dep_idle(&t), "idle when every command is done");
	gm_dep_reset(&t);
	gm_dep_add(&t, 3, GM_DEP_MEM, &d);
	CHECK_INT(d.nr, 0, "a reset forgets the streams");
	gm_dep_set_release(&d);
	gm_dep_release(&t);
}

/* ---- random programs against a reference ---- */

#define MAXOPS 400
#define WORDS (MAXOPS / 64 + 1)

struct bits {
	uint64_t w[WORDS];
};

static void bset(struct bits *b, int i)
{
	b->w[i / 64] |= UINT64_C(1) << (i % 64);
}

static void bor(struct bits *a, const struct bits *b)
{
	for (int i = 0; i < WORDS; i++) {
		a->w[i] |= b->w[i];
	}
}

/* 1 when every member of @need is in @have. */
static int bsub(const struct bits *need, const struct bits *have)
{
	for (int i = 0; i < WORDS; i++) {
		if (need->w[i] & ~have->w[i]) {
			return 0;
		}
	}
	return 1;
}

struct ref {
	int nr_streams;
	uint8_t blocking[8];
	struct bits full[8], ev[4];
};

static struct bits ref_for(const struct ref *r, int s)
{
	struct bits b = r->full[s];

	if (s == 0) {
		for (int x = 1; x < r->nr_streams; x++) {
			if (r->blocking[x]) {
				bor(&b, &r->full[x]);
			}
		}
	} else if (r->blocking[s]) {
		bor(&b, &r->full[0]);
	}
	return b;
}

struct sim {
	struct gm_dep_tracker t;
	struct ref r;
	struct bits need[MAXOPS];	/* reference predecessors */
	struct gm_dep_set deps[MAXOPS];
	int queue[MAXOPS];
	int state[MAXOPS];		/* 0 queued, 1 issued, 2 done */
	struct bits done;
	int fifo[2][MAXOPS], head[2], tail[2];
	int nr, bad_order, bad_sync;
};

/* One step of the device or the dispatcher; 0 when nothing could move. */
static int step(struct sim *m, unsigned *seed)
{
	int choice = rand_r(seed) % 3;

	for (int tries = 0; tries < 3; tries++, choice = (choice + 1) % 3) {
		if (choice < 2) {
			/* Complete the head of a device queue. */
			int q = choice;
			if (m->head[q] == m->tail[q]) {
				continue;
			}
			int i = m->fifo[q][m->head[q]++];
			if (!bsub(&m->need[i], &m->done)) {
				m->bad_order++;
			}
			bset(&m->done, i);
			m->state[i] = 2;
			gm_dep_done(&m->t, (uint64_t)i);
			return 1;
		}
		/* Issue a random ready command (dispatchers may reorder). */
		int cand[MAXOPS], nc = 0;
		for (int i = 0; i < m->nr; i++) {
			if (m->state[i] == 0 &&
			    gm_dep_ready(&m->t, &m->deps[i], m->queue[i])) {
				cand[nc++] = i;
			}
		}
		if (!nc) {
			continue;
		}
		int i = cand[rand_r(seed) % nc];
		m->state[i] = 1;
		gm_dep_issued(&m->t, (uint64_t)i);
		m->fifo[m->queue[i]][m->tail[m->queue[i]]++] = i;
		return 1;
	}
	return 0;
}

/* Run until @set (tracker) is done; check the reference @want. */
static int sync_on(struct sim *m, unsigned *seed, const struct bits *want,
		   int (*met)(struct sim *, const void *), const void *arg)
{
	while (!met(m, arg)) {
		if (!step(m, seed)) {
			return -1;	/* deadlock */
		}
	}
	if (!bsub(want, &m->done)) {
		m->bad_sync++;
	}
	return 0;
}

static int set_met(struct sim *m, const void *arg)
{
	return gm_dep_all_done(&m->t, arg);
}

static int idle_met(struct sim *m, const void *arg)
{
	(void)arg;
	return gm_dep_idle(&m->t);
}

static int run_random(unsigned seed, int *bad_order, int *bad_sync)
{
	struct sim *m = calloc(1, sizeof(*m));
	int nr_streams = 2 + (int)(seed % 5), nr_events = 3, ret = 0;
	struct gm_dep_set copy = { 0 };

	m->r.nr_streams = nr_streams;
	for (int s = 1; s < nr_streams; s++) {
		m->r.blocking[s] = rand_r(&seed) % 2;
	}
	gm_dep_init(&m->t, (uint32_t)nr_streams, m->r.blocking,
		    (uint32_t)nr_events);
	for (int op = 0; op < 300 && !ret; op++) {
		int s = rand_r(&seed) % nr_streams;
		int e = rand_r(&seed) % nr_events;
		int kind = rand_r(&seed) % 10;
		if (kind < 6) {
			int i = m->nr++;
			m->queue[i] = rand_r(&seed) % 2;
			m->need[i] = ref_for(&m->r, s);
			m->r.full[s] = m->need[i];
			bset(&m->r.full[s], i);
			if (gm_dep_add(&m->t, (uint32_t)s, m->queue[i],
				       &m->deps[i]) != (uint64_t)i) {
				ret = -1;
			}
		} else if (kind == 6) {
			m->r.ev[e] = ref_for(&m->r, s);
			gm_dep_record(&m->t, (uint32_t)s, (uint32_t)e);
		} else if (kind == 7) {
			bor(&m->r.full[s], &m->r.ev[e]);
			gm_dep_wait(&m->t, (uint32_t)s, (uint32_t)e);
		} else if (kind == 8) {
			struct bits want = ref_for(&m->r, s);
			const struct gm_dep_set *w = gm_dep_stream(&m->t, (uint32_t)s);
			copy.nr = 0;
			for (uint32_t i = 0; i < w->nr; i++) {
				GM_ALLOC_GROW(copy.seq, copy.nr + 1, copy.alloc);
				copy.seq[copy.nr++] = w->seq[i];
			}
			ret = sync_on(m, &seed, &want, set_met, &copy);
		} else {
			ret = sync_on(m, &seed, &m->r.ev[e], set_met,
				      gm_dep_event(&m->t, (uint32_t)e));
		}
		/* The dispatcher and the device move on a little. */
		for (int k = rand_r(&seed) % 4; k > 0; k--) {
			step(m, &seed);
		}
	}
	if (!ret) {
		struct bits all = { { 0 } };
		for (int i = 0; i < m->nr; i++) {
			bset(&all, i);
		}
		ret = sync_on(m, &seed, &all, idle_met, NULL);
	}
	*bad_order += m->bad_order;
	*bad_sync += m->bad_sync;
	for (int i = 0; i < m->nr; i++) {
		gm_dep_set_release(&m->deps[i]);
	}
	gm_dep_set_release(&copy);
	gm_dep_release(&m->t);
	free(m);
	return ret;
}

static void test_random(void)
{
	int deadlocks = 0, bad_order = 0, bad_sync = 0;

	for (unsigned seed = 1; seed <= 300; seed++) {
		if (run_random(seed, &bad_order, &bad_sync) < 0) {
			deadlocks++;
		}
	}
	CHECK_INT(deadlocks, 0, "300 random programs: no schedule deadlocks");
	CHECK_INT(bad_order, 0, "no command completes before what the "
		  "program ordered before it");
	CHECK_INT(bad_sync, 0, "no synchronize returns early");
}

static void test_growth(void)
{
	struct gm_dep_tracker t;
	struct gm_dep_set d = { 0 };
	uint64_t first = 0, last = 0;

	gm_dep_init(&t, 2, NULL, 0);
	for (int i = 0; i < 1000; i++) {
		last = gm_dep_add(&t, (uint32_t)(i % 2), GM_DEP_KERNEL, &d);
		if (!i) {
			first = last;
		}
	}
	CHECK_INT(gm_dep_state_of(&t, first), GM_DEP_QUEUED,
		  "1000 live commands kept (the ring grew)");
	CHECK(has(&d, last - 2) && d.nr == 1, "and their order");
	for (uint64_t q = first; q <= last; q++) {
		gm_dep_issued(&t, q);
		gm_dep_done(&t, q);
	}
	CHECK(gm_dep_idle(&t), "all retired");
	gm_dep_set_release(&d);
	gm_dep_release(&t);
}

int main(void)
{
	test_rules();
	test_random();
	test_growth();
	return test_done();
}
