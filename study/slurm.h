/* SPDX-License-Identifier: MIT */
/*
 * A study spread over the nodes of a SLURM cluster (gpumix run --slurm):
 * the stages still to do are submitted with sbatch as jobs that run
 * `gpumix run --task WHAT` (executor.h's enum study_task) on the nodes,
 * each writing into the shared study directory:
 *
 *   prep      captures and reconstructs (when any is to do)
 *   runs      a job array, one task per run to replay, after prep
 *             (--dependency=afterok)
 *   profile   the kernel profile, after the runs it reads
 *   runs2     the runs that read the profile, after it
 *   finish    loads the replayed runs into the database and writes the
 *             report, after everything (afterany: whatever failed)
 *
 * The job ids are kept in STATE.slurm, for --status and so that a
 * submission is refused while the previous one still has jobs queued or
 * running. Submitting again resumes: the decision of what is to do is the
 * study's own (study state and task records), so finished runs are not
 * submitted again, and failed ones only with --retry-failed.
 */
#ifndef GM_STUDY_SLURM_H
#define GM_STUDY_SLURM_H

#include <stdio.h>

struct exec_ctx;
struct study;

/* The SLURM options of gpumix run. */
struct slurm_opts {
	const char *partition;	/* --partition, or NULL */
	const char *gres;	/* --gres, e.g. "gpu:1", or NULL */
	const char *self;	/* this gpumix binary (run by every job) */
	const char *file;	/* the study file, absolute */
};

/* The commands used (default: sbatch, squeue, sacct in PATH). */
#define SLURM_SBATCH_ENV "GPUMIX_SBATCH"
#define SLURM_SQUEUE_ENV "GPUMIX_SQUEUE"
#define SLURM_SACCT_ENV "GPUMIX_SACCT"

/*
 * Submit the stages still to do of the study decided in @x (exclusive
 * lock held). Prints what was submitted to x->o->out. 0, or -1 when
 * sbatch fails (the jobs submitted before it are cancelled with scancel)
 * or the previous submission is still queued or running.
 */
int exec_slurm_submit(struct exec_ctx *x);

/*
 * A study run here must not replay beside its own SLURM jobs: -1 (with
 * the error) when the last submission still has jobs queued or running,
 * 0 when not, or when there is no submission or no squeue here.
 */
int study_slurm_check_idle(const struct study *s);

/*
 * Print the jobs of the study's last submission (squeue, and sacct when
 * the cluster keeps accounting) and how many runs are replayed, to @out.
 * 0, or -1 when nothing was submitted.
 */
int study_slurm_status(const struct study *s, FILE *out);

#endif
