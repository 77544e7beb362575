/* SPDX-License-Identifier: MIT */
/*
 * The table of replay knobs and the checks both front ends share (see
 * knobs.h). A new knob is a GM_KNOB_* bit (knobs.h), a row below, the
 * variants that take it (variant.c), its long option in
 * common/replay_opts_parse.c's getopt table, and the replay runtime that
 * reads it; a knob the table parses also its field in struct
 * gm_knob_values (knob_values.h), named by its row (FIELD() below): both
 * front ends keep it there, nothing else to write. An OTHER knob
 * without a parse has its own field and handlers: its case in
 * replay_opts_parse.c's knob_option(), in study/study_replay.c's
 * load_knob() and study_knob_arg().
 */
#include "knobs.h"

#include <errno.h>
#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "closest.h"
#include "error.h"
#include "strbuf.h"

/* In the order of their enums (replay_opts.h): the index is the value. */
static const char *const completion_names[] = { "event", "poll", NULL };
static const char *const grid_names[] = { "captured", "resident", NULL };
static const char *const probe_names[] = { "off", "blocks", NULL };
static const char *const host_time_names[] = { "captured", "none", NULL };

/*
 * --min-replays: a whole number in the row's bounds, read by strtoul as
 * it always was (so " 7" and "+7" pass, "-7" does not).
 */
static int parse_min_replays(const struct gm_knob_desc *k, const char *who,
			     const char *text, double *out)
{
	char *end;
	unsigned long v = strtoul(text, &end, 10);

	if (*end || !*text || *text == '-' || (double)v < k->min ||
	    (double)v > k->max) {
		return gm_error("%s takes an integer from %.0f to %.0f (each "
				"program's last replay is discarded), not '%s'",
				who, k->min, k->max, text);
	}
	*out = (double)v;
	return 0;
}

/* Where a row keeps its value (knob_values.h). */
#define FIELD(name, type)                                                      \
	.field = offsetof(struct gm_knob_values, name),                        \
	.field_type = GM_KNOB_FIELD_##type

static const struct gm_knob_desc knobs[] = {
	/* The run's settings (.run): --help writes them with --data and
	 * --force, a study passes them on the replay's line. */
	{ GM_KNOB_MIN_REPLAYS, "--min-replays", "min_replays", "R", NULL,
	  GM_KNOB_OTHER, GM_MIN_REPLAYS_MIN, GM_MIN_REPLAYS_MAX, .def = 7,
	  .parse = parse_min_replays, .run = 1, FIELD(min_replays, UNSIGNED) },
	/* 0 turns the watchdog off, on both front ends (a study's stage
	 * time limit still stops a hung replay); at most a day, as gpumix
	 * scale and sweep take it. A study's is at least a second: its
	 * replays load modules and spend captured host time, so a shorter
	 * one would call healthy replays hung. The option alone goes down
	 * to a millisecond: tests stop a replay they hang on purpose after
	 * a fraction of a second (0.2 s). */
	{ GM_KNOB_WATCHDOG, "--watchdog", "watchdog", "SECONDS", NULL,
	  GM_KNOB_DURATION, 1, 86400, "off", 1, "seconds", 60, .run = 1,
	  .option_min = 1e-3, FIELD(watchdog_s, DOUBLE) },
	{ GM_KNOB_POLICY, "--policy", NULL, "POLICY",
	  /* (the policies' list is appended from policies.h) */
	  "resource policy:", GM_KNOB_OTHER, .def = -1 },
	/* 0 turns timeslicing off (the paper's ablation, item 75); the
	 * longest slice is a guard against a unit mistaken for another. */
	{ GM_KNOB_TIMESLICE, "--timeslice-us", "timeslice", "US",
	  "run long elastic kernels in ranges of about US microseconds",
	  GM_KNOB_DURATION, 1e-6, 10, "no timeslicing", 1e6, "microseconds",
	  1e-3, NULL, NULL, 0, FIELD(timeslice_us, DOUBLE) },
	/* 0 turns copy chunking off (the ablation of item 76); chunks above
	 * 1 GiB would be whole copies of every program the suite has. */
	{ GM_KNOB_COPY_CHUNK, "--copy-chunk", "copy_chunk", "BYTES",
	  "issue copies larger than BYTES as chunks of BYTES",
	  GM_KNOB_SIZE, 4096, 1073741824.0, "whole copies", 0, NULL,
	  4194304.0, NULL, NULL, 0, FIELD(copy_chunk, U64) },
	{ GM_KNOB_COMPLETION, "--completion", "completion", "event|poll",
	  "how the runtime learns that a kernel finished: CUDA events "
	  "(event) or a host-mapped flag set by the transformed kernel "
	  "(poll)", GM_KNOB_CHOICE, .def = 0, .choices = completion_names,
	  FIELD(completion, ENUM) },
	{ GM_KNOB_PROFILE, "--profile", NULL, "FILE",
	  "kernel profile of the suite's single runs (gpumix profile): "
	  "MEDIAN's median kernel and the timeslices' lengths",
	  GM_KNOB_OTHER, .def = -1 },
	{ GM_KNOB_HIGH_PRIORITY, "--high-priority", "high_priority", "PROGRAM",
	  "the program whose streams get the highest priority (default: "
	  "the workload's first)", GM_KNOB_OTHER, .def = -1 },
	{ GM_KNOB_GRID, "--grid", "grid", "captured|resident",
	  "physical grid when the policy's limits do not bind: the captured "
	  "grid (captured), or Algorithm 1's cap at the resident maximum "
	  "(resident)", GM_KNOB_CHOICE, .def = 0, .choices = grid_names,
	  FIELD(grid, ENUM) },
	{ GM_KNOB_SM_SHARE, "--sm-share", "sm_share", "PROG=SHARE,...",
	  "each named program's partition: SMs (32) or a percentage of the "
	  "device's SMs (50%); the others share the rest equally (default: "
	  "equal partitions)", GM_KNOB_OTHER, .def = -1 },
	{ GM_KNOB_SCALE, "--scale", "scale", "KNEES",
	  "scaled partitions: each program the SMs where its scalability "
	  "curve flattens (the knees.csv of gpumix scale), shrunk in "
	  "proportion to fit", GM_KNOB_OTHER, .def = -1 },
	{ GM_KNOB_MPS_THREADS, "--mps-threads", "mps_threads", "PCT|NAME=PCT,..",
	  "MPS active-thread percentage (1-100) of every program, or of the "
	  "programs named (others: no limit)", GM_KNOB_OTHER, .def = -1 },
	{ GM_KNOB_ONE_SHOT, "--one-shot", "one_shot", NULL,
	  "every program replays exactly once, all starting together (in "
	  "single: each once alone), and that replay is kept: measured as "
	  "a native co-run is (--min-replays does not apply)",
	  GM_KNOB_FLAG, .def = 0, FIELD(one_shot, INT) },
	{ GM_KNOB_PROBE, "--probe", "probe", "off|blocks",
	  "the block probe: each block of the transformed kernels records its "
	  "SM, start and end (probe.tsv, probe.bin); runs the transformed "
	  "kernels (reconstruct --elastic)", GM_KNOB_CHOICE, .def = 0,
	  .choices = probe_names, FIELD(probe, ENUM) },
	{ GM_KNOB_HOST_TIME, "--host-time", "host_time", "captured|none",
	  "spend the host time each program spent between its calls when "
	  "captured, before each call (captured), or issue the calls back "
	  "to back (none)", GM_KNOB_CHOICE, .def = 0,
	  .choices = host_time_names, FIELD(host_time, ENUM) },
	/* 0 spends none: the same as host_time: none. */
	{ GM_KNOB_MAX_HOST_GAP, "--max-host-gap", "max_host_gap", "SECONDS",
	  "spend at most SECONDS of captured host time before any one call",
	  GM_KNOB_DURATION, 0, HUGE_VAL, NULL, 1, "seconds", -1, NULL, NULL, 0,
	  FIELD(max_host_gap_s, DOUBLE) },
	{ GM_KNOB_ARRIVALS, "--arrivals", NULL, "PROG=SPEC",
	  "PROG is latency-critical: each replay is one request, started at "
	  "its arrival (queued while the one before runs): poisson:RATE "
	  "(per second), load:L (Poisson at L times its alone capacity, "
	  "--alone) or trace:FILE[#COLUMN][@RATE] (a CSV's timestamps, "
	  "rescaled to RATE); repeatable (a study's 'arrivals' key)",
	  GM_KNOB_OTHER, .def = -1 },
	/* The resource-specification sweep's knobs (gpumix sweep --run,
	 * doc/gpumix-sweep.md): one kernel changed, the same work; a
	 * study compares mechanisms, not specifications, so no study key. */
	{ GM_KNOB_SMEM_PAD, "--smem-pad", NULL, "KERNEL=BYTES",
	  "add BYTES of dynamic shared memory to every launch of KERNEL "
	  "(mangled name), fewer of its blocks resident per SM, its work "
	  "unchanged; repeatable", GM_KNOB_OTHER, .def = -1 },
	{ GM_KNOB_KERNEL_MODULE, "--kernel-module", NULL, "KERNEL=FILE",
	  "take KERNEL from module FILE (a cubin or PTX: its captured PTX "
	  "reassembled, ptxas -maxrregcount N) instead of its captured "
	  "module; repeatable", GM_KNOB_OTHER, .def = -1 },
	{ GM_KNOB_CLIFF_MAP, "--cliff-map", "cliff_map", "POINTS.csv",
	  "policy mpmax-cliff: the kernels' cliff maps, the points.csv of "
	  "gpumix sweep --run (doc/gpumix-sweep.md)", GM_KNOB_OTHER,
	  .def = -1 },
	{ GM_KNOB_ELASTIC, "--elastic", NULL, "MODE",
	  "run the elastic modules (reconstruct --elastic) with a fixed "
	  "physical grid: identity, N, sm, sm=K (K blocks per SM), "
	  "resident, orig", GM_KNOB_OTHER, .def = -1 },
};

#define NR_KNOBS (sizeof(knobs) / sizeof(knobs[0]))

const struct gm_knob_desc *gm_knob_at(size_t i)
{
	return i < NR_KNOBS ? &knobs[i] : NULL;
}

const struct gm_knob_desc *gm_knob_find(enum gm_knob knob)
{
	for (size_t i = 0; i < NR_KNOBS; i++) {
		if (knobs[i].knob == knob) {
			return &knobs[i];
		}
	}
	return NULL;
}

void gm_knob_format_seconds(double s, struct strbuf *sb)
{
	if (s == 0) {
		strbuf_addstr(sb, "0");
	} else if (s >= 3600 && fmod(s, 3600) == 0) {
		strbuf_addf(sb, "%gh", s / 3600);
	} else if (s >= 60 && fmod(s, 60) == 0) {
		strbuf_addf(sb, "%gmin", s / 60);
	} else if (s >= 1) {
		strbuf_addf(sb, "%gs", s);
	} else if (s >= 1e-3) {
		strbuf_addf(sb, "%gms", s * 1e3);
	} else {
		strbuf_addf(sb, "%gus", s * 1e6);
	}
}

/* A bound of a DURATION or SIZE knob, as messages write it. */
static void add_bound(const struct gm_knob_desc *k, double v,
		      struct strbuf *sb)
{
	if (k->kind == GM_KNOB_DURATION) {
		gm_knob_format_seconds(v, sb);
	} else {
		strbuf_addf(sb, "%.0f", v);
	}
}

/* The option's minimum: the row's option_min where it has one. */
static double option_min(const struct gm_knob_desc *k)
{
	return k->option_min > 0 ? k->option_min : k->min;
}

/* gm_knob_range() with @min for the row's min. */
static void add_range(const struct gm_knob_desc *k, double min,
		      struct strbuf *sb)
{
	switch (k->kind) {
	case GM_KNOB_DURATION:
	case GM_KNOB_SIZE:
		if (k->zero) {
			strbuf_addf(sb, "0 (%s) or ", k->zero);
		}
		if (isinf(k->max)) {
			add_bound(k, min, sb);
			strbuf_addstr(sb, " or more");
		} else {
			strbuf_addstr(sb, "between ");
			add_bound(k, min, sb);
			strbuf_addstr(sb, " and ");
			add_bound(k, k->max, sb);
		}
		if (k->kind == GM_KNOB_SIZE) {
			strbuf_addstr(sb, " bytes");
		}
		break;
	case GM_KNOB_CHOICE:
		for (size_t i = 0; k->choices[i]; i++) {
			strbuf_addf(sb, "%s'%s'", !i ? "" : k->choices[i + 1] ?
				    ", " : " or ", k->choices[i]);
		}
		break;
	case GM_KNOB_FLAG:
	case GM_KNOB_OTHER:
		break;
	}
}

void gm_knob_range(const struct gm_knob_desc *k, struct strbuf *sb)
{
	add_range(k, k->min, sb);
}

void gm_knob_option_range(const struct gm_knob_desc *k, struct strbuf *sb)
{
	add_range(k, option_min(k), sb);
}

/* gm_knob_check() with @min for the row's min. */
static int check_in(const struct gm_knob_desc *k, double min, const char *who,
		    const char *text, double v)
{
	struct strbuf range = STRBUF_INIT;
	const char *near = NULL;
	int ok;

	switch (k->kind) {
	case GM_KNOB_DURATION:
	case GM_KNOB_SIZE:
		ok = (v == 0 && k->zero) || (v >= min && v <= k->max);
		break;
	case GM_KNOB_CHOICE: {
		size_t n = 0;
		while (k->choices[n]) {
			n++;
		}
		ok = v >= 0 && v < (double)n && v == floor(v);
		near = ok ? NULL : gm_closest(text, k->choices);
		break;
	}
	default:
		ok = 1;
		break;
	}
	if (ok) {
		return 0;
	}
	add_range(k, min, &range);
	if (k->kind == GM_KNOB_CHOICE) {
		gm_error("%s must be %s, not '%s'%s%s%s", who, range.buf, text,
			 near ? " (did you mean '" : "", near ? near : "",
			 near ? "'?)" : "");
	} else {
		gm_error("%s must be %s, not %s", who, range.buf, text);
	}
	strbuf_release(&range);
	return -1;
}

int gm_knob_check(const struct gm_knob_desc *k, const char *who,
		  const char *text, double v)
{
	return check_in(k, k->min, who, text, v);
}

/* Bytes with an optional K, M or G (KiB, MiB, GiB) suffix, at most 1 TiB
 * (past every bound; a larger number would overflow the shift). */
static int parse_bytes(const char *s, double *out)
{
	char *end;
	unsigned long long v;
	unsigned shift = 0;

	if (*s < '0' || *s > '9') {
		return -1;
	}
	errno = 0;
	v = strtoull(s, &end, 10);
	if (*end == 'K' || *end == 'k') {
		shift = 10;
	} else if (*end == 'M' || *end == 'm') {
		shift = 20;
	} else if (*end == 'G' || *end == 'g') {
		shift = 30;
	}
	if (shift) {
		end++;
		if (*end == 'i' && end[1] == 'B') {
			end += 2;
		}
	}
	if (*end || errno || v > (UINT64_C(1) << 40) >> shift) {
		return -1;
	}
	*out = (double)((uint64_t)v << shift);
	return 0;
}

int gm_knob_parse(const struct gm_knob_desc *k, const char *who,
		  const char *text, double *out)
{
	char *end;
	double v;

	switch (k->kind) {
	case GM_KNOB_DURATION:
		errno = 0;
		v = strtod(text, &end);
		if (!*text || *end || errno || !isfinite(v)) {
			return gm_error("%s takes a number of %s, not '%s'", who,
					k->unit, text);
		}
		if (check_in(k, option_min(k), who, text,
			     v / k->option_per_s) < 0) {
			return -1;
		}
		*out = v;
		return 0;
	case GM_KNOB_SIZE:
		if (parse_bytes(text, &v) < 0) {
			return gm_error("%s takes a number of bytes, with K, M or "
					"G for KiB, MiB or GiB, not '%s'", who,
					text);
		}
		if (check_in(k, option_min(k), who, text, v) < 0) {
			return -1;
		}
		*out = v;
		return 0;
	case GM_KNOB_CHOICE:
		for (size_t i = 0; k->choices[i]; i++) {
			if (!strcmp(text, k->choices[i])) {
				*out = (double)i;
				return 0;
			}
		}
		return gm_knob_check(k, who, text, -1);
	case GM_KNOB_OTHER:
		if (k->parse) {
			return k->parse(k, who, text, out);
		}
		break;
	case GM_KNOB_FLAG:
		break;
	}
	return gm_error("%s: not a value a table can parse", who);
}

void gm_knob_format(const struct gm_knob_desc *k, double v,
		    struct strbuf *sb)
{
	switch (k->kind) {
	case GM_KNOB_DURATION:
		/* (exact for any duration a study file can give) */
		strbuf_addf(sb, "%.9g", v);
		break;
	case GM_KNOB_SIZE:
		strbuf_addf(sb, "%llu", (unsigned long long)v);
		break;
	case GM_KNOB_CHOICE:
		strbuf_addstr(sb, k->choices[(size_t)v]);
		break;
	case GM_KNOB_FLAG:
	case GM_KNOB_OTHER:
		break;
	}
}
