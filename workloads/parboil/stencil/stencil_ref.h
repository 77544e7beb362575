/* SPDX-License-Identifier: MIT */
/*
 * Host side of stencil (7-point 3-D Jacobi iterations): the deterministic
 * grid generator, the binary files of -i and -o, the CPU reference and the
 * comparison. Plain C11, no CUDA: the unit tests link it with gcc.
 *
 * One step maps grid A to grid B: a cell on the grid's surface keeps its
 * value; an inner cell becomes
 *
 *   s = ((((A[x-1] + A[x+1]) + A[y-1]) + A[y+1]) + A[z-1]) + A[z+1]
 *   B = fmaf(c1, s, c0 * A)
 *
 * in exactly this order on the CPU and the GPU, so results are bit-equal.
 *
 * The full reference costs nx*ny*nz*iterations cell updates, far too many
 * at the default size, so the reference computes a box of the final grid
 * from its dependence cone only: after t steps a cell depends on the cells
 * at most t away in each axis, so the box grown by (iterations - t) on
 * every side (clipped to the grid) is all that step t needs. Boxes that
 * touch the surface are cheaper (the cone is clipped).
 */
#ifndef STENCIL_REF_H
#define STENCIL_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Default grid: STENCIL_NXY^2 * scale cells per plane, STENCIL_NZ planes. */
#define STENCIL_NXY 1024
#define STENCIL_NZ 64
#define STENCIL_ITERATIONS 100
#define STENCIL_C0 0.25f
#define STENCIL_C1 0.125f
#define STENCIL_SEED 0x57e9u
/* Relative tolerance per cell (the arithmetic is identical: expect 0). */
#define STENCIL_TOLERANCE 1e-6
/* Verify the whole grid while it costs at most this many cell updates. */
#define STENCIL_FULL_LIMIT 200000000.0
/* Otherwise verify patches of this many cells square, every plane. */
#define STENCIL_PATCH 16
#define STENCIL_MAX_BOXES 5

struct stencil_problem {
	uint32_t nx, ny, nz;	/* x varies fastest in memory, then y, then z */
	uint32_t iterations;
	float c0, c1;
	float *grid;		/* nx * ny * nz initial values */
};

/* Half-open box [x0, x1) x [y0, y1) x [z0, z1). */
struct stencil_box {
	uint32_t x0, x1, y0, y1, z0, z1;
};

/* Grid for -s @scale: nx = ny = STENCIL_NXY * sqrt(scale) (at least 3). */
void stencil_dims_for_scale(double scale, uint32_t *nx, uint32_t *ny,
			    uint32_t *nz);

/*
 * Fill @p with a grid of uniform values in [0, 1) from @seed, default
 * coefficients and @iterations. Returns 0, or -1 with @err (a dimension
 * below 1, or no memory). Release with stencil_free().
 */
int stencil_generate(struct stencil_problem *p, uint32_t nx, uint32_t ny,
		     uint32_t nz, uint32_t iterations, uint64_t seed, char *err,
		     size_t errlen);

/* Free the grid of @p and zero it; safe on a zeroed struct. */
void stencil_free(struct stencil_problem *p);

/*
 * Input file (-i), native little-endian: "GMSTENI1", u32 nx, ny, nz,
 * iterations, f32 c0, c1, then f32 grid[nz][ny][nx]. Output (-o):
 * "GMSTENO1", u32 nx, ny, nz, 0, then f32 grid[nz][ny][nx]. Writers return
 * 0 or -1 (errno set). Readers return 0, or -1 with @err (unreadable,
 * bad magic, size mismatch, dimensions of 0, non-finite values); the
 * output reader returns a new grid the caller frees, or NULL.
 */
int stencil_write_input(const char *path, const struct stencil_problem *p);
int stencil_read_input(const char *path, struct stencil_problem *p, char *err,
		       size_t errlen);
int stencil_write_output(const char *path, const float *grid, uint32_t nx,
			 uint32_t ny, uint32_t nz);
float *stencil_read_output(const char *path, uint32_t *nx, uint32_t *ny,
			   uint32_t *nz, char *err, size_t errlen);

/*
 * Compute box @b of the grid after p->iterations steps into @out
 * (b's cells, x fastest), from the dependence cone of @b only. The whole
 * grid as @b is the plain full reference. Returns 0, or -1 when out of
 * memory.
 */
int stencil_ref_box(const struct stencil_problem *p,
		    const struct stencil_box *b, float *out);

/* Cell updates stencil_ref_box() performs for @b. */
double stencil_box_cost(const struct stencil_problem *p,
			const struct stencil_box *b);

/*
 * Choose what to verify: the whole grid while that costs at most
 * STENCIL_FULL_LIMIT updates or no more than the patches would, else
 * STENCIL_PATCH-square patches through
 * every plane at two corners, the middle of an edge, the center and one
 * position drawn from @seed. Fills @boxes (room for STENCIL_MAX_BOXES)
 * and returns how many.
 */
int stencil_verify_boxes(const struct stencil_problem *p, uint64_t seed,
			 struct stencil_box *boxes);

struct stencil_cmp {
	uint64_t cells;		/* compared */
	uint64_t bad;		/* outside the tolerance (NaN included) */
	uint64_t exact;		/* bit-identical */
	double worst;		/* largest relative error */
	uint32_t wx, wy, wz;	/* where */
};

/*
 * Compare box @b of the full grid @gpu (p's dimensions) with @ref (the
 * box's cells as stencil_ref_box() writes them), adding to @c (zero it
 * first): |gpu - ref| <= tol * |ref|, NaN never passes. Returns the
 * number of failing cells of this box.
 */
uint64_t stencil_compare_box(const struct stencil_problem *p, const float *gpu,
			     const struct stencil_box *b, const float *ref,
			     double tol, struct stencil_cmp *c);

/*
 * Count the cells of @gpu (whole grid) that are NaN or outside
 * [min - slack, max + slack] of the initial grid: Jacobi steps are convex
 * combinations (c0 + 6 c1 = 1), so values never leave that range.
 */
uint64_t stencil_count_out_of_range(const struct stencil_problem *p,
				    const float *gpu, double slack);

#ifdef __cplusplus
}
#endif

#endif
