/* SPDX-License-Identifier: MIT */
/*
 * Capture and graph bookkeeping (see graph_track.h). Programs hold few
 * graphs and capture in few streams at a time, so each table is a small
 * array searched in order under one mutex. A graph is a list of nodes
 * and a list of edges between them (indices into the nodes). In a
 * capture, only the nodes the capture follows are listed: each stream's
 * frontier is the set of listed nodes its work so far follows, so a new
 * node follows the frontier, and work that is not listed (a kernel)
 * passes the frontier on unchanged, which keeps who follows whom.
 */
#include "graph_track.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct item {
	struct gtrack_node n;
	uint64_t node;		/* its CUgraphNode, 0: not known */
	size_t child_nr;	/* a child graph node's: how many items of its
				   child's copy are right before it */
};

struct edge {
	uint32_t from, to;
};

/* A capture in progress, a graph or an executable graph. */
struct glist {
	uint64_t handle;	/* capture id, graph or executable graph */
	uint64_t into;		/* a capture into a graph: that graph */
	struct item *items;
	size_t nr, alloc;
	struct edge *edges;
	size_t nr_edges, alloc_edges;
};

/* Listed nodes (indices into a capture's list). */
struct frontier {
	uint32_t *v;
	size_t nr, alloc;
};

/* A stream or an event that belongs to capture @capture, and the nodes
 * it follows there. */
struct member {
	uint64_t key;
	uint64_t capture;
	struct frontier f;
};

struct gtrack_state {
	pthread_mutex_t lock;
	uint64_t next_capture;
	struct glist *lists;		/* captures and graphs alike */
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

static struct glist *list_find(uint64_t handle)
{
	for (size_t i = 0; i < gs.nr_lists; i++) {
		if (gs.lists[i].handle == handle) {
			return &gs.lists[i];
		}
	}
	return NULL;
}

static void list_clear(struct glist *l)
{
	l->nr = 0;
	l->nr_edges = 0;
}

/* The list of @handle, made empty when @reset, created when missing. */
static struct glist *list_get(uint64_t handle, int reset)
{
	struct glist *l = list_find(handle);

	if (!l) {
		if (grow((void **)&gs.lists, &gs.alloc_lists, gs.nr_lists + 1,
			 sizeof(*gs.lists)) < 0) {
			return NULL;
		}
		l = &gs.lists[gs.nr_lists++];
		memset(l, 0, sizeof(*l));
		l->handle = handle;
	} else if (reset) {
		list_clear(l);
	}
	return l;
}

/* Add @it to @l: its index, or -1 without memory (then the node's
 * results go unverified, its host nodes hash nothing early). */
static long list_add(struct glist *l, const struct item *it)
{
	if (!l || grow((void **)&l->items, &l->alloc, l->nr + 1,
		       sizeof(*l->items)) < 0) {
		return -1;
	}
	l->items[l->nr] = *it;
	return (long)l->nr++;
}

static void edge_add(struct glist *l, long from, long to)
{
	if (!l || from < 0 || to < 0 || from == to || (size_t)from >= l->nr ||
	    (size_t)to >= l->nr ||
	    grow((void **)&l->edges, &l->alloc_edges, l->nr_edges + 1,
		 sizeof(*l->edges)) < 0) {
		return;
	}
	l->edges[l->nr_edges].from = (uint32_t)from;
	l->edges[l->nr_edges].to = (uint32_t)to;
	l->nr_edges++;
}

/* @src's nodes and edges added after @dst's (a capture into a graph
 * that had nodes: the edges from those it began after are not known
 * here, so none are added). */
static void list_append(struct glist *dst, const struct glist *src)
{
	size_t base = dst->nr;

	for (size_t i = 0; i < src->nr; i++) {
		if (list_add(dst, &src->items[i]) < 0) {
			return;
		}
	}
	for (size_t i = 0; i < src->nr_edges; i++) {
		edge_add(dst, (long)(base + src->edges[i].from),
			 (long)(base + src->edges[i].to));
	}
}

/* @dst becomes a copy of @src's nodes and edges (@dst is emptied first). */
static void list_copy(struct glist *dst, const struct glist *src)
{
	size_t ai = dst->alloc, ae = dst->alloc_edges;

	list_clear(dst);
	if (grow((void **)&dst->items, &ai, src->nr, sizeof(*dst->items)) < 0 ||
	    grow((void **)&dst->edges, &ae, src->nr_edges,
		 sizeof(*dst->edges)) < 0) {
		dst->alloc = ai;
		dst->alloc_edges = ae;
		return;
	}
	dst->alloc = ai;
	dst->alloc_edges = ae;
	if (src->nr) {
		memcpy(dst->items, src->items, src->nr * sizeof(*src->items));
	}
	if (src->nr_edges) {
		memcpy(dst->edges, src->edges,
		       src->nr_edges * sizeof(*src->edges));
	}
	dst->nr = src->nr;
	dst->nr_edges = src->nr_edges;
}

static void list_drop(uint64_t handle)
{
	struct glist *l = list_find(handle);

	if (l) {
		free(l->items);
		free(l->edges);
		*l = gs.lists[--gs.nr_lists];
	}
}

/* The index of node @node in @l (the latest), or -1. */
static long node_index(const struct glist *l, uint64_t node)
{
	for (size_t i = l->nr; node && i-- > 0;) {
		if (l->items[i].node == node) {
			return (long)i;
		}
	}
	return -1;
}

static void frontier_set1(struct frontier *f, long idx)
{
	f->nr = 0;
	if (idx >= 0 && grow((void **)&f->v, &f->alloc, 1, sizeof(*f->v)) == 0) {
		f->v[f->nr++] = (uint32_t)idx;
	}
}

static void frontier_merge(struct frontier *f, const struct frontier *g)
{
	for (size_t i = 0; i < g->nr; i++) {
		size_t k;
		for (k = 0; k < f->nr && f->v[k] != g->v[i]; k++) {
		}
		if (k == f->nr && grow((void **)&f->v, &f->alloc, f->nr + 1,
				       sizeof(*f->v)) == 0) {
			f->v[f->nr++] = g->v[i];
		}
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

static void member_del(struct member *m, size_t *nr, struct member *e)
{
	free(e->f.v);
	*e = m[--*nr];
}

/* Set (or with @capture 0 clear) what @key belongs to; the member, with
 * its frontier kept when it already belonged to @capture and emptied
 * otherwise, or NULL. */
static struct member *member_set(struct member **m, size_t *nr, size_t *alloc,
				 uint64_t key, uint64_t capture)
{
	struct member *e = member_find(*m, *nr, key);

	if (e && !capture) {
		member_del(*m, nr, e);
		return NULL;
	}
	if (e) {
		if (e->capture != capture) {
			e->f.nr = 0;
		}
		e->capture = capture;
		return e;
	}
	if (capture && grow((void **)m, alloc, *nr + 1, sizeof(**m)) == 0) {
		e = &(*m)[(*nr)++];
		memset(e, 0, sizeof(*e));
		e->key = key;
		e->capture = capture;
		return e;
	}
	return NULL;
}

static struct member *stream_of(uint64_t key)
{
	return member_find(gs.streams, gs.nr_streams, key);
}

static uint64_t capture_of(uint64_t key)
{
	struct member *e = stream_of(key);

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

void gtrack_begin_to(uint64_t key, uint64_t graph)
{
	uint64_t id;
	struct glist *l;

	pthread_mutex_lock(&gs.lock);
	id = CAPTURE_BIT | ++gs.next_capture;
	member_set(&gs.streams, &gs.nr_streams, &gs.alloc_streams, key, id);
	l = list_get(id, 1);
	if (l) {
		l->into = graph;
	}
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

/*
 * Node @it issued on capturing stream @s: it follows the stream's
 * frontier; @advance: the stream's later work follows it (a record is
 * not on the stream's path). Called with the lock held.
 */
static long capture_add(struct member *s, const struct item *it, int advance)
{
	struct glist *l = list_find(s->capture);
	long idx = list_add(l, it);

	for (size_t i = 0; idx >= 0 && i < s->f.nr; i++) {
		edge_add(l, s->f.v[i], idx);
	}
	if (advance && idx >= 0) {
		frontier_set1(&s->f, idx);
	}
	return idx;
}

void gtrack_event_record(uint64_t event, uint64_t key)
{
	struct item it = { { GTRACK_EVENT, { 0 }, event, { 0, 0 }, NULL },
			   0, 0 };
	struct member *s, *e;

	pthread_mutex_lock(&gs.lock);
	s = stream_of(key);
	e = member_set(&gs.events, &gs.nr_events, &gs.alloc_events, event,
		       s ? s->capture : 0);
	if (s && e) {
		e->f.nr = 0;
		frontier_merge(&e->f, &s->f);
		capture_add(s, &it, 0);	/* a record node */
	}
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_stream_wait(uint64_t key, uint64_t event)
{
	struct member *e, *s;

	pthread_mutex_lock(&gs.lock);
	e = member_find(gs.events, gs.nr_events, event);
	if (e && list_find(e->capture)) {
		s = member_set(&gs.streams, &gs.nr_streams, &gs.alloc_streams,
			       key, e->capture);
		if (s) {
			frontier_merge(&s->f, &e->f);
		}
	}
	pthread_mutex_unlock(&gs.lock);
}

/* Add @it to @key's capture, if any: 1 when it was capturing. */
static int capture_item(uint64_t key, const struct item *it)
{
	struct member *s;

	pthread_mutex_lock(&gs.lock);
	s = stream_of(key);
	if (s) {
		capture_add(s, it, 1);
	}
	pthread_mutex_unlock(&gs.lock);
	return s != NULL;
}

int gtrack_capture_copy(uint64_t key, const struct gm_span *span)
{
	struct item it = { { GTRACK_COPY, *span, 0, { 0, 0 }, NULL },
			   0, 0 };

	return capture_item(key, &it);
}

int gtrack_capture_host(uint64_t key, void *host)
{
	struct item it = { { GTRACK_HOST, { 0 }, 0, { 0, 0 }, host },
			   0, 0 };

	return capture_item(key, &it);
}

/* A host source as it is now: its content is checked at each launch. */
static int source_item(const struct gm_span *span, struct item *it)
{
	memset(it, 0, sizeof(*it));
	it->n.kind = GTRACK_SOURCE;
	it->n.span = *span;
	return gm_span_hash(span, &it->n.hash);
}

void gtrack_capture_source(uint64_t key, const struct gm_span *span)
{
	struct item it;

	if (!gtrack_capturing(key) || source_item(span, &it) < 0) {
		return;
	}
	capture_item(key, &it);
}

void gtrack_end(uint64_t key, uint64_t graph)
{
	uint64_t id;
	struct glist *c, *g;
	int into;

	pthread_mutex_lock(&gs.lock);
	id = capture_of(key);
	if (id) {
		/* A capture into a graph adds to what the graph has. */
		c = list_find(id);
		into = c && graph && c->into == graph;
		g = graph ? list_get(graph, !into) : NULL;
		c = list_find(id);	/* after list_get: it may move lists */
		if (g && c) {
			if (into) {
				list_append(g, c);
			} else {
				list_copy(g, c);
			}
		}
		list_drop(id);
		/* Every stream that joined the capture leaves it. */
		for (size_t i = gs.nr_streams; i-- > 0;) {
			if (gs.streams[i].capture == id) {
				member_del(gs.streams, &gs.nr_streams,
					   &gs.streams[i]);
			}
		}
	}
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_graph_node(uint64_t graph, uint64_t node, const uint64_t *deps,
		       size_t n, const struct gtrack_node *what)
{
	struct item it;
	struct glist *l;
	long idx;

	memset(&it, 0, sizeof(it));
	if (what->kind == GTRACK_SOURCE) {
		if (source_item(&what->span, &it) < 0) {
			memset(&it, 0, sizeof(it));	/* an edge node */
		}
	} else {
		it.n = *what;
	}
	it.node = node;
	pthread_mutex_lock(&gs.lock);
	l = list_get(graph, 0);
	idx = list_add(l, &it);
	for (size_t i = 0; l && idx >= 0 && i < n; i++) {
		edge_add(l, node_index(l, deps[i]), idx);
	}
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_graph_edges(uint64_t graph, const uint64_t *pairs, size_t n)
{
	struct glist *l;

	pthread_mutex_lock(&gs.lock);
	l = list_find(graph);
	for (size_t i = 0; l && i < n; i++) {
		edge_add(l, node_index(l, pairs[2 * i]),
			 node_index(l, pairs[2 * i + 1]));
	}
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_graph_child(uint64_t graph, uint64_t node, const uint64_t *deps,
			size_t n, uint64_t child)
{
	struct item entry, out;
	struct glist *l, *c;
	long in_idx, base, out_idx;

	memset(&entry, 0, sizeof(entry));
	memset(&out, 0, sizeof(out));
	out.node = node;
	pthread_mutex_lock(&gs.lock);
	l = list_get(graph, 0);		/* first: it may move the lists */
	c = list_find(child);
	if (!l || !c || l == c) {
		pthread_mutex_unlock(&gs.lock);
		return;
	}
	/* The child's nodes follow the node's dependencies (an entry node)
	 * and the node's dependents follow all of them (the node). */
	in_idx = list_add(l, &entry);
	for (size_t i = 0; in_idx >= 0 && i < n; i++) {
		edge_add(l, node_index(l, deps[i]), in_idx);
	}
	base = (long)l->nr;
	for (size_t i = 0; i < c->nr; i++) {
		struct item it = c->items[i];
		it.node = 0;	/* the copy's nodes are not the child's */
		list_add(l, &it);
	}
	for (size_t i = 0; i < c->nr_edges; i++) {
		edge_add(l, base + c->edges[i].from, base + c->edges[i].to);
	}
	out.child_nr = c->nr;
	out_idx = list_add(l, &out);
	for (size_t i = 0; i < c->nr; i++) {
		edge_add(l, in_idx, base + (long)i);
		edge_add(l, base + (long)i, out_idx);
	}
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_inherit(uint64_t dst, uint64_t src)
{
	struct glist *d, *s;

	pthread_mutex_lock(&gs.lock);
	d = list_get(dst, 1);
	s = list_find(src);
	if (d && s && d != s) {
		list_copy(d, s);
	}
	pthread_mutex_unlock(&gs.lock);
}

void gtrack_exec_child(uint64_t exec, uint64_t node, uint64_t child)
{
	struct glist *x, *c;
	long out;

	pthread_mutex_lock(&gs.lock);
	x = list_find(exec);
	c = list_find(child);
	out = x ? node_index(x, node) : -1;
	/* gtrack_graph_child() put the child's copy right before the node
	 * (its out item); the new child has as many nodes and the same
	 * edges, only what they do changes. */
	if (c && x != c && out >= 0 && x->items[out].child_nr == c->nr) {
		for (size_t i = 0; i < c->nr; i++) {
			struct item it = c->items[i];
			it.node = 0;
			x->items[(size_t)out - c->nr + i] = it;
		}
	}
	pthread_mutex_unlock(&gs.lock);
}

/*
 * The copies each host node of @l follows: a walk back along the edges
 * from each host node (an edge list sorted by target, CSR). Returns 0 or
 * -1 without memory (then no host node follows any copy).
 */
static int host_ancestry(const struct glist *l, struct gtrack_launch *out)
{
	size_t nr = l->nr, nc = 0, ac = 0;
	uint32_t *start = calloc(nr + 1, sizeof(*start));
	uint32_t *from = malloc((l->nr_edges + 1) * sizeof(*from));
	uint32_t *fill = calloc(nr + 1, sizeof(*fill));
	uint32_t *stack = malloc((nr + 1) * sizeof(*stack));
	uint8_t *seen = malloc(nr + 1);
	int ret = -1;

	out->first = calloc(nr, sizeof(*out->first));
	out->count = calloc(nr, sizeof(*out->count));
	if (!start || !from || !fill || !stack || !seen || !out->first ||
	    !out->count) {
		goto out;
	}
	for (size_t e = 0; e < l->nr_edges; e++) {
		start[l->edges[e].to + 1]++;
	}
	for (size_t i = 0; i < nr; i++) {
		start[i + 1] += start[i];
	}
	for (size_t e = 0; e < l->nr_edges; e++) {
		uint32_t to = l->edges[e].to;
		from[start[to] + fill[to]++] = l->edges[e].from;
	}
	for (size_t h = 0; h < nr; h++) {
		size_t sp = 0;
		if (l->items[h].n.kind != GTRACK_HOST) {
			continue;
		}
		memset(seen, 0, nr);
		out->first[h] = (uint32_t)nc;
		stack[sp++] = (uint32_t)h;
		seen[h] = 1;
		while (sp) {
			uint32_t v = stack[--sp];
			for (uint32_t k = start[v]; k < start[v + 1]; k++) {
				uint32_t u = from[k];
				if (seen[u]) {
					continue;
				}
				seen[u] = 1;
				stack[sp++] = u;
				if (l->items[u].n.kind != GTRACK_COPY) {
					continue;
				}
				if (nc == ac) {
					size_t na = ac ? 2 * ac : 16;
					uint32_t *q = realloc(out->copies,
							      na * sizeof(*q));
					if (!q) {
						goto out;
					}
					out->copies = q;
					ac = na;
				}
				out->copies[nc++] = u;
				out->count[h]++;
			}
		}
	}
	ret = 0;
out:
	free(start);
	free(from);
	free(fill);
	free(stack);
	free(seen);
	return ret;
}

void gtrack_launch_release(struct gtrack_launch *l)
{
	free(l->nodes);
	free(l->first);
	free(l->count);
	free(l->copies);
	memset(l, 0, sizeof(*l));
}

unsigned gtrack_launch_view(uint64_t exec, struct gtrack_launch *out)
{
	struct glist *l;
	int hosts = 0;

	memset(out, 0, sizeof(*out));
	pthread_mutex_lock(&gs.lock);
	l = list_find(exec);
	if (l && l->nr && (out->nodes = malloc(l->nr * sizeof(*out->nodes)))) {
		out->nr = (unsigned)l->nr;
		for (size_t i = 0; i < l->nr; i++) {
			out->nodes[i] = l->items[i].n;
			hosts |= out->nodes[i].kind == GTRACK_HOST;
		}
		if (hosts && host_ancestry(l, out) < 0) {
			free(out->first);
			free(out->count);
			free(out->copies);
			out->first = out->count = out->copies = NULL;
		}
	}
	pthread_mutex_unlock(&gs.lock);
	return out->nr;
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
