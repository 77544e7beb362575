/* SPDX-License-Identifier: MIT */
/*
 * GPU check and benchmark of the elastic transformation, without the
 * replay runtime: loads an original and a transformed PTX module with
 * cuModuleLoadData, runs each elastic kernel of the corpus on the same
 * inputs, first as the original, then transformed with elasticity off,
 * with physical grids of 1 block, 1 block per SM, the maximum resident
 * blocks and the original size, in timeslices of several sizes, with
 * other block sizes for thread-elastic kernels, and with the completion
 * notification (host-mapped flag); every output must be bit-identical.
 * With --bench it times, per kernel, the original and the transformed
 * kernel on the same (enlarged) grid, elasticity off.
 *
 * usage: elastic_run [--bench] [--scale S] [--reps R] ORIG.ptx ELASTIC.ptx SPEC...
 *   SPEC: "name class grid=x,y,z block=x,y,z smem=N n=N out=N" where class
 *   is thread-elastic, block-elastic or not-elastic (skipped).
 * Output: TAP ("ok N - ..."), or with --bench a Markdown table.
 * Exit status: 0 when every check passed.
 */
#include <cuda.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "common/elastic_abi.h"

static int n_tests, n_failed;

static void result(int ok, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void result(int ok, const char *fmt, ...)
{
	va_list ap;

	printf("%s %d - ", ok ? "ok" : "not ok", ++n_tests);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	printf("\n");
	fflush(stdout);
	n_failed += !ok;
}

#define CK(call)                                                               \
	do {                                                                   \
		CUresult r_ = (call);                                          \
		if (r_ != CUDA_SUCCESS) {                                      \
			const char *s_ = NULL;                                 \
			cuGetErrorString(r_, &s_);                             \
			printf("# %s:%d: %s: %s\n", __FILE__, __LINE__, #call, \
			       s_ ? s_ : "?");                                 \
			goto fail;                                             \
		}                                                              \
	} while (0)

struct spec {
	char name[128];
	char cls[32];
	unsigned grid[3], block[3];
	size_t smem;
	unsigned n, out;
};

static char *read_text(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *s;

	if (!f) {
		perror(path);
		return NULL;
	}
	fseek(f, 0, SEEK_END);
	n = ftell(f);
	fseek(f, 0, SEEK_SET);
	s = calloc(1, (size_t)n + 1);
	if (fread(s, 1, (size_t)n, f) != (size_t)n) {
		perror(path);
		free(s);
		s = NULL;
	}
	fclose(f);
	return s;
}

struct gpu {
	CUdevice dev;
	CUcontext ctx;
	CUmodule orig, el;
	int sms;
	CUstream stream;
	uint32_t *flag_h;	/* host-mapped completion flag */
	CUdeviceptr flag_d, count_d;
};

struct run {
	struct gpu *g;
	const struct spec *s;
	CUfunction fo, fe;
	CUdeviceptr in, out;
	size_t out_words;
	uint32_t *ref, *host;
};

static unsigned total_blocks(const struct spec *s)
{
	return s->grid[0] * s->grid[1] * s->grid[2];
}

static int launch_orig(struct run *r, const unsigned grid[3])
{
	void *p[] = { &r->out, &r->in, (void *)&r->s->n };
	CK(cuLaunchKernel(r->fo, grid[0], grid[1], grid[2], r->s->block[0],
			  r->s->block[1], r->s->block[2], (unsigned)r->s->smem,
			  r->g->stream, p, NULL));
	return 0;
fail:
	return -1;
}

static int launch_el(struct run *r, const unsigned grid[3], const unsigned block[3],
		     uint32_t offset, uint32_t limit, int notify)
{
	struct gm_elastic_args a;
	void *p[] = { &r->out, &r->in, (void *)&r->s->n, &a };

	memset(&a, 0, sizeof(a));
	memcpy(a.grid, r->s->grid, sizeof(a.grid));
	memcpy(a.block, r->s->block, sizeof(a.block));
	a.offset = offset;
	a.limit = limit;
	if (notify) {
		a.done_flag = r->g->flag_d;
		a.done_count = r->g->count_d;
	}
	CK(cuLaunchKernel(r->fe, grid[0], grid[1], grid[2], block[0], block[1], block[2],
			  (unsigned)r->s->smem, r->g->stream, p, NULL));
	return 0;
fail:
	return -1;
}

/* Launch the transformed kernel in ranges of @per blocks; compare. */
static void check(struct run *r, const char *what, unsigned phys, const unsigned block[3],
		  unsigned per, int notify)
{
	unsigned total = total_blocks(r->s);
	unsigned grid[3] = { phys, 1, 1 };
	uint32_t count = 0;
	int ok = 1;
	char why[256] = "";

	if (cuMemsetD32(r->out, 0, r->out_words) != CUDA_SUCCESS) {
		ok = 0;
	}
	for (unsigned off = 0; ok && off < total; off += per) {
		*r->g->flag_h = 0;
		uint32_t lim = off + per >= total ? UINT32_MAX : per;
		if (launch_el(r, grid, block, off, lim, notify) < 0 ||
		    cuStreamSynchronize(r->g->stream) != CUDA_SUCCESS) {
			snprintf(why, sizeof(why), "launch at offset %u failed", off);
			ok = 0;
			break;
		}
		if (notify) {
			cuMemcpyDtoH(&count, r->g->count_d, 4);
			if (*(volatile uint32_t *)r->g->flag_h != 1 || count != 0) {
				snprintf(why, sizeof(why), "flag %u, counter %u after the range at %u",
					 *r->g->flag_h, count, off);
				ok = 0;
			}
		}
	}
	if (ok && cuMemcpyDtoH(r->host, r->out, r->out_words * 4) != CUDA_SUCCESS) {
		ok = 0;
	}
	for (size_t i = 0; ok && i < r->out_words; i++) {
		if (r->host[i] != r->ref[i]) {
			snprintf(why, sizeof(why), "word %zu: %#x, original %#x", i, r->host[i],
				 r->ref[i]);
			ok = 0;
		}
	}
	result(ok, "%s: %s (physical grid %u x block %ux%ux%u, ranges of %u%s)", r->s->name,
	       what, phys, block[0], block[1], block[2], per, notify ? ", notification" : "");
	if (!ok) {
		printf("#   %s\n", why);
	}
}

static int max_resident(struct run *r, CUfunction f, int threads)
{
	int per_sm = 0;
	if (cuOccupancyMaxActiveBlocksPerMultiprocessor(&per_sm, f, threads, r->s->smem) !=
		    CUDA_SUCCESS ||
	    per_sm < 1) {
		return r->g->sms;
	}
	return per_sm * r->g->sms;
}

static int prepare(struct gpu *g, struct run *r, const struct spec *s)
{
	size_t threads = (size_t)total_blocks(s) * s->block[0] * s->block[1] * s->block[2];
	size_t nin = threads + (size_t)s->n + 64;
	uint32_t *hin = NULL;

	memset(r, 0, sizeof(*r));
	r->g = g;
	r->s = s;
	CK(cuModuleGetFunction(&r->fo, g->orig, s->name));
	CK(cuModuleGetFunction(&r->fe, g->el, s->name));
	r->out_words = (size_t)s->out + 64;
	if (r->out_words < threads) {
		r->out_words = threads + 64;
	}
	hin = malloc(nin * 4);
	for (size_t i = 0; i < nin; i++) {
		hin[i] = (uint32_t)(i * 2654435761u) ^ (uint32_t)(i >> 3);
	}
	CK(cuMemAlloc(&r->in, nin * 4));
	CK(cuMemAlloc(&r->out, r->out_words * 4));
	CK(cuMemcpyHtoD(r->in, hin, nin * 4));
	free(hin);
	r->ref = calloc(r->out_words, 4);
	r->host = calloc(r->out_words, 4);
	return 0;
fail:
	free(hin);
	return -1;
}

static void release(struct run *r)
{
	if (r->in) {
		cuMemFree(r->in);
	}
	if (r->out) {
		cuMemFree(r->out);
	}
	free(r->ref);
	free(r->host);
}

static void test_spec(struct gpu *g, const struct spec *s)
{
	struct run r;
	unsigned total = total_blocks(s);

	if (prepare(g, &r, s) < 0) {
		result(0, "%s: set up", s->name);
		release(&r);
		return;
	}
	/* the ABI: one more parameter, 48 bytes, 8-aligned */
	size_t off = 0, size = 0;
	int np = 0;
	while (cuFuncGetParamInfo(r.fe, (size_t)np, &off, &size) == CUDA_SUCCESS) {
		np++;
	}
	if (np > 0) {
		cuFuncGetParamInfo(r.fe, (size_t)np - 1, &off, &size);
	}
	result(np == 4 && size == GM_ELASTIC_PARAM_SIZE && off % 8 == 0,
	       "%s: the transformed kernel takes gm_el_args (%d params, last %zu bytes at %zu)",
	       s->name, np, size, off);
	if (cuMemsetD32(r.out, 0, r.out_words) != CUDA_SUCCESS || launch_orig(&r, s->grid) < 0 ||
	    cuStreamSynchronize(g->stream) != CUDA_SUCCESS ||
	    cuMemcpyDtoH(r.ref, r.out, r.out_words * 4) != CUDA_SUCCESS) {
		result(0, "%s: the original runs", s->name);
		release(&r);
		return;
	}
	/* elasticity off: the same 3-D grid and block */
	{
		int ok = cuMemsetD32(r.out, 0, r.out_words) == CUDA_SUCCESS &&
			 launch_el(&r, s->grid, s->block, 0, UINT32_MAX, 0) == 0 &&
			 cuStreamSynchronize(g->stream) == CUDA_SUCCESS &&
			 cuMemcpyDtoH(r.host, r.out, r.out_words * 4) == CUDA_SUCCESS &&
			 !memcmp(r.host, r.ref, r.out_words * 4);
		result(ok, "%s: elasticity off gives the original's result", s->name);
	}
	int mr = max_resident(&r, r.fe, (int)(s->block[0] * s->block[1] * s->block[2]));
	check(&r, "one physical block", 1, s->block, total, 1);
	check(&r, "one block per SM", (unsigned)g->sms, s->block, total, 1);
	check(&r, "the maximum resident blocks", (unsigned)mr, s->block, total, 0);
	check(&r, "the original number of blocks, 1-D", total, s->block, total, 1);
	check(&r, "timeslices of 1 block", 1, s->block, 1, 0);
	check(&r, "timeslices of 3 blocks", 2, s->block, 3, 1);
	check(&r, "timeslices of a quarter", (unsigned)g->sms, s->block, (total + 3) / 4, 1);
	if (!strcmp(s->cls, "thread-elastic")) {
		int maxt = 1024;
		cuFuncGetAttribute(&maxt, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, r.fe);
		unsigned b32[3] = { 32, 1, 1 }, b128[3] = { 128, 1, 1 };
		unsigned bmax[3] = { (unsigned)maxt, 1, 1 }, b33[3] = { 33, 1, 1 };
		check(&r, "32-thread blocks", 1, b32, total, 1);
		check(&r, "128-thread blocks", (unsigned)g->sms, b128, total, 0);
		check(&r, "the largest blocks", (unsigned)g->sms, bmax, total, 1);
		check(&r, "33-thread blocks", 3, b33, total, 0);
		check(&r, "timeslices of 3 blocks, 128-thread blocks", 2, b128, 3, 1);
	}
	release(&r);
}

static double median(double *v, int n)
{
	for (int i = 1; i < n; i++) {
		for (int j = i; j > 0 && v[j] < v[j - 1]; j--) {
			double t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	}
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* Median time in us of @reps launches (after a warm-up). */
static double time_it(struct run *r, int which, int reps, const unsigned grid[3])
{
	CUevent a, b;
	double *t = calloc((size_t)reps, sizeof(double));
	double m = -1;

	cuEventCreate(&a, CU_EVENT_DEFAULT);
	cuEventCreate(&b, CU_EVENT_DEFAULT);
	for (int i = -1; i < reps; i++) {
		float ms = 0;
		cuEventRecord(a, r->g->stream);
		int e = which == 0 ? launch_orig(r, grid)
				   : launch_el(r, grid, r->s->block, 0, UINT32_MAX, which == 2);
		cuEventRecord(b, r->g->stream);
		if (e < 0 || cuEventSynchronize(b) != CUDA_SUCCESS) {
			goto out;
		}
		cuEventElapsedTime(&ms, a, b);
		if (i >= 0) {
			t[i] = ms * 1000.0;
		}
		*r->g->flag_h = 0;
	}
	m = median(t, reps);
out:
	cuEventDestroy(a);
	cuEventDestroy(b);
	free(t);
	return m;
}

static void bench_spec(struct gpu *g, const struct spec *s0, unsigned scale, int reps)
{
	struct spec s = *s0;
	struct run r;
	int ro = 0, re = 0;

	s.grid[0] *= scale;
	s.n *= scale;
	s.out *= scale;
	if (prepare(g, &r, &s) < 0) {
		printf("| %s | %s | setup failed | | | | | | |\n", s.name, s.cls);
		release(&r);
		return;
	}
	cuFuncGetAttribute(&ro, CU_FUNC_ATTRIBUTE_NUM_REGS, r.fo);
	cuFuncGetAttribute(&re, CU_FUNC_ATTRIBUTE_NUM_REGS, r.fe);
	double to = time_it(&r, 0, reps, s.grid);
	double te = time_it(&r, 1, reps, s.grid);
	double tn = time_it(&r, 2, reps, s.grid);
	printf("| %s | %s | %u x %u | %d | %d | %.1f | %.1f | %.3f | %.3f |\n", s.name,
	       s.cls, total_blocks(&s), s.block[0] * s.block[1] * s.block[2], ro, re, to,
	       te, to > 0 ? te / to : 0, to > 0 ? tn / to : 0);
	fflush(stdout);
	release(&r);
}

int main(int argc, char **argv)
{
	struct gpu g;
	int bench = 0, reps = 21, i = 1;
	unsigned scale = 256;
	char *orig_ptx = NULL, *el_ptx = NULL;

	memset(&g, 0, sizeof(g));
	for (; i < argc && argv[i][0] == '-'; i++) {
		if (!strcmp(argv[i], "--bench")) {
			bench = 1;
		} else if (!strcmp(argv[i], "--scale") && i + 1 < argc) {
			scale = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--reps") && i + 1 < argc) {
			reps = atoi(argv[++i]);
		} else {
			fprintf(stderr, "unknown option %s\n", argv[i]);
			return 2;
		}
	}
	if (argc - i < 2) {
		fprintf(stderr, "usage: elastic_run [--bench] [--scale S] [--reps R] ORIG.ptx ELASTIC.ptx SPEC...\n");
		return 2;
	}
	orig_ptx = read_text(argv[i]);
	el_ptx = read_text(argv[i + 1]);
	if (!orig_ptx || !el_ptx) {
		return 1;
	}
	CK(cuInit(0));
	CK(cuDeviceGet(&g.dev, 0));
	CK(cuDevicePrimaryCtxRetain(&g.ctx, g.dev));
	CK(cuCtxSetCurrent(g.ctx));
	CK(cuDeviceGetAttribute(&g.sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, g.dev));
	CK(cuStreamCreate(&g.stream, CU_STREAM_NON_BLOCKING));
	CK(cuModuleLoadData(&g.orig, orig_ptx));
	CK(cuModuleLoadData(&g.el, el_ptx));
	CK(cuMemHostAlloc((void **)&g.flag_h, 4,
			  CU_MEMHOSTALLOC_DEVICEMAP | CU_MEMHOSTALLOC_PORTABLE));
	CK(cuMemHostGetDevicePointer(&g.flag_d, g.flag_h, 0));
	CK(cuMemAlloc(&g.count_d, 4));
	CK(cuMemsetD32(g.count_d, 0, 1));
	if (bench) {
		printf("| kernel | class | grid x block | regs | regs' | original (us) | elastic (us) | ratio | ratio, notification |\n");
		printf("|---|---|---|---|---|---|---|---|---|\n");
	}
	for (i += 2; i < argc; i++) {
		struct spec s;
		memset(&s, 0, sizeof(s));
		if (sscanf(argv[i], "%127s %31s grid=%u,%u,%u block=%u,%u,%u smem=%zu n=%u out=%u",
			   s.name, s.cls, &s.grid[0], &s.grid[1], &s.grid[2], &s.block[0],
			   &s.block[1], &s.block[2], &s.smem, &s.n, &s.out) != 11) {
			result(0, "bad spec '%s'", argv[i]);
			continue;
		}
		if (!strcmp(s.cls, "not-elastic")) {
			if (!bench) {
				printf("ok %d # SKIP %s is not elastic\n", ++n_tests, s.name);
			}
			continue;
		}
		if (bench) {
			bench_spec(&g, &s, scale, reps);
		} else {
			test_spec(&g, &s);
		}
	}
	if (!bench && !n_tests) {
		result(0, "no kernel to test");
	}
	cuCtxSynchronize();
	return n_failed ? 1 : 0;
fail:
	result(0, "CUDA set-up failed");
	return 1;
}
