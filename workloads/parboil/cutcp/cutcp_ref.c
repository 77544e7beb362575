/* SPDX-License-Identifier: MIT */
/*
 * cutcp reference side: atom generator, file formats, binning, neighbour
 * rows and the direct CPU sum (see cutcp_ref.h).
 */
#include "cutcp_ref.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "pb.h"

static const char in_magic[8] = { 'P', 'B', 'C', 'U', 'T', 'I', 'N', '1' };
static const char out_magic[8] = { 'P', 'B', 'C', 'U', 'T', 'O', 'U', '1' };

static int fail(char *err, size_t errlen, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	if (errlen) {
		vsnprintf(err, errlen, fmt, ap);
	}
	va_end(ap);
	return -1;
}

static uint32_t get_u32(const unsigned char *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 |
	       (uint32_t)p[3] << 24;
}

static void put_u32(unsigned char *p, uint32_t v)
{
	p[0] = (unsigned char)v;
	p[1] = (unsigned char)(v >> 8);
	p[2] = (unsigned char)(v >> 16);
	p[3] = (unsigned char)(v >> 24);
}

static int write_file2(const char *path, const unsigned char *hdr,
		       size_t hdrlen, const void *data, size_t len, char *err,
		       size_t errlen)
{
	FILE *f = fopen(path, "wb");
	int ok;

	if (!f) {
		return fail(err, errlen, "cannot create '%s'", path);
	}
	ok = fwrite(hdr, 1, hdrlen, f) == hdrlen;
	ok = ok && (!len || fwrite(data, 1, len, f) == len);
	ok = (fclose(f) == 0) && ok;
	if (!ok) {
		return fail(err, errlen, "cannot write '%s'", path);
	}
	return 0;
}

static int check_shape(uint64_t nx, uint64_t ny, uint64_t nz, uint64_t natoms,
		       char *err, size_t errlen)
{
	if (!nx || !ny || !nz || nx > CUTCP_MAX_SIDE || ny > CUTCP_MAX_SIDE ||
	    nz > CUTCP_MAX_SIDE || nx * ny * nz > CUTCP_MAX_POINTS) {
		return fail(err, errlen, "a lattice of %llu x %llu x %llu points is "
			    "not supported", (unsigned long long)nx,
			    (unsigned long long)ny, (unsigned long long)nz);
	}
	if (natoms > CUTCP_MAX_ATOMS) {
		return fail(err, errlen, "%llu atoms is more than supported",
			    (unsigned long long)natoms);
	}
	return 0;
}

int cutcp_bins_for_scale(double scale)
{
	double b = CUTCP_BASE_BINS * cbrt(scale) + 0.5;

	if (b < 1) {
		return 1;
	}
	if (b > CUTCP_MAX_SIDE / CUTCP_BIN_POINTS) {
		return CUTCP_MAX_SIDE / CUTCP_BIN_POINTS;
	}
	return (int)b;
}

int cutcp_generate(struct cutcp_input *in, int bins, uint64_t seed, char *err,
		   size_t errlen)
{
	uint64_t side = (uint64_t)bins * CUTCP_BIN_POINTS;
	double len = bins * (double)CUTCP_BIN;
	uint64_t natoms = (uint64_t)(CUTCP_DENSITY * len * len * len + 0.5);
	struct pb_rng rng;

	memset(in, 0, sizeof(*in));
	if (bins < 1 || check_shape(side, side, side, natoms, err, errlen)) {
		return bins < 1 ? fail(err, errlen, "%d bins per side", bins) : -1;
	}
	in->atoms = malloc((natoms ? natoms : 1) * sizeof(*in->atoms));
	if (!in->atoms) {
		return fail(err, errlen, "out of memory for %llu atoms",
			    (unsigned long long)natoms);
	}
	in->nx = in->ny = in->nz = (uint32_t)side;
	in->natoms = (uint32_t)natoms;
	pb_rng_seed(&rng, seed);
	for (uint32_t a = 0; a < in->natoms; a++) {
		in->atoms[a].x = (float)len * pb_rng_float(&rng);
		in->atoms[a].y = (float)len * pb_rng_float(&rng);
		in->atoms[a].z = (float)len * pb_rng_float(&rng);
		in->atoms[a].q = 2.0f * pb_rng_float(&rng) - 1.0f;
	}
	return 0;
}

void cutcp_input_release(struct cutcp_input *in)
{
	free(in->atoms);
	memset(in, 0, sizeof(*in));
}

int cutcp_write_input(const char *path, const struct cutcp_input *in,
		      char *err, size_t errlen)
{
	unsigned char hdr[24];

	memcpy(hdr, in_magic, 8);
	put_u32(hdr + 8, in->nx);
	put_u32(hdr + 12, in->ny);
	put_u32(hdr + 16, in->nz);
	put_u32(hdr + 20, in->natoms);
	return write_file2(path, hdr, sizeof(hdr), in->atoms,
			   (size_t)in->natoms * sizeof(*in->atoms), err, errlen);
}

int cutcp_read_input(const char *path, struct cutcp_input *in, char *err,
		     size_t errlen)
{
	size_t len = 0;
	unsigned char *buf = pb_read_file(path, &len);
	char why[256];
	int rc = -1;

	memset(in, 0, sizeof(*in));
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < 24 || memcmp(buf, in_magic, 8)) {
		fail(err, errlen, "'%s' is not a cutcp input file (bad magic)", path);
		goto out;
	}
	uint32_t nx = get_u32(buf + 8), ny = get_u32(buf + 12);
	uint32_t nz = get_u32(buf + 16), natoms = get_u32(buf + 20);
	if (check_shape(nx, ny, nz, natoms, why, sizeof(why))) {
		fail(err, errlen, "'%s': %s", path, why);
		goto out;
	}
	if (len != 24 + (size_t)natoms * 16) {
		fail(err, errlen, "'%s': %zu bytes, expected %zu for %u atoms", path,
		     len, 24 + (size_t)natoms * 16, natoms);
		goto out;
	}
	in->atoms = malloc((natoms ? natoms : 1) * sizeof(*in->atoms));
	if (!in->atoms) {
		fail(err, errlen, "out of memory reading '%s'", path);
		goto out;
	}
	memcpy(in->atoms, buf + 24, (size_t)natoms * 16);
	for (uint32_t a = 0; a < natoms; a++) {
		const struct cutcp_atom *p = &in->atoms[a];
		if (!isfinite(p->x) || !isfinite(p->y) || !isfinite(p->z) ||
		    !isfinite(p->q)) {
			fail(err, errlen, "'%s': atom %u is not finite", path, a);
			goto out;
		}
	}
	in->nx = nx;
	in->ny = ny;
	in->nz = nz;
	in->natoms = natoms;
	rc = 0;
out:
	free(buf);
	if (rc) {
		cutcp_input_release(in);
	}
	return rc;
}

int cutcp_write_output(const char *path, uint32_t nx, uint32_t ny, uint32_t nz,
		       const float *v, char *err, size_t errlen)
{
	unsigned char hdr[20];

	memcpy(hdr, out_magic, 8);
	put_u32(hdr + 8, nx);
	put_u32(hdr + 12, ny);
	put_u32(hdr + 16, nz);
	return write_file2(path, hdr, sizeof(hdr), v,
			   (size_t)nx * ny * nz * sizeof(float), err, errlen);
}

int cutcp_read_output(const char *path, uint32_t *nx, uint32_t *ny,
		      uint32_t *nz, float **v, char *err, size_t errlen)
{
	size_t len = 0;
	unsigned char *buf = pb_read_file(path, &len);
	uint64_t points;

	*v = NULL;
	if (!buf) {
		return fail(err, errlen, "cannot read '%s'", path);
	}
	if (len < 20 || memcmp(buf, out_magic, 8)) {
		free(buf);
		return fail(err, errlen, "'%s' is not a cutcp output file (bad magic)",
			    path);
	}
	points = (uint64_t)get_u32(buf + 8) * get_u32(buf + 12) * get_u32(buf + 16);
	if (len != 20 + points * 4) {
		free(buf);
		return fail(err, errlen, "'%s': %zu bytes, expected %llu", path, len,
			    (unsigned long long)(20 + points * 4));
	}
	*v = malloc(points ? points * 4 : 4);
	if (!*v) {
		free(buf);
		return fail(err, errlen, "out of memory reading '%s'", path);
	}
	memcpy(*v, buf + 20, points * 4);
	*nx = get_u32(buf + 8);
	*ny = get_u32(buf + 12);
	*nz = get_u32(buf + 16);
	free(buf);
	return 0;
}

/* Padded bin coordinate of @c along an axis of @nb lattice bins, or -1. */
static int bin_coord(float c, int nb)
{
	float b = floorf(c * (1.0f / CUTCP_BIN)) + CUTCP_PAD;

	if (!(b >= 0) || b >= nb + 2 * CUTCP_PAD) {
		return -1;
	}
	return (int)b;
}

int cutcp_bin_atoms(const struct cutcp_input *in, struct cutcp_bins *b,
		    char *err, size_t errlen)
{
	uint32_t *bin_of;
	size_t nbins;

	memset(b, 0, sizeof(*b));
	b->nbx = (int)((in->nx + CUTCP_BIN_POINTS - 1) / CUTCP_BIN_POINTS);
	b->nby = (int)((in->ny + CUTCP_BIN_POINTS - 1) / CUTCP_BIN_POINTS);
	b->nbz = (int)((in->nz + CUTCP_BIN_POINTS - 1) / CUTCP_BIN_POINTS);
	b->pbx = b->nbx + 2 * CUTCP_PAD;
	b->pby = b->nby + 2 * CUTCP_PAD;
	b->pbz = b->nbz + 2 * CUTCP_PAD;
	nbins = (size_t)b->pbx * b->pby * b->pbz;
	b->start = calloc(nbins + 1, sizeof(*b->start));
	b->atoms = malloc((in->natoms ? in->natoms : 1) * sizeof(*b->atoms));
	bin_of = malloc((in->natoms ? in->natoms : 1) * sizeof(*bin_of));
	if (!b->start || !b->atoms || !bin_of) {
		free(bin_of);
		cutcp_bins_release(b);
		return fail(err, errlen, "out of memory binning %u atoms", in->natoms);
	}
	/* counting sort, stable: count, prefix sums, place */
	for (uint32_t a = 0; a < in->natoms; a++) {
		int x = bin_coord(in->atoms[a].x, b->nbx);
		int y = bin_coord(in->atoms[a].y, b->nby);
		int z = bin_coord(in->atoms[a].z, b->nbz);

		if (x < 0 || y < 0 || z < 0) {
			bin_of[a] = UINT32_MAX;
			continue;
		}
		bin_of[a] = (uint32_t)(((size_t)z * b->pby + y) * b->pbx + x);
		b->start[bin_of[a] + 1]++;
	}
	for (size_t i = 0; i < nbins; i++) {
		b->start[i + 1] += b->start[i];
	}
	b->natoms = b->start[nbins];
	uint32_t *fill = malloc((nbins ? nbins : 1) * sizeof(*fill));
	if (!fill) {
		free(bin_of);
		cutcp_bins_release(b);
		return fail(err, errlen, "out of memory binning %u atoms", in->natoms);
	}
	memcpy(fill, b->start, nbins * sizeof(*fill));
	for (uint32_t a = 0; a < in->natoms; a++) {
		if (bin_of[a] != UINT32_MAX) {
			b->atoms[fill[bin_of[a]]++] = in->atoms[a];
		}
	}
	free(fill);
	free(bin_of);
	return 0;
}

void cutcp_bins_release(struct cutcp_bins *b)
{
	free(b->start);
	free(b->atoms);
	memset(b, 0, sizeof(*b));
}

/* Smallest gap, in bins, between a lattice bin and the bin @d away. */
static int gap(int d)
{
	d = d < 0 ? -d : d;
	return d > 0 ? d - 1 : 0;
}

void cutcp_neighbor_rows(const struct cutcp_bins *b, struct cutcp_rows *r)
{
	/* (cutoff / bin)^2: a bin is needed when the gap^2 sum is below it */
	const float reach2 = (CUTCP_CUTOFF / CUTCP_BIN) * (CUTCP_CUTOFF / CUTCP_BIN);

	r->count = 0;
	for (int dz = -CUTCP_PAD; dz <= CUTCP_PAD; dz++) {
		for (int dy = -CUTCP_PAD; dy <= CUTCP_PAD; dy++) {
			int gyz = gap(dy) * gap(dy) + gap(dz) * gap(dz);
			int kx = -1;

			for (int dx = 0; dx <= CUTCP_PAD; dx++) {
				if (gyz + gap(dx) * gap(dx) < reach2) {
					kx = dx;
				}
			}
			if (kx < 0) {
				continue;
			}
			r->offset[r->count] = (dz * b->pby + dy) * b->pbx - kx;
			r->len[r->count] = 2 * kx + 1;
			r->count++;
		}
	}
}

static int cmp_x(const void *a, const void *b)
{
	const struct cutcp_atom *p = a, *q = b;

	if (p->x != q->x) {
		return p->x < q->x ? -1 : 1;
	}
	/* ties: any fixed order of the other fields keeps the sort total */
	if (p->y != q->y) {
		return p->y < q->y ? -1 : 1;
	}
	if (p->z != q->z) {
		return p->z < q->z ? -1 : 1;
	}
	return p->q < q->q ? -1 : p->q > q->q;
}

int cutcp_direct_init(struct cutcp_direct *d, const struct cutcp_input *in,
		      char *err, size_t errlen)
{
	d->natoms = in->natoms;
	d->atoms = malloc((in->natoms ? in->natoms : 1) * sizeof(*d->atoms));
	if (!d->atoms) {
		return fail(err, errlen, "out of memory for %u atoms", in->natoms);
	}
	memcpy(d->atoms, in->atoms, (size_t)in->natoms * sizeof(*d->atoms));
	qsort(d->atoms, d->natoms, sizeof(*d->atoms), cmp_x);
	return 0;
}

void cutcp_direct_release(struct cutcp_direct *d)
{
	free(d->atoms);
	d->atoms = NULL;
	d->natoms = 0;
}

double cutcp_direct_point(const struct cutcp_direct *d, uint32_t i,
			  uint32_t j, uint32_t k, double *abs_sum)
{
	const double c = CUTCP_CUTOFF, c2 = c * c;
	double px = i * (double)CUTCP_SPACING, py = j * (double)CUTCP_SPACING;
	double pz = k * (double)CUTCP_SPACING;
	double v = 0, av = 0;
	uint32_t lo = 0, hi = d->natoms;

	/* first atom with x >= px - c */
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		if (d->atoms[mid].x < px - c) {
			lo = mid + 1;
		} else {
			hi = mid;
		}
	}
	for (uint32_t a = lo; a < d->natoms && d->atoms[a].x <= px + c; a++) {
		double dx = d->atoms[a].x - px, dy = d->atoms[a].y - py;
		double dz = d->atoms[a].z - pz;
		double r2 = dx * dx + dy * dy + dz * dz;

		if (r2 < c2 && r2 > 0) {
			double s = 1 - r2 / c2;
			double t = d->atoms[a].q / sqrt(r2) * s * s;

			v += t;
			av += fabs(t);
		}
	}
	*abs_sum = av;
	return v;
}

uint64_t cutcp_sample_point(const struct cutcp_input *in, uint32_t count,
			    uint32_t s)
{
	uint64_t points = (uint64_t)in->nx * in->ny * in->nz;
	struct pb_rng rng;

	if (s == 0) {
		return 0;
	}
	if (s == count - 1) {
		return points - 1;
	}
	pb_rng_seed(&rng, CUTCP_SEED + s);
	return pb_rng_next(&rng) % points;
}

int cutcp_close(float got, double want, double abs_sum)
{
	double tol = CUTCP_TOLERANCE * abs_sum;

	return fabs((double)got - want) <= tol || (double)got == want;
}
