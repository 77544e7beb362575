/* SPDX-License-Identifier: MIT */
/*
 * The intercepted CUDA driver API as data, expanded from cuda_api.def: one
 * id per call (enum gm_api_id), a descriptor table naming each call's
 * class, special case, replay kind, base call and arguments, and one
 * struct gm_args_<call> per recorded call whose members are the event's
 * 64-bit argument words in order. The capture library reads the table to
 * record calls, the bundle reader to decode them and reconstruct's
 * bundle_feed.c to dispatch them by replay kind; none of them needs the
 * CUPTI headers to do so.
 */
#ifndef GM_API_H
#define GM_API_H

#include <stddef.h>
#include <stdint.h>

/* What an argument word holds (dump formatting, handle maps, relocation). */
enum gm_arg_type {
	GM_ARG_DPTR,	/* device address: relocatable */
	GM_ARG_HPTR,	/* host address: meaningless in a replay */
	GM_ARG_PTR,	/* pointer to a structure recorded elsewhere */
	GM_ARG_SIZE,
	GM_ARG_U32,
	GM_ARG_I32,
	GM_ARG_FLAGS,
	GM_ARG_ENUM,
	GM_ARG_DEV,	/* device ordinal */
	GM_ARG_CTX,	/* handles, mapped by the replay */
	GM_ARG_STREAM,
	GM_ARG_EVENT,
	GM_ARG_MODULE,
	GM_ARG_LIBRARY,
	GM_ARG_FUNC,
	GM_ARG_KERNEL,
	GM_ARG_ARRAY,
	GM_ARG_TEXOBJ,
	GM_ARG_SURFOBJ,
	GM_ARG_GRAPH,	/* CUgraph, CUgraphExec, CUgraphNode */
	GM_ARG_GEXEC,
	GM_ARG_GNODE,
	GM_ARG_MEMPOOL,	/* a stream-ordered memory pool */
	GM_ARG_MEMHANDLE,	/* a physical allocation (cuMemCreate) */
	GM_ARG_COUNT
};

/* When the capture library fills an argument word. */
enum gm_arg_dir {
	GM_DIR_IN,	/* at entry (and again at exit) */
	GM_DIR_OUT,	/* at exit, from the output pointer; 0 at entry */
	GM_DIR_X,	/* by the call's special case */
};

enum gm_api_class {
	GM_CLASS_REPLAYED,
	GM_CLASS_IGNORED,
	GM_CLASS_UNSUPPORTED,	/* never in the table: anything not listed */
};

/* How a call's data is captured (see cuda_api.def). */
#define GM_SPECIALS(X)                                                         \
	X(NONE) X(H2D) X(D2H) X(D2H_ASYNC) X(MEMCPY) X(MEMCPY_ASYNC)           \
	X(COPY2D) X(COPY2D_ASYNC) X(COPY3D) X(COPY3D_ASYNC)                    \
	X(LAUNCH) X(LAUNCH_COOP) X(LAUNCH_EX)                                  \
	X(MODULE_FILE) X(MODULE_DATA) X(MODULE_FATBIN) X(LIBRARY_DATA)         \
	X(LIBRARY_FILE) X(GET_KERNEL) X(GET_FUNCTION) X(GET_GLOBAL)            \
	X(KERNEL_FUNCTION) X(TENSOR_MAP) X(TENSOR_MAP_ADDRESS)                 \
	X(ARRAY_CREATE) X(ARRAY3D_CREATE) X(TEXOBJ_CREATE) X(SURFOBJ_CREATE)   \
	X(STREAM_CREATE) X(STREAM_SYNC) X(CTX_SYNC) X(EVENT_RECORD)            \
	X(EVENT_SYNC) X(FREE_HOST) X(MEM_LOCATION)                             \
	X(CAPTURE_BEGIN) X(CAPTURE_END) X(GRAPH_KERNEL) X(GRAPH_MEMCPY)        \
	X(GRAPH_MEMSET) X(GRAPH_NODE) X(GRAPH_CHILD) X(GRAPH_DEPS)             \
	X(GRAPH_INSTANTIATE) X(GRAPH_LAUNCH) X(GRAPH_UPDATE) X(GRAPH_CLONE)    \
	X(HOST_FUNC) X(MEMPOOL_CREATE) X(MEMPOOL_ATTR) X(VMM_CREATE)            \
	X(VMM_ACCESS) X(CAPTURE_TO) X(GRAPH_CHILD_SET)

#define GM_SP_ENUM_(s) GM_SP_##s,
enum gm_special { GM_SPECIALS(GM_SP_ENUM_) GM_SP_COUNT };
#undef GM_SP_ENUM_

/*
 * What a recorded call becomes in the replay model: reconstruct has one
 * handler per kind (reconstruct/trace/bundle_feed.c). NONE: not replayed yet
 * (surfaces, tensor maps; queries):
 * each call is reported as unsupported. The SKIP_* kinds are settings the
 * replay leaves at their defaults, reported once per call name (SKIP_POOL:
 * memory pool attributes and trims, which the replay's bulk allocator has
 * no use for).
 */
#define GM_REPLAY_KINDS(X)                                                     \
	X(NONE) X(NOOP) X(SKIP_FLAGS) X(SKIP_LIMIT) X(SKIP_CACHE)              \
	X(CTX_RESET) X(CTX_SYNC)                                               \
	X(ALLOC) X(ALLOC_PITCH) X(FREE) X(HOST_ALLOC) X(HOST_FREE)             \
	X(H2D) X(H2D_ASYNC) X(D2H) X(D2H_ASYNC) X(D2D) X(D2D_ASYNC)            \
	X(COPY) X(COPY_ASYNC) X(MEMSET) X(MEMSET_2D) X(LAUNCH)                 \
	X(MODULE_LOAD) X(MODULE_UNLOAD) X(LIBRARY_MODULE) X(GET_KERNEL)        \
	X(KERNEL_FUNCTION) X(GET_GLOBAL) X(FUNC_ATTR) X(KERNEL_ATTR)           \
	X(STREAM_CREATE) X(STREAM_DESTROY) X(STREAM_WAIT) X(STREAM_SYNC)       \
	X(EVENT_CREATE) X(EVENT_DESTROY) X(EVENT_RECORD) X(EVENT_SYNC)         \
	X(TEXOBJ_CREATE) X(TEXOBJ_DESTROY)                                     \
	X(HOST_DEVPTR) X(MANAGED_ALLOC) X(PREFETCH) X(ADVISE)                  \
	X(CAPTURE_BEGIN) X(CAPTURE_END) X(GRAPH_CREATE) X(GRAPH_NODE)          \
	X(GRAPH_DEPS) X(GRAPH_INSTANTIATE) X(GRAPH_LAUNCH) X(GRAPH_UPDATE)     \
	X(GRAPH_KERNEL_SET) X(GRAPH_CLONE) X(GRAPH_DESTROY)                    \
	X(GRAPH_EXEC_DESTROY) X(HOST_FUNC) X(SKIP_POOL)                       \
	X(VMM_RESERVE) X(VMM_FREE) X(VMM_CREATE) X(VMM_RELEASE) X(VMM_MAP)    \
	X(VMM_UNMAP) X(CAPTURE_TO_GRAPH) X(ATTACH_MEM)                        \
	X(COPY_2D) X(COPY_3D) X(COPY_ARRAY) X(ARRAY_CREATE) X(ARRAY_DESTROY)   \
	X(GRAPH_CHILD_SET)

#define GM_RK_ENUM_(k) GM_RK_##k,
enum gm_replay_kind { GM_REPLAY_KINDS(GM_RK_ENUM_) GM_RK_COUNT };
#undef GM_RK_ENUM_

/*
 * Which default stream a call means by stream 0: its own (LEGACY, the
 * base call), or the calling thread's (PTDS, PTSZ: the _ptds and _ptsz
 * twins that nvcc --default-stream per-thread programs call).
 */
enum gm_stream_flavour {
	GM_FLAVOUR_LEGACY,
	GM_FLAVOUR_PTDS,
	GM_FLAVOUR_PTSZ,
};

/* Direction of a unified-addressing copy (the "kind" argument). */
enum gm_copy_kind {
	GM_COPY_UNKNOWN = 0,
	GM_COPY_H2D = 1,
	GM_COPY_D2H = 2,
	GM_COPY_D2D = 3,
	GM_COPY_H2H = 4,
};

/* What a stored module image is (event flags of code-loading calls). */
enum gm_image_kind {
	GM_IMAGE_UNKNOWN = 0,
	GM_IMAGE_FATBIN = 1,	/* fatbin (0xBA55ED50), header included */
	GM_IMAGE_CUBIN = 2,	/* ELF */
	GM_IMAGE_PTX = 3,	/* NUL-terminated text */
	GM_IMAGE_FILE = 4,	/* a file's bytes, kind not inspected */
};

/*
 * Every includer of cuda_api.def defines GM_CALL, GM_CALL0, GM_TWIN and
 * GM_IGNORE itself: a GM_IGNORE that forwarded to GM_CALL0 would let cuda.h's
 * renaming macros (cuGetProcAddress -> cuGetProcAddress_v2) rewrite names.
 */

enum gm_api_id {
#define GM_CALL(name, cls, sp, rk, args) GM_API_##name,
#define GM_CALL0(name, cls, sp, rk) GM_API_##name,
#define GM_TWIN(name, base, fl, cls, sp, rk, args) GM_API_##name,
#define GM_IGNORE(name) GM_API_##name,
#include "cuda_api.def"
#undef GM_CALL
#undef GM_CALL0
#undef GM_TWIN
#undef GM_IGNORE
	GM_API_COUNT
};

/* struct gm_args_<name>: the argument words of a recorded call. */
#define GM_IN(type, field) uint64_t field;
#define GM_OUT(type, field) uint64_t field;
#define GM_X(type, field) uint64_t field;
#define GM_CALL(name, cls, sp, rk, args) struct gm_args_##name { args };
#define GM_CALL0(name, cls, sp, rk)
#define GM_TWIN(name, base, fl, cls, sp, rk, args)                             \
	struct gm_args_##name { args };
#define GM_IGNORE(name)
#include "cuda_api.def"
#undef GM_CALL
#undef GM_CALL0
#undef GM_TWIN
#undef GM_IGNORE
#undef GM_IN
#undef GM_OUT
#undef GM_X

/* Number of argument words of a call (compile-time). */
#define GM_NR_ARGS(name) (sizeof(struct gm_args_##name) / sizeof(uint64_t))

struct gm_arg_desc {
	const char *name;
	enum gm_arg_type type;
	enum gm_arg_dir dir;
};

struct gm_api_desc {
	const char *name;
	int cbid;			/* CUPTI driver callback id */
	enum gm_api_class cls;
	enum gm_special special;
	enum gm_replay_kind replay;
	int base;			/* the id of the base call (itself) */
	enum gm_stream_flavour flavour;
	unsigned nr_args;
	const struct gm_arg_desc *args;
};

/* The table, indexed by enum gm_api_id. */
extern const struct gm_api_desc gm_api_table[GM_API_COUNT];

/* Most argument words any call records (checked at compile time). */
#define GM_MAX_ARGS 40

/* The id of the call named @name, or -1. */
int gm_api_lookup(const char *name);

/* The id of the call with CUPTI driver callback id @cbid, or -1. */
int gm_api_by_cbid(int cbid);

/* Index of argument @arg of call @api, or -1. */
int gm_api_arg_index(int api, const char *arg);

/*
 * What a call does to the GPU's work, for measuring a program's GPU
 * section (gpumix corun): it enqueues work (a launch, a copy, a memset, a
 * graph launch, a prefetch), it waits for work (a context, stream or
 * event synchronization), or neither.
 */
enum gm_gpu_op {
	GM_GPU_OP_NONE,
	GM_GPU_OP_ENQUEUE,
	GM_GPU_OP_WAIT,
};

/*
 * The GPU operation of call @api (GM_GPU_OP_NONE for an unknown id),
 * read from the table: its replay kind and, for a call without one, its
 * special case. Queries (class IGNORED) are none, even those that look at
 * the GPU (cuStreamQuery).
 */
enum gm_gpu_op gm_api_gpu_op(int api);

/* Names of enum values, for dumps and manifests. */
const char *gm_arg_type_name(enum gm_arg_type t);
const char *gm_special_name(enum gm_special s);
const char *gm_replay_kind_name(enum gm_replay_kind k);
const char *gm_api_class_name(enum gm_api_class c);
const char *gm_copy_kind_name(unsigned kind);
const char *gm_image_kind_name(unsigned kind);

/*
 * The signature of call @api as one line, "name class special
 * arg:type:dir,...": bundles store the signature of every call so that a
 * reader built from a different table can map or refuse them.
 */
void gm_api_signature(int api, char *buf, size_t len);

#endif
