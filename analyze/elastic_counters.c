/* SPDX-License-Identifier: MIT */
/* The elastic variant's launch counters (elastic_counters.h). */
#include "elastic_counters.h"

#define GM_ELASTIC_COUNTER_DESC_(id, key, column, title) \
	[GM_ELASTIC_##id] = { key, column, title },
const struct gm_elastic_counter_desc
	gm_elastic_counters[GM_ELASTIC_COUNTERS_NR] = {
	GM_ELASTIC_COUNTERS(GM_ELASTIC_COUNTER_DESC_)
};
