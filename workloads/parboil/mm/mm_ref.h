/* SPDX-License-Identifier: MIT */
/*
 * mm's host side in plain C: the SGEMM problem C = alpha A B + beta C
 * (row-major), its deterministic generator, the -i/-o file formats and
 * the sampled double-precision check. Compiled into the program by nvcc
 * and into libparboil-ref.a by gcc for the unit tests.
 */
#ifndef PB_MM_REF_H
#define PB_MM_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_MM_DIM 8192		/* M = N = K at -s 1 */
#define PB_MM_SAMPLE_ROWS 128	/* the check covers 128 rows x 128 columns */
#define PB_MM_SAMPLE_COLS 128

/* A is m x k, B is k x n, C is m x n, all row-major. */
struct pb_mm_problem {
	int m, n, k;
	float alpha, beta;
	float *a, *b, *c;
};

/*
 * Dimensions for @scale: M = N = K = 8192 cbrt(scale) (at least 1).
 * Returns 0, or -1 with a message in @err when a matrix would exceed
 * 2^31 elements.
 */
int pb_mm_sizes(double scale, int *m, int *n, int *k, char *err, size_t errlen);

/* Generate the deterministic problem (pb_mm_release frees). */
void pb_mm_generate(struct pb_mm_problem *p, int m, int n, int k);

/* Free the matrices of @p and zero it. */
void pb_mm_release(struct pb_mm_problem *p);

/*
 * C[i][j] of the result in double precision, and in @mag the magnitude
 * the rounding error scales with: |alpha| sum_k |A[i][k] B[k][j]| +
 * |beta C[i][j]|.
 */
double pb_mm_ref_entry(const struct pb_mm_problem *p, int i, int j,
		       double *mag);

/*
 * The rows and columns the check covers: the first, the last and the
 * rest drawn by a fixed generator (repeats possible).
 */
void pb_mm_samples(const struct pb_mm_problem *p, int *rows, int nrows,
		   int *cols, int ncols);

/*
 * Check @c (the GPU's m x n result) at every (row, column) pair of the
 * samples: an entry fails when |c - ref| > @tol * mag (NaN fails).
 * Returns the number of failing entries (or -1 when out of memory) and
 * stores the largest |c - ref| / mag in @max_err.
 */
long pb_mm_check(const struct pb_mm_problem *p, const float *c,
		 const int *rows, int nrows, const int *cols, int ncols,
		 double tol, double *max_err);

/*
 * Input file (-i), little-endian: "PBMMIN01", int32 m n k, float32 alpha
 * beta, A[m*k], B[k*n], C[m*n]. Write returns 0 or -1; read returns 0,
 * or -1 with a message in @err (then @p is empty).
 */
int pb_mm_write_input(const char *path, const struct pb_mm_problem *p);
int pb_mm_read_input(const char *path, struct pb_mm_problem *p, char *err,
		     size_t errlen);

/*
 * Output file (-o): "PBMMOUT1", int32 m n, float32 C[m*n]. Write returns
 * 0 or -1; read allocates *@c (caller frees), returns 0 or -1 with a
 * message in @err.
 */
int pb_mm_write_output(const char *path, int m, int n, const float *c);
int pb_mm_read_output(const char *path, int *m, int *n, float **c, char *err,
		      size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
