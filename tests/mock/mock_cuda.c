/* SPDX-License-Identifier: MIT */
/*
 * A mock CUDA driver (libcuda.so.1) for CPU-only tests of the replay
 * runtime: just the driver calls libgpumix-replay makes, executed at once
 * on the host. Device memory is host memory; every copy, memset and
 * texture checks that its device range lies inside a live allocation or
 * global (so a relocation bug is an error, not silent corruption); the
 * kernels of tests/gpu/replay_kernels.cu are implemented in C and found
 * by mangled name. It also produces CUPTI-like activity records, which the
 * mock CUPTI (mock_cupti.c) hands to the profiler.
 *
 * Elastic kernels (gpumix replay --elastic): the runtime passes one more
 * kernelParams entry, the struct gm_elastic_args (common/elastic_abi.h),
 * after a kernel's own parameters, and NULL there otherwise (its
 * kernelParams arrays end with a NULL). The mock then runs the logical
 * threads of the blocks [offset, offset + limit) of the logical grid, as
 * the transformed kernel does whatever the physical grid, so a wrong or
 * missing range fails the replay's result verification.
 *
 * Knobs: MOCK_CUDA_FAIL=<function> makes that call fail.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#include <cupti.h>

#include "mock.h"

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

/* ---- activity records ---- */

static struct {
	uint8_t *buf;
	size_t len, alloc;
	int kinds[64];
	int latency;
	uint32_t corr;
} act;

uint64_t mock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

void mock_enable_kind(int kind)
{
	if (kind >= 0 && kind < 64) {
		act.kinds[kind] = 1;
	}
}

void mock_enable_latency(int on)
{
	act.latency = on;
}

/* Caller holds the lock. */
static void add_record(const void *rec, size_t size)
{
	size_t need = (size + 7) & ~(size_t)7;

	if (act.len + need > act.alloc) {
		act.alloc = (act.len + need) * 2;
		act.buf = realloc(act.buf, act.alloc);
	}
	memset(act.buf + act.len, 0, need);
	memcpy(act.buf + act.len, rec, size);
	act.len += need;
}

size_t mock_take_records(uint8_t *out, size_t room)
{
	size_t n = 0;

	pthread_mutex_lock(&lock);
	/* whole records only */
	while (n < act.len) {
		CUpti_ActivityKind k = ((CUpti_Activity *)(act.buf + n))->kind;
		size_t s = (mock_record_size(k) + 7) & ~(size_t)7;
		if (n + s > room) {
			break;
		}
		n += s;
	}
	memcpy(out, act.buf, n);
	memmove(act.buf, act.buf + n, act.len - n);
	act.len -= n;
	pthread_mutex_unlock(&lock);
	return n;
}

size_t mock_pending_records(void)
{
	size_t n;

	pthread_mutex_lock(&lock);
	n = act.len;
	pthread_mutex_unlock(&lock);
	return n;
}

size_t mock_record_size(int kind)
{
	switch (kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL:
		return sizeof(CUpti_ActivityKernel10);
	case CUPTI_ACTIVITY_KIND_MEMCPY:
		return sizeof(CUpti_ActivityMemcpy6);
	case CUPTI_ACTIVITY_KIND_MEMSET:
		return sizeof(CUpti_ActivityMemset4);
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER:
		return sizeof(CUpti_ActivityAPI);
	}
	return 8;
}

static uint32_t api_record(uint32_t cbid, uint64_t start)
{
	CUpti_ActivityAPI a;
	uint32_t corr = ++act.corr;

	if (act.kinds[CUPTI_ACTIVITY_KIND_DRIVER]) {
		memset(&a, 0, sizeof(a));
		a.kind = CUPTI_ACTIVITY_KIND_DRIVER;
		a.cbid = cbid;
		a.start = start;
		a.end = mock_now();
		a.processId = (uint32_t)getpid();
		a.threadId = (uint32_t)syscall(SYS_gettid);
		a.correlationId = corr;
		add_record(&a, sizeof(a));
	}
	return corr;
}

/* ---- objects ---- */

struct mstream {
	uint32_t id;
};

struct mlib {
	uint32_t magic;
	unsigned c_add;
	struct mkernel *kernels[8];
	int nr_kernels;
};

/* A kernel over the global thread ids [first, end) of a 1-D grid. */
typedef void (*kernel_fn)(struct mlib *lib, uint64_t first, uint64_t end,
			  void **args);

struct mkernel {
	const char *name;
	kernel_fn fn;
	unsigned nr_params;
	struct mlib *lib;
};

struct alloc {
	uintptr_t start;
	size_t size;
};

static struct alloc allocs[4096];
static int nr_allocs;
static uint32_t next_stream = 100;

struct mtex {
	uintptr_t base;
	size_t size;
	int live;
};
static struct mtex texs[1024];

static int failing(const char *fn)
{
	const char *f = getenv("MOCK_CUDA_FAIL");

	return f && !strcmp(f, fn);
}

#define FAIL_IF(name)                                                          \
	do {                                                                   \
		if (failing(name)) {                                           \
			return CUDA_ERROR_UNKNOWN;                             \
		}                                                              \
	} while (0)

static struct mlib *libs[64];
static int nr_libs;

/* Is [p, p + n) inside one live allocation or library global? */
static int valid(uintptr_t p, size_t n)
{
	int ok = 0;

	pthread_mutex_lock(&lock);
	for (int i = 0; i < nr_allocs && !ok; i++) {
		if (p >= allocs[i].start && n <= allocs[i].size &&
		    p - allocs[i].start <= allocs[i].size - n) {
			ok = 1;
		}
	}
	for (int i = 0; i < nr_libs && !ok; i++) {
		uintptr_t g = (uintptr_t)&libs[i]->c_add;
		if (libs[i]->magic == 0x11b && p >= g && p + n <= g + 4) {
			ok = 1;
		}
	}
	pthread_mutex_unlock(&lock);
	if (!ok) {
		fprintf(stderr, "mock cuda: invalid device range 0x%lx+%zu\n",
			(unsigned long)p, n);
	}
	return ok;
}

/* ---- kernels of tests/gpu/replay_kernels.cu ---- */

static void k_scale(struct mlib *lib, uint64_t first, uint64_t end,
                     void **args)
{
	unsigned *out = *(unsigned **)args[0];
	const unsigned *in = *(const unsigned **)args[1];
	unsigned mul = *(unsigned *)args[2], n = *(unsigned *)args[3];

	if (!valid((uintptr_t)out, n * 4ull) || !valid((uintptr_t)in, n * 4ull)) {
		abort();
	}
	for (uint64_t i = first; i < end && i < n; i++) {
		out[i] = in[i] * mul + lib->c_add;
	}
}

static void k_incr(struct mlib *lib, uint64_t first, uint64_t end,
                    void **args)
{
	struct {
		unsigned *p;
		unsigned long long n;
	} s;

	(void)lib;
	memcpy(&s, args[0], sizeof(s));
	if (!valid((uintptr_t)s.p, s.n * 4)) {
		abort();
	}
	for (uint64_t i = first; i < end && i < s.n; i++) {
		s.p[i] += 1;
	}
}

static void k_tex_copy(struct mlib *lib, uint64_t first, uint64_t end,
                        void **args)
{
	unsigned *out = *(unsigned **)args[0];
	unsigned long long t = *(unsigned long long *)args[1];
	unsigned n = *(unsigned *)args[2];
	const unsigned *base;

	(void)lib;
	if (t == 0 || t >= 1024 || !texs[t].live) {
		fprintf(stderr, "mock cuda: bad texture object %llu\n", t);
		abort();
	}
	base = (const unsigned *)texs[t].base;
	if (!valid((uintptr_t)out, n * 4ull)) {
		abort();
	}
	for (uint64_t i = first; i < end && i < n; i++) {
		out[i] = i * 4 < texs[t].size ? base[i] : 0;
	}
}

static void k_spin(struct mlib *lib, uint64_t first, uint64_t end,
                    void **args)
{
	volatile unsigned *flag = *(volatile unsigned **)args[0];

	(void)lib;
	(void)first;
	(void)end;
	if (!valid((uintptr_t)flag, 4)) {
		abort();
	}
	while (*flag == 0) {
		usleep(1000);
	}
}

static const struct {
	const char *name;
	kernel_fn fn;
	unsigned nr_params;
} known[] = {
	{ "_Z5scalePjPKjjj", k_scale, 4 },
	{ "_Z4incr4span", k_incr, 1 },
	{ "_Z8tex_copyPjyj", k_tex_copy, 3 },
	{ "_Z4spinPVj", k_spin, 1 },
};

/* ---- the driver API ---- */

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
	*pStr = error == CUDA_SUCCESS ? "CUDA_SUCCESS" :
		error == CUDA_ERROR_NOT_FOUND ? "CUDA_ERROR_NOT_FOUND" :
		error == CUDA_ERROR_INVALID_VALUE ? "CUDA_ERROR_INVALID_VALUE" :
						     "CUDA_ERROR_UNKNOWN";
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
	(void)error;
	*pStr = "mock driver error";
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuInit(unsigned int flags)
{
	uint64_t t = mock_now();

	(void)flags;
	FAIL_IF("cuInit");
	pthread_mutex_lock(&lock);
	api_record(1, t);	/* a record on the main thread: unattributed */
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGet(CUdevice *device, int ordinal)
{
	*device = ordinal;
	return ordinal == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_DEVICE;
}

CUresult CUDAAPI cuDriverGetVersion(int *v)
{
	*v = 13000;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetName(char *name, int len, CUdevice dev)
{
	(void)dev;
	snprintf(name, (size_t)len, "Mock GPU");
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDeviceGetAttribute(int *pi, CUdevice_attribute attrib,
				      CUdevice dev)
{
	(void)dev;
	switch (attrib) {
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR:
		*pi = 9;
		break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR:
		*pi = 0;
		break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT:
		*pi = 132;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
		*pi = 2048;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
		*pi = 32;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
		*pi = 65536;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
		*pi = 233472;
		break;
	default:
		*pi = 0;
		break;
	}
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRetain(CUcontext *pctx, CUdevice dev)
{
	(void)dev;
	*pctx = (CUcontext)(uintptr_t)0xc0ffee;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuDevicePrimaryCtxRelease(CUdevice dev)
{
	(void)dev;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSetCurrent(CUcontext ctx)
{
	(void)ctx;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize(void)
{
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int flags)
{
	(void)flags;
	*pp = malloc(bytesize ? bytesize : 1);
	return *pp ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult CUDAAPI cuMemFreeHost(void *p)
{
	free(p);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)
{
	void *p;

	FAIL_IF("cuMemAlloc");
	if (posix_memalign(&p, 4096, bytesize ? bytesize : 1)) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	memset(p, 0xa5, bytesize);	/* like uninitialised memory */
	pthread_mutex_lock(&lock);
	allocs[nr_allocs].start = (uintptr_t)p;
	allocs[nr_allocs].size = bytesize;
	nr_allocs++;
	pthread_mutex_unlock(&lock);
	*dptr = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr dptr)
{
	pthread_mutex_lock(&lock);
	for (int i = 0; i < nr_allocs; i++) {
		if (allocs[i].start == dptr) {
			allocs[i] = allocs[--nr_allocs];
			pthread_mutex_unlock(&lock);
			free((void *)(uintptr_t)dptr);
			return CUDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&lock);
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code,
				   CUjit_option *jitOptions,
				   void **jitOptionsValues,
				   unsigned int numJitOptions,
				   CUlibraryOption *libraryOptions,
				   void **libraryOptionValues,
				   unsigned int numLibraryOptions)
{
	struct mlib *l = calloc(1, sizeof(*l));

	(void)code;
	(void)jitOptions;
	(void)jitOptionsValues;
	(void)numJitOptions;
	(void)libraryOptions;
	(void)libraryOptionValues;
	(void)numLibraryOptions;
	FAIL_IF("cuLibraryLoadData");
	l->magic = 0x11b;
	pthread_mutex_lock(&lock);
	libs[nr_libs++] = l;
	pthread_mutex_unlock(&lock);
	*library = (CUlibrary)l;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
	struct mlib *l = (struct mlib *)library;

	l->magic = 0;	/* kept: records may name its kernels */
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library,
				    const char *name)
{
	struct mlib *l = (struct mlib *)library;

	FAIL_IF("cuLibraryGetKernel");
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (!strcmp(known[i].name, name) && l->nr_kernels < 8) {
			struct mkernel *k = calloc(1, sizeof(*k));
			k->name = known[i].name;
			k->fn = known[i].fn;
			k->nr_params = known[i].nr_params;
			k->lib = l;
			l->kernels[l->nr_kernels++] = k;
			*pKernel = (CUkernel)k;
			return CUDA_SUCCESS;
		}
	}
	return CUDA_ERROR_NOT_FOUND;
}

CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
	*pFunc = (CUfunction)kernel;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib,
				    int value)
{
	(void)hfunc;
	(void)attrib;
	(void)value;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes,
				    CUlibrary library, const char *name)
{
	struct mlib *l = (struct mlib *)library;

	if (strcmp(name, "c_add")) {
		return CUDA_ERROR_NOT_FOUND;
	}
	*dptr = (CUdeviceptr)(uintptr_t)&l->c_add;
	*bytes = 4;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream,
					    unsigned int flags, int priority)
{
	struct mstream *s = calloc(1, sizeof(*s));

	(void)flags;
	(void)priority;
	pthread_mutex_lock(&lock);
	s->id = next_stream++;
	pthread_mutex_unlock(&lock);
	*phStream = (CUstream)s;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamDestroy(CUstream hStream)
{
	free(hStream);
	return CUDA_SUCCESS;
}

uint32_t mock_stream_id(CUstream s)
{
	return s ? ((struct mstream *)s)->id : 7;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
	(void)hStream;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent,
				   unsigned int Flags)
{
	(void)hStream;
	(void)hEvent;
	(void)Flags;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
	(void)Flags;
	*phEvent = (CUevent)calloc(1, 16);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventDestroy(CUevent hEvent)
{
	free(hEvent);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
	(void)hEvent;
	(void)hStream;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
	(void)hEvent;
	return CUDA_SUCCESS;
}

static void copy_record(uint8_t kind, size_t bytes, CUstream s, uint64_t t0,
			uint32_t corr)
{
	CUpti_ActivityMemcpy6 m;

	if (!act.kinds[CUPTI_ACTIVITY_KIND_MEMCPY]) {
		return;
	}
	memset(&m, 0, sizeof(m));
	m.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	m.copyKind = kind;
	m.bytes = bytes;
	m.start = t0;
	m.end = mock_now();
	m.streamId = mock_stream_id(s);
	m.correlationId = corr;
	add_record(&m, sizeof(m));
}

CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src,
				   size_t n, CUstream s)
{
	uint64_t t0 = mock_now();

	if (!valid(dst, n)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	memcpy((void *)(uintptr_t)dst, src, n);
	pthread_mutex_lock(&lock);
	copy_record(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD, n, s, t0,
		    api_record(279, t0));
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n,
				   CUstream s)
{
	uint64_t t0 = mock_now();

	if (!valid(src, n)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	memcpy(dst, (void *)(uintptr_t)src, n);
	pthread_mutex_lock(&lock);
	copy_record(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, n, s, t0,
		    api_record(281, t0));
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n,
				   CUstream s)
{
	uint64_t t0 = mock_now();

	if (!valid(dst, n) || !valid(src, n)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	memmove((void *)(uintptr_t)dst, (void *)(uintptr_t)src, n);
	pthread_mutex_lock(&lock);
	copy_record(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD, n, s, t0,
		    api_record(283, t0));
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

static CUresult memset_n(CUdeviceptr dst, unsigned v, size_t n, unsigned w,
			 CUstream s)
{
	uint64_t t0 = mock_now();
	CUpti_ActivityMemset4 m;

	if (!valid(dst, n * w)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	for (size_t i = 0; i < n; i++) {
		uint8_t *p = (uint8_t *)(uintptr_t)dst + i * w;
		if (w == 1) {
			*p = (uint8_t)v;
		} else if (w == 2) {
			uint16_t x = (uint16_t)v;
			memcpy(p, &x, 2);
		} else {
			memcpy(p, &v, 4);
		}
	}
	pthread_mutex_lock(&lock);
	{
		uint32_t corr = api_record(285, t0);
		if (act.kinds[CUPTI_ACTIVITY_KIND_MEMSET]) {
			memset(&m, 0, sizeof(m));
			m.kind = CUPTI_ACTIVITY_KIND_MEMSET;
			m.value = v;
			m.bytes = n * w;
			m.start = t0;
			m.end = mock_now();
			m.streamId = mock_stream_id(s);
			m.correlationId = corr;
			add_record(&m, sizeof(m));
		}
	}
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n,
				 CUstream s)
{
	return memset_n(d, v, n, 1, s);
}

CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n,
				  CUstream s)
{
	return memset_n(d, v, n, 2, s);
}

CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n,
				  CUstream s)
{
	return memset_n(d, v, n, 4, s);
}

static CUresult launch(CUfunction f, const unsigned g[3], const unsigned b[3],
		       unsigned smem, CUstream s, void **params)
{
	struct mkernel *k = (struct mkernel *)f;
	uint64_t t0 = mock_now(), t1;
	uint32_t corr;

	FAIL_IF("cuLaunchKernel");
	if (!k || !k->fn) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	pthread_mutex_lock(&lock);
	corr = api_record(307, t0);
	pthread_mutex_unlock(&lock);
	if (params && params[k->nr_params]) {
		/* struct gm_elastic_args: grid[3], block[3], offset, limit */
		uint32_t a[8];
		uint64_t total, lo, hi, threads;
		memcpy(a, params[k->nr_params], sizeof(a));
		total = (uint64_t)a[0] * a[1] * a[2];
		threads = (uint64_t)a[3] * a[4] * a[5];
		if (threads != (uint64_t)b[0] * b[1] * b[2]) {
			fprintf(stderr, "mock cuda: %s: block of %u x %u x %u "
				"threads, the elastic arguments say %u x %u x "
				"%u\n", k->name, b[0], b[1], b[2], a[3], a[4],
				a[5]);
			return CUDA_ERROR_INVALID_VALUE;
		}
		lo = a[6] < total ? a[6] : total;
		hi = lo + (a[7] < total - lo ? a[7] : total - lo);
		k->fn(k->lib, lo * threads, hi * threads, params);
	} else {
		k->fn(k->lib, 0,
		      (uint64_t)g[0] * g[1] * g[2] * b[0] * b[1] * b[2],
		      params);
	}
	t1 = mock_now();
	pthread_mutex_lock(&lock);
	if (act.kinds[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL]) {
		CUpti_ActivityKernel10 r;
		memset(&r, 0, sizeof(r));
		r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
		r.start = t0 + 1000;
		r.end = t1 + 2000;
		r.queued = act.latency ? t0 + 100 : CUPTI_TIMESTAMP_UNKNOWN;
		r.submitted = act.latency ? t0 + 500 : CUPTI_TIMESTAMP_UNKNOWN;
		r.deviceId = 0;
		r.contextId = 1;
		r.streamId = mock_stream_id(s);
		r.gridX = (int32_t)g[0];
		r.gridY = (int32_t)g[1];
		r.gridZ = (int32_t)g[2];
		r.blockX = (int32_t)b[0];
		r.blockY = (int32_t)b[1];
		r.blockZ = (int32_t)b[2];
		r.registersPerThread = 32;
		r.dynamicSharedMemory = (int32_t)smem;
		r.correlationId = corr;
		r.name = k->name;
		add_record(&r, sizeof(r));
	}
	pthread_mutex_unlock(&lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
				unsigned int gz, unsigned int bx, unsigned int by,
				unsigned int bz, unsigned int smem, CUstream s,
				void **kernelParams, void **extra)
{
	unsigned g[3] = { gx, gy, gz }, b[3] = { bx, by, bz };

	(void)extra;
	return launch(f, g, b, smem, s, kernelParams);
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
							    CUfunction func,
							    int blockSize,
							    size_t dynamicSMemSize)
{
	(void)func;
	(void)dynamicSMemSize;
	FAIL_IF("cuOccupancyMaxActiveBlocksPerMultiprocessor");
	if (blockSize <= 0 || blockSize > 1024) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	*numBlocks = 2048 / blockSize < 32 ? 2048 / blockSize : 32;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
				  void **kernelParams, void **extra)
{
	unsigned g[3] = { config->gridDimX, config->gridDimY, config->gridDimZ };
	unsigned b[3] = { config->blockDimX, config->blockDimY,
			  config->blockDimZ };

	(void)extra;
	return launch(f, g, b, config->sharedMemBytes, config->hStream,
		      kernelParams);
}

CUresult CUDAAPI cuTexObjectCreate(CUtexObject *pTexObject,
				   const CUDA_RESOURCE_DESC *pResDesc,
				   const CUDA_TEXTURE_DESC *pTexDesc,
				   const CUDA_RESOURCE_VIEW_DESC *pResViewDesc)
{
	uintptr_t base;
	size_t size;

	(void)pTexDesc;
	(void)pResViewDesc;
	if (pResDesc->resType == CU_RESOURCE_TYPE_LINEAR) {
		base = pResDesc->res.linear.devPtr;
		size = pResDesc->res.linear.sizeInBytes;
	} else if (pResDesc->resType == CU_RESOURCE_TYPE_PITCH2D) {
		base = pResDesc->res.pitch2D.devPtr;
		size = pResDesc->res.pitch2D.pitchInBytes *
		       pResDesc->res.pitch2D.height;
	} else {
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	if (!valid(base, size)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&lock);
	/* Handles start high, unlike the captured ones: relocation matters. */
	for (unsigned i = 17; i < 1024; i++) {
		if (!texs[i].live) {
			texs[i].live = 1;
			texs[i].base = base;
			texs[i].size = size;
			*pTexObject = i;
			pthread_mutex_unlock(&lock);
			return CUDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&lock);
	return CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult CUDAAPI cuTexObjectDestroy(CUtexObject t)
{
	if (t >= 1024 || !texs[t].live) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	texs[t].live = 0;
	return CUDA_SUCCESS;
}

/* ---- nss scheduler (completion) ---- */

CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
	(void)hEvent;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p,
					   unsigned int Flags)
{
	(void)Flags;
	*pdptr = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemsetD32(CUdeviceptr d, unsigned int v, size_t n)
{
	return memset_n(d, v, n, 4, NULL);
}

/* The attributes the elastic variant's policies read (BLOCKUSAGE). */
CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
				    CUfunction hfunc)
{
	(void)hfunc;
	switch (attrib) {
	case CU_FUNC_ATTRIBUTE_NUM_REGS:
		*pi = 32;
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES:
		*pi = 0;
		return CUDA_SUCCESS;
	case CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK:
		*pi = 1024;
		return CUDA_SUCCESS;
	default:
		*pi = 0;
		return CUDA_SUCCESS;
	}
}
