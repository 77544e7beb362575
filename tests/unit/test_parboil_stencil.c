/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for stencil's host side: one sweep on a 3x3x3 grid by hand,
 * the dependence-cone reference of many boxes against an independent
 * full-grid Jacobi loop, the choice of verified boxes, the generator's
 * determinism, the -i/-o file round trips and their errors, and the
 * comparisons.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "test.h"
#include "workloads/parboil/stencil/stencil_ref.h"

/* Independent full-grid Jacobi: index arithmetic written out per axis. */
static float *naive(const struct stencil_problem *p)
{
	size_t nx = p->nx, ny = p->ny, nz = p->nz, n = nx * ny * nz;
	float *a = malloc(n * 4), *b = malloc(n * 4);

	memcpy(a, p->grid, n * 4);
	for (uint32_t t = 0; t < p->iterations; t++) {
		for (size_t z = 0; z < nz; z++) {
			for (size_t y = 0; y < ny; y++) {
				for (size_t x = 0; x < nx; x++) {
#define G(X, Y, Z) a[((Z) * ny + (Y)) * nx + (X)]
					float c = G(x, y, z);
					if (x == 0 || y == 0 || z == 0 || x == nx - 1 ||
					    y == ny - 1 || z == nz - 1) {
						b[(z * ny + y) * nx + x] = c;
						continue;
					}
					float s = G(x - 1, y, z) + G(x + 1, y, z);
					s += G(x, y - 1, z);
					s += G(x, y + 1, z);
					s += G(x, y, z - 1);
					s += G(x, y, z + 1);
					b[(z * ny + y) * nx + x] = fmaf(p->c1, s, p->c0 * c);
#undef G
				}
			}
		}
		float *t2 = a;
		a = b;
		b = t2;
	}
	free(b);
	return a;
}

static void test_hand(void)
{
	struct stencil_problem p;
	char err[200];
	struct stencil_box all = { 0, 3, 0, 3, 0, 3 };
	float out[27];

	stencil_generate(&p, 3, 3, 3, 1, 1, err, sizeof(err));
	for (int i = 0; i < 27; i++) {
		p.grid[i] = (float)i;
	}
	CHECK_INT(stencil_ref_box(&p, &all, out), 0, "reference of a 3x3x3 grid");
	/* Neighbours of 13: 12, 14, 10, 16, 4, 22 sum to 78. */
	CHECK(out[13] == 0.125f * 78 + 0.25f * 13, "center: 0.125*78 + 0.25*13 = 13");
	int same = 1;
	for (int i = 0; i < 27; i++) {
		same &= i == 13 || out[i] == (float)i;
	}
	CHECK(same, "surface cells keep their values");
	p.c0 = 0.5f;
	p.c1 = 0.25f;
	stencil_ref_box(&p, &all, out);
	CHECK(out[13] == 26.0f, "other coefficients: 0.25*78 + 0.5*13 = 26");
	p.iterations = 0;
	stencil_ref_box(&p, &all, out);
	CHECK(!memcmp(out, p.grid, sizeof(out)), "zero sweeps: the input");
	stencil_free(&p);
}

static int box_matches(const struct stencil_problem *p, const float *full,
		       struct stencil_box b)
{
	size_t n = (size_t)(b.x1 - b.x0) * (b.y1 - b.y0) * (b.z1 - b.z0), o = 0;
	float *out = malloc(n * 4);
	int ok = stencil_ref_box(p, &b, out) == 0;

	for (uint32_t z = b.z0; z < b.z1; z++) {
		for (uint32_t y = b.y0; y < b.y1; y++) {
			for (uint32_t x = b.x0; x < b.x1; x++) {
				float f = full[((size_t)z * p->ny + y) * p->nx + x];
				ok &= !memcmp(&f, &out[o++], 4);
			}
		}
	}
	free(out);
	return ok;
}

static void test_cone(void)
{
	struct stencil_problem p;
	char err[200];

	CHECK_INT(stencil_generate(&p, 37, 29, 11, 9, 5, err, sizeof(err)), 0,
		  "generate 37x29x11");
	float *full = naive(&p);
	struct stencil_box all = { 0, 37, 0, 29, 0, 11 };
	CHECK(box_matches(&p, full, all), "whole-grid reference equals the naive loop");
	struct stencil_box inner = { 14, 17, 10, 13, 4, 7 };
	CHECK(box_matches(&p, full, inner), "interior box (cone clipped only in z)");
	struct stencil_box corner = { 0, 4, 0, 5, 0, 11 };
	CHECK(box_matches(&p, full, corner), "corner column");
	struct stencil_box far = { 33, 37, 25, 29, 8, 11 };
	CHECK(box_matches(&p, full, far), "far corner");
	struct stencil_box edge = { 0, 2, 12, 16, 3, 9 };
	CHECK(box_matches(&p, full, edge), "edge box");
	struct stencil_box cell = { 18, 19, 14, 15, 5, 6 };
	CHECK(box_matches(&p, full, cell), "one cell");
	CHECK(stencil_box_cost(&p, &cell) < stencil_box_cost(&p, &all),
	      "a cell's cone costs less than the grid");
	CHECK_NEAR(stencil_box_cost(&p, &all), 37.0 * 29 * 11 * 9, 0.5,
		   "full cost = cells * sweeps");
	free(full);

	/* More sweeps than the grid is wide: the cone covers everything. */
	p.iterations = 40;
	full = naive(&p);
	CHECK(box_matches(&p, full, inner), "interior box after 40 sweeps");
	CHECK(box_matches(&p, full, far), "far corner after 40 sweeps");
	free(full);
	stencil_free(&p);
}

static void test_boxes(void)
{
	struct stencil_problem p = { 1024, 1024, 64, 100, 0.25f, 0.125f, NULL };
	struct stencil_box b[STENCIL_MAX_BOXES];
	int n = stencil_verify_boxes(&p, 3, b);
	double cost = 0;
	int inside = 1;

	CHECK_INT(n, 5, "large grid: five patches");
	for (int i = 0; i < n; i++) {
		inside &= b[i].x1 <= p.nx && b[i].y1 <= p.ny && b[i].z1 == p.nz &&
			  b[i].x1 - b[i].x0 == STENCIL_PATCH &&
			  b[i].y1 - b[i].y0 == STENCIL_PATCH && b[i].z0 == 0;
		cost += stencil_box_cost(&p, &b[i]);
	}
	CHECK(inside, "patches lie inside and span every plane");
	CHECK(b[0].x0 == 0 && b[0].y0 == 0, "first patch at the corner");
	CHECK(b[1].x1 == p.nx && b[1].y1 == p.ny, "second at the far corner");
	CHECK(cost < 4e8, "patches cost under 4e8 updates (about 1 s)");
	struct stencil_problem small = { 40, 30, 8, 100, 0.25f, 0.125f, NULL };
	CHECK_INT(stencil_verify_boxes(&small, 3, b), 1, "small grid: one box");
	CHECK(b[0].x1 == 40 && b[0].y1 == 30 && b[0].z1 == 8, "it is the whole grid");

	uint32_t nx, ny, nz;
	stencil_dims_for_scale(1.0, &nx, &ny, &nz);
	CHECK(nx == STENCIL_NXY && ny == STENCIL_NXY && nz == STENCIL_NZ, "scale 1");
	stencil_dims_for_scale(0.01, &nx, &ny, &nz);
	CHECK_INT(nx, 102, "scale 0.01: 102 cells wide");
	stencil_dims_for_scale(1e-9, &nx, &ny, &nz);
	CHECK_INT(nx, 3, "tiny scale: 3 cells wide");
}

static void test_generate_files(void)
{
	struct stencil_problem a, b;
	char err[200], path[] = "/tmp/gm-test-stencil-XXXXXX";
	int fd = mkstemp(path);
	uint32_t nx, ny, nz;

	close(fd);
	stencil_generate(&a, 20, 10, 5, 7, 9, err, sizeof(err));
	stencil_generate(&b, 20, 10, 5, 7, 9, err, sizeof(err));
	CHECK(!memcmp(a.grid, b.grid, 1000 * 4), "same seed, same grid");
	int range = 1;
	for (int i = 0; i < 1000; i++) {
		range &= a.grid[i] >= 0 && a.grid[i] < 1;
	}
	CHECK(range, "values in [0, 1)");
	stencil_free(&b);
	CHECK_INT(stencil_generate(&b, 0, 10, 5, 7, 9, err, sizeof(err)), -1,
		  "empty grid refused");

	a.c0 = 0.5f;
	CHECK_INT(stencil_write_input(path, &a), 0, "write input");
	CHECK_INT(stencil_read_input(path, &b, err, sizeof(err)), 0, "read input");
	CHECK(b.nx == 20 && b.ny == 10 && b.nz == 5 && b.iterations == 7 &&
	      b.c0 == 0.5f && b.c1 == a.c1 && !memcmp(a.grid, b.grid, 4000),
	      "input round trip is exact");
	stencil_free(&b);

	a.grid[17] = nanf("");
	stencil_write_input(path, &a);
	CHECK_INT(stencil_read_input(path, &b, err, sizeof(err)), -1, "NaN cell refused");
	CHECK(strstr(err, "cell 17") != NULL, "message names the cell");
	a.grid[17] = 0.5f;

	CHECK_INT(stencil_write_output(path, a.grid, 20, 10, 5), 0, "write output");
	float *g = stencil_read_output(path, &nx, &ny, &nz, err, sizeof(err));
	CHECK(g && nx == 20 && ny == 10 && nz == 5 && !memcmp(g, a.grid, 4000),
	      "output round trip");
	free(g);
	CHECK_INT(stencil_read_input(path, &b, err, sizeof(err)), -1, "output is no input");
	CHECK(strstr(err, "bad magic") != NULL, "message says bad magic");
	stencil_write_input(path, &a);
	CHECK(truncate(path, 500) == 0, "truncate");
	CHECK_INT(stencil_read_input(path, &b, err, sizeof(err)), -1, "truncated refused");
	CHECK(strstr(err, "file size") != NULL, "message says the size is wrong");
	CHECK(b.grid == NULL, "nothing allocated after a failed read");
	unlink(path);
	CHECK_INT(stencil_read_input(path, &b, err, sizeof(err)), -1, "missing refused");
	CHECK(stencil_read_output(path, &nx, &ny, &nz, err, sizeof(err)) == NULL,
	      "missing output refused");
	stencil_free(&a);
}

static void test_compare(void)
{
	struct stencil_problem p;
	char err[200];
	struct stencil_cmp c;

	stencil_generate(&p, 8, 8, 8, 3, 2, err, sizeof(err));
	struct stencil_box all = { 0, 8, 0, 8, 0, 8 };
	float *ref = malloc(512 * 4), *gpu = malloc(512 * 4);
	stencil_ref_box(&p, &all, ref);
	memcpy(gpu, ref, 512 * 4);
	memset(&c, 0, sizeof(c));
	CHECK_INT(stencil_compare_box(&p, gpu, &all, ref, 1e-6, &c), 0, "equal grids pass");
	CHECK(c.exact == 512 && c.cells == 512, "all bit-identical");
	CHECK_INT(stencil_count_out_of_range(&p, gpu, 1e-6), 0, "all in range");
	gpu[100] = nanf("");
	gpu[200] = ref[200] * (1 + 1e-4f);
	gpu[300] = ref[300] * (1 + 1e-7f);
	memset(&c, 0, sizeof(c));
	CHECK_INT(stencil_compare_box(&p, gpu, &all, ref, 1e-6, &c), 2,
		  "NaN and 1e-4 off fail, 1e-7 off passes");
	CHECK(c.wx == 100 % 8 && c.wy == 100 / 8 % 8 && c.wz == 100 / 64,
	      "worst cell is the NaN");
	gpu[200] = 1.5f;
	CHECK_INT(stencil_count_out_of_range(&p, gpu, 1e-6), 2,
		  "NaN and 1.5 are out of range");
	free(ref);
	free(gpu);
	stencil_free(&p);
}

int main(void)
{
	test_hand();
	test_cone();
	test_boxes();
	test_generate_files();
	test_compare();
	return test_done();
}
