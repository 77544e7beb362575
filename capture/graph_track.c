/* SPDX-License-Identifier: MIT */
/*
 * Capture and graph bookkeeping (see graph_track.h). Programs hold few
 * graphs and capture in few streams at a time, so each table is a small
 * array searched in order under one mutex.
 */
#include "graph_track.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#define item gtrack_node

/* The copy and event record nodes of a capture in progress, a graph or
 * an executable graph, in the order they were made. */
struct copy_list {
	uint64_t handle;	/* capture id, graph or executable graph */
	struct item *spans;
	unsigned nr, alloc;
};

/* A stream or an event that belongs to capture @capture. */
struct member {
	uint64_t key;
	uint64_t capture;
};

struct gtrack_state {
	pthread_mutex_t lock;
	uint64_t next_capture;
	struct copy_list *lists;	/* captures and graphs alike */
	size_t nr_lists, alloc_lists;
	struct member *streams, *events;
	size_t nr_streams, alloc_streams, nr_events, alloc_events;
	struct member *nodes;		/* made by recorded calls */
	size_t nr_nodes, alloc_nodes;
};

static struct gtrack_state gs = { .lock = PTHREAD_MUTEX_INITIALIZER };

/* Capture ids live in their own range so they never equal a handle. */
#define CAPTURE_BIT (UINT64_C(1) << 63)

static int grow(void **p, size_t *alloc, size_t need, size_t size)
{
	size_t n;
	void *q;

	if (need <= *alloc) {
		return 0;
	}
	n = *alloc ? 2 * *alloc : 8;
	while (n < need) {
		n *= 2;
	}
	q = realloc(*p, n * size);
	if (!q) {
		return -1;
	}
	*p = q;
	*alloc = n;
	return 0;
}

static struct copy_list *list_find(uint64_t handle)
{
	for (size_t i = 0; i < gs.nr_lists; i++) {
		if (gs.lists[i].handle == handle) {
			return &gs.lists[i];
		}
	}
	return NULL;
}

/* The list of @handle, made empty when @reset, created when missing. */
static struct copy_list *list_get(uint64_t handle, int reset)
{
	struct copy_list *l = list_find(handle);

	if (!l) {
		if (grow((void **)&gs.lists, &gs.alloc_lists, gs.nr_lists + 1,
			 sizeof(*gs.lists)) < 0) {
			return NULL;
		}
		l = &gs.lists[gs.nr_lists++];
		memset(l, 0, sizeof(*l));
		l->handle = handle;
	} else if (reset) {
		l->nr = 0;
	}
	return l;
}

static void list_add(struct copy_list *l, const struct item *s)
{
	size_t alloc;

	if (!l) {
		return;
	}
	alloc = l->alloc;
	if (grow((void **)&l->spans, &alloc, (size_t)l->nr + 1,
		 sizeof(*l->spans)) < 0) {
		return;		/* no memory: the result goes unverified */
	}
	l->alloc = (unsigned)alloc;
	l->spans[l->nr++] = *s;
}

static void list_drop(uint64_t handle)
{
	struct copy_list *l = list_find(handle);

	if (l) {
		free(l->spans);
		*l = gs.lists[--gs.nr_lists];
	}
}

static struct member *member_find(struct member *m, size_t nr, uint64_t key)
{
	for (size_t i = 0; i < nr; i++) {
		if (m[i].key == key) {
			return &m[i];
		}
	}
	return NULL;
}

/* Set (or with @capture 0 clear) what @key belongs to. */
static void member_set(struct member **m, size_t *nr, size_t *alloc,
		       uint64_t key, uint64_t capture)
{
	struct member *e = member_find(*m, *nr, key);

	if (e && !capture) {
		*e = (*m)[--*nr];
	} else if (e) {
		e->capture = capture;
	} else if (capture &&
		   grow((void **)m, alloc, *nr + 1, sizeof(**m)) == 0) {
		(*m)[*nr].key = key;
		(*m)[*nr].capture = capture;
		++*nr;
	}
}

static uint64_t capture_of(uint64_t key)
{
	struct member *e = member_find(gs.streams, gs.nr_streams, key);

	return e ? e->capture : 0;
}

void gtrack_begin(uint64_t key)
{
	uint64_t id;

	pthread_mutex_lock(&gs.lock);
	id = CAPTURE_BIT | ++gs.next_capture;
	member_set(&gs.streams, &gs.nr_streams, &gs.alloc_streams, key, id);
	list_get(id, 1);
	pthread_mutex_unlock(&gs.lock);
}

int gtrack_capturing(uint64_t key)
{
	int r;

	pthread_mutex_lock(&gs.lock);
	r = capture_of(key) != 0;
	pthread_mutex_unlock(&gs.lock);
	return r;
}

void gtrack_event_record(uint64_t event, uint64_t key)
{
	struct item it = { GTRACK_EVENT, { 0 }, event, { 0, 0 } };
	uint64_t id;

	pthread_mutex_lock(&gs.lock);
	id = capture_of(key);
	member_set(&gs.events, &gs.nr_events, &gs.alloc_events, event, id);
	if (id) {
		list_add(list_get(id, 0), &it);	/* a record node */
	}
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_stream_wait(uint64_t key, uint64_t event)
{
	struct member *e;

	pthread_mutex_lock(&gs.lock);
	e = member_find(gs.events, gs.nr_events, event);
	if (e && list_find(e->capture)) {
		member_set(&gs.streams, &gs.nr_streams, &gs.alloc_streams, key,
			   e->capture);
	}
	pthread_mutex_unlock(&gs.lock);
}

int gtrack_capture_copy(uint64_t key, const struct gm_span *span)
{
	struct item it = { GTRACK_COPY, *span, 0, { 0, 0 } };
	uint64_t id;

	pthread_mutex_lock(&gs.lock);
	id = capture_of(key);
	if (id) {
		list_add(list_get(id, 0), &it);
	}
	pthread_mutex_unlock(&gs.lock);
	return id != 0;
}

/* A host source as it is now: its content is checked at each launch. */
static int source_item(const struct gm_span *span, struct item *it)
{
	memset(it, 0, sizeof(*it));
	it->kind = GTRACK_SOURCE;
	it->span = *span;
	return gm_span_hash(span, &it->hash);
}

void gtrack_capture_source(uint64_t key, const struct gm_span *span)
{
	struct item it;
	uint64_t id;

	if (!gtrack_capturing(key) || source_item(span, &it) < 0) {
		return;
	}
	pthread_mutex_lock(&gs.lock);
	id = capture_of(key);
	if (id) {
		list_add(list_get(id, 0), &it);
	}
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_graph_source(uint64_t graph, const struct gm_span *span)
{
	struct item it;

	if (source_item(span, &it) < 0) {
		return;
	}
	pthread_mutex_lock(&gs.lock);
	list_add(list_get(graph, 0), &it);
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_end(uint64_t key, uint64_t graph)
{
	uint64_t id;
	struct copy_list *c, *g;

	pthread_mutex_lock(&gs.lock);
	id = capture_of(key);
	if (id) {
		g = list_get(graph, 1);
		c = list_find(id);	/* after list_get: it may move lists */
		for (unsigned i = 0; g && c && i < c->nr; i++) {
			list_add(g, &c->spans[i]);
		}
		list_drop(id);
		/* Every stream that joined the capture leaves it. */
		for (size_t i = gs.nr_streams; i-- > 0;) {
			if (gs.streams[i].capture == id) {
				gs.streams[i] = gs.streams[--gs.nr_streams];
			}
		}
	}
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_graph_copy(uint64_t graph, const struct gm_span *span)
{
	struct item it = { GTRACK_COPY, *span, 0, { 0, 0 } };

	pthread_mutex_lock(&gs.lock);
	list_add(list_get(graph, 0), &it);
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_graph_event(uint64_t graph, uint64_t event)
{
	struct item it = { GTRACK_EVENT, { 0 }, event, { 0, 0 } };

	pthread_mutex_lock(&gs.lock);
	list_add(list_get(graph, 0), &it);
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_inherit(uint64_t dst, uint64_t src, int append)
{
	struct copy_list *d, *s;

	pthread_mutex_lock(&gs.lock);
	d = list_get(dst, !append);
	s = list_find(src);
	if (d && s && d != s) {
		unsigned n = s->nr;
		for (unsigned i = 0; i < n; i++) {
			struct item sp = list_find(src)->spans[i];
			list_add(list_find(dst), &sp);
		}
	}
	pthread_mutex_unlock(&gs.lock);
}

unsigned gtrack_each_node(uint64_t handle,
			  void (*fn)(const struct gtrack_node *n, void *ctx),
			  void *ctx)
{
	struct item *copy = NULL;
	struct copy_list *l;
	unsigned n = 0;

	pthread_mutex_lock(&gs.lock);
	l = list_find(handle);
	if (l && l->nr && (copy = malloc(l->nr * sizeof(*copy)))) {
		n = l->nr;
		memcpy(copy, l->spans, n * sizeof(*copy));
	}
	pthread_mutex_unlock(&gs.lock);
	for (unsigned i = 0; i < n; i++) {
		fn(&copy[i], ctx);
	}
	free(copy);
	return n;
}

void gtrack_forget(uint64_t handle)
{
	pthread_mutex_lock(&gs.lock);
	list_drop(handle);
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_node_made(uint64_t node)
{
	pthread_mutex_lock(&gs.lock);
	member_set(&gs.nodes, &gs.nr_nodes, &gs.alloc_nodes, node, 1);
	pthread_mutex_unlock(&gs.lock);
}

int gtrack_node_known(uint64_t node)
{
	int r;

	pthread_mutex_lock(&gs.lock);
	r = member_find(gs.nodes, gs.nr_nodes, node) != NULL;
	pthread_mutex_unlock(&gs.lock);
	return r;
}
