/* SPDX-License-Identifier: MIT */
/*
 * The model's code: modules, kernels and their attributes, globals.
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

/* ---- code ---- */

int model_add_module(struct model_prog *p, uint64_t ev, uint64_t handle,
		     const char *hash, uint64_t size, const char *path)
{
	struct model_module *mod;
	char h[33];

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (model_canonical_hash(hash, h) < 0) {
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

	if (model_check_open(p) < 0) {
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

void model_kernel_set_layout(struct model_kernel *k, uint32_t nr,
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

	if (model_check_open(p) < 0) {
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
				model_kernel_set_layout(&p->kernels[i], nr_params, offsets,
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
		model_kernel_set_layout(k, nr_params, offsets, sizes);
	}
	handle_map_put(&p->kernel_map, handle, (uint32_t)p->nr_kernels);
	p->nr_kernels++;
	return 0;
}

int model_alias_kernel(struct model_prog *p, uint64_t ev, uint64_t alias,
		       uint64_t handle)
{
	uint32_t id;

	if (model_check_open(p) < 0) {
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

	if (model_check_open(p) < 0) {
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
				model_add_warning(p, ev, "attribute %d of kernel '%s' set to "
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

	if (model_check_open(p) < 0) {
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
