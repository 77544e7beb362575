/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for mm's CPU side (workloads/parboil/mm/mm_ref.c): a GEMM
 * entry worked out by hand, the sampled check against an independent
 * naive triple loop and its failures, the generator and sampling, and the
 * input/output files with their errors.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "workloads/parboil/common/pb.h"
#include "workloads/parboil/mm/mm_ref.h"

static void test_by_hand(void)
{
	/* A = [1 2 3; 4 5 6], B = [1 0; -1 2; 0.5 1], C = [1 1; 1 -2]. */
	float a[] = { 1, 2, 3, 4, 5, 6 };
	float b[] = { 1, 0, -1, 2, 0.5f, 1 };
	float c[] = { 1, 1, 1, -2 };
	struct pb_mm_problem p = { 2, 2, 3, 2.0f, -1.0f, a, b, c };
	double mag;

	/* (A B)[0][0] = 1 - 2 + 1.5 = 0.5; 2 * 0.5 - 1 * 1 = 0. */
	CHECK_NEAR(pb_mm_ref_entry(&p, 0, 0, &mag), 0.0, 1e-12, "C[0][0]");
	CHECK_NEAR(mag, 2 * (1 + 2 + 1.5) + 1, 1e-12, "its error scale");
	/* (A B)[1][1] = 0 + 10 + 6 = 16; 2 * 16 - 1 * (-2) = 34. */
	CHECK_NEAR(pb_mm_ref_entry(&p, 1, 1, &mag), 34.0, 1e-12, "C[1][1]");
	/* (A B)[0][1] = 0 + 4 + 3 = 7; 14 - 1 = 13. */
	CHECK_NEAR(pb_mm_ref_entry(&p, 0, 1, &mag), 13.0, 1e-12, "C[0][1]");
	CHECK_NEAR(mag, 2 * 7 + 1, 1e-12, "its error scale");
}

/* The whole product with a naive float triple loop (another method). */
static float *naive(const struct pb_mm_problem *p)
{
	float *c = malloc((size_t)p->m * p->n * sizeof(float));

	for (int i = 0; i < p->m; i++) {
		for (int j = 0; j < p->n; j++) {
			float s = 0;
			for (int k = 0; k < p->k; k++) {
				s += p->a[(size_t)i * p->k + k] * p->b[(size_t)k * p->n + j];
			}
			c[(size_t)i * p->n + j] = p->alpha * s +
						  p->beta * p->c[(size_t)i * p->n + j];
		}
	}
	return c;
}

static void test_check(void)
{
	struct pb_mm_problem p;
	int rows[8], cols[8];
	double err;

	pb_mm_generate(&p, 37, 29, 301);
	float *c = naive(&p);
	pb_mm_samples(&p, rows, 8, cols, 8);
	CHECK_INT(pb_mm_check(&p, c, rows, 8, cols, 8, 1e-5, &err), 0,
		  "a naive float GEMM passes the check");
	CHECK(err < 1e-6, "with a small error");
	int all[37], allc[29];
	for (int i = 0; i < 37; i++) {
		all[i] = i;
	}
	for (int j = 0; j < 29; j++) {
		allc[j] = j;
	}
	CHECK_INT(pb_mm_check(&p, c, all, 37, allc, 29, 1e-5, &err), 0,
		  "every entry passes");
	/* One wrong term in a dot product of 301 is caught. */
	size_t e = (size_t)rows[1] * p.n + cols[1];
	c[e] += p.alpha * 0.25f;
	CHECK_INT(pb_mm_check(&p, c, rows, 8, cols, 8, 1e-5, &err), 1,
		  "one wrong term is caught");
	c[e] = NAN;
	CHECK_INT(pb_mm_check(&p, c, rows, 8, cols, 8, 1e-5, &err), 1,
		  "NaN never passes");
	free(c);
	pb_mm_release(&p);
}

static void test_generator(void)
{
	struct pb_mm_problem a, b;
	int m, n, k, rows[64], cols[64], rows2[64], cols2[64];
	char err[256];

	CHECK_INT(pb_mm_sizes(1.0, &m, &n, &k, err, sizeof(err)), 0, "sizes at -s 1");
	CHECK(m == 8192 && n == 8192 && k == 8192, "8192^3 by default");
	CHECK_INT(pb_mm_sizes(0.01, &m, &n, &k, err, sizeof(err)), 0, "sizes at -s 0.01");
	CHECK(m == 1765 && n == 1765 && k == 1765, "scaled by cbrt(0.01)");
	CHECK_INT(pb_mm_sizes(1e6, &m, &n, &k, err, sizeof(err)), -1, "huge scale refused");
	CHECK(strstr(err, "2^31") != NULL, "with a reason");
	pb_mm_generate(&a, 50, 60, 70);
	pb_mm_generate(&b, 50, 60, 70);
	CHECK(!memcmp(a.a, b.a, 50 * 70 * 4) && !memcmp(a.b, b.b, 70 * 60 * 4) &&
	      !memcmp(a.c, b.c, 50 * 60 * 4), "generator is deterministic");
	CHECK(a.alpha == 0.75f && a.beta == -0.5f, "alpha and beta");
	CHECK(memcmp(a.a, a.c, 50 * 4) != 0, "A and C differ");
	pb_mm_samples(&a, rows, 64, cols, 64);
	pb_mm_samples(&a, rows2, 64, cols2, 64);
	int ok = !memcmp(rows, rows2, sizeof(rows)) && !memcmp(cols, cols2, sizeof(cols));
	for (int i = 0; i < 64; i++) {
		ok &= rows[i] >= 0 && rows[i] < 50 && cols[i] >= 0 && cols[i] < 60;
	}
	CHECK(ok, "samples deterministic and in range");
	CHECK(rows[0] == 0 && rows[1] == 49 && cols[0] == 0 && cols[1] == 59,
	      "samples include the corners");
	pb_mm_release(&a);
	pb_mm_release(&b);
}

static void test_files(void)
{
	char dir[] = "/tmp/gpumix-mm.XXXXXX";
	char in[256], out[256], bad[256], err[256];
	struct pb_mm_problem p, q;
	int m, n;
	float *c;

	if (!mkdtemp(dir)) {
		test_skip("no temporary directory");
		return;
	}
	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(bad, sizeof(bad), "%s/bad", dir);
	pb_mm_generate(&p, 13, 17, 19);
	CHECK_INT(pb_mm_write_input(in, &p), 0, "write input");
	CHECK_INT(pb_mm_read_input(in, &q, err, sizeof(err)), 0, "read input");
	CHECK(q.m == 13 && q.n == 17 && q.k == 19 && q.alpha == p.alpha &&
	      q.beta == p.beta && !memcmp(q.a, p.a, 13 * 19 * 4) &&
	      !memcmp(q.b, p.b, 19 * 17 * 4) && !memcmp(q.c, p.c, 13 * 17 * 4),
	      "input round trip");
	pb_mm_release(&q);
	CHECK_INT(pb_mm_write_output(out, 13, 17, p.c), 0, "write output");
	CHECK_INT(pb_mm_read_output(out, &m, &n, &c, err, sizeof(err)), 0, "read output");
	CHECK(m == 13 && n == 17 && !memcmp(c, p.c, 13 * 17 * 4), "output round trip");
	free(c);
	CHECK_INT(pb_mm_read_input(out, &q, err, sizeof(err)), -1, "output is not input");
	CHECK(strstr(err, "not an mm input") != NULL, "wrong magic named");
	CHECK_INT(pb_mm_read_input("/nonexistent/x", &q, err, sizeof(err)), -1,
		  "missing file");
	size_t len = 0;
	char *buf = pb_read_file(in, &len);
	pb_write_file(bad, buf, len + 0 - 8);
	CHECK_INT(pb_mm_read_input(bad, &q, err, sizeof(err)), -1, "truncated input");
	CHECK(strstr(err, "does not match") != NULL, "size mismatch named");
	int32_t neg = -3;
	memcpy(buf + 12, &neg, 4);
	pb_write_file(bad, buf, len);
	CHECK_INT(pb_mm_read_input(bad, &q, err, sizeof(err)), -1, "negative dimension");
	CHECK(strstr(err, "bad dimensions") != NULL, "bad dimension named");
	CHECK_INT(pb_mm_read_output(in, &m, &n, &c, err, sizeof(err)), -1,
		  "input is not output");
	free(buf);
	pb_mm_release(&p);
	unlink(in);
	unlink(out);
	unlink(bad);
	rmdir(dir);
}

int main(void)
{
	test_by_hand();
	test_check();
	test_generator();
	test_files();
	return test_done();
}
