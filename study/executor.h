/* SPDX-License-Identifier: MIT */
/*
 * Running a study: decide from the study state which stages are still to
 * do (a stage is done when its record's input hash matches and its output
 * exists), then run them as child processes of the gpumix binary:
 *
 *   gpumix capture -o BUNDLE [--force] -- PROGRAM ARGS...  (per program)
 *   gpumix reconstruct -o BUILD [--elastic] BUNDLE...       (per workload)
 *   gpumix replay BUILD --variant V -o RUNDIR --min-replays R
 *                 --watchdog S [--policy P] [KNOB VALUE]...  (per run)
 *   gpumix profile -o PROFILE --force SINGLE-RUNDIR...      (once, when
 *                                           a variant takes --profile)
 *   gpumix analyze RUNDIR -o DATABASE --force               (per ok run)
 *   gpumix report DATABASE -o REPORT                        (once)
 *
 * Every run of a workload replays its one build; the knobs a run gets are
 * those its variant takes in the table (common/variant.h) that the study
 * sets (its keys) or derives (--elastic identity under same_kernels,
 * --profile PROFILE; study_knob_arg()). The stages are run one at a time,
 * recording each outcome in the state file as soon as it is known. A
 * failed or hung stage is recorded with its reason and the study goes on;
 * an interrupted one is not recorded and runs again next time. The
 * summary lists every run with its status and reason.
 */
#ifndef GM_STUDY_EXECUTOR_H
#define GM_STUDY_EXECUTOR_H

#include <stddef.h>
#include <stdio.h>

#include "plan.h"
#include "study.h"

/* Environment variables the executor reads. */
#define STUDY_EXEC_ENV "GPUMIX_STUDY_EXEC"	  /* gpumix binary for stages */
#define STUDY_KILL_ENV "GPUMIX_STUDY_KILL_AT"	  /* test hook, see docs */

struct gpu_list;
struct slurm_opts;

/*
 * What one invocation does. A study spread over SLURM nodes (slurm.h)
 * runs as jobs, each an invocation with one of these (`gpumix run --task
 * WHAT`, hidden): the prep job captures and reconstructs, each array
 * task replays one run (under the shared lock, its record in a task file
 * of its own), the profile job makes the kernel profile, the finish job
 * loads the replayed runs into the database and writes the report.
 */
enum study_task {
	STUDY_TASK_NONE,	/* the whole study, here */
	STUDY_TASK_PREP,	/* captures and reconstructs only */
	STUDY_TASK_RUN,		/* one run's replay (task_run) */
	STUDY_TASK_PROFILE,	/* the kernel profile only */
	STUDY_TASK_FINISH,	/* analyze what is replayed, the report */
};

struct study_run_opts {
	int dry_run;		/* print the plan, run nothing */
	int retry_failed;	/* run failed and hung stages again */
	int quiet;		/* no progress */
	const char *exec;	/* the gpumix binary that runs each stage */
	FILE *out;		/* plan and summary (stdout) */
	FILE *err;		/* progress (stderr) */
	/* --gpus: the replays run side by side, one per GPU, each pinned
	 * to its GPU (CUDA_VISIBLE_DEVICES); NULL or empty: one at a time. */
	const struct gpu_list *gpus;
	enum study_task task;
	const char *task_run;	/* STUDY_TASK_RUN: the run's id */
	/* --slurm: submit the stages to do instead of running them
	 * (slurm.h) */
	const struct slurm_opts *slurm;
};

struct study_outcome {
	size_t runs;		/* runs in the plan */
	size_t ok, failed, hung, skipped, pending;
	size_t not_needed;	/* repetitions the precision target did not
				   need */
	size_t stages_run;	/* stages run by this invocation */
	size_t stages_failed;
	int report_failed;	/* the report stage failed */
	int interrupted;	/* the signal that stopped the study, or 0 */
	double seconds;		/* wall time of this invocation */
	size_t to_replay;	/* runs still to replay (after a task) */
};

/*
 * Run (or with opts->dry_run, describe) the study @s planned as @plan.
 * Returns 0 when the study was carried out as far as it could go (run
 * failures are in @out, not errors), -1 when it could not run at all: an
 * executable or bundle is missing, the state is unreadable or locked, an
 * output directory cannot be created, a stage cannot be started.
 */
int study_execute(const struct study *s, const struct study_plan *plan,
		  const struct study_run_opts *o, struct study_outcome *out);

#endif
