/* SPDX-License-Identifier: MIT */
/*
 * Building the replay model from trace events (see model.h).
 */
#include "model_int.h"

#include <assert.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "hash.h"
#include "instance_name.h"

#define STREAM_LEGACY_HANDLE 0x1	/* CU_STREAM_LEGACY */
#define STREAM_PER_THREAD_HANDLE 0x2	/* CU_STREAM_PER_THREAD */
#define ARENA_ALIGN 64
#define WARM_ALIGN 65536	/* the warm rooms start on a page of any size */
#define RES_LINEAR 2			/* CU_RESOURCE_TYPE_LINEAR */
#define RES_PITCH2D 3			/* CU_RESOURCE_TYPE_PITCH2D */
#define RES_ARRAY 0			/* CU_RESOURCE_TYPE_ARRAY */

/* "event 12 (cuMemcpyHtoD_v2): " prefix of every per-call message. */
#define EVF "event %" PRIu64 " (%s): "

/* ---- workload ---- */

struct model *model_new(const char *name, const char *variant)
{
	struct model *m = gm_xcalloc(1, sizeof(*m));

	m->name = name ? gm_xstrdup(name) : NULL;
	assert(variant);
	m->variant = gm_xstrdup(variant);
	return m;
}

const char *model_name(const struct model *m)
{
	return m->name;
}

static void free_prog(struct model_prog *p)
{
	free(p->name);
	free(p->bundle);
	free(p->ops);
	gm_strmap_clear(&p->strings);
	handle_map_release(&p->stream_map);
	handle_map_release(&p->event_map);
	handle_map_release(&p->module_map);
	handle_map_release(&p->kernel_map);
	handle_map_release(&p->texture_map);
	handle_map_release(&p->unchecked);
	handle_map_release(&p->host_funcs);
	addr_map_release(&p->dev);
	addr_map_release(&p->host);
	id_pool_release(&p->alloc_ids);
	id_pool_release(&p->tex_ids);
	for (size_t i = 0; i < p->nr_modules; i++) {
		free(p->modules[i].hash);
		free(p->modules[i].path);
	}
	free(p->modules);
	for (size_t i = 0; i < p->nr_kernels; i++) {
		struct model_kernel *k = &p->kernels[i];
		free(k->name);
		free(k->offsets);
		free(k->sizes);
		free(k->attrs);
		free(k->pos);
		free(k->verdict);
	}
	free(p->kernels);
	for (size_t i = 0; i < p->nr_globals; i++) {
		free(p->globals[i].name);
	}
	free(p->globals);
	free(p->hostmems);
	free(p->streams);
	free(p->events);
	gm_strmap_clear(&p->raw_launches);
	gm_strmap_clear(&p->checks);
	gm_strmap_clear(&p->texdescs);
	gm_strmap_clear(&p->copydescs);
	free(p->arrays);
	handle_map_release(&p->array_map);
	gm_strmap_clear(&p->params_keys);
	for (size_t i = 0; i < p->nr_params; i++) {
		free(p->params[i].bytes);
		free(p->params[i].relocs);
	}
	free(p->params);
	gm_strmap_clear(&p->launches);
	for (size_t i = 0; i < p->nr_warnings; i++) {
		free(p->warnings[i].text);
	}
	free(p->warnings);
	for (size_t i = 0; i < p->nr_unsup_list; i++) {
		free(p->unsupported[i].text);
	}
	free(p->unsupported);
	model_graphs_free(p->graphs);
	model_vmm_free_state(p->vmm);
	model_hosttime_free(p);
	free(p);
}

void model_free(struct model *m)
{
	if (!m) {
		return;
	}
	for (size_t i = 0; i < m->nr_progs; i++) {
		free_prog(m->progs[i]);
	}
	free(m->progs);
	for (size_t i = 0; i < m->nr_blobs; i++) {
		free(m->blobs[i].path);
		free(m->blobs[i].bytes);
	}
	free(m->blobs);
	gm_strmap_clear(&m->blob_ids);
	free(m->name);
	free(m->variant);
	free(m);
}

struct model_prog *model_add_program(struct model *m, const char *name,
				     const char *bundle, int deterministic)
{
	struct model_prog *p;

	if (!name || !*name) {
		gm_error("a program needs a name");
		return NULL;
	}
	for (size_t i = 0; i < m->nr_progs; i++) {
		if (!strcmp(m->progs[i]->name, name)) {
			gm_error("program name '%s' is used twice in the "
				 "workload", name);
			return NULL;
		}
	}
	p = gm_xcalloc(1, sizeof(*p));
	p->m = m;
	p->index = (unsigned)m->nr_progs;
	p->name = gm_xstrdup(name);
	p->bundle = gm_xstrdup(bundle ? bundle : "");
	p->deterministic = deterministic;
	GM_ALLOC_GROW(p->streams, 1, p->alloc_streams);
	p->streams[0].d.flags = GM_STREAM_LEGACY;
	p->streams[0].d.priority = 0;
	p->streams[0].live = 1;
	p->nr_streams = 1;
	GM_ALLOC_GROW(m->progs, m->nr_progs + 1, m->alloc_progs);
	m->progs[m->nr_progs++] = p;
	return p;
}

static int canonical_hash(const char *in, char out[33])
{
	char lower[33];
	struct gm_hash h;
	size_t i;

	if (!in) {
		return -1;
	}
	for (i = 0; i < 32 && in[i]; i++) {
		lower[i] = (char)((in[i] >= 'A' && in[i] <= 'F') ? in[i] + 32 :
								 in[i]);
	}
	lower[i] = 0;
	if (in[i] || gm_hash_parse(lower, &h) < 0) {
		return -1;
	}
	gm_hash_hex(h, out);
	return 0;
}

static uint32_t new_blob(struct model *m, const char *hash, uint64_t size,
			 int *is_new)
{
	uint32_t id = gm_strmap_intern(&m->blob_ids, hash);

	*is_new = id == m->nr_blobs;
	if (*is_new) {
		GM_ALLOC_GROW(m->blobs, m->nr_blobs + 1, m->alloc_blobs);
		memset(&m->blobs[id], 0, sizeof(m->blobs[id]));
		memcpy(m->blobs[id].hash, hash, 33);
		m->blobs[id].size = size;
		m->nr_blobs++;
	}
	return id;
}

int model_add_blob(struct model *m, const char *hash, uint64_t size,
		   const char *path, uint32_t *id)
{
	char h[33];
	int is_new;

	if (canonical_hash(hash, h) < 0) {
		return gm_error("bad blob hash '%s'", hash ? hash : "(null)");
	}
	*id = new_blob(m, h, size, &is_new);
	if (!is_new && m->blobs[*id].size != size) {
		return gm_error("blob %s is %" PRIu64 " bytes here and %" PRIu64
				" elsewhere", h, size, m->blobs[*id].size);
	}
	if (is_new || (!m->blobs[*id].path && !m->blobs[*id].bytes)) {
		m->blobs[*id].path = path ? gm_xstrdup(path) : NULL;
	}
	return 0;
}

int model_add_blob_bytes(struct model *m, const void *data, uint64_t size,
			 uint32_t *id)
{
	char h[33];
	int is_new;

	gm_hash_hex(gm_hash_bytes(data, size), h);
	*id = new_blob(m, h, size, &is_new);
	if (!m->blobs[*id].path && !m->blobs[*id].bytes) {
		m->blobs[*id].bytes = gm_xmalloc(size ? size : 1);
		memcpy(m->blobs[*id].bytes, data, size);
	}
	return 0;
}

/* ---- helpers ---- */

static void warn(struct model_prog *p, uint64_t ev, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static void warn(struct model_prog *p, uint64_t ev, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	GM_ALLOC_GROW(p->warnings, p->nr_warnings + 1, p->alloc_warnings);
	p->warnings[p->nr_warnings].event = ev;
	p->warnings[p->nr_warnings].text = strbuf_detach(&sb, NULL);
	p->nr_warnings++;
}

static struct mop *add_op(struct model_prog *p, uint64_t ev, const char *api,
			  unsigned code)
{
	struct mop *op;

	GM_ALLOC_GROW(p->ops, p->nr_ops + 1, p->alloc_ops);
	op = &p->ops[p->nr_ops++];
	memset(op, 0, sizeof(*op));
	op->code = (uint8_t)code;
	op->event = ev;
	op->api = gm_strmap_intern(&p->strings, api ? api : "?");
	op->tid = p->cur_tid;
	op->host_in = p->cur_in;
	op->host_out = p->cur_out;
	return op;
}

static int check_open(struct model_prog *p)
{
	if (p->m->finished) {
		return gm_error("the model of '%s' is already finished",
				p->name);
	}
	return 0;
}

static int stream_id(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t handle, uint16_t *out)
{
	uint32_t id;

	if (handle == 0 || handle == STREAM_LEGACY_HANDLE) {
		*out = 0;
		return 0;
	}
	if (handle == STREAM_PER_THREAD_HANDLE) {
		if (!p->ptds) {
			GM_ALLOC_GROW(p->streams, p->nr_streams + 1,
				      p->alloc_streams);
			p->streams[p->nr_streams].d.flags = GM_STREAM_BLOCKING;
			p->streams[p->nr_streams].d.priority = 0;
			p->streams[p->nr_streams].live = 1;
			p->ptds = (uint32_t)p->nr_streams++;
		}
		*out = (uint16_t)p->ptds;
		return 0;
	}
	if (!handle_map_get(&p->stream_map, handle, &id)) {
		return gm_error(EVF "unknown stream 0x%" PRIx64, ev, api,
				handle);
	}
	*out = (uint16_t)id;
	return 0;
}

static int event_id(struct model_prog *p, uint64_t ev, const char *api,
		    uint64_t handle, uint32_t *out)
{
	if (!handle_map_get(&p->event_map, handle, out)) {
		return gm_error(EVF "unknown event 0x%" PRIx64, ev, api,
				handle);
	}
	return 0;
}

/* For model_graph.c (model_int.h). */
struct mop *model_op_add(struct model_prog *p, uint64_t ev, const char *api,
			 unsigned code)
{
	return add_op(p, ev, api, code);
}

int model_check_open(struct model_prog *p)
{
	return check_open(p);
}

int model_stream_lookup(struct model_prog *p, uint64_t ev, const char *api,
			uint64_t handle, uint16_t *out)
{
	return stream_id(p, ev, api, handle, out);
}

int model_event_lookup(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t handle, uint32_t *out)
{
	return event_id(p, ev, api, handle, out);
}

int model_device_address(const struct model_prog *p, uint64_t addr)
{
	return addr_map_find(&p->dev, addr, 0) != NULL;
}

int model_canonical_hash(const char *in, char out[33])
{
	return canonical_hash(in, out);
}

/*
 * A device address of a copy, memset or texture: the live region holding
 * [addr, addr + size) becomes a reference and an offset.
 */
static int resolve_dev(struct model_prog *p, uint64_t ev, const char *api,
		       const char *what, uint64_t addr, uint64_t size,
		       uint32_t *ref, uint64_t *off)
{
	const struct addr_region *r = addr_map_find(&p->dev, addr, size == 0);

	if (!r) {
		if (addr_map_is_dead(&p->dev, addr)) {
			return gm_error(EVF "%s 0x%" PRIx64 " points into freed "
					"device memory", ev, api, what, addr);
		}
		return gm_error(EVF "%s 0x%" PRIx64 " is not inside a live "
				"device allocation or global", ev, api, what,
				addr);
	}
	if (size > r->size - (addr - r->start)) {
		return gm_error(EVF "%" PRIu64 " bytes at %s 0x%" PRIx64
				" run past the end of %s %" PRIu32 " (%" PRIu64
				" bytes, event %" PRIu64 ")", ev, api, size,
				what, addr,
				r->kind == GM_REF_GLOBAL ? "global" :
				r->kind == GM_REF_HOSTMEM ?
				"mapped or managed memory" : "allocation",
				r->id, r->size, r->event);
	}
	*ref = r->kind | r->id;
	*off = addr - r->start;
	if (r->kind == GM_REF_HOSTMEM) {
		p->hostmems[r->id].used = 1;
	}
	return 0;
}

static int is_pinned(struct model_prog *p, uint64_t hptr, uint64_t size)
{
	const struct addr_region *r = addr_map_find(&p->host, hptr, 0);

	return r && size <= r->size - (hptr - r->start);
}

/* ---- code ---- */

int model_add_module(struct model_prog *p, uint64_t ev, uint64_t handle,
		     const char *hash, uint64_t size, const char *path)
{
	struct model_module *mod;
	char h[33];

	if (check_open(p) < 0) {
		return -1;
	}
	if (canonical_hash(hash, h) < 0) {
		return gm_error("event %" PRIu64 ": bad module hash '%s'", ev,
				hash ? hash : "(null)");
	}
	GM_ALLOC_GROW(p->modules, p->nr_modules + 1, p->alloc_modules);
	mod = &p->modules[p->nr_modules];
	memset(mod, 0, sizeof(*mod));
	mod->hash = gm_xstrdup(h);
	mod->size = size;
	mod->path = path ? gm_xstrdup(path) : NULL;
	mod->event = ev;
	mod->loaded = 1;
	handle_map_put(&p->module_map, handle, (uint32_t)p->nr_modules);
	p->nr_modules++;
	return 0;
}

int model_unload_module(struct model_prog *p, uint64_t ev, uint64_t handle)
{
	uint32_t id;

	if (check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->module_map, handle, &id)) {
		return gm_error("event %" PRIu64 ": unknown module 0x%" PRIx64,
				ev, handle);
	}
	handle_map_del(&p->module_map, handle);
	p->modules[id].loaded = 0;
	/* Its globals are gone: later pointers to them dangle. */
	for (size_t g = 0; g < p->nr_globals; g++) {
		size_t i;
		if (p->globals[g].module != id) {
			continue;
		}
		for (i = 0; i < p->dev.nr_live; i++) {
			const struct addr_region *r = &p->dev.live[i];
			if (r->kind == GM_REF_GLOBAL && r->id == g) {
				addr_map_remove(&p->dev, r->start, NULL);
				break;
			}
		}
	}
	return 0;
}

static void set_layout(struct model_kernel *k, uint32_t nr,
		       const uint32_t *offsets, const uint32_t *sizes)
{
	k->have_layout = 1;
	k->nr_params = nr;
	k->offsets = gm_xcalloc(nr + 1, sizeof(uint32_t));
	k->sizes = gm_xcalloc(nr + 1, sizeof(uint32_t));
	if (nr) {
		memcpy(k->offsets, offsets, nr * sizeof(uint32_t));
		memcpy(k->sizes, sizes, nr * sizeof(uint32_t));
	}
}

int model_add_kernel(struct model_prog *p, uint64_t ev, uint64_t handle,
		     uint64_t module_handle, const char *name,
		     uint32_t nr_params, const uint32_t *offsets,
		     const uint32_t *sizes)
{
	struct model_kernel *k;
	uint32_t mod;

	if (check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->module_map, module_handle, &mod)) {
		return gm_error("event %" PRIu64 ": kernel '%s' of unknown "
				"module 0x%" PRIx64, ev, name ? name : "?",
				module_handle);
	}
	if (!name || !*name) {
		return gm_error("event %" PRIu64 ": kernel without a name", ev);
	}
	/* The same kernel fetched twice is one kernel. */
	for (size_t i = 0; i < p->nr_kernels; i++) {
		if (p->kernels[i].module == mod &&
		    !strcmp(p->kernels[i].name, name)) {
			handle_map_put(&p->kernel_map, handle, (uint32_t)i);
			if (!p->kernels[i].have_layout && (nr_params || offsets)) {
				set_layout(&p->kernels[i], nr_params, offsets,
					   sizes);
			}
			return 0;
		}
	}
	GM_ALLOC_GROW(p->kernels, p->nr_kernels + 1, p->alloc_kernels);
	k = &p->kernels[p->nr_kernels];
	memset(k, 0, sizeof(*k));
	k->module = mod;
	k->name = gm_xstrdup(name);
	k->event = ev;
	if (nr_params || offsets) {
		set_layout(k, nr_params, offsets, sizes);
	}
	handle_map_put(&p->kernel_map, handle, (uint32_t)p->nr_kernels);
	p->nr_kernels++;
	return 0;
}

int model_alias_kernel(struct model_prog *p, uint64_t ev, uint64_t alias,
		       uint64_t handle)
{
	uint32_t id;

	if (check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->kernel_map, handle, &id)) {
		return gm_error("event %" PRIu64 ": unknown kernel 0x%" PRIx64,
				ev, handle);
	}
	handle_map_put(&p->kernel_map, alias, id);
	return 0;
}

int model_set_kernel_attr(struct model_prog *p, uint64_t ev, uint64_t handle,
			  int attrib, int value)
{
	struct model_kernel *k;
	uint32_t id;

	if (check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->kernel_map, handle, &id)) {
		return gm_error("event %" PRIu64 ": unknown kernel 0x%" PRIx64,
				ev, handle);
	}
	k = &p->kernels[id];
	for (size_t i = 0; i < k->nr_attrs; i++) {
		if (k->attrs[i].attrib == attrib) {
			if (k->attrs[i].value != value) {
				warn(p, ev, "attribute %d of kernel '%s' set to "
				     "%d, then %d: the replay sets %d at init",
				     attrib, k->name, k->attrs[i].value, value,
				     value);
			}
			k->attrs[i].value = value;
			return 0;
		}
	}
	GM_ALLOC_GROW(k->attrs, k->nr_attrs + 1, k->alloc_attrs);
	k->attrs[k->nr_attrs].attrib = attrib;
	k->attrs[k->nr_attrs].value = value;
	k->nr_attrs++;
	return 0;
}

int model_add_global(struct model_prog *p, uint64_t ev, uint64_t module_handle,
		     const char *name, uint64_t dptr, uint64_t size)
{
	struct addr_region r;
	const struct addr_region *o;
	uint32_t mod;
	size_t g;

	if (check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->module_map, module_handle, &mod)) {
		return gm_error("event %" PRIu64 ": global '%s' of unknown "
				"module 0x%" PRIx64, ev, name ? name : "?",
				module_handle);
	}
	if (!name || !*name || !size) {
		return gm_error("event %" PRIu64 ": global without a name or "
				"size", ev);
	}
	for (g = 0; g < p->nr_globals; g++) {
		if (p->globals[g].module == mod &&
		    !strcmp(p->globals[g].name, name)) {
			break;
		}
	}
	if (g == p->nr_globals) {
		GM_ALLOC_GROW(p->globals, p->nr_globals + 1, p->alloc_globals);
		p->globals[g].module = mod;
		p->globals[g].name = gm_xstrdup(name);
		p->globals[g].size = size;
		p->globals[g].event = ev;
		p->nr_globals++;
	}
	o = addr_map_find(&p->dev, dptr, 0);
	if (o && o->kind == GM_REF_GLOBAL && o->id == g && o->start == dptr) {
		return 0;	/* looked up again */
	}
	r.start = dptr;
	r.size = size;
	r.kind = GM_REF_GLOBAL;
	r.id = (uint32_t)g;
	r.event = ev;
	if (addr_map_add(&p->dev, &r) < 0) {
		return gm_error("event %" PRIu64 ": global '%s'", ev, name);
	}
	return 0;
}

/* ---- memory ---- */

int model_alloc_region(struct model_prog *p, uint64_t ev, const char *api,
		       uint64_t start, uint64_t span, uint64_t size,
		       size_t *op_index)
{
	struct addr_region r;
	struct mop *op;

	if (check_open(p) < 0) {
		return -1;
	}
	if (!size || !start || span < size) {
		return gm_error(EVF "allocation of %" PRIu64 " bytes at 0x%"
				PRIx64, ev, api, size, start);
	}
	r.start = start;
	r.size = span;
	r.kind = GM_REF_ALLOC;
	r.id = id_pool_get(&p->alloc_ids);
	r.event = ev;
	if (addr_map_add(&p->dev, &r) < 0) {
		id_pool_put(&p->alloc_ids, r.id);
		return gm_error(EVF "allocation", ev, api);
	}
	op = add_op(p, ev, api, GM_OP_ALLOC);
	op->a = r.id;
	op->x = start;
	op->z = size;
	if (op_index) {
		*op_index = p->nr_ops - 1;
	}
	return 0;
}

int model_add_alloc(struct model_prog *p, uint64_t ev, const char *api,
		    uint64_t dptr, uint64_t size)
{
	return model_alloc_region(p, ev, api, dptr, size, size, NULL);
}

int model_add_free(struct model_prog *p, uint64_t ev, const char *api,
		   uint64_t dptr)
{
	const struct addr_region *f;
	struct addr_region r;
	struct mop *op;

	if (check_open(p) < 0) {
		return -1;
	}
	if (!dptr) {
		return 0;	/* cuMemFree(0) does nothing */
	}
	f = addr_map_find(&p->dev, dptr, 0);
	if (f && f->start == dptr && f->kind == GM_REF_HOSTMEM &&
	    p->hostmems[f->id].kind == GM_HOSTMEM_MANAGED) {
		/* Managed memory: allocated for the whole replay. */
		model_hostmem_drop(p, dptr);
		return 0;
	}
	if (!f || f->start != dptr || f->kind != GM_REF_ALLOC) {
		return gm_error(EVF "0x%" PRIx64 " is not a live allocation",
				ev, api, dptr);
	}
	addr_map_remove(&p->dev, dptr, &r);
	id_pool_put(&p->alloc_ids, r.id);
	op = add_op(p, ev, api, GM_OP_FREE);
	op->a = r.id;
	return 0;
}

/* ---- for the other model files (model_int.h) ---- */

int model_resolve_device(struct model_prog *p, uint64_t ev, const char *api,
			 const char *what, uint64_t addr, uint64_t size,
			 uint32_t *ref, uint64_t *off)
{
	return resolve_dev(p, ev, api, what, addr, size, ref, off);
}

int model_add_host_alloc(struct model_prog *p, uint64_t ev, uint64_t hptr,
			 uint64_t size)
{
	struct addr_region r = { hptr, size, 0, 0, ev };

	if (check_open(p) < 0) {
		return -1;
	}
	if (addr_map_add(&p->host, &r) < 0) {
		return gm_error("event %" PRIu64 ": page-locked host buffer",
				ev);
	}
	/* Kernels may read it at its address too (unified addressing). */
	return model_hostmem_add(p, ev, hptr, size, GM_HOSTMEM_MAPPED);
}

int model_add_host_free(struct model_prog *p, uint64_t ev, uint64_t hptr)
{
	if (check_open(p) < 0) {
		return -1;
	}
	if (addr_map_remove(&p->host, hptr, NULL) < 0) {
		return gm_error("event %" PRIu64 ": 0x%" PRIx64 " is not a live"
				" page-locked host buffer", ev, hptr);
	}
	model_hostmem_drop(p, hptr);
	return 0;
}

/* Host-to-device copies up to these sizes are looked at for device
 * pointers: into a module global (a pointer variable or a small table),
 * into an allocation (a table of pointers, as batched cuBLAS reads one:
 * 8192 of them); bulk data is not. Above GM_INLINE_MAX their bytes are a
 * blob file of the bundle. */
#define PTR_STORE_MAX 4096
#define PTR_STORE_ALLOC_MAX 65536

/*
 * After host-to-device copy @copy (an index into p->ops) into a module
 * global or an allocation: a PTR_STORE for each 8-aligned word of the
 * copied bytes that held an address inside a live allocation or global,
 * so that the replay's memory holds the replay's address (a replay that
 * places the allocations at their captured addresses skips the stores
 * of allocation addresses; globals are never placed). Copies
 * captured into a graph are left as they are (a node cannot be patched
 * at each launch), with a warning.
 */
static int pointer_stores(struct model_prog *p, uint64_t ev,
			  const char *api, size_t copy,
			  const struct model_copy *c)
{
	const struct model_blob *b = &p->m->blobs[c->blob];
	struct mop h2d = p->ops[copy];
	struct strbuf file = STRBUF_INIT;
	const uint8_t *bytes = b->bytes;
	struct reloc_word *words;
	uint32_t kind = h2d.a & GM_REF_KIND_MASK;
	size_t nw;

	if ((kind != GM_REF_GLOBAL && kind != GM_REF_ALLOC) ||
	    c->size > (kind == GM_REF_GLOBAL ? PTR_STORE_MAX :
					       PTR_STORE_ALLOC_MAX) ||
	    h2d.x % 8 || (!bytes && !b->path)) {
		return 0;
	}
	if (!bytes) {
		if (gm_read_file(b->path, &file) < 0) {
			return -1;
		}
		if (file.len < c->blob_offset + c->size) {
			strbuf_release(&file);
			return gm_error(EVF "source data '%s' holds %zu bytes, "
					"fewer than the copy's", ev, api,
					b->path, file.len);
		}
		bytes = (const uint8_t *)file.buf;
	}
	words = gm_xcalloc(c->size / 8 + 1, sizeof(*words));
	nw = reloc_classify(bytes + c->blob_offset, (uint32_t)c->size, NULL,
			    NULL, 0, &p->dev, NULL, NULL, words);
	for (size_t i = 0; i < nw; i++) {
		struct mop *op;
		uint32_t to = words[i].ref & GM_REF_KIND_MASK;
		/* Into an allocation, or a module global (which lies where
		 * the replay's driver puts it, in every mode). */
		if (words[i].cls != RELOC_LIVE ||
		    (to != GM_REF_ALLOC && to != GM_REF_GLOBAL)) {
			continue;
		}
		if (model_graph_capturing(p, h2d.stream)) {
			warn(p, ev, "a device pointer copied into device memory "
			     "inside a graph is not relocated: the replay keeps "
			     "the captured address");
			break;
		}
		op = add_op(p, ev, api, GM_OP_PTR_STORE);
		op->stream = h2d.stream;
		op->flags = h2d.flags & GM_F_SYNC;
		op->a = h2d.a;
		op->x = h2d.x + words[i].offset;
		op->b = words[i].ref;
		op->y = words[i].addend;
		p->nr_pointer_stores++;
	}
	free(words);
	strbuf_release(&file);
	return 0;
}

int model_add_copy(struct model_prog *p, uint64_t ev, const char *api,
		   const struct model_copy *c)
{
	struct model *m = p->m;
	uint32_t dref = 0, sref = 0;
	uint64_t doff = 0, soff = 0;
	uint16_t s;
	struct mop *op;

	if (check_open(p) < 0 || stream_id(p, ev, api, c->stream, &s) < 0) {
		return -1;
	}
	if (!c->size) {
		p->nr_skipped++;
		return 0;
	}
	switch (c->kind) {
	case MODEL_H2D:
		if (resolve_dev(p, ev, api, "destination", c->dst, c->size,
				&dref, &doff) < 0) {
			return -1;
		}
		if (c->blob >= m->nr_blobs ||
		    c->blob_offset > m->blobs[c->blob].size ||
		    c->size > m->blobs[c->blob].size - c->blob_offset) {
			return gm_error(EVF "source data (blob %" PRIu32
					") is missing or too small", ev, api,
					c->blob);
		}
		op = add_op(p, ev, api, GM_OP_H2D);
		op->a = dref;
		op->x = doff;
		op->b = c->blob;
		op->y = c->blob_offset;
		/* A graph's copy reads its source at every launch, and
		 * CUDA captures copies from page-locked memory only. */
		if (is_pinned(p, c->src, c->size) || model_graph_capturing(p, s)) {
			op->flags |= GM_F_PINNED;
			m->blobs[c->blob].flags |= GM_BLOB_PINNED;
		}
		break;
	case MODEL_D2H:
		if (resolve_dev(p, ev, api, "source", c->src, c->size, &sref,
				&soff) < 0) {
			return -1;
		}
		if (model_graph_capturing(p, s)) {
			/* A node of a graph: each launch delivers it. */
			op = add_op(p, ev, api, GM_OP_D2H);
			op->b = GM_NONE;
			op->flags |= GM_F_GRAPH;
			model_graph_copy_node(p, s, (uint32_t)(p->nr_ops - 1),
					      c->dst);
		} else if (c->d2h_hash) {
			char h[33];
			if (canonical_hash(c->d2h_hash, h) < 0) {
				return gm_error(EVF "bad result hash '%s'", ev,
						api, c->d2h_hash);
			}
			op = add_op(p, ev, api, GM_OP_D2H);
			op->b = gm_strmap_intern(&p->checks, h);
		} else {
			op = add_op(p, ev, api, GM_OP_D2H);
			op->b = GM_NONE;
			p->nr_unverifiable++;
			handle_map_put(&p->unchecked, ev,
				       (uint32_t)(p->nr_ops - 1));
		}
		op->a = sref;
		op->x = soff;
		if (is_pinned(p, c->dst, c->size) || (op->flags & GM_F_GRAPH)) {
			op->flags |= GM_F_PINNED;
		} else if (c->flags & MODEL_HOST_WARM) {
			op->flags |= GM_F_HOST_WARM;
		}
		break;
	case MODEL_D2D:
		if (resolve_dev(p, ev, api, "destination", c->dst, c->size,
				&dref, &doff) < 0 ||
		    resolve_dev(p, ev, api, "source", c->src, c->size, &sref,
				&soff) < 0) {
			return -1;
		}
		op = add_op(p, ev, api, GM_OP_D2D);
		op->a = dref;
		op->x = doff;
		op->b = sref;
		op->y = soff;
		break;
	default:
		return gm_error(EVF "unknown copy kind %d", ev, api, c->kind);
	}
	op->stream = s;
	op->z = c->size;
	if (c->flags & MODEL_SYNC) {
		op->flags |= GM_F_SYNC;
	}
	if (c->kind == MODEL_H2D) {
		return pointer_stores(p, ev, api, op - p->ops, c);
	}
	return 0;
}

int model_set_result_hash(struct model_prog *p, uint64_t ev, uint64_t copy_ev,
			  const char *hash)
{
	uint32_t idx;
	char h[33];

	if (check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->unchecked, copy_ev, &idx)) {
		return gm_error("event %" PRIu64 ": no device-to-host copy at "
				"event %" PRIu64 " waits for a result hash", ev,
				copy_ev);
	}
	if (canonical_hash(hash, h) < 0) {
		return gm_error("event %" PRIu64 ": bad result hash '%s'", ev,
				hash ? hash : "(null)");
	}
	handle_map_del(&p->unchecked, copy_ev);
	p->ops[idx].b = gm_strmap_intern(&p->checks, h);
	p->nr_unverifiable--;
	return 0;
}

int model_set_result_overwritten(struct model_prog *p, uint64_t ev,
				 uint64_t copy_ev)
{
	uint32_t idx;

	if (check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->unchecked, copy_ev, &idx)) {
		return gm_error("event %" PRIu64 ": no device-to-host copy at "
				"event %" PRIu64 " waits for a result hash", ev,
				copy_ev);
	}
	handle_map_del(&p->unchecked, copy_ev);
	p->nr_unverifiable--;
	p->nr_overwritten++;
	return 0;
}

int model_add_memset(struct model_prog *p, uint64_t ev, const char *api,
		     uint64_t dst, uint32_t value, unsigned elem_size,
		     uint64_t count, uint64_t stream, unsigned flags)
{
	unsigned code;
	uint32_t ref;
	uint64_t off;
	uint16_t s;
	struct mop *op;

	if (check_open(p) < 0 || stream_id(p, ev, api, stream, &s) < 0) {
		return -1;
	}
	switch (elem_size) {
	case 1:
		code = GM_OP_MEMSET8;
		value &= 0xff;
		break;
	case 2:
		code = GM_OP_MEMSET16;
		value &= 0xffff;
		break;
	case 4:
		code = GM_OP_MEMSET32;
		break;
	default:
		return gm_error(EVF "memset of %u-byte elements", ev, api,
				elem_size);
	}
	if (!count) {
		p->nr_skipped++;
		return 0;
	}
	if (resolve_dev(p, ev, api, "destination", dst, count * elem_size,
			&ref, &off) < 0) {
		return -1;
	}
	op = add_op(p, ev, api, code);
	op->stream = s;
	op->a = ref;
	op->x = off;
	op->c = value;
	op->z = count;
	if (flags & MODEL_SYNC) {
		op->flags |= GM_F_SYNC;
	}
	return 0;
}

/* ---- launches ---- */

static void kernel_grow_pos(struct model_kernel *k, uint32_t size)
{
	uint32_t n = (size + 7) / 8;

	if (n <= k->nr_pos) {
		return;
	}
	k->pos = gm_xrealloc(k->pos, n * sizeof(*k->pos));
	memset(k->pos + k->nr_pos, 0, (n - k->nr_pos) * sizeof(*k->pos));
	k->nr_pos = n;
}

int model_add_launch(struct model_prog *p, uint64_t ev, const char *api,
		     const struct model_launch *l)
{
	struct model_kernel *k;
	struct raw_launch hdr;
	struct reloc_word *words;
	struct strbuf key = STRBUF_INIT;
	uint32_t kid, extent = 0;
	uint16_t s;
	size_t nw;
	struct mop *op;

	if (check_open(p) < 0 || stream_id(p, ev, api, l->stream, &s) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->kernel_map, l->kernel, &kid)) {
		gm_error(EVF "unknown kernel 0x%" PRIx64, ev, api, l->kernel);
		gm_error_hint("no traced call named it, and the capture could not "
			      "name its module (the bundle's loss.unnamed_kernels; "
			      "doc/gpumix-capture.md, \"Kernels from libraries\")");
		return -1;
	}
	k = &p->kernels[kid];
	if (!k->have_layout && (l->nr_params || l->param_offsets)) {
		set_layout(k, l->nr_params, l->param_offsets, l->param_sizes);
	}
	if (!k->have_layout && l->params_size && !k->warned_layout) {
		warn(p, ev, "kernel '%s' has no parameter layout: every "
		     "8-aligned word of its parameters is a relocation "
		     "candidate", k->name);
		k->warned_layout = 1;
	}
	for (uint32_t i = 0; i < k->nr_params; i++) {
		if (k->offsets[i] + k->sizes[i] > extent) {
			extent = k->offsets[i] + k->sizes[i];
		}
	}
	if (l->params_size < extent) {
		return gm_error(EVF "%" PRIu32 " parameter bytes for kernel "
				"'%s', whose layout needs %" PRIu32, ev, api,
				l->params_size, k->name, extent);
	}
	for (int d = 0; d < 3; d++) {
		if (!l->grid[d] || !l->block[d]) {
			return gm_error(EVF "empty grid or block for kernel "
					"'%s'", ev, api, k->name);
		}
	}
	words = gm_xcalloc(l->params_size / 8 + 1, sizeof(*words));
	nw = reloc_classify(l->params, l->params_size, k->offsets, k->sizes,
			    k->nr_params, &p->dev, &p->host, &p->texture_map,
			    words);
	kernel_grow_pos(k, l->params_size);
	for (size_t i = 0; i < nw; i++) {
		reloc_stat_add(&k->pos[words[i].offset / 8], words[i].cls);
	}
	k->nr_launches++;

	memset(&hdr, 0, sizeof(hdr));
	hdr.kernel = kid;
	memcpy(hdr.grid, l->grid, sizeof(hdr.grid));
	memcpy(hdr.block, l->block, sizeof(hdr.block));
	hdr.smem = l->smem;
	memcpy(hdr.cluster, l->cluster, sizeof(hdr.cluster));
	hdr.flags = l->cooperative ? GM_LAUNCH_COOPERATIVE : 0;
	hdr.size = l->params_size;
	hdr.nr_words = (uint32_t)nw;
	strbuf_add(&key, &hdr, sizeof(hdr));
	if (l->params_size) {
		strbuf_add(&key, l->params, l->params_size);
	}
	strbuf_add(&key, words, nw * sizeof(*words));
	free(words);

	op = add_op(p, ev, api, GM_OP_LAUNCH);
	op->stream = s;
	op->a = gm_strmap_add(&p->raw_launches, key.buf, key.len, NULL);
	strbuf_release(&key);
	return 0;
}

/* ---- streams, events, synchronization ---- */

int model_add_stream(struct model_prog *p, uint64_t ev, uint64_t handle,
		     int non_blocking, int priority)
{
	uint32_t flags = non_blocking ? 0 : GM_STREAM_BLOCKING;
	size_t id;

	if (check_open(p) < 0) {
		return -1;
	}
	if (handle <= STREAM_PER_THREAD_HANDLE) {
		return gm_error("event %" PRIu64 ": stream handle 0x%" PRIx64
				" is reserved", ev, handle);
	}
	/* Reuse a destroyed stream of the same kind: streams are made at
	 * init, so the table holds as many as were ever live at once. */
	for (id = 1; id < p->nr_streams; id++) {
		struct model_stream *st = &p->streams[id];
		if (!st->live && st->d.flags == flags &&
		    st->d.priority == priority) {
			break;
		}
	}
	if (id == p->nr_streams) {
		if (id > UINT16_MAX) {
			return gm_error("event %" PRIu64 ": more than %u "
					"streams live at once", ev, UINT16_MAX);
		}
		GM_ALLOC_GROW(p->streams, p->nr_streams + 1, p->alloc_streams);
		p->streams[id].d.flags = flags;
		p->streams[id].d.priority = priority;
		p->nr_streams++;
	}
	p->streams[id].live = 1;
	handle_map_put(&p->stream_map, handle, (uint32_t)id);
	return 0;
}

int model_destroy_stream(struct model_prog *p, uint64_t ev, uint64_t handle)
{
	uint32_t id;

	if (check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->stream_map, handle, &id)) {
		return gm_error("event %" PRIu64 ": destroying unknown stream "
				"0x%" PRIx64, ev, handle);
	}
	handle_map_del(&p->stream_map, handle);
	p->streams[id].live = 0;
	return 0;
}

int model_add_event(struct model_prog *p, uint64_t ev, uint64_t handle,
		    unsigned flags)
{
	size_t id;

	if (check_open(p) < 0) {
		return -1;
	}
	flags &= 0x3;	/* BLOCKING_SYNC, DISABLE_TIMING; not INTERPROCESS */
	for (id = 0; id < p->nr_events; id++) {
		if (!p->events[id].live && p->events[id].flags == flags) {
			break;
		}
	}
	if (id == p->nr_events) {
		GM_ALLOC_GROW(p->events, p->nr_events + 1, p->alloc_events);
		p->events[id].flags = flags;
		p->nr_events++;
	}
	p->events[id].live = 1;
	handle_map_put(&p->event_map, handle, (uint32_t)id);
	return 0;
}

int model_destroy_event(struct model_prog *p, uint64_t ev, uint64_t handle)
{
	uint32_t id;

	if (check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->event_map, handle, &id)) {
		return gm_error("event %" PRIu64 ": destroying unknown CUDA "
				"event 0x%" PRIx64, ev, handle);
	}
	handle_map_del(&p->event_map, handle);
	p->events[id].live = 0;
	return 0;
}

int model_add_event_record(struct model_prog *p, uint64_t ev, const char *api,
			   uint64_t event, uint64_t stream)
{
	uint32_t e;
	uint16_t s;
	struct mop *op;

	if (check_open(p) < 0 || event_id(p, ev, api, event, &e) < 0 ||
	    stream_id(p, ev, api, stream, &s) < 0) {
		return -1;
	}
	op = add_op(p, ev, api, GM_OP_EVENT_RECORD);
	op->a = e;
	op->stream = s;
	model_graph_event_record(p, e, s);
	return 0;
}

int model_add_stream_wait(struct model_prog *p, uint64_t ev, const char *api,
			  uint64_t stream, uint64_t event)
{
	uint32_t e;
	uint16_t s;
	struct mop *op;

	if (check_open(p) < 0 || event_id(p, ev, api, event, &e) < 0 ||
	    stream_id(p, ev, api, stream, &s) < 0) {
		return -1;
	}
	op = add_op(p, ev, api, GM_OP_STREAM_WAIT);
	op->a = e;
	op->stream = s;
	model_graph_stream_wait(p, s, e);
	return 0;
}

int model_add_event_sync(struct model_prog *p, uint64_t ev, const char *api,
			 uint64_t event)
{
	uint32_t e;

	if (check_open(p) < 0 || event_id(p, ev, api, event, &e) < 0) {
		return -1;
	}
	add_op(p, ev, api, GM_OP_EVENT_SYNC)->a = e;
	return 0;
}

int model_add_stream_sync(struct model_prog *p, uint64_t ev, const char *api,
			  uint64_t stream)
{
	uint16_t s;

	if (check_open(p) < 0 || stream_id(p, ev, api, stream, &s) < 0) {
		return -1;
	}
	add_op(p, ev, api, GM_OP_STREAM_SYNC)->stream = s;
	return 0;
}

int model_add_ctx_sync(struct model_prog *p, uint64_t ev, const char *api)
{
	if (check_open(p) < 0) {
		return -1;
	}
	add_op(p, ev, api, GM_OP_CTX_SYNC);
	return 0;
}

/* ---- host functions ---- */

int model_add_host_func(struct model_prog *p, uint64_t ev, const char *api,
			uint64_t stream, uint64_t ns)
{
	struct mop *op;
	uint16_t s;

	if (check_open(p) < 0 || stream_id(p, ev, api, stream, &s) < 0) {
		return -1;
	}
	op = add_op(p, ev, api, GM_OP_HOST_FUNC);
	op->stream = s;
	op->x = ns;
	handle_map_put(&p->host_funcs, ev, (uint32_t)(op - p->ops));
	return 0;
}

int model_set_host_func_ns(struct model_prog *p, uint64_t ev, uint64_t call_ev,
			   uint64_t ns)
{
	uint32_t idx;

	if (check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->host_funcs, call_ev, &idx)) {
		return gm_error("event %" PRIu64 ": no host function at event %"
				PRIu64, ev, call_ev);
	}
	p->ops[idx].x = ns;
	return 0;
}

/* ---- textures ---- */

int model_add_texture(struct model_prog *p, uint64_t ev, const char *api,
		      uint64_t handle, const struct model_texture *t)
{
	struct gm_texture_desc d;
	uint64_t len;
	uint32_t tid;
	struct mop *op;

	if (check_open(p) < 0) {
		return -1;
	}
	if (t->res_type != RES_LINEAR && t->res_type != RES_PITCH2D &&
	    t->res_type != RES_ARRAY) {
		return gm_error(EVF "texture objects over mipmapped arrays "
				"(resource type %" PRIu32 ") are not "
				"supported", ev, api, t->res_type);
	}
	memset(&d, 0, sizeof(d));
	len = t->res_type == RES_PITCH2D ? t->pitch * t->height : t->size_bytes;
	if (t->res_type == RES_ARRAY) {
		long id = model_array_id(p, t->array);
		if (id < 0) {
			return gm_error(EVF "texture over unknown array 0x%"
					PRIx64, ev, api, t->array);
		}
		d.ref = GM_R((uint32_t)id);
	} else if (resolve_dev(p, ev, api, "texture memory", t->addr, len,
			       &d.ref, &d.offset) < 0) {
		return -1;
	}
	d.res_type = t->res_type;
	d.format = t->format;
	d.channels = t->channels;
	if (t->res_type == RES_PITCH2D) {
		d.width = t->width;
		d.height = t->height;
		d.pitch = t->pitch;
	} else {
		d.size_bytes = t->size_bytes;
	}
	memcpy(d.address_mode, t->address_mode, sizeof(d.address_mode));
	d.filter_mode = t->filter_mode;
	d.flags = t->flags;
	d.max_anisotropy = t->max_anisotropy;
	d.mipmap_filter_mode = t->mipmap_filter_mode;
	d.mipmap_level_bias = t->mipmap_level_bias;
	d.min_mipmap_level_clamp = t->min_mipmap_level_clamp;
	d.max_mipmap_level_clamp = t->max_mipmap_level_clamp;
	memcpy(d.border_color, t->border_color, sizeof(d.border_color));

	tid = id_pool_get(&p->tex_ids);
	handle_map_put(&p->texture_map, handle, tid);
	op = add_op(p, ev, api, GM_OP_TEX_CREATE);
	op->a = tid;
	op->b = gm_strmap_add(&p->texdescs, &d, sizeof(d), NULL);
	return 0;
}

int model_destroy_texture(struct model_prog *p, uint64_t ev, const char *api,
			  uint64_t handle)
{
	uint32_t tid;

	if (check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->texture_map, handle, &tid)) {
		return gm_error(EVF "unknown texture object 0x%" PRIx64, ev,
				api, handle);
	}
	handle_map_del(&p->texture_map, handle);
	id_pool_put(&p->tex_ids, tid);
	add_op(p, ev, api, GM_OP_TEX_DESTROY)->a = tid;
	return 0;
}

void model_add_unsupported(struct model_prog *p, uint64_t ev, const char *api)
{
	GM_ALLOC_GROW(p->unsupported, p->nr_unsup_list + 1,
		      p->alloc_unsup_list);
	p->unsupported[p->nr_unsup_list].event = ev;
	p->unsupported[p->nr_unsup_list].text = gm_xstrdup(api ? api : "?");
	p->nr_unsup_list++;
	p->nr_unsupported++;
}

void model_add_warning(struct model_prog *p, uint64_t ev, const char *fmt, ...)
{
	struct strbuf sb = STRBUF_INIT;
	va_list ap;

	va_start(ap, fmt);
	strbuf_vaddf(&sb, fmt, ap);
	va_end(ap);
	warn(p, ev, "%s", sb.buf);
	strbuf_release(&sb);
}

int model_unsupported_call(const struct model *m, uint64_t i,
			   const char **prog, uint64_t *ev, const char **api)
{
	for (size_t k = 0; k < m->nr_progs; k++) {
		const struct model_prog *p = m->progs[k];
		if (i < p->nr_unsup_list) {
			*prog = p->name;
			*ev = p->unsupported[i].event;
			*api = p->unsupported[i].text;
			return 0;
		}
		i -= p->nr_unsup_list;
	}
	return -1;
}

uint64_t model_nr_unsupported(const struct model *m)
{
	uint64_t n = 0;

	for (size_t i = 0; i < m->nr_progs; i++) {
		n += m->progs[i]->nr_unsupported;
	}
	return n;
}

/* ---- finishing ---- */

static void decide_kernels(struct model_prog *p)
{
	for (size_t i = 0; i < p->nr_kernels; i++) {
		struct model_kernel *k = &p->kernels[i];
		k->verdict = gm_xcalloc(k->nr_pos + 1, 1);
		for (uint32_t w = 0; w < k->nr_pos; w++) {
			const struct reloc_stat *s = &k->pos[w];
			enum reloc_verdict v = reloc_decide(s);
			k->verdict[w] = (uint8_t)v;
			switch (v) {
			case VERDICT_AMBIGUOUS:
				warn(p, k->event, "kernel '%s' parameter bytes "
				     "%u-%u: %u values pointed into live memory"
				     " or were texture objects and %u did not "
				     "look like pointers: not relocated",
				     k->name, w * 8, w * 8 + 7,
				     s->live + s->tex, s->other + s->dead +
				     s->host);
				break;
			case VERDICT_DANGLING:
				warn(p, k->event, "kernel '%s' parameter bytes "
				     "%u-%u point only into freed memory (%u "
				     "launches): left as captured", k->name,
				     w * 8, w * 8 + 7, s->dead);
				break;
			case VERDICT_HOST:
				warn(p, k->event, "kernel '%s' parameter bytes "
				     "%u-%u point into page-locked host memory "
				     "(zero-copy), which the replay does not "
				     "reproduce", k->name, w * 8, w * 8 + 7);
				break;
			case VERDICT_PTR:
				if (s->dead) {
					warn(p, k->event, "kernel '%s' parameter "
					     "bytes %u-%u: %u launches passed a "
					     "pointer into freed memory: left as "
					     "captured", k->name, w * 8, w * 8 + 7,
					     s->dead);
				}
				break;
			default:
				break;
			}
		}
	}
}

static uint32_t add_params(struct model_prog *p, const uint8_t *bytes,
			   uint32_t size, const struct gm_reloc *relocs,
			   uint32_t nr_relocs)
{
	struct strbuf key = STRBUF_INIT;
	uint32_t id;
	int is_new;

	strbuf_add(&key, &size, sizeof(size));
	strbuf_add(&key, &nr_relocs, sizeof(nr_relocs));
	strbuf_add(&key, bytes, size);
	strbuf_add(&key, relocs, nr_relocs * sizeof(*relocs));
	id = gm_strmap_add(&p->params_keys, key.buf, key.len, &is_new);
	strbuf_release(&key);
	if (is_new) {
		struct model_params *mp;
		GM_ALLOC_GROW(p->params, p->nr_params + 1, p->alloc_params);
		mp = &p->params[p->nr_params++];
		mp->size = size;
		mp->bytes = gm_xmalloc(size + 1);
		memcpy(mp->bytes, bytes, size);
		mp->nr_relocs = nr_relocs;
		mp->relocs = gm_xcalloc(nr_relocs + 1, sizeof(*relocs));
		memcpy(mp->relocs, relocs, nr_relocs * sizeof(*relocs));
	}
	return id;
}

/* Raw launch -> final launch id, relocating by the kernel's verdicts. */
static uint32_t finish_launch(struct model_prog *p, uint32_t raw_id)
{
	const uint8_t *key = gm_strmap_key(&p->raw_launches, raw_id, NULL);
	struct raw_launch hdr;
	const struct reloc_word *words;
	const struct model_kernel *k;
	struct gm_launch_desc ld;
	struct gm_reloc *relocs;
	uint8_t *bytes;
	uint32_t nr = 0;

	memcpy(&hdr, key, sizeof(hdr));
	bytes = gm_xmalloc(hdr.size + 1);
	memcpy(bytes, key + sizeof(hdr), hdr.size);
	words = (const void *)(key + sizeof(hdr) + hdr.size);
	relocs = gm_xcalloc(hdr.nr_words + 1, sizeof(*relocs));
	k = &p->kernels[hdr.kernel];
	for (uint32_t i = 0; i < hdr.nr_words; i++) {
		struct reloc_word w;
		enum reloc_verdict v;

		memcpy(&w, &words[i], sizeof(w));
		v = (enum reloc_verdict)k->verdict[w.offset / 8];
		if ((v == VERDICT_PTR && w.cls == RELOC_LIVE) ||
		    (v == VERDICT_TEX && w.cls == RELOC_TEX)) {
			memset(bytes + w.offset, 0, 8);
			relocs[nr].offset = w.offset;
			relocs[nr].ref = w.ref;
			relocs[nr].addend = w.addend;
			nr++;
		}
	}
	memset(&ld, 0, sizeof(ld));
	ld.kernel = hdr.kernel;
	ld.params = add_params(p, bytes, hdr.size, relocs, nr);
	memcpy(ld.grid, hdr.grid, sizeof(ld.grid));
	memcpy(ld.block, hdr.block, sizeof(ld.block));
	ld.smem = hdr.smem;
	memcpy(ld.cluster, hdr.cluster, sizeof(ld.cluster));
	ld.flags = hdr.flags;
	free(bytes);
	free(relocs);
	return gm_strmap_add(&p->launches, &ld, sizeof(ld), NULL);
}

/* Count what each launch relocates (per launch, not per distinct one). */
static void count_launch(struct model_prog *p, uint32_t launch)
{
	const struct gm_launch_desc *ld = gm_strmap_key(&p->launches, launch, NULL);
	const struct model_params *mp = &p->params[ld->params];

	for (uint32_t i = 0; i < mp->nr_relocs; i++) {
		uint32_t kind = mp->relocs[i].ref & GM_REF_KIND_MASK;
		if (kind == GM_REF_HOSTMEM) {
			p->hostmems[mp->relocs[i].ref & GM_REF_ID_MASK].used = 1;
		}
		if (kind == GM_REF_TEXTURE) {
			p->nr_tex_words++;
		} else {
			p->nr_relocated_words++;
		}
	}
}

/*
 * Host arena: where each D2H copy lands. A synchronous result is checked
 * at once, so it only needs room after the results still pending; an
 * asynchronous one keeps its room until its stream (or the program) is
 * synchronized, which is when the runtime checks it. A graph's copy node
 * writes its room at every launch: it keeps it for good, below the rest.
 * The copies whose captured destination was resident (GM_F_HOST_WARM)
 * get rooms of their own, above the others: the replay touches those
 * before each replay and gives the rest fresh pages, so a fresh copy
 * never lands in a warm copy's pages.
 */
static void layout_arena(struct model_prog *p)
{
	uint64_t base = model_graphs_arena(p, ARENA_ALIGN);
	/* [0]: fresh rooms, from base; [1]: warm rooms, from 0, moved
	 * above the fresh ones at the end */
	uint64_t cursor[2] = { base, 0 }, top[2] = { base, 0 }, warm_base;
	uint32_t *pending = gm_xcalloc(p->nr_streams + 1, sizeof(uint32_t));
	uint64_t nr_pending = 0;

	for (size_t i = 0; i < p->nr_ops; i++) {
		struct mop *op = &p->ops[i];
		int w = !!(op->flags & GM_F_HOST_WARM);
		switch (op->code) {
		case GM_OP_D2H:
		case GM_OP_COPY_OUT:
			if (op->flags & GM_F_GRAPH) {
				break;
			}
			op->y = cursor[w];
			if (cursor[w] + op->z > top[w]) {
				top[w] = cursor[w] + op->z;
			}
			if (!(op->flags & GM_F_SYNC)) {
				cursor[w] += (op->z + ARENA_ALIGN - 1) &
					     ~(uint64_t)(ARENA_ALIGN - 1);
				pending[op->stream]++;
				nr_pending++;
			}
			break;
		case GM_OP_STREAM_SYNC:
			nr_pending -= pending[op->stream];
			pending[op->stream] = 0;
			if (!nr_pending) {
				cursor[0] = base;
				cursor[1] = 0;
			}
			break;
		case GM_OP_CTX_SYNC:
			memset(pending, 0, (p->nr_streams + 1) * sizeof(uint32_t));
			nr_pending = 0;
			cursor[0] = base;
			cursor[1] = 0;
			break;
		}
	}
	/* on a page boundary of any page size, so that touching the warm
	 * rooms' pages touches none of the fresh ones */
	warm_base = (top[0] + WARM_ALIGN - 1) & ~(uint64_t)(WARM_ALIGN - 1);
	for (size_t i = 0; i < p->nr_ops && top[1]; i++) {
		struct mop *op = &p->ops[i];
		if (op->code == GM_OP_D2H && (op->flags & GM_F_HOST_WARM) &&
		    !(op->flags & GM_F_GRAPH)) {
			op->y += warm_base;
		}
	}
	p->host_arena = top[1] ? warm_base + top[1] : top[0];
	free(pending);
}

int model_finish(struct model *m)
{
	if (m->finished) {
		return 0;
	}
	if (!m->nr_progs) {
		return gm_error("the workload has no programs");
	}
	for (size_t i = 0; i < m->nr_progs; i++) {
		struct model_prog *p = m->progs[i];
		uint32_t *final = gm_xcalloc(p->raw_launches.nr + 1,
					     sizeof(uint32_t));

		decide_kernels(p);
		for (uint32_t r = 0; r < p->raw_launches.nr; r++) {
			final[r] = finish_launch(p, r);
		}
		for (size_t o = 0; o < p->nr_ops; o++) {
			struct mop *op = &p->ops[o];
			if (op->code == GM_OP_LAUNCH ||
			    op->code == GM_OP_KNODE_SET) {
				op->a = final[op->a];
				count_launch(p, op->a);
			}
		}
		free(final);
		layout_arena(p);
		if (model_hosttime_finish(p) < 0) {
			return -1;
		}
	}
	if (!m->name) {
		const char **names = gm_xcalloc(m->nr_progs + 1, sizeof(*names));
		for (size_t i = 0; i < m->nr_progs; i++) {
			names[i] = m->progs[i]->name;
		}
		m->name = gm_workload_name(names, m->nr_progs);
		free(names);
	}
	m->finished = 1;
	return 0;
}

enum gm_op_group model_op_group(unsigned code)
{
	static const enum gm_op_group groups[GM_OP_COUNT] = {
#define GM_OP_GROUP_(name, what, group, operands) [GM_OP_##name] = group,
#define GM_OPND_NONE_(field, kind)
		GM_OPS(GM_OP_GROUP_, GM_OPND_NONE_)
#undef GM_OP_GROUP_
#undef GM_OPND_NONE_
	};
	return code < GM_OP_COUNT ? groups[code] : GM_OPG_OTHER;
}

void model_report(const struct model *m, struct strbuf *out)
{
	for (size_t i = 0; i < m->nr_progs; i++) {
		const struct model_prog *p = m->progs[i];
		uint64_t launches = 0, copies = 0;

		for (size_t o = 0; o < p->nr_ops; o++) {
			enum gm_op_group g = model_op_group(p->ops[o].code);
			launches += g == GM_OPG_LAUNCH;
			copies += g == GM_OPG_COPY;
		}
		strbuf_addf(out, "program '%s': %zu operations (%" PRIu64
			    " launches of %zu kernels, %" PRIu64 " copies), "
			    "%" PRIu64 " pointer and %" PRIu64 " texture "
			    "parameter words relocated, %" PRIu64
			    " results not verifiable, %" PRIu64
			    " unsupported calls\n",
			    p->name, p->nr_ops, launches, p->nr_kernels, copies,
			    p->nr_relocated_words, p->nr_tex_words,
			    p->nr_unverifiable, p->nr_unsupported);
		if (p->nr_overwritten) {
			strbuf_addf(out, "note: program '%s': %" PRIu64
				    " device-to-host copies were overwritten by "
				    "a later copy before the program "
				    "synchronized with them: no result to "
				    "verify\n", p->name, p->nr_overwritten);
		}
		if (p->nr_pointer_stores) {
			strbuf_addf(out, "note: program '%s': %" PRIu64 " device "
				    "pointers copied into device memory are "
				    "relocated (unless the allocations are at "
				    "their captured addresses)\n", p->name,
				    p->nr_pointer_stores);
		}
		model_hostmem_report(p, out);
		model_vmm_report(p, out);
		for (size_t w = 0; w < p->nr_warnings; w++) {
			strbuf_addf(out, "warning: program '%s': event %" PRIu64
				    ": %s\n", p->name, p->warnings[w].event,
				    p->warnings[w].text);
		}
		for (size_t u = 0; u < p->nr_unsup_list; u++) {
			strbuf_addf(out, "warning: program '%s': event %"
				    PRIu64 ": %s: unsupported, not replayed\n",
				    p->name, p->unsupported[u].event,
				    p->unsupported[u].text);
		}
	}
}
