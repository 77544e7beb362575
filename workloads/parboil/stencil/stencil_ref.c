/* SPDX-License-Identifier: MIT */
/*
 * stencil's generator, files, dependence-cone reference and comparison
 * (see stencil_ref.h).
 */
#include "stencil_ref.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

static const char input_magic[8] = { 'G', 'M', 'S', 'T', 'E', 'N', 'I', '1' };
static const char output_magic[8] = { 'G', 'M', 'S', 'T', 'E', 'N', 'O', '1' };

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

void stencil_dims_for_scale(double scale, uint32_t *nx, uint32_t *ny,
			    uint32_t *nz)
{
	double side = STENCIL_NXY * sqrt(scale);

	if (!(side >= 3)) {
		side = 3;
	}
	if (side > 65536) {
		side = 65536;
	}
	*nx = *ny = (uint32_t)(side + 0.5);
	*nz = STENCIL_NZ;
}

void stencil_free(struct stencil_problem *p)
{
	free(p->grid);
	memset(p, 0, sizeof(*p));
}

static size_t cells_of(uint32_t nx, uint32_t ny, uint32_t nz)
{
	return (size_t)nx * ny * nz;
}

int stencil_generate(struct stencil_problem *p, uint32_t nx, uint32_t ny,
		     uint32_t nz, uint32_t iterations, uint64_t seed, char *err,
		     size_t errlen)
{
	struct pb_rng rng;
	size_t n = cells_of(nx, ny, nz);

	memset(p, 0, sizeof(*p));
	if (!nx || !ny || !nz) {
		return fail(err, errlen, "grid %ux%ux%u has no cells", nx, ny, nz);
	}
	p->grid = malloc(n * sizeof(float));
	if (!p->grid) {
		return fail(err, errlen, "out of memory for %zu cells", n);
	}
	p->nx = nx;
	p->ny = ny;
	p->nz = nz;
	p->iterations = iterations;
	p->c0 = STENCIL_C0;
	p->c1 = STENCIL_C1;
	pb_rng_seed(&rng, seed);
	for (size_t i = 0; i < n; i++) {
		p->grid[i] = pb_rng_float(&rng);
	}
	return 0;
}

static int write_all(FILE *f, const void *p, size_t len)
{
	return fwrite(p, 1, len, f) == len ? 0 : -1;
}

static int write_grid_file(const char *path, const char *magic,
			   const uint32_t hdr[4], const float tail[2],
			   const float *grid, size_t cells)
{
	FILE *f = fopen(path, "wb");
	int rc = 0;

	if (!f) {
		return -1;
	}
	rc |= write_all(f, magic, 8);
	rc |= write_all(f, hdr, 4 * sizeof(uint32_t));
	if (tail) {
		rc |= write_all(f, tail, 2 * sizeof(float));
	}
	rc |= write_all(f, grid, cells * sizeof(float));
	if (fclose(f)) {
		rc = -1;
	}
	return rc;
}

int stencil_write_input(const char *path, const struct stencil_problem *p)
{
	uint32_t hdr[4] = { p->nx, p->ny, p->nz, p->iterations };
	float coef[2] = { p->c0, p->c1 };

	return write_grid_file(path, input_magic, hdr, coef, p->grid,
			       cells_of(p->nx, p->ny, p->nz));
}

int stencil_write_output(const char *path, const float *grid, uint32_t nx,
			 uint32_t ny, uint32_t nz)
{
	uint32_t hdr[4] = { nx, ny, nz, 0 };

	return write_grid_file(path, output_magic, hdr, NULL, grid,
			       cells_of(nx, ny, nz));
}

/*
 * Read a grid file with @magic and @extra bytes after the 4-word header
 * (copied to @extra_out); returns the grid or NULL with @err.
 */
static float *read_grid_file(const char *path, const char *magic,
			     const char *what, uint32_t hdr[4], size_t extra,
			     void *extra_out, char *err, size_t errlen)
{
	size_t len = 0;
	char *buf = pb_read_file(path, &len);
	size_t head = 8 + 16 + extra;
	float *grid;

	if (!buf) {
		fail(err, errlen, "cannot read '%s': %s", path, strerror(errno));
		return NULL;
	}
	if (len < head || memcmp(buf, magic, 8)) {
		free(buf);
		fail(err, errlen, "'%s' is not a stencil %s file (bad magic)", path, what);
		return NULL;
	}
	memcpy(hdr, buf + 8, 16);
	uint64_t cells = (uint64_t)hdr[0] * hdr[1] * hdr[2];
	if (!cells || hdr[0] > 65536 || hdr[1] > 65536 || hdr[2] > 65536 ||
	    head + 4 * cells != len) {
		free(buf);
		fail(err, errlen,
		     "'%s': grid %ux%ux%u does not match the file size %zu",
		     path, hdr[0], hdr[1], hdr[2], len);
		return NULL;
	}
	if (extra) {
		memcpy(extra_out, buf + 24, extra);
	}
	grid = malloc(cells * sizeof(float));
	if (!grid) {
		free(buf);
		fail(err, errlen, "out of memory reading '%s'", path);
		return NULL;
	}
	memcpy(grid, buf + head, cells * sizeof(float));
	free(buf);
	return grid;
}

int stencil_read_input(const char *path, struct stencil_problem *p, char *err,
		       size_t errlen)
{
	uint32_t hdr[4];
	float coef[2];
	float *grid;

	memset(p, 0, sizeof(*p));
	grid = read_grid_file(path, input_magic, "input", hdr, sizeof(coef), coef,
			      err, errlen);
	if (!grid) {
		return -1;
	}
	size_t n = cells_of(hdr[0], hdr[1], hdr[2]);
	for (size_t i = 0; i < n; i++) {
		if (!isfinite(grid[i])) {
			free(grid);
			return fail(err, errlen, "'%s': cell %zu is not finite", path, i);
		}
	}
	if (!isfinite(coef[0]) || !isfinite(coef[1])) {
		free(grid);
		return fail(err, errlen, "'%s': coefficients are not finite", path);
	}
	p->nx = hdr[0];
	p->ny = hdr[1];
	p->nz = hdr[2];
	p->iterations = hdr[3];
	p->c0 = coef[0];
	p->c1 = coef[1];
	p->grid = grid;
	return 0;
}

float *stencil_read_output(const char *path, uint32_t *nx, uint32_t *ny,
			   uint32_t *nz, char *err, size_t errlen)
{
	uint32_t hdr[4];
	float *grid = read_grid_file(path, output_magic, "output", hdr, 0, NULL,
				     err, errlen);

	if (grid) {
		*nx = hdr[0];
		*ny = hdr[1];
		*nz = hdr[2];
	}
	return grid;
}

/* @b grown by @by cells on every side, clipped to the grid of @p. */
static struct stencil_box grow(const struct stencil_problem *p,
			       const struct stencil_box *b, uint32_t by)
{
	struct stencil_box g;

	g.x0 = b->x0 > by ? b->x0 - by : 0;
	g.y0 = b->y0 > by ? b->y0 - by : 0;
	g.z0 = b->z0 > by ? b->z0 - by : 0;
	g.x1 = p->nx - b->x1 > by ? b->x1 + by : p->nx;
	g.y1 = p->ny - b->y1 > by ? b->y1 + by : p->ny;
	g.z1 = p->nz - b->z1 > by ? b->z1 + by : p->nz;
	return g;
}

static double box_cells(const struct stencil_box *b)
{
	return (double)(b->x1 - b->x0) * (b->y1 - b->y0) * (b->z1 - b->z0);
}

double stencil_box_cost(const struct stencil_problem *p,
			const struct stencil_box *b)
{
	double cost = 0;

	for (uint32_t t = 1; t <= p->iterations; t++) {
		struct stencil_box e = grow(p, b, p->iterations - t);
		cost += box_cells(&e);
	}
	return cost;
}

int stencil_ref_box(const struct stencil_problem *p,
		    const struct stencil_box *b, float *out)
{
	struct stencil_box e0 = grow(p, b, p->iterations);
	size_t sx = e0.x1 - e0.x0, sy = e0.y1 - e0.y0, sz = e0.z1 - e0.z0;
	size_t sxy = sx * sy;
	float *a = malloc(sxy * sz * sizeof(float));
	float *nb = malloc(sxy * sz * sizeof(float));
	const float c0 = p->c0, c1 = p->c1;

	if (!a || !nb) {
		free(a);
		free(nb);
		return -1;
	}
	for (uint32_t z = e0.z0; z < e0.z1; z++) {
		for (uint32_t y = e0.y0; y < e0.y1; y++) {
			memcpy(a + ((z - e0.z0) * sy + (y - e0.y0)) * sx,
			       p->grid + ((size_t)z * p->ny + y) * p->nx + e0.x0,
			       sx * sizeof(float));
		}
	}
	for (uint32_t t = 1; t <= p->iterations; t++) {
		struct stencil_box e = grow(p, b, p->iterations - t);
		for (uint32_t z = e.z0; z < e.z1; z++) {
			int zb = z == 0 || z == p->nz - 1;
			for (uint32_t y = e.y0; y < e.y1; y++) {
				int yb = zb || y == 0 || y == p->ny - 1;
				size_t row = ((z - e0.z0) * sy + (y - e0.y0)) * sx - e0.x0;
				for (uint32_t x = e.x0; x < e.x1; x++) {
					size_t i = row + x;
					if (yb || x == 0 || x == p->nx - 1) {
						nb[i] = a[i];
						continue;
					}
					float s = a[i - 1] + a[i + 1];
					s += a[i - sx];
					s += a[i + sx];
					s += a[i - sxy];
					s += a[i + sxy];
					nb[i] = fmaf(c1, s, c0 * a[i]);
				}
			}
		}
		float *tmp = a;
		a = nb;
		nb = tmp;
	}
	size_t o = 0;
	for (uint32_t z = b->z0; z < b->z1; z++) {
		for (uint32_t y = b->y0; y < b->y1; y++) {
			size_t w = b->x1 - b->x0;
			memcpy(out + o, a + ((z - e0.z0) * sy + (y - e0.y0)) * sx +
			       (b->x0 - e0.x0), w * sizeof(float));
			o += w;
		}
	}
	free(a);
	free(nb);
	return 0;
}

static struct stencil_box patch(const struct stencil_problem *p, uint32_t x0,
				uint32_t y0, uint32_t w, uint32_t h)
{
	struct stencil_box b = { x0, x0 + w, y0, y0 + h, 0, p->nz };
	return b;
}

int stencil_verify_boxes(const struct stencil_problem *p, uint64_t seed,
			 struct stencil_box *boxes)
{
	struct stencil_box all = { 0, p->nx, 0, p->ny, 0, p->nz };
	struct pb_rng rng;
	double patches = 0;

	uint32_t w = p->nx < STENCIL_PATCH ? p->nx : STENCIL_PATCH;
	uint32_t h = p->ny < STENCIL_PATCH ? p->ny : STENCIL_PATCH;
	uint32_t fx = p->nx - w, fy = p->ny - h;
	pb_rng_seed(&rng, seed);
	boxes[0] = patch(p, 0, 0, w, h);
	boxes[1] = patch(p, fx, fy, w, h);
	boxes[2] = patch(p, 0, fy / 2, w, h);
	boxes[3] = patch(p, fx / 2, fy / 2, w, h);
	boxes[4] = patch(p, pb_rng_below(&rng, fx + 1), pb_rng_below(&rng, fy + 1),
			 w, h);
	for (int i = 0; i < 5; i++) {
		patches += stencil_box_cost(p, &boxes[i]);
	}
	/* Small grids: the whole grid costs no more than the patches. */
	if (stencil_box_cost(p, &all) <= (patches > STENCIL_FULL_LIMIT
					  ? patches : STENCIL_FULL_LIMIT)) {
		boxes[0] = all;
		return 1;
	}
	return 5;
}

uint64_t stencil_compare_box(const struct stencil_problem *p, const float *gpu,
			     const struct stencil_box *b, const float *ref,
			     double tol, struct stencil_cmp *c)
{
	uint64_t bad = 0;
	size_t o = 0;

	for (uint32_t z = b->z0; z < b->z1; z++) {
		for (uint32_t y = b->y0; y < b->y1; y++) {
			for (uint32_t x = b->x0; x < b->x1; x++, o++) {
				float g = gpu[((size_t)z * p->ny + y) * p->nx + x];
				float r = ref[o];
				double rel;

				c->cells++;
				if (!memcmp(&g, &r, sizeof(float))) {
					c->exact++;
					continue;
				}
				if (isnan(g) || isnan(r)) {
					rel = INFINITY;
				} else if (r != 0) {
					rel = fabs((double)g - r) / fabs((double)r);
				} else {
					rel = g == 0 ? 0 : INFINITY;
				}
				if (!(rel <= tol)) {
					bad++;
				}
				if (rel > c->worst || (isinf(rel) && !isinf(c->worst))) {
					c->worst = rel;
					c->wx = x;
					c->wy = y;
					c->wz = z;
				}
			}
		}
	}
	c->bad += bad;
	return bad;
}

uint64_t stencil_count_out_of_range(const struct stencil_problem *p,
				    const float *gpu, double slack)
{
	size_t n = cells_of(p->nx, p->ny, p->nz);
	int convex = p->c0 >= 0 && p->c1 >= 0 &&
		     fabs((double)p->c0 + 6.0 * p->c1 - 1.0) < 1e-6;
	float lo = INFINITY, hi = -INFINITY;
	uint64_t out = 0;

	for (size_t i = 0; i < n; i++) {
		lo = p->grid[i] < lo ? p->grid[i] : lo;
		hi = p->grid[i] > hi ? p->grid[i] : hi;
	}
	for (size_t i = 0; i < n; i++) {
		float g = gpu[i];
		if (!isfinite(g)) {
			out++;
		} else if (convex && (g < lo - slack || g > hi + slack)) {
			out++;
		}
	}
	return out;
}
