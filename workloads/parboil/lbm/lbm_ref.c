/* SPDX-License-Identifier: MIT */
/*
 * lbm's problem generator, file formats and CPU reference (see
 * lbm_ref.h). The time step uses lbm_d3q19.h, the same collision code
 * the kernel uses, so the comparison with the GPU can be tight.
 */
#include "lbm_ref.h"

#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "lbm_d3q19.h"
#include "pb.h"

#define IN_MAGIC "PBLBMIN1"
#define OUT_MAGIC "PBLBMOU1"
#define IN_HEADER 40		/* magic + 6 int32 + 2 float32 */
#define OUT_HEADER 24		/* magic + 4 int32 */

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

size_t pb_lbm_cells(const struct pb_lbm_problem *p)
{
	return (size_t)p->nx * (size_t)p->ny * (size_t)p->nz;
}

int pb_lbm_compartments(const struct pb_lbm_problem *p)
{
	return p->ncy * p->ncz;
}

size_t pb_lbm_compartment_cells(const struct pb_lbm_problem *p)
{
	return (size_t)p->nx * (p->ny / p->ncy) * (p->nz / p->ncz);
}

int pb_lbm_dims(double scale, int *nx, int *ny, int *nz, char *err,
		size_t errlen)
{
	double c = cbrt(scale);
	long x = lround(128.0 * c), cy = lround(32.0 * c), cz = lround(12.0 * c);

	x = x < 8 ? 8 : x;
	cy = cy < 4 ? 4 : cy;
	cz = cz < 4 ? 4 : cz;
	if ((double)x * cy * PB_LBM_NCY * cz * PB_LBM_NCZ * LBM_Q >
	    (double)INT_MAX || cz * PB_LBM_NCZ > 65535) {
		return fail(err, errlen, "scale %g gives a lattice of more than "
			    "2^31 floats", scale);
	}
	*nx = (int)x;
	*ny = (int)cy * PB_LBM_NCY;
	*nz = (int)cz * PB_LBM_NCZ;
	return 0;
}

/* Is (y, z) on a compartment wall? */
static int on_wall(const struct pb_lbm_problem *p, int y, int z)
{
	int cy = p->ny / p->ncy, cz = p->nz / p->ncz;

	return y % cy == 0 || y % cy == cy - 1 || z % cz == 0 ||
	       z % cz == cz - 1;
}

/* The equilibrium populations of density @rho and velocity @u. */
static void equilibrium(float rho, float ux, float uy, float uz, float *f,
			size_t n, size_t cell)
{
	struct lbm_moments m = lbm_finish_moments(rho, lbm_mul(rho, ux),
						  lbm_mul(rho, uy),
						  lbm_mul(rho, uz));
#define EQ(i, ex, ey, ez, c)                                                   \
	f[(size_t)(i) * n + cell] = lbm_feq(LBM_WEIGHT(c), LBM_EU(ex, ey, ez, &m), &m);
	LBM_DIRS(EQ)
#undef EQ
}

void pb_lbm_generate(struct pb_lbm_problem *p, int nx, int ny, int nz)
{
	size_t nxy = (size_t)nx * ny, n;
	int cy = ny / PB_LBM_NCY, cz = nz / PB_LBM_NCZ;
	struct pb_rng r;

	memset(p, 0, sizeof(*p));
	p->nx = nx;
	p->ny = ny;
	p->nz = nz;
	p->ncy = PB_LBM_NCY;
	p->ncz = PB_LBM_NCZ;
	p->steps = PB_LBM_STEPS;
	p->omega = 1.25f;
	p->force = 2e-5f;
	n = pb_lbm_cells(p);
	p->flags = (unsigned char *)calloc(n, 1);
	p->f = (float *)malloc(n * LBM_Q * sizeof(float));
	if (!p->flags || !p->f) {
		fprintf(stderr, "lbm: out of memory for %zu cells\n", n);
		exit(2);
	}
	pb_rng_seed(&r, 0x6c626d2d64337139ULL);

	/* The compartment walls. */
	for (int z = 0; z < nz; z++) {
		for (int y = 0; y < ny; y++) {
			if (on_wall(p, y, z)) {
				memset(p->flags + z * nxy + (size_t)y * nx, 1, nx);
			}
		}
	}
	/* Spherical obstacles, about one per 800 interior cells. */
	for (int k = 0; k < pb_lbm_compartments(p); k++) {
		long interior = (long)nx * (cy - 2) * (cz - 2);
		long count = interior / 800 > 0 ? interior / 800 : 1;
		int oy = k % p->ncy * cy, oz = k / p->ncy * cz;

		for (long s = 0; s < count; s++) {
			float sx = pb_rng_float(&r) * nx;
			float sy = 1.0f + pb_rng_float(&r) * (cy - 2);
			float sz = 1.0f + pb_rng_float(&r) * (cz - 2);
			float rad = 1.0f + 2.5f * pb_rng_float(&r);
			int z0 = (int)floorf(sz - rad), z1 = (int)ceilf(sz + rad);
			int y0 = (int)floorf(sy - rad), y1 = (int)ceilf(sy + rad);
			int x0 = (int)floorf(sx - rad), x1 = (int)ceilf(sx + rad);

			for (int z = z0 < 1 ? 1 : z0; z <= z1 && z < cz - 1; z++) {
				for (int y = y0 < 1 ? 1 : y0; y <= y1 && y < cy - 1; y++) {
					for (int x = x0 < 0 ? 0 : x0; x <= x1 && x < nx; x++) {
						float dx = x - sx, dy = y - sy, dz = z - sz;
						if (dx * dx + dy * dy + dz * dz <= rad * rad) {
							p->flags[(size_t)(oz + z) * nxy +
								 (size_t)(oy + y) * nx + x] = 1;
						}
					}
				}
			}
		}
	}
	/* Perturbed equilibrium in the fluid, zeros in the solid. */
	for (size_t cell = 0; cell < n; cell++) {
		float rho = 1.0f + 0.02f * (pb_rng_float(&r) - 0.5f);
		float ux = 0.04f * (pb_rng_float(&r) - 0.5f);
		float uy = 0.04f * (pb_rng_float(&r) - 0.5f);
		float uz = 0.04f * (pb_rng_float(&r) - 0.5f);

		if (p->flags[cell]) {
			for (int i = 0; i < LBM_Q; i++) {
				p->f[(size_t)i * n + cell] = 0.0f;
			}
		} else {
			equilibrium(rho, ux, uy, uz, p->f, n, cell);
		}
	}
}

void pb_lbm_release(struct pb_lbm_problem *p)
{
	free(p->flags);
	free(p->f);
	memset(p, 0, sizeof(*p));
}

int pb_lbm_validate(const struct pb_lbm_problem *p, char *err, size_t errlen)
{
	size_t nxy = (size_t)p->nx * p->ny, n;

	if (p->nx < 2 || p->ny < 3 || p->nz < 3 || p->ncy < 1 || p->ncz < 1 ||
	    p->ny % p->ncy || p->nz % p->ncz || p->ny / p->ncy < 3 ||
	    p->nz / p->ncz < 3) {
		return fail(err, errlen, "bad lattice %dx%dx%d in %dx%d "
			    "compartments", p->nx, p->ny, p->nz, p->ncy, p->ncz);
	}
	if (p->ny > 65535 || p->nz > 65535 ||
	    (double)p->nx * p->ny * p->nz * LBM_Q > (double)INT_MAX) {
		return fail(err, errlen, "lattice %dx%dx%d is too large",
			    p->nx, p->ny, p->nz);
	}
	if (p->steps < 0 || p->steps > 1000000) {
		return fail(err, errlen, "bad step count %d", p->steps);
	}
	if (!(p->omega > 0.0f && p->omega < 2.0f) || !isfinite(p->force) ||
	    fabsf(p->force) > 0.01f) {
		return fail(err, errlen, "bad parameters omega=%g force=%g",
			    (double)p->omega, (double)p->force);
	}
	n = pb_lbm_cells(p);
	for (int z = 0; z < p->nz; z++) {
		for (int y = 0; y < p->ny; y++) {
			int wall = on_wall(p, y, z);

			for (int x = 0; x < p->nx; x++) {
				unsigned char fl = p->flags[z * nxy + (size_t)y * p->nx + x];
				if (fl > 1) {
					return fail(err, errlen, "bad flag %u at cell "
						    "(%d,%d,%d)", fl, x, y, z);
				}
				if (wall && !fl) {
					return fail(err, errlen, "compartment wall "
						    "missing at cell (%d,%d,%d)",
						    x, y, z);
				}
			}
		}
	}
	for (size_t i = 0; i < n * LBM_Q; i++) {
		if (!isfinite(p->f[i])) {
			return fail(err, errlen, "population %zu is not finite", i);
		}
	}
	return 0;
}

void pb_lbm_make_mask(const struct pb_lbm_problem *p, uint32_t *mask)
{
	int nx = p->nx, ny = p->ny, nz = p->nz;
	size_t nxy = (size_t)nx * ny;

	for (int z = 0; z < nz; z++) {
		for (int y = 0; y < ny; y++) {
			for (int x = 0; x < nx; x++) {
				size_t cell = z * nxy + (size_t)y * nx + x;
				int xm = x == 0 ? nx - 1 : x - 1;
				int xp = x == nx - 1 ? 0 : x + 1;
				uint32_t m = 0;

				if (p->flags[cell] || y == 0 || y == ny - 1 ||
				    z == 0 || z == nz - 1) {
					mask[cell] = LBM_MASK_SOLID;
					continue;
				}
#define NB(i, ex, ey, ez, c)                                                   \
	if ((i) > 0 &&                                                         \
	    p->flags[(size_t)(z - (ez)) * nxy + (size_t)(y - (ey)) * nx +      \
		     ((ex) > 0 ? xm : (ex) < 0 ? xp : x)]) {                   \
		m |= 1u << (i);                                                \
	}
				LBM_DIRS(NB)
#undef NB
				mask[cell] = m;
			}
		}
	}
}

void pb_lbm_force_terms(float force, float *fw1, float *fw2)
{
	*fw1 = 3.0f * LBM_W1 * force;
	*fw2 = 3.0f * LBM_W2 * force;
}

void pb_lbm_step_ref(const float *src, float *dst, const uint32_t *mask,
		     int nx, int ny, int nz, float omega, float fw1, float fw2)
{
	size_t nxy = (size_t)nx * ny, n = nxy * nz;

	for (int z = 0; z < nz; z++) {
		for (int y = 0; y < ny; y++) {
			for (int x = 0; x < nx; x++) {
				size_t cell = z * nxy + (size_t)y * nx + x;
				size_t xm = x == 0 ? nx - 1 : x - 1;
				size_t xp = x == nx - 1 ? 0 : x + 1;
				size_t row = cell - x;
				uint32_t m = mask[cell];
				float g[LBM_Q], rho = 0.0f, jx = 0.0f, jy = 0.0f,
				      jz = 0.0f;
				struct lbm_moments mo;

				if (m & LBM_MASK_SOLID) {
					for (int i = 0; i < LBM_Q; i++) {
						dst[(size_t)i * n + cell] = 0.0f;
					}
					continue;
				}
#define GATHER(i, ex, ey, ez, c)                                               \
	g[i] = (m >> (i)) & 1                                                  \
		? src[(size_t)LBM_OPP(i) * n + cell]                           \
		: src[(size_t)(i) * n + row - (ptrdiff_t)(ey) * nx -           \
		      (ptrdiff_t)(ez) * (ptrdiff_t)nxy +                       \
		      ((ex) > 0 ? xm : (ex) < 0 ? xp : (size_t)x)];
				LBM_DIRS(GATHER)
#undef GATHER
#define MOM(i, ex, ey, ez, c) LBM_MOMENTS_ADD(g[i], ex, ey, ez, rho, jx, jy, jz);
				LBM_DIRS(MOM)
#undef MOM
				mo = lbm_finish_moments(rho, jx, jy, jz);
#define COLL(i, ex, ey, ez, c)                                                 \
	dst[(size_t)(i) * n + cell] =                                          \
		LBM_COLLIDE(g[i], ex, ey, ez, c, &mo, omega, fw1, fw2);
				LBM_DIRS(COLL)
#undef COLL
			}
		}
	}
}

/*
 * Index in the full lattice of cell @c of compartment @k (numbered in the
 * compartment's own nx x cy x cz layout).
 */
static size_t full_index(const struct pb_lbm_problem *p, int k, size_t c)
{
	size_t cy = p->ny / p->ncy, cz = p->nz / p->ncz;
	size_t x = c % p->nx, y = c / p->nx % cy, z = c / p->nx / cy;
	size_t oy = (size_t)(k % p->ncy) * cy, oz = (size_t)(k / p->ncy) * cz;

	return ((oz + z) * p->ny + oy + y) * p->nx + x;
}

int pb_lbm_run_compartment(const struct pb_lbm_problem *p, int k, float *out)
{
	struct pb_lbm_problem s = *p;
	size_t n = pb_lbm_cells(p), ns = pb_lbm_compartment_cells(p);
	float *a = (float *)malloc(ns * LBM_Q * sizeof(float));
	float *b = (float *)malloc(ns * LBM_Q * sizeof(float));
	uint32_t *mask = (uint32_t *)malloc(ns * sizeof(uint32_t));
	unsigned char *flags = (unsigned char *)malloc(ns);
	float fw1, fw2;
	int ret = -1;

	if (!a || !b || !mask || !flags) {
		goto out;
	}
	/* The compartment is a lattice of its own: its walls cut it off. */
	s.ny = p->ny / p->ncy;
	s.nz = p->nz / p->ncz;
	s.ncy = 1;
	s.ncz = 1;
	s.flags = flags;
	for (size_t c = 0; c < ns; c++) {
		size_t fc = full_index(p, k, c);

		flags[c] = p->flags[fc];
		for (int i = 0; i < LBM_Q; i++) {
			a[(size_t)i * ns + c] = p->f[(size_t)i * n + fc];
		}
	}
	pb_lbm_make_mask(&s, mask);
	pb_lbm_force_terms(p->force, &fw1, &fw2);
	for (int t = 0; t < p->steps; t++) {
		float *tmp;

		pb_lbm_step_ref(a, b, mask, s.nx, s.ny, s.nz, p->omega, fw1, fw2);
		tmp = a;
		a = b;
		b = tmp;
	}
	memcpy(out, a, ns * LBM_Q * sizeof(float));
	ret = 0;
out:
	free(a);
	free(b);
	free(mask);
	free(flags);
	return ret;
}

size_t pb_lbm_compare_compartment(const struct pb_lbm_problem *p, int k,
				  const float *gpu, const float *ref, double tol,
				  double *max_diff, size_t *exact)
{
	size_t n = pb_lbm_cells(p), ns = pb_lbm_compartment_cells(p), bad = 0;

	*max_diff = 0.0;
	*exact = 0;
	for (size_t c = 0; c < ns; c++) {
		size_t fc = full_index(p, k, c);

		for (int i = 0; i < LBM_Q; i++) {
			float g = gpu[(size_t)i * n + fc];
			float r = ref[(size_t)i * ns + c];
			double diff = fabs((double)g - (double)r);

			if (!memcmp(&g, &r, sizeof(g))) {
				(*exact)++;
				continue;
			}
			if (!(diff <= tol)) {
				bad++;
			}
			if (!(diff <= *max_diff)) {
				*max_diff = isnan(diff) ? INFINITY : diff;
			}
		}
	}
	return bad;
}

double pb_lbm_mass(const struct pb_lbm_problem *p, const float *f)
{
	size_t n = pb_lbm_cells(p);
	double mass = 0.0;

	for (size_t cell = 0; cell < n; cell++) {
		if (p->flags[cell]) {
			continue;
		}
		for (int i = 0; i < LBM_Q; i++) {
			mass += f[(size_t)i * n + cell];
		}
	}
	return mass;
}

static int put(FILE *f, const void *buf, size_t len)
{
	return fwrite(buf, 1, len, f) == len ? 0 : -1;
}

static int finish_file(FILE *f, int ret)
{
	if (fclose(f)) {
		ret = -1;
	}
	return ret;
}

int pb_lbm_write_input(const char *path, const struct pb_lbm_problem *p)
{
	int32_t h[6] = { p->nx, p->ny, p->nz, p->ncy, p->ncz, p->steps };
	float v[2] = { p->omega, p->force };
	size_t n = pb_lbm_cells(p);
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f) {
		return -1;
	}
	ret |= put(f, IN_MAGIC, 8);
	ret |= put(f, h, sizeof(h));
	ret |= put(f, v, sizeof(v));
	ret |= put(f, p->flags, n);
	ret |= put(f, p->f, n * LBM_Q * sizeof(float));
	return finish_file(f, ret);
}

int pb_lbm_read_input(const char *path, struct pb_lbm_problem *p, char *err,
		      size_t errlen)
{
	size_t len = 0, n;
	char *buf = (char *)pb_read_file(path, &len);
	int32_t h[6];
	float v[2];

	memset(p, 0, sizeof(*p));
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < IN_HEADER || memcmp(buf, IN_MAGIC, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not an lbm input file", path);
	}
	memcpy(h, buf + 8, sizeof(h));
	memcpy(v, buf + 32, sizeof(v));
	if (h[0] < 1 || h[1] < 1 || h[2] < 1 ||
	    (double)h[0] * h[1] * h[2] * LBM_Q > (double)INT_MAX) {
		free(buf);
		return fail(err, errlen, "'%s': bad lattice %dx%dx%d", path,
			    h[0], h[1], h[2]);
	}
	p->nx = h[0];
	p->ny = h[1];
	p->nz = h[2];
	p->ncy = h[3];
	p->ncz = h[4];
	p->steps = h[5];
	p->omega = v[0];
	p->force = v[1];
	n = pb_lbm_cells(p);
	if (len != IN_HEADER + n + n * LBM_Q * sizeof(float)) {
		free(buf);
		memset(p, 0, sizeof(*p));
		return fail(err, errlen, "'%s': size %zu does not match a "
			    "%dx%dx%d lattice", path, len, h[0], h[1], h[2]);
	}
	p->flags = (unsigned char *)malloc(n);
	p->f = (float *)malloc(n * LBM_Q * sizeof(float));
	if (!p->flags || !p->f) {
		free(buf);
		pb_lbm_release(p);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	memcpy(p->flags, buf + IN_HEADER, n);
	memcpy(p->f, buf + IN_HEADER + n, n * LBM_Q * sizeof(float));
	free(buf);
	if (pb_lbm_validate(p, err, errlen)) {
		pb_lbm_release(p);
		return -1;
	}
	return 0;
}

int pb_lbm_write_output(const char *path, const struct pb_lbm_problem *p,
			const float *fv)
{
	int32_t h[4] = { p->nx, p->ny, p->nz, p->steps };
	FILE *f = fopen(path, "wb");
	int ret = 0;

	if (!f) {
		return -1;
	}
	ret |= put(f, OUT_MAGIC, 8);
	ret |= put(f, h, sizeof(h));
	ret |= put(f, fv, pb_lbm_cells(p) * LBM_Q * sizeof(float));
	return finish_file(f, ret);
}

int pb_lbm_read_output(const char *path, int *nx, int *ny, int *nz, int *steps,
		       float **f, char *err, size_t errlen)
{
	size_t len = 0, n;
	char *buf = (char *)pb_read_file(path, &len);
	int32_t h[4];

	*f = NULL;
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < OUT_HEADER || memcmp(buf, OUT_MAGIC, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not an lbm output file", path);
	}
	memcpy(h, buf + 8, sizeof(h));
	if (h[0] < 1 || h[1] < 1 || h[2] < 1 ||
	    (double)h[0] * h[1] * h[2] * LBM_Q > (double)INT_MAX) {
		free(buf);
		return fail(err, errlen, "'%s': bad lattice", path);
	}
	n = (size_t)h[0] * h[1] * h[2];
	if (len != OUT_HEADER + n * LBM_Q * sizeof(float)) {
		free(buf);
		return fail(err, errlen, "'%s': truncated or oversized", path);
	}
	*f = (float *)malloc(n * LBM_Q * sizeof(float));
	if (!*f) {
		free(buf);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	memcpy(*f, buf + OUT_HEADER, n * LBM_Q * sizeof(float));
	*nx = h[0];
	*ny = h[1];
	*nz = h[2];
	*steps = h[3];
	free(buf);
	return 0;
}
