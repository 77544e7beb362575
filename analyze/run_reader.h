/* SPDX-License-Identifier: MIT */
/*
 * A run directory as doc/run-directory.md defines it: the manifest (what
 * ran, on which device, how it ended), the programs, and replays.tsv (each
 * program's replay times). The activity log is read separately, record by
 * record, by activity_reader.h. Reading validates everything the format
 * promises and names file:line for the first thing that is wrong.
 */
#ifndef GM_RUN_READER_H
#define GM_RUN_READER_H

#include "elastic_counters.h"

#include <stddef.h>
#include <stdint.h>

#include "hash.h"
#include "kvfile.h"

struct strbuf;

#define GM_RUN_FORMAT "gpumix-run 1"

struct gm_run_program {
	const char *name;	/* borrowed from the manifest */
	const char *bundle;	/* borrowed from the manifest */
	int deterministic;
	/*
	 * Captured host time (optional keys, doc/run-directory.md):
	 * `program.I.host_time` ("captured" or "none"; NULL in a run made
	 * before host time was replayed), the run's `max_host_gap_s` (NAN:
	 * no limit), and the program's host_gaps and host_order_late (-1
	 * when absent), host_gap_s, host_error_us_median, _p99, _max and
	 * host_order_late_s (NAN when absent).
	 */
	const char *host_time;
	double max_host_gap_s;
	int64_t host_gaps, host_order_late;
	double host_gap_s, host_error_median_us, host_error_p99_us;
	double host_error_max_us, host_order_late_s;
};

struct gm_replay {
	size_t program;		/* index into programs[] */
	int64_t replay;
	int64_t start, end, io;	/* ns */
	int kept;
};

struct gm_run_dir {
	char *path;				/* owned */
	struct kvfile manifest;
	char hash[GM_HASH_HEX_LEN + 1];		/* identity, see gm_run_dir_read */

	/* Borrowed from the manifest. */
	const char *workload, *variant, *policy, *status, *failure;
	const char *device_name, *device_cc, *driver_version;
	const char *runtime_version, *gpumix_version;
	const char *started_at, *finished_at;
	int64_t sm_count, max_threads_per_sm, max_blocks_per_sm;
	int64_t regs_per_sm, smem_per_sm;
	int64_t max_connections, streams, min_replays, dropped_records;
	/* Optional keys: `elastic` ("off" when absent: the captured
	 * kernels), `elastic.timeslice_us` (NAN when absent) and
	 * `nss.copy_chunk` (-1 when absent). */
	const char *elastic;
	double timeslice_us;
	int64_t copy_chunk;
	/* the elastic variant's launch counters (elastic_counters.h), -1
	 * when the manifest lacks one */
	int64_t elastic_counters[GM_ELASTIC_COUNTERS_NR];
	/* Where it ran, NULL when absent: `hostname`, and `device.visible`
	 * (the GPU a study pinned it to: a UUID or an index). */
	const char *hostname, *gpu;
	/* `priority.program` (the priority variant's high-priority program):
	 * its index into programs[], -1 when absent. */
	long high_priority;
	/* `run.repetition`: which repetition of a study's run (0 when
	 * absent). */
	int64_t repetition;
	/* `replay.one_shot`: 1 when every program replayed exactly once,
	 * all starting together (0 when absent). */
	int one_shot;
	/* `arrivals.label`: the run's point of a study's open-loop sweep
	 * ("load0.5"), "" when absent (runs.openLoop). */
	const char *open_loop;
	/* The GPU's state at the start and end (`gpu.start.*`, `gpu.end.*`):
	 * -1 and NULL for what the manifest does not have. */
	struct gm_run_gpu {
		int64_t sm_clock_mhz, temp_c;
		const char *throttle;
	} gpu_start, gpu_end;

	size_t nr_programs;
	struct gm_run_program *programs;	/* owned array */
	size_t nr_replays, alloc_replays;
	struct gm_replay *replays;		/* owned array */
};

/*
 * Read @path/manifest and @path/replays.tsv into @run. The run's identity
 * @run->hash is the XXH3-128 of the manifest's and replays.tsv's bytes
 * (the manifest holds the start and finish times, so two runs differ even
 * when everything else is equal). A directory without a manifest, an
 * incomplete run (no status), another format version, a missing key or a
 * malformed line are errors naming the file (and line). Returns 0 or -1;
 * release @run with gm_run_dir_release() either way.
 */
int gm_run_dir_read(struct gm_run_dir *run, const char *path);

/* gm_run_dir_read() of a run of one program that ended ok (a program
 * replayed alone: gpumix scale's and sweep's points), else an error
 * saying which it is not. 0 or -1; release @run either way. */
int gm_run_dir_read_alone(struct gm_run_dir *run, const char *path);

/* The index of @run's kept replay that holds [@start, @end] (ns), or -1
 * (a record of a discarded replay, or between replays). */
long gm_run_kept_replay(const struct gm_run_dir *run, int64_t start,
			int64_t end);

/*
 * The identity of a directory loaded from its manifest's bytes and its
 * data file's (replays.tsv, sections.tsv): the hash of both, each
 * prefixed with its length, into @out (hex). analyze loads a directory
 * once per identity.
 */
void gm_dir_identity(const struct strbuf *manifest, const struct strbuf *data,
		     char out[GM_HASH_HEX_LEN + 1]);

/* Free what @run owns. */
void gm_run_dir_release(struct gm_run_dir *run);

/* Index of the program called @name (@len bytes), or -1. */
long gm_run_dir_find_program(const struct gm_run_dir *run, const char *name,
			     size_t len);

/*
 * "workload.variant" or "workload.variant.policy", with ".one-shot" after
 * it for a one-shot run and ".rR" for a repetition R above 0 (as a study
 * names the run directory); caller frees.
 */
char *gm_run_label(const char *workload, const char *variant,
		   const char *policy, int one_shot, int64_t repetition);

/* The same with an open-loop sweep's point @open_loop ("load0.5"; "" or
 * NULL: none) after the policy: "a+b.cuda.load0.5.r1". */
char *gm_run_label_open(const char *workload, const char *variant,
			const char *policy, const char *open_loop,
			int one_shot, int64_t repetition);

#endif
