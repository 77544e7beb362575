/* SPDX-License-Identifier: MIT */
/*
 * The variants and policies a study may name: one table, so that enabling
 * a variant once the pipeline supports it is a one-line change (its
 * `supported` flag). Known but unsupported names are refused at
 * validation with "not supported yet"; unknown names are typos.
 */
#ifndef GM_STUDY_VARIANT_H
#define GM_STUDY_VARIANT_H

/* What a variant's stages need besides the bundles. */
enum {
	STUDY_VARIANT_POLICY = 1 << 0,	 /* one run per resource policy */
	STUDY_VARIANT_TIMESLICE = 1 << 1, /* replay --timeslice-us */
	STUDY_VARIANT_CHUNK = 1 << 2,	 /* replay --copy-chunk */
};

struct study_variant {
	const char *name;
	int supported;		/* the pipeline can build and run it now */
	unsigned needs;		/* STUDY_VARIANT_* */
	const char *about;	/* one line, for --help and the docs */
};

/* The variant called @name, or NULL when the name is unknown. */
const struct study_variant *study_variant_find(const char *name);

/* NULL-terminated list of every known variant name (for suggestions). */
const char *const *study_variant_names(void);

/* "single, cuda": the supported variants, comma separated (static). */
const char *study_variant_supported_list(void);

/* The policy called @name (a static string), or NULL when unknown. */
const char *study_policy_find(const char *name);

/* NULL-terminated list of the policy names. */
const char *const *study_policy_names(void);

#endif
