/* SPDX-License-Identifier: MIT */
/*
 * The execution models of N identical programs sharing one GPU (see
 * spmd_model.h; the equations' numbers are Li et al.'s, section 4.3).
 */
#include "spmd_model.h"

#include <stddef.h>

static uint64_t div_up(uint64_t a, uint64_t b)
{
	return a / b + (a % b != 0);
}

static unsigned nmax(const struct gm_spmd_kernel *kern,
		     const struct gm_spmd_device *dev)
{
	unsigned n = kern->blocks_per_sm;

	if (dev->max_blocks_per_sm && n > dev->max_blocks_per_sm) {
		n = dev->max_blocks_per_sm;
	}
	return n;
}

double gm_spmd_round_time(const struct gm_spmd_kernel *kern, unsigned k,
			  int *extrapolated)
{
	unsigned n = kern->t_round ? kern->nr_rounds : 0;

	if (extrapolated) {
		*extrapolated = k > n;
	}
	if (!k || !n) {
		return 0;
	}
	if (k <= n) {
		return kern->t_round[k - 1];
	}
	if (n == 1) {
		return k * kern->t_round[0];	/* no latency hidden */
	}
	return kern->t_round[n - 1] +
	       (k - n) * (kern->t_round[n - 1] - kern->t_round[n - 2]);
}

double gm_spmd_stretch(const struct gm_spmd_kernel *kern, unsigned k)
{
	return gm_spmd_round_time(kern, k + 1, NULL) -
	       gm_spmd_round_time(kern, k, NULL);		/* (11) */
}

double gm_spmd_rounds_time(const struct gm_spmd_kernel *kern, unsigned copies,
			   const struct gm_spmd_device *dev)
{
	unsigned m = nmax(kern, dev);
	uint64_t blocks = kern->grid_blocks * copies, per_round, rounds, last;

	if (!blocks || !m || !dev->sm_count) {
		return 0;
	}
	per_round = (uint64_t)m * dev->sm_count;
	rounds = div_up(blocks, per_round);			/* (17) */
	last = blocks - (rounds - 1) * per_round;		/* (15) */
	/* (rounds - 1) full rounds, each T(Nmax) - T(0) (14), and the last
	 * with ceil(F / N_SM) blocks per SM (16) */
	return (double)(rounds - 1) * gm_spmd_round_time(kern, m, NULL) +
	       gm_spmd_round_time(kern, (unsigned)div_up(last, dev->sm_count),
				  NULL);
}

double gm_spmd_comp_stretch(const struct gm_spmd_kernel *kern,
			    unsigned copies, const struct gm_spmd_device *dev)
{
	if (copies <= 1) {
		return 0;
	}
	/* exclusive space: C(N) = C(1) = T(1), 0 (10); non-exclusive: one
	 * round each, T(N2) - T(N1) (12); space-time: T(Nmax) - T(N1) +
	 * (R - 2) T(Nmax) + T(ceil(F / N_SM)) (13)-(18); time: the rounds
	 * beyond one copy's (19) */
	return (kern->launches ? kern->launches : 1) *
	       (gm_spmd_rounds_time(kern, copies, dev) -
		gm_spmd_rounds_time(kern, 1, dev));
}

enum gm_scenario gm_spmd_kernel_scenario(const struct gm_spmd_kernel *kern,
					 unsigned copies,
					 const struct gm_spmd_device *dev)
{
	return gm_scenario_classify(kern->grid_blocks, copies, nmax(kern, dev),
				    dev->sm_count);
}

static double comp_time(const struct gm_spmd_program *p)
{
	double t = 0;

	for (unsigned i = 0; i < p->nr_kernels; i++) {
		t += p->kernels[i].t_comp;
	}
	return t;
}

/*
 * Copy-bound when either direction's copies take as long as the
 * kernels. The paper writes Tin >= Tcomp; eq. (20) itself is symmetric
 * in Tin and Tout, and a program whose results dominate (lbm on an
 * H200: Tin 42, Tcomp 50, Tout 195 ms) is as copy-bound as one whose
 * inputs do (doc/spmd-model.md has the measurement).
 */
int gm_spmd_io_intensive(const struct gm_spmd_program *p)
{
	double copies = p->t_in > p->t_out ? p->t_in : p->t_out;

	return copies > 0 && copies >= comp_time(p);
}

double gm_spmd_predict(const struct gm_spmd_program *p, unsigned copies,
		       const struct gm_spmd_device *dev)
{
	double t, comp = comp_time(p);

	if (!copies) {
		return 0;
	}
	if (gm_spmd_io_intensive(p)) {
		if (dev->copy_engines < 2) {
			return copies * (p->t_in + p->t_out) + comp;
		}
		return copies * (p->t_in > p->t_out ? p->t_in : p->t_out) +
		       comp + (p->t_in < p->t_out ? p->t_in : p->t_out); /* (20) */
	}
	t = copies * (p->t_in + p->t_out) + comp;		/* (10) */
	for (unsigned i = 0; i < p->nr_kernels; i++) {
		t += gm_spmd_comp_stretch(&p->kernels[i], copies, dev);
	}							/* (12), (18), (19) */
	return t;
}

double gm_spmd_native(const struct gm_spmd_program *p, unsigned copies,
		      const struct gm_spmd_device *dev)
{
	if (!copies) {
		return 0;
	}
	return copies * (p->t_init + p->t_in + comp_time(p) + p->t_out) +
	       (copies - 1) * dev->t_ctx_switch;			/* (9) */
}

double gm_spmd_ps2(const struct gm_spmd_program *p, unsigned copies)
{
	return p->t_in + copies * comp_time(p) + p->t_out;	/* (21) */
}

enum gm_scenario gm_spmd_program_scenario(const struct gm_spmd_program *p,
					  unsigned copies,
					  const struct gm_spmd_device *dev)
{
	double in[GM_NR_SCENARIOS] = { 0 };
	enum gm_scenario best = GM_SCENARIO_NONE;

	if (!p->nr_kernels) {
		return GM_SCENARIO_NONE;
	}
	if (gm_spmd_io_intensive(p)) {
		return GM_SCENARIO_TIME;
	}
	for (unsigned i = 0; i < p->nr_kernels; i++) {
		in[gm_spmd_kernel_scenario(&p->kernels[i], copies, dev)] +=
			p->kernels[i].t_comp;
	}
	for (int s = 0; s < GM_SCENARIO_NONE; s++) {
		if (best == GM_SCENARIO_NONE ? in[s] > 0 : in[s] > in[best]) {
			best = (enum gm_scenario)s;
		}
	}
	return best;
}
