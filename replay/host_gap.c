/* SPDX-License-Identifier: MIT */
/*
 * A program's captured host time in the replay (see host_gap.h).
 */
#include "host_gap.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <stdio.h>

#include "gpumix_replay.h"
#include "kvfile.h"
#include "strbuf.h"

void gm_host_gaps_init(struct gm_host_gaps *h, const struct gm_program_desc *d,
		       const struct gm_replay_opts *o)
{
	memset(h, 0, sizeof(*h));
	h->have_tables = d->host_gap != NULL;
	h->cap_ns = UINT64_MAX;
	if (o->max_host_gap_s >= 0) {
		double ns = o->max_host_gap_s * 1e9;
		h->cap_ns = ns >= 1.8e19 ? UINT64_MAX : (uint64_t)llround(ns);
	}
	if (!h->have_tables || o->host_time != GM_HOST_TIME_CAPTURED) {
		return;
	}
	h->gap = d->host_gap;
	h->thread = d->host_thread;
	h->nr_threads = d->nr_host_threads ? d->nr_host_threads : 1;
	h->nr_ops = d->nr_ops;
	h->ret_ns = gm_xcalloc(h->nr_threads, sizeof(*h->ret_ns));
}

void gm_host_gaps_release(struct gm_host_gaps *h)
{
	/* What was spent stays, for the run's manifest. */
	free(h->ret_ns);
	h->ret_ns = NULL;
	h->nr_ops = 0;
}

void gm_host_gaps_begin(struct gm_host_gaps *h)
{
	if (h->ret_ns) {
		memset(h->ret_ns, 0, h->nr_threads * sizeof(*h->ret_ns));
	}
	h->last_ret_ns = 0;
}

static uint32_t thread_of(const struct gm_host_gaps *h, uint64_t i)
{
	return h->thread ? h->thread[i] : 0;
}

uint64_t gm_host_gaps_due(struct gm_host_gaps *h, uint64_t i)
{
	uint64_t gap, last;

	if (!h->gap || i >= h->nr_ops) {
		return 0;
	}
	gap = gm_host_gap_ns(h->gap[i]);
	last = h->ret_ns[thread_of(h, i)];
	if (!gap || !last) {
		return 0;
	}
	if (gap > h->cap_ns) {
		gap = h->cap_ns;
		h->capped++;
	}
	h->waits++;
	h->gap_ns += gap;
	return gap ? last + gap : 0;
}

/* Log-linear buckets: 64 ns wide below 1024 ns, then 16 per power of 2. */
static unsigned bucket_of(uint64_t v)
{
	unsigned msb;

	if (v < 1024) {
		return (unsigned)(v >> 6);
	}
	msb = 63u - (unsigned)__builtin_clzll(v);
	return 16 + (msb - 10) * 16 + (unsigned)((v >> (msb - 4)) & 15);
}

/* The middle of bucket @b. */
static uint64_t bucket_value(unsigned b)
{
	unsigned msb, sub;

	if (b < 16) {
		return (uint64_t)b * 64 + 32;
	}
	msb = 10 + (b - 16) / 16;
	sub = (b - 16) % 16;
	return ((uint64_t)(16 + sub) << (msb - 4)) +
	       ((uint64_t)1 << (msb - 4)) / 2;
}

void gm_host_gaps_issued(struct gm_host_gaps *h, uint64_t due_ns,
			 uint64_t now_ns)
{
	uint64_t floor = due_ns, err;

	if (h->last_ret_ns > due_ns) {
		h->order_late++;
		h->order_late_ns += h->last_ret_ns - due_ns;
		floor = h->last_ret_ns;
	}
	err = now_ns > floor ? now_ns - floor : 0;

	h->hist[bucket_of(err)]++;
	if (err > h->err_max_ns) {
		h->err_max_ns = err;
	}
}

void gm_host_gaps_returned(struct gm_host_gaps *h, uint64_t i,
			   uint64_t now_ns)
{
	if (h->gap && i < h->nr_ops) {
		h->ret_ns[thread_of(h, i)] = now_ns;
		h->last_ret_ns = now_ns;
	}
}

uint64_t gm_host_gaps_error_quantile(const struct gm_host_gaps *h, double q)
{
	uint64_t total = 0, rank, seen = 0;

	for (unsigned b = 0; b < GM_HOST_GAP_BUCKETS; b++) {
		total += h->hist[b];
	}
	if (!total) {
		return 0;
	}
	rank = (uint64_t)ceil(q * (double)total);
	if (rank < 1) {
		rank = 1;
	}
	for (unsigned b = 0; b < GM_HOST_GAP_BUCKETS; b++) {
		seen += h->hist[b];
		if (seen >= rank) {
			uint64_t v = bucket_value(b);
			return v < h->err_max_ns ? v : h->err_max_ns;
		}
	}
	return h->err_max_ns;
}

void gm_host_gaps_manifest(const struct gm_host_gaps *h, struct kvfile *kv,
			   unsigned index)
{
	char key[64];

#define KEY_(name) (snprintf(key, sizeof(key), "program.%u." name, index), key)
	kvfile_set(kv, KEY_("host_time"), h->gap ? "captured" : "none");
	if (!h->gap) {
		return;
	}
	kvfile_set_u64(kv, KEY_("host_gaps"), h->waits);
	kvfile_set_u64(kv, KEY_("host_gaps_capped"), h->capped);
	kvfile_setf(kv, KEY_("host_gap_s"), "%.6f", h->gap_ns / 1e9);
	kvfile_setf(kv, KEY_("host_error_us_median"), "%.3f",
		    gm_host_gaps_error_quantile(h, 0.5) / 1e3);
	kvfile_setf(kv, KEY_("host_error_us_p99"), "%.3f",
		    gm_host_gaps_error_quantile(h, 0.99) / 1e3);
	kvfile_setf(kv, KEY_("host_error_us_max"), "%.3f",
		    h->err_max_ns / 1e3);
	kvfile_set_u64(kv, KEY_("host_order_late"), h->order_late);
	kvfile_setf(kv, KEY_("host_order_late_s"), "%.6f",
		    h->order_late_ns / 1e9);
#undef KEY_
}
