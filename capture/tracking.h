/* SPDX-License-Identifier: MIT */
/*
 * What the capture library must remember between callbacks: the
 * parameter layout of every kernel and function handle (launch callbacks
 * only see a handle and an array of argument pointers), the flags of each
 * stream and the stream of each recorded event (to know which pending
 * copies a synchronization completes), and the device-to-host copies
 * whose results are not in host memory yet. Internal to
 * libgpumix-capture.so; thread-safe; allocates only when a handle or a
 * pending copy is added, never on lookups.
 */
#ifndef GM_CAPTURE_TRACKING_H
#define GM_CAPTURE_TRACKING_H

#include <stddef.h>
#include <stdint.h>

#include "blob_store.h"

#define GM_MAX_PARAMS 4096

struct gm_layout {
	uint64_t handle;
	uint32_t nparams;
	uint32_t size;		/* bytes of the packed argument buffer */
	int is_kernel;		/* CUkernel (1) or CUfunction (0) */
	uint32_t *pairs;	/* nparams (offset, size) pairs */
	uint64_t module;	/* its module or library, 0: not known */
	int stale;		/* its module was unloaded: the handle may
				   name another kernel now */
};

/*
 * Remember the layout of @handle, of module or library @module (0: not
 * known) (@pairs copied). Returns the stored layout (valid for the life
 * of the process) or NULL without memory.
 */
const struct gm_layout *track_layout_put(uint64_t handle, int is_kernel,
					 const uint32_t *pairs, uint32_t n,
					 uint64_t module);

/* The layout of @handle, or NULL (also when its module was unloaded). */
const struct gm_layout *track_layout_get(uint64_t handle);

/*
 * Code the trace holds: modules and libraries loaded by recorded calls
 * (their images are in the bundle), and the module of a library
 * (cuLibraryGetModule). A kernel of other code cannot be replayed.
 * track_code_del(): unloaded; the layouts of its kernels go stale.
 * track_code_libraries(): up to @max recorded libraries into @out, their
 * number returned.
 */
void track_code_add(uint64_t handle, int is_library);
void track_code_del(uint64_t handle);
int track_code_known(uint64_t handle);
size_t track_code_libraries(uint64_t *out, size_t max);

/* Make @alias (a CUfunction of a CUkernel) share @handle's layout. */
void track_layout_alias(uint64_t alias, uint64_t handle);

/* Streams: a key that folds the two legacy spellings together. */
uint64_t track_stream_key(uint64_t stream, int per_thread_api, uint64_t tid);
void track_stream_flags(uint64_t key, unsigned flags);

/* 1 when stream @key is ordered with the legacy stream (blocking). */
int track_stream_blocking(uint64_t key);

/* The stream event @event was last recorded on: 0 and *@key, or -1. */
int track_event_stream(uint64_t event, uint64_t *key);

/* An event recorded on stream @key, after the pending copies so far. */
void track_event_record(uint64_t event, uint64_t key);

/*
 * Stream @key waits for @event (cuStreamWaitEvent): the copies the event
 * covers become covered by @key's synchronizations and later events too.
 */
void track_stream_wait(uint64_t key, uint64_t event);

/*
 * Streams a pending copy's result also reaches through cuStreamWaitEvent
 * (a wait on an event recorded after the copy): a synchronization of one
 * of them, or an event recorded on one after the wait, covers the copy.
 * More than this many and the copy waits for its own stream's sync.
 */
#define TRACK_MAX_WAITERS 4

struct track_waiter {
	uint64_t key;
	uint64_t since;		/* sequence number of the wait */
};

/*
 * A device-to-host copy whose result arrives when @key synchronizes.
 * @overwritten: a later copy wrote into its destination before any
 * synchronization covered it, so the program never saw its result (a
 * buffer reused by the rounds of a multi-stream pipeline): its d2h_hash
 * is no result (GM_RF_OVERWRITTEN, nothing hashed). @watched: a host
 * function (or a graph's host node) enqueued on stream @watch_key covers
 * it, so work that follows that function on its stream comes after the
 * program has seen the result and overwrites nothing.
 */
struct gm_pending {
	int api;
	uint32_t corr;
	uint64_t key;
	uint64_t seq;
	struct gm_span span;
	int overwritten;
	int watched;
	uint64_t watch_key;
	unsigned nr_waiters;
	struct track_waiter waiters[TRACK_MAX_WAITERS];
};

/*
 * A pending copy into @span: the pending copies whose destinations it
 * overlaps are overwritten. Its sequence number goes to *@seq (if not
 * NULL). Returns 0, or -1 without memory (the caller hashes right away).
 */
int track_pending_add(int api, uint32_t corr, uint64_t key,
		      const struct gm_span *span, uint64_t *seq);

/*
 * A synchronous copy into @span on stream @key (its result hashed at
 * once): the pending copies whose destinations it overlaps are
 * overwritten.
 */
void track_pending_overwrite(const struct gm_span *span, uint64_t key);

/*
 * A host function enqueued on stream @key at @position (a point of
 * track_position()): the pending copies it covers, as an event recorded
 * there would, are watched from @key. track_pending_watch_seqs(): the
 * pending copies @seqs are (a graph launch's copies a host node of the
 * launch follows).
 */
void track_pending_watch(uint64_t key, uint64_t position);
void track_pending_watch_seqs(uint64_t key, const uint64_t *seqs, size_t n);

/*
 * 1 when spans @a and @b share a byte. Spans of many rows may be taken
 * to overlap when their extents do (a lost check, never a wrong one).
 */
int track_spans_overlap(const struct gm_span *a, const struct gm_span *b);

/* Which pending copies a synchronization completes. */
enum track_sync {
	TRACK_SYNC_STREAM,	/* one stream (@arg: key) */
	TRACK_SYNC_LEGACY,	/* legacy stream and every blocking stream */
	TRACK_SYNC_EVENT,	/* copies before an event's record (@arg) */
	TRACK_SYNC_ALL,
};

/*
 * Remove the pending copies that @how completes and call @done on each,
 * without holding any lock.
 */
void track_pending_complete(enum track_sync how, uint64_t arg,
			    void (*done)(const struct gm_pending *p, void *ctx),
			    void *ctx);

/* Complete the pending copies whose sequence numbers are among the @n
 * of @seqs (a graph launch's copies that a host node follows). */
void track_pending_complete_seqs(const uint64_t *seqs, size_t n,
				 void (*done)(const struct gm_pending *p,
					      void *ctx),
				 void *ctx);

/*
 * A point in stream @key's work: what was enqueued so far (a host
 * function's call). track_pending_complete_at() completes, as an event
 * recorded there would, the copies enqueued before it that the stream's
 * work reaches: when the host function starts, they are done.
 */
uint64_t track_position(void);
void track_pending_complete_at(uint64_t key, uint64_t position,
			       void (*done)(const struct gm_pending *p,
					    void *ctx),
			       void *ctx);

#endif
