/* SPDX-License-Identifier: MIT */
/*
 * What the files of the CUPTI subscriber (inject*.c) share, internal to
 * libgpumix-capture.so. inject.c receives every callback, fills the
 * argument words of a recorded call from its parameter struct and hands
 * the call to the handler of its special case (enum gm_special, the
 * cuda_api.def column): one handler per kind, each in the file of its
 * job: copies (inject_copy.c), kernel code and layouts (inject_code.c),
 * launches (inject_launch.c), results and synchronizations
 * (inject_results.c), objects described by a struct (inject_objects.c),
 * host functions (inject_host_func.c), graph building (inject_graph.c)
 * and graph launches (inject_graph_launch.c). CUPTI's activity records
 * are inject_activity.c's. All of them, inject.c included, read the
 * subscriber's state (inject_state.h) and report unsupported uses in
 * their runtime context (inject_runtime.h); the handlers never call
 * back into inject.c. Handlers run on the calling thread under its
 * re-entrancy guard (driver calls they make are not recorded).
 */
#ifndef GM_CAPTURE_INJECT_H
#define GM_CAPTURE_INJECT_H

#include <cuda.h>
#include <cupti.h>
#include <stdint.h>

#include "api.h"
#include "blob_store.h"
#include "emit.h"
#include "graph_host.h"
#include "inject_runtime.h"
#include "inject_state.h"
#include "tracking.h"

/* The argument words @a of call @name as its struct gm_args_<name>. */
#define ARGS(name, a) ((struct gm_args_##name *)(a))

/* A recorded call at its entry or exit, as its special case sees it. */
struct sp_call {
	int api;			/* enum gm_api_id */
	unsigned cbid;			/* CUPTI's callback id of the call */
	const CUpti_CallbackData *cb;
	const void *params;		/* cb->functionParams */
	const struct api_info *f;	/* where its words sit */
	struct gm_record *r;		/* the event being built */
	uint64_t *a;			/* its argument words (r->args) */
	struct gm_thread *t;		/* the calling thread */
	uint64_t key;			/* its stream (track_stream_key()) */
	int exit;			/* 0 at the entry */
	int ok;				/* at an exit that returned success */
};

/* The handler of one special case; every kind has one (inject.c). */
typedef void sp_handler(struct sp_call *c);

/* ---- unsupported uses (inject_runtime.h) ---- */

/* The call of @c used in a way the replay cannot reproduce, named by
 * CUDA's name of it, or by @name. */
static inline void sp_unsupported(const struct sp_call *c)
{
	unsupported_call(c->cb, c->cbid, 0, c->cb->functionName, c->t);
}

static inline void sp_unsupported_named(const struct sp_call *c,
					const char *name)
{
	unsupported_call(c->cb, c->cbid, 0, name, c->t);
}

/* ---- inject_results.c: device-to-host results, synchronizations ---- */

/* Record flags of a result hashed at the process's exit (never
 * synchronized) and at the start of a graph's host node that follows its
 * copy node; emit_d2h()'s @ctx. */
extern const uint16_t results_at_exit_flags;
extern const uint16_t results_host_node_flags;

/* A pending copy's d2h_hash event; @ctx: NULL or a const uint16_t * of
 * record flags to add (results_*_flags). The track_pending_fn of the
 * capture. */
void emit_d2h(const struct gm_pending *p, void *ctx);

/* The pending copies a synchronization (@how, @arg) covers: completed
 * after the call's exit event is emitted (results_run_deferred()), so
 * that each d2h_hash follows the call that made its result visible. */
void results_complete(enum track_sync how, uint64_t arg);

/* The same, now. */
void results_complete_now(enum track_sync how, uint64_t arg);

/* Complete what results_complete() deferred on this thread, if any. */
void results_run_deferred(void);

/* A device-to-host result into @s of call @api (record @r, stream @key):
 * hashed now (@async 0) or when what covers it synchronizes. */
void d2h_result(struct gm_record *r, int api, const struct gm_span *s,
		int async, uint64_t key);

/* At a copy's entry: flags @r when the pages of @s were touched already. */
void host_dst_state(struct gm_record *r, const struct gm_span *s);

sp_handler sp_none, sp_stream_create, sp_stream_sync, sp_ctx_sync,
	sp_event_record, sp_event_sync, sp_free_host, sp_mem_location;

/* ---- inject_copy.c: copies ---- */

/* Whether one side of a 2-D/3-D copy (memory type @type, host pointer
 * @host, device pointer @dev) is host memory. */
int side_is_host(unsigned type, const void *host, CUdeviceptr dev);

/* The argument words of a 3-D copy descriptor @c (NULL: left as they
 * are) into @w, in cuda_api.def's order (GM_COPY3D_FIELDS). */
void copy3d_fields(uint64_t *w, const CUDA_MEMCPY3D *c);

/* The host source (destination) of a 3-D copy as a span; 0 when that
 * side is not host memory. */
int copy3d_host_src(const CUDA_MEMCPY3D *c, struct gm_span *s);
int copy3d_host_dst(const CUDA_MEMCPY3D *c, struct gm_span *s);

sp_handler sp_h2d, sp_d2h, sp_memcpy, sp_copy2d, sp_copy3d;

/* ---- inject_code.c: code loads and kernel parameter layouts ---- */

/*
 * The layout of kernel or function handle @h that no recorded call named,
 * found, remembered and described in a "layout" event at correlation id
 * @corr. NULL when @h is neither.
 */
const struct gm_layout *layout_discover(uint64_t h, uint32_t corr);

/* At a call's entry: every kernel or function handle among its words @a
 * that no recorded call named, named now (layout_discover()). */
void name_handles(int api, const uint64_t *a, uint32_t corr);

/* At a successful exit: the code the trace holds (loads, a library's
 * module, unloads). */
void code_track(int api, const uint64_t *a);

sp_handler sp_module_file, sp_library_file, sp_module_data,
	sp_module_fatbin, sp_library_data, sp_get_kernel, sp_get_function,
	sp_kernel_function, sp_get_global;

/* ---- inject_launch.c: kernel launches ---- */

/*
 * The arguments of a launch of @f (kernelParams @params, or the buffer of
 * @extra) packed at their layout offsets into @r's data, behind @prefix
 * bytes. A handle without a known layout is a loss (GM_RF_NO_LAYOUT).
 */
void launch_params(struct gm_record *r, uint64_t f, void **params,
		   void **extra, size_t prefix);

sp_handler sp_launch, sp_launch_coop, sp_launch_ex;

/* ---- inject_objects.c: objects a call describes by a struct ---- */

sp_handler sp_array_create, sp_array3d_create, sp_texobj_create,
	sp_surfobj_create, sp_tensor_map, sp_tensor_map_address,
	sp_mempool_create, sp_mempool_attr, sp_vmm_create, sp_vmm_access;

/* ---- inject_host_func.c: host functions ---- */

sp_handler sp_host_func;

/* ---- inject_graph.c: graphs and stream captures ---- */

/*
 * cuGraphAddNode[_v2] (@*cbid) at the entry (@exit 0) or exit of @*cb:
 * *@cb and *@cbid become those of the typed call that makes the same
 * node (thread-local data, valid until the thread's next such call).
 * Returns 0, or -1 for a node no typed call makes (reported as
 * unsupported at the entry, the call counted).
 */
int graph_typed_call(const CUpti_CallbackData **cb, unsigned *cbid,
		     int exit, struct gm_thread *t);

/*
 * The edges that are not plain (programmatic) of the generic node call
 * @cb (cuGraphAddNode_v2 only, at its successful exit), which its typed
 * call left out: 1 with *@p the cuGraphAddDependencies_v2 that adds them
 * to the new node (thread-local arrays, valid until the thread's next
 * such call), 0 when it has none.
 */
int graph_typed_edges(const CUpti_CallbackData *cb,
		      cuGraphAddDependencies_v2_params *p);

sp_handler sp_capture_begin, sp_capture_to, sp_capture_end,
	sp_graph_kernel, sp_graph_memcpy, sp_graph_memset, sp_graph_node,
	sp_graph_child, sp_graph_deps, sp_graph_inherit, sp_graph_child_set;

/* ---- inject_graph_launch.c: graph launches ---- */

/* What a graph's host nodes do around the program's function. */
extern const struct gnode_hooks graph_host_node_hooks;

sp_handler sp_graph_launch;

/* ---- inject_activity.c: GPU durations ---- */

/* Register the activity buffers and enable kernel, copy and memset
 * records; a failure is counted (cupti_errors). */
void activity_enable(void);

#endif
