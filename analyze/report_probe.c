/* SPDX-License-Identifier: MIT */
/*
 * The report's tables of the waiting split, the block probe and the
 * replay's driver calls (see report_tables.h): per run and program, from
 * the analysis (analysis_probe.c). Times in milliseconds, shares in
 * percent; definitions in doc/database.md.
 */
#include <math.h>

#include "report_tables.h"

#define MS(ns) ((ns) / 1e6)

void gm_report_waiting_split_table(const struct gm_analysis *a,
				   struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "variant", "program", "kernels", "waiting (ms)",
		"queued behind its own stream (ms)", "waiting for SMs (ms)",
		NULL,
	};

	gm_table_init(t, "waiting-split", "Kernel waiting time, split: queued"
		      " behind its own stream vs waiting for SMs", cols);
	gm_table_caption(t, "Per program, means over its kernels with a launch"
			 " call: waiting = kernel start - launch call start;"
			 " of it, queued behind its own stream = until the work"
			 " before it in its stream (kernels, copies, memsets)"
			 " ended, waiting for SMs = the rest (doc/database.md).");
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->ok) {
			continue;
		}
		for (size_t p = 0; p < r->nprog; p++) {
			const struct gm_an_program *x = &r->progs[p];
			gm_table_row(t);
			gm_table_text(t, 0, "%s", r->workload);
			gm_table_text(t, 1, "%s", r->vlabel);
			gm_table_text(t, 2, "%s", x->name);
			gm_table_num(t, 3, (double)x->ws_n, 0);
			gm_table_num(t, 4, MS(x->ws_wait), 4);
			gm_table_num(t, 5, MS(x->ws_own), 4);
			gm_table_num(t, 6, MS(x->ws_sm), 4);
		}
	}
}

static double pct(int64_t part, int64_t whole)
{
	return whole > 0 ? 100.0 * (double)part / (double)whole : NAN;
}

void gm_report_probe_sm_table(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "variant", "program", "SM-time %",
		"shared with another program %", "SMs", "busy %", "idle %",
		"window (ms)", NULL,
	};

	gm_table_init(t, "probe-sm", "Who held the SMs (block probe)", cols);
	gm_table_caption(t, "Runs with --probe blocks. SM-time %% = the time,"
			 " summed over the SMs, in which at least one block of"
			 " the program was on an SM, over SMs x window; shared ="
			 " of it, with another program's block on the same SM;"
			 " SMs = those it had a block on; busy and idle: the"
			 " run's SM-time with a block of any program, and"
			 " without. Window: while every program was replaying"
			 " (else the run's replays). doc/database.md.");
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		const struct gm_an_probe *pr = r->probe;
		if (!r->ok || !pr || !pr->sm.capacity_ns) {
			continue;
		}
		for (size_t p = 0; p < r->nprog; p++) {
			gm_table_row(t);
			gm_table_text(t, 0, "%s", r->workload);
			gm_table_text(t, 1, "%s", r->vlabel);
			gm_table_text(t, 2, "%s", r->progs[p].name);
			gm_table_num(t, 3, pct(pr->sm.held_ns[p], pr->sm.capacity_ns), 2);
			gm_table_num(t, 4, pct(pr->sm.with_other_ns[p],
					       pr->sm.capacity_ns), 2);
			gm_table_num(t, 5, (double)pr->sm.sms[p], 0);
			gm_table_num(t, 6, pct(pr->sm.busy_ns, pr->sm.capacity_ns), 2);
			gm_table_num(t, 7, pct(pr->sm.capacity_ns - pr->sm.busy_ns,
					       pr->sm.capacity_ns), 2);
			gm_table_num(t, 8, MS((double)pr->sm.window_ns), 3);
		}
	}
}

void gm_report_probe_kernels_table(const struct gm_analysis *a,
				   struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "variant", "program", "kernel", "launches",
		"probed", "launch to first block (ms)",
		"launch to last block (ms)", "SMs (mean)", "SMs (min)",
		"not probed because", NULL,
	};

	gm_table_init(t, "probe-kernels", "Kernels' blocks: waiting for SMs"
		      " and SMs had (block probe)", cols);
	gm_table_caption(t, "Runs with --probe blocks, per program and kernel,"
			 " means over its probed launches: from the launch"
			 " call's start to its first and to its last block's"
			 " start, and the distinct SMs its blocks ran on."
			 " Kernels that were not transformed (or launches that"
			 " did not fit the probe's buffer) say why.");
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->ok || !r->probe) {
			continue;
		}
		for (size_t j = 0; j < r->probe->nk; j++) {
			const struct gm_an_probe_kernel *k = &r->probe->k[j];
			gm_table_row(t);
			gm_table_text(t, 0, "%s", r->workload);
			gm_table_text(t, 1, "%s", r->vlabel);
			gm_table_text(t, 2, "%s", r->progs[k->program].name);
			gm_table_text(t, 3, "%s", k->kernel);
			gm_table_num(t, 4, (double)k->launches, 0);
			gm_table_num(t, 5, (double)k->probed, 0);
			gm_table_num(t, 6, MS(k->first_ns), 4);
			gm_table_num(t, 7, MS(k->last_ns), 4);
			gm_table_num(t, 8, k->sms_mean, 1);
			gm_table_num(t, 9, k->sms_min < 0 ? NAN : (double)k->sms_min, 0);
			gm_table_text(t, 10, "%s", k->why ? k->why : "");
		}
	}
}

void gm_report_drivercalls_table(const struct gm_analysis *a,
				 struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "variant", "program", "call", "kind", "calls",
		"total (ms)", "mean (us)", "max (ms)", NULL,
	};

	gm_table_init(t, "drivercalls", "The replay's own driver calls in the"
		      " timed part", cols);
	gm_table_caption(t, "Per program, each driver call the replay made in"
			 " its replays' timed part (drivercalls.tsv), longest in"
			 " all first: a thread blocked inside the driver (not on"
			 " the GPU) shows here. doc/database.md.");
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->ok) {
			continue;
		}
		for (size_t j = 0; j < r->ndc; j++) {
			const struct gm_an_drivercall *c = &r->dc[j];
			gm_table_row(t);
			gm_table_text(t, 0, "%s", r->workload);
			gm_table_text(t, 1, "%s", r->vlabel);
			gm_table_text(t, 2, "%s", r->progs[c->program].name);
			gm_table_text(t, 3, "%s", c->call);
			gm_table_text(t, 4, "%s", c->kind);
			gm_table_num(t, 5, (double)c->count, 0);
			gm_table_num(t, 6, MS((double)c->total_ns), 3);
			gm_table_num(t, 7, (double)c->total_ns / (double)c->count / 1e3, 1);
			gm_table_num(t, 8, MS((double)c->max_ns), 3);
		}
	}
}
