/* SPDX-License-Identifier: MIT */
/*
 * The replay variants (concurrency mechanisms) and the replay knobs that
 * reach them: one table, read by the study validator, `gpumix
 * reconstruct`, `gpumix replay`, the replay runtime and analyze. No other
 * list of variant names exists; each row names the runtime's scheduler
 * that runs it (replay/sched.c lists schedulers, not variants). A variant
 * is chosen at replay time: the generated program is the same for every
 * variant.
 *
 * Knobs are the replay options a variant accepts (GM_KNOB_* bits, knobs.h:
 * the table of their options, study keys and bounds); the policies a
 * variant with GM_VARIANT_POLICY runs under are policies.h's.
 */
#ifndef GM_VARIANT_H
#define GM_VARIANT_H

#include <stddef.h>

#include "knobs.h"
#include "policies.h"

/* What a variant does, where code has to know. */
enum {
	GM_VARIANT_ALONE = 1 << 0,	/* programs replay one at a time, each
					   with the whole GPU: alone times */
	GM_VARIANT_POLICY = 1 << 1,	/* one run per resource policy */
	GM_VARIANT_REFERENCE = 1 << 2,	/* what the others are compared with
					   (MTSpeedup, improvements) */
	GM_VARIANT_PROCESSES = 1 << 3,	/* one replay process per program
					   (replay/process_run.c) */
	GM_VARIANT_MPS_DAEMON = 1 << 4,	/* with GM_VARIANT_PROCESSES: the
					   processes are clients of an MPS
					   daemon the replay starts
					   (replay/mps_daemon.c); without
					   it they share the GPU by the
					   driver's time-slicing */
};

/* The program that controls MPS: a GM_VARIANT_MPS_DAEMON variant starts
 * its daemon (replay/mps_daemon.c), a study checks that it exists. */
#define GM_MPS_CONTROL "nvidia-cuda-mps-control"

struct gm_variant {
	const char *name;
	int implemented;	/* the replay runtime has its scheduler */
	unsigned flags;		/* GM_VARIANT_* */
	unsigned knobs;		/* GM_KNOB_* it accepts */
	const char *about;	/* one line, for --help and the docs */
	const char *sched;	/* the replay runtime's scheduler for it
				   (replay/sched.c), NULL: none yet */
};

/* The variant called @name, or NULL when the name is unknown. */
const struct gm_variant *gm_variant_find(const char *name);

/* The variants in table order (the order of report rows); @i beyond
 * the last gives NULL. */
const struct gm_variant *gm_variant_at(size_t i);

/* What a report label of a one-shot run (gpumix replay --one-shot) ends
 * with: "mps+one-shot", "elastic+median+one-shot". */
#define GM_ONE_SHOT_SUFFIX "+one-shot"

/*
 * The one spelling of a variant under a policy, everywhere gpumix prints
 * one (report, database labels, study progress and summary): "variant",
 * "variant+policy" (@policy neither NULL nor "none"), "+@point" for a
 * point of an open-loop sweep (@point neither NULL nor ""), then
 * GM_ONE_SHOT_SUFFIX when @one_shot: "cuda", "elastic+median",
 * "cuda+load0.5", "mps+one-shot". A run's id (its directory,
 * `a+b.elastic.median.r1`) is a name, not a label. Newly allocated.
 */
char *gm_variant_label(const char *variant, const char *policy,
		       const char *point, int one_shot);

/* Sort key of a report label, "variant" or "variant+policy", either
 * perhaps with an open-loop sweep's point ("cuda+load0.5": its base's
 * rank) and with GM_ONE_SHOT_SUFFIX: table order of the variants, then
 * of the policies, then the one-shot labels; unknown variants sort after
 * every known one. */
int gm_variant_rank(const char *label);

/* NULL-terminated list of every variant name (for suggestions). */
const char *const *gm_variant_names(void);

/* "single, cuda, nss": the implemented variants (static string). */
const char *gm_variant_implemented_list(void);

/* The first variant whose flags include all of @flags (GM_VARIANT_*), or
 * NULL: the alone-time baseline (GM_VARIANT_ALONE), the comparison
 * baseline (GM_VARIANT_REFERENCE). */
const struct gm_variant *gm_variant_with(unsigned flags);

/* 1 when the variant called @name has all of @flags; 0 for an unknown
 * name (a run of a variant this gpumix does not know is nobody's
 * baseline). */
int gm_variant_is(const char *name, unsigned flags);

#endif
