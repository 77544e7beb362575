/* SPDX-License-Identifier: MIT */
/*
 * The emit layer of libgpumix-capture.so: everything between a CUPTI
 * callback and the `gpumix_capture` tracepoints. It owns the process-wide
 * capture state (bundle directory, blob and module stores, the mapped
 * per-process counter file) and the per-thread state (slot in the counter
 * file, packing buffer, re-entrancy guard, runtime-call context).
 *
 * These functions are exported so that tests can drive every event kind
 * through the real provider without a GPU (tests/unit/capture_emitter.c);
 * the CUPTI subscriber (inject*.c) calls exactly the same ones. They never
 * print, never exit, and allocate only once per thread or for
 * non-contiguous payloads; every failure is counted in the counter file.
 */
#ifndef GM_CAPTURE_EMIT_H
#define GM_CAPTURE_EMIT_H

#include <stddef.h>
#include <stdint.h>

#include "blob_store.h"
#include "counts.h"
#include "record.h"

#define GM_CAPTURE_API __attribute__((visibility("default")))

/* Environment: the (temporary) bundle directory to write into. */
#define GM_CAPTURE_DIR_ENV "GPUMIX_CAPTURE_DIR"

/* Runtime calls nest rarely; deeper ones share the innermost context. */
#define GM_RT_DEPTH 8

struct gm_rt_frame {
	uint32_t cbid;
	uint32_t corr;
	const char *name;	/* CUPTI's static string */
	int emitted;		/* rt_enter already emitted */
};

/* Per-thread state (thread-local, set up on first use). */
struct gm_thread {
	unsigned generation;	/* process generation it was set up in */
	uint64_t tid;
	struct gm_counts_slot *slot; /* NULL: counted in overflow_events */
	int claimed;		/* slot decided for this generation */
	uint64_t *buf;		/* GM_DATA_MAX bytes of packing space */
	int guard;		/* inside a callback: ignore nested calls */
	/* The clean clock (gm_capture_own_begin()): this library's time on
	 * this thread, and the clean time the current callback began at. */
	uint64_t own_ns;
	uint64_t own_start;
	uint64_t clean_at;
	int in_own;		/* inside gm_capture_own_begin/end */
	int rt_depth;
	struct gm_rt_frame rt[GM_RT_DEPTH];
};

/*
 * Initialise the process-wide state for bundle directory @dir (NULL: from
 * $GPUMIX_CAPTURE_DIR) and emit the "process" event. Idempotent. Returns 0,
 * or -1 when the directory is unusable (then every emit is a no-op and
 * nothing is counted: the capture reports the process's counter file as
 * missing).
 */
GM_CAPTURE_API int gm_capture_init(const char *dir);

/* 1 when gm_capture_init() succeeded in this process. */
GM_CAPTURE_API int gm_capture_ready(void);

/* The calling thread's state (never NULL once initialised). */
GM_CAPTURE_API struct gm_thread *gm_capture_thread(void);

/* The process's counter file, or NULL before init. */
GM_CAPTURE_API struct gm_counts *gm_capture_counts(void);

/*
 * The clean clock: the thread's host time without the time spent in this
 * library. Every callback of the subscriber (and CUPTI's buffer
 * callbacks, when they run on a program thread) is bracketed by
 * gm_capture_own_begin() and gm_capture_own_end(); the time between them
 * is the capture's own work (argument copies, blob hashing and writing,
 * the tracepoint itself) and is subtracted from the monotonic clock.
 * Events emitted inside the bracket carry the clean time of its start
 * (struct gm_record.host_ns): an entry event the moment the program
 * entered the call, an exit event the moment the call returned, so that
 * the gap between calls and a call's duration exclude the capture's cost.
 * CUPTI's own dispatch into the callback is not seen and stays in.
 * Brackets do not nest: a begin inside one is a caller bug (the callback
 * guard prevents it).
 */
GM_CAPTURE_API void gm_capture_own_begin(struct gm_thread *t);
GM_CAPTURE_API void gm_capture_own_end(struct gm_thread *t);

/* The calling thread's clean time now (in a bracket: at its start). */
GM_CAPTURE_API uint64_t gm_capture_clean_ns(struct gm_thread *t);

/*
 * Tests only: read time from @now instead of CLOCK_MONOTONIC (NULL: back
 * to the monotonic clock). The clean clock reads it exactly once at
 * gm_capture_own_begin(), once at gm_capture_own_end() and once per event
 * emitted outside a bracket.
 */
GM_CAPTURE_API void gm_capture_test_clock(uint64_t (*now)(void));

/*
 * Fire the tracepoint of @kind with @r (NULL str becomes "", host_ns is
 * set to gm_capture_clean_ns()) and count it for the calling thread.
 * Must be called with the record fully built.
 */
GM_CAPTURE_API void gm_capture_emit(enum gm_event_kind kind,
				    struct gm_record *r);

/*
 * Reserve @len bytes of the thread's packing buffer as @r's inline data
 * and return them for the caller to fill; NULL (and oversized_data
 * counted) when @len > GM_DATA_MAX.
 */
GM_CAPTURE_API void *gm_capture_data(struct gm_record *r, size_t len);

/* Set @r's string, truncating at GM_STR_MAX (counted). */
GM_CAPTURE_API void gm_capture_str(struct gm_record *r, const char *s);

/*
 * Attach the packed bytes of @span to @r: inline when at most @inline_max
 * bytes, else stored in blobs/ (GM_RF_BLOB with hash and size). A failed
 * store sets GM_RF_FAILED and counts blob_failures. Returns 0 or -1.
 */
GM_CAPTURE_API int gm_capture_payload(struct gm_record *r,
				      const struct gm_span *span,
				      size_t inline_max);

/* Record the content hash of @span in @r (GM_RF_HASH), nothing stored. */
GM_CAPTURE_API int gm_capture_hash(struct gm_record *r,
				   const struct gm_span *span);

/*
 * Store the code image at @p (fatbin wrapper, fatbin, cubin or PTX) in
 * modules/ and describe it in @r (GM_RF_MODULE, image kind in the flags).
 * Failures count module_failures. Returns 0 or -1.
 */
GM_CAPTURE_API int gm_capture_image(struct gm_record *r, const void *p);

/* Same for the file @path (cuModuleLoad, cuLibraryLoadFromFile). */
GM_CAPTURE_API int gm_capture_image_file(struct gm_record *r,
					 const char *path);

/* Count one call of (@runtime ? runtime : driver) callback id @cbid. */
GM_CAPTURE_API void gm_capture_count_call(int runtime, unsigned cbid);

/* Mark the process as running its exit handlers (before anything there
 * that could fail). */
GM_CAPTURE_API void gm_capture_exiting(void);

/*
 * Mark the process as having run its exit handlers and write
 * procs/<pid>.names ("driver CBID NAME" / "runtime CBID NAME" lines) using
 * @name_of for every callback id seen (may be NULL).
 */
GM_CAPTURE_API void gm_capture_finish(const char *(*name_of)(int runtime,
							     unsigned cbid));

/* Loss and warning counters (see counts.h); safe from any thread. */
#define gm_capture_loss(field)                                                 \
	do {                                                                   \
		struct gm_counts *c_ = gm_capture_counts();                    \
		if (c_) {                                                      \
			__atomic_fetch_add(&c_->loss.field, 1,                 \
					   __ATOMIC_RELAXED);                  \
		}                                                              \
	} while (0)
#define gm_capture_warn(field)                                                 \
	do {                                                                   \
		struct gm_counts *c_ = gm_capture_counts();                    \
		if (c_) {                                                      \
			__atomic_fetch_add(&c_->warn.field, 1,                 \
					   __ATOMIC_RELAXED);                  \
		}                                                              \
	} while (0)
#define gm_capture_add(field, n)                                               \
	do {                                                                   \
		struct gm_counts *c_ = gm_capture_counts();                    \
		if (c_) {                                                      \
			__atomic_fetch_add(&c_->field, (n), __ATOMIC_RELAXED); \
		}                                                              \
	} while (0)

#endif
