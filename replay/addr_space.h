/* SPDX-License-Identifier: MIT */
/*
 * Programs whose allocations replay at their captured device addresses
 * (doc/gpumix-replay.md, "Addresses"). A pointer a program stored in
 * device memory (a table of matrix pointers for batched cuBLAS, a linked
 * structure, a library's workspace) holds a captured address; placed at
 * the captured addresses, the program's allocations make every such word
 * right without relocating it. Where that cannot be (another program of
 * the workload captured the same addresses, or the driver gives the range
 * to something else), the program is relocated as before: its copies of
 * pointers into device memory are patched (PTR_STORE), and the manifest
 * says why.
 */
#ifndef GM_ADDR_SPACE_H
#define GM_ADDR_SPACE_H

#include <stdint.h>

#include <cuda.h>

struct gm_run;
struct gm_prog;
struct kvfile;

/* One range a program's allocations live in: reserved at its captured
 * address and backed by one physical allocation. */
struct gm_addr_range {
	CUdeviceptr start;
	uint64_t size;
	CUmemGenericAllocationHandle mem;
	int reserved, created, mapped;
};

/* What became of one program of the run. */
struct gm_addr_prog {
	int captured;			/* at its captured addresses */
	char why[1024];			/* relocated: the reason */
	struct gm_addr_range *ranges;
	uint64_t nr_ranges, bytes;
};

/*
 * First thing in the replay process, before cuInit, CUPTI and the blobs
 * map memory of their own (the driver's reservations at cuInit scale
 * with the device's memory and may cover a captured range): hold, in
 * run->addr_hold (addr_hold.h), the ranges gm_addr_space_init() will
 * reserve, unless --addresses relocated. Ranges are rounded out to
 * GM_ADDR_HOLD_GRANULE, since the device's granularity is not known
 * before cuInit. A range something was mapped at before (a library) is
 * not held, and what was there is kept for the reason. Never fails.
 */
void gm_addr_space_hold(struct gm_run *run);

/* The VMM granularity of every NVIDIA GPU so far (and of the mock): a
 * device with another one has its ranges held in part, or more than
 * whole (placing is checked either way). */
#define GM_ADDR_HOLD_GRANULE (UINT64_C(2) << 20)

/*
 * At run init, before the runtime allocates device memory: for each
 * program of @run (those that relocate pointers in device memory first,
 * then in order) unless --addresses relocated, its captured ranges (its
 * allocations' union, rounded out to the VMM granularity) reserved at
 * their captured addresses (each range's placeholders given back just
 * before), backed and made accessible; a program whose ranges meet those
 * of a program placed before it, or whose reservation the driver puts
 * elsewhere (the reason then names what occupies the range, per
 * /proc/self/maps), or that any VMM call fails for, is relocated, with
 * the reason, and keeps nothing. Every placeholder is given back by the
 * end. Logs one line per program. Sets run->addr. Returns 0 (a relocated
 * program is not an error).
 */
int gm_addr_space_init(struct gm_run *run);

/* Unmap, release and free every range of @run (after its programs),
 * and the placeholders gm_addr_space_init() did not give back. */
void gm_addr_space_release(struct gm_run *run);

/* 1 when program @p's allocations are at their captured addresses. */
int gm_addr_captured(const struct gm_prog *p);

/*
 * Zero @p's ranges on its runtime stream (every replay starts from
 * cleared memory, as with the bulk allocator's chunks); the caller
 * synchronizes. Returns 0 or -1 (cause recorded).
 */
int gm_addr_zero(struct gm_prog *p);

/* Whether [@x, @x + @size) lies inside one of @p's ranges. */
int gm_addr_holds(const struct gm_prog *p, uint64_t x, uint64_t size);

/*
 * The run manifest's keys of program @i: program.I.addresses (captured
 * or relocated), .address_ranges and .address_bytes (what was mapped),
 * and .addresses_why when relocated.
 */
void gm_addr_manifest(const struct gm_run *run, struct kvfile *kv, unsigned i);

#endif
