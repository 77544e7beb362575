/* SPDX-License-Identifier: MIT */
/*
 * Inside the mock CUDA driver: what its driver calls (mock_cuda.c) and
 * its asynchronous device (mock_device.c: streams, events, the device
 * thread) share. Hidden from the programs that load libcuda.so.1, which
 * see only the CUDA driver API and mock.h.
 */
#ifndef GM_MOCK_INT_H
#define GM_MOCK_INT_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

#include <cuda.h>
#include <cupti.h>

#define MOCK_HIDDEN __attribute__((visibility("hidden")))

/*
 * The one lock of the mock: allocations, libraries, texture objects,
 * activity records, streams, queues and events. The device thread never
 * holds it while it executes a command, so a kernel that never ends
 * blocks no driver call that does not wait for that kernel.
 */
extern pthread_mutex_t mock_lock MOCK_HIDDEN;

struct mstream;
struct mock_dep;

/*
 * One piece of device work in a stream's queue. The caller of
 * mock_enqueue() allocates it (usually as the first member of a larger
 * struct, with its payload) and fills in the hooks; mock_device.c fills
 * in the rest and frees it, with free(), once it has run.
 */
struct mock_cmd {
	/* The work, on the device thread, without the lock; may be NULL. */
	void (*exec)(struct mock_cmd *c);
	/* After exec, with mock_lock held (activity records); may be NULL.
	 * @start and @end are mock_now() around exec. */
	void (*done)(struct mock_cmd *c, uint64_t start, uint64_t end);
	uint64_t call_ns;	/* mock_now() at the driver call */
	uint32_t corr;		/* correlation id of the call's API record */
	uint32_t stream_id;	/* set by mock_enqueue: what records name */
	uint32_t ctx_id;	/* and the id of the stream's context */
	/* What a CUDA graph needs to run the command again at each launch
	 * (mock_graph.c): its bytes (0: it cannot be captured) and, for one
	 * that points into itself, how to fix a copy made from @from. */
	size_t size;
	void (*rebase)(struct mock_cmd *copy, const struct mock_cmd *from);

	/* Private to mock_device.c. */
	struct mock_cmd *next;
	struct mstream *stream;
	uint64_t seq;		/* position in its stream, from 1 */
	uint64_t order;		/* position among all commands, from 1 */
	uint64_t enq_ns;	/* CLOCK_MONOTONIC at enqueue (latency) */
	struct mock_dep *deps;	/* positions that must have run before */
	unsigned nr_deps;
};

/*
 * Queue @c at the end of stream @s (NULL and CU_STREAM_LEGACY name the
 * legacy default stream). Takes mock_lock. Returns CUDA_SUCCESS (@c now
 * belongs to the device), or CUDA_ERROR_INVALID_HANDLE for a stream that
 * is not (or no longer) a stream, in which case @c is still the caller's.
 */
CUresult mock_enqueue(CUstream s, struct mock_cmd *c) MOCK_HIDDEN;

/* Block until every queue is empty (cuCtxSynchronize). Takes mock_lock. */
void mock_device_sync(void) MOCK_HIDDEN;

/*
 * Read the MOCK_CUDA_* knobs once. Returns 0, or -1 after printing what
 * is wrong with one (the defaults are then used).
 */
int mock_device_knobs(void) MOCK_HIDDEN;

/*
 * A context: the primary one, or the CUcontext that stands for a green
 * context (mock_green.c). Streams and functions belong to one.
 */
struct mctx {
	uint32_t magic;
	uint32_t id;		/* CUPTI's context id: 1 the primary one */
	void *green;		/* its struct mgreen, NULL: primary */
	unsigned sms;		/* a green context's SM count */
	uint32_t next_id;	/* MOCK_CUDA_STREAM_IDS=context: its next
				   stream id */
};

/* The calling thread's current context (the primary one when none). */
struct mctx *mock_current_ctx(void) MOCK_HIDDEN;

/* 0 once @c's green context was destroyed. */
int mock_ctx_live(const struct mctx *c) MOCK_HIDDEN;

/* The SMs kernels of @c run on: its partition, or the device's. */
unsigned mock_ctx_sms(const struct mctx *c) MOCK_HIDDEN;

/* 1 when MOCK_CUDA_FAIL names @fn. */
int mock_failing(const char *fn) MOCK_HIDDEN;

/* MOCK_CUDA_SLOW: when it names this call of @fn, sleep, then note the
 * time (mock_cuda.c). */
void mock_slow(const char *fn) MOCK_HIDDEN;

/* MOCK_CUDA_CALL_LOG: note a call that issues work (@what: copy, memset,
 * launch, host_func) of @bytes bytes, entered at @t0 (mock_now()); also
 * a host function run (host_ran) and a sleep of the program (sleep), with
 * their own number in place of @bytes. */
void mock_call_log(const char *what, uint64_t bytes, uint64_t t0) MOCK_HIDDEN;

/* Create a stream of context @ctx (cuStreamCreateWithPriority and
 * cuGreenCtxStreamCreate). */
CUresult mock_stream_create(CUstream *out, unsigned flags, int priority,
			    struct mctx *ctx) MOCK_HIDDEN;

/* The context of stream @h (the legacy stream: the current one), or
 * NULL for an invalid handle. Takes mock_lock. */
struct mctx *mock_stream_ctx(CUstream h) MOCK_HIDDEN;

/* How many streams of @c are not destroyed. Takes mock_lock. */
unsigned mock_streams_of(const struct mctx *c) MOCK_HIDDEN;

/* A driver API record of call @cbid begun at @start (unless CUPTI turned
 * that call's records off); returns its correlation id. */
uint32_t mock_api_record(uint32_t cbid, uint64_t start) MOCK_HIDDEN;

/* Whether command @c is a kernel's (mock_kernel_cmd()). */
int mock_cmd_is_kernel(const struct mock_cmd *c) MOCK_HIDDEN;

/*
 * Commands made by the driver calls, for graph nodes (mock_cuda.c): the
 * same a launch, copy or memset queues. NULL or an error for bad
 * arguments; the corr of the command is the caller's to set.
 */
CUresult mock_kernel_cmd(CUfunction f, const unsigned g[3], const unsigned b[3],
			 unsigned smem, struct mctx *ctx, void **params,
			 void **extra, struct mock_cmd **out) MOCK_HIDDEN;
struct mock_cmd *mock_copy_cmd(uint8_t kind, void *dst, const void *src,
			       size_t n) MOCK_HIDDEN;
struct mock_cmd *mock_memset_cmd(CUdeviceptr dst, unsigned v, size_t n,
				 unsigned w) MOCK_HIDDEN;
/* 1 when [@p, @p + @n) is device memory of a live allocation. */
int mock_valid_device(uintptr_t p, size_t n) MOCK_HIDDEN;
/* The same without a message; whether [p, p + n) is page-locked host
 * memory (cuMemHostAlloc). */
int mock_quietly_valid(uintptr_t p, size_t n) MOCK_HIDDEN;
int mock_page_locked(const void *p, size_t n) MOCK_HIDDEN;

/* Array @h's elements (mock_array.c): 0 and where they are, or -1. */
int mock_array_span(CUarray h, uintptr_t *base, size_t *bytes, size_t *width,
		    size_t *height) MOCK_HIDDEN;

/*
 * The device address space (mock_vmm.c): device addresses come from one
 * region, first fit from MOCK_VA_BASE, the same in every process that
 * makes the same calls. mock_va_alloc() hands out @size bytes of
 * read-write memory there (cuMemAlloc; 0 when full), mock_va_free()
 * takes them back. mock_vmm_valid(): [@p, @p + @n) is mapped and
 * accessible VMM memory (the caller holds mock_lock).
 */
#define MOCK_VA_BASE UINT64_C(0x200000000000)
uintptr_t mock_va_alloc(size_t size) MOCK_HIDDEN;
/* MOCK_CUDA_DRIVER_BYTES and MOCK_CUDA_OCCUPY (once per process): 0, or
 * -1 after printing what is wrong with them. */
int mock_va_knobs(void) MOCK_HIDDEN;
void mock_va_free(uintptr_t start) MOCK_HIDDEN;
int mock_vmm_valid(uintptr_t p, size_t n) MOCK_HIDDEN;

/*
 * Stream capture (mock_graph.c). mock_enqueue(), cuEventRecord and
 * cuStreamWaitEvent ask first whether their stream captures: then the
 * command becomes a node of the capture's graph (take: 0 with @c now the
 * graph's, or an error), a record marks the event as the capture's, and
 * a wait on such an event makes the waiting stream join the capture
 * (returns 1 when it did, 0 when the wait is an ordinary one).
 */
int mock_graph_capturing(CUstream h) MOCK_HIDDEN;
CUresult mock_graph_take(CUstream h, struct mock_cmd *c) MOCK_HIDDEN;
CUresult mock_graph_event_record(CUevent e, CUstream h) MOCK_HIDDEN;
int mock_graph_stream_wait(CUstream h, CUevent e) MOCK_HIDDEN;

/*
 * CUPTI driver-API callbacks (mock_cupti.c's cuptiSubscribe): MOCK_API(NAME)
 * first in an exported driver function raises the entry callback of
 * CUPTI_DRIVER_TRACE_CBID_NAME there and the exit callback when the
 * function returns, if the subscriber enabled that callback id. As in
 * CUDA, a driver call made by another one (the outermost call on the
 * thread) raises none.
 */
struct mock_api_scope {
	uint32_t cbid;
	int raised;		/* the entry callback was raised */
	CUpti_CallbackData d;
};

void mock_api_enter(struct mock_api_scope *s, uint32_t cbid,
		    const char *name) MOCK_HIDDEN;
void mock_api_exit(struct mock_api_scope *s) MOCK_HIDDEN;

#define MOCK_API(name)                                                         \
	struct mock_api_scope mock_api_scope_                                  \
		__attribute__((cleanup(mock_api_exit)));                       \
	mock_api_enter(&mock_api_scope_, CUPTI_DRIVER_TRACE_CBID_##name, #name)

#endif
