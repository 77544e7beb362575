/* SPDX-License-Identifier: MIT */
/*
 * The report's tables (see report_tables.h). Times are shown in
 * milliseconds, shares in percent; CSV keeps full precision.
 */
#include "report_tables.h"

#include <assert.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "occupancy.h"
#include "report_verdict.h"

#define MS(ns) ((ns) / 1e6)

static void summary(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"programs", "variant", "workloads", "STP geomean", "STP best",
		"ANTT geomean", "ANTT worst", "repetitions", NULL,
	};

	static const char *const ci_cols[] = {
		"STP geomean", "STP best", "ANTT geomean", "ANTT worst", NULL,
	};

	gm_table_init(t, "summary", "Summary (paper Table 4)", cols);
	gm_table_intervals(t, ci_cols);
	gm_table_caption(t, "STP = sum of T_SP/T_MP over a workload's programs"
			 " (higher is better); ANTT = mean of T_MP/T_SP (lower"
			 " is better). Geometric means over the workloads that"
			 " have a `%s` baseline in every repetition, per workload"
			 " size, with their 95%% interval over the repetitions"
			 " [lo, hi] (doc/database.md, \"Intervals\"); best and"
			 " worst: the workload with the highest mean.",
			 a->alone_variant);
	for (size_t i = 0; i < a->nsummary; i++) {
		const struct gm_an_summary *s = &a->summary[i];
		gm_table_row(t);
		gm_table_num(t, 0, (double)s->programs, 0);
		gm_table_text(t, 1, "%s", s->vlabel);
		gm_table_num(t, 2, (double)s->workloads, 0);
		gm_table_ci(t, 3, &s->stp_geo, 1, 2);
		gm_table_ci(t, 4, &s->stp_best, 1, 2);
		gm_table_ci(t, 5, &s->antt_geo, 1, 2);
		gm_table_ci(t, 6, &s->antt_worst, 1, 2);
		gm_table_num(t, 7, (double)s->repetitions, 0);
	}
}

static void improvement(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"programs", "variant", "workloads", "STP", "ANTT",
		"MTSpeedup workloads", "MTSpeedup", "STP vs %s", "ANTT vs %s",
		"MTSpeedup vs %s", NULL,
	};
	static const char *const ci_cols[] = { "STP", "ANTT", "MTSpeedup", NULL };
	const char *names[sizeof(cols) / sizeof(cols[0])];
	const char *ref = a->reference_variant;
	char *title = gm_xasprintf("Improvement over %s (paper Table 5)", ref);

	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		names[i] = cols[i] && strstr(cols[i], "%s")
			? gm_xasprintf(cols[i], ref) : cols[i];
	}
	gm_table_init(t, "improvement", title, names);
	for (size_t i = 0; i < sizeof(cols) / sizeof(cols[0]); i++) {
		if (names[i] != cols[i]) {
			free((char *)names[i]);
		}
	}
	free(title);
	gm_table_intervals(t, ci_cols);
	gm_table_caption(t, "STP: geomean STP / geomean STP of %s; ANTT:"
			 " geomean ANTT of %s / geomean ANTT; both over the"
			 " workloads that have both in every repetition, each"
			 " repetition paired with %s's of the same repetition,"
			 " with the 95%% interval of the ratio over the"
			 " repetitions. MTSpeedup: geomean over workloads of"
			 " (workload time under %s / workload time under the"
			 " variant), workload time = the longest program's"
			 " multiprogram time. Above 1 is better for all three;"
			 " \"no difference\" where the interval contains 1, n/a"
			 " without an interval (one repetition).", ref, ref, ref,
			 ref);
	for (size_t i = 0; i < a->nsummary; i++) {
		const struct gm_an_summary *s = &a->summary[i];
		gm_table_row(t);
		gm_table_num(t, 0, (double)s->programs, 0);
		gm_table_text(t, 1, "%s", s->vlabel);
		gm_table_num(t, 2, (double)s->common, 0);
		gm_table_ci(t, 3, &s->stp_imp, 1, 2);
		gm_table_ci(t, 4, &s->antt_imp, 1, 2);
		gm_table_num(t, 5, (double)s->mt_n, 0);
		gm_table_ci(t, 6, &s->mtspeedup, 1, 2);
		gm_table_text(t, 7, "%s", gm_report_verdict(&s->stp_imp, 1));
		gm_table_text(t, 8, "%s", gm_report_verdict(&s->antt_imp, 1));
		gm_table_text(t, 9, "%s", gm_report_verdict(&s->mtspeedup, 1));
	}
}

static void workloads(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "programs", "variant", "STP", "ANTT",
		"workload time (ms)", "MTSpeedup", "repetitions", NULL,
	};

	static const char *const ci_cols[] = {
		"STP", "ANTT", "workload time (ms)", "MTSpeedup", NULL,
	};

	gm_table_init(t, "workloads", "STP and ANTT per workload", cols);
	gm_table_intervals(t, ci_cols);
	gm_table_caption(t, "Means over the workload's repetitions under the"
			 " variant, with their 95%% interval [lo, hi]; each"
			 " repetition's STP and ANTT use the alone times of the"
			 " same repetition, its MTSpeedup the %s run of the same"
			 " repetition.", a->reference_variant);
	for (size_t i = 0; i < a->ncells; i++) {
		const struct gm_an_cell *c = &a->cells[i];
		if (c->alone) {
			continue;
		}
		gm_table_row(t);
		gm_table_text(t, 0, "%s", c->workload);
		gm_table_num(t, 1, (double)c->nprog, 0);
		gm_table_text(t, 2, "%s", c->vlabel);
		gm_table_ci(t, 3, &c->stp, 1, 3);
		gm_table_ci(t, 4, &c->antt, 1, 3);
		gm_table_ci(t, 5, &c->wl_time, 1e-6, 3);
		gm_table_ci(t, 6, &c->mtspeedup, 1, 3);
		gm_table_num(t, 7, (double)c->nruns, 0);
	}
}

static void programs(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "variant", "program", "kept replays", "T_MP (ms)",
		"T_SP (ms)", "T_SP/T_MP", "alone time from", "repetitions", NULL,
	};
	static const char *const ci_cols[] = {
		"T_MP (ms)", "T_SP (ms)", "T_SP/T_MP", NULL,
	};

	gm_table_init(t, "programs", "Program times", cols);
	gm_table_intervals(t, ci_cols);
	gm_table_caption(t, "T_MP: mean of the kept replays (replay time minus"
			 " trace I/O) in a run; T_SP: the same in the `%s` run"
			 " the alone time comes from, of the same repetition;"
			 " each the mean over the repetitions with its 95%%"
			 " interval (the replays inside one run are not"
			 " independent: the repetitions are the sample). Kept"
			 " replays: over all repetitions.", a->alone_variant);
	for (size_t i = 0; i < a->ncells; i++) {
		const struct gm_an_cell *c = &a->cells[i];
		for (size_t j = 0; j < c->nprog; j++) {
			const struct gm_an_cell_program *p = &c->progs[j];
			gm_table_row(t);
			gm_table_text(t, 0, "%s", c->workload);
			gm_table_text(t, 1, "%s", c->vlabel);
			gm_table_text(t, 2, "%s", p->name);
			gm_table_num(t, 3, (double)p->kept, 0);
			gm_table_ci(t, 4, &p->mp, 1e-6, 3);
			gm_table_ci(t, 5, &p->alone, 1e-6, 3);
			gm_table_ci(t, 6, &p->speed, 1, 3);
			gm_table_text(t, 7, "%s", p->alone_from ? p->alone_from : "");
			gm_table_num(t, 8, (double)c->nruns, 0);
		}
	}
}

static void wait_cells(struct gm_table *t, size_t col,
		       const struct gm_wait_stats *w, int splits)
{
	gm_table_num(t, col, (double)w->n, 0);
	gm_table_num(t, col + 1, MS(w->mean), 4);
	gm_table_num(t, col + 2, MS(w->median), 4);
	gm_table_num(t, col + 3, MS(w->p95), 4);
	if (splits) {
		gm_table_num(t, col + 4, (double)w->split_n, 0);
		for (int s = 0; s < GM_WAIT_SPLITS; s++) {
			gm_table_num(t, col + 5 + s, MS(w->split_mean[s]), 4);
		}
	}
}

static void waiting(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"variant", "kernels", "mean (ms)", "median (ms)", "p95 (ms)",
		"kernels with split", "API->queued (ms)", "queued->submitted (ms)",
		"submitted->start (ms)", NULL,
	};

	gm_table_init(t, "waiting", "Kernel waiting time (paper Fig. 9)", cols);
	gm_table_caption(t, "Waiting time = kernel start - start of its launch"
			 " call (same correlationId), pooled over all kernels of"
			 " the variant's runs. The split uses CUPTI's queued and"
			 " submitted timestamps where it gave them (means).");
	for (size_t v = 0; v < a->nvariants; v++) {
		gm_table_row(t);
		gm_table_text(t, 0, "%s", a->variants[v].label);
		wait_cells(t, 1, &a->variants[v].wait, 1);
	}
}

static void waiting_runs(const struct gm_analysis *a, struct gm_table *runs)
{
	static const char *const rcols[] = {
		"workload", "variant", "kernels", "mean (ms)", "median (ms)",
		"p95 (ms)", "repetition", NULL,
	};

	gm_table_init(runs, "waiting-runs", "Kernel waiting time per run", rcols);
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->ok) {
			continue;
		}
		gm_table_row(runs);
		gm_table_text(runs, 0, "%s", r->workload);
		gm_table_text(runs, 1, "%s", r->vlabel);
		wait_cells(runs, 2, &r->wait, 0);
		gm_table_num(runs, 6, (double)r->repetition, 0);
	}
}

static void overlap_cells(struct gm_table *t, size_t col, const double *ns,
			  const size_t *n)
{
	double total = 0;

	for (int c = 0; c < GM_OVERLAP_COUNT; c++) {
		total += ns[c];
	}
	for (int c = 0; c < GM_OVERLAP_COUNT; c++) {
		gm_table_num(t, col + c, total > 0 ? 100.0 * ns[c] / total : NAN, 1);
	}
	for (int c = 0; c < GM_OVERLAP_COUNT; c++) {
		gm_table_num(t, col + GM_OVERLAP_COUNT + c, (double)n[c], 0);
	}
}

static void overlap(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"variant", "EXCLUSIVE %", "SHARED/FULL %", "SHARED/RESTRICTED %",
		"SHARED/PARTIAL %", "EXCLUSIVE n", "FULL n", "RESTRICTED n",
		"PARTIAL n", NULL,
	};

	gm_table_init(t, "overlap", "Overlap breakdown (paper Fig. 8)", cols);
	gm_table_caption(t, "Share of kernel execution time in each category"
			 " and number of kernel instances. Intervals are"
			 " half-open; a co-runner starting at the same time"
			 " counts as earlier (doc/database.md).");
	for (size_t v = 0; v < a->nvariants; v++) {
		gm_table_row(t);
		gm_table_text(t, 0, "%s", a->variants[v].label);
		overlap_cells(t, 1, a->variants[v].cat_ns, a->variants[v].cat_n);
	}
}

static void overlap_runs(const struct gm_analysis *a, struct gm_table *runs)
{
	static const char *const rcols[] = {
		"workload", "variant", "EXCLUSIVE %", "SHARED/FULL %",
		"SHARED/RESTRICTED %", "SHARED/PARTIAL %", "EXCLUSIVE n",
		"FULL n", "RESTRICTED n", "PARTIAL n", "repetition", NULL,
	};

	gm_table_init(runs, "overlap-runs", "Overlap breakdown per run", rcols);
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->ok) {
			continue;
		}
		gm_table_row(runs);
		gm_table_text(runs, 0, "%s", r->workload);
		gm_table_text(runs, 1, "%s", r->vlabel);
		overlap_cells(runs, 2, r->cat_ns, r->cat_n);
		gm_table_num(runs, 10, (double)r->repetition, 0);
	}
}

static void utilization(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"variant", "runs", "running kernels", "threads %", "registers %",
		"shared memory %", "blocks %", NULL,
	};

	gm_table_init(t, "utilization",
		      "Running kernels and utilization (paper Figs. 12, 13)", cols);
	gm_table_caption(t, "Time-weighted averages over each run's span (first"
			 " replay start to last replay end, idle time included),"
			 " then the mean over the variant's runs. Utilization"
			 " counts each kernel's resident blocks, min(grid, blocks"
			 " per SM x SMs), capped at the GPU's capacity at every"
			 " instant.");
	for (size_t v = 0; v < a->nvariants; v++) {
		const struct gm_an_variant *var = &a->variants[v];
		gm_table_row(t);
		gm_table_text(t, 0, "%s", var->label);
		gm_table_num(t, 1, (double)var->runs, 0);
		gm_table_num(t, 2, var->running, 3);
		for (int u = 0; u < GM_UTIL_KINDS; u++) {
			gm_table_num(t, 3 + u, 100.0 * var->util[u], 1);
		}
	}
}

static void utilization_runs(const struct gm_analysis *a, struct gm_table *runs)
{
	static const char *const rcols[] = {
		"workload", "variant", "span (ms)", "kernels", "running kernels",
		"threads %", "registers %", "shared memory %", "blocks %",
		"repetition", NULL,
	};

	gm_table_init(runs, "utilization-runs",
		      "Running kernels and utilization per run", rcols);
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->ok) {
			continue;
		}
		gm_table_row(runs);
		gm_table_text(runs, 0, "%s", r->workload);
		gm_table_text(runs, 1, "%s", r->vlabel);
		gm_table_num(runs, 2, MS((double)(r->span_end - r->span_start)), 3);
		gm_table_num(runs, 3, (double)(r->cat_n[0] + r->cat_n[1] +
					      r->cat_n[2] + r->cat_n[3]), 0);
		gm_table_num(runs, 4, r->running, 3);
		for (int u = 0; u < GM_UTIL_KINDS; u++) {
			gm_table_num(runs, 5 + u, 100.0 * r->util[u], 1);
		}
		gm_table_num(runs, 9, (double)r->repetition, 0);
	}
}

static void resources(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"device", "program", "kernel", "TB", "TPB", "regs", "smem (B)",
		"instances", "T%", "R%", "S%", "B%", "limited by", NULL,
	};
	double sum[4] = { 0 };
	size_t n = 0;

	gm_table_init(t, "resources", "Resource usage per kernel (paper Table 2)",
		      cols);
	gm_table_caption(t, "TB: thread blocks; TPB: threads per block; T%%,"
			 " R%%, S%%, B%%: resident threads (whole warps),"
			 " allocated registers, shared memory and blocks as a"
			 " share of the whole GPU, with resident blocks = min(TB,"
			 " blocks per SM x SMs). From the %s%s%s runs.",
			 a->resources_from_alone ? "`" : "(no `",
			 a->alone_variant,
			 a->resources_from_alone ? "`" : "`: all)");
	for (size_t i = 0; i < a->nresources; i++) {
		const struct gm_an_resource *x = &a->resources[i];
		char lim[64];
		gm_table_row(t);
		gm_table_text(t, 0, "%s", x->device);
		gm_table_text(t, 1, "%s", x->program);
		gm_table_text(t, 2, "%s", x->kernel);
		gm_table_num(t, 3, (double)x->grid, 0);
		gm_table_num(t, 4, (double)x->tpb, 0);
		gm_table_num(t, 5, (double)x->regs, 0);
		gm_table_num(t, 6, (double)x->smem, 0);
		gm_table_num(t, 7, (double)x->instances, 0);
		gm_table_num(t, 8, 100.0 * x->t, 1);
		gm_table_num(t, 9, 100.0 * x->r, 1);
		gm_table_num(t, 10, 100.0 * x->s, 1);
		gm_table_num(t, 11, 100.0 * x->b, 1);
		gm_resource_names(x->limiting, lim, sizeof(lim));
		gm_table_text(t, 12, "%s%s", x->fits ? "" : "does not fit: ", lim);
		sum[0] += x->t;
		sum[1] += x->r;
		sum[2] += x->s;
		sum[3] += x->b;
		n++;
	}
	if (n) {
		gm_table_row(t);
		gm_table_text(t, 0, "Average");
		for (int k = 0; k < 4; k++) {
			gm_table_num(t, 8 + k, 100.0 * sum[k] / (double)n, 1);
		}
	}
}

static void runs(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"run", "status", "device", "host", "gpu", "programs", "kernels",
		"dropped records", "path", "repetition", NULL,
	};

	gm_table_init(t, "runs", "Runs", cols);
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		gm_table_row(t);
		gm_table_text(t, 0, "%s", r->label);
		gm_table_text(t, 1, "%s%s%s%s", r->status, r->failure ? " (" : "",
			      r->failure ? r->failure : "", r->failure ? ")" : "");
		gm_table_text(t, 2, "%s", r->device_name);
		/* where it ran: a study over several GPUs or nodes pins each
		 * run (doc/gpumix-run.md); "-" for a run that did not say */
		gm_table_text(t, 3, "%s", r->hostname ? r->hostname : "-");
		gm_table_text(t, 4, "%s", r->gpu ? r->gpu : "-");
		gm_table_num(t, 5, (double)r->nprog, 0);
		gm_table_num(t, 6, (double)r->kernel_count, 0);
		gm_table_num(t, 7, (double)r->dropped, 0);
		gm_table_text(t, 8, "%s", r->path);
		gm_table_num(t, 9, (double)r->repetition, 0);
	}
}

const struct gm_report_table_def gm_report_table_list[] = {
	{ "ranking", 1, gm_report_ranking_table },
	{ "summary", 1, summary },
	{ "improvement", 1, improvement },
	{ "workloads", 0, workloads },
	{ "programs", 0, programs },
	{ "latency", 1, gm_report_latency_table },
	{ "latency-runs", 0, gm_report_latency_runs_table },
	{ "corun", 1, gm_report_corun_table },
	{ "open-loop", 0, gm_report_open_loop_table },
	{ "open-loop-load", 1, gm_report_open_loop_load_table },
	{ "scenarios", 0, gm_report_scenario_table },
	{ "spmd-model", 0, gm_report_spmd_table },
	{ "spmd-deviation", 0, gm_report_spmd_deviation_table },
	{ "waiting", 1, waiting },
	{ "waiting-runs", 0, waiting_runs },
	{ "waiting-split", 0, gm_report_waiting_split_table },
	{ "overlap", 1, overlap },
	{ "overlap-runs", 0, overlap_runs },
	{ "utilization", 1, utilization },
	{ "utilization-runs", 0, utilization_runs },
	{ "probe-sm", 0, gm_report_probe_sm_table },
	{ "probe-kernels", 0, gm_report_probe_kernels_table },
	{ "drivercalls", 0, gm_report_drivercalls_table },
	{ "resources", 0, resources },
	{ "noise", 0, gm_report_noise_table },
	{ "gpu", 0, gm_report_gpu_table },
	{ "elastic", 0, gm_report_elastic_table },
	{ "runs", 0, runs },
	{ "paper", 0, gm_report_paper_table },
};

const size_t gm_report_table_count =
	sizeof(gm_report_table_list) / sizeof(gm_report_table_list[0]);

long gm_report_table_find(const char *name)
{
	for (size_t i = 0; i < gm_report_table_count; i++) {
		if (!strcmp(gm_report_table_list[i].name, name)) {
			return (long)i;
		}
	}
	return -1;
}

void gm_report_tables(const struct gm_analysis *a, struct gm_table *t)
{
	for (size_t i = 0; i < gm_report_table_count; i++) {
		gm_report_table_list[i].build(a, &t[i]);
		/* The row's name is the builder's (a table knows its name). */
		assert(!strcmp(t[i].name, gm_report_table_list[i].name));
	}
}

void gm_report_tables_release(struct gm_table *t)
{
	for (size_t i = 0; i < gm_report_table_count; i++) {
		gm_table_release(&t[i]);
	}
}

void gm_report_tables_json(const struct gm_table *t, size_t n, long only,
			   struct strbuf *out)
{
	int first = 1;

	strbuf_addstr(out, "{\"tables\":[\n");
	for (size_t i = 0; i < n; i++) {
		if (only >= 0 && (long)i != only) {
			continue;
		}
		if (!first) {
			strbuf_addstr(out, ",\n");
		}
		gm_table_json(&t[i], out);
		first = 0;
	}
	strbuf_addstr(out, "\n]}\n");
}
