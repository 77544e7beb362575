/* SPDX-License-Identifier: MIT */
/*
 * The model's representation, shared by model.c (which builds it) and
 * codegen.c / recon_dir.c (which read it after model_finish()). The
 * final tables use the replay runtime's own structs (replay/gpumix_replay.h,
 * header only) so that the generator prints exactly what the runtime reads.
 */
#ifndef GM_MODEL_INT_H
#define GM_MODEL_INT_H

#include "addr_map.h"
#include "handle_map.h"
#include "id_pool.h"
#include "strmap.h"
#include "model.h"
#include "reloc.h"
#include "replay/gpumix_replay.h"
#include "strbuf.h"

/* One operation; the fields of struct gm_op plus the API name. */
struct mop {
	uint8_t code, flags;
	uint16_t stream;
	uint32_t a, b, c;
	uint64_t x, y, z;
	uint64_t event;
	uint32_t api;		/* id in model_prog.strings */
	/* captured host time (model_set_host_time()) */
	uint32_t tid;
	uint64_t host_in, host_out;
};

struct model_module {
	char *hash;
	uint64_t size;
	char *path;
	uint64_t event;
	int loaded;
};

struct model_kernel {
	uint32_t module;
	char *name;
	uint64_t event;
	int have_layout;
	uint32_t nr_params;
	uint32_t *offsets, *sizes;
	struct gm_attr *attrs;
	size_t nr_attrs, alloc_attrs;
	uint64_t nr_launches;
	/* per 8-byte word position of the parameter buffer */
	struct reloc_stat *pos;
	uint8_t *verdict;
	uint32_t nr_pos;
	int warned_layout;
};

struct model_global {
	uint32_t module;
	char *name;
	uint64_t size;
	uint64_t event;
};

/* Mapped page-locked or managed memory (model_hostmem.c). */
struct model_hostmem {
	uint32_t kind;		/* GM_HOSTMEM_* */
	uint64_t start, size;
	uint64_t alias;		/* its other device address, or 0 */
	uint64_t event;
	int live, used;		/* used: some operation or launch names it */
};

struct model_stream {
	struct gm_stream_desc d;
	int live;
};

struct model_event {
	uint32_t flags;
	int live;
};

/* Header of an interned raw launch; the bytes and words follow it. */
struct raw_launch {
	uint32_t kernel;
	uint32_t grid[3], block[3];
	uint32_t smem;
	uint32_t cluster[3];
	uint32_t flags;
	uint32_t size;		/* parameter bytes */
	uint32_t nr_words;	/* struct reloc_word entries */
};

struct model_params {
	uint32_t size;
	uint8_t *bytes;
	uint32_t nr_relocs;
	struct gm_reloc *relocs;
};

struct model_warning {
	uint64_t event;
	char *text;
};

/* A CUDA array id: its description, and whether a handle holds it. */
struct model_array {
	struct gm_array_desc d;
	int live;
};

struct model_graphs;
struct model_vmm;

struct model_prog {
	struct model *m;
	unsigned index;
	char *name, *bundle;
	int deterministic;

	struct mop *ops;
	size_t nr_ops, alloc_ops;
	struct gm_strmap strings;		/* API names */

	/* handle maps */
	struct handle_map stream_map, event_map, module_map, kernel_map,
		texture_map;
	struct handle_map unchecked;	/* event of a D2H without hash -> op */
	struct handle_map host_funcs;	/* event of a host function -> op */
	struct addr_map dev, host;
	struct id_pool alloc_ids, tex_ids;
	uint32_t ptds;			/* per-thread default stream id, or 0 */

	/* tables */
	struct model_module *modules;
	size_t nr_modules, alloc_modules;
	struct model_kernel *kernels;
	size_t nr_kernels, alloc_kernels;
	struct model_global *globals;
	size_t nr_globals, alloc_globals;
	struct model_hostmem *hostmems;	/* ids of GM_REF_HOSTMEM regions */
	size_t nr_hostmems, alloc_hostmems;
	struct model_stream *streams;
	size_t nr_streams, alloc_streams;
	struct model_event *events;
	size_t nr_events, alloc_events;
	struct gm_strmap raw_launches;
	struct gm_strmap checks;		/* expected D2H hashes (hex) */
	struct gm_strmap texdescs;		/* struct gm_texture_desc */
	struct gm_strmap copydescs;		/* struct gm_copy_desc */
	struct model_array *arrays;		/* model_copy.c, by id */
	size_t nr_arrays, alloc_arrays;
	struct handle_map array_map;		/* CUarray -> id */

	/* after model_finish() */
	struct gm_strmap params_keys;
	struct model_params *params;
	size_t nr_params, alloc_params;
	struct gm_strmap launches;		/* struct gm_launch_desc */
	uint64_t host_arena;

	/* report */
	uint64_t nr_unsupported, nr_unverifiable, nr_relocated_words,
		nr_tex_words, nr_skipped;
	uint64_t nr_pointer_stores;	/* PTR_STORE ops (model_add_copy) */
	uint64_t nr_overwritten;	/* D2H copies without a result */
	struct model_warning *warnings;
	size_t nr_warnings, alloc_warnings;
	struct model_warning *unsupported;
	size_t nr_unsup_list, alloc_unsup_list;

	struct model_graphs *graphs;	/* model_graph.c; NULL: none */
	struct model_vmm *vmm;		/* model_vmm.c; NULL: none */

	/* Captured host time (model_hosttime.c): the call being added, and
	 * after model_finish() one gap per operation (GM_HOST_GAP_* coded),
	 * per operation its thread's index when there are several (else
	 * NULL), the thread count, the gaps' sum (ns) and how many were
	 * beyond what a gap can hold (kept at the most). */
	int host_time;
	uint32_t cur_tid;
	uint64_t cur_in, cur_out;
	uint32_t *host_gap;
	uint16_t *host_thread;
	uint32_t nr_host_threads;
	uint64_t host_gap_total_ns;
	uint64_t nr_host_gap_saturated;
};

struct model_blob {
	char hash[33];
	uint64_t size;
	char *path;		/* file to copy, or NULL */
	uint8_t *bytes;		/* inline data, or NULL */
	uint32_t flags;		/* GM_BLOB_* */
};

struct model {
	char *name;
	char *variant;		/* the program's default variant only */
	struct model_prog **progs;
	size_t nr_progs, alloc_progs;
	struct model_blob *blobs;
	size_t nr_blobs, alloc_blobs;
	struct gm_strmap blob_ids;	/* hash -> blob id */
	int finished;
};

/* model_core.c's helpers for the other model files: see the static
 * functions they wrap (model_add_op() is public: model.h). model_core.c
 * calls no other model file. */
struct mop *model_op_add(struct model_prog *p, uint64_t ev, const char *api,
			 unsigned code);
int model_check_open(struct model_prog *p);
int model_stream_lookup(struct model_prog *p, uint64_t ev, const char *api,
			uint64_t handle, uint16_t *out);
int model_event_lookup(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t handle, uint32_t *out);
int model_canonical_hash(const char *in, char out[33]);
/* model_code.c: kernel @k's parameter layout (@nr offsets and sizes),
 * from its module's metadata or from its first launch. */
void model_kernel_set_layout(struct model_kernel *k, uint32_t nr,
			     const uint32_t *offsets, const uint32_t *sizes);
/* Whether [hptr, hptr + size) lies inside one page-locked host buffer. */
int model_host_pinned(struct model_prog *p, uint64_t hptr, uint64_t size);
/*
 * An allocation (GM_OP_ALLOC of @size bytes, its captured address @start
 * in x) whose region of the device address map spans @span bytes (at
 * least @size: a VMM reservation is addressable as a whole, but only its
 * mapped part is allocated); *@op_index (may be NULL) is its operation,
 * whose size may grow later. Returns 0 or -1 (cause recorded).
 */
int model_alloc_region(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t start, uint64_t span, uint64_t size,
		       size_t *op_index);
int model_resolve_device(struct model_prog *p, uint64_t ev, const char *api,
			 const char *what, uint64_t addr, uint64_t size,
			 uint32_t *ref, uint64_t *off);

/*
 * model_graph.c's part of the model's work: which graph stream @s
 * captures into (its id + 1, 0: none); a D2H operation @op to @host made
 * while it captures; an event record and a stream wait (joins); at
 * model_finish(), the host arena room of copy nodes (returned: the bytes
 * below which the other results go) and the graph table sizes.
 */
uint32_t model_graph_capturing(struct model_prog *p, uint16_t s);
void model_graph_copy_node(struct model_prog *p, uint16_t s, uint32_t op,
			   uint64_t host);
void model_graph_event_record(struct model_prog *p, uint32_t e, uint16_t s);
void model_graph_stream_wait(struct model_prog *p, uint16_t s, uint32_t e);
uint64_t model_graphs_arena(struct model_prog *p, uint64_t align);
void model_graphs_counts(const struct model_prog *p, uint32_t *graphs,
			 uint32_t *execs, uint32_t *nodes);
void model_graphs_free(struct model_graphs *g);

/*
 * model_hostmem.c: a region of @kind at @start that kernels can address
 * (a GM_REF_HOSTMEM reference in the device address map), and its end.
 * Returns 0 or -1 (cause recorded).
 */
int model_hostmem_add(struct model_prog *p, uint64_t ev, uint64_t start,
		      uint64_t size, uint32_t kind);
void model_hostmem_drop(struct model_prog *p, uint64_t start);

/* model_copy.c: whether CUDA array @id is live (0: no such array). */
int model_array_live(const struct model_prog *p, uint32_t id);

/* The group column of GM_OPS (gpumix_replay.h) for operation @code. */
enum gm_op_group model_op_group(unsigned code);

/*
 * model_hosttime.c: at model_finish(), the host gap of every operation of
 * @p (nothing for a program without host times). Returns 0, or -1 with a
 * cause (more captured threads than a replay table holds).
 */
int model_hosttime_finish(struct model_prog *p);
void model_hosttime_free(struct model_prog *p);

/* model_vmm.c: free its state; one line on @p's reservations, if any. */
void model_vmm_free_state(struct model_vmm *v);
void model_vmm_report(const struct model_prog *p, struct strbuf *out);

/* One line on @p's mapped and managed memory, when it has any in use. */
void model_hostmem_report(const struct model_prog *p, struct strbuf *out);

/* Accessors for the generator. */
static inline const char *model_api(const struct model_prog *p,
				    const struct mop *op)
{
	return gm_strmap_key(&p->strings, op->api, NULL);
}

#endif
