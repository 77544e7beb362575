/* SPDX-License-Identifier: MIT */
/*
 * Open-loop (latency-critical) programs in the replay runtime: the
 * programs `--arrivals` names replay once per request, each request
 * started at its arrival time or, when the request before still runs,
 * as soon as that one has ended (a queue per program); the other
 * programs replay back to back as before, and go on until the open-loop
 * programs have served every request (repeat.h, gm_repeat_set_fixed()).
 * The arrival times are computed once before the run starts
 * (common/arrivals.h) from the options alone; a program's clock origin
 * is the moment it may start replaying (after the init barrier, or its
 * turn in `single`). Each request's arrival, start and end go to the run
 * directory's requests.tsv (doc/run-directory.md).
 */
#ifndef GM_OPEN_LOOP_H
#define GM_OPEN_LOOP_H

#include <stdint.h>

struct gm_run;
struct gm_prog;
struct gm_process_board;
struct kvfile;

/* One program's arrivals (an entry per program of the run's workload). */
struct gm_open_loop {
	uint64_t *times;	/* offsets in ns from its origin, or NULL:
				   a batch program */
	unsigned nr;
	char *spec;		/* as recorded: "poisson:50" */
	double load, alone_s;	/* load:L: L and the alone time; 0: none */
};

/*
 * Compute the arrival times of every --arrivals program of @run (its
 * run->w; the names are checked against @all, the whole workload, which
 * a replay process of a process variant has beside its one program).
 * Fills run->open_loop (or leaves it NULL without --arrivals). Returns 0,
 * or -1 with a cause (a program the workload does not have, an
 * unreadable or bad trace).
 */
int gm_open_loop_setup(struct gm_run *run, const char *const *all,
		       unsigned nr_all);
void gm_open_loop_release(struct gm_run *run);

/* Tell the repetition controllers (threads) or @board (a process
 * variant's parent) how many requests each open-loop program makes. */
void gm_open_loop_groups(struct gm_run *run);
void gm_open_loop_board(struct gm_run *run, struct gm_process_board *board);

/*
 * Before program @p's next replay starts: when it is open-loop, wait
 * until its next request arrives (not at all when it has arrived: it
 * waited in the queue) and remember the arrival. Returns 0 to start it,
 * 1 when the run stopped meanwhile.
 */
int gm_open_loop_wait(struct gm_prog *p);

/* Program @p's replay ended at @end_ns, after starting at @start_ns:
 * record its request (nothing for a batch program). Call with the run's
 * lock held. */
void gm_open_loop_ended(struct gm_prog *p, uint64_t start_ns,
			uint64_t end_ns);

/* Write @run's requests.tsv (nothing without open-loop programs).
 * 0 or -1 (cause recorded). */
int gm_open_loop_write(struct gm_run *run);

/* The manifest's keys: arrivals.seed and, per open-loop program I of
 * the whole workload, program.I.arrivals and program.I.requests. */
void gm_open_loop_manifest(struct gm_run *run, struct kvfile *kv);

#endif
