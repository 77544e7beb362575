/* SPDX-License-Identifier: MIT */
/*
 * The in-memory replay model of an n-program workload: per program the
 * list of replay operations (in trace order) and the tables they refer
 * to, built by feeding it the decoded trace events one call at a time
 * (model_add_*), then finalised (model_finish) and handed to the code
 * generator (codegen.h).
 *
 * Captured handles (streams, events, libraries/modules, kernels and their
 * CUfunction aliases, texture objects, device pointers) go through handle
 * maps to small ids; device addresses in copies, memsets and texture
 * descriptions become (allocation or global, offset) at once; kernel
 * parameter words are relocated by the rules of reloc.h once all launches
 * are known. Everything a replay cannot reproduce is either an error (the
 * function returns -1 with a cause naming the trace event) or a warning
 * collected for model_report().
 *
 * Every model_add_* call takes the index of the trace event it comes from
 * (@ev; it ends up as a comment on the generated operation and in replay
 * error messages) and, for operations, the API name (@api, e.g.
 * "cuMemcpyHtoD_v2", copied). Stream handles 0 and CU_STREAM_LEGACY (0x1)
 * are the program's legacy default stream; CU_STREAM_PER_THREAD (0x2) is
 * one more blocking stream.
 */
#ifndef GM_MODEL_H
#define GM_MODEL_H

#include <stddef.h>
#include <stdint.h>

struct gm_array_desc;

struct strbuf;
struct model;
struct model_prog;

/* Flags of copies and memsets. */
#define MODEL_SYNC 0x1	/* the call returned only when it was done */
#define MODEL_HOST_WARM 0x2	/* D2H: most of the destination's pages were
				   resident at the call (GM_RF_HOST_WARM) */

enum model_copy_kind {
	MODEL_H2D,
	MODEL_D2H,
	MODEL_D2D,
};

/*
 * A new, empty workload. @name may be NULL (the program names joined by
 * '+', gm_workload_name()); @variant is the generated program's default variant, a name of
 * the variant table (common/variant.h) that the caller has checked
 * (recon_variant_check()); the program itself is the same for every
 * variant. Never fails (aborts on OOM).
 */
struct model *model_new(const char *name, const char *variant);
void model_free(struct model *m);

/* The workload's name: the one given to model_new(), else (after
 * model_finish()) the program names joined by '+' (copies written once,
 * "lbm#1-8": gm_workload_name()); NULL before that. */
const char *model_name(const struct model *m);

/*
 * Add program @name (unique in the workload, non-empty) reconstructed
 * from @bundle; @deterministic: its results are verified. Returns NULL
 * (cause recorded) on a duplicate or empty name.
 */
struct model_prog *model_add_program(struct model *m, const char *name,
				     const char *bundle, int deterministic);

/*
 * Blobs: host-to-device source data, shared by all programs. Either a
 * file already in the content-addressed store (@hash, @size, @path: the
 * file to copy into the replay data), or bytes given here (inline
 * payloads; hashed and kept in memory). *@id receives the blob id.
 * Returns 0 or -1 (bad hash).
 */
int model_add_blob(struct model *m, const char *hash, uint64_t size,
		   const char *path, uint32_t *id);
int model_add_blob_bytes(struct model *m, const void *data, uint64_t size,
			 uint32_t *id);

/* ---- code ---- */

/*
 * cuLibraryLoadData / cuModuleLoadData (and their file variants): image
 * @hash of @size bytes, stored at @path, loaded as @handle.
 */
int model_add_module(struct model_prog *p, uint64_t ev, uint64_t handle,
		     const char *hash, uint64_t size, const char *path);
/* cuLibraryUnload / cuModuleUnload. */
int model_unload_module(struct model_prog *p, uint64_t ev, uint64_t handle);

/*
 * cuLibraryGetKernel / cuModuleGetFunction: kernel @name of module
 * @module_handle is @handle; its parameter layout (@nr_params offsets and
 * sizes, from cuKernelGetParamInfo/cuFuncGetParamInfo) may be given here
 * or at the first launch.
 */
int model_add_kernel(struct model_prog *p, uint64_t ev, uint64_t handle,
		     uint64_t module_handle, const char *name,
		     uint32_t nr_params, const uint32_t *offsets,
		     const uint32_t *sizes);
/* cuKernelGetFunction: @alias (a CUfunction) names kernel @handle. */
int model_alias_kernel(struct model_prog *p, uint64_t ev, uint64_t alias,
		       uint64_t handle);
/* cuFuncSetAttribute / cuKernelSetAttribute (set again at init). */
int model_set_kernel_attr(struct model_prog *p, uint64_t ev, uint64_t handle,
			  int attrib, int value);
/* cuLibraryGetGlobal / cuModuleGetGlobal: @name lives at @dptr. */
int model_add_global(struct model_prog *p, uint64_t ev, uint64_t module_handle,
		     const char *name, uint64_t dptr, uint64_t size);

/* ---- memory ---- */

/* cuMemAlloc*, cuMemAllocPitch (size = pitch * height), cuMemAllocAsync. */
int model_add_alloc(struct model_prog *p, uint64_t ev, const char *api,
		    uint64_t dptr, uint64_t size);
/* cuMemFree*: @dptr must be the start of a live allocation. */
int model_add_free(struct model_prog *p, uint64_t ev, const char *api,
		   uint64_t dptr);
/* cuMemHostAlloc / cuMemAllocHost / cuMemHostRegister and their frees:
 * copies from and to these buffers replay from page-locked memory. */
int model_add_host_alloc(struct model_prog *p, uint64_t ev, uint64_t hptr,
			 uint64_t size);
int model_add_host_free(struct model_prog *p, uint64_t ev, uint64_t hptr);

/*
 * Virtual memory management (model_vmm.c). cuMemAddressReserve: @size
 * bytes at @va; cuMemAddressFree of the reservation at @va. cuMemCreate:
 * physical allocation @handle of @size bytes at a CUmemLocationType
 * @loc_type (host memory is reported unsupported); cuMemRelease.
 * cuMemMap: @size bytes of @handle from @offset at @va, inside a live
 * reservation (the reservation's mapped part becomes an allocation);
 * cuMemUnmap. Physical memory mapped at two places, or moved, is
 * reported unsupported. Each returns 0 or -1 (cause recorded).
 */
int model_vmm_reserve(struct model_prog *p, uint64_t ev, const char *api,
		      uint64_t va, uint64_t size);
int model_vmm_free(struct model_prog *p, uint64_t ev, const char *api,
		   uint64_t va);
int model_vmm_create(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t handle, uint64_t size, unsigned loc_type);
int model_vmm_release(struct model_prog *p, uint64_t ev, const char *api,
		      uint64_t handle);
int model_vmm_map(struct model_prog *p, uint64_t ev, const char *api,
		  uint64_t va, uint64_t size, uint64_t offset, uint64_t handle);
int model_vmm_unmap(struct model_prog *p, uint64_t ev, const char *api,
		    uint64_t va, uint64_t size);

/*
 * Memory the host writes and reads directly (model_hostmem.c).
 * cuMemAllocManaged: managed memory at @dptr (freed by model_add_free).
 * cuMemHostGetDevicePointer: page-locked @hptr is seen by the device at
 * @dptr too. A host write of @size bytes at @addr before a launch (the
 * captured bytes are blob @blob), a host read after a synchronization
 * (@hash: what the program read). cuMemPrefetchAsync_v2 and
 * cuMemAdvise_v2: @where is GM_LOC_* (gpumix_replay.h).
 */
int model_add_managed(struct model_prog *p, uint64_t ev, uint64_t dptr,
		      uint64_t size);
int model_alias_host(struct model_prog *p, uint64_t ev, uint64_t hptr,
		     uint64_t dptr);
int model_add_host_fill(struct model_prog *p, uint64_t ev, uint64_t addr,
			uint64_t size, uint32_t blob);
int model_add_host_check(struct model_prog *p, uint64_t ev, uint64_t addr,
			 uint64_t size, const char *hash);
int model_add_prefetch(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t addr, uint64_t size, unsigned where,
		       uint64_t stream);
/* cuStreamAttachMemAsync of managed memory at @addr (@size, 0: all of
 * it) on @stream with @flags (CUmemAttach_flags). */
int model_add_attach(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t addr, uint64_t size, unsigned flags,
		     uint64_t stream);
int model_add_advise(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t addr, uint64_t size, unsigned advice,
		     unsigned where);

struct model_copy {
	enum model_copy_kind kind;
	uint64_t dst, src, size;	/* captured addresses */
	uint64_t stream;		/* captured handle */
	unsigned flags;			/* MODEL_SYNC, MODEL_HOST_WARM */
	uint32_t blob;			/* H2D: the source bytes */
	uint64_t blob_offset;
	const char *d2h_hash;		/* D2H: what the program got, or NULL */
};

int model_add_copy(struct model_prog *p, uint64_t ev, const char *api,
		   const struct model_copy *c);

/*
 * The hash of what a device-to-host copy delivered, when it is known only
 * later (an asynchronous copy's result is hashed when the program
 * synchronizes): @copy_ev is the event index the copy was added with.
 * Returns 0, or -1 when no such copy without a hash exists or @hash is bad.
 */
int model_set_result_hash(struct model_prog *p, uint64_t ev, uint64_t copy_ev,
			  const char *hash);

/*
 * A device-to-host copy at @copy_ev has no result: a later copy wrote
 * into its destination before the program synchronized with it, so the
 * program never saw what it delivered (no check, and not counted as
 * unverifiable). Returns 0, or -1 when no such copy waits for a hash.
 */
int model_set_result_overwritten(struct model_prog *p, uint64_t ev,
				 uint64_t copy_ev);

/* cuMemsetD8/D16/D32[Async]: @count elements of @elem_size bytes. */
int model_add_memset(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t dst, uint32_t value, unsigned elem_size,
		     uint64_t count, uint64_t stream, unsigned flags);

/* ---- launches ---- */

struct model_launch {
	uint64_t kernel;		/* CUkernel or CUfunction handle */
	uint32_t grid[3], block[3];
	uint32_t smem;
	uint64_t stream;
	const void *params;		/* the argument bytes, laid out at the */
	uint32_t params_size;		/* kernel's parameter offsets */
	uint32_t cluster[3];		/* 0: none */
	int cooperative;
	/* Optional layout, when model_add_kernel had none. */
	uint32_t nr_params;
	const uint32_t *param_offsets, *param_sizes;
};

int model_add_launch(struct model_prog *p, uint64_t ev, const char *api,
		     const struct model_launch *l);

/* ---- streams, events, synchronization ---- */

int model_add_stream(struct model_prog *p, uint64_t ev, uint64_t handle,
		     int non_blocking, int priority);
int model_destroy_stream(struct model_prog *p, uint64_t ev, uint64_t handle);
int model_add_event(struct model_prog *p, uint64_t ev, uint64_t handle,
		    unsigned flags);
int model_destroy_event(struct model_prog *p, uint64_t ev, uint64_t handle);
/*
 * cuEventRecord / cuStreamWaitEvent: as model_add_op() adds them, and
 * in a capturing stream also the graph's node and its dependencies
 * (model_graph.c). Return 0, or -1 with a cause.
 */
int model_add_event_record(struct model_prog *p, uint64_t ev, const char *api,
			   uint64_t event, uint64_t stream);
int model_add_stream_wait(struct model_prog *p, uint64_t ev, const char *api,
			  uint64_t stream, uint64_t event);

/*
 * Operation @code (the first value, a GM_OP_* of replay/gpumix_replay.h)
 * with its operands after it in the order of its GM_OPS row: a STREAM or
 * EVENT operand is the captured handle, looked up here; any other is its
 * value (an id the caller resolved, flags, a number). Checks that the
 * model is open, then adds and fills the operation. Returns it (the
 * model's), or NULL with a cause if the model is finished or a handle
 * unknown. The operations that need nothing else, the synchronizations
 * (model_add_op(p, ev, api, GM_OP_STREAM_SYNC, stream)), are added by it
 * alone; a wrong number of operands is a failed assertion.
 */
struct mop;
#define model_add_op(p, ev, api, ...)                                          \
	model_add_op_at(p, ev, api, (const uint64_t[]){ __VA_ARGS__ },          \
			sizeof((const uint64_t[]){ __VA_ARGS__ }) / sizeof(uint64_t))
struct mop *model_add_op_at(struct model_prog *p, uint64_t ev,
			    const char *api, const uint64_t *v, size_t nr);

/*
 * cuLaunchHostFunc / cuStreamAddCallback on captured stream @stream: the
 * program's host work in that stream position; @ns: how long it took in
 * the captured run (0: unknown, or set later with model_set_host_func_ns
 * and the event index @call_ev of the call). Return 0, or -1 with a cause
 * (an unknown stream; no host function at @call_ev).
 */
int model_add_host_func(struct model_prog *p, uint64_t ev, const char *api,
			uint64_t stream, uint64_t ns);
int model_set_host_func_ns(struct model_prog *p, uint64_t ev, uint64_t call_ev,
			   uint64_t ns);

/* ---- 2-D and 3-D copies, CUDA arrays (model_copy.c) ---- */

/*
 * cuArrayCreate, cuArray3DCreate: array @handle of description @d (an id
 * of the same description whose array was destroyed is reused);
 * cuArrayDestroy. model_array_id(): the id of live array @handle, or -1
 * (no cause). model_array_row_bytes(): the bytes of a row of array @id (0
 * for a format of unknown element size). Each other returns 0 or -1
 * (cause recorded).
 */
int model_add_array(struct model_prog *p, uint64_t ev, const char *api,
		    uint64_t handle, const struct gm_array_desc *d);
int model_destroy_array(struct model_prog *p, uint64_t ev, const char *api,
			uint64_t handle);
long model_array_id(const struct model_prog *p, uint64_t handle);
uint64_t model_array_row_bytes(const struct model_prog *p, uint32_t id);

/* One end of a 2-D or 3-D copy, as captured (CUDA_MEMCPY3D's fields;
 * @host: this end is host memory, whatever its memory type said). */
struct model_copy_end {
	int host;
	unsigned type;			/* CUmemorytype */
	uint64_t addr;			/* host or device address */
	uint64_t array;			/* CUarray */
	uint64_t x, y, z, pitch, height;
};

struct model_copy_nd {
	unsigned call;			/* GM_COPYCALL_* */
	struct model_copy_end src, dst;
	uint64_t width, height, depth;	/* bytes, rows, slices */
	uint64_t stream;		/* captured handle */
	unsigned flags;			/* MODEL_SYNC */
	uint32_t blob;			/* host source: the packed rows */
	const char *d2h_hash;		/* host destination: what the program
					   got, or NULL (later, or never) */
};

/*
 * A 2-D or 3-D copy, or one with an array at an end. A host destination
 * without a hash waits for model_set_result_hash() like a D2H copy's.
 * Returns 0 or -1 (cause recorded).
 */
int model_add_copy_nd(struct model_prog *p, uint64_t ev, const char *api,
		      const struct model_copy_nd *c);

/* ---- texture objects ---- */

struct model_texture {
	uint32_t res_type;		/* CU_RESOURCE_TYPE_LINEAR / PITCH2D /
					   ARRAY */
	uint64_t addr;			/* captured device address */
	uint64_t array;			/* ARRAY: the CUarray */
	uint32_t format, channels;
	uint64_t size_bytes, width, height, pitch;
	uint32_t address_mode[3], filter_mode, flags, max_anisotropy;
	uint32_t mipmap_filter_mode;
	float mipmap_level_bias, min_mipmap_level_clamp, max_mipmap_level_clamp;
	float border_color[4];
};

int model_add_texture(struct model_prog *p, uint64_t ev, const char *api,
		      uint64_t handle, const struct model_texture *t);
int model_destroy_texture(struct model_prog *p, uint64_t ev, const char *api,
			  uint64_t handle);

/* ---- CUDA graphs (model_graph.c, doc/graphs.md) ---- */

/*
 * Stream capture: @stream begins capturing; its operations (and those of
 * streams that join through an event recorded in the capture) become
 * nodes until cuStreamEndCapture, which made @graph (0: the capture
 * was invalidated, its end failed: the replay's graph has no handle).
 */
int model_capture_begin(struct model_prog *p, uint64_t ev, const char *api,
			uint64_t stream);
/* cuStreamBeginCaptureToGraph: @stream captures into @graph, after its
 * nodes @deps (those no recorded call made: a warning each), by edges of
 * the kinds @edges gives (NULL: all plain; else the bytes of each
 * CUgraphEdgeData). */
int model_capture_to_graph(struct model_prog *p, uint64_t ev, const char *api,
			   uint64_t stream, uint64_t graph, const uint64_t *deps,
			   const uint64_t *edges, unsigned nr_deps);
int model_capture_end(struct model_prog *p, uint64_t ev, const char *api,
		      uint64_t stream, uint64_t graph);
/* cuGraphCreate. */
int model_graph_create(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t graph);
/*
 * A kernel, copy or memset node of an explicit graph: node_begin gives
 * *@stream, the stream handle to add the node's operation on (with
 * model_add_launch/copy/memset), node_end names the node and its
 * dependencies (nodes no recorded call made are warned about and left
 * out).
 */
int model_graph_node_begin(struct model_prog *p, uint64_t ev, const char *api,
			   uint64_t graph, uint64_t *stream);
int model_graph_node_end(struct model_prog *p, uint64_t ev, const char *api,
			 uint64_t graph, uint64_t node, const uint64_t *deps,
			 unsigned nr_deps);
/* Any other node: @kind is GM_GNODE_* of gpumix_replay.h, @arg the child
 * graph or the event handle. */
int model_graph_node(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t graph, uint64_t node, unsigned kind, uint64_t arg,
		     const uint64_t *deps, unsigned nr_deps);
/* cuGraphAddDependencies: @n edges of @width words each, (from, to)
 * pairs (@width 2) or (from, to, edge) triples (@width 3; edge: the bytes
 * of the CUgraphEdgeData, 0 for a plain edge). */
int model_graph_deps(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t graph, const uint64_t *edges, size_t n,
		     unsigned width);
int model_graph_instantiate(struct model_prog *p, uint64_t ev, const char *api,
			    uint64_t exec, uint64_t graph);
int model_graph_update(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t exec, uint64_t graph);
/* cuGraphExecChildGraphNodeSetParams: child graph node @node of @exec
 * runs @graph from now on (a node no recorded call made: unsupported). */
int model_graph_child_set(struct model_prog *p, uint64_t ev, const char *api,
			  uint64_t exec, uint64_t node, uint64_t graph);
/* cuGraphLaunch; its copies' results come with model_graph_result_hash
 * (@launch_ev: this call's @ev; @host, @bytes: the copy's destination;
 * @hash NULL: overwritten before a synchronization, no result;
 * @at_host_node: hashed when a host node of the launch that follows the
 * copy started, checked when the launch has run: GM_F_LAUNCH_END). */
int model_graph_launch(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t exec, uint64_t stream);
int model_graph_result_hash(struct model_prog *p, uint64_t ev,
			    uint64_t launch_ev, uint64_t host, uint64_t bytes,
			    const char *hash, int at_host_node);
/* cuGraph[Exec]KernelNodeSetParams (@exec 0: the graph's node). */
int model_graph_kernel_set(struct model_prog *p, uint64_t ev, const char *api,
			   uint64_t exec, uint64_t node,
			   const struct model_launch *l);
int model_graph_clone(struct model_prog *p, uint64_t ev, const char *api,
		      uint64_t clone, uint64_t graph);
/* cuGraphDestroy (@exec 0) and cuGraphExecDestroy (1). */
int model_graph_destroy(struct model_prog *p, uint64_t ev, const char *api,
			uint64_t handle, int exec);
/* 1 when an allocation of @p holds device address @addr. */
int model_device_address(const struct model_prog *p, uint64_t addr);
/* 1 when work on @stream goes into a graph now (no result to hash). */
int model_graph_stream(const struct model_prog *p, uint64_t stream);

/* ---- captured host time (model_hosttime.c) ---- */

/*
 * The captured host times of the call (or event) whose operations the
 * next model_add_* calls add, until the next model_set_host_time():
 * captured thread @tid entered it at @enter_ns and it returned at
 * @exit_ns, on that thread's clean clock (doc/bundle-format.md, "Host
 * time"). At model_finish(), each operation's host gap becomes its
 * entry less the return of the thread's previous operation (0 for a
 * thread's first, and between the operations of one call); the replay
 * spends it before issuing the operation. Only within the program's GPU
 * section: the operations up to its first GPU operation (copy, memset,
 * launch, synchronization) and after its last get none. A program for
 * which this is never called has no host times (its replay runs back to
 * back).
 */
void model_set_host_time(struct model_prog *p, uint32_t tid,
			 uint64_t enter_ns, uint64_t exit_ns);

/* A call the model cannot replay (listed by model_report()). */
void model_add_unsupported(struct model_prog *p, uint64_t ev, const char *api);

/*
 * A warning about event @ev that the trace reader found (a call that is
 * not replayed but changes no results, a failed call, ...): printf-style,
 * one line without a final newline; listed by model_report().
 */
void model_add_warning(struct model_prog *p, uint64_t ev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

/* ---- after the last event ---- */

/*
 * Decide the relocation of every kernel parameter word, build the final
 * parameter, launch and check tables and the host arena layout. Returns
 * 0 or -1. No model_add_* after this.
 */
int model_finish(struct model *m);

/* Counts and warnings (one line each), for `gpumix reconstruct`. */
void model_report(const struct model *m, struct strbuf *out);

/* Number of unsupported calls seen (all programs). */
uint64_t model_nr_unsupported(const struct model *m);

/*
 * The @i-th unsupported call of the workload (program by program, in
 * trace order): its program's name, event index and API, borrowed from
 * @m. Returns 0, or -1 when @i is past the end.
 */
int model_unsupported_call(const struct model *m, uint64_t i,
			   const char **prog, uint64_t *ev, const char **api);

#endif
