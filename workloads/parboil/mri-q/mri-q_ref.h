/* SPDX-License-Identifier: MIT */
/*
 * mri-q's host side in plain C: the problem (k-space samples and voxel
 * positions), its deterministic generator, the -i/-o file formats, the
 * CPU reference in double precision and the comparison. Compiled into the
 * program by nvcc and into libparboil-ref.a by gcc for the unit tests.
 */
#ifndef PB_MRIQ_REF_H
#define PB_MRIQ_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PB_MRIQ_NUMX 1048576	/* voxels at -s 1 */
#define PB_MRIQ_NUMK 49152	/* k-space samples at -s 1 */
#define PB_MRIQ_SAMPLES 1024	/* voxels checked against the CPU */

/*
 * The input: numK k-space samples (trajectory kx, ky, kz and the complex
 * value phi = phiR + i phiI) and numX voxel positions x, y, z.
 */
struct pb_mriq_problem {
	int numk, numx;
	float *kx, *ky, *kz, *phir, *phii;	/* numk each */
	float *x, *y, *z;			/* numx each */
};

/*
 * Sizes for @scale: both counts grow with sqrt(scale), so the work
 * (numK * numX) grows linearly. Returns 0, or -1 with a message in @err.
 */
int pb_mriq_sizes(double scale, int *numk, int *numx, char *err, size_t errlen);

/* Generate the deterministic problem of that size (pb_mriq_release frees). */
void pb_mriq_generate(struct pb_mriq_problem *p, int numk, int numx);

/* Free the arrays of @p and zero it. */
void pb_mriq_release(struct pb_mriq_problem *p);

/* |phi|^2 of sample @k in single precision: phiR * phiR + phiI * phiI. */
float pb_mriq_phimag(const struct pb_mriq_problem *p, int k);

/*
 * Q of voxel @v in double precision:
 *   Qr = sum_k |phi_k|^2 cos(2 pi k.x),  Qi = sum_k |phi_k|^2 sin(2 pi k.x)
 * over all numk samples.
 */
void pb_mriq_q_ref(const struct pb_mriq_problem *p, int v, double *qr,
		   double *qi);

/* sqrt(sum_k |phi_k|^4): the typical size of Q, the scale of the tolerance. */
double pb_mriq_q_scale(const struct pb_mriq_problem *p);

/*
 * The @count voxels the program checks: the first, the last, and the rest
 * drawn by a fixed generator (count is at most numx; repeats possible).
 */
void pb_mriq_samples(const struct pb_mriq_problem *p, int *v, int count);

/*
 * Check the GPU's Qr/Qi at the sampled voxels against the CPU: a voxel
 * fails when |dQr| or |dQi| exceeds @tol * pb_mriq_q_scale() (NaN fails).
 * Returns the number of failing voxels and stores the largest error in
 * units of the scale in @max_err.
 */
int pb_mriq_check(const struct pb_mriq_problem *p, const float *qr,
		  const float *qi, const int *v, int count, double tol,
		  double *max_err);

/*
 * Input file (-i), little-endian: "PBMRIQI1", int32 numk numx, float32
 * kx[numk] ky[numk] kz[numk] phiR[numk] phiI[numk] x[numx] y[numx]
 * z[numx]. Write returns 0 or -1; read returns 0, or -1 with a message
 * in @err (then @p is empty).
 */
int pb_mriq_write_input(const char *path, const struct pb_mriq_problem *p);
int pb_mriq_read_input(const char *path, struct pb_mriq_problem *p, char *err,
		       size_t errlen);

/*
 * Output file (-o): "PBMRIQO1", int32 numx, float32 Qr[numx] Qi[numx].
 * Write returns 0 or -1. Read allocates *@qr and *@qi (caller frees) and
 * returns 0, or -1 with a message in @err.
 */
int pb_mriq_write_output(const char *path, int numx, const float *qr,
			 const float *qi);
int pb_mriq_read_output(const char *path, int *numx, float **qr, float **qi,
			char *err, size_t errlen);

#ifdef __cplusplus
}
#endif

#endif
