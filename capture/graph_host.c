/* SPDX-License-Identifier: MIT */
/*
 * Graph host node wrappers (see graph_host.h): each keeps a FIFO of the
 * runs the launches announced; the trampoline takes the oldest.
 */
#include "graph_host.h"

#include <pthread.h>
#include <stdlib.h>
#include <string.h>

struct gnode_run {
	struct gnode_run *next;
	uint64_t key, position;
	uint32_t corr;
	size_t nr_seqs, nr_sources;
	uint64_t *seqs;
	struct gtrack_node *sources;
};

struct gnode_wrap {
	CUhostFn fn;
	void *user;
	pthread_mutex_t lock;
	struct gnode_run *head, *tail;
	struct gnode_wrap *next;	/* every wrapper, kept reachable */
};

static struct {
	pthread_mutex_t lock;
	struct gnode_hooks hooks;
	struct gnode_wrap *all;
} gh = { .lock = PTHREAD_MUTEX_INITIALIZER };

void gnode_set_hooks(const struct gnode_hooks *h)
{
	pthread_mutex_lock(&gh.lock);
	gh.hooks = *h;
	pthread_mutex_unlock(&gh.lock);
}

static void run_free(struct gnode_run *r)
{
	if (r) {
		free(r->seqs);
		free(r->sources);
		free(r);
	}
}

/* Whether a source still holds its recorded bytes. */
static int source_same(const struct gtrack_node *s)
{
	struct gm_hash h;

	return gm_span_hash(&s->span, &h) < 0 ||
	       (h.hi == s->hash.hi && h.lo == s->hash.lo);
}

static void CUDA_CB trampoline(void *arg)
{
	struct gnode_wrap *w = arg;
	struct gnode_run *r;
	struct gnode_hooks hk;

	pthread_mutex_lock(&w->lock);
	r = w->head;
	if (r) {
		w->head = r->next;
		if (!w->head) {
			w->tail = NULL;
		}
	}
	pthread_mutex_unlock(&w->lock);
	pthread_mutex_lock(&gh.lock);
	hk = gh.hooks;
	pthread_mutex_unlock(&gh.lock);
	if (r && hk.ready && hk.ready() && hk.start) {
		hk.start(r->key, r->position, r->seqs, r->nr_seqs);
	}
	w->fn(w->user);
	if (r && hk.ready && hk.ready() && hk.changed) {
		for (size_t i = 0; i < r->nr_sources; i++) {
			if (!source_same(&r->sources[i])) {
				hk.changed(r->corr);
				break;
			}
		}
	}
	run_free(r);
}

struct gnode_wrap *gnode_wrap_new(CUhostFn fn, void *user, CUhostFn *tramp,
				  void **arg)
{
	struct gnode_wrap *w = calloc(1, sizeof(*w));

	if (!w) {
		return NULL;
	}
	w->fn = fn;
	w->user = user;
	pthread_mutex_init(&w->lock, NULL);
	pthread_mutex_lock(&gh.lock);
	w->next = gh.all;
	gh.all = w;
	pthread_mutex_unlock(&gh.lock);
	*tramp = trampoline;
	*arg = w;
	return w;
}

struct gnode_run *gnode_expect(struct gnode_wrap *w, uint64_t key,
			       uint64_t position, uint32_t corr,
			       const uint64_t *seqs, size_t nr_seqs,
			       const struct gtrack_node *sources,
			       size_t nr_sources)
{
	struct gnode_run *r = calloc(1, sizeof(*r));

	if (!r) {
		return NULL;
	}
	r->key = key;
	r->position = position;
	r->corr = corr;
	if (nr_seqs && (r->seqs = malloc(nr_seqs * sizeof(*seqs)))) {
		memcpy(r->seqs, seqs, nr_seqs * sizeof(*seqs));
		r->nr_seqs = nr_seqs;
	}
	if (nr_sources &&
	    (r->sources = malloc(nr_sources * sizeof(*sources)))) {
		memcpy(r->sources, sources, nr_sources * sizeof(*sources));
		r->nr_sources = nr_sources;
	}
	pthread_mutex_lock(&w->lock);
	if (w->tail) {
		w->tail->next = r;
	} else {
		w->head = r;
	}
	w->tail = r;
	pthread_mutex_unlock(&w->lock);
	return r;
}

void gnode_cancel(struct gnode_wrap *w, struct gnode_run *r)
{
	struct gnode_run **at, *prev = NULL;
	int found = 0;

	pthread_mutex_lock(&w->lock);
	for (at = &w->head; *at; prev = *at, at = &(*at)->next) {
		if (*at == r) {
			*at = r->next;
			if (w->tail == r) {
				w->tail = prev;
			}
			found = 1;
			break;
		}
	}
	pthread_mutex_unlock(&w->lock);
	/* (not found: a run took it, as when another thread's launch of
	 * the same node ran first) */
	if (found) {
		run_free(r);
	}
}
