/* SPDX-License-Identifier: MIT */
/*
 * The execution models of N identical programs sharing one GPU (Li,
 * Narayana, El-Ghazawi, section 4.3, eqs. (9)-(21); PAPER-NOTES 2.3):
 * the predicted time of N copies of a program, from one copy's measured
 * copy-in, compute and copy-out times and its kernels' SM time stretch,
 * in the sharing scenario common/sharing_scenario.h gives. The device
 * terms are the H100's where the paper had a Fermi's: the SM count and
 * the blocks per SM come from the occupancy calculator (its 32-block
 * cap included), and the copy engines are counted (one engine makes
 * copies in and out take turns).
 *
 * Times are in any one unit (gpumix uses ms). T(k), the time of one SM
 * round with k blocks on every SM (each block one logical block's work),
 * is measured for k = 1 .. n by `gpumix scale --stretch` (T(k) is the
 * elastic run's time with k * N_SM physical blocks times k * N_SM /
 * Nblks, doc/spmd-model.md); T(0) = 0. Pure arithmetic, for the report
 * and its tests.
 */
#ifndef GM_SPMD_MODEL_H
#define GM_SPMD_MODEL_H

#include <stdint.h>

#include "sharing_scenario.h"

/* One kernel of a program, as one copy alone runs it. */
struct gm_spmd_kernel {
	uint64_t grid_blocks;	/* Nblks_per_knl */
	unsigned blocks_per_sm;	/* Nmax_blks_per_SM (occupancy, cap in) */
	double t_comp;		/* its GPU time alone, all its launches */
	unsigned launches;	/* its launches per copy; the round model is
				 * one launch's, so each adds its stretch
				 * (0 counts as 1: the paper's one launch) */
	const double *t_round;	/* T(1) .. T(nr_rounds), may be NULL */
	unsigned nr_rounds;
};

/* One program: its copies in and out and its kernels. */
struct gm_spmd_program {
	double t_in, t_out;	/* Tdata_in, Tdata_out of one copy */
	double t_init;		/* Tinit (eq. 9 only) */
	const struct gm_spmd_kernel *kernels;
	unsigned nr_kernels;
};

struct gm_spmd_device {
	unsigned sm_count;	/* N_SM: 132 on an H100 */
	unsigned max_blocks_per_sm;	/* the hardware cap: 32 on sm_90 */
	unsigned copy_engines;	/* asyncEngineCount: >= 2 lets copies in
				 * and out overlap (eq. 20) */
	double t_ctx_switch;	/* Tctx_switch (eq. 9 only) */
};

/*
 * T(@k) of @kern: 0 for k = 0; the measured T(k) for k <= nr_rounds;
 * beyond, the last measured stretch continued (T(n) + (k - n) *
 * (T(n) - T(n - 1))), or, with one point, k * T(1): the paper's
 * "increasing without latency hiding" line. @extrapolated, when not
 * NULL, is set to 1 when k is beyond the measured points. A kernel with
 * no point gives 0.
 */
double gm_spmd_round_time(const struct gm_spmd_kernel *kern, unsigned k,
			  int *extrapolated);

/* Eq. (11): TSM_str(k) = T(k + 1) - T(k). */
double gm_spmd_stretch(const struct gm_spmd_kernel *kern, unsigned k);

/*
 * The compute time of @copies copies of @kern under the round model of
 * eqs. (12)-(17): with R = ceil(Nblks * N / (N_SM * Nmax)) rounds and
 * F = Nblks * N - (R - 1) * Nmax * N_SM blocks in the last,
 * C(N) = (R - 1) * T(Nmax) + T(ceil(F / N_SM)). Nmax is the kernel's
 * blocks per SM under the device's cap.
 */
double gm_spmd_rounds_time(const struct gm_spmd_kernel *kern, unsigned copies,
			   const struct gm_spmd_device *dev);

/*
 * The stretch of @kern's compute time when @copies copies share the GPU:
 * Tcomp(N) - Tcomp = L (C(N) - C(1)), L its launches (the paper's
 * programs launch their kernel once; the copies of a kernel launched L
 * times meet L times, each launch a round model of its own). Under the kernel's scenario this is
 * 0 (exclusive space, eq. 10); sum_{i=N1}^{N2-1} TSM_str(i) with
 * N1 = ceil(Nblks / N_SM), N2 = ceil(Nblks * N / N_SM) (non-exclusive,
 * eq. 12); Tfs_rnd_str + (R - 2) * Tfull_rnd_str + Tls_rnd_str
 * (space-time, eqs. 13-18). For time sharing (eq. 19) the printed form
 * adds the rounds of all N copies to the one copy's Tcomp, which holds
 * rounds of its own (N = 1 would predict twice Tcomp): gpumix adds only
 * the rounds beyond one copy's, the same difference, which equals the
 * printed form wherever one copy fits in one round.
 */
double gm_spmd_comp_stretch(const struct gm_spmd_kernel *kern,
			    unsigned copies, const struct gm_spmd_device *dev);

/* The scenario of @kern's @copies copies (sharing_scenario.h, Nmax under
 * the device's cap). */
enum gm_scenario gm_spmd_kernel_scenario(const struct gm_spmd_kernel *kern,
					 unsigned copies,
					 const struct gm_spmd_device *dev);

/*
 * Whether @p is I/O-intensive (section 4.3.2): Tdata_in >= Tcomp, its
 * compute the sum of its kernels'. Such a program is always time shared.
 */
int gm_spmd_io_intensive(const struct gm_spmd_program *p);

/*
 * The predicted time of @copies copies of @p sharing the GPU through
 * streams (PS-1): a compute-intensive program takes
 * N * (Tin + Tout) + sum over kernels of (Tcomp + C(N) - C(1))
 * (eqs. 10, 12, 18, 19 per kernel); an I/O-intensive one eq. (20),
 * N * max(Tin, Tout) + Tcomp + min(Tin, Tout), when the device has two
 * copy engines or more, else N * (Tin + Tout) + Tcomp (one engine: the
 * copies in and out take turns). 0 copies give 0.
 */
double gm_spmd_predict(const struct gm_spmd_program *p, unsigned copies,
		       const struct gm_spmd_device *dev);

/* Eq. (9): the native sequential sharing of @copies processes,
 * N * (Tinit + Tin + Tcomp + Tout) + (N - 1) * Tctx_switch. */
double gm_spmd_native(const struct gm_spmd_program *p, unsigned copies,
		      const struct gm_spmd_device *dev);

/* Eq. (21): time sharing under PS-2 (I/O concurrency),
 * Tin + N * Tcomp + Tout. */
double gm_spmd_ps2(const struct gm_spmd_program *p, unsigned copies);

/*
 * The scenario of @p's @copies copies: time for an I/O-intensive
 * program, else the scenario its kernels spend the most compute time in
 * (their Tcomp; the first in the order of enum gm_scenario on a tie);
 * GM_SCENARIO_NONE without kernels.
 */
enum gm_scenario gm_spmd_program_scenario(const struct gm_spmd_program *p,
					  unsigned copies,
					  const struct gm_spmd_device *dev);

#endif
