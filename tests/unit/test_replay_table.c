/* SPDX-License-Identifier: MIT */
/*
 * The API table drives reconstruct: every recorded call whose row names a
 * replay kind is turned into the model by a handler of bundle_feed.c, the
 * per-thread-stream twins replay exactly as their base call, and the calls
 * that are not replayed yet are the known list (a row that gains a kind
 * must gain a handler, and one that loses it shows here).
 */
#include <stdio.h>
#include <string.h>

#include "api.h"
#include "reconstruct/trace/bundle_feed.h"
#include "test.h"

/* Recorded, not replayed yet: reconstruct reports them as unsupported. */
static const char *const not_yet[] = {
	"cuTensorMapEncodeTiled", "cuTensorMapReplaceAddress",
	"cuSurfObjectCreate", "cuSurfObjectDestroy",
};

static int is_not_yet(const char *name)
{
	for (size_t i = 0; i < sizeof(not_yet) / sizeof(not_yet[0]); i++) {
		if (!strcmp(not_yet[i], name)) {
			return 1;
		}
	}
	return 0;
}

int main(void)
{
	int unhandled = 0, handled = 0, bad_none = 0, twins = 0, bad_twin = 0;
	int kind_seen[GM_RK_COUNT] = { 0 }, unused = 0;
	char a[1024], b[1024];

	for (int i = 0; i < GM_API_COUNT; i++) {
		const struct gm_api_desc *d = &gm_api_table[i];
		const struct gm_api_desc *base = &gm_api_table[d->base];

		kind_seen[d->replay] = 1;
		if (d->replay != GM_RK_NONE) {
			if (!bundle_feed_handles(i)) {
				printf("# %s: replay kind %s has no handler\n",
				       d->name, gm_replay_kind_name(d->replay));
				unhandled++;
			}
			handled++;
		} else if (bundle_feed_handles(i)) {
			printf("# %s: kind NONE, yet handled\n", d->name);
			unhandled++;
		}
		/* NONE is a query or a known gap, never a forgotten row. */
		if (d->cls == GM_CLASS_REPLAYED && d->replay == GM_RK_NONE &&
		    !is_not_yet(base->name)) {
			printf("# %s: recorded, but has no replay kind\n",
			       d->name);
			bad_none++;
		}
		if (d->cls == GM_CLASS_REPLAYED && d->replay != GM_RK_NONE &&
		    is_not_yet(base->name)) {
			printf("# %s: replayed now: take it off the list\n",
			       d->name);
			bad_none++;
		}
		if (d->cls == GM_CLASS_IGNORED && d->replay != GM_RK_NONE) {
			printf("# %s: a query with a replay kind\n", d->name);
			bad_none++;
		}
		if (d->base == i) {
			bad_twin += d->flavour != GM_FLAVOUR_LEGACY;
			continue;
		}
		/* A twin: base's name with its flavour's suffix, base's rest. */
		twins++;
		snprintf(a, sizeof(a), "%s_%s", base->name,
			 d->flavour == GM_FLAVOUR_PTDS ? "ptds" : "ptsz");
		gm_api_signature(i, b, sizeof(b));
		bad_twin += strcmp(a, d->name) != 0 ||
			    d->flavour == GM_FLAVOUR_LEGACY ||
			    base->base != d->base || d->cls != base->cls ||
			    d->special != base->special ||
			    d->replay != base->replay;
		gm_api_signature(d->base, a, sizeof(a));
		/* the signatures differ only in the name */
		bad_twin += strcmp(strchr(a, ' '), strchr(b, ' ')) != 0;
	}
	CHECK_INT(unhandled, 0, "every row with a replay kind has a handler, "
		  "and NONE has none");
	CHECK(handled > 100, "most recorded calls are replayed");
	CHECK_INT(bad_none, 0, "the rows without a replay kind are queries and "
		  "the known gaps");
	CHECK_INT(twins, 53, "the per-thread-stream twins are rows of their "
		  "own");
	CHECK_INT(bad_twin, 0, "each twin has its base's name, class, special "
		  "case, replay kind and layout");
	for (int k = 0; k < GM_RK_COUNT; k++) {
		if (!kind_seen[k]) {
			printf("# replay kind %s: no row\n",
			       gm_replay_kind_name((enum gm_replay_kind)k));
			unused++;
		}
	}
	CHECK_INT(unused, 0, "every replay kind serves a row");
	CHECK(!bundle_feed_handles(-1) && !bundle_feed_handles(GM_API_COUNT),
	      "a bad id is not handled");
	CHECK_STR(gm_replay_kind_name(GM_RK_H2D_ASYNC), "H2D_ASYNC",
		  "replay kind name");
	CHECK_INT(gm_api_table[GM_API_cuMemcpyHtoD_v2_ptds].base,
		  GM_API_cuMemcpyHtoD_v2, "a twin names its base");
	CHECK_INT(gm_api_table[GM_API_cuLaunchKernel_ptsz].flavour,
		  GM_FLAVOUR_PTSZ, "... and its flavour");
	return test_done();
}
