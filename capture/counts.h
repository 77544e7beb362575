/* SPDX-License-Identifier: MIT */
/*
 * Per-process counters of a capture: procs/<pid>.counts in the bundle, a
 * fixed binary layout that the capture library maps shared and updates in
 * place (no write at exit is needed, so a killed program still leaves its
 * counts), and that `gpumix capture` reads after the run to count the
 * bundle's events back. One slot per thread holds the events that thread
 * emitted; per-callback-id arrays hold how often each driver and runtime
 * call was seen (recorded, ignored or unsupported alike).
 *
 * All fields are little-endian host integers; the file is only read on
 * the machine that wrote it.
 */
#ifndef GM_CAPTURE_COUNTS_H
#define GM_CAPTURE_COUNTS_H

#include <stdint.h>

#define GM_COUNTS_MAGIC "GMCOUNT1"
/* 2: the loss unnamed_kernels (format 1 files are converted on reading). */
#define GM_COUNTS_VERSION 2
#define GM_COUNTS_SLOTS 256		/* threads with their own slot */
#define GM_COUNTS_CBIDS 1024		/* callback ids per domain */

enum gm_counts_state {
	GM_STATE_RUNNING = 1,		/* library initialised */
	GM_STATE_EXITED = 2,		/* the process ran its exit handlers */
	GM_STATE_EXITING = 3,		/* its exit handlers started, and it
					 * stopped before they finished */
};

/* Losses the library detects itself; each must be 0. New ones go last
 * (gm_counts_read converts older files by inserting zeros). */
#define GM_LOSSES(X)                                                           \
	X(unsupported_calls, "calls gpumix cannot replay")                     \
	X(blob_failures, "payloads that could not be stored")                  \
	X(module_failures, "module images that could not be stored")           \
	X(cupti_dropped, "CUPTI activity records dropped")                     \
	X(cupti_errors, "CUPTI errors")                                        \
	X(truncated_strings, "names truncated")                                \
	X(unknown_layouts, "launches whose argument layout is unknown")        \
	X(oversized_data, "payloads larger than an event can carry")         \
	X(unnamed_kernels, "kernels the trace cannot name (the driver would not name their module, or the trace does not hold its code)")

/* Worth a warning, not a loss. */
#define GM_WARNINGS(X)                                                         \
	X(unsynced_d2h, "asynchronous results hashed at exit, never synchronized") \
	X(slot_overflow, "threads sharing the overflow counter")               \
	X(late_events, "events after the tracer shut down (program teardown), not recorded")

struct gm_counts_slot {
	uint64_t tid;
	uint64_t events;
};

#define GM_COUNTS_FIELD_(name, what) uint64_t name;
struct gm_counts_loss {
	GM_LOSSES(GM_COUNTS_FIELD_)
};

struct gm_counts_warn {
	GM_WARNINGS(GM_COUNTS_FIELD_)
};
#undef GM_COUNTS_FIELD_

struct gm_counts {
	char magic[8];
	uint32_t version;
	uint32_t size;			/* sizeof(struct gm_counts) */
	uint64_t pid, ppid;
	uint64_t state;			/* enum gm_counts_state */
	uint64_t start_ns, end_ns;	/* CLOCK_REALTIME */
	uint64_t nr_slots;		/* slots claimed (may exceed SLOTS) */
	uint64_t overflow_events;	/* events of threads without a slot */
	uint64_t blobs_written, blob_bytes_written;
	uint64_t blobs_deduped, blob_bytes_deduped;
	uint64_t modules_written, module_bytes;
	uint64_t h2d_bytes, d2h_bytes;	/* payload bytes seen */
	struct gm_counts_loss loss;
	struct gm_counts_warn warn;
	uint64_t last_errno;		/* errno of the last failed write */
	uint64_t children_without_counts; /* forked children (and theirs)
					 * that could not create their own
					 * file: they record nothing */
	uint64_t reserved[13];
	uint64_t driver_calls[GM_COUNTS_CBIDS];
	uint64_t runtime_calls[GM_COUNTS_CBIDS];
	struct gm_counts_slot slots[GM_COUNTS_SLOTS];
};

/*
 * Read and validate @path into @out (a copy). Returns 0, or -1 with a
 * cause for a missing, short or foreign file.
 */
int gm_counts_read(const char *path, struct gm_counts *out);

/* Sum of the loss counters. */
uint64_t gm_counts_losses(const struct gm_counts *c);

/* Total events emitted by the process (all slots and the overflow). */
uint64_t gm_counts_events(const struct gm_counts *c);

#endif
