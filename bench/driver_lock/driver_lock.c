/* SPDX-License-Identifier: MIT */
/*
 * driver-lock: does a long device-to-host copy into pageable memory in
 * one thread hold up another thread's driver calls? (doc/results/
 * cuda-starvation.md). A copier copies COPY_MIB from the device into
 * host memory, again and again: into fresh pages (a new mapping per
 * copy, as a program's new result buffer), into the same resident pages,
 * or into page-locked memory. A victim meanwhile times its own calls:
 * texture object create+destroy, a launch and its synchronization, a
 * small pageable and a small pinned copy, an allocation and free, and a
 * plain mmap/touch/munmap with no CUDA at all. Placement: the two in one
 * context (threads of one process, as gpumix's in-process variants), in
 * two contexts of one process, or in two processes.
 *
 * usage: driver-lock thread|ctx|proc fresh|warm|pinned|none [COPY_MIB]
 * Prints one line per victim call kind: median and max microseconds.
 */
#include <cuda.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../bench_cuda.h"

static const char ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry empty() { ret; }\n";

enum { V_TEX, V_LAUNCH, V_H2D_PAGEABLE, V_H2D_PINNED, V_ALLOC, V_MMAP, NV };
static const char *vname[NV] = { "tex_create_destroy", "launch_sync",
				 "h2d_64k_pageable", "h2d_64k_pinned",
				 "alloc_free_1m", "mmap_touch_1m" };
#define ROUNDS 60

static CUdevice dev;
static CUcontext shared_ctx;
static const char *placement, *mode;
static size_t copy_bytes;
static volatile int stop_copier;

static double now_us(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e6 + ts.tv_nsec / 1e3;
}

static int cmpd(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

static CUcontext own_ctx(void)
{
	CUcontext c;

	if (!strcmp(placement, "ctx")) {
		CK(cuCtxCreate(&c, NULL, 0, dev));
	} else {
		c = shared_ctx;
		CK(cuCtxSetCurrent(c));
	}
	return c;
}

static void *copier(void *arg)
{
	CUdeviceptr d;
	void *host = NULL;
	unsigned n = 0;
	double busy = 0, t0 = now_us();

	(void)arg;
	own_ctx();
	CK(cuMemAlloc(&d, copy_bytes));
	CK(cuMemsetD8(d, 1, copy_bytes));
	if (!strcmp(mode, "pinned")) {
		CK(cuMemAllocHost(&host, copy_bytes));
	} else if (!strcmp(mode, "warm")) {
		host = malloc(copy_bytes);
		memset(host, 0, copy_bytes);
	}
	/* At most 4 s of copies: a victim that never gets in is seen as
	 * one blocked until the copier ends. */
	while (!stop_copier && now_us() - t0 < 4e6) {
		void *dst = host;
		double s;
		if (!strcmp(mode, "fresh")) {
			dst = mmap(NULL, copy_bytes, PROT_READ | PROT_WRITE,
				   MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		}
		s = now_us();
		CK(cuMemcpyDtoH(dst, d, copy_bytes));
		busy += now_us() - s;
		n++;
		if (!strcmp(mode, "fresh")) {
			munmap(dst, copy_bytes);
		}
	}
	fprintf(stderr, "copier: ended at %.0f ms; %u copies of %zu MiB, %.0f us each, %.0f%% of its time in copies\n",
		(now_us() - t0) / 1e3, n, copy_bytes >> 20, n ? busy / n : 0, 100 * busy / (now_us() - t0));
	return NULL;
}

static void victim(void)
{
	static double t[NV][ROUNDS];
	CUmodule mod;
	CUfunction f;
	CUstream st;
	CUdeviceptr d;
	void *pinned, *pageable = malloc(65536);
	CUDA_RESOURCE_DESC rd;
	CUDA_TEXTURE_DESC td;

	own_ctx();
	CK(cuModuleLoadData(&mod, ptx));
	CK(cuModuleGetFunction(&f, mod, "empty"));
	CK(cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
	CK(cuMemAlloc(&d, 1 << 20));
	CK(cuMemAllocHost(&pinned, 65536));
	memset(pageable, 0, 65536);
	memset(&rd, 0, sizeof(rd));
	rd.resType = CU_RESOURCE_TYPE_LINEAR;
	rd.res.linear.devPtr = d;
	rd.res.linear.format = CU_AD_FORMAT_FLOAT;
	rd.res.linear.numChannels = 1;
	rd.res.linear.sizeInBytes = 1 << 20;
	memset(&td, 0, sizeof(td));
	usleep(300000);	/* let the copier start */
	double v0 = now_us();
	for (int r = 0; r < ROUNDS; r++) {
		for (int v = 0; v < NV; v++) {
			double s = now_us();
			switch (v) {
			case V_TEX: {
				CUtexObject tex;
				CK(cuTexObjectCreate(&tex, &rd, &td, NULL));
				CK(cuTexObjectDestroy(tex));
				break;
			}
			case V_LAUNCH:
				CK(cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, st, NULL, NULL));
				CK(cuStreamSynchronize(st));
				break;
			case V_H2D_PAGEABLE:
				CK(cuMemcpyHtoDAsync(d, pageable, 65536, st));
				CK(cuStreamSynchronize(st));
				break;
			case V_H2D_PINNED:
				CK(cuMemcpyHtoDAsync(d, pinned, 65536, st));
				CK(cuStreamSynchronize(st));
				break;
			case V_ALLOC: {
				CUdeviceptr a;
				CK(cuMemAlloc(&a, 1 << 20));
				CK(cuMemFree(a));
				break;
			}
			case V_MMAP: {
				char *m = mmap(NULL, 1 << 20, PROT_READ | PROT_WRITE,
					       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
				for (int i = 0; i < (1 << 20); i += 4096) {
					m[i] = 1;
				}
				munmap(m, 1 << 20);
				break;
			}
			}
			t[v][r] = now_us() - s;
		}
		usleep(2000);
	}
	fprintf(stderr, "victim: %d rounds in %.0f ms\n", ROUNDS, (now_us() - v0) / 1e3);
	for (int v = 0; v < NV; v++) {
		qsort(t[v], ROUNDS, sizeof(double), cmpd);
		printf("%s %s %-20s median %9.1f us  p90 %9.1f us  max %9.1f us\n",
		       placement, mode, vname[v], t[v][ROUNDS / 2],
		       t[v][ROUNDS * 9 / 10], t[v][ROUNDS - 1]);
	}
	fflush(stdout);
}

int main(int argc, char **argv)
{
	pthread_t th;
	pid_t pid = 0;

	if (argc < 3) {
		fprintf(stderr, "usage: driver-lock thread|ctx|proc fresh|warm|pinned|none [COPY_MIB]\n");
		return 2;
	}
	placement = argv[1];
	mode = argv[2];
	copy_bytes = (size_t)(argc > 3 ? atoi(argv[3]) : 128) << 20;
	if (!strcmp(placement, "proc") && strcmp(mode, "none")) {
		pid = fork();
		if (pid == 0) {
			/* the copier's process: copies until killed */
			CK(cuInit(0));
			CK(cuDeviceGet(&dev, 0));
			CK(cuDevicePrimaryCtxRetain(&shared_ctx, dev));
			copier(NULL);
			_exit(0);
		}
	}
	CK(cuInit(0));
	CK(cuDeviceGet(&dev, 0));
	CK(cuDevicePrimaryCtxRetain(&shared_ctx, dev));
	if (strcmp(placement, "proc") && strcmp(mode, "none")) {
		pthread_create(&th, NULL, copier, NULL);
	}
	victim();
	stop_copier = 1;
	if (pid > 0) {
		kill(pid, 9);
		waitpid(pid, NULL, 0);
	} else if (strcmp(mode, "none")) {
		pthread_join(th, NULL);
	}
	return 0;
}
