/* SPDX-License-Identifier: MIT */
/*
 * The D3Q19 lattice and its BGK collision, written once for both sides:
 * the CPU reference (plain C, lbm_ref.c) and the kernel (CUDA, lbm.cu)
 * include this file, so both perform the same IEEE single-precision
 * operations in the same order. On the device every operation goes
 * through an _rn intrinsic, which nvcc never fuses into an FMA; on the
 * host the plain operators are used (x86-64 without -mfma cannot fuse
 * either), so the two results agree bit for bit there.
 *
 * Velocity set (index: ex ey ez), opposite pairs are (1,2), (3,4), ...:
 *   0: 0 0 0
 *   1: +x  2: -x  3: +y  4: -y  5: +z  6: -z
 *   7: +x+y  8: -x-y  9: +x-y 10: -x+y
 *  11: +x+z 12: -x-z 13: +x-z 14: -x+z
 *  15: +y+z 16: -y-z 17: +y-z 18: -y+z
 * Weights 1/3 (rest), 1/18 (axes, 1-6), 1/36 (diagonals, 7-18).
 */
#ifndef LBM_D3Q19_H
#define LBM_D3Q19_H

#define LBM_Q 19

/* The mask word of a cell: bit i (1..18) says "x - e_i is solid". */
#define LBM_MASK_SOLID 0x80000000u

#if defined(__CUDACC__)
#define LBM_HD __host__ __device__ __forceinline__
#else
#define LBM_HD inline
#endif

/* X(i, ex, ey, ez, weight class) in index order. */
#define LBM_DIRS(X)                                                            \
	X(0, 0, 0, 0, 0)                                                       \
	X(1, 1, 0, 0, 1) X(2, -1, 0, 0, 1)                                     \
	X(3, 0, 1, 0, 1) X(4, 0, -1, 0, 1)                                     \
	X(5, 0, 0, 1, 1) X(6, 0, 0, -1, 1)                                     \
	X(7, 1, 1, 0, 2) X(8, -1, -1, 0, 2)                                    \
	X(9, 1, -1, 0, 2) X(10, -1, 1, 0, 2)                                   \
	X(11, 1, 0, 1, 2) X(12, -1, 0, -1, 2)                                  \
	X(13, 1, 0, -1, 2) X(14, -1, 0, 1, 2)                                  \
	X(15, 0, 1, 1, 2) X(16, 0, -1, -1, 2)                                  \
	X(17, 0, 1, -1, 2) X(18, 0, -1, 1, 2)

/* Opposite direction of i (i in 1..18 pairs with its neighbour). */
#define LBM_OPP(i) ((i) == 0 ? 0 : ((i) & 1) ? (i) + 1 : (i) - 1)

#define LBM_W0 (1.0f / 3.0f)
#define LBM_W1 (1.0f / 18.0f)
#define LBM_W2 (1.0f / 36.0f)

static LBM_HD float lbm_mul(float a, float b)
{
#if defined(__CUDA_ARCH__)
	return __fmul_rn(a, b);
#else
	return a * b;
#endif
}

static LBM_HD float lbm_add(float a, float b)
{
#if defined(__CUDA_ARCH__)
	return __fadd_rn(a, b);
#else
	return a + b;
#endif
}

static LBM_HD float lbm_sub(float a, float b)
{
#if defined(__CUDA_ARCH__)
	return __fsub_rn(a, b);
#else
	return a - b;
#endif
}

/* 1 / a, correctly rounded on both sides. */
static LBM_HD float lbm_recip(float a)
{
#if defined(__CUDA_ARCH__)
	return __frcp_rn(a);
#else
	return 1.0f / a;
#endif
}

/*
 * acc + e * f for a compile-time e in {-1, 0, 1}, without a multiply (so
 * that no compiler has a chance to treat 0 * f differently).
 */
#define LBM_ACC(acc, e, f)                                                     \
	((e) > 0 ? lbm_add((acc), (f)) : (e) < 0 ? lbm_sub((acc), (f)) : (acc))

/*
 * Add gathered population @f of direction (ex, ey, ez) to the running
 * density and momentum sums. Both sides add the directions in index
 * order, starting from zeros.
 */
#define LBM_MOMENTS_ADD(f, ex, ey, ez, rho, jx, jy, jz)                        \
	do {                                                                   \
		(rho) = lbm_add((rho), (f));                                   \
		(jx) = LBM_ACC((jx), ex, (f));                                 \
		(jy) = LBM_ACC((jy), ey, (f));                                 \
		(jz) = LBM_ACC((jz), ez, (f));                                 \
	} while (0)

/* Macroscopic moments of one cell, from its 19 gathered populations. */
struct lbm_moments {
	float rho, ux, uy, uz;
	float usq;		/* 1.5 |u|^2 */
};

/*
 * Turn the running sums (rho and momentum j) into the moments used by
 * the collision: u = j * (1 / rho), usq = 1.5 |u|^2.
 */
static LBM_HD struct lbm_moments lbm_finish_moments(float rho, float jx,
						    float jy, float jz)
{
	struct lbm_moments m;
	float inv = lbm_recip(rho);

	m.rho = rho;
	m.ux = lbm_mul(jx, inv);
	m.uy = lbm_mul(jy, inv);
	m.uz = lbm_mul(jz, inv);
	m.usq = lbm_mul(1.5f, lbm_add(lbm_add(lbm_mul(m.ux, m.ux),
					      lbm_mul(m.uy, m.uy)),
				      lbm_mul(m.uz, m.uz)));
	return m;
}

/*
 * Equilibrium population for direction weight @w and e.u = @eu:
 * w rho (1 + 3 eu + 4.5 eu^2 - 1.5 u^2).
 */
static LBM_HD float lbm_feq(float w, float eu, const struct lbm_moments *m)
{
	float t = lbm_add(1.0f, lbm_mul(3.0f, eu));

	t = lbm_add(t, lbm_mul(lbm_mul(4.5f, eu), eu));
	t = lbm_sub(t, m->usq);
	return lbm_mul(lbm_mul(w, m->rho), t);
}

/* BGK relaxation of population @f towards @feq: f - omega (f - feq). */
static LBM_HD float lbm_relax(float f, float feq, float omega)
{
	return lbm_sub(f, lbm_mul(omega, lbm_sub(f, feq)));
}

/*
 * e.u for the direction (ex, ey, ez), all compile-time constants:
 * the nonzero components added in x, y, z order.
 */
#define LBM_EU(ex, ey, ez, m)                                                  \
	LBM_ACC(LBM_ACC(LBM_ACC(0.0f, ex, (m)->ux), ey, (m)->uy), ez, (m)->uz)

/* Weight of a class 0, 1 or 2. */
#define LBM_WEIGHT(c) ((c) == 0 ? LBM_W0 : (c) == 1 ? LBM_W1 : LBM_W2)

/*
 * The whole post-collision value of direction (ex, ey, ez, class c) from
 * the gathered population f: BGK relaxation, then the body force
 * (3 w ex Fx, precomputed per class as fw1 and fw2) on the x-moving
 * directions.
 */
#define LBM_COLLIDE(f, ex, ey, ez, c, m, omega, fw1, fw2)                      \
	LBM_ACC(lbm_relax((f),                                                 \
			  lbm_feq(LBM_WEIGHT(c), LBM_EU(ex, ey, ez, m), m),    \
			  (omega)),                                            \
		ex, ((c) == 1 ? (fw1) : (fw2)))

#endif
