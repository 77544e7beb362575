/* SPDX-License-Identifier: MIT */
/*
 * What the files of the bundle feed (bundle_feed.c, feed_util.c,
 * feed_memory.c, feed_code.c, feed_graph.c) share: the feed's state, the
 * call being turned into the model, and their functions for each other.
 * Nothing outside them includes it.
 */
#ifndef GM_BUNDLE_FEED_INT_H
#define GM_BUNDLE_FEED_INT_H

#include "bundle_feed.h"

#include <cuda.h>
#include <inttypes.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#include "cu_result.h"
#include "error.h"
#include "fs.h"
#include "reconstruct/model/handle_map.h"
#include "hash.h"
#include "strmap.h"
#include "reconstruct/model/model.h"
#include "replay/gpumix_replay.h"
#include "strbuf.h"
#include "trace_reader.h"

#define STREAM_PER_THREAD 0x2	/* CU_STREAM_PER_THREAD */
#define MAX_MEMSET_ROWS 4096	/* a pitched 2-D memset becomes row memsets */

/* "event 12 (cuMemcpyHtoD_v2): " prefix of per-call messages. */
#define EVF "event %" PRIu64 " (%s): "

/* The entry of the call a thread is in. */
struct pending {
	uint32_t tid;
	int active;
	uint64_t index;		/* entry event */
	uint64_t host_in;	/* its clean host time (format 2) */
	int api;
	uint32_t corr;
	unsigned flags;
	struct gm_hash blob;
	uint64_t blob_size;
	struct strbuf data;	/* inline bytes of the entry */
	struct strbuf str;
	char *module_path;	/* GM_RF_MODULE: the image in the bundle */
	int have_late_hash;	/* a d2h_hash that came before the exit */
	struct gm_hash late_hash;
	uint64_t nr_calls;
};

/* Handles of one kind that are live, and those a reset destroyed. */
struct live_set {
	struct handle_map live, dead;
};

/* A per-API warning: how often, and the first event. */
struct api_note {
	uint64_t count, first;
	int32_t status;
};

/* A parameter layout seen in a "layout" event. */
struct layout {
	uint32_t nr;
	uint32_t *offsets, *sizes;
};

enum live_kind { LIVE_ALLOC, LIVE_HOST, LIVE_MODULE, LIVE_STREAM, LIVE_EVENT,
		 LIVE_TEXTURE, LIVE_VMM_RES, LIVE_VMM_MEM, NR_LIVE };

struct bundle_feed {
	struct model *m;
	struct model_prog *p;
	struct trace_reader *r;
	char *blob_dir;

	uint32_t pid;
	int have_pid;
	int host_time;		/* the bundle's events carry host times */
	struct pending *threads;
	size_t nr_threads, alloc_threads, last_thread;

	struct live_set live[NR_LIVE];
	struct handle_map skipped_textures;	/* unsupported texture objects */

	struct handle_map module_alias;		/* CUmodule -> index */
	uint64_t *alias_library;
	size_t nr_alias, alloc_alias;

	struct handle_map layout_map;		/* handle -> index */
	struct layout *layouts;
	size_t nr_layouts, alloc_layouts;

	struct handle_map pending_d2h;		/* corr -> index */
	uint64_t *d2h_event;
	size_t nr_d2h, alloc_d2h;
	struct handle_map done_d2h;		/* corr of results not needed */
	struct handle_map graph_corr;		/* corr of a graph launch ->
						   index in d2h_event */

	/* Host functions: corr -> index of their call event (waiting for
	 * the host_func event that times them), and durations that came
	 * before their call returned (corr -> index into early_ns). */
	struct handle_map host_wait;
	uint64_t *host_event;
	size_t nr_host, alloc_host;
	struct handle_map host_early;
	uint64_t *early_ns;
	size_t nr_early, alloc_early;

	struct gm_strmap checked;			/* blobs and images read */
	struct api_note skipped[GM_API_COUNT];
	struct api_note failed[GM_API_COUNT];
	uint64_t warned_attr;			/* launch attribute ids */
	struct strbuf tmp;

	struct bundle_feed_stats st;
};


/*
 * The call being turned into the model: its entry, its exit, its name and
 * the position the model's messages give. Each replay kind of cuda_api.def
 * has one handler below; rows that share a kind share the argument words
 * the handler reads (checked by the _Static_asserts beside it).
 */
struct call {
	struct bundle_feed *f;
	const struct pending *in;
	const struct gm_event *x;
	const char *api;
	uint64_t ev;
};

#define ARGS(call) GM_EVENT_ARGS(c->x, call)
#define SAME_WORD(a, b, field)                                                 \
	_Static_assert(offsetof(struct gm_args_##a, field) ==                  \
			       offsetof(struct gm_args_##b, field),            \
		       #a " and " #b ": " #field)

/* feed_util.c */
struct pending *feed_thread_of(struct bundle_feed *f, uint32_t tid);
void feed_note(struct api_note *n, uint64_t ev, int32_t status);
uint64_t feed_stream_of(const struct gm_event *x, uint64_t h);
uint64_t feed_module_of(const struct bundle_feed *f, uint64_t h);
void feed_live_add(struct bundle_feed *f, enum live_kind k, uint64_t h);
int feed_drop_live(struct bundle_feed *f, enum live_kind k, uint64_t ev,
		     const char *api, uint64_t h);
int feed_first_time(struct bundle_feed *f, struct gm_hash h);
int feed_source_blob(struct bundle_feed *f, const struct pending *in,
		       const char *api, uint64_t size, uint32_t *id);
int feed_copy_d2h(struct bundle_feed *f, const struct pending *in,
		    const struct gm_event *x, const char *api,
		    struct model_copy *c);
int feed_copy_h2d(struct bundle_feed *f, const struct pending *in,
		    const char *api, struct model_copy *c);
int feed_memset_2d(struct bundle_feed *f, const struct pending *in,
		     const char *api, const uint64_t *a, unsigned elem,
		     uint64_t stream);
int feed_launch(struct bundle_feed *f, const struct pending *in,
		  const struct gm_event *x, const char *api);
void feed_split_layout(const uint8_t *data, size_t len, uint32_t *nr,
			 uint32_t **offsets, uint32_t **sizes);
int feed_get_kernel(struct bundle_feed *f, const struct pending *in,
		      const struct gm_event *x, uint64_t handle,
		      uint64_t module);
int feed_texture(struct bundle_feed *f, const struct pending *in,
		   const struct gm_event *x, const char *api);
int feed_module_load(struct bundle_feed *f, const struct pending *in,
		       const char *api, uint64_t handle);
void feed_unsupported(struct bundle_feed *f, uint64_t ev, const char *api);
int feed_do_noop(const struct call *c);
int feed_do_skip(const struct call *c);
int feed_do_ctx_reset(const struct call *c);
int feed_do_ctx_sync(const struct call *c);

/* feed_memory.c */
int feed_do_alloc(const struct call *c);
int feed_do_alloc_pitch(const struct call *c);
int feed_do_free(const struct call *c);
int feed_do_vmm_reserve(const struct call *c);
int feed_do_vmm_free(const struct call *c);
int feed_do_vmm_create(const struct call *c);
int feed_do_vmm_release(const struct call *c);
int feed_do_vmm_map(const struct call *c);
int feed_do_vmm_unmap(const struct call *c);
int feed_do_managed_alloc(const struct call *c);
int feed_do_host_devptr(const struct call *c);
int feed_do_prefetch(const struct call *c);
int feed_do_attach_mem(const struct call *c);
int feed_do_advise(const struct call *c);
int feed_do_copy(const struct call *c);
int feed_do_copy_2d(const struct call *c);
int feed_do_copy_3d(const struct call *c);
int feed_do_copy_array(const struct call *c);
int feed_do_array_create(const struct call *c);
int feed_do_array_destroy(const struct call *c);
int feed_do_memset(const struct call *c);
int feed_do_memset_2d(const struct call *c);

/* feed_code.c */
int feed_do_launch(const struct call *c);
int feed_do_module_load(const struct call *c);
int feed_do_module_unload(const struct call *c);
int feed_do_library_module(const struct call *c);
int feed_do_get_kernel(const struct call *c);
int feed_do_kernel_function(const struct call *c);
int feed_do_get_global(const struct call *c);
int feed_do_func_attr(const struct call *c);
int feed_do_kernel_attr(const struct call *c);
int feed_do_stream_create(const struct call *c);
int feed_do_stream_destroy(const struct call *c);
int feed_do_stream_wait(const struct call *c);
int feed_do_stream_sync(const struct call *c);
int feed_do_event_create(const struct call *c);
int feed_do_event_destroy(const struct call *c);
int feed_do_event_record(const struct call *c);
int feed_do_event_sync(const struct call *c);
int feed_do_host_func(const struct call *c);
int feed_do_texobj_create(const struct call *c);
int feed_do_texobj_destroy(const struct call *c);

/* feed_graph.c */
int feed_do_graph_node(const struct call *c);
int feed_do_capture_begin(const struct call *c);
int feed_do_capture_to_graph(const struct call *c);
int feed_do_capture_end(const struct call *c);
int feed_do_graph_create(const struct call *c);
int feed_do_graph_deps(const struct call *c);
int feed_do_graph_instantiate(const struct call *c);
int feed_do_graph_launch(const struct call *c);
int feed_do_graph_update(const struct call *c);
int feed_do_graph_child_set(const struct call *c);
int feed_do_graph_kernel_set(const struct call *c);
int feed_do_graph_clone(const struct call *c);
int feed_do_graph_destroy(const struct call *c);
int feed_do_graph_exec_destroy(const struct call *c);

#endif
