/* SPDX-License-Identifier: MIT */
/*
 * Snapshots and results of mapped page-locked and managed memory (see
 * hostmem.h). One mutex guards the table, which is sorted by host address
 * (allocations are few; launches look up each argument word). Content is
 * hashed and stored without the lock: the program's own ordering (a host
 * write happens after the synchronization that completed the kernels
 * using the memory) keeps it still meanwhile.
 */
#include "hostmem.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "emit.h"
#include "hash.h"
#include "record.h"

#define MULTI_KEY UINT64_MAX	/* launches on several streams */

struct region {
	uint64_t base, size;
	uint64_t dev;		/* another device address, or 0 */
	unsigned kind;		/* enum gm_hostmem_kind */
	int busy;		/* a launch used it since its last result */
	uint64_t busy_key;	/* the stream of those launches */
	uint64_t stamp;		/* the launch that last looked at it */
	int have_known;
	struct gm_hash known;	/* content last recorded */
};

struct hostmem_state {
	pthread_mutex_t lock;
	struct region *r;	/* sorted by base, disjoint */
	size_t nr, alloc;
	size_t nr_alias;	/* regions with dev set */
	uint64_t stamp;
};

static struct hostmem_state hm = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Index of the first region whose base is > @addr. Lock held. */
static size_t upper(uint64_t addr)
{
	size_t lo = 0, hi = hm.nr;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (hm.r[mid].base <= addr) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	return lo;
}

/* The region holding host or device address @addr, or NULL. Lock held. */
static struct region *find(uint64_t addr)
{
	size_t i = upper(addr);

	if (i && addr - hm.r[i - 1].base < hm.r[i - 1].size) {
		return &hm.r[i - 1];
	}
	for (size_t k = 0; hm.nr_alias && k < hm.nr; k++) {
		struct region *g = &hm.r[k];
		if (g->dev && addr >= g->dev && addr - g->dev < g->size) {
			return g;
		}
	}
	return NULL;
}

void hostmem_add(uint64_t base, uint64_t size, unsigned kind)
{
	size_t i;

	if (!base || !size) {
		return;
	}
	pthread_mutex_lock(&hm.lock);
	if (find(base)) {
		goto out;	/* registered twice: the driver refused it */
	}
	if (hm.nr == hm.alloc) {
		size_t n = hm.alloc ? 2 * hm.alloc : 16;
		struct region *r = realloc(hm.r, n * sizeof(*r));
		if (!r) {
			/* Its content goes unrecorded: the replay's launch
			 * then reads a pointer it cannot relocate. */
			gm_capture_loss(blob_failures);
			goto out;
		}
		hm.r = r;
		hm.alloc = n;
	}
	i = upper(base);
	memmove(&hm.r[i + 1], &hm.r[i], (hm.nr - i) * sizeof(*hm.r));
	memset(&hm.r[i], 0, sizeof(*hm.r));
	hm.r[i].base = base;
	hm.r[i].size = size;
	hm.r[i].kind = kind;
	hm.nr++;
out:
	pthread_mutex_unlock(&hm.lock);
}

void hostmem_alias(uint64_t host, uint64_t dev)
{
	struct region *g;

	pthread_mutex_lock(&hm.lock);
	g = find(host);
	/* The same address (unified addressing) needs no alias; an interior
	 * pointer's device address maps to the start of the region. */
	if (g && dev && dev - (host - g->base) != g->base && !g->dev) {
		g->dev = dev - (host - g->base);
		hm.nr_alias++;
	}
	pthread_mutex_unlock(&hm.lock);
}

void hostmem_remove(uint64_t base)
{
	size_t i;

	pthread_mutex_lock(&hm.lock);
	i = upper(base);
	if (i && hm.r[i - 1].base == base) {
		if (hm.r[i - 1].dev) {
			hm.nr_alias--;
		}
		memmove(&hm.r[i - 1], &hm.r[i], (hm.nr - i) * sizeof(*hm.r));
		hm.nr--;
	}
	pthread_mutex_unlock(&hm.lock);
}

static void emit(const struct region *g, unsigned role, uint64_t key,
		 uint32_t corr, const struct gm_hash *h)
{
	struct gm_record r = { 0 };
	uint64_t w[GM_NR_WORDS(gm_ev_hostmem)];
	struct gm_ev_hostmem *e = (struct gm_ev_hostmem *)w;
	struct gm_span span = gm_span_bytes((const void *)(uintptr_t)g->base,
					    g->size);

	e->addr = g->base;
	e->bytes = g->size;
	e->kind = g->kind;
	e->role = role;
	e->stream = key;
	r.corr = corr;
	r.args = w;
	r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_hostmem);
	if (role == GM_HM_SNAPSHOT) {
		/* Always a blob: the thread's inline buffer holds the
		 * launch's own arguments at this point. */
		gm_capture_payload(&r, &span, 0);
	} else {
		r.flags |= GM_RF_HASH;
		r.blob_hi = h->hi;
		r.blob_lo = h->lo;
		r.blob_size = g->size;
	}
	gm_capture_emit(GM_EV_HOSTMEM, &r);
}

/*
 * Record @h as region @base's content; 1 when it differs from what was
 * recorded before (or nothing was).
 */
static int remember(uint64_t base, struct gm_hash h)
{
	struct region *g;
	int changed = 0;

	pthread_mutex_lock(&hm.lock);
	g = find(base);
	if (g && g->base == base) {
		changed = !g->have_known || g->known.hi != h.hi ||
			  g->known.lo != h.lo;
		g->known = h;
		g->have_known = 1;
	}
	pthread_mutex_unlock(&hm.lock);
	return changed;
}

void hostmem_launch(const void *params, size_t len, uint64_t key,
		    uint32_t corr)
{
	const uint8_t *b = params;
	uint64_t stamp;

	if (!b || !__atomic_load_n(&hm.nr, __ATOMIC_RELAXED)) {
		return;
	}
	pthread_mutex_lock(&hm.lock);
	stamp = ++hm.stamp;
	pthread_mutex_unlock(&hm.lock);
	for (size_t off = 0; off + 8 <= len; off += 8) {
		struct region *g, copy;
		uint64_t v;
		int idle;

		memcpy(&v, b + off, sizeof(v));
		if (!v) {
			continue;
		}
		pthread_mutex_lock(&hm.lock);
		g = find(v);
		if (!g || g->stamp == stamp) {
			pthread_mutex_unlock(&hm.lock);
			continue;
		}
		g->stamp = stamp;
		/* A region still in use by an unsynchronized launch is the
		 * GPU's: the host had no chance to write it. */
		idle = !g->busy;
		g->busy_key = g->busy && g->busy_key != key ? MULTI_KEY : key;
		g->busy = 1;
		copy = *g;
		pthread_mutex_unlock(&hm.lock);
		if (idle) {
			struct gm_hash h = gm_hash_bytes(
				(const void *)(uintptr_t)copy.base,
				(size_t)copy.size);
			if (remember(copy.base, h)) {
				emit(&copy, GM_HM_SNAPSHOT, key, corr, &h);
			}
		}
	}
}

/* Does a synchronization complete the launches that made @g busy? */
static int covers(const struct region *g, enum track_sync how, uint64_t key)
{
	switch (how) {
	case TRACK_SYNC_ALL:
		return 1;
	case TRACK_SYNC_STREAM:
	case TRACK_SYNC_EVENT:
		return g->busy_key == key;
	case TRACK_SYNC_LEGACY:
		return g->busy_key != MULTI_KEY &&
		       track_stream_blocking(g->busy_key);
	}
	return 0;
}

void hostmem_sync(enum track_sync how, uint64_t arg)
{
	uint64_t key = arg;

	if (!__atomic_load_n(&hm.nr, __ATOMIC_RELAXED)) {
		return;
	}
	/* An event completes (at least) its stream's launches before it;
	 * later ones on that stream are rare enough to take along. */
	if (how == TRACK_SYNC_EVENT && track_event_stream(arg, &key) < 0) {
		return;
	}
	for (;;) {
		struct region copy;
		struct gm_hash h;
		int found = 0;

		pthread_mutex_lock(&hm.lock);
		for (size_t i = 0; i < hm.nr && !found; i++) {
			struct region *g = &hm.r[i];
			if (g->busy && covers(g, how, key)) {
				g->busy = 0;
				copy = *g;
				found = 1;
			}
		}
		pthread_mutex_unlock(&hm.lock);
		if (!found) {
			return;
		}
		h = gm_hash_bytes((const void *)(uintptr_t)copy.base,
				  (size_t)copy.size);
		remember(copy.base, h);
		emit(&copy, GM_HM_RESULT, copy.busy_key, 0, &h);
	}
}
