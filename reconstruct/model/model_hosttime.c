/* SPDX-License-Identifier: MIT */
/*
 * The model's captured host time (model.h, model_set_host_time()): every
 * operation is tagged, as it is added, with its call's captured thread,
 * entry and return on that thread's clean clock; at model_finish() each
 * operation gets its host gap, the time its thread spent between the
 * return of its previous operation and this one's entry. That time holds
 * what the replay does not issue (the program's own work, the calls
 * gpumix does not record or replays at init), which the captured program
 * spent with its GPU idle as far as this thread was concerned. A replay
 * is the program's GPU section, from its first GPU operation (a copy,
 * memset, launch or synchronization: the calls gm_api_gpu_op() names) to
 * its last: the host time before the first and after the last (an
 * allocation, then seconds of data loading, then the first copy) is not
 * spent. Threads become small indices in the order of their first
 * operation, so the tables are the same for the same trace.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "model_int.h"

/* A replay table's thread index is 16 bits wide. */
#define MAX_HOST_THREADS 65536u

void model_set_host_time(struct model_prog *p, uint32_t tid,
			 uint64_t enter_ns, uint64_t exit_ns)
{
	p->host_time = 1;
	p->cur_tid = tid;
	p->cur_in = enter_ns;
	p->cur_out = exit_ns;
}

/* Index of captured thread @tid among @tids (added when new). */
static uint32_t thread_index(uint32_t **tids, uint32_t *nr, size_t *alloc,
			     uint32_t tid)
{
	for (uint32_t i = *nr; i > 0; i--) {
		if ((*tids)[i - 1] == tid) {
			return i - 1;
		}
	}
	GM_ALLOC_GROW(*tids, *nr + 1, *alloc);
	(*tids)[*nr] = tid;
	return (*nr)++;
}

/* An operation that puts work on the GPU or waits for it. */
static int gpu_op(const struct mop *op)
{
	switch (model_op_group(op->code)) {
	case GM_OPG_COPY:
	case GM_OPG_MEMSET:
	case GM_OPG_LAUNCH:
	case GM_OPG_SYNC:
		return 1;
	default:
		return op->code == GM_OP_GRAPH_LAUNCH ||
		       op->code == GM_OP_PREFETCH;
	}
}

int model_hosttime_finish(struct model_prog *p)
{
	uint32_t *tids = NULL, nr = 0;
	uint64_t *last_out = NULL;
	size_t alloc = 0, alloc_out = 0;
	uint16_t *thread;
	size_t first = p->nr_ops, last = 0;
	int ret = 0;

	if (!p->host_time || !p->nr_ops || p->host_gap) {
		return 0;
	}
	for (size_t i = 0; i < p->nr_ops; i++) {
		if (gpu_op(&p->ops[i])) {
			first = first < i ? first : i;
			last = i;
		}
	}
	p->host_gap = gm_xcalloc(p->nr_ops, sizeof(*p->host_gap));
	thread = gm_xcalloc(p->nr_ops, sizeof(*thread));
	for (size_t i = 0; i < p->nr_ops; i++) {
		const struct mop *op = &p->ops[i];
		uint32_t t = thread_index(&tids, &nr, &alloc, op->tid);
		uint64_t gap = 0;

		if (t >= MAX_HOST_THREADS) {
			ret = gm_error("program '%s': operations from more than "
				       "%u captured threads", p->name,
				       MAX_HOST_THREADS);
			break;
		}
		if (t >= alloc_out) {
			size_t was = alloc_out;
			GM_ALLOC_GROW(last_out, (size_t)t + 1, alloc_out);
			memset(last_out + was, 0,
			       (alloc_out - was) * sizeof(*last_out));
		}
		/* 0 in last_out: the thread's first operation. Operations of
		 * one call share its times: the later ones get 0. */
		if (last_out[t] && op->host_in > last_out[t] && i > first &&
		    i <= last) {
			gap = op->host_in - last_out[t];
		}
		if (gap > GM_HOST_GAP_MAX_NS) {
			p->nr_host_gap_saturated++;
		}
		p->host_gap[i] = gm_host_gap_code(gap);
		p->host_gap_total_ns += gm_host_gap_ns(p->host_gap[i]);
		thread[i] = (uint16_t)t;
		if (op->host_out) {
			last_out[t] = op->host_out;
		}
	}
	p->nr_host_threads = nr;
	if (nr > 1 && !ret) {
		p->host_thread = thread;
	} else {
		free(thread);
	}
	free(tids);
	free(last_out);
	return ret;
}

void model_hosttime_free(struct model_prog *p)
{
	free(p->host_gap);
	free(p->host_thread);
}
