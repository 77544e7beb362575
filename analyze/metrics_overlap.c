/* SPDX-License-Identifier: MIT */
/*
 * Overlap categories (see metrics_overlap.h). The sweep visits groups of
 * equal start times. Before a group with start s, every interval that
 * ended at or before s leaves the heap; then the group's own intervals
 * join it. The heap then holds exactly the intervals with start <= s that
 * are still running at s: for K in the group, these minus K are its
 * earlier co-runners. K is PARTIAL when the smallest end in the heap is
 * below K.end (that interval cannot be K); with no earlier co-runner, K
 * has later co-runners exactly when the next group starts before K ends.
 */
#include "metrics_overlap.h"

#include <stdlib.h>

#include "strbuf.h"

const char *gm_overlap_name(enum gm_overlap c)
{
	switch (c) {
	case GM_OVERLAP_EXCLUSIVE:
		return "EXCLUSIVE";
	case GM_OVERLAP_FULL:
		return "SHARED/FULL";
	case GM_OVERLAP_RESTRICTED:
		return "SHARED/RESTRICTED";
	case GM_OVERLAP_PARTIAL:
		return "SHARED/PARTIAL";
	case GM_OVERLAP_COUNT:
		break;
	}
	return "?";
}

struct heap {
	int64_t *v;
	size_t n;
};

static void heap_push(struct heap *h, int64_t x)
{
	size_t i = h->n++;

	while (i) {
		size_t parent = (i - 1) / 2;
		if (h->v[parent] <= x) {
			break;
		}
		h->v[i] = h->v[parent];
		i = parent;
	}
	h->v[i] = x;
}

static void heap_pop(struct heap *h)
{
	int64_t x = h->v[--h->n];
	size_t i = 0;

	for (;;) {
		size_t c = 2 * i + 1;
		if (c >= h->n) {
			break;
		}
		if (c + 1 < h->n && h->v[c + 1] < h->v[c]) {
			c++;
		}
		if (h->v[c] >= x) {
			break;
		}
		h->v[i] = h->v[c];
		i = c;
	}
	if (h->n) {
		h->v[i] = x;
	}
}

struct keyed {
	int64_t start;
	size_t i;
};

static int cmp_start(const void *a, const void *b)
{
	int64_t x = ((const struct keyed *)a)->start;
	int64_t y = ((const struct keyed *)b)->start;

	return x < y ? -1 : x > y;
}

void gm_overlap_classify(const struct gm_interval *iv, size_t n,
			 unsigned char *out)
{
	struct keyed *ks = gm_xmalloc((n ? n : 1) * sizeof(*ks));
	struct heap h = { gm_xmalloc((n ? n : 1) * sizeof(int64_t)), 0 };
	size_t m = 0;

	for (size_t i = 0; i < n; i++) {
		out[i] = GM_OVERLAP_EXCLUSIVE;
		if (iv[i].end > iv[i].start) {
			ks[m].start = iv[i].start;
			ks[m++].i = i;
		}
	}
	qsort(ks, m, sizeof(*ks), cmp_start);
	for (size_t g = 0; g < m;) {
		int64_t s = ks[g].start;
		size_t ge = g;
		while (ge < m && ks[ge].start == s) {
			ge++;
		}
		while (h.n && h.v[0] <= s) {
			heap_pop(&h);
		}
		for (size_t i = g; i < ge; i++) {
			heap_push(&h, iv[ks[i].i].end);
		}
		for (size_t i = g; i < ge; i++) {
			const struct gm_interval *k = &iv[ks[i].i];
			unsigned char c;
			if (h.n >= 2) {
				c = h.v[0] < k->end ? GM_OVERLAP_PARTIAL
					: GM_OVERLAP_RESTRICTED;
			} else if (ge < m && ks[ge].start < k->end) {
				c = GM_OVERLAP_FULL;
			} else {
				c = GM_OVERLAP_EXCLUSIVE;
			}
			out[ks[i].i] = c;
		}
		g = ge;
	}
	free(ks);
	free(h.v);
}
