/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for spmv's host side: the reference on a hand-built JDS
 * matrix, the generator (determinism, structure, row lengths) checked
 * against an independent row-by-row product, the structure validator, the
 * -i/-o file round trips and their errors, and the comparison.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "workloads/parboil/spmv/spmv_ref.h"

/* A 3x3 matrix: row 0 = [1 0 2], row 1 = [0 3 0], row 2 = [4 5 6]. */
static void hand_matrix(struct spmv_jds *m)
{
	static uint32_t jd_ptr[] = { 0, 3, 5, 6 };
	static uint32_t perm[] = { 2, 0, 1 };
	static uint32_t idx[] = { 0, 0, 1, 1, 2, 2 };
	static float data[] = { 4, 1, 3, 5, 2, 6 };
	static float x[] = { 1, 2, 3 };

	m->n = 3;
	m->ndiags = 3;
	m->nnz = 6;
	m->jd_ptr = jd_ptr;
	m->perm = perm;
	m->idx = idx;
	m->data = data;
	m->x = x;
}

static void test_hand(void)
{
	struct spmv_jds m;
	float y[3], absum[3];
	char err[200];

	hand_matrix(&m);
	CHECK_INT(spmv_validate(&m, err, sizeof(err)), 0, "hand matrix is valid");
	spmv_ref(&m, y, absum);
	CHECK(y[0] == 7.0f, "row 0: 1*1 + 2*3 = 7");
	CHECK(y[1] == 6.0f, "row 1: 3*2 = 6");
	CHECK(y[2] == 32.0f, "row 2: 4*1 + 5*2 + 6*3 = 32");
	CHECK(absum[2] == 32.0f, "absum of a positive row is its sum");
}

static void test_validate(void)
{
	struct spmv_jds m;
	char err[200];
	uint32_t jd_bad[] = { 0, 1, 3, 6 };	/* diagonal grows */
	uint32_t perm_bad[] = { 2, 0, 2 };
	uint32_t idx_bad[] = { 0, 0, 1, 1, 3, 2 };

	hand_matrix(&m);
	m.jd_ptr = jd_bad;
	CHECK_INT(spmv_validate(&m, err, sizeof(err)), -1, "growing diagonal is refused");
	CHECK(strstr(err, "diagonal 1") != NULL, "message names the diagonal");
	hand_matrix(&m);
	m.perm = perm_bad;
	CHECK_INT(spmv_validate(&m, err, sizeof(err)), -1, "perm with a repeat is refused");
	hand_matrix(&m);
	m.idx = idx_bad;
	CHECK_INT(spmv_validate(&m, err, sizeof(err)), -1, "column 3 of 3 is refused");
	hand_matrix(&m);
	m.nnz = 5;
	CHECK_INT(spmv_validate(&m, err, sizeof(err)), -1, "nnz mismatch is refused");
	hand_matrix(&m);
	m.ndiags = SPMV_MAX_DIAGS + 1;
	CHECK_INT(spmv_validate(&m, err, sizeof(err)), -1, "too many diagonals refused");
}

/* y of row r by walking sorted row k across the diagonals, naively. */
static void naive_rows(const struct spmv_jds *m, float *y, double *yd)
{
	for (uint32_t k = 0; k < m->n; k++) {
		float s = 0.0f;
		double sd = 0.0;
		for (uint32_t d = 0; d < m->ndiags; d++) {
			if (k >= m->jd_ptr[d + 1] - m->jd_ptr[d]) {
				break;
			}
			uint32_t off = m->jd_ptr[d] + k;
			s = fmaf(m->data[off], m->x[m->idx[off]], s);
			sd += (double)m->data[off] * m->x[m->idx[off]];
		}
		y[m->perm[k]] = s;
		yd[m->perm[k]] = sd;
	}
}

static void test_generate(void)
{
	struct spmv_jds a, b, c;
	char err[200];
	uint32_t n = 5000;

	CHECK_INT(spmv_generate(&a, n, 42, err, sizeof(err)), 0, "generate");
	CHECK_INT(spmv_generate(&b, n, 42, err, sizeof(err)), 0, "generate again");
	CHECK_INT(spmv_generate(&c, n, 43, err, sizeof(err)), 0, "other seed");
	CHECK_INT(spmv_validate(&a, err, sizeof(err)), 0, "generated matrix is valid");
	CHECK(a.nnz == b.nnz && a.ndiags == b.ndiags &&
	      !memcmp(a.jd_ptr, b.jd_ptr, (a.ndiags + 1) * 4) &&
	      !memcmp(a.perm, b.perm, n * 4) &&
	      !memcmp(a.idx, b.idx, (size_t)a.nnz * 4) &&
	      !memcmp(a.data, b.data, (size_t)a.nnz * 4) &&
	      !memcmp(a.x, b.x, n * 4), "same seed, same matrix");
	CHECK(a.nnz != c.nnz || memcmp(a.data, c.data, (size_t)a.nnz * 4),
	      "other seed, other matrix");

	/* Lengths: 16..191, sorted rows by decreasing length. */
	uint32_t shortest = a.jd_ptr[16] - a.jd_ptr[15];
	CHECK_INT(a.jd_ptr[1] - a.jd_ptr[0], n, "every row has a first entry");
	CHECK_INT(shortest, n, "every row has at least 16 entries");
	CHECK(a.ndiags >= 64 && a.ndiags <= 191, "longest row 64..191");
	double mean = (double)a.nnz / n;
	CHECK(mean > 44 && mean < 54, "mean row length near 48.8");
	int inrange = 1, band = 0;
	for (uint32_t d = 0; d < a.ndiags; d++) {
		for (uint32_t k = 0; k < a.jd_ptr[d + 1] - a.jd_ptr[d]; k++) {
			uint32_t off = a.jd_ptr[d] + k;
			float v = a.data[off];
			long dist = labs((long)a.idx[off] - (long)a.perm[k]);
			inrange &= v >= -1.0f && v < 1.0f;
			band += dist <= 4096 || dist >= (long)n - 4096;
		}
	}
	CHECK(inrange, "values in [-1, 1)");
	CHECK(band > (int)(a.nnz / 2), "about half the columns near the diagonal");

	/* The reference against an independent row-by-row walk. */
	float *y = malloc(n * 4), *absum = malloc(n * 4), *yn = malloc(n * 4);
	double *yd = malloc(n * sizeof(double));
	spmv_ref(&a, y, absum);
	naive_rows(&a, yn, yd);
	CHECK(!memcmp(y, yn, n * 4), "reference equals the row-by-row walk bit for bit");
	int close = 1;
	for (uint32_t r = 0; r < n; r++) {
		close &= fabs(y[r] - yd[r]) <= 1e-6 * absum[r] + 1e-30;
	}
	CHECK(close, "float result within 1e-6 x absum of the double product");

	struct spmv_cmp cmp;
	CHECK_INT(spmv_compare(y, yn, absum, n, 1e-6, &cmp), 0, "compare: equal rows pass");
	CHECK_INT(cmp.exact, n, "compare counts bit-identical rows");
	yn[7] = nanf("");
	yn[9] = y[9] + 1e-3f * absum[9];
	CHECK_INT(spmv_compare(yn, y, absum, n, 1e-6, &cmp), 2, "NaN and 1e-3 off fail");
	CHECK(cmp.worst_row == 7, "NaN is the worst row");
	yn[7] = y[7];
	yn[9] = y[9] + 1e-7f * absum[9];
	CHECK_INT(spmv_compare(yn, y, absum, n, 1e-6, &cmp), 0, "1e-7 off passes");
	free(y);
	free(absum);
	free(yn);
	free(yd);
	spmv_free(&a);
	spmv_free(&b);
	spmv_free(&c);
	CHECK(a.data == NULL && a.n == 0, "free zeroes the struct");
	CHECK_INT(spmv_generate(&a, 0, 1, err, sizeof(err)), -1, "zero rows refused");
}

static void test_files(void)
{
	struct spmv_jds a, b;
	char err[200], path[] = "/tmp/gm-test-spmv-XXXXXX";
	int fd = mkstemp(path);
	uint32_t n;

	CHECK(fd >= 0, "temporary file");
	close(fd);
	spmv_generate(&a, 700, 7, err, sizeof(err));
	CHECK_INT(spmv_write_input(path, &a), 0, "write input");
	CHECK_INT(spmv_read_input(path, &b, err, sizeof(err)), 0, "read input back");
	CHECK(a.n == b.n && a.nnz == b.nnz && a.ndiags == b.ndiags &&
	      !memcmp(a.idx, b.idx, (size_t)a.nnz * 4) &&
	      !memcmp(a.data, b.data, (size_t)a.nnz * 4) &&
	      !memcmp(a.perm, b.perm, a.n * 4) && !memcmp(a.x, b.x, a.n * 4),
	      "input round trip is exact");
	spmv_free(&b);

	/* Corrupt: a column index out of range. */
	a.idx[5] = a.n;
	spmv_write_input(path, &a);
	CHECK_INT(spmv_read_input(path, &b, err, sizeof(err)), -1, "bad column refused");
	CHECK(strstr(err, "column index") != NULL, "message names the column index");
	CHECK(b.data == NULL, "failed read leaves nothing allocated");

	/* Truncated. */
	a.idx[5] = 0;
	spmv_write_input(path, &a);
	CHECK(truncate(path, 1000) == 0, "truncate");
	CHECK_INT(spmv_read_input(path, &b, err, sizeof(err)), -1, "truncated file refused");
	CHECK(strstr(err, "file size") != NULL, "message says the size is wrong");

	/* Output round trip, and an output file given as input. */
	float *y = malloc(a.n * 4);
	spmv_ref(&a, y, NULL);
	CHECK_INT(spmv_write_output(path, y, a.n), 0, "write output");
	float *back = spmv_read_output(path, &n, err, sizeof(err));
	CHECK(back && n == a.n && !memcmp(back, y, n * 4), "output round trip");
	CHECK_INT(spmv_read_input(path, &b, err, sizeof(err)), -1, "output is not an input");
	CHECK(strstr(err, "bad magic") != NULL, "message says bad magic");
	free(back);
	free(y);
	spmv_write_input(path, &a);
	CHECK(spmv_read_output(path, &n, err, sizeof(err)) == NULL, "input is not an output");
	unlink(path);
	CHECK_INT(spmv_read_input(path, &b, err, sizeof(err)), -1, "missing file refused");
	CHECK(strstr(err, "cannot read") != NULL, "message says cannot read");
	spmv_free(&a);
}

int main(void)
{
	test_hand();
	test_validate();
	test_generate();
	test_files();
	CHECK_INT(spmv_rows_for_scale(1.0), SPMV_ROWS, "scale 1");
	CHECK_INT(spmv_rows_for_scale(0.01), SPMV_ROWS / 100, "scale 0.01");
	CHECK_INT(spmv_rows_for_scale(1e-9), 64, "tiny scale has 64 rows");
	return test_done();
}
