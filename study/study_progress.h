/* SPDX-License-Identifier: MIT */
/*
 * Progress of a study on stderr: runs done / total, the stage being run
 * (workload, variant, stage), elapsed time and an estimate of the time
 * left from the mean duration of each kind of stage (including durations
 * recorded by earlier invocations). On a terminal one line is rewritten
 * in place; otherwise one line is printed per stage.
 */
#ifndef GM_STUDY_STUDY_PROGRESS_H
#define GM_STUDY_STUDY_PROGRESS_H

#include <stddef.h>
#include <stdio.h>

#include "plan.h"

struct study_progress {
	FILE *out;
	int tty;		/* rewrite one line in place */
	int quiet;		/* print nothing */
	double start;		/* monotonic seconds */
	size_t runs_total, runs_done;
	size_t stages_total, stages_done;
	double sum[STUDY_NR_STAGES];	/* known durations per stage kind */
	unsigned count[STUDY_NR_STAGES];
	unsigned left[STUDY_NR_STAGES];	/* stages of each kind still to run */
	unsigned parallel;	/* replays that run at once (0: one) */
	int current;		/* stage kind running, or -1 */
	double current_start;
	char label[256];
	size_t shown;		/* characters on the terminal line */
	double last_draw;
};

/* @out is usually stderr; @quiet silences everything. */
void study_progress_init(struct study_progress *p, FILE *out, int quiet);

/* A known duration of a stage of @kind (for the estimate). */
void study_progress_sample(struct study_progress *p, enum study_stage kind, double secs);

/* Count one more stage of @kind still to run. */
void study_progress_plan(struct study_progress *p, enum study_stage kind);

/* A stage starts; @label reads like "mm+spmv cuda: replay". */
void study_progress_begin(struct study_progress *p, enum study_stage kind,
		    const char *label);

/* Redraw if due (about 4 times a second on a terminal). */
void study_progress_tick(struct study_progress *p);

/*
 * The stage ended after @secs; @failure, when not NULL, is printed on a
 * line of its own ("mm+spmv cuda: replay hung: ...").
 */
void study_progress_end(struct study_progress *p, enum study_stage kind, double secs,
		  const char *failure);

/* A stage that will not run after all (skipped after a failure). */
void study_progress_drop(struct study_progress *p, enum study_stage kind);

/* Clear the terminal line. */
void study_progress_finish(struct study_progress *p);

/* "45s", "1m02s", "2h03m" into @buf. */
void study_progress_format_duration(char *buf, size_t len, double secs);

#endif
