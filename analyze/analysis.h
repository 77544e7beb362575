/* SPDX-License-Identifier: MIT */
/*
 * Every metric of a study, computed from a results database: per program
 * (multiprogram and alone times), per run (STP, ANTT, workload time,
 * MTSpeedup, waiting time, overlap categories, running kernels,
 * utilization), per variant (pooled waiting time, overlap fractions,
 * means of the per-run averages), across workloads (the paper's Tables 4
 * and 5), the resource table (Table 2), and the kernel instances of one
 * chosen run for Fig. 7 and the timeline. doc/database.md defines each
 * number; report.c turns this into tables and figures.
 *
 * Only runs with status ok enter the metrics; the others are listed with
 * a note. Values that cannot be computed are NAN, with a note saying why
 * (e.g. no `single` run of a workload's programs: no STP/ANTT for it, the
 * other metrics still are).
 *
 * A study's runs may come in repetitions (runs.repetition): every metric
 * of a run is computed within its repetition (the alone times and the
 * reference run are those of the same repetition), and each workload
 * under each variant label is a cell whose metrics have a mean and a 95%
 * confidence interval over its repetitions (interval.h); the aggregates
 * across workloads are computed per repetition and interval-ed over the
 * repetitions (doc/database.md, "Intervals").
 *
 * Which variant gives the alone times (GM_VARIANT_ALONE, `single`) and
 * which one the others are compared with (GM_VARIANT_REFERENCE, `cuda`)
 * comes from the variant table (common/variant.h), as does the order of
 * the variants; every other variant is treated alike.
 */
#ifndef GM_ANALYSIS_H
#define GM_ANALYSIS_H

#include <stddef.h>
#include <stdint.h>

#include "corun_slowdown.h"
#include "db.h"
#include "elastic_counters.h"
#include "interval.h"
#include "metrics_latency.h"
#include "metrics_overlap.h"
#include "occupancy.h"
#include "sm_time.h"

enum gm_wait_split {
	GM_WAIT_API_QUEUED,		/* launch call start -> queued */
	GM_WAIT_QUEUED_SUBMITTED,	/* queued -> submitted */
	GM_WAIT_SUBMITTED_START,	/* submitted -> kernel start */
	GM_WAIT_SPLITS
};

enum gm_util_kind {
	GM_UTIL_THREADS,
	GM_UTIL_REGISTERS,
	GM_UTIL_SHARED,
	GM_UTIL_BLOCKS,
	GM_UTIL_KINDS
};

/*
 * What the noise diagnostics find unusual about a run (analysis_noise.c,
 * doc/database.md "Noise"): a program's replay-time CV above
 * GM_NOISE_CV_HIGH, or above GM_NOISE_CV_FACTOR times the study's median
 * CV and GM_NOISE_CV_FLOOR; a throttle reason of power or heat at the
 * start or end (sw_power_cap, hw_slowdown, sw_thermal, hw_thermal,
 * hw_power_brake); the SM clock changing by more than GM_NOISE_CLOCK
 * between start and end (neither reading idle); the end clock more than
 * GM_NOISE_CLOCK below the median end clock of the runs on that device.
 */
enum gm_noise {
	GM_NOISE_CV = 1,
	GM_NOISE_THROTTLE = 2,
	GM_NOISE_CLOCK_CHANGE = 4,
	GM_NOISE_CLOCK_LOW = 8,
};
#define GM_NOISE_CV_HIGH 0.10
#define GM_NOISE_CV_FACTOR 3.0
#define GM_NOISE_CV_FLOOR 0.02
#define GM_NOISE_CLOCK 0.10

struct gm_wait_stats {
	size_t n;			/* kernels with a launch call */
	double mean, median, p95;	/* ns */
	size_t split_n;			/* kernels with queued/submitted */
	double split_mean[GM_WAIT_SPLITS];
};

/* A run's block probe (analysis_probe.c; doc/database.md). */
struct gm_an_probe_kernel {
	int program;			/* index into the run's programs */
	char *kernel;			/* short name */
	size_t launches, probed;
	char *why;			/* why one was not probed, or NULL */
	size_t nwait;			/* probed launches with a launch call */
	double first_ns, last_ns;	/* mean launch call start -> first and
					   last block start */
	double sms_mean;		/* distinct SMs a launch had */
	int64_t sms_min;
};

struct gm_an_probe {
	int64_t t0, t1;			/* the SM-time window */
	int offset_known;
	int64_t clock_offset;		/* CUPTI - %globaltimer, ns */
	size_t launches, probed;
	int64_t blocks;
	struct gm_sm_time sm;		/* sm_time.h */
	struct gm_sm_segments seg;	/* by start time */
	struct gm_an_probe_kernel *k;	/* by program, then kernel */
	size_t nk;
};

/* The replay's own driver calls in the timed part, per program and call. */
struct gm_an_drivercall {
	int program;
	char *call, *kind;
	int64_t count, total_ns, max_ns;
};

struct gm_an_program {
	int64_t id;
	char *name, *bundle;
	size_t kept;			/* kept replays */
	double mp_ns;			/* mean kept replay time (this run) */
	double replay_cv;		/* programs.replayCv; NAN: none */
	int cv_unusual;			/* GM_NOISE_CV for this program */
	double alone_ns;		/* from the baseline; NAN when none */
	const char *alone_from;		/* baseline run's label (borrowed) */
	const struct gm_an_run *alone_run;	/* baseline run (borrowed) */
	const struct gm_an_program *alone_prog;	/* baseline (borrowed) */
	int high_priority;		/* the run's `priority.program` */
	struct gm_latency lat;		/* kept replays' percentiles and
					   their slowdown (metrics_latency.h) */
	/* Its kernels' waiting split (analysis_probe.c): kernels with a
	 * launch call, mean wait, of which queued behind the work before
	 * it in its stream, and waiting for SMs (ns; NAN: none). */
	size_t ws_n;
	double ws_wait, ws_own, ws_sm;
};

struct gm_an_run {
	int64_t id;
	char *path, *workload, *variant, *policy, *status, *failure;
	char *label;			/* workload.variant[.policy][.one-shot]
					   [.rR] */
	int64_t repetition;		/* runs.repetition */
	char *vlabel;			/* variant[+policy][+one-shot] */
	int one_shot;			/* runs.oneShot */
	char *open_loop;		/* runs.openLoop: its point of an
					   open-loop sweep ("load0.5"), "" */
	char *device_name, *device_cc;
	char *hostname, *gpu;		/* runs.hostname, runs.gpu; NULL:
					   not in the run's manifest */
	char *elastic;			/* runs.elastic: "off", "identity",
					   "policy" or a fixed grid mode */
	double timeslice_us;		/* runs.timesliceUs, NAN: none */
	/* The GPU at the start [0] and end [1] (runs.gpuStart*, gpuEnd*):
	 * SM clock (MHz) and temperature, -1 when absent; the throttle
	 * reasons' names, NULL when absent. */
	int64_t gpu_clock[2], gpu_temp[2];
	char *gpu_throttle[2];
	unsigned noise;			/* enum gm_noise bits */
	int64_t copy_chunk;		/* runs.copyChunk, -1: none */
	/* runs.elastic*Launches (elastic_counters.h), -1: none */
	int64_t elastic_counters[GM_ELASTIC_COUNTERS_NR];
	struct gm_device_limits dev;
	int64_t dropped, kernel_count;
	int ok;
	int alone;			/* of the alone-time variant (single) */
	int reference;			/* of the comparison baseline (cuda),
					   without a policy */
	size_t vindex;			/* index into gm_analysis.variants */
	size_t cell;			/* index into gm_analysis.cells (ok
					   runs only) */
	size_t nprog;
	struct gm_an_program *progs;
	size_t nreplays;
	int64_t span_start, span_end;	/* replay span (ns); see database.md */

	double stp, antt, wl_time_ns, mtspeedup;
	struct gm_wait_stats wait;
	size_t no_api, no_ts, no_fit;
	double cat_ns[GM_OVERLAP_COUNT];
	size_t cat_n[GM_OVERLAP_COUNT];
	double running;
	double util[GM_UTIL_KINDS];

	const char *scenario;		/* the sharing scenario its kernels
					   spent the most time in (static,
					   common/sharing_scenario.h), NULL:
					   none classified */

	size_t nnames;			/* kernel instances per short name */
	int64_t (*names)[2];		/* (shortName id, count) */

	struct gm_an_probe *probe;	/* NULL: no block probe */
	struct gm_an_drivercall *dc;	/* by program, then total, longest
					   first */
	size_t ndc;
};

/* One program of a cell: its metrics over the cell's repetitions. */
struct gm_an_cell_program {
	const char *name;		/* borrowed from the runs */
	int high_priority;
	size_t kept;			/* kept replays, all repetitions */
	char *alone_from;		/* the alone run's label without its
					   repetition (owned), NULL: none */
	struct gm_ci mp, alone;		/* T_MP and T_SP (ns) */
	struct gm_ci speed;		/* T_SP / T_MP */
	struct gm_ci p[GM_LAT_PCTS];	/* replay-time percentiles (ns) */
	struct gm_ci slowdown[GM_LAT_PCTS];
};

/*
 * A cell: one workload under one variant label, over the repetitions it
 * ran ok (its runs, by repetition). Each metric is the mean over the
 * repetitions that have it, with its interval (n/a with one).
 */
struct gm_an_cell {
	const char *workload, *vlabel;	/* borrowed from the runs */
	size_t vindex, nprog;
	int alone, reference;
	size_t nruns;
	const struct gm_an_run **runs;	/* owned array of borrowed runs */
	struct gm_ci stp, antt, wl_time, mtspeedup;
	struct gm_an_cell_program *progs;	/* owned, nprog of them */
};

struct gm_an_variant {
	char *label;
	size_t runs;			/* ok runs */
	struct gm_wait_stats wait;	/* pooled over its kernels */
	double cat_ns[GM_OVERLAP_COUNT];
	size_t cat_n[GM_OVERLAP_COUNT];
	double running;			/* mean over its runs */
	double util[GM_UTIL_KINDS];	/* mean over its runs */
};

/*
 * One row of Tables 4 and 5: a variant label at one workload size. The
 * geometric means are over the workloads that have the metric in every
 * repetition the label ran (others are left out, with a note), computed
 * per repetition and interval-ed over the repetitions; the improvements
 * pair each workload and repetition with the reference's (cuda's).
 */
struct gm_an_summary {
	size_t programs;		/* programs per workload */
	const char *vlabel;		/* borrowed from the variant */
	size_t workloads;		/* with an STP */
	size_t repetitions;		/* the geomeans' repetitions */
	struct gm_ci stp_geo, antt_geo;
	struct gm_ci stp_best, antt_worst;	/* the extreme cells' */
	size_t common;			/* ... also with an STP under the
					   reference variant (cuda) */
	struct gm_ci stp_imp, antt_imp;
	size_t mt_n;			/* workloads with both workload times */
	struct gm_ci mtspeedup;		/* geomean over them */
};

/* Latency per workload size and variant label (analysis_latency.c). */
struct gm_an_latency {
	size_t programs;		/* programs per workload */
	const char *vlabel;		/* borrowed from the variant */
	size_t n;			/* program runs with a p99 slowdown */
	struct gm_ci p50_geo, p99_geo;	/* per repetition, over its programs */
	double p99_worst;
	const char *worst_run;		/* where p99_worst is (borrowed): */
	const char *worst_program;	/* run label and program name */
	size_t high_n;			/* ... of high-priority programs */
	double high_p99_geo, high_p99_worst;
	double other_p99_geo;		/* the other programs of the runs
					   that have a high-priority one */
	size_t high_ref_n;		/* high-priority programs that also
					   have a p99 slowdown in the
					   reference run (cuda) ... */
	double high_ref_p99_geo;	/* ... and its geomean there */
};

/*
 * One row of the ranking (analysis_ranking.c): a variant label at one
 * workload size, over the workloads every ranked variant ran.
 */
struct gm_an_rank {
	size_t programs;		/* programs per workload */
	const char *vlabel;		/* borrowed from the variant */
	size_t workloads;		/* the common workloads */
	size_t left_out;		/* workloads of that size some ranked
					   variant did not run ok */
	size_t repetitions;		/* the common repetitions */
	struct gm_ci stp_geo, antt_geo;	/* over the common workloads */
	struct gm_ci p99_geo;		/* p99 slowdown over their programs */
	struct gm_ci stp_top;		/* STP / the first row's, paired */
	size_t best_stp;		/* common workloads where no variant
					   has a higher STP */
	/* 1 = best. With 2 repetitions or more, 1 + the variants whose
	 * paired ratio's interval says they are better (so variants that
	 * cannot be told apart share a rank); with one, by value. */
	size_t rank_stp, rank_antt, rank_p99;
	int by_interval;		/* ranked by intervals */
};

/*
 * A program of a co-run under one mechanism (analysis_corun.c): its
 * native slowdown and the replayed one of the one-shot replays.
 */
struct gm_an_corun {
	char *workload, *mechanism, *program;
	size_t coruns;			/* co-runs (repetitions) pooled */
	struct gm_corun_slowdown native;	/* corun_slowdown.h */
	size_t replays;			/* one-shot runs with both times */
	double replayed, replayed_sd;	/* mean and sd of their slowdowns */
	double ratio;			/* replayed / native mean */
	int differs;			/* by more than GM_CORUN_TOLERANCE */
};

/* How far apart replayed and native slowdowns may be: 5%. */
#define GM_CORUN_TOLERANCE 0.05

struct gm_an_resource {
	char *device, *program, *kernel;
	int64_t grid, tpb, regs, smem, instances;
	double t, r, s, b;		/* shares of the whole GPU, 0..1 */
	unsigned limiting;		/* GM_RES_* bits */
	int fits;
};

struct gm_an_kernel {
	int64_t start, end;
	int64_t stream;			/* CUPTI stream id */
	int program;
	unsigned char category;		/* enum gm_overlap */
	unsigned char chosen;		/* an instance of the focus kernel */
};

struct gm_an_replay {
	int64_t replay, start, end;
	int program;
};

/*
 * One open-loop program of an ok run (analysis_open_loop.c;
 * doc/database.md "Open-loop metrics"): its requests' latency (end -
 * arrival), queueing delay (start - arrival) and service time (end -
 * start); the SLO attainment at its target; the offered and achieved
 * request rates, the load (offered rate x alone service time) and the
 * batch programs' throughput relative to alone.
 */
enum gm_ol_pct { GM_OL_P50, GM_OL_P95, GM_OL_P99, GM_OL_P999, GM_OL_PCTS };

struct gm_an_open_loop {
	const struct gm_an_run *run;	/* borrowed */
	size_t prog;			/* index into run->progs */
	char *arrivals, *slo;		/* open_loop.arrivals, .slo */
	int64_t seed;
	size_t n;			/* requests */
	double *latency;		/* ns, sorted ascending (the CDF) */
	double lat[GM_OL_PCTS];		/* ns */
	double queue_mean, service_mean;	/* ns */
	double slo_ns;			/* NAN: a relative target, no alone
					   time */
	double slo_attained;		/* fraction of requests within the
					   target, NAN without one */
	double offered_rate, achieved_rate;	/* requests/s */
	double alone_ns;		/* its alone service time, NAN */
	double load;			/* offered rate x alone_ns, NAN */
	size_t nbatch;			/* batch programs with an alone time */
	double batch_speed;		/* mean over them of alone / MP time,
					   NAN without */
};

/*
 * Li et al.'s model against the measurement (analysis_spmd.c,
 * doc/spmd-model.md): one ok run of N copies of one program.
 */
struct gm_an_spmd {
	const struct gm_an_run *run;	/* borrowed */
	char *program;			/* the copies' program */
	unsigned copies;		/* N */
	const char *scenario;		/* the model's (static) */
	int io_intensive;		/* Tin >= Tcomp: eq. (20) */
	double t_in, t_comp, t_out;	/* of the alone run, ms per replay */
	double alone_ms;		/* its alone replay time */
	double measured_ms;		/* the slowest copy's mean replay */
	double predicted_ms;
	double deviation;		/* |predicted - measured| / measured */
	size_t kernels;			/* kernels of the program */
	size_t no_stretch;		/* of which without a T(k) */
	size_t extrapolated;		/* of which T(Nmax) extrapolated */
};

/* The copy engines the predictor assumes (the manifest does not record
 * asyncEngineCount): copies in and out overlap, as on an H100. */
#define GM_AN_SPMD_COPY_ENGINES 2

struct gm_analysis {
	size_t nruns;
	struct gm_an_run *runs;		/* by workload, label, repetition */
	size_t ncells;
	struct gm_an_cell *cells;	/* by workload, then label */
	struct gm_ci_opts ci;		/* how intervals are computed */
	size_t nvariants;
	/*
	 * The labels the runs have ("variant" or "variant+policy", with
	 * "+one-shot" for one-shot runs), in
	 * gm_variant_rank() order: the variant table's order, each
	 * variant's policies after it, labels the table does not know last
	 * (by name); runs of one workload are in this order too.
	 */
	struct gm_an_variant *variants;
	size_t nsummary;
	struct gm_an_summary *summary;
	size_t nlatency;
	struct gm_an_latency *latency;	/* in the summary's order */
	size_t nranking;
	struct gm_an_rank *ranking;	/* by size, then STP rank */
	size_t nresources;
	struct gm_an_resource *resources;
	size_t ncoruns;
	struct gm_an_corun *coruns;	/* by workload, mechanism, program */
	size_t nopen_loop;
	struct gm_an_open_loop *open_loop;	/* in run order, then program */
	size_t nspmd;
	struct gm_an_spmd *spmd;	/* in run order */
	int resources_from_alone;	/* 1: alone (single) runs only */
	const char *alone_variant;	/* its name, "single" (static) */
	const char *reference_variant;	/* the comparison baseline, "cuda" */
	/* Which kernels the ok runs ran (same_kernels.c): "all variants ran
	 * the same transformed kernels (...)", "the variants ran different
	 * code: ...", ...; NULL without ok runs. */
	char *kernels;
	int same_kernels;		/* 1 when all ran the same code */
	size_t nnotes;
	char **notes;
	double median_cv;		/* of the ok runs' programs; NAN */
	size_t no_gpu_state;		/* ok runs without GPU readings */

	char *focus_kernel;		/* short name, or NULL */
	const struct gm_an_run *focus_run;
	size_t nfocus;
	struct gm_an_kernel *focus;	/* every kernel of focus_run */
	size_t focus_instances;
	size_t nfocus_replays;
	struct gm_an_replay *focus_replays;	/* focus_run's, by program
						   and replay */
};

struct gm_analysis_options {
	const char *kernel;	/* Fig. 7 kernel (short, demangled or mangled) */
	const char *run;	/* Fig. 7/timeline run label */
	struct gm_ci_opts ci;	/* interval method ({0}: t) */
	int metrics_only;	/* 1: programs, STP, latency and intervals
				   only (no kernel metrics, no Fig. 7) */
};

/*
 * Compute everything for the database @db (opened GM_DB_READ). Returns 0,
 * or -1 (cause recorded) on a database error or an option naming a
 * kernel or run that does not exist. Release @a either way.
 */
int gm_analysis_compute(struct gm_analysis *a, struct gm_db *db,
			const struct gm_analysis_options *opt);

/* Free everything @a owns (safe after a failed compute) and zero it. */
void gm_analysis_release(struct gm_analysis *a);

#endif
