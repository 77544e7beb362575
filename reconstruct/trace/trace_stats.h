/* SPDX-License-Identifier: MIT */
/*
 * One pass over a bundle that sums up what it holds: events per thread
 * (what `gpumix capture` compares with the library's own counters), calls
 * per API, kernels with their launch counts, parameter layouts and GPU
 * time, bytes moved by direction, payload storage, unsupported calls and
 * tracer losses. `gpumix trace info` prints it.
 */
#ifndef GM_TRACE_STATS_H
#define GM_TRACE_STATS_H

#include <stdint.h>

#include "record.h"
#include "trace_reader.h"

struct strbuf;

struct trace_kernel_stat {
	char *name;		/* mangled, as the driver knows it */
	uint64_t launches;
	int nparams;		/* -1: layout unknown */
	uint32_t param_bytes;
	char *layout;		/* "off:size,..." */
	uint64_t gpu_count;	/* CUPTI activity records */
	uint64_t gpu_ns;
	uint64_t gpu_max_ns;
};

struct trace_name_count {
	char *name;
	uint64_t count;
	uint64_t first;		/* index of its first event */
};

/* A recorded call that returned an error. */
struct trace_failed_call {
	uint64_t index;		/* its entry event (among the kept ones) */
	int api;
	int32_t status;
};

struct trace_stats {
	/*
	 * Set before trace_stats_collect() to leave processes out: events of
	 * a process @keep says 0 to are only counted in @events and
	 * @threads (the capture's count-back needs them), nothing else.
	 * NULL keeps all.
	 */
	int (*keep)(void *ctx, uint32_t pid);
	void *keep_ctx;

	uint64_t events;
	uint64_t kept;			/* events of kept processes */
	uint64_t by_kind[GM_EV_COUNT];
	uint64_t calls[GM_API_COUNT];	/* enter events */
	uint8_t api_used[GM_API_COUNT];	/* in any event */
	uint64_t failed_calls;		/* exits with a non-zero status */
	uint64_t failed_bad;		/* ... with an error a working program
					 * does not meet (gm_cu_result_tolerated) */
	struct trace_failed_call first_failed;	/* valid when failed_calls */
	struct trace_failed_call first_bad;	/* valid when failed_bad */
	int64_t first_ns, last_ns;
	/*
	 * The GPU section (the calls gm_api_gpu_op() names, of kept
	 * processes): from the first one's entry to the last one's return,
	 * on the tracer's clock (@gpu_first_ns, @gpu_last_ns) and on the
	 * calling threads' clean host clocks (@gpu_first_host,
	 * @gpu_last_host: 0 in a bundle without host times), and whether
	 * those two calls were made by one thread (the clean clocks of two
	 * threads differ by what the capture spent on each).
	 */
	uint64_t gpu_calls;
	int64_t gpu_first_ns, gpu_last_ns;
	uint64_t gpu_first_host, gpu_last_host;
	uint32_t gpu_first_tid, gpu_last_tid;

	struct gm_thread_count *threads;
	size_t nr_threads, alloc_threads;

	struct trace_kernel_stat *kernels;
	size_t nr_kernels, alloc_kernels;
	uint64_t launches;

	struct trace_name_count *unsupported;
	size_t nr_unsupported, alloc_unsupported;

	uint64_t h2d_bytes, d2h_bytes, d2d_bytes, memset_bytes;
	uint64_t h2d_copies, d2h_copies, d2d_copies, memsets;
	uint64_t inline_bytes;		/* payload bytes kept in events */
	uint64_t blob_refs, blob_ref_bytes; /* payload references to blobs/ */
	uint64_t modules, module_bytes;
	uint64_t d2h_hashes;
	/* results a later copy overwrote before the program synchronized
	 * (d2h_hash events flagged GM_RF_OVERWRITTEN): no result */
	uint64_t d2h_overwritten;
	/* hostmem events: snapshots (and their bytes), results */
	uint64_t hostmem_snapshots, hostmem_snapshot_bytes, hostmem_results;
	uint64_t host_funcs, host_func_ns; /* host functions that ran */
	uint64_t act_memcpy_bytes[16];	/* by CUPTI copy kind (1 HtoD, 2 DtoH,
					 * 3 HtoA, 4 AtoH, 8 DtoD, ...) */
	uint64_t act_memcpy_ns, act_kernel_ns;
	uint64_t discarded;
	char *device;			/* first device event, or NULL */
	uint64_t device_cc, device_sms, driver_version;
};

/* "event 31 (cuMemcpyDtoH_v2) returned 700 CUDA_ERROR_ILLEGAL_ADDRESS" */
void trace_failed_call_words(const struct trace_failed_call *c,
			     struct strbuf *sb);

/* The manifest's form: "31 cuMemcpyDtoH_v2 700 CUDA_ERROR_ILLEGAL_ADDRESS" */
void trace_failed_call_field(const struct trace_failed_call *c,
			     struct strbuf *sb);

void trace_stats_init(struct trace_stats *st);
void trace_stats_release(struct trace_stats *st);

/* Read all of @r into @st. Returns 0, or -1 with the reader's cause. */
int trace_stats_collect(struct trace_reader *r, struct trace_stats *st);

/*
 * Count one event of thread @tid of process @pid into @st->threads, as
 * trace_stats_collect() does; @last caches the previous thread's index
 * (start it at 0).
 */
void trace_stats_count_thread(struct trace_stats *st, uint32_t pid,
			      uint32_t tid, size_t *last);

/* Events found for thread @tid of @pid (0 when none). */
uint64_t trace_stats_thread_events(const struct trace_stats *st, uint32_t pid,
				   uint32_t tid);

#endif
