/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for lbm's CPU side (workloads/parboil/lbm/lbm_ref.c): pure
 * streaming and bounce-back traced by hand, the collision against the
 * textbook equilibrium in double, conservation of mass, the body force,
 * independence of the compartments, the generator's determinism and the
 * input/output files with their errors.
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "workloads/parboil/common/pb.h"
#include "workloads/parboil/lbm/lbm_d3q19.h"
#include "workloads/parboil/lbm/lbm_ref.h"

static const int ex_[LBM_Q] = { 0, 1, -1, 0, 0, 0, 0, 1, -1, 1, -1, 1, -1, 1, -1, 0, 0, 0, 0 };
static const int ey_[LBM_Q] = { 0, 0, 0, 1, -1, 0, 0, 1, -1, -1, 1, 0, 0, 0, 0, 1, -1, 1, -1 };
static const int ez_[LBM_Q] = { 0, 0, 0, 0, 0, 1, -1, 0, 0, 0, 0, 1, -1, -1, 1, 1, -1, -1, 1 };

/* A box of nx x ny x nz with only the outer y/z walls, all zero. */
static void make_box(struct pb_lbm_problem *p, int nx, int ny, int nz)
{
	size_t n = (size_t)nx * ny * nz;

	memset(p, 0, sizeof(*p));
	p->nx = nx;
	p->ny = ny;
	p->nz = nz;
	p->ncy = 1;
	p->ncz = 1;
	p->steps = 1;
	p->omega = 1.0f;
	p->force = 0.0f;
	p->flags = calloc(n, 1);
	p->f = calloc(n * LBM_Q, sizeof(float));
	for (int z = 0; z < nz; z++) {
		for (int y = 0; y < ny; y++) {
			for (int x = 0; x < nx; x++) {
				size_t c = ((size_t)z * ny + y) * nx + x;
				p->flags[c] = y == 0 || y == ny - 1 || z == 0 ||
					      z == nz - 1;
			}
		}
	}
}

static size_t idx(const struct pb_lbm_problem *p, int x, int y, int z)
{
	return ((size_t)z * p->ny + y) * p->nx + x;
}

/* Fill the fluid cells with the equilibrium at rest (f_i = w_i). */
static void at_rest(struct pb_lbm_problem *p)
{
	size_t n = pb_lbm_cells(p);

	for (size_t cell = 0; cell < n; cell++) {
		for (int i = 0; i < LBM_Q && !p->flags[cell]; i++) {
			p->f[i * n + cell] = i == 0 ? LBM_W0 : i <= 6 ? LBM_W1 : LBM_W2;
		}
	}
}

static void step(const struct pb_lbm_problem *p, float *dst)
{
	size_t n = pb_lbm_cells(p);
	uint32_t *mask = malloc(n * sizeof(uint32_t));
	float fw1, fw2;

	pb_lbm_make_mask(p, mask);
	pb_lbm_force_terms(p->force, &fw1, &fw2);
	pb_lbm_step_ref(p->f, dst, mask, p->nx, p->ny, p->nz, p->omega, fw1, fw2);
	free(mask);
}

static void test_dirs(void)
{
	int ok = 1;

	for (int i = 1; i < LBM_Q; i++) {
		int o = LBM_OPP(i);
		ok &= ex_[o] == -ex_[i] && ey_[o] == -ey_[i] && ez_[o] == -ez_[i];
	}
	CHECK(ok, "LBM_OPP pairs opposite velocities");
	CHECK_NEAR(LBM_W0 + 6 * LBM_W1 + 12 * LBM_W2, 1.0, 1e-7, "weights sum to 1");
}

/*
 * With omega = 0 and no force the collision is the identity, so one step
 * is pure streaming over a fluid at rest (which streaming leaves as it
 * is): a marked population moves one cell along its direction, wraps
 * around in x, and bounces back off a wall.
 */
static void test_streaming(void)
{
	struct pb_lbm_problem p;
	size_t n;
	float *out, a, b, c;
	double in_sum = 0, out_sum = 0;

	make_box(&p, 6, 5, 5);
	at_rest(&p);
	n = pb_lbm_cells(&p);
	out = malloc(n * LBM_Q * sizeof(float));
	p.omega = 0.0f;
	/* Direction 7 (+x+y) at (2,2,2) moves to (3,3,2). */
	a = p.f[7 * n + idx(&p, 2, 2, 2)] += 0.5f;
	/* Direction 2 (-x) at x = 0 wraps to x = 5. */
	b = p.f[2 * n + idx(&p, 0, 1, 1)] += 0.25f;
	/* Direction 5 (+z) at z = 3 hits the wall at z = 4: comes back as 6. */
	c = p.f[5 * n + idx(&p, 1, 2, 3)] += 0.125f;
	step(&p, out);
	CHECK(out[7 * n + idx(&p, 3, 3, 2)] == a, "diagonal population streams");
	CHECK(out[7 * n + idx(&p, 2, 2, 2)] == LBM_W2, "and leaves its cell");
	CHECK(out[2 * n + idx(&p, 5, 1, 1)] == b, "x is periodic");
	CHECK(out[6 * n + idx(&p, 1, 2, 3)] == c, "wall bounces back");
	CHECK(out[5 * n + idx(&p, 1, 2, 3)] == LBM_W1, "from the other side too");
	for (size_t i = 0; i < n * LBM_Q; i++) {
		in_sum += p.f[i];
		out_sum += out[i];
	}
	CHECK_NEAR(out_sum, in_sum, 1e-9, "streaming only moves populations");
	free(out);
	pb_lbm_release(&p);
}

static void test_collision(void)
{
	struct pb_lbm_problem p;
	size_t n, c;
	float *out;
	double rho = 0, jx = 0, jy = 0, jz = 0;

	/* Only cell (1,1,1) is fluid: every neighbour is a wall. */
	make_box(&p, 3, 3, 3);
	memset(p.flags, 1, pb_lbm_cells(&p));
	c = idx(&p, 1, 1, 1);
	p.flags[c] = 0;
	n = pb_lbm_cells(&p);
	out = malloc(n * LBM_Q * sizeof(float));
	for (int i = 0; i < LBM_Q; i++) {
		p.f[i * n + c] = 0.02f + 0.003f * i;
	}
	/* Bounce-back: the cell gathers its own opposite populations. */
	for (int i = 0; i < LBM_Q; i++) {
		double f = p.f[LBM_OPP(i) * n + c];
		rho += f;
		jx += ex_[i] * f;
		jy += ey_[i] * f;
		jz += ez_[i] * f;
	}
	p.omega = 1.0f;		/* the result is the equilibrium itself */
	step(&p, out);
	double ux = jx / rho, uy = jy / rho, uz = jz / rho;
	double usq = ux * ux + uy * uy + uz * uz, worst = 0, mass = 0;
	for (int i = 0; i < LBM_Q; i++) {
		double w = i == 0 ? 1.0 / 3 : i <= 6 ? 1.0 / 18 : 1.0 / 36;
		double eu = ex_[i] * ux + ey_[i] * uy + ez_[i] * uz;
		double feq = w * rho * (1 + 3 * eu + 4.5 * eu * eu - 1.5 * usq);
		double d = fabs(out[i * n + c] - feq);
		worst = d > worst ? d : worst;
		mass += out[i * n + c];
	}
	CHECK_NEAR(worst, 0, 1e-7, "omega = 1 gives the textbook equilibrium");
	CHECK_NEAR(mass, rho, 1e-6, "collision conserves mass");
	int zero = 1;
	for (size_t i = 0; i < n; i++) {
		zero &= i == c || out[3 * n + i] == 0.0f;
	}
	CHECK(zero, "solid cells are zeroed");
	free(out);
	pb_lbm_release(&p);
}

/* At rest, the equilibrium is a fixed point; a force adds momentum. */
static void test_rest_and_force(void)
{
	struct pb_lbm_problem p;
	size_t n, c;
	float *out;
	int same = 1;

	make_box(&p, 4, 6, 6);
	at_rest(&p);
	n = pb_lbm_cells(&p);
	out = malloc(n * LBM_Q * sizeof(float));
	p.omega = 1.3f;
	step(&p, out);
	for (size_t i = 0; i < n * LBM_Q; i++) {
		same &= fabsf(out[i] - p.f[i]) <= 1e-6f;
	}
	CHECK(same, "fluid at rest stays at rest");
	p.force = 1e-3f;
	step(&p, out);
	c = idx(&p, 1, 2, 2);
	double jx = 0, rho = 0;
	for (int i = 0; i < LBM_Q; i++) {
		jx += ex_[i] * (double)out[i * n + c];
		rho += out[i * n + c];
	}
	CHECK_NEAR(jx, 1e-3, 1e-7, "the force adds its momentum");
	CHECK_NEAR(rho, 1.0, 1e-6, "and no mass");
	free(out);
	pb_lbm_release(&p);
}

static void test_mask(void)
{
	struct pb_lbm_problem p;
	uint32_t *mask;

	make_box(&p, 5, 5, 5);
	mask = malloc(pb_lbm_cells(&p) * sizeof(uint32_t));
	p.flags[idx(&p, 3, 2, 2)] = 1;	/* obstacle at +x of (2,2,2) */
	pb_lbm_make_mask(&p, mask);
	/* x - e_2 = x + 1 is the obstacle: bit 2 (direction -x). */
	CHECK_INT(mask[idx(&p, 2, 2, 2)], 1u << 2, "neighbour bit of an obstacle");
	CHECK_INT(mask[idx(&p, 3, 2, 2)], LBM_MASK_SOLID, "solid cell");
	/* (1,1,1): the walls y = 0 and z = 0 are upstream of ey or ez = 1. */
	uint32_t want = 0;
	for (int i = 1; i < LBM_Q; i++) {
		if (1 - ey_[i] == 0 || 1 - ez_[i] == 0) {
			want |= 1u << i;
		}
	}
	CHECK_INT(mask[idx(&p, 1, 1, 1)], want, "corner cell sees both walls");
	free(mask);
	pb_lbm_release(&p);
}

static void test_generator(void)
{
	struct pb_lbm_problem a, b;
	int nx, ny, nz;
	char err[256];

	CHECK_INT(pb_lbm_dims(1.0, &nx, &ny, &nz, err, sizeof(err)), 0, "dims at -s 1");
	CHECK(nx == 128 && ny == 128 && nz == 192, "default lattice 128x128x192");
	CHECK((double)nx * ny * nz * LBM_Q * 4 >= 100e6, "lattice copy is >= 100 MB");
	CHECK_INT(pb_lbm_dims(0.01, &nx, &ny, &nz, err, sizeof(err)), 0, "dims at -s 0.01");
	CHECK_INT(pb_lbm_dims(1e6, &nx, &ny, &nz, err, sizeof(err)), -1, "huge scale refused");
	CHECK(strstr(err, "2^31") != NULL, "with a reason");

	pb_lbm_dims(0.01, &nx, &ny, &nz, err, sizeof(err));
	pb_lbm_generate(&a, nx, ny, nz);
	pb_lbm_generate(&b, nx, ny, nz);
	size_t n = pb_lbm_cells(&a);
	CHECK(!memcmp(a.flags, b.flags, n) &&
	      !memcmp(a.f, b.f, n * LBM_Q * sizeof(float)), "generator is deterministic");
	CHECK_INT(pb_lbm_validate(&a, err, sizeof(err)), 0, "generated problem is valid");
	size_t solid = 0;
	for (size_t i = 0; i < n; i++) {
		solid += a.flags[i];
	}
	CHECK(solid > n / 4 && solid < n * 9 / 10, "walls and obstacles present");
	a.flags[idx(&a, 3, 0, 5)] = 0;
	CHECK_INT(pb_lbm_validate(&a, err, sizeof(err)), -1, "missing wall rejected");
	CHECK(strstr(err, "wall") != NULL, "error names the wall");
	pb_lbm_release(&a);
	pb_lbm_release(&b);
}

/* Running a compartment alone gives the same bits as the whole lattice. */
static void test_compartments(void)
{
	struct pb_lbm_problem p;
	int nx, ny, nz;
	char err[256];

	pb_lbm_dims(0.01, &nx, &ny, &nz, err, sizeof(err));
	pb_lbm_generate(&p, nx, ny, nz);
	p.steps = 5;
	size_t n = pb_lbm_cells(&p), ns = pb_lbm_compartment_cells(&p);
	float *a = malloc(n * LBM_Q * sizeof(float));
	float *b = malloc(n * LBM_Q * sizeof(float));
	float *ref = malloc(ns * LBM_Q * sizeof(float));
	uint32_t *mask = malloc(n * sizeof(uint32_t));
	float fw1, fw2;

	memcpy(a, p.f, n * LBM_Q * sizeof(float));
	pb_lbm_make_mask(&p, mask);
	pb_lbm_force_terms(p.force, &fw1, &fw2);
	for (int t = 0; t < p.steps; t++) {
		pb_lbm_step_ref(a, b, mask, nx, ny, nz, p.omega, fw1, fw2);
		float *tmp = a;
		a = b;
		b = tmp;
	}
	int k = pb_lbm_compartments(&p) - 1;
	double md;
	size_t exact;
	CHECK_INT(pb_lbm_run_compartment(&p, k, ref), 0, "run last compartment");
	CHECK_INT(pb_lbm_compare_compartment(&p, k, a, ref, 0.0, &md, &exact), 0,
		  "compartment alone == compartment in the lattice");
	CHECK_INT(exact, ns * LBM_Q, "bit for bit");
	CHECK_INT(pb_lbm_run_compartment(&p, 5, ref), 0, "run compartment 5");
	CHECK_INT(pb_lbm_compare_compartment(&p, 5, a, ref, 0.0, &md, &exact), 0,
		  "middle compartment too");
	double m0 = pb_lbm_mass(&p, p.f), m1 = pb_lbm_mass(&p, a);
	CHECK_NEAR((m1 - m0) / m0, 0, 1e-6, "mass is conserved");

	/* The comparison notices a wrong value and a NaN. */
	size_t c1 = ((size_t)2 * ny + 2) * nx + 1;	/* (1,2,2), compartment 0 */
	a[4 * n + c1] += 1e-3f;
	CHECK_INT(pb_lbm_compare_compartment(&p, 5, a, ref, 1e-5, &md, &exact), 0,
		  "other compartments unaffected");
	CHECK(pb_lbm_run_compartment(&p, 0, ref) == 0, "run compartment 0");
	CHECK_INT(pb_lbm_compare_compartment(&p, 0, a, ref, 1e-5, &md, &exact), 1,
		  "a changed value is caught");
	CHECK_NEAR(md, 1e-3, 1e-5, "and measured");
	a[4 * n + c1] = NAN;
	CHECK_INT(pb_lbm_compare_compartment(&p, 0, a, ref, 1e-5, &md, &exact), 1,
		  "NaN never passes");
	free(a);
	free(b);
	free(ref);
	free(mask);
	pb_lbm_release(&p);
}

static void test_files(void)
{
	char dir[] = "/tmp/gpumix-lbm.XXXXXX";
	char in[256], out[256], bad[256], err[256];
	struct pb_lbm_problem p, q;
	int nx, ny, nz, steps;
	float *f;

	if (!mkdtemp(dir)) {
		test_skip("no temporary directory");
		return;
	}
	snprintf(in, sizeof(in), "%s/in", dir);
	snprintf(out, sizeof(out), "%s/out", dir);
	snprintf(bad, sizeof(bad), "%s/bad", dir);
	pb_lbm_dims(0.01, &nx, &ny, &nz, err, sizeof(err));
	pb_lbm_generate(&p, nx, ny, nz);
	size_t n = pb_lbm_cells(&p);
	CHECK_INT(pb_lbm_write_input(in, &p), 0, "write input");
	CHECK_INT(pb_lbm_read_input(in, &q, err, sizeof(err)), 0, "read input");
	CHECK(q.nx == p.nx && q.ny == p.ny && q.nz == p.nz && q.ncy == p.ncy &&
	      q.ncz == p.ncz && q.steps == p.steps && q.omega == p.omega &&
	      q.force == p.force, "header round trip");
	CHECK(!memcmp(q.flags, p.flags, n) &&
	      !memcmp(q.f, p.f, n * LBM_Q * sizeof(float)), "lattice round trip");
	pb_lbm_release(&q);

	CHECK_INT(pb_lbm_write_output(out, &p, p.f), 0, "write output");
	CHECK_INT(pb_lbm_read_output(out, &nx, &ny, &nz, &steps, &f, err, sizeof(err)),
		  0, "read output");
	CHECK(nx == p.nx && steps == p.steps && !memcmp(f, p.f, n * LBM_Q * 4),
	      "output round trip");
	free(f);

	CHECK_INT(pb_lbm_read_input(out, &q, err, sizeof(err)), -1, "output is not an input");
	CHECK(strstr(err, "not an lbm input") != NULL, "wrong magic named");
	CHECK_INT(pb_lbm_read_input("/nonexistent/x", &q, err, sizeof(err)), -1,
		  "missing file");
	CHECK(strstr(err, "cannot read") != NULL, "missing file named");
	size_t len = 0;
	char *buf = pb_read_file(in, &len);
	pb_write_file(bad, buf, len - 4);
	CHECK_INT(pb_lbm_read_input(bad, &q, err, sizeof(err)), -1, "truncated input");
	CHECK(strstr(err, "does not match") != NULL, "size mismatch named");
	float nan = NAN;
	memcpy(buf + len - 4, &nan, 4);
	pb_write_file(bad, buf, len);
	CHECK_INT(pb_lbm_read_input(bad, &q, err, sizeof(err)), -1, "NaN input");
	CHECK(strstr(err, "not finite") != NULL, "NaN named");
	pb_write_file(bad, buf, 20);
	CHECK_INT(pb_lbm_read_input(bad, &q, err, sizeof(err)), -1, "short header");
	CHECK_INT(pb_lbm_read_output(bad, &nx, &ny, &nz, &steps, &f, err, sizeof(err)),
		  -1, "bad output file");
	free(buf);
	pb_lbm_release(&p);
	unlink(in);
	unlink(out);
	unlink(bad);
	rmdir(dir);
}

int main(void)
{
	test_dirs();
	test_streaming();
	test_collision();
	test_rest_and_force();
	test_mask();
	test_generator();
	test_compartments();
	test_files();
	return test_done();
}
