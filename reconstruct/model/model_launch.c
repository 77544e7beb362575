/* SPDX-License-Identifier: MIT */
/*
 * The model's launches and host functions.
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

/* "event 12 (cuMemcpyHtoD_v2): " prefix of every per-call message. */
#define EVF "event %" PRIu64 " (%s): "

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

	if (model_check_open(p) < 0 ||
	    model_stream_lookup(p, ev, api, l->stream, &s) < 0) {
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
		model_kernel_set_layout(k, l->nr_params, l->param_offsets, l->param_sizes);
	}
	if (!k->have_layout && l->params_size && !k->warned_layout) {
		model_add_warning(p, ev, "kernel '%s' has no parameter layout: every "
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

	op = model_op_add(p, ev, api, GM_OP_LAUNCH);
	op->stream = s;
	op->a = gm_strmap_add(&p->raw_launches, key.buf, key.len, NULL);
	strbuf_release(&key);
	return 0;
}


/* ---- host functions ---- */

int model_add_host_func(struct model_prog *p, uint64_t ev, const char *api,
			uint64_t stream, uint64_t ns)
{
	struct mop *op = model_add_op(p, ev, api, GM_OP_HOST_FUNC, stream, ns);

	if (!op) {
		return -1;
	}
	handle_map_put(&p->host_funcs, ev, (uint32_t)(op - p->ops));
	return 0;
}

int model_set_host_func_ns(struct model_prog *p, uint64_t ev, uint64_t call_ev,
			   uint64_t ns)
{
	uint32_t idx;

	if (model_check_open(p) < 0) {
		return -1;
	}
	if (!handle_map_get(&p->host_funcs, call_ev, &idx)) {
		return gm_error("event %" PRIu64 ": no host function at event %"
				PRIu64, ev, call_ev);
	}
	p->ops[idx].x = ns;
	return 0;
}
