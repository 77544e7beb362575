/* SPDX-License-Identifier: MIT */
/*
 * A program's descriptor checked before anything runs (prog_check.h):
 * every table's references, every operation's operands, in range.
 * Generated code and data written by reconstruct should always pass; a
 * damaged or hand-edited replay data file fails here with its name.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "error.h"
#include "prog_check.h"
#include "replay_int.h"

#define BAD(...) (gm_error(__VA_ARGS__), -1)

static int check_ref(const struct gm_program_desc *d, uint32_t ref,
		     int allow_tex)
{
	uint32_t id = ref & GM_REF_ID_MASK;

	switch (ref & GM_REF_KIND_MASK) {
	case GM_REF_ALLOC:
		return id < d->nr_allocs ? 0 :
		       BAD("allocation %" PRIu32 " out of range", id);
	case GM_REF_GLOBAL:
		return id < d->nr_globals ? 0 :
		       BAD("global %" PRIu32 " out of range", id);
	case GM_REF_TEXTURE:
		if (allow_tex) {
			return id < d->nr_textures ? 0 :
			       BAD("texture %" PRIu32 " out of range", id);
		}
		break;
	case GM_REF_HOSTMEM:
		return id < d->nr_hostmems && d->hostmems[id].size ? 0 :
		       BAD("mapped or managed memory %" PRIu32
			   " out of range or unused", id);
	case GM_REF_ARRAY:
		if (allow_tex) {
			return id < d->nr_arrays ? 0 :
			       BAD("array %" PRIu32 " out of range", id);
		}
		break;
	}
	return BAD("bad reference 0x%" PRIx32, ref);
}

int gm_desc_check_tables(const struct gm_run *run,
			  const struct gm_program_desc *d)
{
	if (!d->nr_streams || !d->streams ||
	    !(d->streams[0].flags & GM_STREAM_LEGACY)) {
		return BAD("stream 0 must be the legacy stream");
	}
	for (uint32_t i = 0; i < d->nr_kernels; i++) {
		const struct gm_kernel_desc *k = &d->kernels[i];
		if (k->module >= d->nr_modules || !k->name) {
			return BAD("kernel %" PRIu32 ": bad module or name", i);
		}
	}
	for (uint32_t i = 0; i < d->nr_globals; i++) {
		if (d->globals[i].module >= d->nr_modules || !d->globals[i].name) {
			return BAD("global %" PRIu32 ": bad module or name", i);
		}
	}
	for (uint32_t i = 0; i < d->nr_params; i++) {
		const struct gm_params_desc *pd = &d->params[i];
		for (uint32_t r = 0; r < pd->nr_relocs; r++) {
			if (pd->relocs[r].offset + 8 > pd->size ||
			    check_ref(d, pd->relocs[r].ref, 1) < 0) {
				return BAD("parameter buffer %" PRIu32
					   ": bad relocation %" PRIu32, i, r);
			}
		}
	}
	for (uint32_t i = 0; i < d->nr_launches; i++) {
		const struct gm_launch_desc *l = &d->launches[i];
		const struct gm_kernel_desc *k;
		if (l->kernel >= d->nr_kernels || l->params >= d->nr_params) {
			return BAD("launch %" PRIu32 ": bad kernel or parameters", i);
		}
		k = &d->kernels[l->kernel];
		for (uint32_t j = 0; j < k->nr_params; j++) {
			if (k->param_offset[j] + k->param_size[j] >
			    d->params[l->params].size) {
				return BAD("launch %" PRIu32 ": parameter buffer"
					   " smaller than the layout of '%s'",
					   i, k->name);
			}
		}
	}
	for (uint32_t i = 0; i < d->nr_texdescs; i++) {
		const struct gm_texture_desc *t = &d->texdescs[i];
		int array = t->res_type == CU_RESOURCE_TYPE_ARRAY;
		if ((array != ((t->ref & GM_REF_KIND_MASK) == GM_REF_ARRAY)) ||
		    check_ref(d, t->ref, array) < 0) {
			return BAD("texture description %" PRIu32, i);
		}
	}
	for (uint32_t i = 0; i < d->nr_copydescs; i++) {
		const struct gm_copy_desc *c = &d->copydescs[i];
		const struct gm_copy_end *e[2] = { &c->src, &c->dst };
		if (c->call < GM_COPYCALL_2D || c->call > GM_COPYCALL_3D) {
			return BAD("copy description %" PRIu32 ": bad call", i);
		}
		for (int k = 0; k < 2; k++) {
			if ((e[k]->kind == GM_END_DEVICE &&
			     check_ref(d, e[k]->ref, 0) < 0) ||
			    (e[k]->kind == GM_END_ARRAY &&
			     e[k]->ref >= d->nr_arrays) ||
			    e[k]->kind < GM_END_HOST ||
			    e[k]->kind > GM_END_ARRAY) {
				return BAD("copy description %" PRIu32
					   ": bad %s", i, k ? "destination" :
							      "source");
			}
		}
	}
	for (uint64_t i = 0; d->host_thread && i < d->nr_ops; i++) {
		if (!d->host_gap || d->host_thread[i] >= d->nr_host_threads) {
			return BAD("operation %" PRIu64 ": host thread %u of %"
				   PRIu32, i, (unsigned)d->host_thread[i],
				   d->nr_host_threads);
		}
	}
	(void)run;
	return 0;
}

/* Operand @v of @op, of kind @k (GM_OPS in gpumix_replay.h), is in range. */
static int check_operand(const struct gm_run *run,
			 const struct gm_program_desc *d, const struct gm_op *op,
			 enum gm_operand_kind k, uint64_t v)
{
	const struct gm_workload_desc *w = run->w;

	switch (k) {
	case GM_OPK_STREAM:
		return v < d->nr_streams ? 0 :
		       BAD("stream %u out of range", op->stream);
	case GM_OPK_REF:
		return check_ref(d, (uint32_t)v, 0);
	case GM_OPK_ALLOC:
		return v < d->nr_allocs ? 0 :
		       BAD("allocation %" PRIu64 " out of range", v);
	case GM_OPK_LAUNCH:
		return v < d->nr_launches ? 0 :
		       BAD("launch %" PRIu64 " out of range", v);
	case GM_OPK_EVENT:
		return v < d->nr_events ? 0 :
		       BAD("event %" PRIu64 " out of range", v);
	case GM_OPK_TEXTURE:
		return v < d->nr_textures ? 0 :
		       BAD("texture %" PRIu64 " out of range", v);
	case GM_OPK_TEXDESC:
		return v < d->nr_texdescs ? 0 :
		       BAD("texture description %" PRIu64 " out of range", v);
	case GM_OPK_CHECK:
		return v == GM_NONE || v < d->nr_checks ? 0 :
		       BAD("check %" PRIu64 " out of range", v);
	case GM_OPK_BLOB:
		/* y and z: the offset and length inside the blob */
		if (v >= w->nr_blobs || op->y > w->blobs[v].size ||
		    op->z > w->blobs[v].size - op->y) {
			return BAD("blob %" PRIu64 " out of range", v);
		}
		return 0;
	case GM_OPK_HOST:
		/* z bytes from offset v */
		if (v > d->host_arena || op->z > d->host_arena - v) {
			return BAD("host arena offset out of range");
		}
		return 0;
	case GM_OPK_GRAPH:
		return v < d->nr_graphs ? 0 :
		       BAD("graph %" PRIu64 " out of range", v);
	case GM_OPK_EXEC:
		return v == GM_NONE || v < d->nr_execs ? 0 :
		       BAD("executable graph %" PRIu64 " out of range", v);
	case GM_OPK_NODE:
		return v < d->nr_nodes ? 0 :
		       BAD("graph node %" PRIu64 " out of range", v);
	case GM_OPK_COPYDESC:
		return v < d->nr_copydescs ? 0 :
		       BAD("copy description %" PRIu64 " out of range", v);
	case GM_OPK_ARRAY:
		return v < d->nr_arrays ? 0 :
		       BAD("array %" PRIu64 " out of range", v);
	case GM_OPK_FLAGS:
	case GM_OPK_NUM:
	case GM_OPK_ADDR:
		return 0;
	}
	return 0;
}

int gm_desc_check_op(const struct gm_run *run, const struct gm_program_desc *d,
		     const struct gm_op *op)
{
	switch (op->code) {
#define GM_OPND_CHECK_(field, kind)                                            \
	if (check_operand(run, d, op, GM_OPK_##kind, op->field) < 0) {         \
		return -1;                                                     \
	}
#define GM_OP_CHECK_(name, what, group, traits, operands)                              \
	case GM_OP_##name:                                                     \
		operands return 0;
	GM_OPS(GM_OP_CHECK_, GM_OPND_CHECK_)
#undef GM_OP_CHECK_
#undef GM_OPND_CHECK_
	}
	return BAD("unknown operation code %u", op->code);
}
