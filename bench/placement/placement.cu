/* SPDX-License-Identifier: MIT */
/*
 * placement: micro-experiments on how the GPU's block scheduler places
 * thread blocks (doc/placement.md; the method of Gilman et al.'s study of
 * the thread-block scheduler, redone on this GPU). Each launch is of
 * `hold`, a kernel whose every block records its SM (%smid) and its start
 * and end (%globaltimer, the GPU's global clock: comparable across
 * streams, contexts and processes), holding its SM for a given time; its
 * dynamic shared memory sets how many of its blocks fit on one SM (K:
 * each block takes 1/K of the SM's shared memory, less the reservation).
 * The records are printed as TSV lines "role block sm start end" on
 * stdout after the launch completed; bench/placement.sh runs the
 * experiments (one process, two streams; two processes, time-sliced or
 * under MPS) and summarises them.
 *
 *   placement info
 *       the device: SMs, shared memory per SM and per block (opt-in)
 *   placement one ROLE BLOCKS K US [--wait FILE] [--signal FILE]
 *                 [--delay-us D] [--priority P]
 *       one launch: ROLE's BLOCKS blocks, K per SM, each holding its SM
 *       US microseconds; with --wait it waits for FILE to exist first,
 *       with --signal it creates FILE right after its launch call
 *       returned; --delay-us sleeps before launching; --priority sets the
 *       stream's priority (0: the default, negative: higher)
 *   placement pair BLOCKS_A K_A US_A BLOCKS_B K_B US_B DELAY_US [PRIO_B]
 *       A on one stream, then after DELAY_US B on another, one context
 *
 * Exit status: 0, 1 on a CUDA error (named), 2 on a usage error.
 */
#include <cuda_runtime.h>
#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

struct rec {
	unsigned long long start, end;
	unsigned int sm, pad;
};

#define CHECK(call)                                                            \
	do {                                                                   \
		cudaError_t e_ = (call);                                       \
		if (e_ != cudaSuccess) {                                       \
			fprintf(stderr, "placement: %s failed: %s\n", #call,   \
				cudaGetErrorString(e_));                       \
			exit(1);                                               \
		}                                                              \
	} while (0)

__device__ static unsigned long long now_ns(void)
{
	unsigned long long t;

	asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(t));
	return t;
}

/* Every block holds its SM for @hold_ns, then thread 0 records it. */
__global__ void hold(struct rec *r, unsigned long long hold_ns)
{
	extern __shared__ unsigned char smem[];
	__shared__ unsigned long long start;
	unsigned int sm;

	if (threadIdx.x == 0) {
		start = now_ns();
		smem[0] = 1;	/* the shared memory is used: it is allocated */
	}
	__syncthreads();
	while (now_ns() - start < hold_ns) {
	}
	__syncthreads();
	if (threadIdx.x == 0) {
		asm volatile("mov.u32 %0, %%smid;" : "=r"(sm));
		r[blockIdx.x].start = start;
		r[blockIdx.x].end = now_ns();
		r[blockIdx.x].sm = sm;
	}
}

static int sms, smem_sm, smem_block, reserved;
static size_t smem_static;	/* hold's own __shared__ bytes */

static void device_info(void)
{
	int dev = 0;

	CHECK(cudaGetDevice(&dev));
	CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, dev));
	CHECK(cudaDeviceGetAttribute(&smem_sm,
				     cudaDevAttrMaxSharedMemoryPerMultiprocessor,
				     dev));
	CHECK(cudaDeviceGetAttribute(&smem_block,
				     cudaDevAttrMaxSharedMemoryPerBlockOptin,
				     dev));
	CHECK(cudaDeviceGetAttribute(&reserved,
				     cudaDevAttrReservedSharedMemoryPerBlock,
				     dev));
	/* the opt-in limit covers static and dynamic shared memory
	 * together: asking for all of it as dynamic is an invalid
	 * argument */
	struct cudaFuncAttributes fa;
	CHECK(cudaFuncGetAttributes(&fa, hold));
	smem_static = fa.sharedSizeBytes;
	smem_block -= (int)smem_static;
	CHECK(cudaFuncSetAttribute(hold,
				   cudaFuncAttributeMaxDynamicSharedMemorySize,
				   smem_block));
}

/* Dynamic shared memory per block so that exactly @k blocks fit an SM. */
static size_t smem_for(int k)
{
	size_t per = (size_t)smem_sm / (size_t)k - (size_t)reserved
		     - smem_static;

	/* a little under the share, so that rounding never lets k+1 in
	 * nor keeps k out */
	per = per > 1024 ? per - 512 : per;
	if (per > (size_t)smem_block) {
		per = (size_t)smem_block;
	}
	return per;
}

struct launch {
	const char *role;
	int blocks, k;
	double us;
	struct rec *d;
	cudaStream_t s;
};

/* Its stream and records, before any launch (nothing slow between). */
static void prepare(struct launch *l, int priority)
{
	CHECK(cudaStreamCreateWithPriority(&l->s, cudaStreamNonBlocking,
					   priority));
	CHECK(cudaMalloc(&l->d, (size_t)l->blocks * sizeof(struct rec)));
	CHECK(cudaMemset(l->d, 0, (size_t)l->blocks * sizeof(struct rec)));
	CHECK(cudaDeviceSynchronize());
}

static void start(struct launch *l)
{
	hold<<<l->blocks, 32, smem_for(l->k), l->s>>>(
		l->d, (unsigned long long)(l->us * 1000.0));
	CHECK(cudaGetLastError());
}

static void finish(struct launch *l)
{
	struct rec *h = (struct rec *)malloc((size_t)l->blocks * sizeof(*h));

	CHECK(cudaStreamSynchronize(l->s));
	CHECK(cudaMemcpy(h, l->d, (size_t)l->blocks * sizeof(*h),
			 cudaMemcpyDeviceToHost));
	for (int i = 0; i < l->blocks; i++) {
		printf("%s\t%d\t%u\t%llu\t%llu\n", l->role, i, h[i].sm,
		       h[i].start, h[i].end);
	}
	free(h);
	CHECK(cudaFree(l->d));
	CHECK(cudaStreamDestroy(l->s));
}

static void sleep_us(double us)
{
	struct timespec ts;

	ts.tv_sec = (time_t)(us / 1e6);
	ts.tv_nsec = (long)((us - (double)ts.tv_sec * 1e6) * 1000.0);
	while (nanosleep(&ts, &ts) && errno == EINTR) {
	}
}

static int usage(void)
{
	fprintf(stderr, "usage: placement info\n"
		"       placement one ROLE BLOCKS K US [--wait FILE] [--signal FILE]"
		" [--delay-us D] [--priority P]\n"
		"       placement pair BLOCKS_A K_A US_A BLOCKS_B K_B US_B DELAY_US"
		" [PRIO_B]\n");
	return 2;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		return usage();
	}
	CHECK(cudaFree(0));	/* the context, before any timing */
	device_info();
	if (!strcmp(argv[1], "info")) {
		printf("sms\t%d\nsmem_per_sm\t%d\nsmem_per_block_optin\t%d\n"
		       "smem_reserved_per_block\t%d\n", sms, smem_sm, smem_block,
		       reserved);
		return 0;
	}
	if (!strcmp(argv[1], "one") && argc >= 6) {
		struct launch l = { argv[2], atoi(argv[3]), atoi(argv[4]),
				    atof(argv[5]), NULL, NULL };
		const char *wait = NULL, *signal = NULL;
		double delay = 0;
		int prio = 0;
		for (int i = 6; i + 1 < argc; i += 2) {
			if (!strcmp(argv[i], "--wait")) {
				wait = argv[i + 1];
			} else if (!strcmp(argv[i], "--signal")) {
				signal = argv[i + 1];
			} else if (!strcmp(argv[i], "--delay-us")) {
				delay = atof(argv[i + 1]);
			} else if (!strcmp(argv[i], "--priority")) {
				prio = atoi(argv[i + 1]);
			} else {
				return usage();
			}
		}
		if (l.blocks < 1 || l.k < 1 || l.us < 0) {
			return usage();
		}
		prepare(&l, prio);
		while (wait && access(wait, F_OK)) {
			sleep_us(20);
		}
		if (delay > 0) {
			sleep_us(delay);
		}
		start(&l);
		if (signal) {
			int fd = open(signal, O_CREAT | O_WRONLY, 0644);
			if (fd >= 0) {
				close(fd);
			}
		}
		finish(&l);
		return 0;
	}
	if (!strcmp(argv[1], "pair") && argc >= 9) {
		struct launch a = { "A", atoi(argv[2]), atoi(argv[3]),
				    atof(argv[4]), NULL, NULL };
		struct launch b = { "B", atoi(argv[5]), atoi(argv[6]),
				    atof(argv[7]), NULL, NULL };
		int prio = argc > 9 ? atoi(argv[9]) : 0;
		if (a.blocks < 1 || a.k < 1 || b.blocks < 1 || b.k < 1) {
			return usage();
		}
		prepare(&a, 0);
		prepare(&b, prio);
		start(&a);
		sleep_us(atof(argv[8]));
		start(&b);
		finish(&a);
		finish(&b);
		return 0;
	}
	return usage();
}
