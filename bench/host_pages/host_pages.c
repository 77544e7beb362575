/* SPDX-License-Identifier: MIT */
/*
 * host-pages: how fast a large pageable copy runs, by where its host
 * pages come from (doc/results/fidelity-2026-11-27.md). mm, sad and
 * stencil replay their pageable copies 10-20% faster than they ran in
 * the captured program; the replay copies device-to-host results into
 * one mapping it gives back with MADV_DONTNEED before each replay, and
 * host-to-device data from a buffer it read the blob into, while the
 * program copied into a freshly allocated heap buffer, from one it had
 * just written, and as the process's first copies. Each case here is
 * one of those, timed per copy (wall clock around a synchronous copy):
 *
 *   d2h-malloc     D2H into a new malloc() buffer, freed after (program)
 *   d2h-dontneed   D2H into one mmap() area, MADV_DONTNEED before each
 *                  copy (the replay's result area)
 *   d2h-warm       D2H into the same area, pages kept (--warm-host)
 *   h2d-malloc     H2D from a new malloc() buffer just filled (program)
 *   h2d-kept       H2D from one buffer filled once (the replay's blob)
 * and, with the suffix -nohuge or -huge, the same with
 * madvise(MADV_NOHUGEPAGE / MADV_HUGEPAGE) on the host buffer first
 * (transparent huge pages change what a first touch costs).
 *
 * usage: host-pages MIB ROUNDS CASE...   (the cases run in the order
 * given, in one process: the first copies of a process are also timed)
 * Prints "CASE round ms" per copy.
 */
#include <cuda.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <time.h>

#include "../bench_cuda.h"

static double now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

/* MADV_HUGEPAGE or MADV_NOHUGEPAGE by the case's suffix, else nothing. */
static void thp(const char *c, void *p, size_t n)
{
	const char *s = strrchr(c, '-');

	if (s && !strcmp(s, "-nohuge")) {
		madvise(p, n, MADV_NOHUGEPAGE);
	} else if (s && !strcmp(s, "-huge")) {
		madvise(p, n, MADV_HUGEPAGE);
	}
}

static int is(const char *c, const char *base)
{
	size_t n = strlen(base);

	return !strncmp(c, base, n) && (c[n] == 0 || c[n] == '-');
}

int main(int argc, char **argv)
{
	CUdevice dev;
	CUcontext ctx;
	CUdeviceptr d;

	if (argc < 4) {
		fprintf(stderr, "usage: host-pages MIB ROUNDS CASE...\n");
		return 2;
	}
	size_t n = (size_t)atoi(argv[1]) << 20;
	int rounds = atoi(argv[2]);

	CK(cuInit(0));
	CK(cuDeviceGet(&dev, 0));
	CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx));
	CK(cuMemAlloc(&d, n));
	CK(cuMemsetD8(d, 1, n));
	CK(cuCtxSynchronize());
	for (int a = 3; a < argc; a++) {
		const char *c = argv[a];
		/* the areas kept across rounds */
		uint8_t *area = mmap(NULL, n, PROT_READ | PROT_WRITE,
				     MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (area == MAP_FAILED) {
			perror("mmap");
			return 1;
		}
		thp(c, area, n);
		memset(area, 2, n);
		for (int r = 0; r < rounds; r++) {
			uint8_t *p = area;
			double t0, t1;

			if (is(c, "d2h-malloc") || is(c, "h2d-malloc")) {
				p = malloc(n);
				thp(c, p, n);
				if (is(c, "h2d-malloc")) {
					memset(p, 3, n);
				}
			} else if (is(c, "d2h-dontneed")) {
				madvise(area, n, MADV_DONTNEED);
			} else if (!is(c, "d2h-warm") && !is(c, "h2d-kept")) {
				fprintf(stderr, "host-pages: unknown case '%s'\n", c);
				return 2;
			}
			t0 = now_ms();
			if (c[0] == 'd') {
				CK(cuMemcpyDtoH(p, d, n));
			} else {
				CK(cuMemcpyHtoD(d, p, n));
			}
			t1 = now_ms();
			printf("%s\t%d\t%.3f\n", c, r, t1 - t0);
			fflush(stdout);
			if (p != area) {
				free(p);
			}
		}
		munmap(area, n);
	}
	CK(cuMemFree(d));
	return 0;
}
