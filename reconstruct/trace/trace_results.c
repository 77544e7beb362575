/* SPDX-License-Identifier: MIT */
/*
 * Device-to-host results of a bundle (see trace_results.h). A synchronous
 * copy carries its hash at its exit, right after its entry on the same
 * thread; an asynchronous one's hash comes later in a d2h_hash event with
 * the copy's correlation id, so the entries of asynchronous copies are
 * remembered by (process, correlation id) in an open-addressing table
 * (one slot per asynchronous copy of the trace; a hashed copy's slot
 * stays, marked done, since ids are not reused within a process).
 */
#include "trace_results.h"

#include <stdlib.h>

#include "api.h"
#include "record.h"
#include "strbuf.h"
#include "trace_reader.h"

/* A small map from (pid, tid or corr) to an entry event; linear, since
 * threads and copies awaiting their hash are few. */
struct entry_map {
	uint64_t *key, *event;
	int *api;
	size_t nr, alloc;
};

static long map_find(const struct entry_map *m, uint64_t key)
{
	for (size_t i = m->nr; i-- > 0;) {
		if (m->key[i] == key) {
			return (long)i;
		}
	}
	return -1;
}

static void map_put(struct entry_map *m, uint64_t key, uint64_t event, int api)
{
	long i = map_find(m, key);

	if (i < 0) {
		if (m->nr == m->alloc) {
			m->alloc = m->alloc ? m->alloc * 2 : 16;
			m->key = gm_xrealloc(m->key, m->alloc * sizeof(*m->key));
			m->event = gm_xrealloc(m->event,
					       m->alloc * sizeof(*m->event));
			m->api = gm_xrealloc(m->api, m->alloc * sizeof(*m->api));
		}
		i = (long)m->nr++;
	}
	m->key[i] = key;
	m->event[i] = event;
	m->api[i] = api;
}

struct copy_slot {
	uint64_t key;		/* 0: empty (keys are stored + 1) */
	uint64_t event;
	int api;		/* -1: its result was seen */
};

struct copy_table {
	struct copy_slot *s;
	size_t cap, nr;
};

static size_t slot_of(const struct copy_table *t, uint64_t key)
{
	uint64_t h = key * 0x9e3779b97f4a7c15ULL;
	size_t i = (size_t)(h >> 17) & (t->cap - 1);

	while (t->s[i].key && t->s[i].key != key + 1) {
		i = (i + 1) & (t->cap - 1);
	}
	return i;
}

static void copy_put(struct copy_table *t, uint64_t key, uint64_t event,
		     int api)
{
	size_t i;

	if ((t->nr + 1) * 2 > t->cap) {
		struct copy_table n = { NULL, t->cap ? t->cap * 2 : 256, 0 };
		n.s = gm_xcalloc(n.cap, sizeof(*n.s));
		for (size_t k = 0; k < t->cap; k++) {
			if (t->s[k].key) {
				n.s[slot_of(&n, t->s[k].key - 1)] = t->s[k];
				n.nr++;
			}
		}
		free(t->s);
		*t = n;
	}
	i = slot_of(t, key);
	t->nr += !t->s[i].key;
	t->s[i].key = key + 1;
	t->s[i].event = event;
	t->s[i].api = api;
}

/* The entry of the copy with @key whose result is not seen yet, or NULL. */
static struct copy_slot *copy_get(struct copy_table *t, uint64_t key)
{
	struct copy_slot *c;

	if (!t->cap) {
		return NULL;
	}
	c = &t->s[slot_of(t, key)];
	return c->key && c->api >= 0 ? c : NULL;
}

static int is_async_copy(int api)
{
	enum gm_special sp;

	if (api < 0 || api >= GM_API_COUNT) {
		return 0;
	}
	sp = gm_api_table[api].special;
	return sp == GM_SP_D2H_ASYNC || sp == GM_SP_MEMCPY_ASYNC ||
	       sp == GM_SP_COPY2D_ASYNC || sp == GM_SP_COPY3D_ASYNC;
}

static void map_free(struct entry_map *m)
{
	free(m->key);
	free(m->event);
	free(m->api);
}

static void add(struct trace_results *out, const struct gm_event *ev,
		uint64_t event, int api)
{
	struct trace_result *t;

	GM_ALLOC_GROW(out->r, out->nr + 1, out->alloc);
	t = &out->r[out->nr++];
	t->event = event;
	t->api = api;
	t->pid = ev->pid;
	t->bytes = ev->blob_size;
	t->hash = ev->blob;
	t->unsynced = (ev->flags & GM_RF_UNSYNCED) != 0;
}

static int by_event(const void *a, const void *b)
{
	const struct trace_result *x = a, *y = b;

	return x->event < y->event ? -1 : x->event > y->event;
}

int trace_results_collect(struct trace_reader *rd, struct trace_results *out)
{
	struct entry_map threads = { 0 };
	struct copy_table copies = { 0 };
	const struct gm_event *ev;
	struct copy_slot *c;
	int rc;

	while ((rc = trace_reader_next(rd, &ev)) > 0) {
		uint64_t tkey = (uint64_t)ev->pid << 32 | ev->tid;
		uint64_t ckey = (uint64_t)ev->pid << 32 | ev->corr;
		long i;

		switch (ev->kind) {
		case GM_EV_ENTER:
			map_put(&threads, tkey, ev->index, ev->api);
			if (is_async_copy(ev->api)) {
				copy_put(&copies, ckey, ev->index, ev->api);
			}
			break;
		case GM_EV_EXIT:
			if (ev->flags & GM_RF_HASH) {
				i = map_find(&threads, tkey);
				add(out, ev, i >= 0 ? threads.event[i] : ev->index,
				    ev->api);
			}
			break;
		case GM_EV_HOSTMEM:
			if (GM_EVENT_AS(ev, hostmem)->role == GM_HM_RESULT) {
				add(out, ev, ev->index, TRACE_RESULT_HOSTMEM);
			}
			break;
		case GM_EV_D2H_HASH:
			if (ev->flags & GM_RF_OVERWRITTEN) {
				break;	/* the program never saw it */
			}
			c = copy_get(&copies, ckey);
			add(out, ev, c ? c->event : ev->index, c ? c->api : ev->api);
			if (c) {
				c->api = -1;
			}
			break;
		default:
			break;
		}
	}
	map_free(&threads);
	free(copies.s);
	if (rc < 0) {
		return -1;
	}
	qsort(out->r, out->nr, sizeof(*out->r), by_event);
	return 0;
}

void trace_results_release(struct trace_results *res)
{
	free(res->r);
	res->r = NULL;
	res->nr = res->alloc = 0;
}
