/* SPDX-License-Identifier: MIT */
/*
 * The numbers Pai et al. report for their Tesla C2070 (Fermi) in
 * "Improving GPGPU Concurrency with Elastic Kernels" (ASPLOS'13), each
 * with the table, figure or section it comes from: the one place they
 * are written down (../shared/PAPER-NOTES.md items 65-75 quote them).
 * The report's comparison page (report_paper.c) puts ours beside them.
 */
#ifndef GM_PAPER_NUMBERS_H
#define GM_PAPER_NUMBERS_H

#include <stddef.h>

/* What a number measures; doc/database.md defines ours. */
enum gm_paper_metric {
	GM_PM_STP_GEOMEAN,	/* Table 4 */
	GM_PM_STP_BEST,
	GM_PM_ANTT_GEOMEAN,
	GM_PM_ANTT_WORST,
	GM_PM_STP_IMPROVEMENT,	/* Table 5: over cuda */
	GM_PM_ANTT_IMPROVEMENT,
	GM_PM_MTSPEEDUP,
	GM_PM_WAIT_MEAN_MS,	/* Fig. 9: mean of the runs' mean waits */
	GM_PM_WAIT_REDUCTION,	/* cuda's mean wait / the variant's */
	GM_PM_EXCLUSIVE_PCT,	/* Fig. 8: share of kernel time, % */
	GM_PM_RUNNING,		/* Fig. 12: average running kernels */
	GM_PM_TIMESLICE_STP,	/* §6.4.5: STP geomean with / without */
	GM_PM_TIMESLICE_ANTT,	/* ANTT geomean without / with */
	GM_PM_COUNT
};

struct gm_paper_number {
	const char *source;	/* "Table 4", "Fig. 9 (§6.4.2)", ... */
	unsigned programs;	/* workload size: 2 or 4 */
	const char *vlabel;	/* "cuda", "elastic+mpmax", ... */
	enum gm_paper_metric metric;
	const char *printed;	/* the number as printed: "1.80" */
	const char *note;	/* how it was read, or NULL */
};

/* The @i-th number in the paper's order; NULL past the last. */
const struct gm_paper_number *gm_paper_number_at(size_t i);

/* The value of @p, and the decimals it was printed with. */
double gm_paper_number_value(const struct gm_paper_number *p,
			     int *decimals);

/* "STP geomean", "mean waiting time (ms)", ...: for tables. */
const char *gm_paper_metric_name(enum gm_paper_metric m);

/* 1 when a higher value is better (STP, improvements, running
 * kernels), 0 when lower is (ANTT, waiting time), -1 when neither
 * (the EXCLUSIVE share). */
int gm_paper_metric_higher_better(enum gm_paper_metric m);

#endif
