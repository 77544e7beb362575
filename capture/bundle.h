/* SPDX-License-Identifier: MIT */
/*
 * Making a bundle: a temporary directory next to the final name holds
 * everything while the program runs (ctf/ from LTTng, blobs/, modules/,
 * procs/ from the capture library); after the run the events found in
 * the trace are compared with the library's per-thread counters, the
 * manifest is written and the directory is renamed into place in one
 * step. A bundle under its final name is therefore always whole; when
 * something was lost it says so (complete = no, losses = N) and readers
 * refuse it unless asked. See doc/bundle-format.md.
 */
#ifndef GM_CAPTURE_BUNDLE_H
#define GM_CAPTURE_BUNDLE_H

#include <stddef.h>
#include <stdint.h>

#include "kvfile.h"
#include "record.h"

/* What reading the trace back found. */
struct bundle_found {
	const struct gm_thread_count *threads;
	size_t nr_threads;
	uint64_t events;
	uint64_t discarded;		/* reported by the tracer */
	const char *read_error;		/* the trace could not be read: why */
	uint64_t foreign_pruned;	/* other captures' processes whose
					   streams bundle_prune_foreign()
					   removed before the reading */
	const uint8_t *api_used;	/* GM_API_COUNT flags, or NULL: all */
	const char *device;		/* first device seen, or NULL */
	uint64_t device_cc, device_sms, driver_version;
};

/* What the capture knows about the run. */
struct bundle_run {
	char *const *argv;
	const char *tool_version;
	int exit_code;			/* when the program exited */
	int signal;			/* > 0: killed by this signal */
	int interrupted;		/* the user interrupted the capture */
	int started;			/* the program could be run at all */
	uint64_t start_ns, end_ns;	/* CLOCK_REALTIME */
	const char *capture_error;	/* session control failed: why */
	size_t still_running;		/* processes the program started that
					 * outlived the capture */
	uint64_t failed_calls;		/* the program's calls that failed */
	uint64_t failed_errors;		/* ... with an error a working program
					 * does not meet (common/cu_result.h) */
	const char *failed_first;	/* "EVENT NAME CODE CODE_NAME" */
	const char *failed_first_error;
};

/* The verdict. */
struct bundle_result {
	int complete;
	uint64_t losses;
	uint64_t events;		/* emitted, per the counters */
	unsigned processes;
	char *summary;			/* losses in words, or NULL */
	char *incomplete;		/* why incomplete, or NULL */
	char *path;			/* where the bundle ended up */
};

/*
 * Create the temporary directory for bundle @final (refusing an existing
 * @final unless @force) with its blobs/, modules/, procs/ and api-table.
 * Returns 0 and the new path in @tmp_out (caller frees), or -1 with a
 * cause.
 */
int bundle_prepare(const char *final, int force, char **tmp_out);

/*
 * Check @tmp against @found and @run, write its manifest and move it to
 * @final. Fills @res (release with bundle_result_release()). Returns 0
 * when the bundle is in place (complete or not), -1 with a cause when it
 * could not be written (then it stays at @tmp, which @res->path names).
 */
int bundle_finalize(const char *tmp, const char *final, int force,
		    const struct bundle_run *run, const struct bundle_found *found,
		    struct bundle_result *res);

void bundle_result_release(struct bundle_result *res);

/*
 * 1 when process @pid of the trace in bundle directory @dir is the
 * captured program's: it has its counter file, procs/PID.counts (another
 * capture's processes, recorded by the same session daemon, do not).
 */
int bundle_own_process(const char *dir, unsigned long pid);

/*
 * Remove from bundle directory @dir the trace streams of every process
 * without a counter file in procs/: another capture's, recorded by the
 * same session daemon. Before the trace is read back: a process that
 * recorded no event in this session still has its (empty) streams here,
 * which reading cannot tell from ours, and another's stream may be what
 * breaks the reading (a capture beside this one on a full disk). Adds
 * the processes removed to @removed. Returns 0, or -1 with a cause.
 */
int bundle_prune_foreign(const char *dir, uint64_t *removed);

/* Remove the trace streams of process @pid from bundle directory @dir.
 * Returns 0, or -1 with a cause. */
int bundle_remove_streams(const char *dir, uint32_t pid);

/*
 * Count the finished bundle @dir back as bundle_finalize() did: every
 * procs/PID.counts must be a valid counter file, every process in the
 * trace must have one, each thread's events must all be in the trace
 * (@found, what a reader found), and the manifest @m must say what the
 * counter files say (processes, events per process, events emitted, each
 * loss counter). Returns 0, or -1 with a cause naming the first
 * disagreement (a counter file or a manifest edited or damaged after the
 * capture, events gone from the trace).
 */
int bundle_verify_counts(const char *dir, const struct kvfile *m,
			 const struct bundle_found *found);

/*
 * Write the api-table file of directory @dir: every call (@used NULL, as
 * bundle_prepare does) or only those flagged in @used (GM_API_COUNT
 * bytes; bundle_finalize keeps the calls the trace holds).
 */
int bundle_write_api_table(const char *dir, const uint8_t *used);

#endif
