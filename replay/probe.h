/* SPDX-License-Identifier: MIT */
/*
 * The block probe in the replay (`--probe blocks`, doc/gpumix-replay.md):
 * every launch of a transformed kernel gets a slice of its program's
 * device buffer of struct gm_probe_rec (common/elastic_abi.h), one slot
 * per logical block of the launch's range, in which the kernel's probe
 * code records each block's SM, start and duration. The buffer is
 * allocated and cleared outside the timed part; after each replay (its
 * GPU work drained) the records come back through page-locked memory
 * (a pageable copy would hold the context's lock against the other
 * programs, doc/results/cuda-starvation.md) and are appended to
 * probe.bin; probe.tsv lists every launch, probed or not (with why not),
 * with its CUPTI correlation id, found through an external correlation id
 * pushed around the launch call. Kernels run inside CUDA graphs are not
 * probed (their launches are the graph's) and have no line.
 */
#ifndef GM_PROBE_H
#define GM_PROBE_H

#include <stdint.h>

#include <cuda.h>

#include "elastic_abi.h"

struct gm_run;
struct gm_prog;
struct kvfile;
struct profiler;

/* The most records a program's buffer holds per replay (64 MiB): launches
 * past it in a replay run unprobed ("the probe's buffer is full"). */
#define GM_PROBE_MAX_RECORDS (UINT64_C(4) << 20)

/* The probe.bin header: magic, version, record size. */
#define GM_PROBE_MAGIC "GMPROBE\0"
#define GM_PROBE_VERSION 1
#define GM_PROBE_HEADER_SIZE 16

/* The first line of probe.tsv (doc/run-directory.md). */
#define GM_PROBE_TSV_HEADER \
	"program\treplay\tcorrelationId\thost_ns\tkernel\tgridX\tgridY" \
	"\tgridZ\tblockX\tblockY\tblockZ\tphysX\tphysY\tphysZ\toffset" \
	"\tblocks\trecords\tnot_probed"

/* What a physical launch is, for the probe (gm_probe_before()). */
struct gm_probe_slot {
	int line;		/* its probe.tsv line in the program's list,
				   -1: none (probe off) */
	uint64_t ext;		/* external correlation id, 0: none */
};

/*
 * Set up the run's probe when --probe blocks asks for it (nothing
 * otherwise): open RUNDIR/probe.bin under a temporary name and read the
 * reasons of elastic/kernels.tsv (kernels that were not transformed).
 * Returns 0 or -1 (cause recorded).
 */
int gm_probe_run_init(struct gm_run *run);

/*
 * Per program, at init (after its kernels and streams exist): allocate
 * its buffer for the records of one replay (the blocks of its launches
 * of transformed kernels, at most GM_PROBE_MAX_RECORDS) and a
 * page-locked copy of it. 0 or -1.
 */
int gm_probe_prog_init(struct gm_prog *p);

/* Before each replay's timed part: clear what the last one used (on the
 * program's own stream, waited for). 0 or -1. */
int gm_probe_replay_begin(struct gm_prog *p);

/*
 * Before a physical launch of launch @launch on @grid x @block: list it,
 * and when the kernel takes @a (NULL for a kernel that was not
 * transformed) and there is room, point @a at the launch's slots.
 * Pushes the external correlation id that CUPTI attaches to the launch
 * call; gm_probe_after() pops it. Nothing when the probe is off.
 */
void gm_probe_before(struct gm_prog *p, uint32_t launch,
		     const uint32_t grid[3], const uint32_t block[3],
		     struct gm_elastic_args *a, struct gm_probe_slot *slot);

/* After the launch call: pop the id; a launch that failed keeps no
 * records. */
void gm_probe_after(struct gm_prog *p, const struct gm_probe_slot *slot,
		    int failed);

/*
 * After a replay's GPU work is done (drained): copy its records back and
 * append them, and its launches, to the run's. Untimed. 0 or -1.
 */
int gm_probe_replay_end(struct gm_prog *p);

/* Free the program's buffers (at cleanup). */
void gm_probe_prog_release(struct gm_prog *p);

/*
 * Write RUNDIR/probe.tsv and commit probe.bin, each launch with its CUPTI
 * correlation id from the profiler's external correlation records (0
 * without profiling). Nothing when the probe is off. 0 or -1.
 */
int gm_probe_write(struct gm_run *run, struct profiler *pr);

/* The manifest's probe keys (doc/run-directory.md). */
void gm_probe_manifest(struct gm_run *run, struct kvfile *kv);

void gm_probe_run_release(struct gm_run *run);

#endif
