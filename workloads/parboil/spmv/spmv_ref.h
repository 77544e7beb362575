/* SPDX-License-Identifier: MIT */
/*
 * Host side of spmv (sparse matrix times dense vector, matrix in jagged
 * diagonal storage): the deterministic matrix generator, the binary input
 * and output files of -i and -o, the CPU reference that sums every row in
 * the kernel's order with the kernel's fused multiply-adds, and the
 * comparison. Plain C11, no CUDA: the unit tests link it with gcc.
 *
 * JDS in short: rows are sorted by decreasing length (perm[k] is the
 * original index of sorted row k); jagged diagonal d holds the d-th
 * nonzero of every sorted row that has more than d nonzeros, stored at
 * data[jd_ptr[d] + k] / idx[jd_ptr[d] + k]. Diagonal lengths never grow,
 * so consecutive threads (sorted rows) read consecutive words.
 */
#ifndef SPMV_REF_H
#define SPMV_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Longest row: jd_ptr (ndiags + 1 words) lives in constant memory. */
#define SPMV_MAX_DIAGS 255
/* Kernel launches per run; every launch computes y = A * x again. */
#define SPMV_ITERATIONS 100
/* Rows (= columns) at scale 1. */
#define SPMV_ROWS 1000000
#define SPMV_SEED 0x5350u
/* Relative tolerance, against sum |a_ij * x_j| of the row. */
#define SPMV_TOLERANCE 1e-6

struct spmv_jds {
	uint32_t n;		/* rows = columns */
	uint32_t ndiags;	/* jagged diagonals = length of the longest row */
	uint32_t nnz;		/* stored nonzeros */
	uint32_t *jd_ptr;	/* ndiags + 1 offsets into data and idx */
	uint32_t *perm;		/* n: sorted row k is original row perm[k] */
	uint32_t *idx;		/* nnz column indices */
	float *data;		/* nnz values */
	float *x;		/* n: the dense vector */
};

/* Rows for -s @scale: SPMV_ROWS * scale, at least 64. */
uint32_t spmv_rows_for_scale(double scale);

/*
 * Generate the matrix and vector of @n rows from @seed into @m (which the
 * caller releases with spmv_free()). Rows have 16-63 nonzeros (90%) or
 * 64-191 (10%); half the columns fall in a band of +-4096 around the
 * diagonal, half anywhere. Returns 0, or -1 with a message in @err when
 * @n is 0 or the matrix would not fit 32-bit offsets.
 */
int spmv_generate(struct spmv_jds *m, uint32_t n, uint64_t seed, char *err,
		  size_t errlen);

/* Free what @m owns and zero it; safe on a zeroed struct. */
void spmv_free(struct spmv_jds *m);

/*
 * Check the structure of @m (jd_ptr starting at 0, diagonal lengths
 * non-increasing and at most n, nnz consistent, ndiags at most
 * SPMV_MAX_DIAGS, perm a permutation, column indices below n) so that the
 * kernel cannot read out of bounds. Returns 0, or -1 with @err filled.
 */
int spmv_validate(const struct spmv_jds *m, char *err, size_t errlen);

/*
 * Input file (-i), native little-endian: "GMSPMVI1", u32 n, u32 ndiags,
 * u32 nnz, u32 0, then u32 jd_ptr[ndiags + 1], u32 perm[n], u32 idx[nnz],
 * f32 data[nnz], f32 x[n]. Write: 0 or -1 (errno set). Read: 0, or -1
 * with @err naming the problem (unreadable, wrong magic, wrong size, bad
 * structure); @m is then zeroed.
 */
int spmv_write_input(const char *path, const struct spmv_jds *m);
int spmv_read_input(const char *path, struct spmv_jds *m, char *err,
		    size_t errlen);

/*
 * Output file (-o): "GMSPMVO1", u32 n, u32 0, f32 y[n] (original row
 * order). Read returns a new array the caller frees, or NULL with @err.
 */
int spmv_write_output(const char *path, const float *y, uint32_t n);
float *spmv_read_output(const char *path, uint32_t *n, char *err,
			size_t errlen);

/*
 * y = A * x in original row order, each row summed over its diagonals in
 * order with fmaf(a, x, sum), exactly as the kernel does. If @absum is
 * not NULL it receives sum |a * x| per row (the scale of the tolerance).
 */
void spmv_ref(const struct spmv_jds *m, float *y, float *absum);

struct spmv_cmp {
	uint32_t bad;		/* rows outside the tolerance (NaN included) */
	uint32_t exact;		/* rows bit-identical to the reference */
	uint32_t worst_row;	/* row with the largest scaled error */
	double worst;		/* |gpu - ref| / absum of that row */
};

/*
 * Compare @gpu with @ref row by row: a row passes when
 * |gpu - ref| <= tol * absum (absum 0 needs equality); NaN never passes.
 * Returns the number of failing rows.
 */
uint32_t spmv_compare(const float *gpu, const float *ref, const float *absum,
		      uint32_t n, double tol, struct spmv_cmp *out);

#ifdef __cplusplus
}
#endif

#endif
