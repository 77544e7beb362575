/* SPDX-License-Identifier: MIT */
/*
 * A driver-API program (no runtime at all): JIT-loads PTX with
 * cuModuleLoadData, gets the function by name, and moves data in every
 * way the capture records: cuMemAlloc/cuMemAllocPitch/cuMemAllocHost,
 * cuMemcpyHtoD, cuMemsetD32, cuMemcpy2D (pitched), a non-blocking stream
 * with cuMemcpyHtoDAsync/cuLaunchKernel/cuMemcpyDtoHAsync completed by
 * cuEventRecord + cuEventSynchronize, then cuStreamSynchronize and a
 * synchronous cuMemcpyDtoH. Prints PASS or FAIL and its launch count.
 */
#include <cuda.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CHECK(x)                                                               \
	do {                                                                   \
		CUresult r_ = (x);                                             \
		if (r_ != CUDA_SUCCESS) {                                      \
			const char *s_ = "?";                                  \
			cuGetErrorString(r_, &s_);                             \
			fprintf(stderr, "%s: %s\n", #x, s_);                   \
			return 2;                                              \
		}                                                              \
	} while (0)

/* y[i] = a * x[i] + y[i] */
static const char ptx[] =
	".version 7.0\n"
	".target sm_52\n"
	".address_size 64\n"
	".visible .entry saxpy(.param .u64 x, .param .u64 y, .param .f32 a,"
	" .param .u32 n)\n"
	"{\n"
	"  .reg .pred p;\n"
	"  .reg .b32 r<6>;\n"
	"  .reg .f32 f<4>;\n"
	"  .reg .b64 d<8>;\n"
	"  ld.param.u64 d1, [x];\n"
	"  ld.param.u64 d2, [y];\n"
	"  ld.param.f32 f1, [a];\n"
	"  ld.param.u32 r1, [n];\n"
	"  mov.u32 r2, %ctaid.x;\n"
	"  mov.u32 r3, %ntid.x;\n"
	"  mov.u32 r4, %tid.x;\n"
	"  mad.lo.s32 r5, r2, r3, r4;\n"
	"  setp.ge.u32 p, r5, r1;\n"
	"  @p bra done;\n"
	"  cvta.to.global.u64 d3, d1;\n"
	"  cvta.to.global.u64 d4, d2;\n"
	"  mul.wide.u32 d5, r5, 4;\n"
	"  add.s64 d6, d3, d5;\n"
	"  add.s64 d7, d4, d5;\n"
	"  ld.global.f32 f2, [d6];\n"
	"  ld.global.f32 f3, [d7];\n"
	"  fma.rn.f32 f3, f1, f2, f3;\n"
	"  st.global.f32 [d7], f3;\n"
	"done:\n"
	"  ret;\n"
	"}\n";

int main(void)
{
	enum { N = 1 << 16, W = 1000, H = 64 };
	CUdevice dev;
	CUcontext ctx;
	CUmodule mod;
	CUfunction f;
	CUstream s;
	CUevent ev;
	CUdeviceptr dx, dy, dpitch;
	size_t pitch;
	float *x = malloc(N * sizeof(float)), *y, a = 2.0f;
	unsigned n = N;
	unsigned char *img = malloc(W * H), *back = malloc(W * H);
	void *args[4];
	int bad = 0, launches = 0;

	CHECK(cuInit(0));
	CHECK(cuDeviceGet(&dev, 0));
	CHECK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CHECK(cuCtxSetCurrent(ctx));
	CHECK(cuModuleLoadData(&mod, ptx));
	CHECK(cuModuleGetFunction(&f, mod, "saxpy"));
	CHECK(cuMemAllocHost((void **)&y, N * sizeof(float)));
	CHECK(cuMemAlloc(&dx, N * sizeof(float)));
	CHECK(cuMemAlloc(&dy, N * sizeof(float)));
	for (int i = 0; i < N; i++) {
		x[i] = (float)i;
		y[i] = 1.0f;
	}
	CHECK(cuMemcpyHtoD(dx, x, N * sizeof(float)));
	CHECK(cuMemsetD32(dy, 0, N));
	CHECK(cuStreamCreate(&s, CU_STREAM_NON_BLOCKING));
	CHECK(cuEventCreate(&ev, CU_EVENT_DEFAULT));
	CHECK(cuMemcpyHtoDAsync(dy, y, N * sizeof(float), s));
	args[0] = &dx;
	args[1] = &dy;
	args[2] = &a;
	args[3] = &n;
	for (int k = 0; k < 3; k++) {
		CHECK(cuLaunchKernel(f, (N + 255) / 256, 1, 1, 256, 1, 1, 0, s, args,
				     NULL));
		launches++;
	}
	CHECK(cuMemcpyDtoHAsync(y, dy, N * sizeof(float), s));
	CHECK(cuEventRecord(ev, s));
	CHECK(cuEventSynchronize(ev));
	for (int i = 0; i < N; i++) {
		bad += y[i] != 1.0f + 3 * 2.0f * i;
	}
	/* A pitched 2-D round trip. */
	for (int i = 0; i < W * H; i++) {
		img[i] = (unsigned char)(i * 7);
	}
	CHECK(cuMemAllocPitch(&dpitch, &pitch, W, H, 4));
	{
		CUDA_MEMCPY2D c;
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_HOST;
		c.srcHost = img;
		c.srcPitch = W;
		c.dstMemoryType = CU_MEMORYTYPE_DEVICE;
		c.dstDevice = dpitch;
		c.dstPitch = pitch;
		c.WidthInBytes = W;
		c.Height = H;
		CHECK(cuMemcpy2D(&c));
		memset(&c, 0, sizeof(c));
		c.srcMemoryType = CU_MEMORYTYPE_DEVICE;
		c.srcDevice = dpitch;
		c.srcPitch = pitch;
		c.dstMemoryType = CU_MEMORYTYPE_HOST;
		c.dstHost = back;
		c.dstPitch = W;
		c.WidthInBytes = W;
		c.Height = H;
		CHECK(cuMemcpy2D(&c));
	}
	bad += memcmp(img, back, W * H) != 0;
	CHECK(cuStreamSynchronize(s));
	CHECK(cuMemcpyDtoH(x, dx, N * sizeof(float)));
	for (int i = 0; i < N; i++) {
		bad += x[i] != (float)i;
	}
	CHECK(cuEventDestroy(ev));
	CHECK(cuStreamDestroy(s));
	CHECK(cuMemFree(dx));
	CHECK(cuMemFree(dy));
	CHECK(cuMemFree(dpitch));
	CHECK(cuMemFreeHost(y));
	CHECK(cuModuleUnload(mod));
	CHECK(cuDevicePrimaryCtxRelease(dev));
	printf("resource kernel=saxpy launches=%d\n", launches);
	printf("%s driver_api: %d errors\n", bad ? "FAIL" : "PASS", bad);
	return bad ? 1 : 0;
}
