/* SPDX-License-Identifier: MIT */
/*
 * The replay knobs: one table, one row per knob, read by both front ends
 * that set them, `gpumix replay`'s options (replay_opts_parse.c, and
 * replay_opts.c's --help) and a study's `replay:` keys
 * (study/study_replay.c), and by the study when it writes a knob back as
 * the option's argument. A row gives the option and the study key, what
 * kind of value the knob takes, its bounds and default, and the words
 * for its messages; which variants take a knob is the variant table's
 * (variant.h: the GM_KNOB_* bits of each row). A value is checked
 * against its row by gm_knob_check() on either front end, so both accept
 * and refuse the same values with one message per kind ("WHO must be
 * RANGE, not VALUE"); only the spelling differs: a study writes
 * durations with units ("1ms") and sizes as "4MiB", an option a number
 * in its own unit ("--timeslice-us 1000") and sizes with K, M, G
 * suffixes. The run's knobs (min_replays, watchdog) are rows too: the
 * watchdog a DURATION whose option alone goes below the study's
 * minimum (the row's option_min), min_replays an OTHER row with a parse.
 * Each row the table parses names its field in struct gm_knob_values
 * (knob_values.h), which both front ends hold: one gm_knob_store() and
 * gm_knob_value() for both.
 */
#ifndef GM_KNOBS_H
#define GM_KNOBS_H

#include <stddef.h>

#include "knob_values.h"

struct strbuf;

/* Replay knobs (bits of struct gm_variant.knobs). */
enum gm_knob {
	GM_KNOB_POLICY = 1 << 0,	/* --policy P */
	GM_KNOB_TIMESLICE = 1 << 1,	/* --timeslice-us US */
	GM_KNOB_COPY_CHUNK = 1 << 2,	/* --copy-chunk BYTES */
	GM_KNOB_COMPLETION = 1 << 3,	/* --completion event|poll */
	GM_KNOB_ELASTIC = 1 << 4,	/* --elastic MODE, --elastic-slice */
	GM_KNOB_PROFILE = 1 << 5,	/* --profile FILE */
	GM_KNOB_HIGH_PRIORITY = 1 << 6,	/* --high-priority PROGRAM */
	GM_KNOB_GRID = 1 << 7,		/* --grid captured|resident */
	GM_KNOB_SM_SHARE = 1 << 8,	/* --sm-share PROGRAM=SHARE,... */
	GM_KNOB_SCALE = 1 << 9,		/* --scale KNEES (scaled partitions) */
	GM_KNOB_MPS_THREADS = 1 << 10,	/* --mps-threads PCT|NAME=PCT,... */
	GM_KNOB_ONE_SHOT = 1 << 11,	/* --one-shot */
	GM_KNOB_PROBE = 1 << 12,	/* --probe off|blocks */
	GM_KNOB_HOST_TIME = 1 << 13,	/* --host-time captured|none */
	GM_KNOB_MAX_HOST_GAP = 1 << 14,	/* --max-host-gap SECONDS */
	GM_KNOB_ARRIVALS = 1 << 15,	/* --arrivals PROG=SPEC, --requests,
					   --arrival-seed (arrivals.h) */
	GM_KNOB_SMEM_PAD = 1 << 16,	/* --smem-pad KERNEL=BYTES (sweeps) */
	GM_KNOB_KERNEL_MODULE = 1 << 17,	/* --kernel-module KERNEL=FILE */
	GM_KNOB_CLIFF_MAP = 1 << 18,	/* --cliff-map POINTS.csv (elastic,
					   policy mpmax-cliff) */
	GM_KNOB_MIN_REPLAYS = 1 << 19,	/* --min-replays R */
	GM_KNOB_WATCHDOG = 1 << 20,	/* --watchdog SECONDS */
};

/* The knobs every variant takes (each row of the variant table has
 * them): the host time, for one, is spent the same whatever the
 * mechanism. */
#define GM_KNOBS_EVERY_VARIANT (GM_KNOB_ONE_SHOT | GM_KNOB_PROBE | \
				GM_KNOB_HOST_TIME | GM_KNOB_MAX_HOST_GAP | \
				GM_KNOB_ARRIVALS | GM_KNOB_SMEM_PAD | \
				GM_KNOB_KERNEL_MODULE | GM_KNOB_MIN_REPLAYS | \
				GM_KNOB_WATCHDOG)

/* The bounds of --min-replays and a study's min_replays (their row's;
 * also read by gpumix scale and sweep --replays): each program's last
 * replay is discarded, so at least 2. */
#define GM_MIN_REPLAYS_MIN 2
#define GM_MIN_REPLAYS_MAX 1000

/* What a knob's value is; the kinds gm_knob_check() checks. */
enum gm_knob_kind {
	GM_KNOB_DURATION,	/* seconds in [min, max]; the option gives
				   them in its unit (option_per_s) */
	GM_KNOB_SIZE,		/* bytes in [min, max] */
	GM_KNOB_CHOICE,		/* one of choices[]: its index, which is
				   the value of the knob's enum */
	GM_KNOB_FLAG,		/* on or off: the option alone, a study's
				   true or false */
	GM_KNOB_OTHER,		/* its own syntax and parser (a program's
				   name, a list, a path): see the row; a
				   number's parser is the row's parse */
};

struct gm_knob_desc;

/*
 * The option's parser of an OTHER knob whose value is a number: @text as
 * the argument of @k's option, its messages naming @who, checked against
 * the bounds it reads from @k. Sets *@out; returns 0, or -1 with a cause.
 */
typedef int gm_knob_parse_fn(const struct gm_knob_desc *k, const char *who,
			     const char *text, double *out);

struct gm_knob_desc {
	enum gm_knob knob;
	const char *option;	/* "--copy-chunk" (takes one value, or none
				   when arg is NULL) */
	const char *study_key;	/* "copy_chunk"; NULL: no study key */
	const char *arg;	/* "BYTES", for usage lines; NULL: a flag
				   (an on/off study key) */
	const char *help;
	enum gm_knob_kind kind;
	/* DURATION, SIZE: the bounds (seconds or bytes; max HUGE_VAL for
	 * none), and what 0 means when it is allowed below min ("no
	 * timeslicing"), or NULL. */
	double min, max;
	const char *zero;
	double option_per_s;	/* DURATION: the option's units in a second
				   (1e6 for --timeslice-us) */
	const char *unit;	/* DURATION: the option's unit, for messages
				   ("microseconds") */
	/* The default (seconds, bytes, a choice's index, 0 or 1 for a
	 * flag); < 0: none (the knob is off unless given). */
	double def;
	const char *const *choices;	/* CHOICE: names in the enum's
					   order, NULL-terminated */
	/* OTHER: the option's parser when the value is a number (min and
	 * max then the bounds it and the study key read), or NULL. */
	gm_knob_parse_fn *parse;
	/*
	 * A setting of the run rather than of the mechanism (min_replays,
	 * watchdog): --help writes it with the run's options, and a study
	 * passes it on the replay's own line (study/exec_stages.c), not
	 * among the knob options that key a run (study/exec_decide.c).
	 */
	int run;
	/* Where the value is kept (knob_values.h): offsetof(struct
	 * gm_knob_values, FIELD) and its type; GM_KNOB_FIELD_NONE for the
	 * knobs with their own syntax, kept in their own fields. Every row
	 * the table parses has one. */
	size_t field;
	enum gm_knob_field_type field_type;
	/* DURATION, SIZE: the option's own minimum where it goes below min
	 * (0: min, the same on both front ends); the row says why. */
	double option_min;
};

/* The knobs in table order; @i beyond the last gives NULL. */
const struct gm_knob_desc *gm_knob_at(size_t i);

/* The description of @knob (never NULL for a GM_KNOB_* value). */
const struct gm_knob_desc *gm_knob_find(enum gm_knob knob);

/*
 * Check value @v of knob @k (a DURATION's seconds, a SIZE's bytes, a
 * CHOICE's index), as a study's key, against its row. @who names the
 * knob in the message ("'copy_chunk'") and @text is the value as
 * written. Returns 0, or -1 with the cause "WHO must be RANGE, not TEXT"
 * (the range as gm_knob_range() writes it). The option's check is
 * gm_knob_parse()'s: the same but for the row's option_min.
 */
int gm_knob_check(const struct gm_knob_desc *k, const char *who,
		  const char *text, double v);

/*
 * Parse @text as the value of knob @k's option (a DURATION a plain
 * number in the option's unit, a SIZE bytes with an optional K, M or G
 * suffix (KiB, MiB, GiB), a CHOICE one of its names, an OTHER knob with
 * a parse its own way) and check it (gm_knob_check() with @who). Sets
 * *@out to the value in the option's terms: a DURATION in the option's
 * unit, a SIZE in bytes, a CHOICE's index, an OTHER knob's number.
 * Returns 0, or -1 with a cause naming @who; an unknown choice gets a
 * "did you mean". Not for FLAG knobs and OTHER knobs without a parse
 * (-1). A DURATION or SIZE is checked against the option's bounds: the
 * row's, with option_min for min where the row has one.
 */
int gm_knob_parse(const struct gm_knob_desc *k, const char *who,
		  const char *text, double *out);

/*
 * Append knob @k's accepted values to @sb: "0 (no timeslicing) or
 * between 1us and 10s", "0 or more", "'event' or 'poll'". Nothing for
 * FLAG and OTHER knobs. gm_knob_range() gives the study key's range,
 * gm_knob_option_range() the option's (the same but for a row with an
 * option_min).
 */
void gm_knob_range(const struct gm_knob_desc *k, struct strbuf *sb);
void gm_knob_option_range(const struct gm_knob_desc *k, struct strbuf *sb);

/*
 * Append value @v of knob @k in the option's terms (gm_knob_store()'s: a
 * DURATION in the option's unit, bytes, a choice's index) to @sb as the
 * option's argument: "1000" for a millisecond's timeslice, "4194304",
 * "event"; as the study writes it into a replay's command line and its
 * run's manifest.
 */
void gm_knob_format(const struct gm_knob_desc *k, double v,
		    struct strbuf *sb);

/* Append a duration of @s seconds as a study writes it: "250us", "1ms",
 * "10s", "2min", "1h". */
void gm_knob_format_seconds(double s, struct strbuf *sb);

#endif
