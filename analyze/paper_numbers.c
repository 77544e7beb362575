/* SPDX-License-Identifier: MIT */
/*
 * The paper's numbers (see paper_numbers.h), as printed: Tables 4 and 5
 * (two-program workloads, 54 pairs), the four-program results of §6.4.1,
 * the waiting times of Fig. 9 and the running kernels of Fig. 12 (both
 * given in §6.4.2 and §6.4.4's text), Fig. 8's EXCLUSIVE share for cuda,
 * and the timeslicing ablation of §6.4.5 (under MPMAX).
 */
#include "paper_numbers.h"

#include <stdlib.h>
#include <string.h>

static const struct gm_paper_number numbers[] = {
	/* Table 4: overall STP and ANTT, two-program workloads. */
	{ "Table 4", 2, "cuda", GM_PM_STP_GEOMEAN, "1.03", NULL },
	{ "Table 4", 2, "cuda", GM_PM_STP_BEST, "1.24", NULL },
	{ "Table 4", 2, "cuda", GM_PM_ANTT_GEOMEAN, "6.71", NULL },
	{ "Table 4", 2, "cuda", GM_PM_ANTT_WORST, "194.93", NULL },
	{ "Table 4", 2, "nss", GM_PM_STP_GEOMEAN, "1.18", NULL },
	{ "Table 4", 2, "nss", GM_PM_STP_BEST, "1.81", NULL },
	{ "Table 4", 2, "nss", GM_PM_ANTT_GEOMEAN, "3.05", NULL },
	{ "Table 4", 2, "nss", GM_PM_ANTT_WORST, "69.07", NULL },
	{ "Table 4", 2, "elastic+mpmax", GM_PM_STP_GEOMEAN, "1.25", NULL },
	{ "Table 4", 2, "elastic+mpmax", GM_PM_STP_BEST, "2.08", NULL },
	{ "Table 4", 2, "elastic+mpmax", GM_PM_ANTT_GEOMEAN, "1.80", NULL },
	{ "Table 4", 2, "elastic+mpmax", GM_PM_ANTT_WORST, "19.23", NULL },
	{ "Table 4", 2, "elastic+median", GM_PM_STP_GEOMEAN, "1.24", NULL },
	{ "Table 4", 2, "elastic+median", GM_PM_STP_BEST, "1.95", NULL },
	{ "Table 4", 2, "elastic+median", GM_PM_ANTT_GEOMEAN, "1.86", NULL },
	{ "Table 4", 2, "elastic+median", GM_PM_ANTT_WORST, "16.83", NULL },
	{ "Table 4", 2, "elastic+equal", GM_PM_STP_GEOMEAN, "1.18", NULL },
	{ "Table 4", 2, "elastic+equal", GM_PM_STP_BEST, "1.83", NULL },
	{ "Table 4", 2, "elastic+equal", GM_PM_ANTT_GEOMEAN, "1.91", NULL },
	{ "Table 4", 2, "elastic+equal", GM_PM_ANTT_WORST, "30.70", NULL },
	{ "Table 4", 2, "elastic+queuemold", GM_PM_STP_GEOMEAN, "1.18", NULL },
	{ "Table 4", 2, "elastic+queuemold", GM_PM_STP_BEST, "1.79", NULL },
	{ "Table 4", 2, "elastic+queuemold", GM_PM_ANTT_GEOMEAN, "2.08", NULL },
	{ "Table 4", 2, "elastic+queuemold", GM_PM_ANTT_WORST, "17.94", NULL },
	/* Table 5: improvement over cuda, two-program workloads. */
	{ "Table 5", 2, "nss", GM_PM_STP_IMPROVEMENT, "1.15", NULL },
	{ "Table 5", 2, "nss", GM_PM_ANTT_IMPROVEMENT, "2.20", NULL },
	{ "Table 5", 2, "nss", GM_PM_MTSPEEDUP, "1.20", NULL },
	{ "Table 5", 2, "elastic+mpmax", GM_PM_STP_IMPROVEMENT, "1.21", NULL },
	{ "Table 5", 2, "elastic+mpmax", GM_PM_ANTT_IMPROVEMENT, "3.73", NULL },
	{ "Table 5", 2, "elastic+mpmax", GM_PM_MTSPEEDUP, "1.28", NULL },
	{ "Table 5", 2, "elastic+median", GM_PM_STP_IMPROVEMENT, "1.20", NULL },
	{ "Table 5", 2, "elastic+median", GM_PM_ANTT_IMPROVEMENT, "3.62", NULL },
	{ "Table 5", 2, "elastic+median", GM_PM_MTSPEEDUP, "1.24", NULL },
	{ "Table 5", 2, "elastic+equal", GM_PM_STP_IMPROVEMENT, "1.14", NULL },
	{ "Table 5", 2, "elastic+equal", GM_PM_ANTT_IMPROVEMENT, "3.51", NULL },
	{ "Table 5", 2, "elastic+equal", GM_PM_MTSPEEDUP, "1.15", NULL },
	{ "Table 5", 2, "elastic+queuemold", GM_PM_STP_IMPROVEMENT, "1.15", NULL },
	{ "Table 5", 2, "elastic+queuemold", GM_PM_ANTT_IMPROVEMENT, "3.22", NULL },
	{ "Table 5", 2, "elastic+queuemold", GM_PM_MTSPEEDUP, "1.17", NULL },
	/* §6.4.1: four-program workloads without bfs; no table. */
	{ "§6.4.1", 4, "elastic+median", GM_PM_STP_GEOMEAN, "1.21",
	  "the paper's \"average STP\", read as Table 4's geomean" },
	{ "§6.4.1", 4, "elastic+mpmax", GM_PM_ANTT_GEOMEAN, "6.61",
	  "the paper's \"average ANTT\", read as Table 4's geomean" },
	{ "§6.4.1", 4, "elastic+mpmax", GM_PM_ANTT_IMPROVEMENT, "8.9",
	  "\"8.9x better than that of cuda\"" },
	{ "§6.4.1", 4, "elastic+mpmax", GM_PM_MTSPEEDUP, "1.47",
	  "the paper names no policy; its two-program 1.28 is MPMAX's" },
	/* Fig. 8 and Fig. 9, from §6.4.2's text. */
	{ "Fig. 8 (§6.4.2)", 2, "cuda", GM_PM_EXCLUSIVE_PCT, "90",
	  "\"about 90% of the time\"" },
	{ "Fig. 9 (§6.4.2)", 2, "cuda", GM_PM_WAIT_MEAN_MS, "130.5", NULL },
	{ "Fig. 9 (§6.4.2)", 2, "nss", GM_PM_WAIT_MEAN_MS, "11.21", NULL },
	{ "Fig. 9 (§6.4.2)", 2, "elastic+mpmax", GM_PM_WAIT_MEAN_MS, "0.53", NULL },
	{ "Fig. 9 (§6.4.2)", 2, "elastic+median", GM_PM_WAIT_MEAN_MS, "0.96",
	  NULL },
	{ "Fig. 9 (§6.4.2)", 2, "elastic+equal", GM_PM_WAIT_MEAN_MS, "0.51", NULL },
	{ "Fig. 9 (§6.4.2)", 2, "elastic+queuemold", GM_PM_WAIT_MEAN_MS, "1.57",
	  NULL },
	{ "Fig. 9 (§6.4.2)", 2, "nss", GM_PM_WAIT_REDUCTION, "11.6", NULL },
	/* Fig. 12, from §6.4.4's text (MEDIAN and QUEUEMOLD not given). */
	{ "Fig. 12 (§6.4.4)", 2, "cuda", GM_PM_RUNNING, "0.81", NULL },
	{ "Fig. 12 (§6.4.4)", 2, "nss", GM_PM_RUNNING, "0.92", NULL },
	{ "Fig. 12 (§6.4.4)", 2, "elastic+mpmax", GM_PM_RUNNING, "1.23", NULL },
	{ "Fig. 12 (§6.4.4)", 2, "elastic+equal", GM_PM_RUNNING, "1.22", NULL },
	/* §6.4.5: timeslicing on against off, under MPMAX. */
	{ "§6.4.5", 2, "elastic+mpmax", GM_PM_TIMESLICE_STP, "1.033",
	  "all 54 pairs: +3.3% (+7.8% on the 33 timesliced ones)" },
	{ "§6.4.5", 2, "elastic+mpmax", GM_PM_TIMESLICE_ANTT, "1.28",
	  "all 54 pairs (1.55x on the 33 timesliced ones)" },
};

#define NR_NUMBERS (sizeof(numbers) / sizeof(numbers[0]))

const struct gm_paper_number *gm_paper_number_at(size_t i)
{
	return i < NR_NUMBERS ? &numbers[i] : NULL;
}

double gm_paper_number_value(const struct gm_paper_number *p,
			     int *decimals)
{
	const char *dot = strchr(p->printed, '.');

	*decimals = dot ? (int)strlen(dot + 1) : 0;
	return strtod(p->printed, NULL);
}

const char *gm_paper_metric_name(enum gm_paper_metric m)
{
	static const char *const names[GM_PM_COUNT] = {
		[GM_PM_STP_GEOMEAN] = "STP geomean",
		[GM_PM_STP_BEST] = "STP best",
		[GM_PM_ANTT_GEOMEAN] = "ANTT geomean",
		[GM_PM_ANTT_WORST] = "ANTT worst",
		[GM_PM_STP_IMPROVEMENT] = "STP improvement over cuda",
		[GM_PM_ANTT_IMPROVEMENT] = "ANTT improvement over cuda",
		[GM_PM_MTSPEEDUP] = "MTSpeedup over cuda",
		[GM_PM_WAIT_MEAN_MS] = "mean kernel waiting time (ms)",
		[GM_PM_WAIT_REDUCTION] = "waiting time reduction over cuda",
		[GM_PM_EXCLUSIVE_PCT] = "EXCLUSIVE share of kernel time (%)",
		[GM_PM_RUNNING] = "average running kernels",
		[GM_PM_TIMESLICE_STP] = "STP geomean, timeslicing on / off",
		[GM_PM_TIMESLICE_ANTT] = "ANTT geomean, timeslicing off / on",
	};
	return (unsigned)m < GM_PM_COUNT ? names[m] : "?";
}

int gm_paper_metric_higher_better(enum gm_paper_metric m)
{
	switch (m) {
	case GM_PM_ANTT_GEOMEAN:
	case GM_PM_ANTT_WORST:
	case GM_PM_WAIT_MEAN_MS:
		return 0;
	case GM_PM_EXCLUSIVE_PCT:
		return -1;
	case GM_PM_STP_GEOMEAN:
	case GM_PM_STP_BEST:
	case GM_PM_STP_IMPROVEMENT:
	case GM_PM_ANTT_IMPROVEMENT:
	case GM_PM_MTSPEEDUP:
	case GM_PM_WAIT_REDUCTION:
	case GM_PM_RUNNING:
	case GM_PM_TIMESLICE_STP:
	case GM_PM_TIMESLICE_ANTT:
	case GM_PM_COUNT:
		break;
	}
	return 1;
}
