/* SPDX-License-Identifier: MIT */
/*
 * Internal state of the replay runtime, shared by run.c (the process, the
 * run directory), prog.c (one program's init, replays and cleanup) and
 * interp.c (operations).
 * Not installed: generated programs only see gpumix_replay.h.
 */
#ifndef GM_REPLAY_INT_H
#define GM_REPLAY_INT_H

#include <pthread.h>
#include <stdatomic.h>
#include <sys/types.h>

#include <cuda.h>

#include "addr_hold.h"
#include "bulk_alloc.h"
#include "elastic_abi.h"
#include "elastic_index.h"
#include "elastic_plan.h"
#include "gpu_state.h"
#include "gpumix_replay.h"
#include "hash.h"
#include "host_gap.h"
#include "open_loop.h"
#include "profiler.h"
#include "replay_opts.h"
#include "repeat.h"
#include "run_writer.h"
#include "watchdog.h"

struct gm_run;
struct gm_addr_prog;
struct gm_process_board;
struct gm_sched;
struct gm_planner;
struct gm_drvcalls;
struct gm_probe_prog;
struct gm_probe_run;
struct kvfile;

/*
 * A result hashed on CUDA's thread when the work before it in a stream
 * has run (a GRAPH_CHECK flagged GM_F_LAUNCH_END: when its launch has
 * run), compared at the next synchronization: @room and @len are what is
 * hashed, @done says the hash is in.
 */
struct gm_launch_hash {
	const uint8_t *room;
	uint64_t len;
	struct gm_hash hash;
	atomic_int done;
};

/* An asynchronous D2H copy whose result is checked at the next sync:
 * as the host arena holds it then, or as @lh (not NULL) hashed it. */
struct gm_pending {
	const struct gm_op *op;
	uint64_t index;
	struct gm_launch_hash *lh;
};

struct gm_prog {
	struct gm_run *run;
	unsigned index;
	const struct gm_program_desc *d;
	pid_t tid;
	CUcontext ctx;			/* its thread's: the run's, or the one
					   the scheduler's run_init gave it */

	/* Init-time handles, indexed by the descriptor's ids. */
	CUlibrary *libs;
	CUfunction *funcs;
	void ***kargs;			/* per kernel: pointers into param_buf */
	CUdeviceptr *globals;
	uint64_t *global_size;
	CUstream *streams;
	CUstream aux_stream;		/* runtime's own work, not profiled */
	CUevent *events;
	struct gm_hash *checks;
	uint32_t nr_streams_created, nr_events_created, nr_libs_loaded;
	/* A sweep's point (--smem-pad): per kernel the dynamic shared
	 * memory added to its launches (NULL: none). */
	uint32_t *smem_pad;

	/* Elastic modules (--elastic): per module its elastic image or
	 * NULL, per kernel its class, per launch the resident blocks per
	 * SM (resident mode only); the extra kernel parameter. */
	const struct gm_elastic_image **el_image;
	enum gm_elastic_class *el_class;
	uint32_t *el_resident;
	struct gm_elastic_args el_args;

	/* Legacy-stream emulation (only with other blocking streams). */
	CUevent *sync_events;		/* one internal event per stream */
	uint8_t *dirty;			/* blocking stream has work since */
	uint64_t *seen_gen;		/* legacy generation waited for */
	uint64_t legacy_gen, legacy_event_gen;
	uint32_t *blocking;		/* ids of blocking streams (not 0) */
	uint32_t nr_blocking;

	/* Replay-time state. */
	CUdeviceptr *alloc_ptr;
	uint64_t *alloc_size;
	CUtexObject *tex;
	uint8_t **hm_host;		/* mapped/managed memory (hostmem.c) */
	CUarray *arrays;		/* CUDA arrays (copy_nd.c), and */
	uint8_t *array_live;		/* whether the program has them now */
	CUdeviceptr *hm_dev;
	struct bulk_alloc pool;
	CUdeviceptr *chunks;
	size_t nr_chunks, alloc_chunks;
	uint8_t *arena, *arena_pinned;
	uint8_t *param_buf;
	struct gm_pending *pending;
	size_t nr_pending, alloc_pending;

	/* CUDA graphs (graph_ops.c), by the descriptor's ids. */
	CUgraph *graphs;
	CUgraphExec *execs;
	CUgraphNode *nodes;
	uint8_t *capturing;		/* per stream: began a capture */
	uint32_t nr_capturing;
	/* Hashes of results checked at their launch's end, in blocks that
	 * never move (CUDA's thread writes them), reused every replay. */
	struct gm_launch_hash **lh_blocks;
	size_t nr_lh_blocks, nr_lh_used;

	/* Timing and progress. */
	unsigned replay;		/* replays completed */
	int replaying;
	int prepared;			/* the next replay's memory is ready
					   (prepare_replay in prog.c) */
	uint64_t start_ns, io_ns;
	struct watchdog_target *wd;
	struct gm_host_gaps hg;		/* captured host time (host_gap.h) */
	const struct gm_op *cur_ops;	/* table being replayed (reports) */
	atomic_uint_fast64_t last_launch;	/* op index + 1, 0: none */
	struct repeat_ctl *group;
	unsigned group_index;
	void *sched_state;		/* the scheduler's, per program */
	struct gm_probe_prog *probe;	/* --probe blocks (probe.h), or NULL */
	struct gm_drvcalls *drv;	/* its thread's driver calls (drvcalls.h) */
	int init_done, failed, arrived_end;
	/* An open-loop program (open_loop.h): its clock origin and its
	 * current request's arrival, on the run's clock. */
	uint64_t ol_origin, ol_arrival;
};

enum gm_phase {
	GM_PHASE_INIT,
	GM_PHASE_REPLAY,
	GM_PHASE_CLEANUP,
};

struct gm_device_info {
	char name[256];
	int cc_major, cc_minor;
	int sm_count, max_threads_per_sm, max_blocks_per_sm, regs_per_sm,
	    smem_per_sm;
	int driver_version;
};

struct gm_run {
	const struct gm_workload_desc *w;
	struct gm_replay_opts opt;
	int single;			/* variant single: one at a time */
	const struct gm_sched *sched;	/* runs the variant (sched.h) */
	const struct gm_planner *planner;	/* launches (launch_plan.h) */
	void *sched_state;		/* the scheduler's, per run */
	void *planner_state;		/* the planner's, per run */
	CUdevice dev;
	CUcontext ctx;
	int have_ctx;
	struct gm_device_info device;
	void **blob_host;
	uint8_t *blob_pinned;
	struct gm_prog *progs;
	struct watchdog_target *targets;
	struct watchdog wd;
	struct profiler prof;
	struct gm_elastic_index el_index;	/* read when elastic is on */
	struct gm_probe_run *probe;	/* --probe blocks (probe.h), or NULL */
	struct gm_addr_prog *addr;	/* per program: its captured addresses
					   (addr_space.h), or NULL */
	struct gm_addr_hold addr_hold;	/* their placeholders until placed */
	struct {
		atomic_uint_fast64_t elastic;	/* launches made elastic */
		atomic_uint_fast64_t physical;	/* kernel launches they took */
		atomic_uint_fast64_t identity;	/* transformed, elasticity off */
		atomic_uint_fast64_t unmodified;	/* original kernels */
		atomic_uint_fast64_t identity_shape;	/* no other shape */
	} el_count;

	pthread_mutex_t lock;		/* everything below */
	pthread_cond_t cond;
	enum gm_phase phase;
	unsigned arrived;
	unsigned turn;			/* single: program whose turn it is */
	struct repeat_ctl *groups;
	unsigned nr_groups;
	struct run_replay_rec *replays;
	size_t nr_replays, alloc_replays;
	struct gm_open_loop *open_loop;	/* per program, or NULL: none */
	struct run_request_rec *requests;	/* open-loop requests */
	size_t nr_requests, alloc_requests;
	char failure[1024];
	atomic_int stop;		/* a program failed, or hung */
	atomic_int finishing;		/* the run directory is being written */
	int failed;
	int no_point;			/* the first failure: a knob's point that
					   cannot exist (kernel_knobs.h) */

	int log_fd;
	char started_at[32];

	/* The GPU's clock, temperature and throttle reasons at the start
	 * and end of the run, for the manifest (gpu_state.h). */
	struct gm_nvml nvml;
	struct gm_gpu_state gpu_start, gpu_end;

	/* A replay process of a process variant (process_run.c): the shared
	 * board and the index of its one program in the whole workload. */
	struct gm_process_board *board;
	unsigned process_index;
	int mps_client;			/* CU_DEVICE_ATTRIBUTE_MPS_ENABLED */
};

/* Create a non-blocking stream of @p at @priority, registered with the
 * profiler as the program's; @what names it in messages. 0 or -1. */
int gm_prog_stream_create(struct gm_prog *p, CUstream *out, int priority,
			  const char *what);

/* Resolve a reference at run time (0 and a recorded cause when dead). */
int gm_resolve(struct gm_prog *p, uint32_t ref, uint64_t off, uint64_t len,
	       CUdeviceptr *out);

/* Wait for the GPU work of @p (its scheduler's drain) and check its
 * pending results. */
int gm_prog_drain(struct gm_prog *p);

/* Check pending results of captured stream @s (all when @s < 0). */
int gm_check_pending(struct gm_prog *p, int s);

/* Check the device-to-host result of @op, now in the host arena, against
 * its captured hash (nothing for GM_NONE or a nondeterministic program);
 * the hashing time counts as I/O. Returns 0 or -1 (cause recorded). */
int gm_verify(struct gm_prog *p, const struct gm_op *op);

/* Remember asynchronous copy @op (operation @index) to check at the next
 * synchronization of its stream; nothing when it has no check. With
 * gm_pending_add_hashed(), the result is what @lh hashed (when done by
 * then; else what the host arena holds). */
void gm_pending_add(struct gm_prog *p, const struct gm_op *op,
		    uint64_t index);
void gm_pending_add_hashed(struct gm_prog *p, const struct gm_op *op,
			   uint64_t index, struct gm_launch_hash *lh);

/*
 * An executor's handler of one operation code (the tables indexed by code
 * of sched_serial.c, sched_nss.c and graph_ops.c); @index is the
 * operation's position, for results and messages. 0 or -1 (cause
 * recorded).
 */
typedef int gm_exec_fn(struct gm_prog *p, const struct gm_op *op,
		       uint64_t index);

/* GM_OP_NOP: nothing to do (a gm_exec_fn). */
int gm_op_nop(struct gm_prog *p, const struct gm_op *op, uint64_t index);

/* GM_OP_ALLOC and GM_OP_FREE through the bulk allocator, or at the
 * captured address when the program's allocations are there
 * (addr_space.h). gm_op_free() does not wait for the GPU: the scheduler
 * makes sure no queued or running work still uses the memory. 0 or -1
 * (cause recorded). gm_op_alloc() is a gm_exec_fn. */
int gm_op_alloc(struct gm_prog *p, const struct gm_op *op, uint64_t index);
int gm_op_free(struct gm_prog *p, const struct gm_op *op);

/* 1 when PTR_STORE @op has nothing to do: it stores an allocation's
 * address, and @p's allocations are at their captured addresses (the
 * copied word holds that address already). */
int gm_ptr_store_skip(const struct gm_prog *p, const struct gm_op *op);

/* GM_OP_TEX_CREATE (over the memory live now) and GM_OP_TEX_DESTROY,
 * executors' handlers (gm_exec_fn). 0 or -1 (cause recorded). */
int gm_tex_create(struct gm_prog *p, const struct gm_op *op, uint64_t index);
int gm_tex_destroy(struct gm_prog *p, const struct gm_op *op, uint64_t index);

/*
 * Mapped page-locked and managed memory (hostmem.c): allocate every used
 * gm_hostmem_desc at init and free them at cleanup; execute HOST_FILL,
 * HOST_CHECK, PREFETCH (on stream @s) and ADVISE (the caller waits
 * first for queued work that may still use the memory, where its
 * scheduler reorders). 0 or -1 (cause recorded).
 */
int gm_hostmem_init(struct gm_prog *p);
void gm_hostmem_release(struct gm_prog *p);
int gm_hostmem_op(struct gm_prog *p, const struct gm_op *op, CUstream s);
/* 1 when gm_hostmem_op has a handler for operation code @code. */
int gm_hostmem_handles(unsigned code);

/* GM_OP_HOST_FUNC on CUDA stream @st: an empty host function, or one
 * that spends the captured op->x nanoseconds (--host-callbacks timed).
 * 0 or -1 (cause recorded). */
int gm_host_func(struct gm_prog *p, const struct gm_op *op, CUstream st);

/* Name of an opcode ("launch", "device-to-host copy", ...). */
const char *gm_op_name(unsigned code);

/* Timestamp on the run's clock (CUPTI's). */
uint64_t gm_now(void);

/* 1 when GPUMIX_DEBUG asks for debug lines. */
int gm_debug_on(void);

/*
 * Move this thread's recorded error into the run: logged (with its hint),
 * kept as the run's failure when it is the first, and every program is
 * told to stop.
 */
void gm_record_failure(struct gm_run *run);

/* A device-to-host copy into the pageable host arena. */
static inline int gm_op_pageable_d2h(const struct gm_op *op)
{
	return op->code == GM_OP_D2H &&
	       !(op->flags & (GM_F_PINNED | GM_F_GRAPH));
}

/* One whose captured destination was resident: each replay touches its
 * room in the host arena before the timed part. */
static inline int gm_op_host_warm(const struct gm_op *op)
{
	return gm_op_pageable_d2h(op) && (op->flags & GM_F_HOST_WARM);
}

/* The run manifest's keys of program @i: program.I.name, .bundle,
 * .deterministic, .d2h_pageable and .d2h_warm (every run directory has
 * them, doc/run-directory.md). */
void gm_manifest_program(struct kvfile *kv, unsigned i,
			 const struct gm_program_desc *d);

/* The run manifest's keys of a study's repetition: run.repetition
 * (always, 0 unless --repetition) and study.seed (with --study-seed). */
void gm_manifest_repetition(struct kvfile *kv, const struct gm_replay_opts *o);

/* The run manifest's keys of the host-time options: host_time (always)
 * and max_host_gap_s (with --max-host-gap). The programs' own are
 * gm_host_gaps_manifest()'s. */
void gm_manifest_host_time(struct kvfile *kv, const struct gm_replay_opts *o);

/* Write @run's run directory (run_manifest.c): activity.tsv,
 * replays.tsv, drivercalls.tsv, the probe's files and, last, the
 * manifest with @status and @failure. @hung: the watchdog writes while
 * the GPU hangs (nothing asks it). 0 or -1. */
int gm_write_run(struct gm_run *run, const char *status,
		 const char *failure, int hung);

/* Read exactly @size bytes of @path into @buf (the file must have that
 * size). Returns 0 or -1 (cause recorded). */
int gm_read_exact(const char *path, void *buf, uint64_t size);

/* 0 when @size bytes at @data hash to @want (32 hex digits), else -1 with
 * a cause naming @path. */
int gm_check_hash(const char *path, const void *data, uint64_t size,
		  const char *want);

/* Write a line to stderr and to the run's log. */
void gm_log(struct gm_run *run, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));

/* The dynamic shared memory of launch @l of @p: as captured, plus the
 * kernel's --smem-pad. */
static inline uint32_t gm_launch_smem(const struct gm_prog *p,
				      const struct gm_launch_desc *l)
{
	return l->smem + (p->smem_pad ? p->smem_pad[l->kernel] : 0);
}

#endif
