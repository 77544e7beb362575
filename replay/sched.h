/* SPDX-License-Identifier: MIT */
/*
 * The scheduler interface: how a variant runs a program's operations on
 * the GPU. One implementation per file (sched_serial.c, sched_nss.c),
 * each with a name; the variant table (common/variant.c) says which
 * scheduler runs which variant. The runtime calls, in order:
 *
 *   run_init      once, after the device and blobs are set up (may
 *                 give each program the context its thread works in,
 *                 gm_prog.ctx)
 *   prog_init     per program, in its thread, after modules, kernels and
 *                 globals are resolved and the captured streams and
 *                 events exist (unless own_streams), before the
 *                 runtime's own stream is made
 *   exec          per operation of a timed replay
 *   idle          while the program spends captured host time before
 *                 an operation (doc/gpumix-replay.md, "Host time"):
 *                 issue what the scheduler holds back and became ready,
 *                 as the GPU would go on with queued work meanwhile
 *   drain         at the end of each replay (wait for the program's GPU
 *                 work, verify pending results)
 *   replay_end    after drain, before the next replay starts (forget the
 *                 replay's bookkeeping)
 *   prog_release  per program, at cleanup (its GPU work is done)
 *   manifest      once, when the run directory is written
 *   run_release   once, at the end
 *
 * Every hook but exec may be NULL. All but prog_release, manifest and
 * run_release return 0 or -1 with a recorded cause.
 */
#ifndef GM_SCHED_H
#define GM_SCHED_H

#include <stdint.h>

#include <cuda.h>

struct gm_run;
struct gm_prog;
struct gm_op;
struct kvfile;

struct gm_sched {
	const char *name;		/* as the variant table names it */
	int own_streams;		/* prog_init makes the streams the
					   program uses; the captured streams
					   and events are not created */
	int (*run_init)(struct gm_run *run);
	int (*prog_init)(struct gm_prog *p);
	int (*exec)(struct gm_prog *p, const struct gm_op *op, uint64_t index);
	/* 1 when work is still held back (call again soon), 0 when none
	 * (the caller may sleep), -1 with a recorded cause. */
	int (*idle)(struct gm_prog *p);
	int (*drain)(struct gm_prog *p);
	int (*replay_end)(struct gm_prog *p);
	void (*prog_release)(struct gm_prog *p);
	void (*manifest)(struct gm_run *run, struct kvfile *kv);
	void (*run_release)(struct gm_run *run);
	/* CUDA streams a program uses, for the manifest (besides the
	 * runtime's own one). */
	uint32_t (*nr_streams)(const struct gm_prog *p);
	/* The priority of the program's captured stream created with
	 * @captured (NULL: as captured). */
	int (*stream_priority)(const struct gm_prog *p, int captured);
	/* Create a non-blocking stream of @p at @priority (NULL:
	 * cuStreamCreateWithPriority in the program's context); 0 or -1
	 * with a recorded cause. */
	int (*stream_create)(struct gm_prog *p, CUstream *out, int priority);
};

extern const struct gm_sched gm_sched_serial;	/* single, cuda */
extern const struct gm_sched gm_sched_nss;	/* nss, elastic */
extern const struct gm_sched gm_sched_priority;	/* priority */
extern const struct gm_sched gm_sched_green;	/* green */

/* The serial scheduler's hooks, which the priority scheduler shares. */
int gm_serial_exec(struct gm_prog *p, const struct gm_op *op, uint64_t index);
/* 1 when gm_serial_exec has a handler of its own for operation code
 * @code; it hands the other graph operations to graph_ops.c. */
int gm_serial_handles(unsigned code);
int gm_serial_drain(struct gm_prog *p);
int gm_serial_replay_end(struct gm_prog *p);
uint32_t gm_serial_nr_streams(const struct gm_prog *p);

/* 1 when the nss scheduler has a handler for operation code @code (it
 * refuses the GM_OPT_NSS_REFUSED codes of op_traits.h). */
int gm_nss_handles(unsigned code);

/* The scheduler called @name, or NULL when the runtime has none. */
const struct gm_sched *gm_sched_find(const char *name);

#endif
