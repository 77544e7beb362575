/* SPDX-License-Identifier: MIT */
/*
 * The table of variants and policies (see variant.h). To enable a variant
 * once reconstruct and replay support it, set its `supported` to 1.
 */
#include "variant.h"

#include <string.h>

#include "strbuf.h"

static const struct study_variant variants[] = {
	{ "single", 1, 0,
	  "each program alone, one after another (alone-time baseline)" },
	{ "cuda", 1, 0, "all programs at once, one CUDA stream per program" },
	{ "nss", 0, STUDY_VARIANT_TIMESLICE | STUDY_VARIANT_CHUNK,
	  "non-serializing streams" },
	{ "elastic", 0,
	  STUDY_VARIANT_POLICY | STUDY_VARIANT_TIMESLICE | STUDY_VARIANT_CHUNK,
	  "nss with elastic kernels under a resource policy" },
	{ "green", 0, 0, "SM partitions through green contexts" },
	{ "mps", 0, 0, "one process per program under MPS" },
};

#define NR_VARIANTS (sizeof(variants) / sizeof(variants[0]))

static const char *const policies[] = {
	"median", "mpmax", "equal", "queuemold", NULL,
};

const struct study_variant *study_variant_find(const char *name)
{
	for (size_t i = 0; i < NR_VARIANTS; i++) {
		if (!strcmp(variants[i].name, name)) {
			return &variants[i];
		}
	}
	return NULL;
}

const char *const *study_variant_names(void)
{
	static const char *names[NR_VARIANTS + 1];

	for (size_t i = 0; i < NR_VARIANTS; i++) {
		names[i] = variants[i].name;
	}
	return names;
}

const char *study_variant_supported_list(void)
{
	static char list[256];

	if (!list[0]) {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < NR_VARIANTS; i++) {
			if (variants[i].supported) {
				strbuf_addf(&sb, "%s%s", sb.len ? ", " : "",
					    variants[i].name);
			}
		}
		snprintf(list, sizeof(list), "%s", sb.buf);
		strbuf_release(&sb);
	}
	return list;
}

const char *study_policy_find(const char *name)
{
	for (size_t i = 0; policies[i]; i++) {
		if (!strcmp(policies[i], name)) {
			return policies[i];
		}
	}
	return NULL;
}

const char *const *study_policy_names(void)
{
	return policies;
}
