/* SPDX-License-Identifier: MIT */
/*
 * graph-emitter: CUDA graphs as public programs use them, on the mock CUDA
 * driver (tests/mock/) under `gpumix capture`, through the real CUPTI
 * subscriber of libgpumix-capture.so (tests/tools/mock_call.h). Every
 * driver call really runs on the mock, whose kernels compute the results
 * on the host, so the bundle holds what a GPU capture of the same calls
 * would, and its replay on the mock must verify:
 *
 *   - a stream capture during which the program frees an allocation it
 *     no longer needs (cuMemFree while the stream captures, as framework
 *     allocators do), launched once per round after an ordinary kernel
 *     changed its input, each round synchronized.
 *
 *   graph-emitter [--fatbin F]
 *
 * With --fatbin (tests/gpu/replay_kernels.cu's), the bundle also replays
 * on a GPU (tests/data/reconstruct/make-bundles.sh). Prints
 * "graph-emitter: ok" when the program's own checks of its results passed
 * (the mock computed them).
 */
#include "mock_call.h"

#define N 1024u
#define MUL 3u
#define ROUNDS 3u

const char *mock_call_prog = "graph-emitter";
uint32_t mock_call_corr = 7000;
uint64_t mock_call_data;

/* The module: the mock runs its kernels by name, whatever the image. */
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

static void launch(CUkernel k, void **args, CUstream s)
{
	cuLaunchKernel_params p = { (CUfunction)k, (N + 127) / 128, 1, 1,
				    128, 1, 1, 0, s, args, NULL };

	MOCK_CALL(cuLaunchKernel, &p,
		  cuLaunchKernel(p.f, p.gridDimX, 1, 1, p.blockDimX, 1, 1, 0,
				 p.hStream, p.kernelParams, NULL));
}

static void sync_stream(CUstream s)
{
	cuStreamSynchronize_params p = { s };

	MOCK_CALL(cuStreamSynchronize, &p, cuStreamSynchronize(s));
}

static CUdeviceptr alloc(size_t n)
{
	CUdeviceptr d = 0;
	cuMemAlloc_v2_params p = { &d, n };

	MOCK_CALL(cuMemAlloc_v2, &p, cuMemAlloc(&d, n));
	return d;
}

static void dfree(CUdeviceptr d)
{
	cuMemFree_v2_params p = { d };

	MOCK_CALL(cuMemFree_v2, &p, cuMemFree(d));
}

static void *pinned(size_t n)
{
	void *h = NULL;
	cuMemAllocHost_v2_params p = { &h, n };

	MOCK_CALL(cuMemAllocHost_v2, &p, cuMemAllocHost(&h, n));
	return h;
}

static void d2h_async(void *dst, CUdeviceptr src, size_t n, CUstream s)
{
	cuMemcpyDtoHAsync_v2_params p = { dst, src, n, s };

	MOCK_CALL(cuMemcpyDtoHAsync_v2, &p, cuMemcpyDtoHAsync(dst, src, n, s));
}

static void h2d_async(CUdeviceptr dst, const void *src, size_t n, CUstream s)
{
	cuMemcpyHtoDAsync_v2_params p = { dst, src, n, s };

	MOCK_CALL(cuMemcpyHtoDAsync_v2, &p, cuMemcpyHtoDAsync(dst, src, n, s));
}

static CUstream stream(void)
{
	CUstream s = NULL;
	cuStreamCreate_params p = { &s, CU_STREAM_NON_BLOCKING };

	MOCK_CALL(cuStreamCreate, &p, cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	return s;
}

static CUgraphExec instantiate(CUgraph g)
{
	CUgraphExec e = NULL;
	cuGraphInstantiateWithFlags_params p = { &e, g, 0 };

	MOCK_CALL(cuGraphInstantiateWithFlags, &p,
		  cuGraphInstantiateWithFlags(&e, g, 0));
	return e;
}

static void graph_launch(CUgraphExec e, CUstream s)
{
	cuGraphLaunch_params p = { e, s };

	MOCK_CALL(cuGraphLaunch, &p, cuGraphLaunch(e, s));
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

struct prog {
	CUkernel scale, incr;
	CUstream s1, s2;
};

/*
 * A stream capture during which the program frees an allocation: the
 * graph scales the input into the output and copies it back; between
 * launches an ordinary kernel increments the input.
 */
static int capture_with_free(struct prog *pr)
{
	CUdeviceptr din = alloc(N * 4), dout = alloc(N * 4),
		    scratch = alloc(N * 4);
	unsigned *in = pinned(N * 4), *out = pinned(N * 4);
	unsigned mul = MUL, n = N;
	void *sargs[5] = { &dout, &din, &mul, &n, NULL };
	struct span sp = { (unsigned *)(uintptr_t)din, N };
	void *iargs[2] = { &sp, NULL };
	CUgraph g = NULL;
	CUgraphExec e;
	int bad = 0;

	for (unsigned i = 0; i < N; i++) {
		in[i] = 11 * i;
	}
	h2d_async(din, in, N * 4, pr->s1);
	/* Work on the other stream, which a free waits for. */
	h2d_async(scratch, in, N * 4, pr->s2);
	sync_stream(pr->s1);
	{
		cuStreamBeginCapture_v2_params p = {
			pr->s1, CU_STREAM_CAPTURE_MODE_RELAXED };
		MOCK_CALL(cuStreamBeginCapture_v2, &p,
			  cuStreamBeginCapture(pr->s1,
					       CU_STREAM_CAPTURE_MODE_RELAXED));
	}
	launch(pr->scale, sargs, pr->s1);
	/* The allocator gives back memory while the stream captures. */
	dfree(scratch);
	d2h_async(out, dout, N * 4, pr->s1);
	{
		cuStreamEndCapture_params p = { pr->s1, &g };
		MOCK_CALL(cuStreamEndCapture, &p, cuStreamEndCapture(pr->s1, &g));
	}
	e = instantiate(g);
	for (unsigned r = 0; r < ROUNDS; r++) {
		launch(pr->incr, iargs, pr->s1);
		graph_launch(e, pr->s1);
		sync_stream(pr->s1);
		for (unsigned i = 0; i < N; i++) {
			bad += out[i] != (11 * i + r + 1) * MUL;
		}
	}
	dfree(din);
	dfree(dout);
	return bad;
}

int main(int argc, char **argv)
{
	const void *image = ptx;
	CUcontext ctx = NULL;
	CUlibrary lib = NULL;
	struct prog pr;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--fatbin")) {
			if (!(image = read_all(argv[++i]))) {
				fprintf(stderr, "graph-emitter: cannot read "
					"'%s'\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: graph-emitter [--fatbin F]\n");
			return 2;
		}
	}
	if (gm_capture_test_init()) {
		fprintf(stderr, "graph-emitter: not under gpumix capture\n");
		return 3;
	}
	cuInit(0);
	{
		cuDevicePrimaryCtxRetain_params p = { &ctx, 0 };
		MOCK_CALL(cuDevicePrimaryCtxRetain, &p,
			  cuDevicePrimaryCtxRetain(&ctx, 0));
	}
	cuCtxSetCurrent(ctx);
	{
		cuLibraryLoadData_params p = { &lib, image, NULL, NULL, 0,
					       NULL, NULL, 0 };
		MOCK_CALL(cuLibraryLoadData, &p,
			  cuLibraryLoadData(&lib, image, NULL, NULL, 0, NULL,
					    NULL, 0));
	}
	{
		cuLibraryGetKernel_params p = { &pr.scale, lib,
						"_Z5scalePjPKjjj" };
		MOCK_CALL(cuLibraryGetKernel, &p,
			  cuLibraryGetKernel(&pr.scale, lib, p.name));
	}
	{
		cuLibraryGetKernel_params p = { &pr.incr, lib, "_Z4incr4span" };
		MOCK_CALL(cuLibraryGetKernel, &p,
			  cuLibraryGetKernel(&pr.incr, lib, p.name));
	}
	pr.s1 = stream();
	pr.s2 = stream();

	bad += capture_with_free(&pr);

	gm_capture_test_exit();
	if (bad) {
		fprintf(stderr, "graph-emitter: %d wrong results\n", bad);
		return 1;
	}
	printf("graph-emitter: ok\n");
	return 0;
}
