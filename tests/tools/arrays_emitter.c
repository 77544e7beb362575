/* SPDX-License-Identifier: MIT */
/*
 * arrays-emitter: 2-D and 3-D copies and CUDA arrays as image and
 * cuBLAS-XT-style programs use them, on the mock CUDA driver under
 * `gpumix capture` through the real CUPTI subscriber
 * (tests/tools/mock_call.h):
 *
 *   - a 2-D array (cuArray3DCreate) filled from page-locked host memory
 *     by cuMemcpy2DAsync, read by a kernel through a texture object over
 *     it (cuTexObjectCreate of an array resource), the kernel's output
 *     copied back and checked;
 *   - a block of the array copied into pitched device memory
 *     (cuMemcpy2DAsync, a position and a pitch), from there into
 *     pageable host memory (cuMemcpy2D) and into linear device memory
 *     (cuMemcpy2DUnaligned);
 *   - a 3-D array (cuArray3DCreate, depth 3) filled by cuMemcpy3D from
 *     the host, a slice read back by cuMemcpy3D and one copied into
 *     device memory by cuMemcpy3DAsync;
 *   - a cuArrayCreate array written by cuMemcpyHtoA (whole rows) and read
 *     by cuMemcpyAtoH (part of a row);
 *   - arrays destroyed (cuArrayDestroy) and one of the same description
 *     made again and used.
 *
 *   arrays-emitter [--fatbin F]
 *
 * With --fatbin (tests/gpu/replay_kernels.cu's) the bundle also replays
 * on a GPU. Prints "arrays-emitter: ok" when the program's own checks
 * passed (the mock computed the results).
 */
#include "mock_call.h"

#define W 64u
#define H 16u

const char *mock_call_prog = "arrays-emitter";
uint32_t mock_call_corr = 13000;
uint64_t mock_call_data;

static const char ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry _Z10tex2d_copyPjyjj(.param .u64 a, .param .u64 b,\n"
	"\t.param .u32 c, .param .u32 d)\n{\n\tret;\n}\n";

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

static CUarray array3d(size_t w, size_t h, size_t d)
{
	CUarray a = NULL;
	CUDA_ARRAY3D_DESCRIPTOR ad;
	cuArray3DCreate_v2_params p = { &a, &ad };

	memset(&ad, 0, sizeof(ad));
	ad.Width = w;
	ad.Height = h;
	ad.Depth = d;
	ad.Format = CU_AD_FORMAT_UNSIGNED_INT32;
	ad.NumChannels = 1;
	MOCK_CALL(cuArray3DCreate_v2, &p, cuArray3DCreate(&a, &ad));
	return a;
}

static void array_destroy(CUarray a)
{
	cuArrayDestroy_params p = { a };

	MOCK_CALL(cuArrayDestroy, &p, cuArrayDestroy(a));
}

static CUdeviceptr alloc(size_t n)
{
	CUdeviceptr d = 0;
	cuMemAlloc_v2_params p = { &d, n };

	MOCK_CALL(cuMemAlloc_v2, &p, cuMemAlloc(&d, n));
	return d;
}

static void *pinned(size_t n)
{
	void *h = NULL;
	cuMemAllocHost_v2_params p = { &h, n };

	MOCK_CALL(cuMemAllocHost_v2, &p, cuMemAllocHost(&h, n));
	return h;
}

static void copy2d_async(const CUDA_MEMCPY2D *c, CUstream s)
{
	cuMemcpy2DAsync_v2_params p = { c, s };

	MOCK_CALL(cuMemcpy2DAsync_v2, &p, cuMemcpy2DAsync(c, s));
}

static void sync_stream(CUstream s)
{
	cuStreamSynchronize_params p = { s };

	MOCK_CALL(cuStreamSynchronize, &p, cuStreamSynchronize(s));
}

/* Host rows into array @a (whole), through the 2-D path. */
static void fill_array(CUarray a, const unsigned *src, CUstream s)
{
	CUDA_MEMCPY2D c;

	memset(&c, 0, sizeof(c));
	c.srcMemoryType = CU_MEMORYTYPE_HOST;
	c.srcHost = src;
	c.srcPitch = W * 4;
	c.dstMemoryType = CU_MEMORYTYPE_ARRAY;
	c.dstArray = a;
	c.WidthInBytes = W * 4;
	c.Height = H;
	copy2d_async(&c, s);
}

/* The texture kernel over @a: its elements into @out, checked. */
static int read_through_texture(CUkernel k, CUarray a, CUdeviceptr out,
				unsigned *host, CUstream s, unsigned base)
{
	CUtexObject t = 0;
	CUDA_RESOURCE_DESC rd;
	CUDA_TEXTURE_DESC td;
	unsigned w = W, h = H;
	void *args[5] = { &out, &t, &w, &h, NULL };
	int bad = 0;

	memset(&rd, 0, sizeof(rd));
	memset(&td, 0, sizeof(td));
	rd.resType = CU_RESOURCE_TYPE_ARRAY;
	rd.res.array.hArray = a;
	td.addressMode[0] = td.addressMode[1] = CU_TR_ADDRESS_MODE_CLAMP;
	td.filterMode = CU_TR_FILTER_MODE_POINT;
	{
		cuTexObjectCreate_params p = { &t, &rd, &td, NULL };
		MOCK_CALL(cuTexObjectCreate, &p,
			  cuTexObjectCreate(&t, &rd, &td, NULL));
	}
	{
		cuLaunchKernel_params p = { (CUfunction)k, (W * H + 127) / 128,
					    1, 1, 128, 1, 1, 0, s, args, NULL };
		MOCK_CALL(cuLaunchKernel, &p,
			  cuLaunchKernel(p.f, p.gridDimX, 1, 1, 128, 1, 1, 0,
					 s, args, NULL));
	}
	{
		cuMemcpyDtoHAsync_v2_params p = { host, out, W * H * 4, s };
		MOCK_CALL(cuMemcpyDtoHAsync_v2, &p,
			  cuMemcpyDtoHAsync(host, out, W * H * 4, s));
	}
	sync_stream(s);
	for (unsigned i = 0; i < W * H; i++) {
		bad += host[i] != base + i;
	}
	{
		cuTexObjectDestroy_params p = { t };
		MOCK_CALL(cuTexObjectDestroy, &p, cuTexObjectDestroy(t));
	}
	return bad;
}

int main(int argc, char **argv)
{
	const void *image = ptx;
	CUcontext ctx = NULL;
	CUlibrary lib = NULL;
	CUkernel tex2d = NULL;
	CUstream s = NULL;
	CUarray a, c3, b, a2;
	CUdeviceptr out, pitched, lin, slab;
	unsigned *img, *host;
	unsigned block[10][8], slice[4][8], part[16];
	const size_t dpitch = 512;
	int bad = 0;

	for (int i = 1; i < argc; i++) {
		if (i + 1 < argc && !strcmp(argv[i], "--fatbin")) {
			if (!(image = read_all(argv[++i]))) {
				fprintf(stderr, "arrays-emitter: cannot read "
					"'%s'\n", argv[i]);
				return 2;
			}
		} else {
			fprintf(stderr, "usage: arrays-emitter [--fatbin F]\n");
			return 2;
		}
	}
	if (gm_capture_test_init()) {
		fprintf(stderr, "arrays-emitter: not under gpumix capture\n");
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
		cuLibraryGetKernel_params p = { &tex2d, lib,
						"_Z10tex2d_copyPjyjj" };
		MOCK_CALL(cuLibraryGetKernel, &p,
			  cuLibraryGetKernel(&tex2d, lib, p.name));
	}
	{
		cuStreamCreate_params p = { &s, CU_STREAM_NON_BLOCKING };
		MOCK_CALL(cuStreamCreate, &p,
			  cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	}
	img = pinned(W * H * 4);
	host = pinned(W * H * 4);
	out = alloc(W * H * 4);
	pitched = alloc(dpitch * 12);
	lin = alloc(10 * 32);
	slab = alloc(4 * 8 * 4);

	/* ---- a 2-D array through a texture ---- */
	for (unsigned i = 0; i < W * H; i++) {
		img[i] = 1000 + i;
	}
	a = array3d(W, H, 0);
	fill_array(a, img, s);
	bad += read_through_texture(tex2d, a, out, host, s, 1000);

	/* ---- a block of it into pitched memory, then the host ---- */
	{
		CUDA_MEMCPY2D c;
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		c.srcArray = a;
		c.srcXInBytes = 8 * 4;	/* column 8 */
		c.srcY = 3;
		c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		c.dstDevice = pitched;
		c.dstXInBytes = 16;
		c.dstY = 1;
		c.dstPitch = dpitch;
		c.WidthInBytes = 8 * 4;
		c.Height = 10;
		copy2d_async(&c, s);
	}
	sync_stream(s);	/* the synchronous copies below use the legacy stream */
	{
		CUDA_MEMCPY2D c;
		cuMemcpy2D_v2_params p = { &c };
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
		c.srcDevice = pitched;
		c.srcXInBytes = 16;
		c.srcY = 1;
		c.srcPitch = dpitch;
		c.dstMemoryType = CU_MEMORYTYPE_HOST;
		c.dstHost = block;	/* pageable */
		c.dstPitch = sizeof(block[0]);
		c.WidthInBytes = sizeof(block[0]);
		c.Height = 10;
		MOCK_CALL(cuMemcpy2D_v2, &p, cuMemcpy2D(&c));
	}
	for (unsigned y = 0; y < 10; y++) {
		for (unsigned x = 0; x < 8; x++) {
			bad += block[y][x] != 1000 + (3 + y) * W + 8 + x;
		}
	}
	{
		CUDA_MEMCPY2D c;
		cuMemcpy2DUnaligned_v2_params p = { &c };
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
		c.srcDevice = pitched;
		c.srcXInBytes = 16;
		c.srcY = 1;
		c.srcPitch = dpitch;
		c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		c.dstDevice = lin;
		c.dstPitch = 32;
		c.WidthInBytes = 32;
		c.Height = 10;
		MOCK_CALL(cuMemcpy2DUnaligned_v2, &p, cuMemcpy2DUnaligned(&c));
	}
	{
		cuMemcpyDtoHAsync_v2_params p = { host, lin, 10 * 32, s };
		MOCK_CALL(cuMemcpyDtoHAsync_v2, &p,
			  cuMemcpyDtoHAsync(host, lin, 10 * 32, s));
	}
	sync_stream(s);
	bad += memcmp(host, block, sizeof(block)) != 0;

	/* ---- a 3-D array ---- */
	c3 = array3d(8, 4, 3);
	for (unsigned i = 0; i < 8 * 4 * 3; i++) {
		img[i] = 5000 + i;
	}
	{
		CUDA_MEMCPY3D m;
		cuMemcpy3D_v2_params p = { &m };
		memset(&m, 0, sizeof(m));
		m.srcMemoryType = CU_MEMORYTYPE_HOST;
		m.srcHost = img;
		m.srcPitch = 8 * 4;
		m.srcHeight = 4;
		m.dstMemoryType = CU_MEMORYTYPE_ARRAY;
		m.dstArray = c3;
		m.WidthInBytes = 8 * 4;
		m.Height = 4;
		m.Depth = 3;
		MOCK_CALL(cuMemcpy3D_v2, &p, cuMemcpy3D(&m));
	}
	{
		CUDA_MEMCPY3D m;
		cuMemcpy3D_v2_params p = { &m };
		memset(&m, 0, sizeof(m));
		m.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		m.srcArray = c3;
		m.srcZ = 2;
		m.dstMemoryType = CU_MEMORYTYPE_HOST;
		m.dstHost = slice;
		m.dstPitch = sizeof(slice[0]);
		m.dstHeight = 4;
		m.WidthInBytes = 8 * 4;
		m.Height = 4;
		m.Depth = 1;
		MOCK_CALL(cuMemcpy3D_v2, &p, cuMemcpy3D(&m));
	}
	for (unsigned i = 0; i < 32; i++) {
		bad += slice[i / 8][i % 8] != 5000 + 64 + i;
	}
	{
		CUDA_MEMCPY3D m;
		cuMemcpy3DAsync_v2_params p = { &m, s };
		memset(&m, 0, sizeof(m));
		m.srcMemoryType = CU_MEMORYTYPE_ARRAY;
		m.srcArray = c3;
		m.srcZ = 1;
		m.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		m.dstDevice = slab;
		m.dstPitch = 8 * 4;
		m.dstHeight = 4;
		m.WidthInBytes = 8 * 4;
		m.Height = 4;
		m.Depth = 1;
		MOCK_CALL(cuMemcpy3DAsync_v2, &p, cuMemcpy3DAsync(&m, s));
	}
	{
		cuMemcpyDtoHAsync_v2_params p = { host, slab, 128, s };
		MOCK_CALL(cuMemcpyDtoHAsync_v2, &p,
			  cuMemcpyDtoHAsync(host, slab, 128, s));
	}
	sync_stream(s);
	for (unsigned i = 0; i < 32; i++) {
		bad += host[i] != 5000 + 32 + i;
	}

	/* ---- cuArrayCreate, linear copies ---- */
	{
		CUDA_ARRAY_DESCRIPTOR ad = { 16, 4, CU_AD_FORMAT_UNSIGNED_INT32,
					     1 };
		cuArrayCreate_v2_params p = { &b, &ad };
		MOCK_CALL(cuArrayCreate_v2, &p, cuArrayCreate(&b, &ad));
	}
	for (unsigned i = 0; i < 64; i++) {
		img[i] = 7000 + i;
	}
	{
		/* rows 1 and 2, whole */
		cuMemcpyHtoA_v2_params p = { b, 64, img, 128 };
		MOCK_CALL(cuMemcpyHtoA_v2, &p, cuMemcpyHtoA(b, 64, img, 128));
	}
	{
		/* part of row 2 */
		cuMemcpyAtoH_v2_params p = { part, b, 128 + 8, 32 };
		MOCK_CALL(cuMemcpyAtoH_v2, &p, cuMemcpyAtoH(part, b, 136, 32));
	}
	for (unsigned i = 0; i < 8; i++) {
		bad += part[i] != 7000 + 16 + 2 + i;
	}

	/* ---- given back, and one of the same kind made again ---- */
	array_destroy(a);
	array_destroy(c3);
	array_destroy(b);
	a2 = array3d(W, H, 0);
	for (unsigned i = 0; i < W * H; i++) {
		img[i] = 20000 + i;
	}
	fill_array(a2, img, s);
	bad += read_through_texture(tex2d, a2, out, host, s, 20000);
	array_destroy(a2);

	gm_capture_test_exit();
	if (bad) {
		fprintf(stderr, "arrays-emitter: %d wrong results\n", bad);
		return 1;
	}
	printf("arrays-emitter: ok\n");
	return 0;
}
