/* SPDX-License-Identifier: MIT */
/*
 * fft reference side (plain C11, no CUDA): the deterministic batch of
 * complex signals, the -i/-o file formats, the twiddle and filter tables
 * the GPU uses, the radix-2 Stockham butterfly shared with the kernel, and
 * the double-precision CPU reference the sampled GPU results are checked
 * against. Compiled into build/workloads/parboil/fft by nvcc and into
 * libparboil-ref.a by gcc (unit-tested by tests/unit/test_parboil_fft.c).
 *
 * The program filters every signal of the batch @iterations times in the
 * frequency domain: x <- IDFT(H . DFT(x)) with the unscaled inverse and
 * H[k] = exp(i phi_k) / n, phi_k = 2 pi ((k^2 + 3k) mod n) / n, a chirp
 * all-pass filter, so the signal keeps its norm and rounding errors neither
 * vanish nor blow up.
 */
#ifndef FFT_REF_H
#define FFT_REF_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#ifdef __CUDACC__
#define FFT_HD __host__ __device__
#else
#define FFT_HD
#endif

#define FFT_N 4096			/* points per transform */
#define FFT_BASE_BATCH 4096		/* transforms at scale 1 */
#define FFT_ITERATIONS 16		/* filter rounds */
#define FFT_SEED 0x666674310ULL
#define FFT_MAX_LOG2N 20
#define FFT_MAX_POINTS (1u << 28)	/* n * batch: 2 GiB of data */
#define FFT_MAX_ITERATIONS 10000
#define FFT_SAMPLES 64			/* signals checked on the CPU */
#define FFT_TOLERANCE 1e-4		/* relative L2 error per signal */

/* A single-precision complex number, 8-byte aligned (one vector load). */
struct fft_cplx {
#ifdef __cplusplus
	alignas(8) float re;
#else
	_Alignas(8) float re;
#endif
	float im;
};

struct fft_input {
	uint32_t n;		/* points per transform, a power of two */
	uint32_t batch;		/* transforms */
	uint32_t iterations;	/* filter rounds */
	struct fft_cplx *data;	/* batch * n points, transform after transform */
};

/*
 * One butterfly of a radix-2 Stockham pass over one transform of @n points
 * (the GPU's fft_pass runs exactly this). Pass p has half-span ns = 2^p;
 * butterfly j (0 <= j < n/2) reads in[j] and in[j + n/2], multiplies the
 * second by the twiddle exp(-+2 pi i k / 2ns), k = j mod ns (conjugated when
 * @inverse), and writes the sum and the difference to out[o] and out[o + ns],
 * o = 2 (j - k) + k. After log2(n) passes, ping-ponging between two
 * buffers, the transform is in natural order. @tw holds exp(-2 pi i t / n)
 * for t < n/2.
 */
FFT_HD static inline void fft_butterfly(const struct fft_cplx *in,
					struct fft_cplx *out,
					const struct fft_cplx *tw, uint32_t n,
					uint32_t ns, uint32_t j, int inverse)
{
	uint32_t k = j & (ns - 1);
	struct fft_cplx w = tw[k * (n / (2 * ns))];
	struct fft_cplx a = in[j], b = in[j + n / 2], t;
	uint32_t o = 2 * (j - k) + k;

	if (inverse) {
		w.im = -w.im;
	}
	t.re = b.re * w.re - b.im * w.im;
	t.im = b.re * w.im + b.im * w.re;
	out[o].re = a.re + t.re;
	out[o].im = a.im + t.im;
	out[o + ns].re = a.re - t.re;
	out[o + ns].im = a.im - t.im;
}

/* Transforms for problem scale @scale (at least 1). */
uint32_t fft_batch_for_scale(double scale);

/* log2 of @n when it is a power of two from 2 to 2^FFT_MAX_LOG2N, else -1. */
int fft_log2(uint32_t n);

/*
 * Generate @batch signals of @n points, uniform in [-1, 1) on both axes,
 * from @seed into @in (release with fft_input_release()). Returns 0, or -1
 * with a message in @err for a bad n, an empty or too large batch, a bad
 * iteration count or no memory.
 */
int fft_generate(struct fft_input *in, uint32_t n, uint32_t batch,
		 uint32_t iterations, uint64_t seed, char *err, size_t errlen);

/* Free the data of @in and zero it. */
void fft_input_release(struct fft_input *in);

/*
 * Input file: 8-byte magic "PBFFTIN1", little-endian uint32 n, batch,
 * iterations, 0, then batch * n points as float pairs (re, im). The reader
 * checks the magic, n (a power of two, 2 to 2^20), batch * n (at most
 * 2^28), the iteration count (1 to 10000), the exact size and that every
 * value is finite. Returns 0, or -1 with a message in @err.
 */
int fft_read_input(const char *path, struct fft_input *in, char *err,
		   size_t errlen);
int fft_write_input(const char *path, const struct fft_input *in, char *err,
		    size_t errlen);

/*
 * Output file: magic "PBFFTOU1", uint32 n, batch, then the filtered
 * signals as float pairs. fft_read_output() returns a new array in *@data
 * (caller frees).
 */
int fft_write_output(const char *path, uint32_t n, uint32_t batch,
		     const struct fft_cplx *data, char *err, size_t errlen);
int fft_read_output(const char *path, uint32_t *n, uint32_t *batch,
		    struct fft_cplx **data, char *err, size_t errlen);

/* Fill @tw (n/2 entries) with exp(-2 pi i t / n), rounded from double. */
void fft_twiddles(uint32_t n, struct fft_cplx *tw);

/* Fill @h (n entries) with the filter H (see above), rounded from double. */
void fft_filter(uint32_t n, struct fft_cplx *h);

/*
 * In-place double-precision DFT of @x (n = 2^log2n complex values as
 * re, im pairs): the forward transform (exponent -), or the unscaled
 * inverse (exponent +) when @inverse. Iterative Cooley-Tukey with a bit
 * reversal, independent of the GPU's Stockham formulation.
 */
void fft_double(double *x, int log2n, int inverse);

/*
 * The CPU reference of one signal: @iterations rounds of x <- IDFT(H . DFT(x))
 * in double, with H the float filter table @h (so the GPU and the CPU use
 * the same H). @x holds n complex values as re, im pairs and is updated in
 * place.
 */
void fft_reference(double *x, int log2n, const struct fft_cplx *h,
		   uint32_t iterations);

/*
 * Relative L2 error of @got against @want (n complex values): ||got -
 * want|| / ||want||, or +infinity when @got is not finite or @want is zero
 * while @got is not.
 */
double fft_rel_error(const struct fft_cplx *got, const double *want,
		     uint32_t n);

/* The batch indices checked on the CPU: @count spread from 0 to batch-1. */
uint32_t fft_sample_index(uint32_t batch, uint32_t count, uint32_t i);

#ifdef __cplusplus
}
#endif

#endif
