/* SPDX-License-Identifier: MIT */
/*
 * The paper's concurrency policies (section 4.3) as functions from a
 * kernel, the co-running programs, their profiles and the device to the
 * GPU-wide limits that GETPHYGRID (phygrid.h) then meets:
 *
 *   LEFTOVER   no limits (the hardware's own policy; cuda and nss).
 *   MEDIAN     every SM keeps room for one block of the suite's median
 *              kernel: per resource, the median over all profiled
 *              kernels of the per-block need (the paper's Fermi values
 *              are 224 threads, 6144 registers, 256 bytes), recomputed
 *              from the profiles of the machine in use.
 *   MPMAX      per program: every SM keeps room for one block of
 *              "othersLargest", the per-resource maximum over the other
 *              co-running programs of their own largest kernel (itself a
 *              per-resource maximum, possibly of different kernels).
 *   EQUAL      each of n co-running programs gets 1/n of every resource.
 *   QUEUEMOLD  only when another kernel arrives while this one waits:
 *              if their shared memory together exceeds the GPU's, this
 *              one gets what the newcomer leaves; if this one holds more
 *              than 512 threads per SM, it is cut to that.
 *
 * Settled readings (PAPER-NOTES items 23, 25, 28): a reserved block takes
 * one resident-block slot as well as its threads, registers and shared
 * memory, each rounded to the device's allocation units; reservations
 * are per SM, so the GPU-wide limit is SM count x (capacity - reserved);
 * QUEUEMOLD's 512 threads are per SM (GPU-wide 512 x SMs; a parameter),
 * and a grid's usage counts only its blocks that can be resident at once.
 */
#ifndef GM_POLICY_H
#define GM_POLICY_H

#include <stddef.h>

#include "block_usage.h"
#include "phygrid.h"
#include "policies.h"	/* enum gm_policy, the names */

/*
 * "leftover", "median", ...; and back (0, or -1 with a recorded error for
 * an unknown name; "none", as run directories write it, is LEFTOVER).
 */
const char *gm_policy_name(enum gm_policy p);
int gm_policy_parse(const char *name, enum gm_policy *out);

/* What one block of a kernel needs (from a profile), not yet rounded. */
struct gm_block_need {
	int threads;
	int registers;			/* per block: threads x regs/thread */
	size_t smem;			/* static + dynamic bytes */
};

/* A profiled program: the per-block needs of its kernels. */
struct gm_program_profile {
	const char *name;
	const struct gm_block_need *kernels;
	size_t nr_kernels;
};

/* The need of a kernel with the given attributes. */
void gm_block_need_of(const struct gm_kernel_attrs *k,
		      struct gm_block_need *out);

/*
 * The median kernel: per resource, the median of the needs of every
 * kernel of the @n programs (the mean of the two middle values for an
 * even count). Returns 0, or -1 (cause recorded) when there is no kernel.
 */
int gm_median_kernel(const struct gm_program_profile *progs, size_t n,
		     struct gm_block_need *out);

/* Per-resource maximum over the kernels of @p (zeroes when none). */
void gm_largest_kernel(const struct gm_program_profile *p,
		       struct gm_block_need *out);

/*
 * Limits that keep room for one block @reserve on every SM of @dev
 * (MEDIAN with the median kernel, MPMAX with othersLargest).
 */
void gm_limits_reserve(const struct gm_device_limits *dev,
		       const struct gm_block_need *reserve,
		       struct gm_limits *out);

/* MEDIAN limits, @median from gm_median_kernel(). */
void gm_policy_median(const struct gm_device_limits *dev,
		      const struct gm_block_need *median,
		      struct gm_limits *out);

/*
 * MPMAX limits for the kernels of program @self among the @n co-running
 * @progs (full GPU when it runs alone). Returns 0, or -1 when @self is
 * out of range.
 */
int gm_policy_mpmax(const struct gm_device_limits *dev,
		    const struct gm_program_profile *progs, size_t n,
		    size_t self, struct gm_limits *out);

/* EQUAL limits for one of @n co-running programs (n >= 1). */
void gm_policy_equal(const struct gm_device_limits *dev, size_t n,
		     struct gm_limits *out);

/* A kernel waiting in a queue, or one arriving (QUEUEMOLD). */
struct gm_queued_kernel {
	struct gm_kernel_attrs attrs;
	uint64_t blocks;		/* logical grid */
};

#define GM_QUEUEMOLD_THREADS_PER_SM 512

/*
 * QUEUEMOLD limits for @waiting when @arrived (NULL: nothing arrived,
 * no limits) joins the queue before it is launched; @threads_per_sm is
 * the thread cap (GM_QUEUEMOLD_THREADS_PER_SM in the paper). Returns 0,
 * or -1 with a recorded error when either kernel cannot run on @dev.
 */
int gm_policy_queuemold(const struct gm_device_limits *dev,
			const struct gm_queued_kernel *waiting,
			const struct gm_queued_kernel *arrived,
			int threads_per_sm, struct gm_limits *out);

/* Everything a policy may look at, for gm_policy_limits(). */
struct gm_policy_input {
	enum gm_policy policy;
	const struct gm_device_limits *dev;
	const struct gm_program_profile *progs;	/* co-running programs */
	size_t nr_progs;
	size_t self;			/* the program launching */
	const struct gm_block_need *median;	/* MEDIAN: the suite's */
	const struct gm_queued_kernel *waiting;	/* QUEUEMOLD */
	const struct gm_queued_kernel *arrived;	/* QUEUEMOLD, or NULL */
	int queuemold_threads_per_sm;		/* 0: the paper's 512 */
};

/* The limits of @in->policy. Returns 0 or -1 (cause recorded). */
int gm_policy_limits(const struct gm_policy_input *in, struct gm_limits *out);

#endif
