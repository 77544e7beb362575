/* SPDX-License-Identifier: MIT */
/*
 * Multiprogram throughput metrics (Eyerman & Eeckhout, used by Pai et al.
 * with run times in place of cycles). For a workload of n programs with
 * alone times T_i^SP (mean kept replay time in the `single` run) and
 * multiprogram times T_i^MP (mean kept replay time in the variant's run):
 *   STP  = sum_i T_i^SP / T_i^MP          (higher is better, at most n)
 *   ANTT = (1/n) sum_i T_i^MP / T_i^SP    (lower is better, at least 1
 *                                          when sharing only slows)
 *   workload time = max_i T_i^MP          (the workload as one program)
 *   MTSpeedup = workload time under cuda / workload time under the variant
 */
#ifndef GM_METRICS_STP_H
#define GM_METRICS_STP_H

#include <stddef.h>

/* STP of @n programs; NAN when @n is 0 or a time is not positive. */
double gm_stp(const double *alone, const double *mp, size_t n);

/* ANTT of @n programs; NAN as for gm_stp(). */
double gm_antt(const double *alone, const double *mp, size_t n);

/* max of @n times; NAN when @n is 0 or a time is NAN. */
double gm_workload_time(const double *mp, size_t n);

#endif
