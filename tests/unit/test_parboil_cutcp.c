/* SPDX-License-Identifier: MIT */
/*
 * Unit tests for the cutcp reference (workloads/parboil/cutcp/cutcp_ref.c):
 * hand-computed potentials, the x-sorted direct sum against brute force,
 * the binning and the neighbour rows (a CPU run of the kernel's gather
 * agrees with the direct sum at every point), the generator's
 * determinism, the -i/-o round trips and the errors on bad files.
 */
#include <math.h>
#include <stdlib.h>
#include <unistd.h>

#include "test.h"
#include "workloads/parboil/common/pb.h"
#include "workloads/parboil/cutcp/cutcp_ref.h"

static char tmpdir[64];

static const char *tmp_path(const char *name)
{
	static char buf[128];

	snprintf(buf, sizeof(buf), "%s/%s", tmpdir, name);
	return buf;
}

static void test_hand(void)
{
	struct cutcp_atom atoms[4] = {
		{ 1, 0, 0, 1 },		/* r = 1 */
		{ 0, 0, 12, 5 },	/* r = 12: at the cutoff, excluded */
		{ 0, 0, 0, 7 },		/* r = 0: excluded */
		{ 0, 6, 0, -2 },	/* r = 6 */
	};
	struct cutcp_input in = { 4, 4, 4, 4, atoms };
	struct cutcp_direct d;
	char err[256];
	double abs_sum;

	CHECK_INT(cutcp_direct_init(&d, &in, err, sizeof(err)), 0, "direct init");
	double v = cutcp_direct_point(&d, 0, 0, 0, &abs_sum);
	double s1 = 1 - 1.0 / 144, s6 = 1 - 36.0 / 144;
	double want = s1 * s1 - 2.0 / 6 * s6 * s6;
	CHECK_NEAR(v, want, 1e-15, "potential at the origin by hand");
	CHECK_NEAR(abs_sum, s1 * s1 + 2.0 / 6 * s6 * s6, 1e-15, "sum of |terms|");
	/* point (2, 0, 0) = x 1.0: atom 0 at r = 0, atom 2 at r = 1 */
	v = cutcp_direct_point(&d, 2, 0, 0, &abs_sum);
	double r6 = sqrt(1 + 36.0), s37 = 1 - 37.0 / 144;
	/* atom 1 (r^2 = 145) is beyond the cutoff */
	CHECK_NEAR(v, 7 * s1 * s1 - 2 / r6 * s37 * s37, 1e-14,
		   "potential at (2, 0, 0) by hand");
	cutcp_direct_release(&d);

	CHECK(cutcp_close(1.0f, 1.0, 0), "exact match passes with no terms");
	CHECK(!cutcp_close(1e-3f, 0, 0), "no terms means zero");
	CHECK(cutcp_close(1.00005f, 1.0, 1.0), "within 1e-4 of the |sum|");
	CHECK(!cutcp_close(1.0002f, 1.0, 1.0), "outside 1e-4 of the |sum|");
	CHECK(!cutcp_close(NAN, 1.0, 1.0), "NaN never passes");
}

/* Brute-force sum over all atoms in input order. */
static double brute(const struct cutcp_input *in, uint32_t i, uint32_t j,
		    uint32_t k)
{
	double v = 0, c2 = 144;
	for (uint32_t a = 0; a < in->natoms; a++) {
		double dx = in->atoms[a].x - i * 0.5, dy = in->atoms[a].y - j * 0.5;
		double dz = in->atoms[a].z - k * 0.5, r2 = dx * dx + dy * dy + dz * dz;
		if (r2 < c2 && r2 > 0) {
			double s = 1 - r2 / c2;
			v += in->atoms[a].q / sqrt(r2) * s * s;
		}
	}
	return v;
}

/* The kernel's gather for lattice point (i, j, k), on the CPU, in float. */
static float gather(const struct cutcp_bins *b, const struct cutcp_rows *r,
		    int i, int j, int k)
{
	const float c2 = CUTCP_CUTOFF * CUTCP_CUTOFF, inv_c2 = 1.0f / c2;
	float px = i * CUTCP_SPACING, py = j * CUTCP_SPACING, pz = k * CUTCP_SPACING;
	int bx = i / 8, by = j / 8, bz = k / 8;
	int home = ((bz + CUTCP_PAD) * b->pby + by + CUTCP_PAD) * b->pbx + bx +
		   CUTCP_PAD;
	float v = 0;

	for (int n = 0; n < r->count; n++) {
		int b0 = home + r->offset[n];
		for (uint32_t a = b->start[b0]; a < b->start[b0 + r->len[n]]; a++) {
			struct cutcp_atom at = b->atoms[a];
			float dx = at.x - px, dy = at.y - py, dz = at.z - pz;
			float r2 = dx * dx + dy * dy + dz * dz;
			if (r2 < c2 && r2 > 0.0f) {
				float s = 1.0f - r2 * inv_c2;
				v += at.q * (1.0f / sqrtf(r2)) * (s * s);
			}
		}
	}
	return v;
}

static void test_bins(void)
{
	struct cutcp_input in;
	struct cutcp_bins b;
	struct cutcp_rows r;
	char err[256];

	CHECK_INT(cutcp_generate(&in, 3, 21, err, sizeof(err)), 0, "generate 3 bins");
	CHECK_INT(in.nx, 24, "24 points per axis");
	CHECK_INT(in.natoms, 346, "0.2 atoms per A^3 in a 12 A box");
	/* a lattice that is not a multiple of 8, and atoms out of the box */
	in.nx = 21;
	in.ny = 17;
	in.nz = 9;
	in.atoms[0].x = -11.9f;		/* kept: padding bin */
	in.atoms[1].y = -12.5f;		/* dropped: beyond the padding */
	in.atoms[2].z = 16 + 12 + 0.5f;	/* nbz = 2: bins to 8 + 12 = 20; dropped */
	in.atoms[3].z = 19.9f;		/* kept */
	CHECK_INT(cutcp_bin_atoms(&in, &b, err, sizeof(err)), 0, "bin atoms");
	CHECK(b.nbx == 3 && b.nby == 3 && b.nbz == 2, "lattice bins round up");
	CHECK(b.pbx == 9 && b.pby == 9 && b.pbz == 8, "padding of 3 bins");
	CHECK_INT(b.natoms, in.natoms - 2, "two atoms dropped");

	int placed = 1, ordered = 1;
	for (int z = 0; z < b.pbz; z++) {
		for (int y = 0; y < b.pby; y++) {
			for (int x = 0; x < b.pbx; x++) {
				int bin = (z * b.pby + y) * b.pbx + x;
				for (uint32_t a = b.start[bin]; a < b.start[bin + 1]; a++) {
					placed &= (int)floorf(b.atoms[a].x / 4) + 3 == x &&
						  (int)floorf(b.atoms[a].y / 4) + 3 == y &&
						  (int)floorf(b.atoms[a].z / 4) + 3 == z;
				}
			}
		}
	}
	CHECK(placed, "every atom is in its bin");
	/* stable: within a bin, input order (charges identify atoms here) */
	for (size_t bin = 0; bin < (size_t)b.pbx * b.pby * b.pbz; bin++) {
		uint32_t last = 0;
		for (uint32_t a = b.start[bin]; a < b.start[bin + 1]; a++) {
			uint32_t idx = 0;
			while (memcmp(&in.atoms[idx], &b.atoms[a], 16)) {
				idx++;
			}
			ordered &= a == b.start[bin] || idx > last;
			last = idx;
		}
	}
	CHECK(ordered, "bins keep the input order");

	cutcp_neighbor_rows(&b, &r);
	int total = 0, lens = 1;
	for (int n = 0; n < r.count; n++) {
		total += r.len[n];
		lens &= r.len[n] == 3 || r.len[n] == 5 || r.len[n] == 7;
	}
	CHECK_INT(r.count, 49, "49 neighbour rows");
	CHECK_INT(total, 311, "311 neighbour bins");
	CHECK(lens, "rows of 3, 5 or 7 bins");
	CHECK_INT(r.offset[0], (-3 * 9 - 3) * 9 - 1, "corner row offset");
	CHECK_INT(r.len[0], 3, "corner row length");

	/* the gather reaches every atom within the cutoff, for every point */
	struct cutcp_direct d;
	cutcp_direct_init(&d, &in, err, sizeof(err));
	int all = 1, direct_ok = 1;
	double worst = 0;
	for (uint32_t k = 0; k < in.nz; k++) {
		for (uint32_t j = 0; j < in.ny; j++) {
			for (uint32_t i = 0; i < in.nx; i++) {
				double abs_sum;
				double want = cutcp_direct_point(&d, i, j, k, &abs_sum);
				float got = gather(&b, &r, i, j, k);
				all &= cutcp_close(got, want, abs_sum);
				double e = fabs(got - want) / abs_sum;
				worst = e > worst ? e : worst;
				if ((i + j + k) % 7 == 0) {
					direct_ok &= fabs(brute(&in, i, j, k) - want) <=
						     1e-12 * abs_sum;
				}
			}
		}
	}
	char what[96];
	snprintf(what, sizeof(what),
		 "binned float gather within tolerance at all points (worst %.2g)",
		 worst);
	CHECK(all, what);
	CHECK(direct_ok, "sorted direct sum equals brute force");
	cutcp_direct_release(&d);
	cutcp_bins_release(&b);
	cutcp_input_release(&in);
}

static void test_files(void)
{
	struct cutcp_input a, b, r;
	char err[256];

	CHECK_INT(cutcp_bins_for_scale(1), CUTCP_BASE_BINS, "scale 1 bins");
	CHECK_INT(cutcp_bins_for_scale(0.01), 9, "scale 0.01 bins");
	CHECK_INT(cutcp_bins_for_scale(1e-9), 1, "at least one bin");
	CHECK_INT(cutcp_generate(&a, 2, 5, err, sizeof(err)), 0, "generate");
	CHECK_INT(cutcp_generate(&b, 2, 5, err, sizeof(err)), 0, "again");
	CHECK(a.natoms == b.natoms && !memcmp(a.atoms, b.atoms, a.natoms * 16),
	      "same seed, same atoms");
	int inside = 1;
	for (uint32_t i = 0; i < a.natoms; i++) {
		inside &= a.atoms[i].x >= 0 && a.atoms[i].x < 8 && a.atoms[i].y >= 0 &&
			  a.atoms[i].z < 8 && a.atoms[i].q >= -1 && a.atoms[i].q < 1;
	}
	CHECK(inside, "atoms inside the box, charges in [-1, 1)");
	cutcp_input_release(&b);
	CHECK_INT(cutcp_generate(&b, 600, 5, err, sizeof(err)), -1, "too large");

	CHECK_INT(cutcp_write_input(tmp_path("in.bin"), &a, err, sizeof(err)), 0,
		  "write input");
	CHECK_INT(cutcp_read_input(tmp_path("in.bin"), &r, err, sizeof(err)), 0,
		  "read input back");
	CHECK(r.nx == 16 && r.ny == 16 && r.nz == 16 && r.natoms == a.natoms &&
	      !memcmp(r.atoms, a.atoms, a.natoms * 16), "input round trip");
	cutcp_input_release(&r);

	float v[6] = { 1, -2, 3.5f, 0, 1e-8f, 7 }, *back;
	uint32_t nx, ny, nz;
	CHECK_INT(cutcp_write_output(tmp_path("out.bin"), 3, 2, 1, v, err,
				     sizeof(err)), 0, "write output");
	CHECK_INT(cutcp_read_output(tmp_path("out.bin"), &nx, &ny, &nz, &back, err,
				    sizeof(err)), 0, "read output back");
	CHECK(nx == 3 && ny == 2 && nz == 1 && !memcmp(back, v, sizeof(v)),
	      "output round trip");
	free(back);

	CHECK_INT(cutcp_read_input(tmp_path("none"), &r, err, sizeof(err)), -1,
		  "missing file");
	CHECK_INT(cutcp_read_input(tmp_path("out.bin"), &r, err, sizeof(err)), -1,
		  "an output is not an input");
	CHECK(strstr(err, "bad magic") != NULL, "bad magic message");
	CHECK_INT(cutcp_read_output(tmp_path("in.bin"), &nx, &ny, &nz, &back, err,
				    sizeof(err)), -1, "an input is not an output");

	size_t len = 0;
	unsigned char *buf = pb_read_file(tmp_path("in.bin"), &len);
	if (!CHECK(buf && len == 24 + a.natoms * 16, "input file size")) {
		return;
	}
	pb_write_file(tmp_path("short.bin"), buf, len - 16);
	CHECK_INT(cutcp_read_input(tmp_path("short.bin"), &r, err, sizeof(err)), -1,
		  "truncated input");
	CHECK(strstr(err, "bytes, expected") != NULL, "truncation message");

	float inf = INFINITY;
	memcpy(buf + 24 + 16 * 3 + 8, &inf, 4);
	pb_write_file(tmp_path("inf.bin"), buf, len);
	CHECK_INT(cutcp_read_input(tmp_path("inf.bin"), &r, err, sizeof(err)), -1,
		  "infinite coordinate");
	CHECK(strstr(err, "not finite") != NULL, "not finite message");

	buf[8] = 0;	/* nx = 0 */
	pb_write_file(tmp_path("badn.bin"), buf, len);
	CHECK_INT(cutcp_read_input(tmp_path("badn.bin"), &r, err, sizeof(err)), -1,
		  "empty lattice");
	CHECK(strstr(err, "not supported") != NULL, "lattice message");
	free(buf);
	cutcp_input_release(&a);
}

int main(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/test_parboil_cutcp.XXXXXX");
	if (!mkdtemp(tmpdir)) {
		perror("mkdtemp");
		return 1;
	}
	test_hand();
	test_bins();
	test_files();
	const char *names[] = { "in.bin", "out.bin", "short.bin", "inf.bin",
				"badn.bin" };
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		unlink(tmp_path(names[i]));
	}
	rmdir(tmpdir);
	return test_done();
}
