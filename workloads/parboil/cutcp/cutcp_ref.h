/* SPDX-License-Identifier: MIT */
/*
 * cutcp reference side (plain C11, no CUDA): the deterministic random atom
 * box, the -i/-o file formats, the host-side binning of atoms into cells
 * and the neighbour-row list the kernel walks, and the direct
 * double-precision CPU sum the sampled GPU lattice points are checked
 * against. Compiled into build/workloads/parboil/cutcp by nvcc and into
 * libparboil-ref.a by gcc (unit-tested by tests/unit/test_parboil_cutcp.c).
 *
 * The potential at lattice point p = (i, j, k) * CUTCP_SPACING is
 *   V(p) = sum over atoms a with 0 < r^2 < c^2 of q_a / r * (1 - r^2 / c^2)^2
 * with r = |a - p| and c = CUTCP_CUTOFF: a Coulomb potential with the smooth
 * switching function that makes it vanish at the cutoff.
 */
#ifndef CUTCP_REF_H
#define CUTCP_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define CUTCP_SPACING 0.5f		/* lattice spacing, Angstrom */
#define CUTCP_CUTOFF 12.0f		/* cutoff radius, Angstrom */
#define CUTCP_BIN_POINTS 8		/* lattice points per bin side */
#define CUTCP_BIN 4.0f			/* bin side = 8 * spacing */
#define CUTCP_PAD 3			/* bins that reach one cutoff */
#define CUTCP_DENSITY 0.2		/* atoms per cubic Angstrom */
#define CUTCP_BASE_BINS 40		/* bins per side at scale 1 */
#define CUTCP_SEED 0x63757463ULL
#define CUTCP_TOLERANCE 1e-4		/* of the sum of |contributions| */
#define CUTCP_MAX_SAMPLES 1000
#define CUTCP_MAX_ROWS ((2 * CUTCP_PAD + 1) * (2 * CUTCP_PAD + 1))
#define CUTCP_MAX_SIDE 4096		/* lattice points per axis */
#define CUTCP_MAX_POINTS (1u << 30)
#define CUTCP_MAX_ATOMS (1u << 28)

/* One atom: position (Angstrom) and charge; 16-byte aligned (one load). */
struct cutcp_atom {
#ifdef __cplusplus
	alignas(16) float x;
#else
	_Alignas(16) float x;
#endif
	float y, z, q;
};

struct cutcp_input {
	uint32_t nx, ny, nz;		/* lattice points per axis */
	uint32_t natoms;
	struct cutcp_atom *atoms;
};

/*
 * Atoms sorted into cubic bins of side CUTCP_BIN. The bins cover the
 * lattice (nb* = ceil(n* / 8) per axis) plus CUTCP_PAD bins on every side,
 * so every neighbour bin of a lattice bin exists; atoms outside that
 * padded box cannot be within the cutoff of any lattice point and are
 * dropped. Within a bin the atoms keep their input order.
 */
struct cutcp_bins {
	int nbx, nby, nbz;		/* bins covering the lattice */
	int pbx, pby, pbz;		/* with the padding */
	uint32_t *start;		/* pbx * pby * pbz + 1 offsets into atoms */
	struct cutcp_atom *atoms;	/* natoms binned atoms */
	uint32_t natoms;		/* atoms kept */
};

/*
 * The bins a lattice bin gathers from, as rows of consecutive bins along x
 * (consecutive in memory, so each row is one contiguous atom range): row r
 * starts offset[r] bins (linear index in the padded grid) from the lattice
 * bin and is len[r] bins long. Bins that are entirely farther than the
 * cutoff from every point of the lattice bin are left out.
 */
struct cutcp_rows {
	int count;
	int offset[CUTCP_MAX_ROWS];
	int len[CUTCP_MAX_ROWS];
};

/* Bins per side for problem scale @scale (at least 1). */
int cutcp_bins_for_scale(double scale);

/*
 * Generate the lattice of @bins^3 lattice bins (8 @bins points per axis)
 * and round(CUTCP_DENSITY * volume) atoms uniform in the box it spans, with
 * charges uniform in [-1, 1), from @seed into @in (release with
 * cutcp_input_release()). Returns 0, or -1 with a message in @err.
 */
int cutcp_generate(struct cutcp_input *in, int bins, uint64_t seed, char *err,
		   size_t errlen);

/* Free the atoms of @in and zero it. */
void cutcp_input_release(struct cutcp_input *in);

/*
 * Input file: 8-byte magic "PBCUTIN1", little-endian uint32 nx, ny, nz,
 * natoms, then natoms atoms as float x, y, z, q. The reader checks the
 * magic, the sizes (1 to 4096 points per axis, at most 2^30 points and 2^28
 * atoms), the exact file size and that every value is finite. Returns 0,
 * or -1 with a message in @err.
 */
int cutcp_read_input(const char *path, struct cutcp_input *in, char *err,
		     size_t errlen);
int cutcp_write_input(const char *path, const struct cutcp_input *in,
		      char *err, size_t errlen);

/*
 * Output file: magic "PBCUTOU1", uint32 nx, ny, nz, then the potential at
 * every lattice point as float, x fastest. cutcp_read_output() returns a
 * new array in *@v (caller frees).
 */
int cutcp_write_output(const char *path, uint32_t nx, uint32_t ny, uint32_t nz,
		       const float *v, char *err, size_t errlen);
int cutcp_read_output(const char *path, uint32_t *nx, uint32_t *ny,
		      uint32_t *nz, float **v, char *err, size_t errlen);

/*
 * Bin the atoms of @in into @b (release with cutcp_bins_release()).
 * Returns 0, or -1 with a message in @err when memory runs out.
 */
int cutcp_bin_atoms(const struct cutcp_input *in, struct cutcp_bins *b,
		    char *err, size_t errlen);
void cutcp_bins_release(struct cutcp_bins *b);

/* The neighbour rows of a lattice bin in the padded grid of @b. */
void cutcp_neighbor_rows(const struct cutcp_bins *b, struct cutcp_rows *r);

/*
 * The direct CPU sum: atoms sorted by x so that each point visits only the
 * slab |x - px| <= cutoff, every contribution in double.
 */
struct cutcp_direct {
	uint32_t natoms;
	struct cutcp_atom *atoms;	/* sorted by x */
};

int cutcp_direct_init(struct cutcp_direct *d, const struct cutcp_input *in,
		      char *err, size_t errlen);
void cutcp_direct_release(struct cutcp_direct *d);

/*
 * Potential at lattice point (@i, @j, @k), in double; the sum of the
 * absolute contributions goes to *@abs_sum (the scale of the rounding
 * error a float sum may make).
 */
double cutcp_direct_point(const struct cutcp_direct *d, uint32_t i,
			  uint32_t j, uint32_t k, double *abs_sum);

/*
 * The lattice points checked on the CPU: @count points, the first and last
 * point of the lattice and the rest drawn from a fixed seed; index n of the
 * x-fastest lattice.
 */
uint64_t cutcp_sample_point(const struct cutcp_input *in, uint32_t count,
			    uint32_t s);

/* Whether @got is within the tolerance of @want (NaN never is). */
int cutcp_close(float got, double want, double abs_sum);

#ifdef __cplusplus
}
#endif

#endif
