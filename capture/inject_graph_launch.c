/* SPDX-License-Identifier: MIT */
/*
 * Launches of CUDA graphs (cuGraphLaunch). At the entry of the call,
 * before the driver runs any of it (CUDA's thread may run a host node of
 * the launch before the call returns), the launch's copy nodes become
 * pending copies of its stream, delivered at the next synchronization
 * that covers the launch or at the start of a host node that follows
 * them; its event record nodes are recorded after the copies made before
 * them; its host nodes are told what their run for this launch completes
 * (graph_host.h). A host source that changed since its node was made is
 * reported (the replay copies what was recorded), before the launch and
 * while a host node runs. A failed launch takes back what its entry set
 * up. What the capture knows of each graph is graph_track.c's.
 */
#include <cuda.h>
#include <cupti.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "api.h"
#include "emit.h"
#include "graph_host.h"
#include "graph_track.h"
#include "inject.h"
#include "tracking.h"

/* What a graph launch whose host sources changed is reported as, before
 * the launch and while a host node of the launch ran. */
#define GRAPH_SOURCE_CHANGED "cuGraphLaunch.changed_host_source"
#define GRAPH_HOST_NODE_CHANGED "cuGraphLaunch.host_node_changed_source"

/*
 * What a graph launch's entry set up, undone at its exit if the launch
 * failed: the pending copies (by sequence number) and the host-node runs
 * it announced. (Another pending copy it overwrote stays overwritten: a
 * lost check, never a wrong one.)
 */
struct launch_setup {
	uint64_t *seqs;
	size_t nr_seqs;
	struct gnode_wrap **wraps;
	struct gnode_run **runs;
	size_t nr_runs;
};

static void launch_setup_free(struct launch_setup *ls)
{
	if (ls) {
		free(ls->seqs);
		free(ls->wraps);
		free(ls->runs);
		free(ls);
	}
}

static void drop_pending(const struct gm_pending *p, void *ctx)
{
	(void)p;
	(void)ctx;
}

/* cuGraphLaunch failed: its copies deliver nothing, its nodes never run. */
static void launch_setup_undo(struct launch_setup *ls)
{
	track_pending_complete_seqs(ls->seqs, ls->nr_seqs, drop_pending, NULL);
	for (size_t i = 0; i < ls->nr_runs; i++) {
		if (ls->runs[i]) {
			gnode_cancel(ls->wraps[i], ls->runs[i]);
		}
	}
}

/*
 * A graph launch of @exec on stream @key, made at correlation id @corr,
 * at the entry of its call (CUDA's thread may run a host node of it
 * before the call returns): its copy nodes deliver at the next
 * synchronization that covers the launch, or at the start of a host node
 * that follows them (graph_host.h); its event record nodes are recorded
 * after the copies made before them. What it set up goes to *@setup
 * (NULL without memory: a failed launch then leaves it). Returns 1 when
 * a host source changed since its node was made (the replay would copy
 * what was recorded).
 */
static int graph_launch(int api, uint32_t corr, uint64_t key, uint64_t exec,
			struct launch_setup **setup)
{
	struct gtrack_launch v;
	uint64_t position = track_position();	/* before its copies */
	uint64_t *seq = NULL, *mine = NULL;
	struct gtrack_node *src = NULL;
	struct launch_setup *ls;
	size_t nr_src = 0;
	int changed = 0, hosts = 0;

	*setup = NULL;
	if (!gtrack_launch_view(exec, &v)) {
		return 0;
	}
	for (unsigned i = 0; i < v.nr; i++) {
		hosts += v.nodes[i].kind == GTRACK_HOST;
	}
	seq = calloc(v.nr + 1, sizeof(*seq));
	ls = calloc(1, sizeof(*ls));
	if (ls) {
		ls->seqs = calloc(v.nr + 1, sizeof(*ls->seqs));
		ls->wraps = calloc((size_t)hosts + 1, sizeof(*ls->wraps));
		ls->runs = calloc((size_t)hosts + 1, sizeof(*ls->runs));
		if (!ls->seqs || !ls->wraps || !ls->runs) {
			launch_setup_free(ls);
			ls = NULL;
		}
	}
	if (hosts) {
		mine = calloc(v.nr + 1, sizeof(*mine));
		src = calloc(v.nr, sizeof(*src));
	}
	for (unsigned i = 0; i < v.nr; i++) {
		const struct gtrack_node *n = &v.nodes[i];
		struct gm_pending now;
		struct gm_hash h;

		switch (n->kind) {
		case GTRACK_EVENT:
			track_event_record(n->event, key);
			break;
		case GTRACK_SOURCE:
			if (gm_span_hash(&n->span, &h) == 0 &&
			    (h.hi != n->hash.hi || h.lo != n->hash.lo)) {
				changed = 1;
			}
			if (src) {
				src[nr_src++] = *n;
			}
			break;
		case GTRACK_COPY:
			gm_capture_add(d2h_bytes, gm_span_size(&n->span));
			if (track_pending_add(api, corr, key, &n->span,
					      seq ? &seq[i] : NULL) == 0) {
				if (seq && ls) {
					ls->seqs[ls->nr_seqs++] = seq[i];
				}
				break;
			}
			/* no memory: hash at once, best effort */
			memset(&now, 0, sizeof(now));
			now.api = api;
			now.corr = corr;
			now.key = key;
			now.span = n->span;
			emit_d2h(&now, NULL);
			break;
		case GTRACK_HOST:
		case GTRACK_OTHER:
			break;
		}
	}
	for (unsigned i = 0; hosts && i < v.nr; i++) {
		struct gnode_run *run;
		size_t k = 0;

		if (v.nodes[i].kind != GTRACK_HOST) {
			continue;
		}
		for (uint32_t c = 0; seq && mine && v.first && c < v.count[i];
		     c++) {
			mine[k++] = seq[v.copies[v.first[i] + c]];
		}
		run = gnode_expect(v.nodes[i].host, key, position, corr, mine,
				   k, src, nr_src);
		if (ls) {
			ls->wraps[ls->nr_runs] = v.nodes[i].host;
			ls->runs[ls->nr_runs++] = run;
		}
		/* What it completes is seen before later copies on the
		 * launch's stream write. */
		track_pending_watch(key, position);
		track_pending_watch_seqs(key, mine, k);
	}
	free(seq);
	free(mine);
	free(src);
	gtrack_launch_release(&v);
	*setup = ls;
	return changed;
}

/* The hooks of graph host nodes (graph_host.h). */
static void host_node_start(uint64_t key, uint64_t position,
			    const uint64_t *seqs, size_t nr_seqs)
{
	track_pending_complete_at(key, position, emit_d2h, NULL);
	track_pending_complete_seqs(seqs, nr_seqs, emit_d2h,
				    (void *)&results_host_node_flags);
}

/*
 * A graph host node changed a host-to-device source of its graph while
 * it ran (on CUDA's thread): the replay copies what the node was made
 * with at every launch, so the launch at @corr is reported.
 */
static void host_node_changed(uint32_t corr)
{
	unsupported_at(corr, 0, CUPTI_DRIVER_TRACE_CBID_cuGraphLaunch, 0,
		       GRAPH_HOST_NODE_CHANGED);
}

const struct gnode_hooks graph_host_node_hooks = {
	.start = host_node_start,
	.changed = host_node_changed,
	.ready = gm_capture_ready,
};

/* The launched graph is the first word; the entry passes what it set up
 * to the exit in the call's correlation data. */
void sp_graph_launch(struct sp_call *c)
{
	struct launch_setup *ls;

	c->a[0] = c->params ? (uintptr_t)*(const CUgraphExec *)c->params : 0;
	if (!c->exit) {
		/* The replay copies what the node was made with. */
		if (graph_launch(c->api, c->r->corr, c->key, c->a[0], &ls)) {
			sp_unsupported_named(c, GRAPH_SOURCE_CHANGED);
		}
		*c->cb->correlationData = (uintptr_t)ls;
		return;
	}
	ls = (struct launch_setup *)(uintptr_t)*c->cb->correlationData;
	if (ls && !c->ok) {
		launch_setup_undo(ls);
	}
	launch_setup_free(ls);
}
