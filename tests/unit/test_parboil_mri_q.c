/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for mri-q's CPU side (workloads/parboil/mri-q/mri-q_ref.c):
 * Q of hand-computed samples, against an independent complex-exponential
 * formulation, the tolerance check and its failures, the generator, the
 * sampled voxels and the input/output files with their errors.
 */
#include <complex.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "workloads/parboil/common/pb.h"
#include "workloads/parboil/mri-q/mri-q_ref.h"

/* A problem with room for @nk samples and @nx voxels, all zero. */
static void make(struct pb_mriq_problem *p, int nk, int nx)
{
	memset(p, 0, sizeof(*p));
	p->numk = nk;
	p->numx = nx;
	p->kx = calloc(nk, sizeof(float));
	p->ky = calloc(nk, sizeof(float));
	p->kz = calloc(nk, sizeof(float));
	p->phir = calloc(nk, sizeof(float));
	p->phii = calloc(nk, sizeof(float));
	p->x = calloc(nx, sizeof(float));
	p->y = calloc(nx, sizeof(float));
	p->z = calloc(nx, sizeof(float));
}

static void test_by_hand(void)
{
	struct pb_mriq_problem p;
	double qr, qi;

	make(&p, 3, 2);
	/* k = 0, phi = 1 + i: |phi|^2 = 2, contributes (2, 0) everywhere. */
	p.phir[0] = 1.0f;
	p.phii[0] = 1.0f;
	/* k = (0.25, 0, 0), phi = 2: at x = 1, arg = pi/2: (0, 4). */
	p.kx[1] = 0.25f;
	p.phir[1] = 2.0f;
	/* k = (0, 0.5, 0.25), phi = 3i: at y = 1, z = 2, arg = 2 pi: (9, 0). */
	p.ky[2] = 0.5f;
	p.kz[2] = 0.25f;
	p.phii[2] = 3.0f;
	p.x[1] = 1.0f;
	p.y[1] = 1.0f;
	p.z[1] = 2.0f;
	CHECK_NEAR(pb_mriq_phimag(&p, 0), 2.0, 0, "phiMag = phiR^2 + phiI^2");
	CHECK_NEAR(pb_mriq_phimag(&p, 2), 9.0, 0, "phiMag of an imaginary phi");
	pb_mriq_q_ref(&p, 0, &qr, &qi);
	CHECK_NEAR(qr, 15.0, 1e-12, "Qr at the origin is sum |phi|^2");
	CHECK_NEAR(qi, 0.0, 1e-12, "Qi at the origin is 0");
	pb_mriq_q_ref(&p, 1, &qr, &qi);
	CHECK_NEAR(qr, 2.0 + 0.0 + 9.0, 1e-12, "Qr at (1,1,2)");
	CHECK_NEAR(qi, 4.0, 1e-12, "Qi at (1,1,2)");
	CHECK_NEAR(pb_mriq_q_scale(&p), sqrt(4.0 + 16.0 + 81.0), 1e-12,
		   "scale is sqrt(sum |phi|^4)");
	pb_mriq_release(&p);
}

/* Q = sum |phi|^2 exp(2 pi i k.x), computed another way. */
static void test_against_complex(void)
{
	struct pb_mriq_problem p;
	double worst = 0;

	pb_mriq_generate(&p, 300, 40);
	for (int v = 0; v < p.numx; v++) {
		double complex q = 0;
		double qr, qi;

		for (int k = 0; k < p.numk; k++) {
			double mag = hypot(p.phir[k], p.phii[k]);
			double t = (double)p.kx[k] * p.x[v] +
				   (double)p.ky[k] * p.y[v] +
				   (double)p.kz[k] * p.z[v];
			q += mag * mag * cexp(2 * M_PI * I * t);
		}
		pb_mriq_q_ref(&p, v, &qr, &qi);
		worst = fmax(worst, fabs(qr - creal(q)) + fabs(qi - cimag(q)));
	}
	CHECK_NEAR(worst, 0, 1e-9, "reference equals sum |phi|^2 exp(2 pi i k.x)");
	pb_mriq_release(&p);
}

static void test_check(void)
{
	struct pb_mriq_problem p;
	float qr[50], qi[50];
	int v[50];
	double err;

	pb_mriq_generate(&p, 200, 50);
	for (int i = 0; i < 50; i++) {
		double r, im;
		pb_mriq_q_ref(&p, i, &r, &im);
		qr[i] = (float)r;
		qi[i] = (float)im;
		v[i] = i;
	}
	CHECK_INT(pb_mriq_check(&p, qr, qi, v, 50, 1e-6, &err), 0,
		  "rounded reference passes");
	CHECK(err < 1e-6, "with a tiny error");
	double scale = pb_mriq_q_scale(&p);
	qi[7] += (float)(1e-3 * scale);
	CHECK_INT(pb_mriq_check(&p, qr, qi, v, 50, 1e-4, &err), 1,
		  "a wrong Qi is caught");
	CHECK_NEAR(err, 1e-3, 1e-5, "and measured in units of the scale");
	qr[3] = NAN;
	CHECK_INT(pb_mriq_check(&p, qr, qi, v, 50, 1e-4, &err), 2, "NaN never passes");
	pb_mriq_release(&p);
}

static void test_generator(void)
{
	struct pb_mriq_problem a, b;
	int nk, nx, v[100], w[100];
	char err[256];

	CHECK_INT(pb_mriq_sizes(1.0, &nk, &nx, err, sizeof(err)), 0, "sizes at -s 1");
	CHECK(nk == 49152 && nx == 1048576, "48 chunks of 1024 samples, 2^20 voxels");
	CHECK_INT(pb_mriq_sizes(0.01, &nk, &nx, err, sizeof(err)), 0, "sizes at -s 0.01");
	CHECK(nk == 4915 && nx == 104858, "both shrink by sqrt(0.01)");
	CHECK_INT(pb_mriq_sizes(1e6, &nk, &nx, err, sizeof(err)), -1, "huge scale refused");
	pb_mriq_generate(&a, 500, 300);
	pb_mriq_generate(&b, 500, 300);
	CHECK(!memcmp(a.kx, b.kx, 500 * 4) && !memcmp(a.phii, b.phii, 500 * 4) &&
	      !memcmp(a.z, b.z, 300 * 4), "generator is deterministic");
	int in_range = 1;
	for (int k = 0; k < 500; k++) {
		in_range &= fabsf(a.kx[k]) <= 1 && fabsf(a.phir[k]) <= 1;
	}
	for (int i = 0; i < 300; i++) {
		in_range &= fabsf(a.x[i]) <= 16 && fabsf(a.y[i]) <= 16;
	}
	CHECK(in_range, "samples in [-1,1), voxels in [-16,16)");
	pb_mriq_samples(&a, v, 100);
	pb_mriq_samples(&a, w, 100);
	CHECK(v[0] == 0 && v[1] == 299, "samples include the first and last voxel");
	int ok = !memcmp(v, w, sizeof(v));
	for (int i = 0; i < 100; i++) {
		ok &= v[i] >= 0 && v[i] < 300;
	}
	CHECK(ok, "samples are deterministic and in range");
	pb_mriq_release(&a);
	pb_mriq_release(&b);
}

static void test_files(void)
{
	char dir[] = "/tmp/gpumix-mriq.XXXXXX";
	char in[256], out[256], bad[256], err[256];
	struct pb_mriq_problem p, q;
	float *qr, *qi;
	int nx;

	if (!mkdtemp(dir)) {
		test_skip("no temporary directory");
		return;
	}
	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(bad, sizeof(bad), "%s/bad", dir);
	pb_mriq_generate(&p, 123, 77);
	CHECK_INT(pb_mriq_write_input(in, &p), 0, "write input");
	CHECK_INT(pb_mriq_read_input(in, &q, err, sizeof(err)), 0, "read input");
	CHECK(q.numk == 123 && q.numx == 77 && !memcmp(q.ky, p.ky, 123 * 4) &&
	      !memcmp(q.phii, p.phii, 123 * 4) && !memcmp(q.x, p.x, 77 * 4) &&
	      !memcmp(q.z, p.z, 77 * 4), "input round trip");
	pb_mriq_release(&q);
	CHECK_INT(pb_mriq_write_output(out, 77, p.x, p.y), 0, "write output");
	CHECK_INT(pb_mriq_read_output(out, &nx, &qr, &qi, err, sizeof(err)), 0,
		  "read output");
	CHECK(nx == 77 && !memcmp(qr, p.x, 77 * 4) && !memcmp(qi, p.y, 77 * 4),
	      "output round trip");
	free(qr);
	free(qi);

	CHECK_INT(pb_mriq_read_input(out, &q, err, sizeof(err)), -1, "output is not input");
	CHECK(strstr(err, "not an mri-q input") != NULL, "wrong magic named");
	CHECK_INT(pb_mriq_read_input("/nonexistent/x", &q, err, sizeof(err)), -1,
		  "missing file");
	size_t len = 0;
	char *buf = pb_read_file(in, &len);
	pb_write_file(bad, buf, len - 1);
	CHECK_INT(pb_mriq_read_input(bad, &q, err, sizeof(err)), -1, "truncated input");
	CHECK(strstr(err, "does not match") != NULL, "size mismatch named");
	float inf = INFINITY;
	memcpy(buf + len - 4, &inf, 4);
	pb_write_file(bad, buf, len);
	CHECK_INT(pb_mriq_read_input(bad, &q, err, sizeof(err)), -1, "infinite coordinate");
	CHECK(strstr(err, "voxel 76") != NULL, "bad voxel named");
	int32_t zero = 0;
	memcpy(buf + 8, &zero, 4);
	pb_write_file(bad, buf, len);
	CHECK_INT(pb_mriq_read_input(bad, &q, err, sizeof(err)), -1, "zero samples");
	CHECK(strstr(err, "bad sizes") != NULL, "bad size named");
	CHECK_INT(pb_mriq_read_output(in, &nx, &qr, &qi, err, sizeof(err)), -1,
		  "input is not output");
	free(buf);
	pb_mriq_release(&p);
	unlink(in);
	unlink(out);
	unlink(bad);
	rmdir(dir);
}

int main(void)
{
	test_by_hand();
	test_against_complex();
	test_check();
	test_generator();
	test_files();
	return test_done();
}
