/* SPDX-License-Identifier: MIT */
/*
 * spmv's generator, files, CPU reference and comparison (see spmv_ref.h).
 * The reference walks the matrix diagonal by diagonal with one running sum
 * per row, which keeps memory access sequential and gives every row the
 * same operation order as the kernel: sum = fmaf(a_d, x[c_d], sum) for
 * d = 0, 1, ... starting from 0.
 */
#include "spmv_ref.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

static const char input_magic[8] = { 'G', 'M', 'S', 'P', 'M', 'V', 'I', '1' };
static const char output_magic[8] = { 'G', 'M', 'S', 'P', 'M', 'V', 'O', '1' };

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	if (err && errlen) {
		va_start(ap, fmt);
		vsnprintf(err, errlen, fmt, ap);
		va_end(ap);
	}
	return -1;
}

uint32_t spmv_rows_for_scale(double scale)
{
	double n = SPMV_ROWS * scale;

	if (!(n >= 64)) {
		return 64;
	}
	if (n > 4.0e9) {
		return 4000000000u;
	}
	return (uint32_t)(n + 0.5);
}

void spmv_free(struct spmv_jds *m)
{
	free(m->jd_ptr);
	free(m->perm);
	free(m->idx);
	free(m->data);
	free(m->x);
	memset(m, 0, sizeof(*m));
}

/* Allocate the arrays of @m for its n, ndiags and nnz; 0 or -1. */
static int alloc_arrays(struct spmv_jds *m)
{
	m->jd_ptr = malloc(((size_t)m->ndiags + 1) * sizeof(uint32_t));
	m->perm = malloc((size_t)m->n * sizeof(uint32_t));
	m->idx = malloc(((size_t)m->nnz + 1) * sizeof(uint32_t));
	m->data = malloc(((size_t)m->nnz + 1) * sizeof(float));
	m->x = malloc((size_t)m->n * sizeof(float));
	if (!m->jd_ptr || !m->perm || !m->idx || !m->data || !m->x) {
		return -1;
	}
	return 0;
}

/* Uniform float in [-1, 1), exact: a multiple of 2^-23. */
static float unit_float(uint64_t u)
{
	return (float)(u >> 40) * (1.0f / 8388608.0f) - 1.0f;
}

int spmv_generate(struct spmv_jds *m, uint32_t n, uint64_t seed, char *err,
		  size_t errlen)
{
	struct pb_rng rng;
	uint32_t hist[SPMV_MAX_DIAGS + 2] = { 0 };
	uint32_t start[SPMV_MAX_DIAGS + 2];
	uint8_t *len = NULL;
	uint64_t *state = NULL;
	uint64_t nnz = 0;
	uint32_t maxlen = 0;

	memset(m, 0, sizeof(*m));
	if (!n) {
		return fail(err, errlen, "the matrix needs at least one row");
	}
	len = malloc(n);
	if (!len) {
		return fail(err, errlen, "out of memory for %u rows", n);
	}
	pb_rng_seed(&rng, seed);
	for (uint32_t r = 0; r < n; r++) {
		uint32_t l = pb_rng_below(&rng, 10) < 9
			? 16 + pb_rng_below(&rng, 48)
			: 64 + pb_rng_below(&rng, 128);
		len[r] = (uint8_t)l;
		hist[l]++;
		nnz += l;
		if (l > maxlen) {
			maxlen = l;
		}
	}
	if (nnz > 0x7fffffffu) {
		free(len);
		return fail(err, errlen,
			    "%u rows give %llu nonzeros, more than 32-bit offsets allow",
			    n, (unsigned long long)nnz);
	}
	m->n = n;
	m->ndiags = maxlen;
	m->nnz = (uint32_t)nnz;
	state = malloc((size_t)n * sizeof(uint64_t));
	if (!state || alloc_arrays(m)) {
		free(len);
		free(state);
		spmv_free(m);
		return fail(err, errlen, "out of memory for %u rows", n);
	}

	/* Counting sort, longest rows first, ties in row order. */
	uint32_t pos = 0;
	for (int l = SPMV_MAX_DIAGS; l >= 0; l--) {
		start[l] = pos;
		pos += hist[l];
	}
	for (uint32_t r = 0; r < n; r++) {
		m->perm[start[len[r]]++] = r;
	}

	/* Diagonal d holds one entry of each row longer than d. */
	uint32_t longer = n;
	m->jd_ptr[0] = 0;
	for (uint32_t d = 0; d < maxlen; d++) {
		longer -= hist[d];
		m->jd_ptr[d + 1] = m->jd_ptr[d] + longer;
	}

	/* Each row draws its entries from its own stream. */
	for (uint32_t k = 0; k < n; k++) {
		state[k] = seed ^ (0x9e3779b97f4a7c15ULL * ((uint64_t)m->perm[k] + 1));
	}
	for (uint32_t d = 0; d < maxlen; d++) {
		uint32_t beg = m->jd_ptr[d], cnt = m->jd_ptr[d + 1] - beg;
		for (uint32_t k = 0; k < cnt; k++) {
			struct pb_rng s = { state[k] };
			uint64_t u = pb_rng_next(&s);
			uint32_t r = m->perm[k], c;
			if (u >> 63) {
				int64_t off = (int64_t)((u >> 32) % 8193) - 4096;
				int64_t cc = ((int64_t)r + off) % (int64_t)n;
				c = (uint32_t)(cc < 0 ? cc + n : cc);
			} else {
				c = (uint32_t)(((u >> 32) * (uint64_t)n) >> 31);
			}
			m->idx[beg + k] = c;
			m->data[beg + k] = unit_float(pb_rng_next(&s));
			state[k] = s.s;
		}
	}
	for (uint32_t c = 0; c < n; c++) {
		m->x[c] = unit_float(pb_rng_next(&rng));
	}
	free(len);
	free(state);
	return 0;
}

int spmv_validate(const struct spmv_jds *m, char *err, size_t errlen)
{
	uint8_t *seen;

	if (!m->n) {
		return fail(err, errlen, "the matrix has no rows");
	}
	if (m->ndiags > SPMV_MAX_DIAGS) {
		return fail(err, errlen, "%u jagged diagonals, at most %d supported",
			    m->ndiags, SPMV_MAX_DIAGS);
	}
	if (m->jd_ptr[0] != 0) {
		return fail(err, errlen, "jd_ptr[0] is %u, not 0", m->jd_ptr[0]);
	}
	uint32_t prev = m->n;
	for (uint32_t d = 0; d < m->ndiags; d++) {
		if (m->jd_ptr[d + 1] < m->jd_ptr[d]) {
			return fail(err, errlen, "jd_ptr decreases at diagonal %u", d);
		}
		uint32_t cnt = m->jd_ptr[d + 1] - m->jd_ptr[d];
		if (cnt > prev) {
			return fail(err, errlen,
				    "diagonal %u has %u entries, more than %s (%u)",
				    d, cnt, d ? "the diagonal before" : "the rows",
				    prev);
		}
		prev = cnt;
	}
	if (m->jd_ptr[m->ndiags] != m->nnz) {
		return fail(err, errlen, "jd_ptr ends at %u but nnz is %u",
			    m->jd_ptr[m->ndiags], m->nnz);
	}
	for (uint32_t i = 0; i < m->nnz; i++) {
		if (m->idx[i] >= m->n) {
			return fail(err, errlen, "column index %u at entry %u is not below %u",
				    m->idx[i], i, m->n);
		}
	}
	seen = calloc(m->n, 1);
	if (!seen) {
		return fail(err, errlen, "out of memory");
	}
	for (uint32_t k = 0; k < m->n; k++) {
		if (m->perm[k] >= m->n || seen[m->perm[k]]) {
			free(seen);
			return fail(err, errlen, "perm is not a permutation (entry %u is %u)",
				    k, m->perm[k]);
		}
		seen[m->perm[k]] = 1;
	}
	free(seen);
	return 0;
}

static int write_all(FILE *f, const void *p, size_t len)
{
	return fwrite(p, 1, len, f) == len ? 0 : -1;
}

int spmv_write_input(const char *path, const struct spmv_jds *m)
{
	uint32_t hdr[4] = { m->n, m->ndiags, m->nnz, 0 };
	FILE *f = fopen(path, "wb");
	int rc = 0;

	if (!f) {
		return -1;
	}
	rc |= write_all(f, input_magic, sizeof(input_magic));
	rc |= write_all(f, hdr, sizeof(hdr));
	rc |= write_all(f, m->jd_ptr, ((size_t)m->ndiags + 1) * 4);
	rc |= write_all(f, m->perm, (size_t)m->n * 4);
	rc |= write_all(f, m->idx, (size_t)m->nnz * 4);
	rc |= write_all(f, m->data, (size_t)m->nnz * 4);
	rc |= write_all(f, m->x, (size_t)m->n * 4);
	if (fclose(f)) {
		rc = -1;
	}
	return rc;
}

int spmv_read_input(const char *path, struct spmv_jds *m, char *err,
		    size_t errlen)
{
	size_t len = 0;
	char *buf = pb_read_file(path, &len);
	uint32_t hdr[4];
	const char *p;

	memset(m, 0, sizeof(*m));
	if (!buf) {
		return fail(err, errlen, "cannot read '%s': %s", path, strerror(errno));
	}
	if (len < 24 || memcmp(buf, input_magic, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not an spmv input file (bad magic)", path);
	}
	memcpy(hdr, buf + 8, sizeof(hdr));
	uint64_t want = 24 + 4 * ((uint64_t)hdr[1] + 1 + 2 * (uint64_t)hdr[0] +
				  2 * (uint64_t)hdr[2]);
	if (hdr[1] > SPMV_MAX_DIAGS || hdr[0] == 0 || want != len) {
		free(buf);
		return fail(err, errlen,
			    "'%s': header (n %u, %u diagonals, nnz %u) does not match the file size %zu",
			    path, hdr[0], hdr[1], hdr[2], len);
	}
	m->n = hdr[0];
	m->ndiags = hdr[1];
	m->nnz = hdr[2];
	if (alloc_arrays(m)) {
		free(buf);
		spmv_free(m);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	p = buf + 24;
	memcpy(m->jd_ptr, p, ((size_t)m->ndiags + 1) * 4);
	p += ((size_t)m->ndiags + 1) * 4;
	memcpy(m->perm, p, (size_t)m->n * 4);
	p += (size_t)m->n * 4;
	memcpy(m->idx, p, (size_t)m->nnz * 4);
	p += (size_t)m->nnz * 4;
	memcpy(m->data, p, (size_t)m->nnz * 4);
	p += (size_t)m->nnz * 4;
	memcpy(m->x, p, (size_t)m->n * 4);
	free(buf);

	char why[200];
	if (spmv_validate(m, why, sizeof(why))) {
		spmv_free(m);
		return fail(err, errlen, "'%s': %s", path, why);
	}
	return 0;
}

int spmv_write_output(const char *path, const float *y, uint32_t n)
{
	uint32_t hdr[2] = { n, 0 };
	FILE *f = fopen(path, "wb");
	int rc = 0;

	if (!f) {
		return -1;
	}
	rc |= write_all(f, output_magic, sizeof(output_magic));
	rc |= write_all(f, hdr, sizeof(hdr));
	rc |= write_all(f, y, (size_t)n * sizeof(float));
	if (fclose(f)) {
		rc = -1;
	}
	return rc;
}

float *spmv_read_output(const char *path, uint32_t *n, char *err,
			size_t errlen)
{
	size_t len = 0;
	char *buf = pb_read_file(path, &len);
	uint32_t hdr[2];
	float *y;

	if (!buf) {
		fail(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (len < 16 || memcmp(buf, output_magic, 8)) {
		free(buf);
		fail(err, errlen, "'%s' is not an spmv output file (bad magic)", path);
		return NULL;
	}
	memcpy(hdr, buf + 8, sizeof(hdr));
	if (len != 16 + 4 * (uint64_t)hdr[0]) {
		free(buf);
		fail(err, errlen, "'%s': %u rows do not match the file size %zu",
		     path, hdr[0], len);
		return NULL;
	}
	y = malloc((size_t)hdr[0] * sizeof(float) + 1);
	if (y) {
		memcpy(y, buf + 16, (size_t)hdr[0] * sizeof(float));
		*n = hdr[0];
	} else {
		fail(err, errlen, "out of memory reading '%s'", path);
	}
	free(buf);
	return y;
}

void spmv_ref(const struct spmv_jds *m, float *y, float *absum)
{
	float *sum = calloc(m->n, sizeof(float));
	double *abs_acc = absum ? calloc(m->n, sizeof(double)) : NULL;

	if (!sum || (absum && !abs_acc)) {
		fprintf(stderr, "spmv: out of memory in the reference\n");
		exit(2);
	}
	for (uint32_t d = 0; d < m->ndiags; d++) {
		uint32_t beg = m->jd_ptr[d], cnt = m->jd_ptr[d + 1] - beg;
		const float *a = m->data + beg;
		const uint32_t *c = m->idx + beg;
		for (uint32_t k = 0; k < cnt; k++) {
			float xv = m->x[c[k]];
			sum[k] = fmaf(a[k], xv, sum[k]);
			if (abs_acc) {
				abs_acc[k] += fabs((double)a[k] * xv);
			}
		}
	}
	for (uint32_t k = 0; k < m->n; k++) {
		y[m->perm[k]] = sum[k];
		if (absum) {
			absum[m->perm[k]] = (float)abs_acc[k];
		}
	}
	free(sum);
	free(abs_acc);
}

uint32_t spmv_compare(const float *gpu, const float *ref, const float *absum,
		      uint32_t n, double tol, struct spmv_cmp *out)
{
	memset(out, 0, sizeof(*out));
	for (uint32_t r = 0; r < n; r++) {
		double diff = fabs((double)gpu[r] - (double)ref[r]);
		double scaled;

		if (!memcmp(&gpu[r], &ref[r], sizeof(float))) {
			out->exact++;
			continue;
		}
		if (isnan(gpu[r]) || isnan(ref[r])) {
			scaled = INFINITY;
		} else if (absum[r] > 0) {
			scaled = diff / absum[r];
		} else {
			scaled = diff > 0 ? INFINITY : 0;
		}
		if (!(scaled <= tol)) {
			out->bad++;
		}
		if (scaled > out->worst || (isinf(scaled) && !isinf(out->worst))) {
			out->worst = scaled;
			out->worst_row = r;
		}
	}
	return out->bad;
}
