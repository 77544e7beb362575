/* SPDX-License-Identifier: MIT */
/*
 * The resource policies of the elastic variant (the paper's section 4.3;
 * replay/policy.h computes them): one table of their names, enum values
 * and one-line descriptions, read by everything that names a policy:
 * `gpumix replay --policy` and its help, a study's `policies:`, the
 * replay runtime (replay/policy.c), analyze's check of a run's manifest
 * and the report's order of labels. LEFTOVER is a row too, the
 * hardware's own policy that the variants without policies get, but no
 * one selects it by name ("none" in run directories).
 */
#ifndef GM_POLICIES_H
#define GM_POLICIES_H

#include <stddef.h>

/* The table's order: LEFTOVER, then the selectable policies in the
 * order of reports and of `policies:` lists. */
enum gm_policy {
	GM_POLICY_LEFTOVER,
	GM_POLICY_MEDIAN,
	GM_POLICY_MPMAX,
	GM_POLICY_EQUAL,
	GM_POLICY_QUEUEMOLD,
	GM_POLICY_MPMAX_CLIFF,	/* MPMAX, limits moved off cliffs
				   (--cliff-map, common/cliff_map.h) */
};

#define GM_NR_POLICIES (GM_POLICY_MPMAX_CLIFF + 1)

struct gm_policy_desc {
	const char *name;
	enum gm_policy policy;
	int selectable;		/* a --policy value and a study's policy */
	const char *about;	/* one line, for --help and the docs */
	int needs_map;		/* needs a sweep's cliff map (--cliff-map):
				   not among a study's default policies */
};

/* The rows in table order (row i has policy i); @i beyond the last gives
 * NULL. */
const struct gm_policy_desc *gm_policy_at(size_t i);

/* The row called @name ("leftover" included), or NULL. */
const struct gm_policy_desc *gm_policy_desc_find(const char *name);

/* The selectable policy called @name (a static string), or NULL when
 * unknown or not selectable. */
const char *gm_policy_find(const char *name);

/* NULL-terminated list of the selectable policies' names. */
const char *const *gm_policy_names(void);

/* NULL-terminated list of the policies a study runs when it names none:
 * the selectable ones that need no input of their own (the paper's). */
const char *const *gm_policy_defaults(void);

/* "median, mpmax, ...": the selectable policies, for
 * messages (static string). */
const char *gm_policy_list(void);

#endif
