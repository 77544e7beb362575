/* SPDX-License-Identifier: MIT */
/*
 * Handle, stream and pending-copy tracking (see tracking.h). One mutex per
 * table; tables are open-addressing hashes that only grow (handles are
 * few and live as long as the program).
 */
#include "tracking.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define CU_STREAM_NON_BLOCKING_ 0x1
#define LEGACY_KEY 0
#define PER_THREAD_BIT 2

struct map_entry {
	uint64_t key;		/* 0: empty */
	uint64_t a, b;
	const void *ptr;
};

struct map {
	struct map_entry *e;
	size_t cap, nr;
};

struct tracking_state {
	pthread_mutex_t lock;
	struct map layouts;	/* handle -> gm_layout (ptr) */
	struct map streams;	/* key -> flags (a) */
	struct map events;	/* event -> stream key (a), seq (b) */
	struct map code;	/* module or library -> live (a), library (b) */
	struct gm_pending *pending;
	size_t nr_pending, alloc_pending;
	uint64_t seq;
};

static struct tracking_state ts = { .lock = PTHREAD_MUTEX_INITIALIZER };

static uint64_t mix(uint64_t k)
{
	k ^= k >> 33;
	k *= 0xff51afd7ed558ccdULL;
	k ^= k >> 33;
	return k;
}

/* Keys are stored +1 so that handle 0 is representable. */
static struct map_entry *map_find(struct map *m, uint64_t key)
{
	if (!m->cap) {
		return NULL;
	}
	for (size_t i = mix(key) & (m->cap - 1);; i = (i + 1) & (m->cap - 1)) {
		if (m->e[i].key == key + 1) {
			return &m->e[i];
		}
		if (!m->e[i].key) {
			return NULL;
		}
	}
}

static struct map_entry *map_insert(struct map *m, uint64_t key)
{
	struct map_entry *e = map_find(m, key);

	if (e) {
		return e;
	}
	if ((m->nr + 1) * 2 > m->cap) {
		size_t ncap = m->cap ? m->cap * 2 : 256;
		struct map_entry *ne = calloc(ncap, sizeof(*ne));
		if (!ne) {
			return NULL;
		}
		for (size_t i = 0; i < m->cap; i++) {
			if (!m->e[i].key) {
				continue;
			}
			size_t j = mix(m->e[i].key - 1) & (ncap - 1);
			while (ne[j].key) {
				j = (j + 1) & (ncap - 1);
			}
			ne[j] = m->e[i];
		}
		free(m->e);
		m->e = ne;
		m->cap = ncap;
	}
	size_t i = mix(key) & (m->cap - 1);
	while (m->e[i].key) {
		i = (i + 1) & (m->cap - 1);
	}
	m->e[i].key = key + 1;
	m->nr++;
	return &m->e[i];
}

const struct gm_layout *track_layout_put(uint64_t handle, int is_kernel,
					 const uint32_t *pairs, uint32_t n,
					 uint64_t module)
{
	struct gm_layout *l = calloc(1, sizeof(*l));
	struct map_entry *e;

	if (!l || !(l->pairs = malloc((n ? n : 1) * 2 * sizeof(uint32_t)))) {
		free(l);
		return NULL;
	}
	l->handle = handle;
	l->nparams = n;
	l->is_kernel = is_kernel;
	l->module = module;
	memcpy(l->pairs, pairs, n * 2 * sizeof(uint32_t));
	for (uint32_t i = 0; i < n; i++) {
		uint32_t end = pairs[2 * i] + pairs[2 * i + 1];
		if (end > l->size) {
			l->size = end;
		}
	}
	pthread_mutex_lock(&ts.lock);
	e = map_insert(&ts.layouts, handle);
	if (e) {
		/* An older layout of a reused handle is leaked on purpose:
		 * a concurrent launch may still read it. */
		e->ptr = l;
	}
	pthread_mutex_unlock(&ts.lock);
	if (!e) {
		free(l->pairs);
		free(l);
		return NULL;
	}
	return l;
}

const struct gm_layout *track_layout_get(uint64_t handle)
{
	const struct gm_layout *l = NULL;
	struct map_entry *e;

	pthread_mutex_lock(&ts.lock);
	e = map_find(&ts.layouts, handle);
	if (e) {
		l = e->ptr;
	}
	if (l && l->stale) {
		l = NULL;
	}
	pthread_mutex_unlock(&ts.lock);
	return l;
}

void track_code_add(uint64_t handle, int is_library)
{
	struct map_entry *e;

	pthread_mutex_lock(&ts.lock);
	e = map_insert(&ts.code, handle);
	if (e) {
		e->a = 1;
		e->b = (uint64_t)is_library;
	}
	pthread_mutex_unlock(&ts.lock);
}

void track_code_del(uint64_t handle)
{
	struct map_entry *e;

	pthread_mutex_lock(&ts.lock);
	e = map_find(&ts.code, handle);
	if (e) {
		e->a = 0;
	}
	/* (entries stay: a map without deletion) */
	for (size_t i = 0; i < ts.layouts.cap; i++) {
		struct gm_layout *l = (struct gm_layout *)ts.layouts.e[i].ptr;
		if (ts.layouts.e[i].key && l && l->module == handle) {
			l->stale = 1;
		}
	}
	pthread_mutex_unlock(&ts.lock);
}

int track_code_known(uint64_t handle)
{
	struct map_entry *e;
	int r;

	pthread_mutex_lock(&ts.lock);
	e = map_find(&ts.code, handle);
	r = e && e->a;
	pthread_mutex_unlock(&ts.lock);
	return r;
}

size_t track_code_libraries(uint64_t *out, size_t max)
{
	size_t n = 0;

	pthread_mutex_lock(&ts.lock);
	for (size_t i = 0; i < ts.code.cap && n < max; i++) {
		const struct map_entry *e = &ts.code.e[i];
		if (e->key && e->a && e->b) {
			out[n++] = e->key - 1;
		}
	}
	pthread_mutex_unlock(&ts.lock);
	return n;
}

void track_layout_alias(uint64_t alias, uint64_t handle)
{
	struct map_entry *e, *a;

	pthread_mutex_lock(&ts.lock);
	e = map_find(&ts.layouts, handle);
	if (e && (a = map_insert(&ts.layouts, alias))) {
		e = map_find(&ts.layouts, handle); /* the insert may move it */
		a->ptr = e->ptr;
	}
	pthread_mutex_unlock(&ts.lock);
}

uint64_t track_stream_key(uint64_t stream, int per_thread_api, uint64_t tid)
{
	if (stream == 0 && per_thread_api) {
		stream = PER_THREAD_BIT;
	}
	if (stream == 1) {
		return LEGACY_KEY;	/* CU_STREAM_LEGACY */
	}
	if (stream == PER_THREAD_BIT) {
		return PER_THREAD_BIT | tid << 8;
	}
	return stream;
}

void track_stream_flags(uint64_t key, unsigned flags)
{
	struct map_entry *e;

	pthread_mutex_lock(&ts.lock);
	e = map_insert(&ts.streams, key);
	if (e) {
		e->a = flags;
	}
	pthread_mutex_unlock(&ts.lock);
}

void track_event_record(uint64_t event, uint64_t key)
{
	struct map_entry *e;

	pthread_mutex_lock(&ts.lock);
	e = map_insert(&ts.events, event);
	if (e) {
		e->a = key;
		e->b = ts.seq;
	}
	pthread_mutex_unlock(&ts.lock);
}

/* Bytes from a span's first byte to one past its last. */
static uint64_t span_extent(const struct gm_span *s)
{
	return (uint64_t)(s->depth - 1) * s->slice_pitch +
	       (uint64_t)(s->height - 1) * s->pitch + s->width;
}

/* Does a row of @s meet [@lo, @hi) (addresses)? */
static int rows_meet(const struct gm_span *s, uintptr_t lo, uintptr_t hi)
{
	for (size_t z = 0; z < s->depth; z++) {
		uintptr_t base = (uintptr_t)s->base + z * s->slice_pitch;
		uintptr_t end = base + (s->height - 1) * s->pitch + s->width;
		uint64_t first, last;

		if (hi <= base || lo >= end) {
			continue;
		}
		if (s->height <= 1 || s->pitch <= s->width) {
			return 1;	/* its rows touch: one run */
		}
		/* Row y is [base + y * pitch, + width): it meets [lo, hi)
		 * for y in (lo - base - width) / pitch < y < (hi - base) /
		 * pitch. */
		first = lo >= base + s->width ?
			(lo - base - s->width) / s->pitch + 1 : 0;
		last = (hi - base + s->pitch - 1) / s->pitch - 1;
		if (last > s->height - 1) {
			last = s->height - 1;
		}
		if (first <= last) {
			return 1;
		}
	}
	return 0;
}

/* More rows than this against each other: taken to overlap. */
#define OVERLAP_WORK (1u << 16)

int track_spans_overlap(const struct gm_span *a, const struct gm_span *b)
{
	uintptr_t a0 = (uintptr_t)a->base, b0 = (uintptr_t)b->base;
	const struct gm_span *rows;
	const struct gm_span *other;

	if (!a->width || !b->width || a0 + span_extent(a) <= b0 ||
	    b0 + span_extent(b) <= a0) {
		return 0;
	}
	rows = a->height * a->depth <= b->height * b->depth ? a : b;
	other = rows == a ? b : a;
	if ((uint64_t)rows->height * rows->depth * other->depth >
	    OVERLAP_WORK) {
		return 1;
	}
	for (size_t z = 0; z < rows->depth; z++) {
		for (size_t y = 0; y < rows->height; y++) {
			uintptr_t lo = (uintptr_t)rows->base +
				       z * rows->slice_pitch + y * rows->pitch;
			if (rows_meet(other, lo, lo + rows->width)) {
				return 1;
			}
		}
	}
	return 0;
}

static int blocking(uint64_t key);

/* Whether work on stream @key runs after a host function enqueued on
 * @watch (the same stream, or the legacy stream's implicit ordering).
 * Called with the lock held. */
static int follows(uint64_t watch, uint64_t key)
{
	return watch == key || (key == LEGACY_KEY && blocking(watch)) ||
	       (watch == LEGACY_KEY && blocking(key));
}

/* A copy into @span on stream @key. Called with the lock held. */
static void overwrite(const struct gm_span *span, uint64_t key)
{
	for (size_t i = 0; i < ts.nr_pending; i++) {
		struct gm_pending *p = &ts.pending[i];
		if (p->overwritten || (p->watched && follows(p->watch_key, key))) {
			continue;
		}
		if (track_spans_overlap(&p->span, span)) {
			p->overwritten = 1;
		}
	}
}

void track_pending_overwrite(const struct gm_span *span, uint64_t key)
{
	pthread_mutex_lock(&ts.lock);
	overwrite(span, key);
	pthread_mutex_unlock(&ts.lock);
}

int track_pending_add(int api, uint32_t corr, uint64_t key,
		      const struct gm_span *span, uint64_t *seq)
{
	int ret = 0;

	pthread_mutex_lock(&ts.lock);
	overwrite(span, key);
	if (ts.nr_pending == ts.alloc_pending) {
		size_t n = ts.alloc_pending ? ts.alloc_pending * 2 : 64;
		struct gm_pending *p = realloc(ts.pending, n * sizeof(*p));
		if (!p) {
			ret = -1;
			goto out;
		}
		ts.pending = p;
		ts.alloc_pending = n;
	}
	ts.pending[ts.nr_pending].api = api;
	ts.pending[ts.nr_pending].corr = corr;
	ts.pending[ts.nr_pending].key = key;
	if (seq) {
		*seq = ts.seq;
	}
	ts.pending[ts.nr_pending].seq = ts.seq++;
	ts.pending[ts.nr_pending].span = *span;
	ts.pending[ts.nr_pending].overwritten = 0;
	ts.pending[ts.nr_pending].watched = 0;
	ts.pending[ts.nr_pending].watch_key = 0;
	ts.pending[ts.nr_pending].nr_waiters = 0;
	ts.nr_pending++;
out:
	pthread_mutex_unlock(&ts.lock);
	return ret;
}

/* Called with the lock held. The legacy stream, a per-thread default
 * stream and every stream created without CU_STREAM_NON_BLOCKING are
 * "blocking": the legacy stream waits for their earlier work and they
 * wait for its. */
static int blocking(uint64_t key)
{
	struct map_entry *e;

	if (key == LEGACY_KEY || (key & 0xff) == PER_THREAD_BIT) {
		return 1;
	}
	e = map_find(&ts.streams, key);
	return !e || !(e->a & CU_STREAM_NON_BLOCKING_);
}

/*
 * Whether work enqueued on stream @key at sequence number @seq (UINT64_MAX:
 * all of the stream's work, a stream synchronization) runs after copy @p:
 * the copy's own stream, a stream that waited for an event covering it,
 * and the legacy stream's implicit ordering with the blocking streams
 * (for events only: a stream synchronization's "last work" is unknown).
 * Called with the lock held.
 */
static int reaches(const struct gm_pending *p, uint64_t key, uint64_t seq)
{
	int event = seq != UINT64_MAX;

	if (p->seq >= seq) {
		return 0;
	}
	if (p->key == key) {
		return 1;
	}
	if (event && key == LEGACY_KEY && blocking(p->key)) {
		return 1;
	}
	if (event && p->key == LEGACY_KEY && blocking(key)) {
		return 1;
	}
	for (unsigned i = 0; i < p->nr_waiters; i++) {
		const struct track_waiter *w = &p->waiters[i];
		if (w->since >= seq) {
			continue;
		}
		if (w->key == key ||
		    (event && key == LEGACY_KEY && blocking(w->key))) {
			return 1;
		}
	}
	return 0;
}

/* Called with the lock held. */
static int completes(const struct gm_pending *p, enum track_sync how,
		     uint64_t key, uint64_t seq)
{
	switch (how) {
	case TRACK_SYNC_STREAM:
		return reaches(p, key, UINT64_MAX);
	case TRACK_SYNC_EVENT:
		return reaches(p, key, seq);
	case TRACK_SYNC_LEGACY:
		if (blocking(p->key)) {
			return 1;
		}
		for (unsigned i = 0; i < p->nr_waiters; i++) {
			if (blocking(p->waiters[i].key)) {
				return 1;
			}
		}
		return 0;
	case TRACK_SYNC_ALL:
		return 1;
	}
	return 0;
}

int track_stream_blocking(uint64_t key)
{
	int ret;

	pthread_mutex_lock(&ts.lock);
	ret = blocking(key);
	pthread_mutex_unlock(&ts.lock);
	return ret;
}

int track_event_stream(uint64_t event, uint64_t *key)
{
	struct map_entry *e;
	int ret = -1;

	pthread_mutex_lock(&ts.lock);
	e = map_find(&ts.events, event);
	if (e) {
		*key = e->a;
		ret = 0;
	}
	pthread_mutex_unlock(&ts.lock);
	return ret;
}

void track_stream_wait(uint64_t key, uint64_t event)
{
	struct map_entry *e;
	uint64_t since;

	pthread_mutex_lock(&ts.lock);
	e = map_find(&ts.events, event);
	since = ts.seq++;
	for (size_t i = 0; e && i < ts.nr_pending; i++) {
		struct gm_pending *p = &ts.pending[i];
		if (p->key == key || !reaches(p, e->a, e->b) ||
		    p->nr_waiters == TRACK_MAX_WAITERS) {
			continue;
		}
		p->waiters[p->nr_waiters].key = key;
		p->waiters[p->nr_waiters++].since = since;
	}
	pthread_mutex_unlock(&ts.lock);
}

/*
 * Complete what @how completes: for TRACK_SYNC_EVENT the copies that
 * reach the point (@key, @seq), taken from event @event's record when
 * @event is not 0.
 */
static void complete_pending(enum track_sync how, uint64_t event,
			     uint64_t key, uint64_t seq,
			     void (*done)(const struct gm_pending *p, void *ctx),
			     void *ctx)
{
	struct gm_pending batch[32];

	for (;;) {
		size_t n = 0, w = 0;

		pthread_mutex_lock(&ts.lock);
		if (!ts.nr_pending) {
			pthread_mutex_unlock(&ts.lock);
			return;
		}
		if (how == TRACK_SYNC_EVENT && event) {
			struct map_entry *e = map_find(&ts.events, event);
			if (!e) {
				pthread_mutex_unlock(&ts.lock);
				return;
			}
			key = e->a;
			seq = e->b;
		}
		for (size_t i = 0; i < ts.nr_pending; i++) {
			if (n < 32 && completes(&ts.pending[i], how, key, seq)) {
				batch[n++] = ts.pending[i];
			} else {
				ts.pending[w++] = ts.pending[i];
			}
		}
		ts.nr_pending = w;
		pthread_mutex_unlock(&ts.lock);
		for (size_t i = 0; i < n; i++) {
			done(&batch[i], ctx);
		}
		if (n < 32) {
			return;
		}
	}
}

void track_pending_complete_seqs(const uint64_t *seqs, size_t n,
				 void (*done)(const struct gm_pending *p,
					      void *ctx),
				 void *ctx)
{
	struct gm_pending batch[32];

	for (size_t first = 0; first < n; first += 32) {
		size_t m = n - first < 32 ? n - first : 32, got = 0, w = 0;

		pthread_mutex_lock(&ts.lock);
		for (size_t i = 0; i < ts.nr_pending; i++) {
			int hit = 0;
			for (size_t k = 0; k < m && !hit; k++) {
				hit = ts.pending[i].seq == seqs[first + k];
			}
			if (hit) {
				batch[got++] = ts.pending[i];
			} else {
				ts.pending[w++] = ts.pending[i];
			}
		}
		ts.nr_pending = w;
		pthread_mutex_unlock(&ts.lock);
		for (size_t i = 0; i < got; i++) {
			done(&batch[i], ctx);
		}
	}
}

void track_pending_complete(enum track_sync how, uint64_t arg,
			    void (*done)(const struct gm_pending *p, void *ctx),
			    void *ctx)
{
	complete_pending(how, how == TRACK_SYNC_EVENT ? arg : 0, arg, 0, done,
			 ctx);
}

static void watch(struct gm_pending *p, uint64_t key)
{
	if (!p->watched) {
		p->watched = 1;
		p->watch_key = key;
	}
}

void track_pending_watch(uint64_t key, uint64_t position)
{
	pthread_mutex_lock(&ts.lock);
	for (size_t i = 0; i < ts.nr_pending; i++) {
		if (reaches(&ts.pending[i], key, position)) {
			watch(&ts.pending[i], key);
		}
	}
	pthread_mutex_unlock(&ts.lock);
}

void track_pending_watch_seqs(uint64_t key, const uint64_t *seqs, size_t n)
{
	pthread_mutex_lock(&ts.lock);
	for (size_t i = 0; i < ts.nr_pending; i++) {
		for (size_t k = 0; k < n; k++) {
			if (ts.pending[i].seq == seqs[k]) {
				watch(&ts.pending[i], key);
				break;
			}
		}
	}
	pthread_mutex_unlock(&ts.lock);
}

uint64_t track_position(void)
{
	uint64_t seq;

	pthread_mutex_lock(&ts.lock);
	seq = ts.seq++;
	pthread_mutex_unlock(&ts.lock);
	return seq;
}

void track_pending_complete_at(uint64_t key, uint64_t position,
			       void (*done)(const struct gm_pending *p,
					    void *ctx),
			       void *ctx)
{
	complete_pending(TRACK_SYNC_EVENT, 0, key, position, done, ctx);
}
