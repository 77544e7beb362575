/* SPDX-License-Identifier: MIT */
/*
 * Driver call timing (see drvcalls.h): a thread-local table, open
 * addressing on the call text's address, and a stack of start times for
 * nested timed calls.
 */
#include "drvcalls.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "clock.h"
#include "run_writer.h"
#include "strbuf.h"

#define STACK 8

static __thread struct gm_drvcalls *cur;
static __thread uint64_t stack[STACK];
static __thread unsigned depth;

void gm_drv_attach(struct gm_drvcalls *t, int64_t clock_offset)
{
	cur = t;
	depth = 0;
	if (t) {
		t->clock_offset = clock_offset;
	}
}

void gm_drv_phase(enum gm_drv_phase phase)
{
	if (cur) {
		cur->phase = phase;
	}
}

void gm_drv_begin(void)
{
	if (cur) {
		uint64_t now = gm_now_ns();
		if (depth < STACK) {
			stack[depth] = now;
		}
		depth++;
	}
}

unsigned gm_drv_bucket(uint64_t ns)
{
	uint64_t us = ns / 1000;
	unsigned b = 0;

	while (us && b < GM_DRV_BUCKETS - 1) {
		us >>= 1;
		b++;
	}
	return b;
}

static struct gm_drv_site *site_of(struct gm_drvcalls *t, const char *call)
{
	unsigned h = (unsigned)(((uintptr_t)call >> 3) * 2654435761u) %
		     GM_DRV_SITES;

	for (unsigned n = 0; n < GM_DRV_SITES; n++, h = (h + 1) % GM_DRV_SITES) {
		struct gm_drv_site *s = &t->site[h];
		if (s->call == call) {
			return s;
		}
		if (!s->call) {
			s->call = call;
			t->nr_sites++;
			return s;
		}
	}
	return NULL;
}

/* Keep one of the slowest calls of the timed part. */
static void keep_slow(struct gm_drvcalls *t, const char *call, uint64_t start,
		      uint64_t ns)
{
	struct gm_drv_slow *s;
	unsigned at = 0;

	if (t->nr_slow < GM_DRV_SLOW) {
		at = t->nr_slow++;
	} else {
		for (unsigned i = 1; i < GM_DRV_SLOW; i++) {
			if (t->slow[i].end - t->slow[i].start <
			    t->slow[at].end - t->slow[at].start) {
				at = i;
			}
		}
		if (t->slow[at].end - t->slow[at].start >= ns) {
			return;
		}
	}
	s = &t->slow[at];
	s->call = call;
	s->start = (uint64_t)((int64_t)start + t->clock_offset);
	s->end = s->start + ns;
}

void gm_drv_end(const char *call)
{
	uint64_t start;

	if (!cur || !depth) {
		return;
	}
	depth--;
	if (depth >= STACK) {
		return;		/* nested too deep: the outer ones count */
	}
	start = stack[depth];
	gm_drv_count(cur, call, start, gm_now_ns() - start);
}

void gm_drv_count(struct gm_drvcalls *t, const char *call, uint64_t start,
		  uint64_t ns)
{
	enum gm_drv_phase ph = t->phase;
	struct gm_drv_site *s = site_of(t, call);

	if (!s) {
		t->lost++;
		return;
	}
	s->count[ph]++;
	s->total_ns[ph] += ns;
	if (ns > s->max_ns[ph]) {
		s->max_ns[ph] = ns;
	}
	s->hist[ph][gm_drv_bucket(ns)]++;
	if (ph == GM_DRV_REPLAY && ns >= GM_DRV_SLOW_MIN_NS) {
		keep_slow(t, call, start, ns);
	}
}

static const struct {
	const char *prefix;
	const char *kind;
} kinds[] = {
	{ "cuLaunch", "launch" },
	{ "cuGraphLaunch", "launch" },
	{ "cuMemcpy", "copy" },
	{ "cuMemset", "memset" },
	{ "cuStreamSynchronize", "sync" },
	{ "cuEventSynchronize", "sync" },
	{ "cuCtxSynchronize", "sync" },
	{ "cuEventQuery", "query" },
	{ "cuStreamQuery", "query" },
	{ "cuEventRecord", "event" },
	{ "cuStreamWaitEvent", "event" },
	{ "cuTexObject", "texture" },
	{ "cuMemAlloc", "memory" },
	{ "cuMemFree", "memory" },
	{ "cuMemHost", "memory" },
};

const char *gm_drv_kind(const char *name)
{
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (!strncmp(name, kinds[i].prefix, strlen(kinds[i].prefix))) {
			return kinds[i].kind;
		}
	}
	return "other";
}

static const char *const phase_names[GM_DRV_PHASES] = { "setup", "replay" };

/* The function's name: the call text up to '(' (at most @len - 1). */
static void call_name(const char *call, char *buf, size_t len)
{
	size_t n = strcspn(call, "( \t");

	if (n >= len) {
		n = len - 1;
	}
	memcpy(buf, call, n);
	buf[n] = '\0';
}

uint64_t gm_drv_format(const struct gm_drvcalls *t, const char *program,
		       struct strbuf *out)
{
	char (*names)[64] = NULL;
	unsigned nr = 0;
	uint64_t lines = 0;

	if (!t) {
		return 0;
	}
	names = calloc(t->nr_sites + 1, sizeof(*names));
	for (unsigned i = 0; i < GM_DRV_SITES; i++) {
		char name[64];
		unsigned j;
		if (!t->site[i].call) {
			continue;
		}
		call_name(t->site[i].call, name, sizeof(name));
		for (j = 0; j < nr && strcmp(names[j], name); j++) {
		}
		if (j == nr) {
			memcpy(names[nr++], name, sizeof(name));
		}
	}
	for (unsigned j = 0; j < nr; j++) {
		for (int ph = 0; ph < GM_DRV_PHASES; ph++) {
			uint64_t count = 0, total = 0, max = 0;
			uint64_t hist[GM_DRV_BUCKETS] = { 0 };
			for (unsigned i = 0; i < GM_DRV_SITES; i++) {
				const struct gm_drv_site *s = &t->site[i];
				char name[64];
				if (!s->call || !s->count[ph]) {
					continue;
				}
				call_name(s->call, name, sizeof(name));
				if (strcmp(name, names[j])) {
					continue;
				}
				count += s->count[ph];
				total += s->total_ns[ph];
				max = s->max_ns[ph] > max ? s->max_ns[ph] : max;
				for (int b = 0; b < GM_DRV_BUCKETS; b++) {
					hist[b] += s->hist[ph][b];
				}
			}
			if (!count) {
				continue;
			}
			strbuf_addstr(out, "CALLS\t");
			gm_run_escape(out, program);
			strbuf_addf(out, "\t%s\t%s\t%s\t%" PRIu64 "\t%" PRIu64
				    "\t%" PRIu64 "\t", phase_names[ph], names[j],
				    gm_drv_kind(names[j]), count, total, max);
			for (int b = 0; b < GM_DRV_BUCKETS; b++) {
				strbuf_addf(out, "%s%" PRIu64, b ? "," : "",
					    hist[b]);
			}
			strbuf_addch(out, '\n');
			lines++;
		}
	}
	for (unsigned i = 0; i < t->nr_slow; i++) {
		char name[64];
		call_name(t->slow[i].call, name, sizeof(name));
		strbuf_addstr(out, "SLOW\t");
		gm_run_escape(out, program);
		strbuf_addf(out, "\t%s\t%s\t%" PRIu64 "\t%" PRIu64 "\n", name,
			    gm_drv_kind(name), t->slow[i].start, t->slow[i].end);
		lines++;
	}
	free(names);
	return lines;
}
