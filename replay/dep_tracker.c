/* SPDX-License-Identifier: MIT */
/*
 * The nss dependency tracker (see dep_tracker.h).
 */
#include "dep_tracker.h"

#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

#define MIN_CAP 64

static size_t slot(const struct gm_dep_tracker *t, uint64_t seq)
{
	return (size_t)(seq & (t->cap - 1));
}

enum gm_dep_state gm_dep_state_of(const struct gm_dep_tracker *t,
				  uint64_t seq)
{
	if (seq < t->base) {
		return GM_DEP_DONE;
	}
	return (enum gm_dep_state)t->state[slot(t, seq)];
}

static int is_done(const struct gm_dep_tracker *t, uint64_t seq)
{
	return gm_dep_state_of(t, seq) == GM_DEP_DONE;
}

static void set_clear(struct gm_dep_set *s)
{
	s->nr = 0;
}

static void set_add(const struct gm_dep_tracker *t, struct gm_dep_set *s,
		    uint64_t seq)
{
	if (is_done(t, seq)) {
		return;
	}
	for (uint32_t i = 0; i < s->nr; i++) {
		if (s->seq[i] == seq) {
			return;
		}
	}
	GM_ALLOC_GROW(s->seq, s->nr + 1, s->alloc);
	s->seq[s->nr++] = seq;
}

static void set_union(const struct gm_dep_tracker *t, struct gm_dep_set *dst,
		      const struct gm_dep_set *src)
{
	for (uint32_t i = 0; i < src->nr; i++) {
		set_add(t, dst, src->seq[i]);
	}
}

static void set_copy(const struct gm_dep_tracker *t, struct gm_dep_set *dst,
		     const struct gm_dep_set *src)
{
	if (dst == src) {
		return;
	}
	set_clear(dst);
	set_union(t, dst, src);
}

/* Leave out what is done, so the sets stay small. */
static void set_prune(const struct gm_dep_tracker *t, struct gm_dep_set *s)
{
	uint32_t keep = 0;

	for (uint32_t i = 0; i < s->nr; i++) {
		if (!is_done(t, s->seq[i])) {
			s->seq[keep++] = s->seq[i];
		}
	}
	s->nr = keep;
}

void gm_dep_set_release(struct gm_dep_set *set)
{
	free(set->seq);
	memset(set, 0, sizeof(*set));
}

void gm_dep_init(struct gm_dep_tracker *t, uint32_t nr_streams,
		 const uint8_t *blocking, uint32_t nr_events)
{
	memset(t, 0, sizeof(*t));
	t->nr_streams = nr_streams;
	t->nr_events = nr_events;
	t->blocking = gm_xcalloc(nr_streams + 1, 1);
	for (uint32_t s = 1; blocking && s < nr_streams; s++) {
		t->blocking[s] = blocking[s] != 0;
	}
	t->tail = gm_xcalloc(nr_streams + 1, sizeof(*t->tail));
	t->event = gm_xcalloc(nr_events + 1, sizeof(*t->event));
	t->cap = MIN_CAP;
	t->state = gm_xcalloc(t->cap, 1);
	t->queue = gm_xcalloc(t->cap, 1);
}

void gm_dep_release(struct gm_dep_tracker *t)
{
	for (uint32_t s = 0; s < t->nr_streams; s++) {
		gm_dep_set_release(&t->tail[s]);
	}
	for (uint32_t e = 0; e < t->nr_events; e++) {
		gm_dep_set_release(&t->event[e]);
	}
	gm_dep_set_release(&t->scratch);
	free(t->tail);
	free(t->event);
	free(t->blocking);
	free(t->state);
	free(t->queue);
	memset(t, 0, sizeof(*t));
}

void gm_dep_reset(struct gm_dep_tracker *t)
{
	for (uint32_t s = 0; s < t->nr_streams; s++) {
		set_clear(&t->tail[s]);
	}
	for (uint32_t e = 0; e < t->nr_events; e++) {
		set_clear(&t->event[e]);
	}
}

/* deps_for(s) into @out. */
static void stream_deps(struct gm_dep_tracker *t, uint32_t s,
			struct gm_dep_set *out)
{
	set_copy(t, out, &t->tail[s]);
	if (s == 0) {
		for (uint32_t b = 1; b < t->nr_streams; b++) {
			if (t->blocking[b]) {
				set_union(t, out, &t->tail[b]);
			}
		}
	} else if (t->blocking[s]) {
		set_union(t, out, &t->tail[0]);
	}
}

static void grow(struct gm_dep_tracker *t)
{
	size_t cap = t->cap * 2;
	uint8_t *state = gm_xcalloc(cap, 1), *queue = gm_xcalloc(cap, 1);

	for (uint64_t q = t->base; q < t->next; q++) {
		state[q & (cap - 1)] = t->state[slot(t, q)];
		queue[q & (cap - 1)] = t->queue[slot(t, q)];
	}
	free(t->state);
	free(t->queue);
	t->state = state;
	t->queue = queue;
	t->cap = cap;
}

uint64_t gm_dep_add(struct gm_dep_tracker *t, uint32_t s,
		    enum gm_dep_queue queue, struct gm_dep_set *deps)
{
	uint64_t seq;

	stream_deps(t, s, deps);
	if (t->next - t->base == t->cap) {
		grow(t);
	}
	seq = t->next++;
	t->state[slot(t, seq)] = GM_DEP_QUEUED;
	t->queue[slot(t, seq)] = (uint8_t)queue;
	set_clear(&t->tail[s]);
	set_add(t, &t->tail[s], seq);
	return seq;
}

const struct gm_dep_set *gm_dep_stream(struct gm_dep_tracker *t, uint32_t s)
{
	stream_deps(t, s, &t->scratch);
	return &t->scratch;
}

void gm_dep_record(struct gm_dep_tracker *t, uint32_t s, uint32_t e)
{
	stream_deps(t, s, &t->event[e]);
}

void gm_dep_wait(struct gm_dep_tracker *t, uint32_t s, uint32_t e)
{
	set_prune(t, &t->tail[s]);
	set_union(t, &t->tail[s], &t->event[e]);
}

const struct gm_dep_set *gm_dep_event(const struct gm_dep_tracker *t,
				      uint32_t e)
{
	return &t->event[e];
}

void gm_dep_issued(struct gm_dep_tracker *t, uint64_t seq)
{
	if (seq >= t->base && seq < t->next &&
	    t->state[slot(t, seq)] == GM_DEP_QUEUED) {
		t->state[slot(t, seq)] = GM_DEP_ISSUED;
	}
}

void gm_dep_done(struct gm_dep_tracker *t, uint64_t seq)
{
	if (seq < t->base || seq >= t->next) {
		return;
	}
	t->state[slot(t, seq)] = GM_DEP_DONE;
	while (t->base < t->next && t->state[slot(t, t->base)] == GM_DEP_DONE) {
		t->base++;
	}
}

int gm_dep_ready(const struct gm_dep_tracker *t, const struct gm_dep_set *deps,
		 enum gm_dep_queue queue)
{
	for (uint32_t i = 0; i < deps->nr; i++) {
		uint64_t d = deps->seq[i];
		enum gm_dep_state st = gm_dep_state_of(t, d);
		if (st == GM_DEP_DONE) {
			continue;
		}
		/* CUDA keeps one stream in order. */
		if (st == GM_DEP_ISSUED && t->queue[slot(t, d)] == queue) {
			continue;
		}
		return 0;
	}
	return 1;
}

int gm_dep_all_done(const struct gm_dep_tracker *t,
		    const struct gm_dep_set *set)
{
	for (uint32_t i = 0; i < set->nr; i++) {
		if (!is_done(t, set->seq[i])) {
			return 0;
		}
	}
	return 1;
}

int gm_dep_idle(const struct gm_dep_tracker *t)
{
	return t->base == t->next;
}
