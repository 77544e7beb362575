/* SPDX-License-Identifier: MIT */
/*
 * The numbers of the replay knobs that the knob table parses (knobs.h):
 * one struct, held by both front ends that set them, `gpumix replay`'s
 * options (struct gm_replay_opts) and a study (struct study), and stored
 * and read through the table's rows alone (gm_knob_store(),
 * gm_knob_value()): a row names its field, so a knob is kept the same
 * way on both sides. Values are in the option's terms: a duration in
 * the option's unit (timeslice in microseconds, as --timeslice-us, the
 * others in seconds), a size in bytes, a choice's index, a flag 0 or 1,
 * a count. The knobs with their own syntax (a program, a list, a path)
 * keep their own fields.
 */
#ifndef GM_KNOB_VALUES_H
#define GM_KNOB_VALUES_H

#include <stdint.h>

struct gm_knob_desc;

/* How the runtime learns that a kernel finished (nss, elastic). */
enum gm_completion {
	GM_COMPLETION_EVENT,	/* a CUDA event after it, queried */
	GM_COMPLETION_POLL,	/* a host-mapped flag the transformed
				   kernel sets (paper's Listing 2) */
};

/*
 * The elastic variant's physical grid when the policy's limits do not
 * bind (GETPHYGRID under them gives what it gives the whole GPU).
 */
enum gm_grid_mode {
	GM_GRID_CAPTURED,	/* the captured grid: Hopper queues blocks
				   beyond the resident ones in hardware */
	GM_GRID_RESIDENT,	/* Algorithm 1 as written: capped at the
				   resident maximum, the rest in the loop */
};

/* The block probe (replay/probe.h). */
enum gm_probe_mode {
	GM_PROBE_OFF,
	GM_PROBE_BLOCKS,	/* each block's SM, start and end */
};

/* The captured host time between a program's calls (doc/gpumix-replay.md). */
enum gm_host_time {
	GM_HOST_TIME_CAPTURED,	/* spent before each call, as captured */
	GM_HOST_TIME_NONE,	/* calls back to back */
};

/*
 * The fields, once: struct gm_knob_values below, and the same list
 * unnamed inside GM_KNOB_VALUES_MEMBER, so that the structs holding them
 * keep reading o->timeslice_us as they always did.
 */
#define GM_KNOB_VALUES_FIELDS                                                  \
	unsigned min_replays;		/* 1 with one_shot (replay) */        \
	double watchdog_s;		/* 0: off */                          \
	double timeslice_us;		/* 0: no timeslicing */               \
	uint64_t copy_chunk;		/* bytes, 0: no chunking */           \
	enum gm_completion completion;                                         \
	enum gm_grid_mode grid;		/* elastic grids where no limit       \
					   binds */                           \
	enum gm_probe_mode probe;	/* the block probe, every variant */  \
	enum gm_host_time host_time;	/* captured (default) or none */      \
	double max_host_gap_s;		/* < 0: no limit */                   \
	int one_shot;			/* each program once, kept */

struct gm_knob_values {
	GM_KNOB_VALUES_FIELDS
};

/*
 * The member of a struct that holds the knobs' values: `knob_values`,
 * for gm_knob_store() and gm_knob_value(), over the same fields by
 * their own names (C11 anonymous members; both views have one layout,
 * one list of fields).
 */
#define GM_KNOB_VALUES_MEMBER                                                  \
	union {                                                                \
		struct gm_knob_values knob_values;                             \
		struct {                                                       \
			GM_KNOB_VALUES_FIELDS                                  \
		};                                                             \
	}

/* Where a row's value lives in struct gm_knob_values (knobs.h: .field). */
enum gm_knob_field_type {
	GM_KNOB_FIELD_NONE,	/* kept elsewhere: the knob's own syntax */
	GM_KNOB_FIELD_UNSIGNED,
	GM_KNOB_FIELD_INT,	/* a flag */
	GM_KNOB_FIELD_ENUM,	/* a choice's index (an enum of int's size) */
	GM_KNOB_FIELD_U64,
	GM_KNOB_FIELD_DOUBLE,
};

/* Every row with a field at its default (the option's terms, as
 * gm_knob_store() takes them); the rest of @v zero. */
void gm_knob_values_init(struct gm_knob_values *v);

/*
 * Keep value @x of knob @k (the option's terms: gm_knob_parse()'s, a
 * study's seconds times the row's option_per_s) in @k's field of @v.
 * Nothing for a row without a field.
 */
void gm_knob_store(struct gm_knob_values *v, const struct gm_knob_desc *k,
		   double x);

/* The value gm_knob_store() kept for @k in @v (the option's terms), or
 * -1 for a row without a field. */
double gm_knob_value(const struct gm_knob_values *v,
		     const struct gm_knob_desc *k);

/* Row @k's default in the option's terms (a duration times the row's
 * option_per_s); < 0 (none) as it is. */
double gm_knob_default(const struct gm_knob_desc *k);

#endif
