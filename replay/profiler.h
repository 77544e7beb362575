/* SPDX-License-Identifier: MIT */
/*
 * In-process profiling with the CUPTI Activity API, one subscriber per
 * process: CONCURRENT_KERNEL (never KERNEL, which serializes kernels),
 * MEMCPY, MEMSET, RUNTIME and DRIVER records, with latency timestamps
 * (queued, submitted) enabled before CUDA is initialised. Completed
 * buffers are kept in memory during the replay (no file I/O on the timed
 * path) and converted into activity.tsv at the end, each record
 * attributed to a program by its stream (GPU records) or its thread (API
 * records). Records that belong to no program (the runtime's own set-up
 * on the main thread) are counted and left out. Dropped records are
 * counted and reported.
 */
#ifndef GM_PROFILER_H
#define GM_PROFILER_H

#include <pthread.h>
#include <stdint.h>

struct prof_buffer {
	uint8_t *data;
	size_t valid;
	struct prof_buffer *next;
};

struct prof_owner {
	uint32_t ctx;		/* CUPTI context id of a stream, 0: thread */
	uint32_t id;		/* CUPTI stream id or system thread id */
	unsigned program;
};

struct profiler {
	int enabled;
	int external;		/* external correlation records on */
	pthread_mutex_t lock;
	struct prof_buffer *head, **tail, *last;	/* delivered buffers */
	uint64_t dropped;
	uint64_t nr_buffers;
	struct prof_owner *streams, *threads;
	size_t nr_streams, alloc_streams, nr_threads, alloc_threads;
};

/*
 * Start profiling (before cuInit). The profiler is process-wide: CUPTI's
 * buffer callbacks carry no user pointer, so at most one may be started.
 * Returns 0 or -1 (cause recorded; e.g. insufficient privileges).
 */
int gm_profiler_start(struct profiler *pr);

/* Stop profiling and free every buffer (after gm_profiler_write). */
void gm_profiler_release(struct profiler *pr);

/* Attribute a CUPTI stream (context id and stream id: CUPTI's stream ids
 * are unique within a context only, and green gives each program its own
 * context) / a system thread id to program @program.
 * gm_profiler_own_stream() fails, with a cause, when the stream is already
 * another program's. */
int gm_profiler_own_stream(struct profiler *pr, uint32_t ctx_id,
			uint32_t stream_id, unsigned program);
void gm_profiler_own_thread(struct profiler *pr, uint32_t tid,
			    unsigned program);

/*
 * Deliver outstanding buffers. @forced also delivers buffers with
 * incomplete records (used when the GPU may be hung). Returns 0 or -1.
 */
int gm_profiler_flush(struct profiler *pr, int forced);

/*
 * Write @dir/activity.tsv from the buffers delivered so far; @names gives
 * each program's name. *@written, *@unattributed and *@incomplete (GPU
 * records without an end, left out) count records. Safe
 * to call while CUPTI still delivers buffers (it takes a snapshot).
 * Without profiling, writes an empty log (just the END line).
 */
int gm_profiler_write(struct profiler *pr, const char *dir,
		   const char *const *names, unsigned nr_programs,
		   uint64_t *written, uint64_t *unattributed,
		   uint64_t *incomplete);

/*
 * Turn on CUPTI's external correlation records (after gm_profiler_start()):
 * a driver call made while an id of CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0
 * is pushed gets a record pairing that id with the call's correlation id
 * (the block probe's launches, replay/probe.h). 0 or -1.
 */
int gm_profiler_enable_external(struct profiler *pr);

/*
 * Call @fn(@ctx, external id, correlation id) for every CUSTOM0 external
 * correlation record delivered so far (flush first). Records of other
 * kinds are skipped.
 */
void gm_profiler_external_ids(struct profiler *pr,
			   void (*fn)(void *ctx, uint64_t ext, uint32_t corr),
			   void *ctx);

/* Records CUPTI reported as dropped (after a flush); asks CUPTI. */
uint64_t gm_profiler_dropped(struct profiler *pr);

/* The dropped records counted so far, without calling CUPTI (which may
 * block when the GPU hangs). */
uint64_t gm_profiler_dropped_so_far(struct profiler *pr);

#endif
