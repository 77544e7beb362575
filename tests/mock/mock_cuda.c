/* SPDX-License-Identifier: MIT */
/*
 * A mock CUDA driver (libcuda.so.1) for CPU-only tests of the replay
 * runtime: just the driver calls libgpumix-replay makes, with CUDA's
 * stream semantics on the host. Device memory is host memory, at the
 * addresses of one region that a driver would hand out, the same in every
 * process (mock_vmm.c, with the virtual memory management calls); every copy,
 * memset and texture checks at the call that its device range lies inside
 * a live allocation, a library global or host-mapped memory (so a
 * relocation bug is an error, not silent corruption); the kernels of
 * tests/gpu/replay_kernels.cu are implemented in C, found by mangled name,
 * and check their ranges when they run. It also produces CUPTI-like
 * activity records, which the mock CUPTI (mock_cupti.c) hands to the
 * profiler: API records at the call, copy, memset and kernel records with
 * the times their work ran on the device thread.
 *
 * Contexts and green contexts (mock_green.c): functions and streams
 * belong to a context, and a launch on another context's stream fails.
 *
 * Shared memory, as the driver checks it (an H100's numbers): a function
 * may take at most 48 KiB of dynamic shared memory per block until
 * cuFuncSetAttribute(CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES)
 * sets its limit (refused above the device's opt-in per block, 232448
 * bytes, less the function's static shared memory, which the mock's
 * kernels have none of); a launch, or a graph's kernel node, above its
 * function's limit fails with CUDA_ERROR_INVALID_VALUE (a CUkernel
 * launched directly takes the limit of its function in the stream's
 * context, 48 KiB when none was got). The occupancy calculator counts
 * a block's shared memory (its dynamic size plus the 1 KiB the device
 * reserves per block, in 128-byte units, out of 233472 bytes per SM) as
 * well as its threads, so padding a cooperative kernel's launches can
 * make them too large, as on a GPU.
 *
 * Asynchrony (mock_device.c): copies, memsets, kernel launches, event
 * records and stream waits are queued on their stream and run later, one
 * at a time, by a device thread, so that a missing dependency gives wrong
 * results rather than passing by luck. As CUDA does, a launch copies its
 * parameter values at the call; a host-to-device copy from pageable
 * memory stages its source at the call, one from page-locked memory
 * (cuMemHostAlloc) reads it when it runs; a device-to-host copy writes its
 * destination when it runs. (CUDA returns from a device-to-host copy into
 * pageable memory only once it is done; the mock does not, so a result
 * read without synchronizing is stale whatever the memory.)
 * cuStreamSynchronize, cuEventSynchronize, cuCtxSynchronize, cuMemFree and
 * cuMemFreeHost block until the work they wait for has run; cuEventQuery
 * and cuStreamQuery say CUDA_ERROR_NOT_READY until then.
 *
 * Elastic kernels (gpumix replay --elastic): the runtime passes one more
 * kernelParams entry, the struct gm_elastic_args (common/elastic_abi.h),
 * after a kernel's own parameters, and NULL there otherwise (its
 * kernelParams arrays end with a NULL); with a parameter buffer
 * (CU_LAUNCH_PARAM_BUFFER_POINTER) it follows the parameters, 8-byte
 * aligned. The mock then runs the logical threads of the blocks [offset,
 * offset + limit) of the logical grid, as the transformed kernel does
 * whatever the physical grid, so a wrong or missing range fails the
 * replay's result verification. With done_flag set, each physical block
 * then adds one to *done_count and the one that reaches the number of
 * physical blocks resets it to 0 and sets *done_flag to 1 (release
 * ordering), as the transformed kernel's completion notification does
 * (reconstruct/ptx/ptx_elastic.c): a count that was not 0 before the launch
 * leaves the flag unset, as on a GPU.
 *
 * Knobs (environment):
 *   MOCK_CUDA_FAIL=<function>   that call fails (CUDA_ERROR_UNKNOWN).
 *   MOCK_CUDA_SLOW=FUNC:N:MS:FILE
 *                               the N-th call (1-based, in this process)
 *                               of FUNC sleeps MS ms at its entry, then
 *                               appends the mock clock (ns: the clock of
 *                               the activity records and of the replay's
 *                               times) to FILE: one program's init late,
 *                               and when it went on. FUNC: one of the
 *                               calls that check it (cuLibraryLoadData,
 *                               cuLaunchKernel: both launch calls).
 *   MOCK_CUDA_LATENCY_US=N      a queued command runs no sooner than N
 *                               microseconds after its call (default
 *                               200), unless a host thread is blocked
 *                               waiting for it or for work that depends
 *                               on it; 0 runs work as soon as it can.
 *   MOCK_CUDA_ORDER=lifo|fifo|random
 *                               among the streams whose first command may
 *                               run, the device thread takes the most
 *                               recently queued (lifo, the default), the
 *                               oldest (fifo) or any (random).
 *   MOCK_CUDA_SEED=N            seed of the random order (default 1).
 *   MOCK_CUDA_SMS=N             the device's SM count (default 132, the
 *                               H100's): a small one makes small grids
 *                               run in several waves (timeslicing tests).
 *   MOCK_CUDA_SM_MIN=N, MOCK_CUDA_SM_ALIGN=N
 *                               the SM resource's minimum partition and
 *                               alignment (default 8 and 8): green
 *                               contexts, mock_green.c.
 *   MOCK_CUDA_STREAM_IDS=context
 *                               a green context's streams get ids of their
 *                               own, from 100 (CUPTI promises stream ids
 *                               unique within a context only); default:
 *                               unique on the device.
 *   MOCK_CUDA_WAVE_US=N         a kernel runs N microseconds per wave of
 *                               blocks, a wave being one block per SM of
 *                               its context (default: no added time).
 *   MOCK_CUDA_CALL_LOG=FILE     each call that issues work (a copy,
 *                               memset, kernel launch or host function)
 *                               appends "NS TID WHAT BYTES" to FILE: its
 *                               entry time (the CUPTI clock), thread,
 *                               kind and size (launch: 0), so a test can
 *                               see when the replay issued its calls;
 *                               "NS TID host_ran OFFSET" when the device
 *                               runs a host function (OFFSET: the
 *                               function's in its object, the same for
 *                               every run of one program), and
 *                               "NS TID sleep NS" for each nanosleep()
 *                               of the program (mock_sleep.c), so a test
 *                               can assert what the replay did rather
 *                               than how long it took.
 *   MOCK_CUDA_DRIVER_BYTES=N    cuInit takes the first N bytes of the
 *                               device range for the driver itself, as a
 *                               driver whose own memory lies where a
 *                               program's captured allocations were
 *                               (mock_vmm.c).
 *   MOCK_CUDA_OCCUPY=WHEN:ADDR:BYTES  maps BYTES of inaccessible memory
 *                               at ADDR (or where the kernel puts them
 *                               when something is there) and keeps them:
 *                               at cuInit (WHEN init), as the real
 *                               driver's own reservations, which may
 *                               cover a captured range, or before main
 *                               (load), as a library. /proc/self/maps
 *                               names them /memfd:mock-cuda-driver or
 *                               /memfd:mock-cuda-library (mock_vmm.c).
 *   MOCK_CUDA_D2H_PAGES=FILE    each device-to-host copy into pageable
 *                               memory appends "BYTES RESIDENT PAGES" to
 *                               FILE: how many of the pages it writes
 *                               were resident at the call (mincore), as
 *                               the first touch inside a GPU copy costs.
 * A bad knob makes cuInit fail with CUDA_ERROR_INVALID_VALUE.
 *
 * Injection: as the driver does, cuInit loads the library named by
 * CUDA_INJECTION64_PATH and calls its InitializeInjection(); the mock
 * CUPTI's subscriber then gets the entry and exit callbacks of the calls
 * marked MOCK_API (allocation, copies, memsets, launches,
 * synchronizations, graph launches) whose ids it enabled.
 *
 * MPS: as the real driver, cuInit tries the MPS control daemon at
 * $CUDA_MPS_PIPE_DIRECTORY/control (default /tmp/nvidia-mps); when it
 * answers (tests/mock/fake_mps_control.c), the process is its client for
 * life ("client PID PCT", PCT from CUDA_MPS_ACTIVE_THREAD_PERCENTAGE) and
 * CU_DEVICE_ATTRIBUTE_MPS_ENABLED is 1; otherwise CUDA runs without MPS
 * and the attribute is 0. MOCK_CUDA_CLOCK_SKEW_NS=N puts the clock (CUPTI
 * timestamps and activity records) of the k-th client the daemon
 * numbers (0, 1, ...) k * N ns ahead, as if each process's CUPTI had
 * its own clock base (the mps variant's merge must align them).
 * MOCK_CUDA_CLOCK_OFFSET_NS=N puts this process's clock N ns ahead,
 * client or not (procs has no daemon to number its processes: a test
 * gives one of them the knob).
 */
#include <dlfcn.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <poll.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>
#include <cupti.h>

#include "elastic_abi.h"
#include "mock.h"
#include "mock_int.h"

/* ---- activity records ---- */

static struct {
	uint8_t *buf;
	size_t len, alloc;
	int kinds[64];
	int latency;
	uint32_t corr;
} act;

/* This process's clock offset (MPS clients, MOCK_CUDA_CLOCK_SKEW_NS). */
static uint64_t clock_skew;

uint64_t mock_now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec +
	       clock_skew;
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

/* Caller holds mock_lock. */
static void add_record(const void *rec, size_t size)
{
	size_t need = (size + 7) & ~(size_t)7;

	if (act.len + need > act.alloc) {
		act.alloc = (act.len + need) * 2;
		act.buf = realloc(act.buf, act.alloc);
		if (!act.buf) {
			fprintf(stderr, "mock cuda: out of memory\n");
			abort();
		}
	}
	memset(act.buf + act.len, 0, need);
	memcpy(act.buf + act.len, rec, size);
	act.len += need;
}

size_t mock_take_records(uint8_t *out, size_t room)
{
	size_t n = 0;

	pthread_mutex_lock(&mock_lock);
	/* whole records only */
	while (n < act.len) {
		CUpti_ActivityKind k = ((CUpti_Activity *)(act.buf + n))->kind;
		size_t s = (mock_record_size(k) + 7) & ~(size_t)7;
		if (n + s > room) {
			break;
		}
		n += s;
	}
	if (n) {	/* act.buf is NULL before the first record */
		memcpy(out, act.buf, n);
		memmove(act.buf, act.buf + n, act.len - n);
		act.len -= n;
	}
	pthread_mutex_unlock(&mock_lock);
	return n;
}

size_t mock_pending_records(void)
{
	size_t n;

	pthread_mutex_lock(&mock_lock);
	n = act.len;
	pthread_mutex_unlock(&mock_lock);
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
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
		return sizeof(CUpti_ActivityExternalCorrelation);
	}
	return 8;
}

/* The API record of a call that began at @start; its correlation id. */
/* Driver calls whose records CUPTI was told to leave out. */
static uint8_t api_off[1024];

void mock_enable_driver_api(uint32_t cbid, int on)
{
	if (cbid < sizeof(api_off)) {
		api_off[cbid] = !on;
	}
}

static __thread uint64_t ext_ids[16];
static __thread unsigned nr_ext;

int mock_push_external(uint64_t id)
{
	if (nr_ext >= sizeof(ext_ids) / sizeof(ext_ids[0])) {
		return -1;
	}
	ext_ids[nr_ext++] = id;
	return 0;
}

int mock_pop_external(uint64_t *id)
{
	if (!nr_ext) {
		return -1;
	}
	*id = ext_ids[--nr_ext];
	return 0;
}

static uint32_t api_record(uint32_t cbid, uint64_t start)
{
	CUpti_ActivityAPI a;
	uint32_t corr;

	pthread_mutex_lock(&mock_lock);
	corr = ++act.corr;
	if (nr_ext && act.kinds[CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION]) {
		CUpti_ActivityExternalCorrelation x;
		memset(&x, 0, sizeof(x));
		x.kind = CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION;
		x.externalKind = CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0;
		x.externalId = ext_ids[nr_ext - 1];
		x.correlationId = corr;
		add_record(&x, sizeof(x));
	}
	if (act.kinds[CUPTI_ACTIVITY_KIND_DRIVER] &&
	    !(cbid < sizeof(api_off) && api_off[cbid])) {
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
	pthread_mutex_unlock(&mock_lock);
	return corr;
}

uint32_t mock_api_record(uint32_t cbid, uint64_t start)
{
	return api_record(cbid, start);
}

/* ---- CUPTI callbacks ---- */

static struct {
	void (*fn)(void *userdata, int domain, uint32_t cbid, const void *data);
	void *userdata;
	uint8_t on[1024];	/* by driver callback id */
	uint32_t corr;
} sub;

/* Driver calls in progress on this thread (only the outermost raises
 * callbacks). */
static __thread int api_depth;

void mock_set_subscriber(void (*fn)(void *userdata, int domain, uint32_t cbid,
				    const void *data),
			 void *userdata)
{
	pthread_mutex_lock(&mock_lock);
	sub.fn = fn;
	sub.userdata = userdata;
	if (!fn) {
		memset(sub.on, 0, sizeof(sub.on));
	}
	pthread_mutex_unlock(&mock_lock);
}

void mock_enable_callback(uint32_t cbid, int on)
{
	if (cbid < sizeof(sub.on)) {
		sub.on[cbid] = (uint8_t)!!on;
	}
}

void mock_api_enter(struct mock_api_scope *s, uint32_t cbid, const char *name)
{
	memset(s, 0, sizeof(*s));
	s->cbid = cbid;
	if (api_depth++ || !sub.fn || cbid >= sizeof(sub.on) || !sub.on[cbid]) {
		return;
	}
	s->raised = 1;
	s->d.callbackSite = CUPTI_API_ENTER;
	s->d.functionName = name;
	s->d.correlationId = __atomic_add_fetch(&sub.corr, 1, __ATOMIC_RELAXED);
	sub.fn(sub.userdata, CUPTI_CB_DOMAIN_DRIVER_API, cbid, &s->d);
}

void mock_api_exit(struct mock_api_scope *s)
{
	api_depth--;
	if (s->raised && sub.fn) {
		s->d.callbackSite = CUPTI_API_EXIT;
		sub.fn(sub.userdata, CUPTI_CB_DOMAIN_DRIVER_API, s->cbid, &s->d);
	}
}

/*
 * As the driver does at cuInit: load the library CUDA_INJECTION64_PATH
 * names, once, and call its InitializeInjection() (the capture and co-run
 * interposers, whose CUPTI is then the mock's).
 */
static void load_injection(void)
{
	static int loaded;
	const char *path = getenv("CUDA_INJECTION64_PATH");
	int (*init)(void);
	void *h;

	if (!path || !*path || __atomic_exchange_n(&loaded, 1, __ATOMIC_ACQ_REL)) {
		return;
	}
	h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
	init = h ? (int (*)(void))dlsym(h, "InitializeInjection") : NULL;
	if (!init) {
		fprintf(stderr, "mock cuda: cannot load the injection library "
			"'%s': %s\n", path, dlerror());
		return;
	}
	init();
}

/* ---- objects ---- */

#define MAX_PARAMS 4
#define MAX_PARAM_BYTES 64

struct mlib {
	uint32_t magic;
	char module;			/* its CUmodule is this byte's address */
	unsigned c_add;
	unsigned *g_out;		/* replay_kernels.cu's g_out */
	struct mkernel *kernels[8];
	int nr_kernels;
};

/* A kernel over the global thread ids [first, end) of a 1-D grid. */
typedef void (*kernel_fn)(struct mlib *lib, uint64_t first, uint64_t end,
			  void **args);

/* A kernel of tests/gpu/replay_kernels.cu and its parameter layout. */
struct kdesc {
	const char *name;
	kernel_fn fn;
	unsigned nr_params;
	uint32_t offset[MAX_PARAMS], size[MAX_PARAMS];
	/* As reconstruct classifies its PTX: a thread-elastic kernel may be
	 * launched with another block than its logical one. */
	int thread_elastic;
};

#define KERNEL_MAGIC 0x4e2eu
#define FUNC_MAGIC 0xf0ecu

/* Shared memory of the mock device (an H100's; the device attributes
 * and the occupancy calculator say the same). */
#define SMEM_PER_BLOCK 49152		/* without opting in */
#define SMEM_PER_BLOCK_OPTIN 232448
#define SMEM_PER_SM 233472
#define SMEM_RESERVED_PER_BLOCK 1024
#define SMEM_ALLOC_UNIT 128

struct mfunc;

struct mkernel {
	uint32_t magic;
	const struct kdesc *d;
	struct mlib *lib;
	struct mfunc *funcs;	/* one per context that asked */
};

/* A kernel's function in one context (cuKernelGetFunction). */
struct mfunc {
	uint32_t magic;
	struct mkernel *k;
	struct mctx *ctx;
	struct mfunc *next;
	/* CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: what a launch
	 * may take (SMEM_PER_BLOCK until the program opts in for more). */
	int max_dynamic_smem;
};

struct alloc {
	uintptr_t start;
	size_t size;
	int managed;		/* cuMemAllocManaged */
};

static struct alloc allocs[4096];
static int nr_allocs;

/* cuMemHostAlloc memory: page-locked, and (unified addressing, as on
 * every 64-bit system) device-accessible at its host address, with or
 * without CU_MEMHOSTALLOC_DEVICEMAP. */
struct host_alloc {
	uintptr_t start;
	size_t size;
	unsigned flags;
};

static struct host_alloc host_allocs[1024];
static int nr_host_allocs;

struct mtex {
	uintptr_t base;
	size_t size;
	size_t width, height;	/* over an array: its elements, rows */
	int live;
};
static struct mtex texs[1024];

int mock_failing(const char *fn)
{
	const char *f = getenv("MOCK_CUDA_FAIL");

	return f && !strcmp(f, fn);
}

void mock_slow(const char *fn)
{
	static pthread_mutex_t slow_lock = PTHREAD_MUTEX_INITIALIZER;
	static unsigned calls;
	const char *k = getenv("MOCK_CUDA_SLOW");
	char func[64], file[4096];
	unsigned n, ms, nth;
	FILE *f;

	if (!k || sscanf(k, "%63[^:]:%u:%u:%4095s", func, &n, &ms, file) != 4 ||
	    strcmp(func, fn)) {
		return;
	}
	pthread_mutex_lock(&slow_lock);
	nth = ++calls;
	pthread_mutex_unlock(&slow_lock);
	if (nth != n) {
		return;
	}
	usleep(ms * 1000u);
	f = fopen(file, "a");
	if (f) {
		fprintf(f, "%llu\n", (unsigned long long)mock_now());
		fclose(f);
	}
}

void mock_call_log(const char *what, uint64_t bytes, uint64_t t0)
{
	static pthread_mutex_t log_lock = PTHREAD_MUTEX_INITIALIZER;
	const char *path = getenv("MOCK_CUDA_CALL_LOG");
	FILE *f;

	if (!path || !*path) {
		return;
	}
	pthread_mutex_lock(&log_lock);
	f = fopen(path, "a");
	if (f) {
		fprintf(f, "%llu %ld %s %llu\n", (unsigned long long)t0,
			(long)syscall(SYS_gettid), what,
			(unsigned long long)bytes);
		fclose(f);
	}
	pthread_mutex_unlock(&log_lock);
}

#define FAIL_IF(name)                                                          \
	do {                                                                   \
		if (mock_failing(name)) {                                           \
			return CUDA_ERROR_UNKNOWN;                             \
		}                                                              \
	} while (0)

static struct mlib *libs[64];
static int nr_libs;

static int inside(uintptr_t p, size_t n, uintptr_t start, size_t size)
{
	return p >= start && n <= size && p - start <= size - n;
}

/* Is [p, p + n) inside one live allocation, library global or
 * host-mapped allocation? (@quiet: no message when not) */
static int valid_range(uintptr_t p, size_t n, int quiet);

static int valid(uintptr_t p, size_t n)
{
	return valid_range(p, n, 0);
}

int mock_quietly_valid(uintptr_t p, size_t n)
{
	return valid_range(p, n, 1);
}

static int valid_range(uintptr_t p, size_t n, int quiet)
{
	int ok = 0;

	pthread_mutex_lock(&mock_lock);
	for (int i = 0; i < nr_allocs && !ok; i++) {
		ok = inside(p, n, allocs[i].start, allocs[i].size);
	}
	for (int i = 0; i < nr_libs && !ok; i++) {
		ok = libs[i]->magic == 0x11b &&
		     (inside(p, n, (uintptr_t)&libs[i]->c_add, 4) ||
		      inside(p, n, (uintptr_t)&libs[i]->g_out, 8));
	}
	for (int i = 0; i < nr_host_allocs && !ok; i++) {
		ok = inside(p, n, host_allocs[i].start, host_allocs[i].size);
	}
	if (!ok) {
		ok = mock_vmm_valid(p, n);
	}
	pthread_mutex_unlock(&mock_lock);
	if (!ok && !quiet) {
		fprintf(stderr, "mock cuda: invalid device range 0x%lx+%zu\n",
			(unsigned long)p, n);
	}
	return ok;
}

/* Is [p, p + n) page-locked host memory (cuMemHostAlloc)? */
static int page_locked(const void *p, size_t n);

int mock_page_locked(const void *p, size_t n)
{
	return page_locked(p, n);
}

static int page_locked(const void *p, size_t n)
{
	int ok = 0;

	pthread_mutex_lock(&mock_lock);
	for (int i = 0; i < nr_host_allocs && !ok; i++) {
		ok = inside((uintptr_t)p, n, host_allocs[i].start,
			    host_allocs[i].size);
	}
	pthread_mutex_unlock(&mock_lock);
	return ok;
}

/* ---- kernels of tests/gpu/replay_kernels.cu, run by the device thread ---- */

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

static void k_scale_gbl(struct mlib *lib, uint64_t first, uint64_t end,
			void **args)
{
	const unsigned *in = *(const unsigned **)args[0];
	unsigned mul = *(unsigned *)args[1], n = *(unsigned *)args[2];

	/* The pointer the program stored into g_out must be the replay's. */
	if (!valid((uintptr_t)lib->g_out, n * 4ull) ||
	    !valid((uintptr_t)in, n * 4ull)) {
		abort();
	}
	for (uint64_t i = first; i < end && i < n; i++) {
		lib->g_out[i] = in[i] * mul + lib->c_add;
	}
}

/* The tables hold device pointers: ones the replay made its own, or
 * the captured ones where the allocations are at the captured addresses. */
static void k_scale_ptrs(struct mlib *lib, uint64_t first, uint64_t end,
			 void **args)
{
	unsigned *const *outs = *(unsigned *const **)args[0];
	const unsigned *const *ins = *(const unsigned *const **)args[1];
	unsigned mul = *(unsigned *)args[2], n = *(unsigned *)args[3];

	if (!n) {
		return;
	}
	for (uint64_t b = first / n; b * n < end; b++) {
		if (!valid((uintptr_t)&outs[b], 8) ||
		    !valid((uintptr_t)&ins[b], 8) ||
		    !valid((uintptr_t)outs[b], n * 4ull) ||
		    !valid((uintptr_t)ins[b], n * 4ull)) {
			abort();
		}
	}
	for (uint64_t i = first; i < end; i++) {
		outs[i / n][i % n] = ins[i / n][i % n] * mul + lib->c_add;
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
	struct mtex tex = { 0, 0, 0, 0, 0 };
	const unsigned *base;

	(void)lib;
	pthread_mutex_lock(&mock_lock);
	if (t && t < 1024) {
		tex = texs[t];
	}
	pthread_mutex_unlock(&mock_lock);
	/* A texture destroyed before its kernel ran is a bug too. */
	if (!tex.live) {
		fprintf(stderr, "mock cuda: bad texture object %llu\n", t);
		abort();
	}
	base = (const unsigned *)tex.base;
	if (!valid((uintptr_t)out, n * 4ull)) {
		abort();
	}
	for (uint64_t i = first; i < end && i < n; i++) {
		out[i] = i * 4 < tex.size ? base[i] : 0;
	}
}

/* tex2d_copy(out, t, w, h): out[y * w + x] = tex2D(t, x, y) of a texture
 * over an array of 32-bit elements (element coordinates, point sampling). */
static void k_tex2d_copy(struct mlib *lib, uint64_t first, uint64_t end,
			 void **args)
{
	unsigned *out = *(unsigned **)args[0];
	unsigned long long t = *(unsigned long long *)args[1];
	unsigned w = *(unsigned *)args[2], h = *(unsigned *)args[3];
	struct mtex tex = { 0, 0, 0, 0, 0 };

	(void)lib;
	pthread_mutex_lock(&mock_lock);
	if (t && t < 1024) {
		tex = texs[t];
	}
	pthread_mutex_unlock(&mock_lock);
	if (!tex.live || !tex.width) {
		fprintf(stderr, "mock cuda: tex2d_copy: %llu is not a texture "
			"over an array\n", t);
		abort();
	}
	if (!valid((uintptr_t)out, (size_t)w * h * 4)) {
		abort();
	}
	for (uint64_t i = first; i < end && i < (uint64_t)w * h; i++) {
		uint64_t x = i % w, y = i / w;
		/* clamped, as the address mode of the tests is */
		if (x >= tex.width) {
			x = tex.width - 1;
		}
		if (y >= tex.height) {
			y = tex.height - 1;
		}
		out[i] = ((const unsigned *)tex.base)[y * tex.width + x];
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

static const struct kdesc known[] = {
	{ "_Z5scalePjPKjjj", k_scale, 4, { 0, 8, 16, 20 }, { 8, 8, 4, 4 }, 1 },
	{ "_Z4incr4span", k_incr, 1, { 0 }, { 16 }, 1 },
	{ "_Z9scale_gblPKjjj", k_scale_gbl, 3, { 0, 8, 12 }, { 8, 4, 4 }, 1 },
	{ "_Z10scale_ptrsPKPjPKPKjjj", k_scale_ptrs, 4, { 0, 8, 16, 20 },
	  { 8, 8, 4, 4 }, 1 },
	{ "_Z8tex_copyPjyj", k_tex_copy, 3, { 0, 8, 16 }, { 8, 8, 4 }, 1 },
	{ "_Z10tex2d_copyPjyjj", k_tex2d_copy, 4, { 0, 8, 16, 20 },
	  { 8, 8, 4, 4 }, 1 },
	{ "_Z4spinPVj", k_spin, 1, { 0 }, { 8 }, 0 },
};

/* Bytes of @d's parameters (their end). */
static uint32_t params_end(const struct kdesc *d)
{
	uint32_t end = 0;

	for (unsigned i = 0; i < d->nr_params; i++) {
		if (d->offset[i] + d->size[i] > end) {
			end = d->offset[i] + d->size[i];
		}
	}
	return end;
}

/* ---- the driver API ---- */

CUresult CUDAAPI cuGetErrorName(CUresult error, const char **pStr)
{
	switch (error) {
	case CUDA_SUCCESS:
		*pStr = "CUDA_SUCCESS";
		break;
	case CUDA_ERROR_NOT_FOUND:
		*pStr = "CUDA_ERROR_NOT_FOUND";
		break;
	case CUDA_ERROR_INVALID_VALUE:
		*pStr = "CUDA_ERROR_INVALID_VALUE";
		break;
	case CUDA_ERROR_INVALID_HANDLE:
		*pStr = "CUDA_ERROR_INVALID_HANDLE";
		break;
	case CUDA_ERROR_NOT_READY:
		*pStr = "CUDA_ERROR_NOT_READY";
		break;
	case CUDA_ERROR_OUT_OF_MEMORY:
		*pStr = "CUDA_ERROR_OUT_OF_MEMORY";
		break;
	case CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE:
		*pStr = "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE";
		break;
	case CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED:
		*pStr = "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED";
		break;
	default:
		*pStr = "CUDA_ERROR_UNKNOWN";
		break;
	}
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuGetErrorString(CUresult error, const char **pStr)
{
	(void)error;
	*pStr = "mock driver error";
	return CUDA_SUCCESS;
}

/* The connection to the MPS control daemon, -1: not an MPS client. */
static int mps_fd = -1;

static void mps_connect(void)
{
	const char *dir = getenv("CUDA_MPS_PIPE_DIRECTORY");
	const char *pct = getenv("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
	struct sockaddr_un a = { .sun_family = AF_UNIX };
	char hello[64];
	int fd;

	if (mps_fd >= 0) {
		return;
	}
	if (snprintf(a.sun_path, sizeof(a.sun_path), "%s/control",
		     dir && *dir ? dir : "/tmp/nvidia-mps") >=
	    (int)sizeof(a.sun_path)) {
		return;
	}
	fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (fd < 0) {
		return;
	}
	if (connect(fd, (struct sockaddr *)&a, sizeof(a)) < 0) {
		close(fd);
		return;
	}
	snprintf(hello, sizeof(hello), "client %ld %d\n", (long)getpid(),
		 pct && atoi(pct) > 0 ? atoi(pct) : 100);
	if (write(fd, hello, strlen(hello)) < 0) {
		close(fd);
		return;
	}
	mps_fd = fd;
	{
		/* The fake daemon answers with the client's number. */
		const char *skew = getenv("MOCK_CUDA_CLOCK_SKEW_NS");
		struct pollfd p = { .fd = fd, .events = POLLIN };
		char buf[32] = "";
		ssize_t n;
		if (skew && poll(&p, 1, 2000) == 1 &&
		    (n = read(fd, buf, sizeof(buf) - 1)) > 0) {
			buf[n] = 0;
			clock_skew = strtoull(buf, NULL, 10) *
				     strtoull(skew, NULL, 10);
		}
	}
}

CUresult CUDAAPI cuInit(unsigned int flags)
{
	static int offset_applied;
	uint64_t t = mock_now();

	(void)flags;
	FAIL_IF("cuInit");
	if (mock_device_knobs() < 0 || mock_va_knobs() < 0) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	mps_connect();
	if (getenv("MOCK_CUDA_CLOCK_OFFSET_NS") && !offset_applied) {
		clock_skew += strtoull(getenv("MOCK_CUDA_CLOCK_OFFSET_NS"),
				       NULL, 10);
		offset_applied = 1;
	}
	load_injection();
	api_record(1, t);	/* a record on the main thread: unattributed */
	return CUDA_SUCCESS;
}

/* One device, as cuDeviceGet says. */
CUresult CUDAAPI cuDeviceGetCount(int *count)
{
	*count = 1;
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

/* The bus id the NVML stand-in (mock_nvml.c) knows its device by. */
CUresult CUDAAPI cuDeviceGetPCIBusId(char *id, int len, CUdevice dev)
{
	if (dev != 0 || len <= 0) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	snprintf(id, (size_t)len, "00000000:01:00.0");
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
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: {
		const char *v = getenv("MOCK_CUDA_SMS");
		*pi = v && atoi(v) > 0 ? atoi(v) : 132;
		break;
	}
	case CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR:
		*pi = 2048;
		break;
	case CU_DEVICE_ATTRIBUTE_VIRTUAL_MEMORY_MANAGEMENT_SUPPORTED:
		*pi = 1;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR:
		*pi = 32;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR:
		*pi = 65536;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR:
		*pi = SMEM_PER_SM;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK:
		*pi = SMEM_PER_BLOCK;
		break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN:
		*pi = SMEM_PER_BLOCK_OPTIN;
		break;
	case CU_DEVICE_ATTRIBUTE_CAN_MAP_HOST_MEMORY:
	case CU_DEVICE_ATTRIBUTE_UNIFIED_ADDRESSING:
		*pi = 1;
		break;
	case CU_DEVICE_ATTRIBUTE_MPS_ENABLED:
		*pi = mps_fd >= 0;
		break;
	default:
		*pi = 0;
		break;
	}
	return CUDA_SUCCESS;
}

/* Contexts: mock_green.c. */

/* ---- memory ---- */

CUresult CUDAAPI cuMemHostAlloc(void **pp, size_t bytesize, unsigned int flags)
{
	void *p;

	pthread_mutex_lock(&mock_lock);
	if (nr_host_allocs == (int)(sizeof(host_allocs) /
				    sizeof(host_allocs[0]))) {
		pthread_mutex_unlock(&mock_lock);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	/* Fresh pages from the system, as the driver maps them: zeros. */
	p = calloc(1, bytesize ? bytesize : 1);
	if (p) {
		host_allocs[nr_host_allocs].start = (uintptr_t)p;
		host_allocs[nr_host_allocs].size = bytesize;
		host_allocs[nr_host_allocs].flags = flags;
		nr_host_allocs++;
	}
	pthread_mutex_unlock(&mock_lock);
	*pp = p;
	return p ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult CUDAAPI cuMemAllocHost(void **pp, size_t bytesize)
{
	return cuMemHostAlloc(pp, bytesize, 0);
}

CUresult CUDAAPI cuMemFreeHost(void *p)
{
	/* Queued copies may still read or write it. */
	mock_device_sync();
	pthread_mutex_lock(&mock_lock);
	for (int i = 0; i < nr_host_allocs; i++) {
		if (host_allocs[i].start == (uintptr_t)p) {
			host_allocs[i] = host_allocs[--nr_host_allocs];
			pthread_mutex_unlock(&mock_lock);
			free(p);
			return CUDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&mock_lock);
	return CUDA_ERROR_INVALID_VALUE;
}

CUresult CUDAAPI cuMemHostGetDevicePointer(CUdeviceptr *pdptr, void *p,
					   unsigned int Flags)
{
	int ok = 0;

	if (Flags) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&mock_lock);
	for (int i = 0; i < nr_host_allocs && !ok; i++) {
		ok = (host_allocs[i].flags & CU_MEMHOSTALLOC_DEVICEMAP) &&
		     inside((uintptr_t)p, 1, host_allocs[i].start,
			    host_allocs[i].size);
	}
	pthread_mutex_unlock(&mock_lock);
	if (!ok) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	/* Unified addressing: the device sees it at the same address. */
	*pdptr = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemAlloc(CUdeviceptr *dptr, size_t bytesize)
{
	MOCK_API(cuMemAlloc_v2);
	void *p;

	FAIL_IF("cuMemAlloc");
	p = (void *)mock_va_alloc(bytesize);
	if (!p) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	memset(p, 0xa5, bytesize);	/* like uninitialised memory */
	pthread_mutex_lock(&mock_lock);
	if (nr_allocs == (int)(sizeof(allocs) / sizeof(allocs[0]))) {
		pthread_mutex_unlock(&mock_lock);
		mock_va_free((uintptr_t)p);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	allocs[nr_allocs].start = (uintptr_t)p;
	allocs[nr_allocs].size = bytesize;
	allocs[nr_allocs].managed = 0;
	nr_allocs++;
	pthread_mutex_unlock(&mock_lock);
	*dptr = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

/*
 * Managed memory: one address for the host and the device (the host
 * reads and writes it directly), zero-filled as the driver's first
 * touch gives it, freed by cuMemFree.
 */
CUresult CUDAAPI cuMemAllocManaged(CUdeviceptr *dptr, size_t bytesize,
				   unsigned int flags)
{
	void *p;

	FAIL_IF("cuMemAllocManaged");
	if (!dptr || !bytesize || (flags != CU_MEM_ATTACH_GLOBAL &&
				   flags != CU_MEM_ATTACH_HOST)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (posix_memalign(&p, 4096, bytesize)) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	memset(p, 0, bytesize);
	pthread_mutex_lock(&mock_lock);
	if (nr_allocs == (int)(sizeof(allocs) / sizeof(allocs[0]))) {
		pthread_mutex_unlock(&mock_lock);
		free(p);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	allocs[nr_allocs].start = (uintptr_t)p;
	allocs[nr_allocs].size = bytesize;
	allocs[nr_allocs].managed = 1;
	nr_allocs++;
	pthread_mutex_unlock(&mock_lock);
	*dptr = (CUdeviceptr)(uintptr_t)p;
	return CUDA_SUCCESS;
}

/* Is [p, p + n) inside one managed allocation? */
static int managed_range(CUdeviceptr p, size_t n)
{
	int ok = 0;

	pthread_mutex_lock(&mock_lock);
	for (int i = 0; i < nr_allocs && !ok; i++) {
		ok = allocs[i].managed &&
		     inside((uintptr_t)p, n, allocs[i].start, allocs[i].size);
	}
	pthread_mutex_unlock(&mock_lock);
	return ok;
}

static int location_ok(CUmemLocation l)
{
	return (l.type == CU_MEM_LOCATION_TYPE_DEVICE && l.id == 0) ||
	       l.type == CU_MEM_LOCATION_TYPE_HOST ||
	       l.type == CU_MEM_LOCATION_TYPE_HOST_NUMA_CURRENT;
}

/* A prefetch moves pages in stream order: a command that does nothing
 * here (host and device share the pages), but is ordered like one. */
CUresult CUDAAPI cuMemPrefetchAsync(CUdeviceptr devPtr, size_t count,
				    CUmemLocation location, unsigned int flags,
				    CUstream hStream)
{
	struct mock_cmd *c;
	CUresult rc;

	if (flags || !count || !location_ok(location) ||
	    !managed_range(devPtr, count)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	rc = mock_enqueue(hStream, c);
	if (rc != CUDA_SUCCESS) {
		free(c);
	}
	return rc;
}

/*
 * As CUDA checks: @dptr is the start of a managed allocation, @length 0
 * (the whole of it) or within it, @flags one of the attach flags; the
 * association changes in @hStream's order (the mock runs no command for
 * it: every stream may use managed memory here, as on a GPU with
 * concurrent managed access).
 */
CUresult CUDAAPI cuStreamAttachMemAsync(CUstream hStream, CUdeviceptr dptr,
					size_t length, unsigned int flags)
{
	int ok = 0;

	if (flags != CU_MEM_ATTACH_GLOBAL && flags != CU_MEM_ATTACH_HOST &&
	    flags != CU_MEM_ATTACH_SINGLE) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (flags == CU_MEM_ATTACH_SINGLE &&
	    (!hStream || hStream == CU_STREAM_LEGACY)) {
		return CUDA_ERROR_INVALID_VALUE;	/* a stream of its own */
	}
	pthread_mutex_lock(&mock_lock);
	for (int i = 0; i < nr_allocs && !ok; i++) {
		ok = allocs[i].managed && allocs[i].start == dptr &&
		     length <= allocs[i].size;
	}
	pthread_mutex_unlock(&mock_lock);
	if (!ok) {
		fprintf(stderr, "mock cuda: cuStreamAttachMemAsync: 0x%lx is "
			"not the start of managed memory\n",
			(unsigned long)dptr);
		return CUDA_ERROR_INVALID_VALUE;
	}
	return mock_stream_ctx(hStream) || !hStream ||
		       hStream == CU_STREAM_LEGACY ? CUDA_SUCCESS :
						     CUDA_ERROR_INVALID_HANDLE;
}

CUresult CUDAAPI cuMemAdvise(CUdeviceptr devPtr, size_t count,
			     CUmem_advise advice, CUmemLocation location)
{
	int needs_location = advice != CU_MEM_ADVISE_SET_READ_MOSTLY &&
			     advice != CU_MEM_ADVISE_UNSET_READ_MOSTLY;

	if (!count || advice < CU_MEM_ADVISE_SET_READ_MOSTLY ||
	    advice > CU_MEM_ADVISE_UNSET_ACCESSED_BY ||
	    (needs_location && !location_ok(location)) ||
	    !managed_range(devPtr, count)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuMemFree(CUdeviceptr dptr)
{
	MOCK_API(cuMemFree_v2);
	/* As CUDA does: queued work may still use the memory. */
	mock_device_sync();
	pthread_mutex_lock(&mock_lock);
	for (int i = 0; i < nr_allocs; i++) {
		if (allocs[i].start == dptr) {
			int managed = allocs[i].managed;
			allocs[i] = allocs[--nr_allocs];
			pthread_mutex_unlock(&mock_lock);
			if (managed) {
				free((void *)(uintptr_t)dptr);
			} else {
				mock_va_free(dptr);
			}
			return CUDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&mock_lock);
	return CUDA_ERROR_INVALID_VALUE;
}

/* ---- code ---- */

CUresult CUDAAPI cuLibraryLoadData(CUlibrary *library, const void *code,
				   CUjit_option *jitOptions,
				   void **jitOptionsValues,
				   unsigned int numJitOptions,
				   CUlibraryOption *libraryOptions,
				   void **libraryOptionValues,
				   unsigned int numLibraryOptions)
{
	struct mlib *l;

	(void)code;
	(void)jitOptions;
	(void)jitOptionsValues;
	(void)numJitOptions;
	(void)libraryOptions;
	(void)libraryOptionValues;
	(void)numLibraryOptions;
	FAIL_IF("cuLibraryLoadData");
	mock_slow("cuLibraryLoadData");
	l = calloc(1, sizeof(*l));
	if (!l) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	l->magic = 0x11b;
	pthread_mutex_lock(&mock_lock);
	if (nr_libs == (int)(sizeof(libs) / sizeof(libs[0]))) {
		pthread_mutex_unlock(&mock_lock);
		free(l);
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	libs[nr_libs++] = l;
	pthread_mutex_unlock(&mock_lock);
	*library = (CUlibrary)l;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryUnload(CUlibrary library)
{
	struct mlib *l = (struct mlib *)library;

	pthread_mutex_lock(&mock_lock);
	l->magic = 0;	/* kept: records and queued launches name its kernels */
	pthread_mutex_unlock(&mock_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryGetKernel(CUkernel *pKernel, CUlibrary library,
				    const char *name)
{
	struct mlib *l = (struct mlib *)library;
	CUresult r = CUDA_ERROR_NOT_FOUND;

	FAIL_IF("cuLibraryGetKernel");
	pthread_mutex_lock(&mock_lock);
	for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++) {
		if (!strcmp(known[i].name, name) && l->nr_kernels < 8) {
			struct mkernel *k = calloc(1, sizeof(*k));
			if (!k) {
				r = CUDA_ERROR_OUT_OF_MEMORY;
				break;
			}
			k->magic = KERNEL_MAGIC;
			k->d = &known[i];
			k->lib = l;
			l->kernels[l->nr_kernels++] = k;
			*pKernel = (CUkernel)k;
			r = CUDA_SUCCESS;
			break;
		}
	}
	pthread_mutex_unlock(&mock_lock);
	return r;
}

/* A parameter's offset and size; CUDA_ERROR_INVALID_VALUE past the last
 * one (the capture library reads layouts this way). */
CUresult CUDAAPI cuKernelGetParamInfo(CUkernel kernel, size_t index,
				      size_t *offset, size_t *size)
{
	struct mkernel *k = (struct mkernel *)kernel;

	if (!k || k->magic != KERNEL_MAGIC) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	if (index >= k->d->nr_params || !offset) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	*offset = k->d->offset[index];
	if (size) {
		*size = k->d->size[index];
	}
	return CUDA_SUCCESS;
}

/* The function of @kernel in the calling thread's current context. */
CUresult CUDAAPI cuKernelGetFunction(CUfunction *pFunc, CUkernel kernel)
{
	struct mkernel *k = (struct mkernel *)kernel;
	struct mctx *ctx = mock_current_ctx();
	struct mfunc *f;

	if (!k || k->magic != KERNEL_MAGIC) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	pthread_mutex_lock(&mock_lock);
	for (f = k->funcs; f && f->ctx != ctx; f = f->next) {
	}
	if (!f && (f = calloc(1, sizeof(*f)))) {
		f->magic = FUNC_MAGIC;
		f->k = k;
		f->ctx = ctx;
		f->max_dynamic_smem = SMEM_PER_BLOCK;
		f->next = k->funcs;
		k->funcs = f;
	}
	pthread_mutex_unlock(&mock_lock);
	if (!f) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	*pFunc = (CUfunction)f;
	return CUDA_SUCCESS;
}

/*
 * What the capture library asks of a handle no traced call named (a
 * kernel from the driver's export table, as cuFFT's): its name, its
 * library or module, its parameters.
 */
CUresult CUDAAPI cuKernelGetName(const char **name, CUkernel kernel)
{
	struct mkernel *k = (struct mkernel *)kernel;

	if (!k || k->magic != KERNEL_MAGIC || !name) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	*name = k->d->name;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuKernelGetLibrary(CUlibrary *lib, CUkernel kernel)
{
	struct mkernel *k = (struct mkernel *)kernel;

	if (!k || k->magic != KERNEL_MAGIC || !lib) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	*lib = (CUlibrary)k->lib;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuLibraryGetModule(CUmodule *mod, CUlibrary library)
{
	struct mlib *l = (struct mlib *)library;

	if (!l || l->magic != 0x11b || !mod) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	*mod = (CUmodule)&l->module;
	return CUDA_SUCCESS;
}

static struct mfunc *func_of(CUfunction f)
{
	struct mfunc *m = (struct mfunc *)f;

	return m && m->magic == FUNC_MAGIC ? m : NULL;
}

CUresult CUDAAPI cuFuncGetName(const char **name, CUfunction hfunc)
{
	struct mfunc *f = func_of(hfunc);

	if (!f || !name) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	*name = f->k->d->name;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetModule(CUmodule *mod, CUfunction hfunc)
{
	struct mfunc *f = func_of(hfunc);

	if (!f || !mod) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	*mod = (CUmodule)&f->k->lib->module;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuFuncGetParamInfo(CUfunction hfunc, size_t index,
				    size_t *offset, size_t *size)
{
	struct mfunc *f = func_of(hfunc);

	if (!f) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	return cuKernelGetParamInfo((CUkernel)f->k, index, offset, size);
}

/*
 * The dynamic shared memory limit is kept and checked at each launch (a
 * value the device cannot give is refused, as the driver does); the
 * other attributes are taken and ignored.
 */
CUresult CUDAAPI cuFuncSetAttribute(CUfunction hfunc, CUfunction_attribute attrib,
				    int value)
{
	struct mfunc *f = func_of(hfunc);

	if (!f) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	if (attrib != CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES) {
		return CUDA_SUCCESS;
	}
	/* (the mock's kernels have no static shared memory to subtract) */
	if (value < 0 || value > SMEM_PER_BLOCK_OPTIN) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&mock_lock);
	f->max_dynamic_smem = value;
	pthread_mutex_unlock(&mock_lock);
	return CUDA_SUCCESS;
}

/* The dynamic shared memory a launch of @fn (a CUfunction, or the
 * CUkernel @k cast) in @ctx may take. */
static int dynamic_smem_limit(struct mfunc *fn, struct mkernel *k,
			      struct mctx *ctx)
{
	int limit = SMEM_PER_BLOCK;

	pthread_mutex_lock(&mock_lock);
	if (fn && fn->magic == FUNC_MAGIC) {
		limit = fn->max_dynamic_smem;
	} else {
		for (struct mfunc *f = k->funcs; f; f = f->next) {
			if (f->ctx == ctx) {
				limit = f->max_dynamic_smem;
				break;
			}
		}
	}
	pthread_mutex_unlock(&mock_lock);
	return limit;
}

CUresult CUDAAPI cuLibraryGetGlobal(CUdeviceptr *dptr, size_t *bytes,
				    CUlibrary library, const char *name)
{
	struct mlib *l = (struct mlib *)library;

	if (!strcmp(name, "g_out")) {
		*dptr = (CUdeviceptr)(uintptr_t)&l->g_out;
		*bytes = 8;
		return CUDA_SUCCESS;
	}
	if (strcmp(name, "c_add")) {
		return CUDA_ERROR_NOT_FOUND;
	}
	*dptr = (CUdeviceptr)(uintptr_t)&l->c_add;
	*bytes = 4;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuOccupancyMaxActiveBlocksPerMultiprocessor(int *numBlocks,
							    CUfunction func,
							    int blockSize,
							    size_t dynamicSMemSize)
{
	size_t smem;
	int n;

	(void)func;
	FAIL_IF("cuOccupancyMaxActiveBlocksPerMultiprocessor");
	if (blockSize <= 0 || blockSize > 1024) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	n = 2048 / blockSize < 32 ? 2048 / blockSize : 32;
	/* A block's shared memory: its dynamic size (no static), the
	 * device's reserved KiB, in allocation units; none fits above the
	 * opt-in limit. */
	smem = (dynamicSMemSize + SMEM_RESERVED_PER_BLOCK + SMEM_ALLOC_UNIT - 1) /
	       SMEM_ALLOC_UNIT * SMEM_ALLOC_UNIT;
	if (dynamicSMemSize > SMEM_PER_BLOCK_OPTIN) {
		n = 0;
	} else if ((size_t)n > SMEM_PER_SM / smem) {
		n = (int)(SMEM_PER_SM / smem);
	}
	*numBlocks = n;
	return CUDA_SUCCESS;
}

/* ---- copies and memsets ---- */

struct copy_cmd {
	struct mock_cmd c;
	uint8_t kind;		/* CUPTI_ACTIVITY_MEMCPY_KIND_* */
	void *dst;
	const void *src;
	size_t n;
	unsigned char staged[];	/* a pageable source, copied at the call */
};

static void copy_exec(struct mock_cmd *c)
{
	struct copy_cmd *m = (struct copy_cmd *)c;

	memmove(m->dst, m->src, m->n);
}

static void copy_rebase(struct mock_cmd *c, const struct mock_cmd *from)
{
	struct copy_cmd *m = (struct copy_cmd *)c;
	const struct copy_cmd *f = (const struct copy_cmd *)from;

	if (f->src == f->staged) {
		m->src = m->staged;
	}
}

static void copy_done(struct mock_cmd *c, uint64_t start, uint64_t end)
{
	struct copy_cmd *m = (struct copy_cmd *)c;
	CUpti_ActivityMemcpy6 r;

	if (!act.kinds[CUPTI_ACTIVITY_KIND_MEMCPY]) {
		return;
	}
	memset(&r, 0, sizeof(r));
	r.kind = CUPTI_ACTIVITY_KIND_MEMCPY;
	r.copyKind = m->kind;
	r.bytes = m->n;
	r.start = start;
	r.end = end;
	r.streamId = c->stream_id;
	r.contextId = c->ctx_id;
	r.correlationId = c->corr;
	add_record(&r, sizeof(r));
}

/*
 * Queue the copy of @n bytes from @src to @dst on @s, made by the call
 * @cbid that began at @t0; @stage: take the source bytes now, as CUDA
 * stages a pageable source.
 */
static CUresult queue_copy(uint8_t kind, void *dst, const void *src, size_t n,
			   int stage, CUstream s, uint32_t cbid, uint64_t t0)
{
	struct copy_cmd *m = malloc(sizeof(*m) + (stage ? n : 0));
	CUresult r;

	if (!m) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	memset(m, 0, sizeof(*m));
	m->c.exec = copy_exec;
	m->c.done = copy_done;
	m->c.size = sizeof(*m) + (stage ? n : 0);
	m->c.rebase = copy_rebase;
	m->c.call_ns = t0;
	m->kind = kind;
	m->dst = dst;
	m->src = src;
	m->n = n;
	if (stage) {
		memcpy(m->staged, src, n);
		m->src = m->staged;
	}
	m->c.corr = api_record(cbid, t0);
	mock_call_log("copy", n, t0);
	r = mock_enqueue(s, &m->c);
	if (r != CUDA_SUCCESS) {
		free(m);
	}
	return r;
}

struct mock_cmd *mock_copy_cmd(uint8_t kind, void *dst, const void *src,
			       size_t n)
{
	struct copy_cmd *m = calloc(1, sizeof(*m));

	if (!m) {
		return NULL;
	}
	m->c.exec = copy_exec;
	m->c.done = copy_done;
	m->c.size = sizeof(*m);
	m->c.rebase = copy_rebase;
	m->kind = kind;
	m->dst = dst;
	m->src = src;
	m->n = n;
	return &m->c;
}

int mock_valid_device(uintptr_t p, size_t n)
{
	return valid(p, n);
}

CUresult CUDAAPI cuMemcpyHtoDAsync(CUdeviceptr dst, const void *src,
				   size_t n, CUstream s)
{
	MOCK_API(cuMemcpyHtoDAsync_v2);
	uint64_t t0 = mock_now();

	if (!valid(dst, n)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	return queue_copy(CUPTI_ACTIVITY_MEMCPY_KIND_HTOD,
			  (void *)(uintptr_t)dst, src, n, !page_locked(src, n),
			  s, 279, t0);
}

/* MOCK_CUDA_D2H_PAGES: the residency of a result's pages at its call. */
static void log_d2h_pages(const void *dst, size_t n)
{
	const char *path = getenv("MOCK_CUDA_D2H_PAGES");
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
	uintptr_t first = (uintptr_t)dst & ~(page - 1);
	size_t pages = ((uintptr_t)dst + n - first + page - 1) / page;
	unsigned char *vec;
	size_t resident = 0;
	FILE *f;

	if (!path || !*path || !n || page_locked(dst, n)) {
		return;
	}
	vec = malloc(pages);
	if (!vec || mincore((void *)first, pages * page, vec)) {
		free(vec);
		return;
	}
	for (size_t i = 0; i < pages; i++) {
		resident += vec[i] & 1;
	}
	free(vec);
	f = fopen(path, "a");
	if (f) {
		fprintf(f, "%zu %zu %zu\n", n, resident, pages);
		fclose(f);
	}
}

CUresult CUDAAPI cuMemcpyDtoHAsync(void *dst, CUdeviceptr src, size_t n,
				   CUstream s)
{
	MOCK_API(cuMemcpyDtoHAsync_v2);
	uint64_t t0 = mock_now();

	if (!valid(src, n)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	log_d2h_pages(dst, n);
	return queue_copy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, dst,
			  (const void *)(uintptr_t)src, n, 0, s, 281, t0);
}

/* Synchronous: a copy on the legacy stream (after the blocking streams'
 * work), returning once the destination holds the result. */
CUresult CUDAAPI cuMemcpyDtoH(void *dst, CUdeviceptr src, size_t n)
{
	MOCK_API(cuMemcpyDtoH_v2);
	uint64_t t0 = mock_now();
	CUresult r;

	if (!valid(src, n)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	r = queue_copy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOH, dst,
		       (const void *)(uintptr_t)src, n, 0, NULL,
		       CUPTI_DRIVER_TRACE_CBID_cuMemcpyDtoH_v2, t0);
	return r == CUDA_SUCCESS ? cuStreamSynchronize(NULL) : r;
}

CUresult CUDAAPI cuMemcpyDtoDAsync(CUdeviceptr dst, CUdeviceptr src, size_t n,
				   CUstream s)
{
	MOCK_API(cuMemcpyDtoDAsync_v2);
	uint64_t t0 = mock_now();

	if (!valid(dst, n) || !valid(src, n)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	return queue_copy(CUPTI_ACTIVITY_MEMCPY_KIND_DTOD,
			  (void *)(uintptr_t)dst, (const void *)(uintptr_t)src,
			  n, 0, s, 283, t0);
}

struct memset_cmd {
	struct mock_cmd c;
	uint8_t *dst;
	unsigned value, width;
	size_t n;		/* elements */
};

static void memset_exec(struct mock_cmd *c)
{
	struct memset_cmd *m = (struct memset_cmd *)c;

	for (size_t i = 0; i < m->n; i++) {
		uint8_t *p = m->dst + i * m->width;
		if (m->width == 1) {
			*p = (uint8_t)m->value;
		} else if (m->width == 2) {
			uint16_t x = (uint16_t)m->value;
			memcpy(p, &x, 2);
		} else {
			memcpy(p, &m->value, 4);
		}
	}
}

static void memset_done(struct mock_cmd *c, uint64_t start, uint64_t end)
{
	struct memset_cmd *m = (struct memset_cmd *)c;
	CUpti_ActivityMemset4 r;

	if (!act.kinds[CUPTI_ACTIVITY_KIND_MEMSET]) {
		return;
	}
	memset(&r, 0, sizeof(r));
	r.kind = CUPTI_ACTIVITY_KIND_MEMSET;
	r.value = m->value;
	r.bytes = m->n * m->width;
	r.start = start;
	r.end = end;
	r.streamId = c->stream_id;
	r.contextId = c->ctx_id;
	r.correlationId = c->corr;
	add_record(&r, sizeof(r));
}

struct mock_cmd *mock_memset_cmd(CUdeviceptr dst, unsigned v, size_t n,
				 unsigned w)
{
	struct memset_cmd *m = calloc(1, sizeof(*m));

	if (!m) {
		return NULL;
	}
	m->c.exec = memset_exec;
	m->c.done = memset_done;
	m->c.size = sizeof(*m);
	m->dst = (uint8_t *)(uintptr_t)dst;
	m->value = v;
	m->width = w;
	m->n = n;
	return &m->c;
}

static CUresult memset_n(CUdeviceptr dst, unsigned v, size_t n, unsigned w,
			 CUstream s)
{
	uint64_t t0 = mock_now();
	struct mock_cmd *c;
	CUresult r;

	if (!valid(dst, n * w)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	c = mock_memset_cmd(dst, v, n, w);
	if (!c) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	c->call_ns = t0;
	c->corr = api_record(285, t0);
	mock_call_log("memset", (uint64_t)n * w, t0);
	r = mock_enqueue(s, c);
	if (r != CUDA_SUCCESS) {
		free(c);
	}
	return r;
}

CUresult CUDAAPI cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n,
				 CUstream s)
{
	MOCK_API(cuMemsetD8Async);
	return memset_n(d, v, n, 1, s);
}

CUresult CUDAAPI cuMemsetD16Async(CUdeviceptr d, unsigned short v, size_t n,
				  CUstream s)
{
	MOCK_API(cuMemsetD16Async);
	return memset_n(d, v, n, 2, s);
}

CUresult CUDAAPI cuMemsetD32Async(CUdeviceptr d, unsigned int v, size_t n,
				  CUstream s)
{
	MOCK_API(cuMemsetD32Async);
	return memset_n(d, v, n, 4, s);
}

/* ---- kernel launches ---- */

_Static_assert(sizeof(struct gm_elastic_args) == GM_ELASTIC_PARAM_SIZE,
	       "the elastic parameter is one struct gm_elastic_args");

/* A launch, with its own copy of the parameter values. */
struct kernel_cmd {
	struct mock_cmd c;
	struct mkernel *k;
	unsigned g[3], b[3], smem;
	unsigned sms;		/* of the stream's context */
	int elastic;
	struct gm_elastic_args el;
	void *args[MAX_PARAMS + 1];
	uint64_t params[MAX_PARAM_BYTES / 8];
};

/*
 * The completion notification of the transformed kernel: thread 0 of
 * each physical block adds one to the count, and the block that sees the
 * last value resets it and sets the flag.
 */
static void notify(const struct kernel_cmd *kc)
{
	uint32_t *count = (uint32_t *)(uintptr_t)kc->el.done_count;
	uint32_t *flag = (uint32_t *)(uintptr_t)kc->el.done_flag;
	uint64_t blocks = (uint64_t)kc->g[0] * kc->g[1] * kc->g[2];
	uint32_t last = (uint32_t)(blocks - 1);
	uint32_t before = __atomic_load_n(count, __ATOMIC_RELAXED);

	if (before) {
		fprintf(stderr, "mock cuda: %s: done_count is %u before the "
			"launch: done_flag is set early or never\n",
			kc->k->d->name, before);
	}
	for (uint64_t b = 0; b < blocks; b++) {
		if (__atomic_fetch_add(count, 1, __ATOMIC_RELAXED) == last) {
			__atomic_store_n(count, 0, __ATOMIC_RELAXED);
			__atomic_store_n(flag, 1, __ATOMIC_RELEASE);
		}
	}
}

/*
 * MOCK_CUDA_WAVE_US: a kernel takes that long per wave of blocks, one
 * block per SM of its context at a time, so that its time depends on its
 * partition's size as a GPU's does (gpumix scale's test).
 */
static void wave_time(const struct kernel_cmd *kc)
{
	const char *v = getenv("MOCK_CUDA_WAVE_US");
	uint64_t blocks = (uint64_t)kc->g[0] * kc->g[1] * kc->g[2];
	uint64_t waves, ns;
	struct timespec ts;

	if (!v || atoi(v) <= 0 || !kc->sms) {
		return;
	}
	waves = (blocks + kc->sms - 1) / kc->sms;
	ns = waves * (uint64_t)atoi(v) * 1000u;
	ts.tv_sec = (time_t)(ns / 1000000000u);
	ts.tv_nsec = (long)(ns % 1000000000u);
	while (nanosleep(&ts, &ts)) {
	}
}

/*
 * The block probe of the transformed kernel: a record per logical block
 * of the range, in slot block - offset, below probe_cap. Blocks run one
 * per SM of the context at a time, in waves of MOCK_CUDA_WAVE_US (1 us
 * by default) from @t0, on the mock clock.
 */
static void probe_records(const struct kernel_cmd *kc, uint64_t lo,
			  uint64_t hi, uint64_t t0)
{
	struct gm_probe_rec *rec = (struct gm_probe_rec *)(uintptr_t)kc->el.probe;
	const char *v = getenv("MOCK_CUDA_WAVE_US");
	uint64_t wave_ns = v && atoi(v) > 0 ? (uint64_t)atoi(v) * 1000u : 1000u;
	unsigned sms = kc->sms ? kc->sms : 1;

	for (uint64_t b = lo; b < hi && b - lo < kc->el.probe_cap; b++) {
		uint64_t i = b - lo;
		rec[i].start = t0 + (i / sms) * wave_ns;
		rec[i].dur = (uint32_t)wave_ns;
		rec[i].sm = (uint32_t)(i % sms);
	}
}

static void kernel_exec(struct mock_cmd *c)
{
	struct kernel_cmd *kc = (struct kernel_cmd *)c;
	const struct kdesc *d = kc->k->d;
	uint64_t threads = (uint64_t)kc->b[0] * kc->b[1] * kc->b[2];
	uint64_t t0 = mock_now();

	wave_time(kc);

	if (!kc->elastic) {
		d->fn(kc->k->lib, 0,
		      (uint64_t)kc->g[0] * kc->g[1] * kc->g[2] * threads,
		      kc->args);
		return;
	}
	{
		const struct gm_elastic_args *a = &kc->el;
		uint64_t total = (uint64_t)a->grid[0] * a->grid[1] * a->grid[2];
		uint64_t lo = a->offset < total ? a->offset : total;
		uint64_t hi = lo + (a->limit < total - lo ? a->limit :
							    total - lo);
		d->fn(kc->k->lib, lo * threads, hi * threads, kc->args);
		if (a->probe) {
			probe_records(kc, lo, hi, t0);
		}
	}
	if (kc->el.done_flag) {
		notify(kc);
	}
}

static void kernel_done(struct mock_cmd *c, uint64_t start, uint64_t end)
{
	struct kernel_cmd *kc = (struct kernel_cmd *)c;
	CUpti_ActivityKernel10 r;

	if (!act.kinds[CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL]) {
		return;
	}
	memset(&r, 0, sizeof(r));
	r.kind = CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL;
	r.start = start;
	r.end = end;
	r.queued = act.latency ? c->call_ns : CUPTI_TIMESTAMP_UNKNOWN;
	r.submitted = !act.latency ? CUPTI_TIMESTAMP_UNKNOWN :
		      c->call_ns + 500 < start ? c->call_ns + 500 : start;
	r.deviceId = 0;
	r.streamId = c->stream_id;
	r.contextId = c->ctx_id;
	r.gridX = (int32_t)kc->g[0];
	r.gridY = (int32_t)kc->g[1];
	r.gridZ = (int32_t)kc->g[2];
	r.blockX = (int32_t)kc->b[0];
	r.blockY = (int32_t)kc->b[1];
	r.blockZ = (int32_t)kc->b[2];
	r.registersPerThread = 32;
	r.dynamicSharedMemory = (int32_t)kc->smem;
	r.correlationId = c->corr;
	r.name = kc->k->d->name;
	add_record(&r, sizeof(r));
}

/* The parameter buffer of @extra (CU_LAUNCH_PARAM_*); 0 or -1. */
static int param_buffer(void **extra, const uint8_t **buf, size_t *size)
{
	const size_t *sz = NULL;

	*buf = NULL;
	for (size_t i = 0; extra[i] != CU_LAUNCH_PARAM_END; i += 2) {
		if (extra[i] == CU_LAUNCH_PARAM_BUFFER_POINTER) {
			*buf = extra[i + 1];
		} else if (extra[i] == CU_LAUNCH_PARAM_BUFFER_SIZE) {
			sz = extra[i + 1];
		} else {
			return -1;
		}
	}
	if (!*buf || !sz) {
		return -1;
	}
	*size = *sz;
	return 0;
}

/*
 * Take the parameter values of a launch of @kc->k from @params or @extra
 * into @kc, as CUDA does at the call. Returns CUDA_SUCCESS or
 * CUDA_ERROR_INVALID_VALUE (with a message).
 */
static CUresult take_params(struct kernel_cmd *kc, void **params, void **extra)
{
	const struct kdesc *d = kc->k->d;
	uint8_t *bytes = (uint8_t *)kc->params;
	uint32_t end = params_end(d);
	uint32_t el_at = (end + GM_ELASTIC_PARAM_ALIGN - 1) &
			 ~(uint32_t)(GM_ELASTIC_PARAM_ALIGN - 1);

	if (params && extra) {
		fprintf(stderr, "mock cuda: %s: both kernelParams and extra\n",
			d->name);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (params) {
		for (unsigned i = 0; i < d->nr_params; i++) {
			memcpy(bytes + d->offset[i], params[i], d->size[i]);
		}
		if (params[d->nr_params]) {
			memcpy(&kc->el, params[d->nr_params], sizeof(kc->el));
			kc->elastic = 1;
		}
	} else if (extra) {
		const uint8_t *buf;
		size_t size;
		if (param_buffer(extra, &buf, &size) < 0 || size < end) {
			fprintf(stderr, "mock cuda: %s: bad parameter buffer "
				"(%u bytes of parameters)\n", d->name, end);
			return CUDA_ERROR_INVALID_VALUE;
		}
		memcpy(bytes, buf, end);
		if (size >= el_at + GM_ELASTIC_PARAM_SIZE) {
			memcpy(&kc->el, buf + el_at, sizeof(kc->el));
			kc->elastic = 1;
		}
	} else if (d->nr_params) {
		fprintf(stderr, "mock cuda: %s: no parameters\n", d->name);
		return CUDA_ERROR_INVALID_VALUE;
	}
	for (unsigned i = 0; i < d->nr_params; i++) {
		kc->args[i] = bytes + d->offset[i];
	}
	kc->args[d->nr_params] = kc->elastic ? &kc->el : NULL;
	return CUDA_SUCCESS;
}

/* The elastic arguments of @kc, checked as the launch is made. */
static CUresult check_elastic(const struct kernel_cmd *kc)
{
	const struct gm_elastic_args *a = &kc->el;
	const unsigned *b = kc->b;

	if (!kc->k->d->thread_elastic &&
	    (uint64_t)a->block[0] * a->block[1] * a->block[2] !=
	    (uint64_t)b[0] * b[1] * b[2]) {
		fprintf(stderr, "mock cuda: %s: block of %u x %u x %u "
			"threads, the elastic arguments say %u x %u x %u\n",
			kc->k->d->name, b[0], b[1], b[2], a->block[0],
			a->block[1], a->block[2]);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (a->probe && (!a->probe_cap ||
			 !valid(a->probe, (size_t)a->probe_cap *
					  sizeof(struct gm_probe_rec)))) {
		fprintf(stderr, "mock cuda: %s: probe 0x%llx for %u records is "
			"not device memory\n", kc->k->d->name,
			(unsigned long long)a->probe, a->probe_cap);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (a->done_flag && (!valid(a->done_flag, 4) ||
			     !valid(a->done_count, 4))) {
		fprintf(stderr, "mock cuda: %s: done_flag 0x%llx or done_count "
			"0x%llx is not device memory\n", kc->k->d->name,
			(unsigned long long)a->done_flag,
			(unsigned long long)a->done_count);
		return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

/* A copy of a kernel command points its arguments into its own bytes. */
static void kernel_rebase(struct mock_cmd *c, const struct mock_cmd *from)
{
	struct kernel_cmd *kc = (struct kernel_cmd *)c;
	const struct kernel_cmd *f = (const struct kernel_cmd *)from;
	unsigned n = kc->k->d->nr_params;

	for (unsigned i = 0; i < n; i++) {
		kc->args[i] = (uint8_t *)kc->params +
			      ((const uint8_t *)f->args[i] -
			       (const uint8_t *)f->params);
	}
	kc->args[n] = kc->elastic ? &kc->el : NULL;
}

int mock_cmd_is_kernel(const struct mock_cmd *c)
{
	return c && c->rebase == kernel_rebase;
}

CUresult mock_kernel_cmd(CUfunction f, const unsigned g[3], const unsigned b[3],
			 unsigned smem, struct mctx *ctx, void **params,
			 void **extra, struct mock_cmd **out)
{
	struct mfunc *fn = (struct mfunc *)f;
	struct mkernel *k = NULL;
	struct kernel_cmd *kc;
	CUresult r;

	*out = NULL;
	if (!fn || !ctx) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	/* A CUkernel (cast) runs in the stream's context; a CUfunction only
	 * in its own. */
	if (fn->magic == FUNC_MAGIC) {
		if (fn->ctx != ctx) {
			return CUDA_ERROR_INVALID_HANDLE;
		}
		k = fn->k;
	} else if (((struct mkernel *)f)->magic == KERNEL_MAGIC) {
		k = (struct mkernel *)f;
	}
	if (!k || !k->d) {
		return CUDA_ERROR_INVALID_HANDLE;
	}
	for (int i = 0; i < 3; i++) {
		if (!g[i] || !b[i]) {
			return CUDA_ERROR_INVALID_VALUE;
		}
	}
	/* More dynamic shared memory than the function opted in for: the
	 * driver refuses the launch. */
	if (smem > (unsigned)dynamic_smem_limit(fn, k, ctx)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	kc = calloc(1, sizeof(*kc));
	if (!kc) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	kc->c.exec = kernel_exec;
	kc->c.done = kernel_done;
	kc->c.size = sizeof(*kc);
	kc->c.rebase = kernel_rebase;
	kc->k = k;
	kc->sms = mock_ctx_sms(ctx);
	memcpy(kc->g, g, sizeof(kc->g));
	memcpy(kc->b, b, sizeof(kc->b));
	kc->smem = smem;
	r = take_params(kc, params, extra);
	if (r == CUDA_SUCCESS && kc->elastic) {
		r = check_elastic(kc);
	}
	if (r != CUDA_SUCCESS) {
		free(kc);
		return r;
	}
	*out = &kc->c;
	return CUDA_SUCCESS;
}

static CUresult launch(CUfunction f, const unsigned g[3], const unsigned b[3],
		       unsigned smem, CUstream s, void **params, void **extra,
		       int cooperative)
{
	uint64_t t0 = mock_now();
	struct mctx *ctx = mock_stream_ctx(s);
	struct mock_cmd *c;
	CUresult r;

	FAIL_IF("cuLaunchKernel");
	mock_slow("cuLaunchKernel");	/* (a full launch queue, say) */
	r = mock_kernel_cmd(f, g, b, smem, ctx, params, extra, &c);
	if (r != CUDA_SUCCESS) {
		return r;
	}
	/* A cooperative grid must be resident at once, as the driver checks:
	 * at most the occupancy's blocks per SM (its shared memory counted)
	 * on each SM of the context. */
	if (cooperative && ctx) {
		int per_sm = 0;
		uint64_t blocks = (uint64_t)g[0] * g[1] * g[2];
		r = cuOccupancyMaxActiveBlocksPerMultiprocessor(
			&per_sm, f, (int)(b[0] * b[1] * b[2]), smem);
		if (r == CUDA_SUCCESS &&
		    blocks > (uint64_t)per_sm * mock_ctx_sms(ctx)) {
			r = CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;
		}
		if (r != CUDA_SUCCESS) {
			free(c);
			return r;
		}
	}
	c->call_ns = t0;
	c->corr = api_record(307, t0);
	mock_call_log("launch", 0, t0);
	r = mock_enqueue(s, c);
	if (r != CUDA_SUCCESS) {
		free(c);
	}
	return r;
}

CUresult CUDAAPI cuLaunchKernel(CUfunction f, unsigned int gx, unsigned int gy,
				unsigned int gz, unsigned int bx, unsigned int by,
				unsigned int bz, unsigned int smem, CUstream s,
				void **kernelParams, void **extra)
{
	MOCK_API(cuLaunchKernel);
	unsigned g[3] = { gx, gy, gz }, b[3] = { bx, by, bz };

	return launch(f, g, b, smem, s, kernelParams, extra, 0);
}

CUresult CUDAAPI cuLaunchKernelEx(const CUlaunchConfig *config, CUfunction f,
				  void **kernelParams, void **extra)
{
	MOCK_API(cuLaunchKernelEx);
	unsigned g[3] = { config->gridDimX, config->gridDimY, config->gridDimZ };
	unsigned b[3] = { config->blockDimX, config->blockDimY,
			  config->blockDimZ };
	int coop = 0;

	for (unsigned i = 0; i < config->numAttrs && config->attrs; i++) {
		coop |= config->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE &&
			config->attrs[i].value.cooperative;
	}
	return launch(f, g, b, config->sharedMemBytes, config->hStream,
		      kernelParams, extra, coop);
}

/* ---- texture objects ---- */

CUresult CUDAAPI cuTexObjectCreate(CUtexObject *pTexObject,
				   const CUDA_RESOURCE_DESC *pResDesc,
				   const CUDA_TEXTURE_DESC *pTexDesc,
				   const CUDA_RESOURCE_VIEW_DESC *pResViewDesc)
{
	uintptr_t base;
	size_t size, width = 0, height = 0;

	(void)pTexDesc;
	(void)pResViewDesc;
	if (pResDesc->resType == CU_RESOURCE_TYPE_LINEAR) {
		base = pResDesc->res.linear.devPtr;
		size = pResDesc->res.linear.sizeInBytes;
	} else if (pResDesc->resType == CU_RESOURCE_TYPE_PITCH2D) {
		base = pResDesc->res.pitch2D.devPtr;
		size = pResDesc->res.pitch2D.pitchInBytes *
		       pResDesc->res.pitch2D.height;
	} else if (pResDesc->resType == CU_RESOURCE_TYPE_ARRAY) {
		if (mock_array_span(pResDesc->res.array.hArray, &base, &size,
				    &width, &height) < 0) {
			return CUDA_ERROR_INVALID_HANDLE;
		}
	} else {
		return CUDA_ERROR_NOT_SUPPORTED;
	}
	if (!width && !valid(base, size)) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	pthread_mutex_lock(&mock_lock);
	/* Handles start high, unlike the captured ones: relocation matters. */
	for (unsigned i = 17; i < 1024; i++) {
		if (!texs[i].live) {
			texs[i].live = 1;
			texs[i].base = base;
			texs[i].size = size;
			texs[i].width = width;
			texs[i].height = height;
			*pTexObject = i;
			pthread_mutex_unlock(&mock_lock);
			return CUDA_SUCCESS;
		}
	}
	pthread_mutex_unlock(&mock_lock);
	return CUDA_ERROR_OUT_OF_MEMORY;
}

CUresult CUDAAPI cuTexObjectDestroy(CUtexObject t)
{
	CUresult r = CUDA_ERROR_INVALID_VALUE;

	pthread_mutex_lock(&mock_lock);
	if (t < 1024 && texs[t].live) {
		texs[t].live = 0;
		r = CUDA_SUCCESS;
	}
	pthread_mutex_unlock(&mock_lock);
	return r;
}

/*
 * A host function runs in its stream's order like any command: after
 * the stream's earlier work, and later work waits for it to return (into
 * a capturing stream, it is a host node of the graph). CUDA
 * runs it on a thread of its own; here the device thread calls it, so
 * while it runs the other streams wait too (a function that takes long
 * delays more than it would on a GPU, never less).
 */
struct host_cmd {
	struct mock_cmd c;
	CUhostFn fn;
	void *arg;
};

static void host_exec(struct mock_cmd *c)
{
	struct host_cmd *h = (struct host_cmd *)c;
	Dl_info info;
	uintptr_t at = (uintptr_t)h->fn;

	/* Which function ran, as its offset in its object: the same in
	 * every run of one program, whatever the load address. */
	if (dladdr((void *)h->fn, &info) && info.dli_fbase) {
		at -= (uintptr_t)info.dli_fbase;
	}
	mock_call_log("host_ran", at, mock_now());
	h->fn(h->arg);
}

CUresult CUDAAPI cuLaunchHostFunc(CUstream s, CUhostFn fn, void *arg)
{
	struct host_cmd *h;
	CUresult r;

	if (!fn) {
		return CUDA_ERROR_INVALID_VALUE;
	}
	h = calloc(1, sizeof(*h));
	if (!h) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	h->c.exec = host_exec;
	/* Into a capturing stream: a host node, run at every launch. */
	h->c.size = sizeof(*h);
	h->c.call_ns = mock_now();
	/* CUPTI_DRIVER_TRACE_CBID_cuLaunchHostFunc */
	h->c.corr = api_record(527, h->c.call_ns);
	mock_call_log("host_func", 0, h->c.call_ns);
	h->fn = fn;
	h->arg = arg;
	r = mock_enqueue(s, &h->c);
	if (r != CUDA_SUCCESS) {
		free(h);
	}
	return r;
}

/* Synchronous: the work of the legacy stream, waited for. */
CUresult CUDAAPI cuMemsetD32(CUdeviceptr d, unsigned int v, size_t n)
{
	MOCK_API(cuMemsetD32_v2);
	CUresult r = memset_n(d, v, n, 4, NULL);

	return r == CUDA_SUCCESS ? cuStreamSynchronize(NULL) : r;
}

/* The attributes the elastic variant's policies read (BLOCKUSAGE). */
CUresult CUDAAPI cuFuncGetAttribute(int *pi, CUfunction_attribute attrib,
				    CUfunction hfunc)
{
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
	case CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES: {
		struct mfunc *f = func_of(hfunc);
		*pi = f ? dynamic_smem_limit(f, f->k, f->ctx) : SMEM_PER_BLOCK;
		return CUDA_SUCCESS;
	}
	default:
		*pi = 0;
		return CUDA_SUCCESS;
	}
}
