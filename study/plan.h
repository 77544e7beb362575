/* SPDX-License-Identifier: MIT */
/*
 * The plan of a study: its workloads (explicit lists and expanded
 * combinations, minus exclusions, each named "a+b+c" in the order its
 * programs were listed; N copies of a program are its instances
 * "lbm#1" ... "lbm#N", the workload "lbm#1-N") and its runs, one per workload, variant, policy
 * and repetition, in the order they are executed. Every run of a
 * workload replays the same reconstructed program (the variant is chosen
 * at replay time).
 *
 * One repetition lists every configuration (workload, variant, policy)
 * once: the alone-time baselines first, then workload by workload. A
 * study that makes a kernel profile (study_profiles()) lists every alone
 * run first with `baseline: workload` too: the profile is made from
 * those of the first repetition before the first run that needs it.
 * Repetitions follow one another (all of repetition 0, then all of 1,
 * ...), so that every workload's variants run close together in time
 * before the next repetition and drift hits them alike; with more than
 * one repetition the runs of each block (the alone runs, each workload's
 * runs) are shuffled within each repetition (plan_order.h), so that no
 * variant always runs first or last. Repetition 0 keeps the plain run
 * name ("a+b.cuda"); repetition R >= 1 adds ".rR" ("a+b.cuda.r2").
 *
 * Baselines: the variants flagged GM_VARIANT_ALONE in the table
 * (common/variant.h; `single`). With `baseline: program` (the default)
 * such a variant is run once per program, as a one-program workload named
 * after the program, and every workload containing that program shares
 * it; with `baseline: workload` every workload gets its own run of it.
 */
#ifndef GM_STUDY_PLAN_H
#define GM_STUDY_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include "study.h"

/* The stages of a study, in the order a run goes through them (the
 * profile, once per study, between the alone runs' replays and the
 * replays that read it). */
enum study_stage {
	STUDY_STAGE_CAPTURE,
	STUDY_STAGE_RECONSTRUCT,
	STUDY_STAGE_REPLAY,
	STUDY_STAGE_CORUN,	/* a co-run's in place of the replay */
	STUDY_STAGE_PROFILE,
	STUDY_STAGE_ANALYZE,
	STUDY_STAGE_REPORT,
	STUDY_NR_STAGES
};

/* "capture", "reconstruct", "replay", "corun", "profile", "analyze",
 * "report". */
const char *study_stage_name(enum study_stage stage);

/* At most this many workloads per study (a typo in 'size' stays cheap). */
#define STUDY_MAX_WORKLOADS 10000

struct plan_workload {
	char *name;		/* "a+b", "lbm#1-8" (gm_workload_name()), owned */
	size_t nr;
	size_t *progs;		/* indices into study.programs, listed order;
				   a program with copies is listed N times */
	char **inst;		/* the programs' names in the workload's runs:
				   "a", or "lbm#1" ... "lbm#8" for copies
				   (common/instance_name.h), owned */
	struct yaml_pos pos;	/* the list or combinations it came from */
	int baseline_only;	/* exists only for a program's alone run */
};

/*
 * What a run is. A study with the `corun` key (study_corun.c) has, for
 * each workload of two programs or more, its native co-run and one-shot
 * replays under the alone-time variant and each co-run mechanism beside
 * its runs (unless a one-shot study's own runs of that variant serve),
 * in the workload's block (the one-shot alone runs in the alone block
 * under `baseline: program`).
 */
enum plan_run_kind {
	PLAN_REPLAY,		/* a replay under one of the study's variants */
	PLAN_ONE_SHOT,		/* a one-shot replay a co-run is compared
				   with: "a+b.procs.one-shot" */
	PLAN_CORUN,		/* the workload's native co-run (gpumix
				   corun): "a+b.corun"; no variant */
};

struct plan_run {
	char *id;		/* "a+b.cuda", "a.single", "a+b.elastic.median",
				   "a+b.cuda.r1", "a+b.mps.one-shot",
				   "a+b.corun" */
	enum plan_run_kind kind;
	size_t workload;	/* index into plan.workloads */
	const struct gm_variant *variant;	/* a row of the table (NULL
						   for a co-run) */
	const char *policy;	/* NULL unless the variant takes one */
	int baseline;		/* a shared per-program alone run */
	unsigned repetition;	/* 0-based */
	size_t config;		/* its configuration: the same for every
				   repetition, 0 .. nr_configs - 1 in the
				   listed (unshuffled) order */
	size_t point;		/* its point of the open-loop sweep
				   (study.open_loop.points), or SIZE_MAX:
				   closed loop; in the id after the policy:
				   "a+b.cuda.load0.5" */
};

struct study_plan {
	struct plan_workload *workloads;
	size_t nr_workloads, alloc_workloads;
	size_t nr_user_workloads; /* from the file (not baseline-only) */
	struct plan_run *runs;
	size_t nr_runs, alloc_runs;
	size_t nr_baselines;	/* per repetition */
	size_t nr_configs;	/* runs per repetition */
	unsigned nr_repetitions;	/* study_planned_repeats() */
	size_t *by_config;	/* [config * nr_repetitions + rep]: the
				   index of that run in runs[] */
	int *used;		/* per program: in at least one run */
};

/*
 * Expand the workloads of @s and list its runs. Errors (a workload given
 * twice, every combination excluded, too many workloads) name the file
 * position. @plan must be released either way.
 */
int study_plan_build(struct study_plan *plan, const struct study *s);

void study_plan_release(struct study_plan *plan);

/* The stage that measures run @r: its replay, or for a co-run the
 * co-run itself. */
enum study_stage plan_run_stage(const struct plan_run *r);

/* The run called @id ("a+b.cuda"), or NULL. */
const struct plan_run *plan_find_run(const struct study_plan *plan,
				     const char *id);

/* The index in plan->runs of configuration @config's repetition @rep. */
size_t plan_run_index(const struct study_plan *plan, size_t config,
		      unsigned rep);

/*
 * n choose k; UINT64_MAX when the true value is larger (never a wrong
 * smaller number: the intermediate products do not overflow).
 */
uint64_t study_binomial(unsigned n, unsigned k);

#endif
