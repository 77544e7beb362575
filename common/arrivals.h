/* SPDX-License-Identifier: MIT */
/*
 * The arrival process of a latency-critical (open-loop) program: when
 * each of its requests arrives, as offsets in nanoseconds from the start
 * of the replay. Each replay of such a program is one request, started
 * at its arrival or, when the previous request still runs, as soon as
 * that one ends (doc/gpumix-replay.md, "Open-loop programs"). The times
 * come from a Poisson process at a rate, drawn from a seeded generator
 * (splitmix64), or from a trace file's column of timestamps (a CSV with a
 * header line, such as the Azure LLM inference traces' TIMESTAMP),
 * optionally rescaled to a mean rate. They are computed once, before a
 * run starts, from the specification and the seed alone: the same inputs
 * give the same times, bit for bit, on every machine.
 *
 * A specification, as `gpumix replay --arrivals PROG=SPEC` takes it:
 *   poisson:RATE                 RATE requests per second
 *   load:L                       a Poisson process at L times the
 *                                program's alone capacity (1 / its mean
 *                                alone replay time, from the run
 *                                directory of --alone)
 *   trace:FILE                   FILE's TIMESTAMP column, as recorded
 *   trace:FILE@RATE              the same, rescaled to RATE per second
 *   trace:FILE#COLUMN[@RATE]     another column
 */
#ifndef GM_ARRIVALS_H
#define GM_ARRIVALS_H

#include <stdint.h>

/* The requests of a Poisson process when nothing says how many. */
#define GM_ARRIVALS_DEFAULT_REQUESTS 200
#define GM_ARRIVALS_MAX_REQUESTS 10000000u
/* The column of a trace file when the specification names none. */
#define GM_ARRIVALS_DEFAULT_COLUMN "TIMESTAMP"

enum gm_arrival_kind {
	GM_ARRIVALS_POISSON,
	GM_ARRIVALS_TRACE,
	GM_ARRIVALS_LOAD,	/* Poisson at a load: gm_arrivals_at_load() */
};

struct gm_arrival_spec {
	char *program;		/* the latency-critical program */
	enum gm_arrival_kind kind;
	double rate;		/* requests/s; 0 for a trace as recorded */
	double load;		/* load: the fraction of its alone capacity */
	double alone_s;		/* load: its alone replay time, once known */
	char *trace;		/* trace: the file */
	char *column;		/* trace: the column's header name */
};

/*
 * Parse "PROG=SPEC" (the grammar above) into @s (owned: release with
 * gm_arrival_spec_release()). Returns 0, or -1 with a cause naming what
 * is wrong (no program, an unknown process, a rate that is not a
 * positive number).
 */
int gm_arrival_spec_parse(struct gm_arrival_spec *s, const char *text);
void gm_arrival_spec_release(struct gm_arrival_spec *s);

/*
 * Turn load specification @s into a Poisson process: its rate is the
 * load over the mean replay time (end - start - io, kept replays) of
 * @s->program in @alone_dir/replays.tsv (a run directory of the
 * alone-time variant, doc/run-directory.md). Returns 0, or -1 with a
 * cause (no such file or program, no kept replay).
 */
int gm_arrivals_at_load(struct gm_arrival_spec *s, const char *alone_dir);

/* The specification without its program, as the manifest records it
 * ("poisson:50", "trace:azure.csv#TIMESTAMP@20"): free() it. */
char *gm_arrival_spec_format(const struct gm_arrival_spec *s);

/*
 * The arrival times of @s: *@out (malloc'd, the caller frees it) gets
 * *@nr offsets in ns from the replay's start, non-decreasing. A Poisson
 * process gives @requests of them (0: GM_ARRIVALS_DEFAULT_REQUESTS),
 * drawn from @seed (the first after one exponential gap); a trace its
 * first @requests rows (0: all), shifted to start at 0 and, with a rate,
 * scaled so that they arrive at that mean rate. Fails with a cause at
 * FILE:LINE for an unreadable trace, a missing column, a timestamp that
 * is neither a number of seconds nor "YYYY-MM-DD HH:MM:SS[.frac]", or
 * one earlier than the row before.
 */
int gm_arrivals_generate(const struct gm_arrival_spec *s, uint64_t seed,
			 unsigned requests, uint64_t **out, unsigned *nr);

/*
 * One timestamp of a trace file, in ns: a number of seconds ("12.5") or
 * a UTC date and time ("2023-11-16 18:15:46.6805900", also with a 'T'),
 * ns since 1970. Returns 0 or -1 (nothing recorded).
 */
int gm_arrivals_parse_time(const char *text, int64_t *out);

#endif
