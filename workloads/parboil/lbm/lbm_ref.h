/* SPDX-License-Identifier: MIT */
/*
 * lbm's host side in plain C: the problem (a D3Q19 lattice split into
 * compartments along z by solid walls), its deterministic generator, the
 * -i/-o file formats, the CPU reference of one time step and the checks
 * the program applies to the GPU result. Compiled into the program by
 * nvcc and into libparboil-ref.a by gcc for the unit tests.
 */
#ifndef PB_LBM_REF_H
#define PB_LBM_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_LBM_STEPS 200	/* time steps (kernel launches) by default */
#define PB_LBM_NCY 4		/* compartments along y by default */
#define PB_LBM_NCZ 16		/* compartments along z by default */

/*
 * One problem. Cells are numbered cell = (z * ny + y) * nx + x; the
 * populations are stored direction-major, f[i * n + cell] (n cells). The
 * lattice is periodic in x and cut into ncy x ncz compartments (ducts
 * along x) of ny / ncy by nz / ncz cells: the first and last plane of
 * each compartment in y and in z are solid, which makes the compartments
 * independent of each other. Compartment k = kz * ncy + ky.
 */
struct pb_lbm_problem {
	int nx, ny, nz;
	int ncy, ncz;
	int steps;
	float omega;		/* BGK relaxation rate, 0 < omega < 2 */
	float force;		/* body force along +x per cell and step */
	unsigned char *flags;	/* n bytes: 1 = solid, 0 = fluid */
	float *f;		/* 19 * n populations (post-collision form) */
};

/* Number of cells. */
size_t pb_lbm_cells(const struct pb_lbm_problem *p);

/* Number of compartments. */
int pb_lbm_compartments(const struct pb_lbm_problem *p);

/*
 * Lattice dimensions for @scale (1.0: 128 x 128 x 192 in 4 x 16
 * compartments of 128 x 32 x 12): every dimension grows with
 * cbrt(scale). Returns 0, or -1 (message in @err) when the lattice would
 * exceed 2^31 floats.
 */
int pb_lbm_dims(double scale, int *nx, int *ny, int *nz, char *err,
		size_t errlen);

/*
 * Fill @p with the deterministic problem of those dimensions: walls,
 * spherical obstacles and a perturbed equilibrium initial state, with
 * PB_LBM_STEPS steps. Allocates p->flags and p->f (pb_lbm_release frees).
 */
void pb_lbm_generate(struct pb_lbm_problem *p, int nx, int ny, int nz);

/* Free what @p owns and zero it. */
void pb_lbm_release(struct pb_lbm_problem *p);

/*
 * Check that @p is a lattice this program can run and verify: sane
 * dimensions and parameters, flags 0/1, the compartment walls in place,
 * finite populations. Returns 0, or -1 with a message in @err.
 */
int pb_lbm_validate(const struct pb_lbm_problem *p, char *err, size_t errlen);

/*
 * The neighbour mask of every cell (n words) from the flags: bit i set
 * when cell - e_i (periodic in x) is solid, LBM_MASK_SOLID for solid cells.
 * Only used for fluid cells away from the y/z boundary (validate ensures
 * that every fluid cell is).
 */
void pb_lbm_make_mask(const struct pb_lbm_problem *p, uint32_t *mask);

/* The force terms 3 w Fx for the axis (@fw1) and diagonal (@fw2) weights. */
void pb_lbm_force_terms(float force, float *fw1, float *fw2);

/*
 * One time step on the CPU, exactly as the kernel does it: for every
 * fluid cell gather (pull streaming, half-way bounce-back at solid
 * neighbours), collide (BGK plus body force) and store into @dst; solid
 * cells get zeros. @src and @dst hold 19 * nx*ny*nz floats.
 */
void pb_lbm_step_ref(const float *src, float *dst, const uint32_t *mask,
		     int nx, int ny, int nz, float omega, float fw1, float fw2);

/* Cells of one compartment: nx * (ny / ncy) * (nz / ncz). */
size_t pb_lbm_compartment_cells(const struct pb_lbm_problem *p);

/*
 * Run all p->steps steps of compartment @k of @p on the CPU and store its
 * final populations in @out (19 * pb_lbm_compartment_cells() floats, the
 * compartment's own direction-major layout). Returns 0, or -1 on
 * allocation failure.
 */
int pb_lbm_run_compartment(const struct pb_lbm_problem *p, int k, float *out);

/*
 * Compare compartment @k of the full GPU result @gpu (19 * n floats)
 * with the CPU slab @ref. Returns the number of values that differ by
 * more than @tol (NaN always differs) and stores the largest difference
 * in @max_diff and the count of bit-identical values in @exact.
 */
size_t pb_lbm_compare_compartment(const struct pb_lbm_problem *p, int k,
				  const float *gpu, const float *ref, double tol,
				  double *max_diff, size_t *exact);

/* Total mass (sum of all populations of fluid cells) of @f, in double. */
double pb_lbm_mass(const struct pb_lbm_problem *p, const float *f);

/*
 * Input file (-i), little-endian: "PBLBMIN1", int32 nx ny nz ncy ncz steps,
 * float32 omega force, uint8 flags[n], float32 f[19][n]. Write returns 0
 * or -1; read returns 0, or -1 with a message in @err (then @p is empty)
 * and also validates the problem.
 */
int pb_lbm_write_input(const char *path, const struct pb_lbm_problem *p);
int pb_lbm_read_input(const char *path, struct pb_lbm_problem *p, char *err,
		      size_t errlen);

/*
 * Output file (-o): "PBLBMOU1", int32 nx ny nz steps, float32 f[19][n]
 * (the populations after the last step). Returns 0 or -1.
 */
int pb_lbm_write_output(const char *path, const struct pb_lbm_problem *p,
			const float *f);

/*
 * Read an output file back: allocates *@f (caller frees) and fills the
 * dimensions. Returns 0, or -1 with a message in @err.
 */
int pb_lbm_read_output(const char *path, int *nx, int *ny, int *nz, int *steps,
		       float **f, char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
