/* SPDX-License-Identifier: MIT */
/*
 * The options of a replay, parsed in one place: `gpumix replay` checks
 * them (and forwards them), the generated replay program parses them for
 * real. Which knobs a variant accepts comes from the variant table
 * (variant.h); a knob given to a variant that does not take it is a
 * usage error, as is a policy missing for a variant that needs one.
 */
#ifndef GM_REPLAY_OPTS_H
#define GM_REPLAY_OPTS_H

#include <getopt.h>
#include <stdint.h>
#include <stdio.h>

#include "elastic_plan.h"
#include "knob_values.h"
#include "knobs.h"
#include "variant.h"

/* Latency-critical programs one replay may have (--arrivals). */
#define GM_MAX_ARRIVALS 8
#define GM_DEFAULT_ARRIVAL_SEED 1
/* The latency target of open-loop programs' requests when none is given:
 * twice the program's alone service time. */
#define GM_DEFAULT_SLO "2x"

/* Kernels one replay may change (--smem-pad, --kernel-module). */
#define GM_MAX_KERNEL_KNOBS 16
/* The most --smem-pad adds: an H100 SM's shared memory. */
#define GM_SMEM_PAD_MAX (228 * 1024)
/* The exit status of a replay (the program and `gpumix replay`) whose
 * --smem-pad or --kernel-module asks for a point that cannot exist: a
 * cooperative launch whose grid the knob's residency cannot hold (a
 * sweep skips such a point, doc/gpumix-sweep.md). */
#define GM_REPLAY_EXIT_NO_POINT 4

/* One kernel's --smem-pad or --kernel-module, as given. */
struct gm_kernel_knob {
	const char *kernel;	/* mangled name: the option's text, borrowed */
	size_t kernel_len;	/* up to the '=' */
	uint32_t bytes;		/* --smem-pad */
	const char *path;	/* --kernel-module */
};

enum gm_host_callbacks {
	GM_HOST_CALLBACKS_EMPTY,	/* a host function that returns */
	GM_HOST_CALLBACKS_TIMED,	/* one that spends the captured time */
};

/* Where a program's allocations live (doc/gpumix-replay.md, "Addresses"). */
enum gm_addresses {
	GM_ADDRESSES_CAPTURED,	/* at their captured addresses where the
				   driver gives them, relocated otherwise */
	GM_ADDRESSES_RELOCATED,	/* wherever the bulk allocator puts them */
};

struct gm_replay_opts {
	const char *data_dir;		/* NULL: the program's directory */
	const char *run_dir;		/* NULL: runs/<workload>.<variant> */
	/* The knobs the table parses (knob_values.h): min_replays (1 with
	 * one_shot), one_shot, watchdog_s, timeslice_us, copy_chunk,
	 * completion, grid, probe, host_time, max_host_gap_s, each set
	 * through its row (gm_knob_store()). */
	GM_KNOB_VALUES_MEMBER;
	unsigned repetition;		/* --repetition: which repetition of
					   a study's run this is (0-based) */
	int have_study_seed;		/* --study-seed given */
	uint64_t study_seed;		/* the seed of the study's run order */
	int force, profile, warm_host;
	const char *variant_name;	/* --variant, NULL: the program's */
	const struct gm_variant *variant;	/* set by _finish() */
	const char *policy;		/* static string, or NULL */
	const char *profile_path;	/* kernel profile file, or NULL */
	const char *high_priority;	/* program at the highest priority */
	const char *sm_share;		/* green: "PROG=SHARE,...", checked */
	const char *scale_path;		/* green: knees of gpumix scale */
	const char *cliff_map;		/* elastic, mpmax-cliff: a sweep's
					   points.csv */
	const char *mps_threads;	/* --mps-threads as given, or NULL */
	int process_child;		/* internal --process-child: the program
					   this process replays, -1: all */
	int board_fd;			/* its shared board (process_board.h) */
	enum gm_host_callbacks host_callbacks;
	enum gm_addresses addresses;
	/* Open-loop programs (common/arrivals.h): "PROG=SPEC" as given,
	 * each checked; their requests (0: the process's default) and the
	 * seed of their Poisson processes. */
	const char *arrivals[GM_MAX_ARRIVALS];
	unsigned nr_arrivals;
	unsigned requests;
	uint64_t arrival_seed;
	int requests_given, arrival_seed_given;
	const char *slo;		/* --slo as given (checked), or NULL:
					   GM_DEFAULT_SLO */
	const char *alone_dir;		/* --alone: the run directory of the
					   alone times a load:L is against */
	const char *arrivals_label;	/* --arrivals-label: the run's point
					   of a study's sweep ("load0.5"), or
					   NULL */
	struct gm_kernel_knob smem_pad[GM_MAX_KERNEL_KNOBS];
	unsigned nr_smem_pad;
	struct gm_kernel_knob kernel_module[GM_MAX_KERNEL_KNOBS];
	unsigned nr_kernel_module;
	const char *elastic_mode, *elastic_slice;	/* as given */
	struct gm_elastic_setting elastic;
	unsigned given;			/* GM_KNOB_* set on the command line */
};

/* Defaults: 7 replays, repetition 0 and no study seed, 60 s watchdog,
 * profiling on, fresh host pages, allocations at their captured
 * addresses where they can be, elastic off; the knobs of the table's
 * kinds (knobs.h) at their rows' defaults: captured host time without a
 * limit, 1 ms timeslices, 4 MiB copy chunks, event completion, captured
 * grids where no limit binds, probe off. */
void gm_replay_opts_init(struct gm_replay_opts *o);

/*
 * Parse the replay options in @argv[1..] (getopt_long; the words that
 * are not options stay, in order, from *@first_arg on). Returns 0, 1
 * after --help (nothing else checked), or -1 with a recorded cause for
 * a usage error (unknown option, bad value). Does not check the
 * variant; call gm_replay_opts_finish() next.
 */
int gm_replay_opts_parse(struct gm_replay_opts *o, int argc, char **argv,
			 int *first_arg);

/*
 * Settle the variant (@o->variant_name, else @default_variant, the one
 * the program was reconstructed with) and check the knobs against it;
 * --one-shot sets min_replays to 1. Fails with a recorded cause for an
 * unknown or unimplemented variant, a knob the variant does not take, a
 * policy missing or given without need, --min-replays with --one-shot,
 * or --arrivals with --one-shot, twice for one program, or --requests
 * and --arrival-seed without it.
 */
int gm_replay_opts_finish(struct gm_replay_opts *o,
			  const char *default_variant);

/*
 * The replay options, getopt_long's table (what gm_replay_opts_parse()
 * takes; gpumix replay checks and forwards them, its completion lists
 * them). { NULL } terminated.
 */
extern const struct option gm_replay_longopts[];

/* The option lines of --help, from the tables (variant list included). */
void gm_replay_opts_help(FILE *f);

/*
 * The MPS active-thread percentage of program @name under the
 * --mps-threads value @spec ("PCT" for every program, or
 * "NAME=PCT,NAME=PCT"): 1-100, or 0 for no limit (NULL @spec, or a
 * program the list does not name). An instance "lbm#2" of a program with
 * copies takes "lbm"'s percentage unless the list names it exactly. @spec must have passed
 * gm_mps_threads_check().
 */
unsigned gm_mps_threads_for(const char *spec, const char *name);

/* 0 when @spec is a valid --mps-threads value, else -1 with a cause. */
int gm_mps_threads_check(const char *spec);

/*
 * A latency target (--slo, a study's `slo`): "Nx", N times the program's
 * alone service time (its mean alone replay time), or "Nms", N
 * milliseconds; N a positive number. Sets *@factor (0 for an absolute
 * target) and *@ms (0 for a relative one). Returns 0, or -1 with a cause.
 */
int gm_slo_parse(const char *s, double *factor, double *ms);

/* 0 when @s is a valid --arrivals-label (1 to 32 letters, digits, '.',
 * '-' and '_', starting with a letter), else -1 with a cause. */
int gm_arrivals_label_check(const char *s);

/*
 * Parse "KERNEL=VALUE" (@what: "--smem-pad" or "--kernel-module") into
 * @k, which borrows @s: the kernel is @s up to the '=', a --smem-pad's
 * value a number of bytes from 0
 * to GM_SMEM_PAD_MAX, a --kernel-module's a path. Returns 0, or -1 with
 * a cause naming @what.
 */
int gm_kernel_knob_parse(const char *what, const char *s,
			 struct gm_kernel_knob *k);

/* Whether @k names @kernel. */
int gm_kernel_knob_is(const struct gm_kernel_knob *k, const char *kernel);

/* The --smem-pad bytes of @kernel under @o (0: none). */
uint32_t gm_smem_pad_for(const struct gm_replay_opts *o, const char *kernel);

/* The --kernel-module file of @kernel under @o, or NULL. */
const char *gm_kernel_module_for(const struct gm_replay_opts *o,
				 const char *kernel);

/* "event" or "poll". */
const char *gm_completion_name(enum gm_completion c);

/* "captured" or "none"; gm_host_time_parse() returns -1 for others. */
const char *gm_host_time_name(enum gm_host_time h);
int gm_host_time_parse(const char *s, enum gm_host_time *out);

/* "captured" or "relocated"; gm_addresses_parse() returns -1 for others. */
const char *gm_addresses_name(enum gm_addresses a);
int gm_addresses_parse(const char *s, enum gm_addresses *out);

/* "captured" or "resident"; gm_grid_mode_parse() returns -1 for others. */
const char *gm_host_callbacks_name(enum gm_host_callbacks h);
const char *gm_grid_mode_name(enum gm_grid_mode g);

/* "blocks" or "off"; gm_probe_mode_parse() returns -1 for others. */
const char *gm_probe_mode_name(enum gm_probe_mode m);
int gm_probe_mode_parse(const char *s, enum gm_probe_mode *out);
int gm_grid_mode_parse(const char *s, enum gm_grid_mode *out);

#endif
