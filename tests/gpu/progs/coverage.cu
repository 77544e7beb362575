// SPDX-License-Identifier: MIT
// A runtime-API program (static cudart) that exercises what the Parboil
// suite does not: two host threads with their own non-blocking streams,
// events, page-locked memory, async copies and memsets, pitched 2-D
// copies, __constant__ memory, a texture object over a CUDA array,
// cudaLaunchKernelEx with an attribute, a raised dynamic shared memory
// limit, a cooperative launch, per-thread default stream calls, and a
// child process (forked before CUDA starts) that runs CUDA on its own.
// Prints one "resource kernel=NAME launches=N" line per kernel it
// launched (summed over both processes) and PASS or FAIL.
#include <cooperative_groups.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <cuda_runtime.h>
#include <pthread.h>
#include <sys/wait.h>
#include <unistd.h>

namespace cg = cooperative_groups;

#define CHECK(x)                                                               \
	do {                                                                   \
		cudaError_t e_ = (x);                                          \
		if (e_ != cudaSuccess) {                                       \
			fprintf(stderr, "%s:%d %s: %s\n", __FILE__, __LINE__,   \
				#x, cudaGetErrorString(e_));                   \
			exit(2);                                               \
		}                                                              \
	} while (0)

__constant__ float coeff[4];

__global__ void scale(float *v, int n)
{
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n) {
		v[i] = v[i] * coeff[0] + coeff[1];
	}
}

__global__ void smem_sum(const float *v, float *out, int n)
{
	extern __shared__ float buf[];
	int i = blockIdx.x * blockDim.x + threadIdx.x;
	buf[threadIdx.x] = i < n ? v[i] : 0.0f;
	__syncthreads();
	if (threadIdx.x == 0) {
		float s = 0;
		for (unsigned k = 0; k < blockDim.x; k++) {
			s += buf[k];
		}
		out[blockIdx.x] = s;
	}
}

__global__ void tex_read(cudaTextureObject_t t, float *out, int w, int h)
{
	int x = blockIdx.x * blockDim.x + threadIdx.x;
	int y = blockIdx.y;
	if (x < w && y < h) {
		out[y * w + x] = tex2D<float>(t, x + 0.5f, y + 0.5f);
	}
}

__global__ void coop_total(float *v, int n, float *total)
{
	cg::grid_group g = cg::this_grid();
	for (int i = g.thread_rank(); i < n; i += g.size()) {
		atomicAdd(total, v[i]);
	}
	g.sync();
	if (g.thread_rank() == 0) {
		*total += 1.0f;
	}
}

static int errors;

struct worker {
	int id;
	int launches;
};

// Each host thread: its own stream, pinned buffers, async copies, events.
static void *work(void *arg)
{
	struct worker *w = (struct worker *)arg;
	const int n = 1 << 18;
	float *h, *d;
	cudaStream_t s;
	cudaEvent_t ev;

	CHECK(cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking));
	CHECK(cudaEventCreate(&ev));
	CHECK(cudaMallocHost(&h, n * sizeof(float)));
	CHECK(cudaMalloc(&d, n * sizeof(float)));
	for (int i = 0; i < n; i++) {
		h[i] = (float)(i % 100) + w->id;
	}
	CHECK(cudaMemcpyAsync(d, h, n * sizeof(float), cudaMemcpyHostToDevice, s));
	for (int k = 0; k < 4; k++) {
		scale<<<(n + 255) / 256, 256, 0, s>>>(d, n);
		w->launches++;
	}
	CHECK(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
	CHECK(cudaEventRecord(ev, s));
	CHECK(cudaEventSynchronize(ev));
	for (int i = 0; i < n; i++) {
		// coeff = {1, 1}: each launch adds 1
		if (h[i] != (float)(i % 100) + w->id + 4) {
			__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
			break;
		}
	}
	CHECK(cudaMemsetAsync(d, 0, n * sizeof(float), s));
	CHECK(cudaMemcpyAsync(h, d, n * sizeof(float), cudaMemcpyDeviceToHost, s));
	CHECK(cudaStreamSynchronize(s));
	if (h[n - 1] != 0.0f) {
		__atomic_fetch_add(&errors, 1, __ATOMIC_RELAXED);
	}
	CHECK(cudaFree(d));
	CHECK(cudaFreeHost(h));
	CHECK(cudaEventDestroy(ev));
	CHECK(cudaStreamDestroy(s));
	return NULL;
}

// The child process: a small, independent CUDA computation.
static int child(void)
{
	const int n = 4096;
	float *d, h[4096];
	float c[4] = { 2.0f, 0.0f, 0.0f, 0.0f };

	for (int i = 0; i < n; i++) {
		h[i] = (float)i;
	}
	CHECK(cudaMemcpyToSymbol(coeff, c, sizeof(c)));
	CHECK(cudaMalloc(&d, n * sizeof(float)));
	CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
	scale<<<n / 256, 256>>>(d, n);
	CHECK(cudaMemcpy(h, d, n * sizeof(float), cudaMemcpyDeviceToHost));
	CHECK(cudaFree(d));
	for (int i = 0; i < n; i++) {
		if (h[i] != 2.0f * i) {
			return 1;
		}
	}
	return 0;
}

int main()
{
	struct worker w[2] = { { 0, 0 }, { 1, 0 } };
	pthread_t t[2];
	int status = 0, launches_smem = 0, launches_tex = 0, launches_coop = 0;
	pid_t pid;

	// Fork before CUDA starts: the child initialises its own context.
	pid = fork();
	if (pid == 0) {
		/* exit(), not _exit(): the capture library records a process's
		 * end in its exit handlers; a process that skips them is
		 * reported as not having exited normally (doc/gpumix-capture.md). */
		exit(child());
	}

	float c[4] = { 1.0f, 1.0f, 0.0f, 0.0f };
	CHECK(cudaMemcpyToSymbol(coeff, c, sizeof(c)));
	for (int i = 0; i < 2; i++) {
		pthread_create(&t[i], NULL, work, &w[i]);
	}
	for (int i = 0; i < 2; i++) {
		pthread_join(t[i], NULL);
	}

	// Dynamic shared memory above the default limit, via cudaLaunchKernelEx.
	{
		const int n = 1 << 16, threads = 1024;
		size_t smem = 64 * 1024;	// > 48 KiB: needs the attribute
		float *h = (float *)malloc(n * sizeof(float)), *d, *o;
		float *ho = (float *)malloc(n / threads * sizeof(float));
		cudaLaunchConfig_t cfg;
		cudaLaunchAttribute attr[1];
		for (int i = 0; i < n; i++) {
			h[i] = 1.0f;
		}
		CHECK(cudaFuncSetAttribute(smem_sum,
					   cudaFuncAttributeMaxDynamicSharedMemorySize,
					   (int)smem));
		CHECK(cudaMalloc(&d, n * sizeof(float)));
		CHECK(cudaMalloc(&o, n / threads * sizeof(float)));
		CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
		memset(&cfg, 0, sizeof(cfg));
		cfg.gridDim = dim3(n / threads);
		cfg.blockDim = dim3(threads);
		cfg.dynamicSmemBytes = smem;
		attr[0].id = cudaLaunchAttributePriority;
		attr[0].val.priority = 0;
		cfg.attrs = attr;
		cfg.numAttrs = 1;
		CHECK(cudaLaunchKernelEx(&cfg, smem_sum, (const float *)d, o, n));
		launches_smem++;
		CHECK(cudaMemcpy(ho, o, n / threads * sizeof(float),
				 cudaMemcpyDeviceToHost));
		for (int i = 0; i < n / threads; i++) {
			errors += ho[i] != (float)threads;
		}
		CHECK(cudaFree(d));
		CHECK(cudaFree(o));
		free(h);
		free(ho);
	}

	// A texture object over a CUDA array, filled by a 2-D copy.
	{
		const int w2 = 300, h2 = 40;
		float *img = (float *)malloc(w2 * h2 * sizeof(float));
		float *back = (float *)malloc(w2 * h2 * sizeof(float)), *d;
		cudaArray_t arr;
		cudaChannelFormatDesc ch = cudaCreateChannelDesc<float>();
		cudaResourceDesc rd;
		cudaTextureDesc td;
		cudaTextureObject_t tex;
		for (int i = 0; i < w2 * h2; i++) {
			img[i] = (float)(i % 977);
		}
		CHECK(cudaMallocArray(&arr, &ch, w2, h2));
		CHECK(cudaMemcpy2DToArray(arr, 0, 0, img, w2 * sizeof(float),
					  w2 * sizeof(float), h2,
					  cudaMemcpyHostToDevice));
		memset(&rd, 0, sizeof(rd));
		rd.resType = cudaResourceTypeArray;
		rd.res.array.array = arr;
		memset(&td, 0, sizeof(td));
		td.addressMode[0] = cudaAddressModeClamp;
		td.addressMode[1] = cudaAddressModeClamp;
		td.filterMode = cudaFilterModePoint;
		td.readMode = cudaReadModeElementType;
		CHECK(cudaCreateTextureObject(&tex, &rd, &td, NULL));
		CHECK(cudaMalloc(&d, w2 * h2 * sizeof(float)));
		tex_read<<<dim3((w2 + 127) / 128, h2), 128>>>(tex, d, w2, h2);
		launches_tex++;
		// a pitched copy back, through cudaMemcpy2D
		CHECK(cudaMemcpy2D(back, w2 * sizeof(float), d, w2 * sizeof(float),
				   w2 * sizeof(float), h2, cudaMemcpyDeviceToHost));
		errors += memcmp(img, back, w2 * h2 * sizeof(float)) != 0;
		CHECK(cudaDestroyTextureObject(tex));
		CHECK(cudaFreeArray(arr));
		CHECK(cudaFree(d));
		free(img);
		free(back);
	}

	// A cooperative launch with a grid-wide barrier.
	{
		const int n = 1 << 14;
		float *h = (float *)malloc(n * sizeof(float)), *d, *tot, total;
		int nn = n, blocks = 0, sms = 0;
		void *args[3];
		for (int i = 0; i < n; i++) {
			h[i] = 1.0f;
		}
		CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
		CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&blocks, coop_total,
								    256, 0));
		CHECK(cudaMalloc(&d, n * sizeof(float)));
		CHECK(cudaMalloc(&tot, sizeof(float)));
		CHECK(cudaMemcpy(d, h, n * sizeof(float), cudaMemcpyHostToDevice));
		CHECK(cudaMemset(tot, 0, sizeof(float)));
		args[0] = &d;
		args[1] = &nn;
		args[2] = &tot;
		CHECK(cudaLaunchCooperativeKernel((void *)coop_total,
						  dim3(blocks * sms < 64 ? blocks * sms : 64),
						  dim3(256), args, 0, 0));
		launches_coop++;
		CHECK(cudaMemcpy(&total, tot, sizeof(float), cudaMemcpyDeviceToHost));
		errors += total != (float)n + 1.0f;
		CHECK(cudaFree(d));
		CHECK(cudaFree(tot));
		free(h);
	}
	CHECK(cudaDeviceSynchronize());

	waitpid(pid, &status, 0);
	if (!WIFEXITED(status) || WEXITSTATUS(status)) {
		errors++;
	}
	printf("resource kernel=scale launches=%d\n", w[0].launches + w[1].launches + 1);
	printf("resource kernel=smem_sum launches=%d\n", launches_smem);
	printf("resource kernel=tex_read launches=%d\n", launches_tex);
	printf("resource kernel=coop_total launches=%d\n", launches_coop);
	printf("%s coverage: %d errors\n", errors ? "FAIL" : "PASS", errors);
	return errors ? 1 : 0;
}
