/* SPDX-License-Identifier: MIT */
/*
 * kernels-emitter: kernel handles a program gets through paths CUPTI does
 * not trace, as CUDA libraries do (cuFFT, and CuPy's FFT plans, reach
 * their kernels through the driver's private export table), on the mock
 * CUDA driver under `gpumix capture` through the real CUPTI subscriber
 * (tests/tools/mock_call.h). A driver call made here without MOCK_CALL
 * is one the capture never sees:
 *
 *   - a library loaded by a recorded call, a CUkernel of it fetched
 *     unseen, then a recorded cuKernelGetFunction of that kernel, an
 *     attribute set on the function, and launches of the function;
 *   - a kernel fetched by a recorded call, its function fetched unseen
 *     and launched (its module is the library's: cuLibraryGetModule);
 *
 * every launch verified by the replay on the mock. With
 * --unseen-library the library itself is loaded unseen too: the trace
 * cannot hold its code, and the capture must say so (the loss
 * unnamed_kernels) and exit 1.
 *
 *   kernels-emitter [--fatbin F] [--unseen-library]
 *
 * Prints "kernels-emitter: ok" when the program's own checks passed.
 */
#include "mock_call.h"

#define N 2048u
#define MUL 5u

const char *mock_call_prog = "kernels-emitter";
uint32_t mock_call_corr = 11000;
uint64_t mock_call_data;

static const char ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry _Z5scalePjPKjjj(.param .u64 a, .param .u64 b,\n"
	"\t.param .u32 c, .param .u32 d)\n{\n\tret;\n}\n"
	".visible .entry _Z4incr4span(.param .align 8 .b8 s[16])\n"
	"{\n\tret;\n}\n";

struct span {
	unsigned *p;
	unsigned long long n;
};

static void launch(CUfunction f, void **args, CUstream s)
{
	cuLaunchKernel_params p = { f, (N + 127) / 128, 1, 1, 128, 1, 1, 0, s,
				    args, NULL };

	MOCK_CALL(cuLaunchKernel, &p,
		  cuLaunchKernel(f, p.gridDimX, 1, 1, 128, 1, 1, 0, s, args,
				 NULL));
}

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
	CUfunction fscale = NULL, fincr = NULL;
	CUdeviceptr din = 0, dout = 0;
	unsigned *h = NULL, mul = MUL, n = N;
	int unseen_library = 0, bad = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--fatbin")) {
			if (!(image = read_all(argv[++i]))) {
				fprintf(stderr, "kernels-emitter: cannot read "
					"'%s'\n", argv[i]);
				return 2;
			}
		} else if (!strcmp(argv[i], "--unseen-library")) {
			unseen_library = 1;
		} else {
			fprintf(stderr, "usage: kernels-emitter [--fatbin F] "
				"[--unseen-library]\n");
			return 2;
		}
	}
	if (gm_capture_test_init()) {
		fprintf(stderr, "kernels-emitter: not under gpumix capture\n");
		return 3;
	}
	cuInit(0);
	{
		cuDevicePrimaryCtxRetain_params p = { &ctx, 0 };
		MOCK_CALL(cuDevicePrimaryCtxRetain, &p,
			  cuDevicePrimaryCtxRetain(&ctx, 0));
	}
	cuCtxSetCurrent(ctx);
	if (unseen_library) {
		cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL, NULL, 0);
	} else {
		cuLibraryLoadData_params p = { &lib, image, NULL, NULL, 0,
					       NULL, NULL, 0 };
		MOCK_CALL(cuLibraryLoadData, &p,
			  cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL,
					    NULL, 0));
	}
	/* The scale kernel through the export table: unseen. */
	if (cuLibraryGetKernel(&scale, lib, "_Z5scalePjPKjjj") != CUDA_SUCCESS) {
		fprintf(stderr, "kernels-emitter: no scale kernel\n");
		return 2;
	}
	{
		cuKernelGetFunction_params p = { &fscale, scale };
		MOCK_CALL(cuKernelGetFunction, &p,
			  cuKernelGetFunction(&fscale, scale));
	}
	{
		cuFuncSetAttribute_params p = {
			fscale, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES,
			1024 };
		MOCK_CALL(cuFuncSetAttribute, &p,
			  cuFuncSetAttribute(fscale, p.attrib, p.value));
	}
	/* The incr kernel seen, its function unseen. */
	{
		cuLibraryGetKernel_params p = { &incr, lib, "_Z4incr4span" };
		MOCK_CALL(cuLibraryGetKernel, &p,
			  cuLibraryGetKernel(&incr, lib, p.name));
	}
	cuKernelGetFunction(&fincr, incr);

	{
		cuMemAlloc_v2_params p = { &din, N * 4 };
		MOCK_CALL(cuMemAlloc_v2, &p, cuMemAlloc(&din, N * 4));
	}
	{
		cuMemAlloc_v2_params p = { &dout, N * 4 };
		MOCK_CALL(cuMemAlloc_v2, &p, cuMemAlloc(&dout, N * 4));
	}
	{
		cuMemAllocHost_v2_params p = { (void **)&h, N * 4 };
		MOCK_CALL(cuMemAllocHost_v2, &p, cuMemAllocHost((void **)&h, N * 4));
	}
	for (unsigned i = 0; i < N; i++) {
		h[i] = 3 * i + 1;
	}
	{
		cuMemcpyHtoDAsync_v2_params p = { din, h, N * 4, NULL };
		MOCK_CALL(cuMemcpyHtoDAsync_v2, &p,
			  cuMemcpyHtoDAsync(din, h, N * 4, NULL));
	}
	for (unsigned r = 0; r < 2; r++) {
		struct span sp = { (unsigned *)(uintptr_t)din, N };
		void *iargs[2] = { &sp, NULL };
		void *sargs[5] = { &dout, &din, &mul, &n, NULL };
		launch(fincr, iargs, NULL);
		launch(fscale, sargs, NULL);
	}
	{
		cuMemcpyDtoHAsync_v2_params p = { h, dout, N * 4, NULL };
		MOCK_CALL(cuMemcpyDtoHAsync_v2, &p,
			  cuMemcpyDtoHAsync(h, dout, N * 4, NULL));
	}
	{
		cuStreamSynchronize_params p = { NULL };
		MOCK_CALL(cuStreamSynchronize, &p, cuStreamSynchronize(NULL));
	}
	for (unsigned i = 0; i < N; i++) {
		bad += h[i] != (3 * i + 3) * MUL;
	}
	gm_capture_test_exit();
	if (bad) {
		fprintf(stderr, "kernels-emitter: %d wrong results\n", bad);
		return 1;
	}
	printf("kernels-emitter: ok\n");
	return 0;
}
