/* SPDX-License-Identifier: MIT */
/*
 * corun-standin: a program for the co-run tests (tests/cli/corun_*.sh)
 * on the mock CUDA driver, which loads the co-run interposer through
 * CUDA_INJECTION64_PATH at cuInit as the driver does. It makes a few
 * driver calls that are not GPU operations (allocations, a module load)
 * before and after its GPU section, and in between copies an input to
 * the device, scales it with a kernel, sets a buffer, copies the result
 * back and synchronizes, in each of its threads. It checks the result
 * and prints one line on stdout, which the interposer must not change.
 *
 *   corun-standin [--rounds N] [--threads N] [--hold FILE]
 *                 [--marks FILE] [--no-gpu] [--fail]
 *
 * --hold FILE  wait until FILE exists before the first GPU operation (a
 *              partner that is late at the start barrier)
 * --marks FILE write "before NS" and "after NS" (CLOCK_MONOTONIC): just
 *              before its first GPU operation and just after its last
 *              returned, which the section must lie between
 * --no-gpu     exit after the allocations, without a GPU operation (a
 *              partner that never reaches the barrier)
 * --fail       exit 3 after the GPU section (a program that fails)
 */
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#define N 1024u
#define MUL 3u

static const char ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry _Z5scalePjPKjjj(.param .u64 a, .param .u64 b,\n"
	"\t.param .u32 c, .param .u32 d)\n{\n\tret;\n}\n";

static CUkernel scale;
static unsigned rounds = 3;

#define TRY(call)                                                              \
	do {                                                                   \
		CUresult r_ = (call);                                          \
		if (r_ != CUDA_SUCCESS) {                                      \
			fprintf(stderr, "corun-standin: %s failed: %d\n",      \
				#call, (int)r_);                               \
			exit(2);                                               \
		}                                                              \
	} while (0)

static unsigned long long now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (unsigned long long)ts.tv_sec * 1000000000ull +
	       (unsigned long long)ts.tv_nsec;
}

/* One thread's GPU work; returns the number of wrong results. */
static void *work(void *arg)
{
	unsigned *host = malloc(N * 4), mul = MUL, n = N, bad = 0;
	CUdeviceptr in = 0, out = 0;
	void *args[5] = { &out, &in, &mul, &n, NULL };

	(void)arg;
	TRY(cuMemAlloc(&in, N * 4));
	TRY(cuMemAlloc(&out, N * 4));
	for (unsigned r = 0; r < rounds; r++) {
		for (unsigned i = 0; i < N; i++) {
			host[i] = i + r;
		}
		TRY(cuMemcpyHtoDAsync(in, host, N * 4, NULL));
		TRY(cuMemsetD32Async(out, 0, N, NULL));
		TRY(cuLaunchKernel((CUfunction)scale, N / 128, 1, 1, 128, 1, 1,
				   0, NULL, args, NULL));
		TRY(cuMemcpyDtoHAsync(host, out, N * 4, NULL));
		TRY(cuStreamSynchronize(NULL));
		for (unsigned i = 0; i < N; i++) {
			bad += host[i] != (i + r) * MUL;
		}
	}
	free(host);
	return (void *)(uintptr_t)bad;
}

int main(int argc, char **argv)
{
	const char *hold = NULL, *marks = NULL;
	unsigned threads = 1, bad = 0;
	int no_gpu = 0, failing = 0;
	unsigned long long before, after;
	pthread_t tid[16];
	CUcontext ctx = NULL;
	CUlibrary lib = NULL;
	CUdeviceptr spare = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--rounds")) {
			rounds = (unsigned)atoi(argv[++i]);
		} else if (i + 1 < argc && !strcmp(argv[i], "--threads")) {
			threads = (unsigned)atoi(argv[++i]);
		} else if (i + 1 < argc && !strcmp(argv[i], "--hold")) {
			hold = argv[++i];
		} else if (i + 1 < argc && !strcmp(argv[i], "--marks")) {
			marks = argv[++i];
		} else if (!strcmp(argv[i], "--no-gpu")) {
			no_gpu = 1;
		} else if (!strcmp(argv[i], "--fail")) {
			failing = 1;
		} else {
			fprintf(stderr, "usage: corun-standin [--rounds N] "
				"[--threads N] [--hold FILE] [--marks FILE] "
				"[--no-gpu] [--fail]\n");
			return 2;
		}
	}
	if (!threads || threads > 16) {
		fprintf(stderr, "corun-standin: 1 to 16 threads\n");
		return 2;
	}
	TRY(cuInit(0));
	TRY(cuDevicePrimaryCtxRetain(&ctx, 0));
	TRY(cuCtxSetCurrent(ctx));
	TRY(cuLibraryLoadData(&lib, ptx, NULL, NULL, 0, NULL, NULL, 0));
	TRY(cuLibraryGetKernel(&scale, lib, "_Z5scalePjPKjjj"));
	TRY(cuMemAlloc(&spare, 4096));	/* not a GPU operation */
	if (no_gpu) {
		printf("corun-standin: no GPU work\n");
		return 0;
	}
	while (hold && access(hold, F_OK)) {
		struct timespec ts = { 0, 1000000 };
		nanosleep(&ts, NULL);
	}
	before = now_ns();
	for (unsigned t = 1; t < threads; t++) {
		pthread_create(&tid[t], NULL, work, NULL);
	}
	bad += (unsigned)(uintptr_t)work(NULL);
	for (unsigned t = 1; t < threads; t++) {
		void *r;
		pthread_join(tid[t], &r);
		bad += (unsigned)(uintptr_t)r;
	}
	TRY(cuCtxSynchronize());
	after = now_ns();
	TRY(cuMemFree(spare));		/* nor is this */
	if (marks) {
		FILE *f = fopen(marks, "w");
		if (!f || fprintf(f, "before %llu\nafter %llu\n", before,
				  after) < 0 || fclose(f)) {
			fprintf(stderr, "corun-standin: cannot write '%s'\n",
				marks);
			return 2;
		}
	}
	printf("corun-standin: %s, %u threads, %u rounds\n",
	       bad ? "WRONG RESULTS" : "ok", threads, rounds);
	return bad ? 1 : failing ? 3 : 0;
}
