/* SPDX-License-Identifier: MIT */
/*
 * The schedulers the runtime has, by the name the variant table gives
 * them (see sched.h).
 */
#include "sched.h"

#include <string.h>

static const struct gm_sched *const schedulers[] = {
	&gm_sched_serial,
	&gm_sched_nss,
	&gm_sched_priority,
	&gm_sched_green,
};

const struct gm_sched *gm_sched_find(const char *name)
{
	for (size_t i = 0; name && i < sizeof(schedulers) / sizeof(schedulers[0]);
	     i++) {
		if (!strcmp(schedulers[i]->name, name)) {
			return schedulers[i];
		}
	}
	return NULL;
}
