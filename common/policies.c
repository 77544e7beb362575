/* SPDX-License-Identifier: MIT */
/*
 * The table of resource policies (see policies.h). A new policy is an
 * enum value and a row here, and its case in replay/policy.c.
 */
#include "policies.h"

#include <stdio.h>
#include <string.h>

#include "strbuf.h"

static const struct gm_policy_desc policies[] = {
	{ "leftover", GM_POLICY_LEFTOVER, 0,
	  "no limits: the hardware's own policy (cuda, nss)", 0 },
	{ "median", GM_POLICY_MEDIAN, 1,
	  "every SM keeps room for one block of the suite's median kernel", 0 },
	{ "mpmax", GM_POLICY_MPMAX, 1,
	  "every SM keeps room for one block of the largest kernel of the "
	  "other programs", 0 },
	{ "equal", GM_POLICY_EQUAL, 1,
	  "each of n programs gets 1/n of every resource", 0 },
	{ "queuemold", GM_POLICY_QUEUEMOLD, 1,
	  "a waiting kernel makes room for a newcomer's shared memory, and "
	  "is held to 512 threads per SM", 0 },
	{ "mpmax-cliff", GM_POLICY_MPMAX_CLIFF, 1,
	  "mpmax, with a kernel's blocks per SM moved off a cliff of its "
	  "sweep (--cliff-map)", 1 },
};

#define NR_POLICIES (sizeof(policies) / sizeof(policies[0]))

const struct gm_policy_desc *gm_policy_at(size_t i)
{
	return i < NR_POLICIES ? &policies[i] : NULL;
}

const struct gm_policy_desc *gm_policy_desc_find(const char *name)
{
	for (size_t i = 0; name && i < NR_POLICIES; i++) {
		if (!strcmp(policies[i].name, name)) {
			return &policies[i];
		}
	}
	return NULL;
}

const char *gm_policy_find(const char *name)
{
	const struct gm_policy_desc *p = gm_policy_desc_find(name);

	return p && p->selectable ? p->name : NULL;
}

const char *const *gm_policy_names(void)
{
	static const char *names[NR_POLICIES + 1];

	if (!names[0]) {
		size_t n = 0;
		for (size_t i = 0; i < NR_POLICIES; i++) {
			if (policies[i].selectable) {
				names[n++] = policies[i].name;
			}
		}
	}
	return names;
}

const char *const *gm_policy_defaults(void)
{
	static const char *names[NR_POLICIES + 1];

	if (!names[0]) {
		size_t n = 0;
		for (size_t i = 0; i < NR_POLICIES; i++) {
			if (policies[i].selectable && !policies[i].needs_map) {
				names[n++] = policies[i].name;
			}
		}
	}
	return names;
}

const char *gm_policy_list(void)
{
	static char list[128];

	if (!list[0]) {
		struct strbuf sb = STRBUF_INIT;
		for (const char *const *n = gm_policy_names(); *n; n++) {
			strbuf_addf(&sb, "%s%s", sb.len ? ", " : "", *n);
		}
		snprintf(list, sizeof(list), "%s", sb.buf);
		strbuf_release(&sb);
	}
	return list;
}
