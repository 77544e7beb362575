/* SPDX-License-Identifier: MIT */
/*
 * The plan of a native co-run (gpumix corun): which program runs when,
 * alone or with the others, under which mechanism. K rounds; each round
 * runs every program alone once (its alone GPU section), then all
 * programs together once under each mechanism asked for, in the order of
 * the mechanism table: a drift of the machine, or the first runs'
 * warm-up, reaches every program and every mode alike.
 *
 * The mechanisms are how the programs' processes share the GPU: the
 * variants of the table (common/variant.c) that replay one process per
 * program (GM_VARIANT_PROCESSES), whose replays they are compared with:
 * `procs`, plain processes whose contexts the driver time-slices, and
 * `mps`, processes under a private MPS daemon (GM_VARIANT_MPS_DAEMON).
 */
#ifndef GM_CORUN_PLAN_H
#define GM_CORUN_PLAN_H

#include <stddef.h>
#include <stdio.h>

#include "variant.h"

#define CORUN_DEFAULT_REPEATS 5
#define CORUN_MAX_REPEATS 1000

/* The mechanism called @name (a GM_VARIANT_PROCESSES variant), or NULL. */
const struct gm_variant *corun_mechanism_find(const char *name);

/* The mechanisms in table order; NULL past the last. */
const struct gm_variant *corun_mechanism_at(size_t i);

/* 1 when mechanism @m runs its processes under an MPS daemon. */
int corun_mechanism_mps(const struct gm_variant *m);

/* "procs, mps" (static). */
const char *corun_mechanism_list(void);

/* The name of an alone step's mode in files and tables. */
#define CORUN_ALONE "alone"

struct corun_step {
	const struct gm_variant *mech;	/* NULL: a program alone */
	unsigned repeat;			/* 0 to repeats - 1 */
	size_t program;				/* alone: which one */
};

struct corun_plan {
	struct corun_step *steps;
	size_t nr_steps;
	size_t nr_programs;
	unsigned repeats;
	const struct gm_variant **mechs;	/* table order */
	size_t nr_mechs;
};

/*
 * Plan @nr_programs programs (2 to 64), @repeats times (1 to
 * CORUN_MAX_REPEATS), under the mechanisms named in @mechanisms ("procs,mps";
 * each at most once). Errors name the bad value. Release @p either way.
 */
int corun_plan_build(struct corun_plan *p, size_t nr_programs,
		     unsigned repeats, const char *mechanisms);

/* Leave out mechanism @m (one that cannot run on this machine). */
void corun_plan_drop(struct corun_plan *p, const struct gm_variant *m);

void corun_plan_release(struct corun_plan *p);

/* "alone", or the step's mechanism's name. */
const char *corun_step_mode(const struct corun_step *s);

/*
 * Print the plan, one step a line ("alone 0 bfs", "procs 0 bfs+mm"), the
 * programs named by @names.
 */
void corun_plan_print(const struct corun_plan *p, const char *const *names,
		      FILE *out);

#endif
