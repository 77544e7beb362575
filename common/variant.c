/* SPDX-License-Identifier: MIT */
/*
 * The table of variants and replay knobs (see variant.h).
 * Adding a mechanism takes a row here and its scheduler in replay/
 * (sched.c lists them by name); a knob no variant has yet takes besides
 * its GM_KNOB_* bit (variant.h) and row below, its parsing in
 * common/replay_opts.c, its case in load_knob() of study/study.c and in
 * the replay runtime that reads it.
 */
#include "variant.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "strbuf.h"

static const struct gm_variant variants[] = {
	{ "single", 1, GM_VARIANT_ALONE,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_ELASTIC,
	  "each program alone, one after another (alone-time baseline)",
	  "serial" },
	{ "cuda", 1, GM_VARIANT_REFERENCE,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_ELASTIC,
	  "all programs at once, their captured streams as CUDA streams",
	  "serial" },
	{ "nss", 1, 0,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_TIMESLICE | GM_KNOB_COPY_CHUNK |
		  GM_KNOB_COMPLETION | GM_KNOB_ELASTIC,
	  "non-serializing streams: a memory and a kernel stream per program, "
	  "dependencies kept by the runtime", "nss" },
	{ "elastic", 1, GM_VARIANT_POLICY,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_POLICY | GM_KNOB_TIMESLICE |
		  GM_KNOB_COPY_CHUNK | GM_KNOB_COMPLETION | GM_KNOB_PROFILE |
		  GM_KNOB_GRID,
	  "nss with elastic kernels under a resource policy, timesliced",
	  "nss" },
	{ "priority", 1, 0,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_ELASTIC | GM_KNOB_HIGH_PRIORITY,
	  "cuda with stream priorities: one program's streams at the "
	  "highest priority", "priority" },
	{ "green", 1, 0,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_ELASTIC | GM_KNOB_SM_SHARE |
		  GM_KNOB_SCALE,
	  "cuda with SM partitions: each program in its own green context",
	  "green" },
	{ "procs", 1, GM_VARIANT_PROCESSES,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_ELASTIC,
	  "one process per program, time-sliced by the driver (no MPS)",
	  "serial" },
	{ "mps", 1, GM_VARIANT_PROCESSES | GM_VARIANT_MPS_DAEMON,
	  GM_KNOBS_EVERY_VARIANT | GM_KNOB_ELASTIC | GM_KNOB_MPS_THREADS,
	  "one process per program under an MPS daemon the replay starts",
	  "serial" },
};

#define NR_VARIANTS (sizeof(variants) / sizeof(variants[0]))

static const struct gm_knob_desc knobs[] = {
	{ GM_KNOB_POLICY, "--policy", NULL, "POLICY",
	  /* (the policies are appended from policies.h's table) */
	  "resource policy:" },
	{ GM_KNOB_TIMESLICE, "--timeslice-us", "timeslice", "US",
	  "run long elastic kernels in ranges of about US microseconds "
	  "(0: whole grids)" },
	{ GM_KNOB_COPY_CHUNK, "--copy-chunk", "copy_chunk", "BYTES",
	  "issue copies larger than BYTES as chunks of BYTES (0: whole; "
	  "default 4 MiB)" },
	{ GM_KNOB_COMPLETION, "--completion", "completion", "event|poll",
	  "how the runtime learns that a kernel finished: CUDA events "
	  "(default) or a host-mapped flag set by the transformed kernel" },
	{ GM_KNOB_PROFILE, "--profile", NULL, "FILE",
	  "kernel profile of the suite's single runs (gpumix profile): "
	  "MEDIAN's median kernel and the timeslices' lengths" },
	{ GM_KNOB_HIGH_PRIORITY, "--high-priority", "high_priority", "PROGRAM",
	  "the program whose streams get the highest priority (default: "
	  "the workload's first)" },
	{ GM_KNOB_GRID, "--grid", "grid", "captured|resident",
	  "physical grid when the policy's limits do not bind: the captured "
	  "grid (default), or Algorithm 1's cap at the resident maximum" },
	{ GM_KNOB_SM_SHARE, "--sm-share", "sm_share", "PROG=SHARE,...",
	  "each named program's partition: SMs (32) or a percentage of the "
	  "device's SMs (50%); the others share the rest equally (default: "
	  "equal partitions)" },
	{ GM_KNOB_SCALE, "--scale", "scale", "KNEES",
	  "scaled partitions: each program the SMs where its scalability "
	  "curve flattens (the knees.csv of gpumix scale), shrunk in "
	  "proportion to fit" },
	{ GM_KNOB_MPS_THREADS, "--mps-threads", "mps_threads", "PCT|NAME=PCT,..",
	  "MPS active-thread percentage (1-100) of every program, or of the "
	  "programs named (others: no limit)" },
	{ GM_KNOB_ONE_SHOT, "--one-shot", "one_shot", NULL,
	  "every program replays exactly once, all starting together (in "
	  "single: each once alone), and that replay is kept: measured as "
	  "a native co-run is (--min-replays does not apply)" },
	{ GM_KNOB_PROBE, "--probe", "probe", "blocks|off",
	  "the block probe: each block of the transformed kernels records its "
	  "SM, start and end (probe.tsv, probe.bin); runs the transformed "
	  "kernels (reconstruct --elastic)" },
	{ GM_KNOB_HOST_TIME, "--host-time", "host_time", "captured|none",
	  "spend the host time each program spent between its calls when "
	  "captured, before each call (captured, the default), or issue the "
	  "calls back to back (none)" },
	{ GM_KNOB_MAX_HOST_GAP, "--max-host-gap", "max_host_gap", "SECONDS",
	  "spend at most SECONDS of captured host time before any one call "
	  "(default: no limit)" },
	{ GM_KNOB_ARRIVALS, "--arrivals", NULL, "PROG=SPEC",
	  "PROG is latency-critical: each replay is one request, started at "
	  "its arrival (queued while the one before runs): poisson:RATE "
	  "(per second), load:L (Poisson at L times its alone capacity, "
	  "--alone) or trace:FILE[#COLUMN][@RATE] (a CSV's timestamps, "
	  "rescaled to RATE); repeatable (a study's 'arrivals' key)" },
	{ GM_KNOB_ELASTIC, "--elastic", NULL, "MODE",
	  "run the elastic modules (reconstruct --elastic) with a fixed "
	  "physical grid: identity, N, sm, sm=K (K blocks per SM), "
	  "resident, orig" },
};

#define NR_KNOBS (sizeof(knobs) / sizeof(knobs[0]))

const struct gm_variant *gm_variant_find(const char *name)
{
	for (size_t i = 0; name && i < NR_VARIANTS; i++) {
		if (!strcmp(variants[i].name, name)) {
			return &variants[i];
		}
	}
	return NULL;
}

const struct gm_variant *gm_variant_at(size_t i)
{
	return i < NR_VARIANTS ? &variants[i] : NULL;
}

char *gm_variant_label(const char *variant, const char *policy,
		       const char *point, int one_shot)
{
	int with_policy = policy && *policy && strcmp(policy, "none");
	int with_point = point && *point;

	return gm_xasprintf("%s%s%s%s%s%s", variant, with_policy ? "+" : "",
			    with_policy ? policy : "", with_point ? "+" : "",
			    with_point ? point : "",
			    one_shot ? GM_ONE_SHOT_SUFFIX : "");
}

int gm_variant_rank(const char *label)
{
	size_t n = strcspn(label, "+"), len = strlen(label);
	int rank = (int)NR_VARIANTS * 16;

	/* "+one-shot" (one replay each, started together) after all the
	 * variant's other labels */
	if (len > n && len - n >= sizeof(GM_ONE_SHOT_SUFFIX) - 1 &&
	    !strcmp(label + len - (sizeof(GM_ONE_SHOT_SUFFIX) - 1),
		    GM_ONE_SHOT_SUFFIX)) {
		char *base = gm_xasprintf("%.*s", (int)(len - (sizeof(
					  GM_ONE_SHOT_SUFFIX) - 1)), label);
		rank = gm_variant_rank(base) + 8;
		free(base);
		return rank;
	}

	for (size_t i = 0; i < NR_VARIANTS; i++) {
		if (strlen(variants[i].name) == n &&
		    !strncmp(variants[i].name, label, n)) {
			rank = (int)i * 16;
			break;
		}
	}
	if (label[n] == '+') {
		const char *rest = label + n + 1;
		char *name = gm_xasprintf("%.*s", (int)strcspn(rest, "+"),
					  rest);
		const struct gm_policy_desc *p = gm_policy_desc_find(name);
		/* An open-loop sweep's point ("cuda+load0.5"): its base's
		 * rank (the points then sort by name); the policies in the
		 * table's order. */
		rank += p ? (int)p->policy : 0;
		free(name);
	}
	return rank;
}

const char *const *gm_variant_names(void)
{
	static const char *names[NR_VARIANTS + 1];

	for (size_t i = 0; i < NR_VARIANTS; i++) {
		names[i] = variants[i].name;
	}
	return names;
}

const char *gm_variant_implemented_list(void)
{
	static char list[256];

	if (!list[0]) {
		struct strbuf sb = STRBUF_INIT;
		for (size_t i = 0; i < NR_VARIANTS; i++) {
			if (variants[i].implemented) {
				strbuf_addf(&sb, "%s%s", sb.len ? ", " : "",
					    variants[i].name);
			}
		}
		snprintf(list, sizeof(list), "%s", sb.buf);
		strbuf_release(&sb);
	}
	return list;
}

const struct gm_variant *gm_variant_with(unsigned flags)
{
	for (size_t i = 0; i < NR_VARIANTS; i++) {
		if ((variants[i].flags & flags) == flags) {
			return &variants[i];
		}
	}
	return NULL;
}

int gm_variant_is(const char *name, unsigned flags)
{
	const struct gm_variant *v = gm_variant_find(name);

	return v && (v->flags & flags) == flags;
}

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
