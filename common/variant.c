/* SPDX-License-Identifier: MIT */
/*
 * The table of variants (see variant.h). Adding a mechanism takes a row
 * here and its scheduler in replay/ (sched.c lists them by name); a new
 * knob takes its row in knobs.c and its bit in the rows here of the
 * variants that take it.
 */
#include "variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static const struct gm_variant variants[] = {
	{ "single", 1, GM_VARIANT_ALONE,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_ELASTIC,
	  "each program alone, one after another (alone-time baseline)",
	  "serial" },
	{ "cuda", 1, GM_VARIANT_REFERENCE,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_ELASTIC,
	  "all programs at once, their captured streams as CUDA streams",
	  "serial" },
	{ "nss", 1, 0,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_TIMESLICE | GM_KNOB_COPY_CHUNK |
		  GM_KNOB_COMPLETION | GM_KNOB_ELASTIC,
	  "non-serializing streams: a memory and a kernel stream per program, "
	  "dependencies kept by the runtime", "nss" },
	{ "elastic", 1, GM_VARIANT_POLICY,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_POLICY | GM_KNOB_TIMESLICE |
		  GM_KNOB_COPY_CHUNK | GM_KNOB_COMPLETION | GM_KNOB_PROFILE |
		  GM_KNOB_GRID | GM_KNOB_CLIFF_MAP,
	  "nss with elastic kernels under a resource policy, timesliced",
	  "nss" },
	{ "priority", 1, 0,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_ELASTIC | GM_KNOB_HIGH_PRIORITY,
	  "cuda with stream priorities: one program's streams at the "
	  "highest priority", "priority" },
	{ "green", 1, 0,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_ELASTIC | GM_KNOB_SM_SHARE |
		  GM_KNOB_SCALE,
	  "cuda with SM partitions: each program in its own green context",
	  "green" },
	{ "procs", 1, GM_VARIANT_PROCESSES,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_ELASTIC,
	  "one process per program, time-sliced by the driver (no MPS)",
	  "serial" },
	{ "mps", 1, GM_VARIANT_PROCESSES | GM_VARIANT_MPS_DAEMON,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_ELASTIC | GM_KNOB_MPS_THREADS,
	  "one process per program under an MPS daemon the replay starts",
	  "serial" },
};

#define NR_VARIANTS (sizeof(variants) / sizeof(variants[0]))

const struct gm_variant *gm_variant_find(const char *name)
{
	for (size_t i = 0; name && i < NR_VARIANTS; i++) {
		if (!strcmp(variants[i].name, name)) {
			return &variants[i];
		}
	}
	return NULL;
}

const struct gm_variant *gm_variant_at(size_t i)
{
	return i < NR_VARIANTS ? &variants[i] : NULL;
}

char *gm_variant_label(const char *variant, const char *policy,
		       const char *point, int one_shot)
{
	int with_policy = policy && *policy && strcmp(policy, "none");
	int with_point = point && *point;

	return gm_xasprintf("%s%s%s%s%s%s", variant, with_policy ? "+" : "",
			    with_policy ? policy : "", with_point ? "+" : "",
			    with_point ? point : "",
			    one_shot ? GM_ONE_SHOT_SUFFIX : "");
}

int gm_variant_rank(const char *label)
{
	size_t n = strcspn(label, "+"), len = strlen(label);
	int rank = (int)NR_VARIANTS * 16;

	/* "+one-shot" (one replay each, started together) after all the
	 * variant's other labels */
	if (len > n && len - n >= sizeof(GM_ONE_SHOT_SUFFIX) - 1 &&
	    !strcmp(label + len - (sizeof(GM_ONE_SHOT_SUFFIX) - 1),
		    GM_ONE_SHOT_SUFFIX)) {
		char *base = gm_xasprintf("%.*s", (int)(len - (sizeof(
					  GM_ONE_SHOT_SUFFIX) - 1)), label);
		rank = gm_variant_rank(base) + 8;
		free(base);
		return rank;
	}

	for (size_t i = 0; i < NR_VARIANTS; i++) {
		if (strlen(variants[i].name) == n &&
		    !strncmp(variants[i].name, label, n)) {
			rank = (int)i * 16;
			break;
		}
	}
	if (label[n] == '+') {
		const char *rest = label + n + 1;
		char *name = gm_xasprintf("%.*s", (int)strcspn(rest, "+"),
					  rest);
		const struct gm_policy_desc *p = gm_policy_desc_find(name);
		/* An open-loop sweep's point ("cuda+load0.5"): its base's
		 * rank (the points then sort by name); the policies in the
		 * table's order. */
		rank += p ? (int)p->policy : 0;
		free(name);
	}
	return rank;
}

const char *const *gm_variant_names(void)
{
	static const char *names[NR_VARIANTS + 1];

	for (size_t i = 0; i < NR_VARIANTS; i++) {
		names[i] = variants[i].name;
	}
	return names;
}

const char *gm_variant_implemented_list(void)
{
	static char list[256];

	if (!list[0]) {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < NR_VARIANTS; i++) {
			if (variants[i].implemented) {
				strbuf_addf(&sb, "%s%s", sb.len ? ", " : "",
					    variants[i].name);
			}
		}
		snprintf(list, sizeof(list), "%s", sb.buf);
		strbuf_release(&sb);
	}
	return list;
}

const struct gm_variant *gm_variant_with(unsigned flags)
{
	for (size_t i = 0; i < NR_VARIANTS; i++) {
		if ((variants[i].flags & flags) == flags) {
			return &variants[i];
		}
	}
	return NULL;
}

int gm_variant_is(const char *name, unsigned flags)
{
	const struct gm_variant *v = gm_variant_find(name);

	return v && (v->flags & flags) == flags;
}
