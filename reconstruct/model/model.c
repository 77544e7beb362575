/* SPDX-License-Identifier: MIT */
/*
 * Building the replay model from trace events (see model.h): the
 * workload and its programs, the blobs, finishing and the report; the
 * calls themselves are model_code.c, model_mem.c, model_launch.c,
 * model_stream.c, model_sync.c, model_texture.c, on model_core.c's helpers.
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

#define ARENA_ALIGN 64
#define WARM_ALIGN 65536	/* the warm rooms start on a page of any size */

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

	if (model_canonical_hash(hash, h) < 0) {
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
				model_add_warning(p, k->event, "kernel '%s' parameter bytes "
				     "%u-%u: %u values pointed into live memory"
				     " or were texture objects and %u did not "
				     "look like pointers: not relocated",
				     k->name, w * 8, w * 8 + 7,
				     s->live + s->tex, s->other + s->dead +
				     s->host);
				break;
			case VERDICT_DANGLING:
				model_add_warning(p, k->event, "kernel '%s' parameter bytes "
				     "%u-%u point only into freed memory (%u "
				     "launches): left as captured", k->name,
				     w * 8, w * 8 + 7, s->dead);
				break;
			case VERDICT_HOST:
				model_add_warning(p, k->event, "kernel '%s' parameter bytes "
				     "%u-%u point into page-locked host memory "
				     "(zero-copy), which the replay does not "
				     "reproduce", k->name, w * 8, w * 8 + 7);
				break;
			case VERDICT_PTR:
				if (s->dead) {
					model_add_warning(p, k->event, "kernel '%s' parameter "
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
