/* SPDX-License-Identifier: MIT */
/*
 * A study as described by its YAML file (doc/study-yaml.md): programs
 * (a command line to capture, or an existing bundle), workload
 * specifications (explicit lists and combinations), variants and policies,
 * replay parameters and output paths. study_load() validates everything
 * that can be checked without running anything; every error names
 * FILE:LINE:COLUMN. Workload specifications are expanded by plan.h.
 */
#ifndef GM_STUDY_H
#define GM_STUDY_H

#include <stddef.h>
#include <stdint.h>

#include "replay_opts.h"
#include "variant.h"
#include "yaml_doc.h"

#define STUDY_DEFAULT_REPEATS 3
#define STUDY_DEFAULT_MAX_REPEATS 10
#define STUDY_DEFAULT_SEED 0
#define STUDY_MAX_REPEATS 1000
/* The most programs one workload holds (its copies included). */
#define STUDY_MAX_COPIES 256

/* Where the alone times come from (see doc/gpumix-run.md): the runs of
 * the variants flagged GM_VARIANT_ALONE in the table (common/variant.h). */
enum study_baseline {
	STUDY_BASELINE_PROGRAM,	/* one alone run per program, shared */
	STUDY_BASELINE_WORKLOAD, /* one alone run per workload */
};

struct study_program {
	char *name;
	struct yaml_pos pos;	/* the program's entry */
	/* A program the study captures (NULL argv for an existing bundle). */
	char **argv;		/* NULL-terminated, owned */
	size_t argc;
	struct yaml_pos command_pos;
	char *cwd_rel;		/* as written ("." by default) */
	char *cwd;		/* absolute */
	char *bundle;		/* absolute bundle directory */
	int deterministic;	/* results verified by the replay */
};

/* A set of programs, as indices into study.programs, with positions. */
struct study_names {
	size_t nr;
	size_t *progs;
	struct yaml_pos *pos;	/* of each name */
	struct yaml_pos at;	/* of the whole list */
};

enum study_spec_kind {
	STUDY_SPEC_LIST,	/* one explicit workload */
	STUDY_SPEC_COMBINATIONS, /* all combinations of a size of a set */
};

struct study_spec {
	enum study_spec_kind kind;
	struct yaml_pos pos;
	struct study_names set;	/* the workload, or the set 'of' */
	unsigned size;		/* combinations only */
	size_t nr_exclude;
	struct study_names *exclude;
};

struct study_paths {
	char *output, *bundles, *builds, *runs, *database, *report, *state,
		*logs, *summary, *profile;	/* all absolute, owned */
};

/*
 * The study's open-loop (latency-critical) program (study_arrivals.c,
 * doc/study-yaml.md "Open-loop programs"): its arrival process and the
 * points of its sweep, loads (fractions of its alone capacity) or rates
 * (requests per second); @program is SIZE_MAX without one.
 */
struct study_open_loop {
	size_t program;		/* index into study.programs */
	int trace;		/* arrivals: trace (else poisson) */
	char *trace_path;	/* absolute */
	char *column;		/* NULL: the default TIMESTAMP */
	int by_load;		/* points are loads (else rates) */
	double *points;		/* at least one (a trace without a rate:
				   one point of 0, as recorded) */
	size_t nr_points;
	char *slo;		/* NULL: the replay's default (2x) */
	uint64_t seed;
	int seed_given;
	unsigned requests;	/* 0: the process's default */
	struct yaml_pos pos;	/* its 'arrivals' key */
};

struct study {
	char *path;		/* the YAML file, as given */
	char *name;
	char *root;		/* absolute; relative paths start here */
	struct study_program *programs;
	size_t nr_programs;
	struct study_spec *specs;
	size_t nr_specs;
	const struct gm_variant **variants;	/* rows of the table */
	size_t nr_variants;
	const char **policies;	/* static strings (variant.h) */
	size_t nr_policies;
	enum study_baseline baseline;
	/* Repetitions (doc/study-yaml.md, "repeats"): every run is run
	 * @repeats times; with a @precision target (0: none) up to
	 * @max_repeats times, until the 95% interval of each STP of a
	 * workload is within @precision of its mean. @seed shuffles the
	 * order within each repetition (plan.h). */
	unsigned repeats, max_repeats;
	double precision;
	uint64_t seed;
	/* The replay knobs the table parses (knob_values.h: min_replays,
	 * watchdog_s, timeslice_us, copy_chunk, completion, grid, probe,
	 * host_time, max_host_gap_s, one_shot), in the option's terms
	 * (timeslice in microseconds), set through their rows as `gpumix
	 * replay` sets its options; the others below (see
	 * study_knob_arg()). one_shot: each program replays once, all
	 * starting together, and that replay is kept (--one-shot);
	 * min_replays does not apply. */
	GM_KNOB_VALUES_MEMBER;
	char *high_priority;		/* a program's name, or NULL */
	struct yaml_pos high_priority_pos;
	char *sm_share;			/* green: "PROG=SHARE,...", or NULL */
	char *scale;			/* green: knees file (absolute), or NULL */
	char *cliff_map;		/* elastic: a sweep's points (absolute),
					   or NULL */
	struct yaml_pos sm_share_pos;
	/* mps_threads: the --mps-threads argument ("PCT" or
	 * "NAME=PCT,..."), or NULL; the names and where each was given. */
	char *mps_threads;
	char **mps_names;
	struct yaml_pos *mps_pos;
	size_t nr_mps;
	/* replay: same_kernels (default 1): when some variant runs the
	 * transformed kernels, every other one runs them too, with
	 * elasticity off (paper item 49; study_same_kernels()). */
	int same_kernels;
	/* corun (doc/study-yaml.md): each workload of two or more programs
	 * also runs natively (gpumix corun, @corun_repeats runs alone and
	 * together under each of @corun_mechs), beside its one-shot replays
	 * under `single` and those mechanisms; 0 repeats: no co-runs. */
	unsigned corun_repeats;
	const struct gm_variant **corun_mechs;	/* process variants */
	size_t nr_corun_mechs;
	struct yaml_pos corun_pos;
	struct study_open_loop open_loop;
	double stage_timeout_s;
	struct study_paths paths;
	/* "FILE:LINE:COL: message" for what is valid but has no effect
	 * (a knob no listed variant takes); the CLI prints them. */
	char **warnings;
	size_t nr_warnings;
};

/*
 * Load and validate the study in @path. @output, when not NULL, replaces
 * paths.output (relative to the current directory, like any command-line
 * path). On failure the error names the file, line and column; @s must be
 * released either way.
 */
int study_load(struct study *s, const char *path, const char *output);

/* Same from memory (tests); @path names the file in messages and its
 * directory is where relative paths start. */
int study_load_string(struct study *s, const char *path, const char *text,
		      size_t len, const char *output);

void study_release(struct study *s);

/*
 * The study key `corun` at @n (study_corun.c, for study_load.c's
 * loader): `N` or `{repeats: N, mechanisms: [..]}` into @s. 0, or -1
 * with the file position.
 */
struct yaml_doc;
int study_load_corun(struct study *s, struct yaml_doc *d, yaml_node_t *n);

/*
 * The paths of @s against each other (study_paths.c, for study_load.c's
 * loader): every path the study writes differs from every other and from
 * every path it reads, and none lies inside another. 0, or -1 naming both
 * paths, at the file position where the first was set.
 */
int study_check_paths(const struct study *s, struct yaml_doc *d);

/*
 * The open-loop keys of program @prog's entry @n (study_arrivals.c, for
 * study_programs.c): 'arrivals', 'load' or 'rate', 'trace', 'column',
 * 'slo', 'seed', 'requests' into @s->open_loop. 0 (nothing without
 * 'arrivals'), or -1 with the file position.
 */
int study_load_arrivals(struct study *s, struct yaml_doc *d,
			const yaml_node_t *n, size_t prog);
void study_open_loop_release(struct study_open_loop *o);

/* Point @i of the sweep's label ("load0.5", "rate20", "trace"). */
void study_open_loop_label(const struct study *s, size_t i, char *buf,
			   size_t len);

/* "procs,mps": the study's co-run mechanisms (static buffer). */
const char *study_corun_mechanisms(const struct study *s);

/* Index of the program called @name, or -1. */
long study_find_program(const struct study *s, const char *name);

/* 1 when some listed variant has all of @flags (GM_VARIANT_*). */
int study_has_variant_flags(const struct study *s, unsigned flags);

/*
 * 1 when the study's replays need the elastic modules, so that its
 * workloads are reconstructed with `gpumix reconstruct --elastic`: a
 * listed variant with policies (elastic: the runtime makes its kernels
 * elastic), `completion: poll` reaching a listed variant that takes
 * it (the transformed kernels set the completion flag), or `probe:
 * blocks` (the transformed kernels carry the probe).
 */
int study_needs_elastic(const struct study *s);

/*
 * 1 when every run of a variant that takes --elastic replays the
 * transformed kernels with elasticity off (`--elastic identity`): the
 * study needs the elastic modules and `same_kernels` is true (the
 * default), so that all variants run the same code (paper item 49).
 */
int study_same_kernels(const struct study *s);

/* The repetitions the plan lists: max_repeats with a precision target,
 * else repeats. */
unsigned study_planned_repeats(const struct study *s);

/*
 * 1 when the study makes a kernel profile (`gpumix profile` over its
 * alone runs, into paths.profile) for the variants that take --profile:
 * it lists such a variant (elastic) and the alone-time variant (single).
 * Without `single` the elastic runs go without a profile (a warning at
 * load says so).
 */
int study_profiles(const struct study *s);

/*
 * The argument of `gpumix replay`'s option for knob @k as this study sets
 * it (its study key, or the default), written into @buf of @len bytes:
 * "1000" for --timeslice-us, "4194304" for --copy-chunk, "event" for
 * --completion; for the knobs without a study key, what the study derives:
 * "identity" for --elastic when study_same_kernels(), paths.profile for
 * --profile when study_profiles(); "" for a flag that is on (--one-shot:
 * the option alone). Returns 0, or -1 when the study gives the option no
 * value or leaves the flag off (the policy comes from the plan).
 */
int study_knob_arg(const struct study *s, const struct gm_knob_desc *k,
		   char *buf, size_t len);

#endif
