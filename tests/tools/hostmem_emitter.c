/* SPDX-License-Identifier: MIT */
/*
 * hostmem-emitter: a zero-copy and managed-memory program on the mock CUDA
 * driver (tests/mock/), captured through the real CUPTI subscriber of
 * libgpumix-capture.so (gm_capture_test_callback: the callback data CUPTI
 * would give). Every driver call really runs on the mock, whose kernels
 * read and write the memory on the host, so the bundle holds what a GPU
 * capture of the same program would, and its replay on the mock must
 * reproduce the results:
 *
 *   - mapped page-locked memory (cuMemHostAlloc DEVICEMAP and a plain
 *     cuMemAllocHost buffer, used at its host address as on unified
 *     addressing): the host writes the input, a kernel reads it and writes
 *     the output there, the host reads it after cuCtxSynchronize; three
 *     rounds, the third with an unchanged input;
 *   - managed memory (cuMemAllocManaged): initialised by the host,
 *     attached to a stream (cuStreamAttachMemAsync), advised and
 *     prefetched to the device, incremented by kernels on a
 *     stream in a loop, read by the host after cuStreamSynchronize,
 *     prefetched back and freed.
 *
 *   hostmem-emitter [--fatbin F] [--seed N]
 *
 * --seed N shifts the mapped input by N (another run's results: for
 * gpumix trace diff).
 * With --fatbin (tests/gpu/replay_kernels.cu's), the bundle also replays
 * on a GPU (tests/data/reconstruct/make-bundles.sh, the corpus). Prints
 * "hostmem-emitter: ok" when the program's own checks of the results
 * passed (the mock computed them).
 */
#include <cuda.h>
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>


int gm_capture_test_init(void);
void gm_capture_test_callback(int domain, unsigned cbid, const void *data);
void gm_capture_test_exit(void);

#define N 1024u
#define MUL 3u

/* The module: the mock runs its kernels by name, whatever the image. */
static const char ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry _Z5scalePjPKjjj(.param .u64 a, .param .u64 b,\n"
	"\t.param .u32 c, .param .u32 d)\n{\n\tret;\n}\n"
	".visible .entry _Z4incr4span(.param .align 8 .b8 s[16])\n"
	"{\n\tret;\n}\n";

static uint32_t next_corr = 5000;
static uint64_t corr_data;

/* Driver call @expr between its entry and exit callbacks. */
#define DRV(name, params, expr)                                                \
	do {                                                                   \
		CUpti_CallbackData cb_;                                        \
		CUresult ret_ = CUDA_SUCCESS;                                  \
		memset(&cb_, 0, sizeof(cb_));                                  \
		cb_.functionName = #name;                                      \
		cb_.functionParams = (params);                                 \
		cb_.functionReturnValue = &ret_;                               \
		cb_.correlationData = &corr_data;                              \
		cb_.correlationId = next_corr++;                               \
		cb_.callbackSite = CUPTI_API_ENTER;                            \
		gm_capture_test_callback(CUPTI_CB_DOMAIN_DRIVER_API,           \
					 CUPTI_DRIVER_TRACE_CBID_##name, &cb_);\
		ret_ = (expr);                                                 \
		cb_.callbackSite = CUPTI_API_EXIT;                             \
		gm_capture_test_callback(CUPTI_CB_DOMAIN_DRIVER_API,           \
					 CUPTI_DRIVER_TRACE_CBID_##name, &cb_);\
		if (ret_ != CUDA_SUCCESS) {                                    \
			fprintf(stderr, "hostmem-emitter: %s failed: %d\n",    \
				#name, (int)ret_);                             \
			exit(2);                                               \
		}                                                              \
	} while (0)

static void launch(CUkernel k, void **args, CUstream s)
{
	cuLaunchKernel_params p = { (CUfunction)k, (N + 127) / 128, 1, 1,
				    128, 1, 1, 0, s, args, NULL };

	DRV(cuLaunchKernel, &p,
	    cuLaunchKernel((CUfunction)k, (N + 127) / 128, 1, 1, 128, 1, 1, 0,
			   s, args, NULL));
}

/* The whole of file @path (malloc'd), or NULL. */
static void *read_all(const char *path)
{
	FILE *f = fopen(path, "rb");
	char *buf = NULL;
	long n;

	if (f && !fseek(f, 0, SEEK_END) && (n = ftell(f)) > 0 &&
	    !fseek(f, 0, SEEK_SET) && (buf = malloc((size_t)n)) &&
	    fread(buf, 1, (size_t)n, f) != (size_t)n) {
		free(buf);
		buf = NULL;
	}
	if (f) {
		fclose(f);
	}
	return buf;
}

int main(int argc, char **argv)
{
	const void *image = ptx;
	CUcontext ctx = NULL;
	CUlibrary lib = NULL;
	CUkernel scale = NULL, incr = NULL;
	CUstream st = NULL;
	unsigned *in = NULL, *out = NULL, *plain = NULL;
	CUdeviceptr din = 0, dout = 0, m = 0;
	unsigned mul = MUL, n = N;
	unsigned seed = 0;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--fatbin")) {
			if (!(image = read_all(argv[++i]))) {
				fprintf(stderr, "hostmem-emitter: cannot read "
					"'%s'\n", argv[i]);
				return 2;
			}
		} else if (i + 1 < argc && !strcmp(argv[i], "--seed")) {
			seed = (unsigned)strtoul(argv[++i], NULL, 10);
		} else {
			fprintf(stderr, "usage: hostmem-emitter [--fatbin F] "
				"[--seed N]\n");
			return 2;
		}
	}
	if (gm_capture_test_init()) {
		fprintf(stderr, "hostmem-emitter: not under gpumix capture\n");
		return 3;
	}
	cuInit(0);
	{
		cuDevicePrimaryCtxRetain_params p = { &ctx, 0 };
		DRV(cuDevicePrimaryCtxRetain, &p,
		    cuDevicePrimaryCtxRetain(&ctx, 0));
	}
	cuCtxSetCurrent(ctx);
	{
		cuLibraryLoadData_params p = { &lib, image, NULL, NULL, 0,
					       NULL, NULL, 0 };
		DRV(cuLibraryLoadData, &p,
		    cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL,
				      0));
	}
	{
		cuLibraryGetKernel_params p = { &scale, lib, "_Z5scalePjPKjjj" };
		DRV(cuLibraryGetKernel, &p,
		    cuLibraryGetKernel(&scale, lib, "_Z5scalePjPKjjj"));
	}
	{
		cuLibraryGetKernel_params p = { &incr, lib, "_Z4incr4span" };
		DRV(cuLibraryGetKernel, &p,
		    cuLibraryGetKernel(&incr, lib, "_Z4incr4span"));
	}

	/* ---- zero-copy: cudaHostAlloc(cudaHostAllocMapped) ---- */
	{
		cuMemHostAlloc_params p = { (void **)&in, N * 4,
					    CU_MEMHOSTALLOC_DEVICEMAP };
		DRV(cuMemHostAlloc, &p, cuMemHostAlloc((void **)&in, N * 4,
						       CU_MEMHOSTALLOC_DEVICEMAP));
	}
	{
		cuMemHostAlloc_params p = { (void **)&out, N * 4,
					    CU_MEMHOSTALLOC_DEVICEMAP };
		DRV(cuMemHostAlloc, &p, cuMemHostAlloc((void **)&out, N * 4,
						       CU_MEMHOSTALLOC_DEVICEMAP));
	}
	{
		cuMemHostGetDevicePointer_v2_params p = { &din, in, 0 };
		DRV(cuMemHostGetDevicePointer_v2, &p,
		    cuMemHostGetDevicePointer(&din, in, 0));
	}
	{
		cuMemHostGetDevicePointer_v2_params p = { &dout, out, 0 };
		DRV(cuMemHostGetDevicePointer_v2, &p,
		    cuMemHostGetDevicePointer(&dout, out, 0));
	}
	for (unsigned round = 0; round < 3; round++) {
		void *args[5] = { &dout, &din, &mul, &n, NULL };
		/* The third round reads an unchanged input. */
		for (unsigned i = 0; round < 2 && i < N; i++) {
			in[i] = i * 7 + round + seed;
		}
		launch(scale, args, NULL);
		DRV(cuCtxSynchronize, NULL, cuCtxSynchronize());
		for (unsigned i = 0; i < N; i++) {
			bad += out[i] !=
			       (i * 7 + (round < 2 ? round : 1) + seed) * MUL;
		}
	}

	/* A buffer of cudaMallocHost, given to a kernel at its host address
	 * (unified addressing), never through cuMemHostGetDevicePointer. */
	{
		cuMemAllocHost_v2_params p = { (void **)&plain, N * 4 };
		DRV(cuMemAllocHost_v2, &p, cuMemAllocHost((void **)&plain, N * 4));
	}
	{
		struct { unsigned *p; unsigned long long n; } span = { plain, N };
		void *args[2] = { &span, NULL };
		for (unsigned i = 0; i < N; i++) {
			plain[i] = 100 + i;
		}
		launch(incr, args, NULL);
		DRV(cuCtxSynchronize, NULL, cuCtxSynchronize());
		for (unsigned i = 0; i < N; i++) {
			bad += plain[i] != 101 + i;
		}
	}

	/* ---- managed memory ---- */
	{
		cuStreamCreate_params p = { &st, CU_STREAM_NON_BLOCKING };
		DRV(cuStreamCreate, &p, cuStreamCreate(&st, CU_STREAM_NON_BLOCKING));
	}
	{
		cuMemAllocManaged_params p = { &m, N * 4, CU_MEM_ATTACH_GLOBAL };
		DRV(cuMemAllocManaged, &p,
		    cuMemAllocManaged(&m, N * 4, CU_MEM_ATTACH_GLOBAL));
	}
	for (unsigned i = 0; i < N; i++) {
		((unsigned *)(uintptr_t)m)[i] = 5 * i;
	}
	{
		/* cudaStreamAttachMemAsync: the stream's own memory */
		cuStreamAttachMemAsync_params p = { st, m, 0,
						    CU_MEM_ATTACH_SINGLE };
		DRV(cuStreamAttachMemAsync, &p,
		    cuStreamAttachMemAsync(st, m, 0, CU_MEM_ATTACH_SINGLE));
	}
	{
		CUmemLocation dev = { CU_MEM_LOCATION_TYPE_DEVICE, 0 };
		cuMemAdvise_v2_params a = { m, N * 4,
					    CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
					    dev };
		cuMemPrefetchAsync_v2_params p = { m, N * 4, dev, 0, st };
		DRV(cuMemAdvise_v2, &a,
		    cuMemAdvise(m, N * 4, CU_MEM_ADVISE_SET_PREFERRED_LOCATION,
				dev));
		DRV(cuMemPrefetchAsync_v2, &p,
		    cuMemPrefetchAsync(m, N * 4, dev, 0, st));
	}
	for (unsigned iter = 0; iter < 4; iter++) {
		struct { unsigned *p; unsigned long long n; } span = {
			(unsigned *)(uintptr_t)m, N };
		void *args[2] = { &span, NULL };
		launch(incr, args, st);
	}
	{
		cuStreamSynchronize_params p = { st };
		DRV(cuStreamSynchronize, &p, cuStreamSynchronize(st));
	}
	for (unsigned i = 0; i < N; i++) {
		bad += ((unsigned *)(uintptr_t)m)[i] != 5 * i + 4;
	}
	{
		CUmemLocation host = { CU_MEM_LOCATION_TYPE_HOST, 0 };
		cuMemPrefetchAsync_v2_params p = { m, N * 4, host, 0, st };
		DRV(cuMemPrefetchAsync_v2, &p,
		    cuMemPrefetchAsync(m, N * 4, host, 0, st));
	}
	{
		cuStreamSynchronize_params p = { st };
		DRV(cuStreamSynchronize, &p, cuStreamSynchronize(st));
	}
	{
		cuMemFree_v2_params p = { m };
		DRV(cuMemFree_v2, &p, cuMemFree(m));
	}
	{
		cuMemFreeHost_params p = { in };
		DRV(cuMemFreeHost, &p, cuMemFreeHost(in));
	}
	{
		cuMemFreeHost_params p = { out };
		DRV(cuMemFreeHost, &p, cuMemFreeHost(out));
	}
	{
		cuMemFreeHost_params p = { plain };
		DRV(cuMemFreeHost, &p, cuMemFreeHost(plain));
	}
	gm_capture_test_exit();
	if (bad) {
		fprintf(stderr, "hostmem-emitter: %d wrong results\n", bad);
		return 1;
	}
	printf("hostmem-emitter: ok\n");
	return 0;
}
