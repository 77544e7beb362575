/* SPDX-License-Identifier: MIT */
/*
 * The C generator (see codegen.h). Output order is the model's order
 * (which is trace order), numbers are printed in decimal, nothing depends
 * on time, addresses or hash-table layout: the same model gives the same
 * bytes. Operations are rows of a static const table built with the
 * GM_* row macros of gpumix_replay.h, so a million of them compile in
 * seconds.
 */
#include "codegen.h"

#include <inttypes.h>
#include <string.h>

#include "model_int.h"

/* A C identifier from a program name: p<i>_<name with [^A-Za-z0-9_]
 * replaced>, at most 40 characters. */
static void ident(struct strbuf *out, const struct model_prog *p)
{
	size_t n = 0;

	strbuf_addf(out, "p%u_", p->index);
	for (const char *s = p->name; *s && n < 32; s++, n++) {
		char c = *s;
		if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') ||
		      (c >= '0' && c <= '9') || c == '_')) {
			c = '_';
		}
		strbuf_addch(out, c);
	}
}

/* A C string literal. */
static void cstr(struct strbuf *out, const char *s)
{
	strbuf_addch(out, '"');
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\') {
			strbuf_addch(out, '\\');
			strbuf_addch(out, (char)c);
		} else if (c < 0x20 || c >= 0x7f) {
			strbuf_addf(out, "\\%03o", c);
		} else if (c == '?' && s[1] == '?') {
			strbuf_addstr(out, "?\\");	/* no trigraphs */
		} else {
			strbuf_addch(out, (char)c);
		}
	}
	strbuf_addch(out, '"');
}

/* Comment text: no "*" followed by "/" can end the comment early. */
static void ctext(struct strbuf *out, const char *s)
{
	for (; *s; s++) {
		if (s[0] == '*' && s[1] == '/') {
			strbuf_addstr(out, "* ");
			continue;
		}
		if ((unsigned char)*s < 0x20) {
			strbuf_addch(out, ' ');
			continue;
		}
		strbuf_addch(out, *s);
	}
}

static void ref(struct strbuf *out, uint32_t r)
{
	const char *m = "GM_A";

	switch (r & GM_REF_KIND_MASK) {
	case GM_REF_GLOBAL:
		m = "GM_G";
		break;
	case GM_REF_TEXTURE:
		m = "GM_T";
		break;
	case GM_REF_HOSTMEM:
		m = "GM_H";
		break;
	case GM_REF_ARRAY:
		m = "GM_R";
		break;
	}
	strbuf_addf(out, "%s(%" PRIu32 ")", m, r & GM_REF_ID_MASK);
}

static void flags(struct strbuf *out, unsigned f)
{
	static const struct {
		unsigned bit;
		const char *name;
	} names[] = {
		{ GM_F_SYNC, "GM_F_SYNC" },
		{ GM_F_PINNED, "GM_F_PINNED" },
		{ GM_F_GRAPH, "GM_F_GRAPH" },
		{ GM_F_HOST_WARM, "GM_F_HOST_WARM" },
		{ GM_F_LAUNCH_END, "GM_F_LAUNCH_END" },
	};
	const char *sep = "";

	if (!f) {
		strbuf_addch(out, '0');
		return;
	}
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++) {
		if (f & names[i].bit) {
			strbuf_addf(out, "%s%s", sep, names[i].name);
			sep = " | ";
		}
	}
}

static void idnum(struct strbuf *out, uint32_t v)
{
	if (v == GM_NONE) {
		strbuf_addstr(out, "GM_NONE");
	} else {
		strbuf_addf(out, "%" PRIu32, v);
	}
}

/* "p0_bfs_<what>" */
static void name(struct strbuf *out, const struct model_prog *p,
		 const char *what)
{
	ident(out, p);
	strbuf_addf(out, "_%s", what);
}

static void table_or_null(struct strbuf *out, const struct model_prog *p,
			  size_t nr, const char *what)
{
	if (nr) {
		name(out, p, what);
	} else {
		strbuf_addstr(out, "NULL");
	}
}

static void emit_streams(struct strbuf *out, const struct model_prog *p)
{
	strbuf_addstr(out, "static const struct gm_stream_desc ");
	name(out, p, "streams");
	strbuf_addstr(out, "[] = {\n");
	for (size_t i = 0; i < p->nr_streams; i++) {
		const struct gm_stream_desc *d = &p->streams[i].d;
		const char *f = d->flags & GM_STREAM_LEGACY ? "GM_STREAM_LEGACY" :
				d->flags & GM_STREAM_BLOCKING ? "GM_STREAM_BLOCKING" :
								"0";
		strbuf_addf(out, "\t{ %s, %" PRId32 " },\t/* stream %zu%s */\n",
			    f, d->priority, i,
			    i == 0 ? ": legacy default stream" :
			    (d->flags & GM_STREAM_BLOCKING) ? ": blocking" :
							      ": non-blocking");
	}
	strbuf_addstr(out, "};\n\n");
}

static void emit_events(struct strbuf *out, const struct model_prog *p)
{
	if (!p->nr_events) {
		return;
	}
	strbuf_addstr(out, "static const uint32_t ");
	name(out, p, "event_flags");
	strbuf_addstr(out, "[] = {");
	for (size_t i = 0; i < p->nr_events; i++) {
		strbuf_addf(out, "%s%" PRIu32, i ? ", " : " ",
			    p->events[i].flags);
	}
	strbuf_addstr(out, " };\n\n");
}

static void emit_modules(struct strbuf *out, const struct model_prog *p)
{
	if (!p->nr_modules) {
		return;
	}
	strbuf_addstr(out, "static const struct gm_module_desc ");
	name(out, p, "modules");
	strbuf_addstr(out, "[] = {\n");
	for (size_t i = 0; i < p->nr_modules; i++) {
		const struct model_module *mod = &p->modules[i];
		strbuf_addf(out, "\t{ \"%s\", %" PRIu64 " },\t/* module %zu: "
			    "event %" PRIu64 " */\n", mod->hash, mod->size, i,
			    mod->event);
	}
	strbuf_addstr(out, "};\n\n");
}

static void emit_u32_list(struct strbuf *out, const uint32_t *v, uint32_t nr)
{
	for (uint32_t i = 0; i < nr; i++) {
		strbuf_addf(out, "%s%" PRIu32, i ? ", " : " ", v[i]);
	}
	strbuf_addstr(out, " };\n");
}

static void emit_kernels(struct strbuf *out, const struct model_prog *p)
{
	char buf[32];

	if (!p->nr_kernels) {
		return;
	}
	for (size_t i = 0; i < p->nr_kernels; i++) {
		const struct model_kernel *k = &p->kernels[i];
		if (k->nr_params) {
			snprintf(buf, sizeof(buf), "k%zu_offsets", i);
			strbuf_addstr(out, "static const uint32_t ");
			name(out, p, buf);
			strbuf_addstr(out, "[] = {");
			emit_u32_list(out, k->offsets, k->nr_params);
			snprintf(buf, sizeof(buf), "k%zu_sizes", i);
			strbuf_addstr(out, "static const uint32_t ");
			name(out, p, buf);
			strbuf_addstr(out, "[] = {");
			emit_u32_list(out, k->sizes, k->nr_params);
		}
		if (k->nr_attrs) {
			snprintf(buf, sizeof(buf), "k%zu_attrs", i);
			strbuf_addstr(out, "static const struct gm_attr ");
			name(out, p, buf);
			strbuf_addstr(out, "[] = {");
			for (size_t a = 0; a < k->nr_attrs; a++) {
				strbuf_addf(out, "%s{ %" PRId32 ", %" PRId32 " }",
					    a ? ", " : " ", k->attrs[a].attrib,
					    k->attrs[a].value);
			}
			strbuf_addstr(out, " };\n");
		}
	}
	strbuf_addstr(out, "\nstatic const struct gm_kernel_desc ");
	name(out, p, "kernels");
	strbuf_addstr(out, "[] = {\n");
	for (size_t i = 0; i < p->nr_kernels; i++) {
		const struct model_kernel *k = &p->kernels[i];
		strbuf_addf(out, "\t{ %" PRIu32 ", ", k->module);
		cstr(out, k->name);
		strbuf_addf(out, ", %" PRIu32 ", ", k->nr_params);
		if (k->nr_params) {
			snprintf(buf, sizeof(buf), "k%zu_offsets", i);
			name(out, p, buf);
			strbuf_addstr(out, ", ");
			snprintf(buf, sizeof(buf), "k%zu_sizes", i);
			name(out, p, buf);
		} else {
			strbuf_addstr(out, "NULL, NULL");
		}
		strbuf_addf(out, ", %zu, ", k->nr_attrs);
		if (k->nr_attrs) {
			snprintf(buf, sizeof(buf), "k%zu_attrs", i);
			name(out, p, buf);
		} else {
			strbuf_addstr(out, "NULL");
		}
		strbuf_addf(out, " },\t/* kernel %zu: event %" PRIu64 ", %"
			    PRIu64 " launches */\n", i, k->event,
			    k->nr_launches);
	}
	strbuf_addstr(out, "};\n\n");
}

static void emit_globals(struct strbuf *out, const struct model_prog *p)
{
	if (!p->nr_globals) {
		return;
	}
	strbuf_addstr(out, "static const struct gm_global_desc ");
	name(out, p, "globals");
	strbuf_addstr(out, "[] = {\n");
	for (size_t i = 0; i < p->nr_globals; i++) {
		const struct model_global *g = &p->globals[i];
		strbuf_addf(out, "\t{ %" PRIu32 ", ", g->module);
		cstr(out, g->name);
		strbuf_addf(out, ", %" PRIu64 " },\t/* global %zu: event %"
			    PRIu64 " */\n", g->size, i, g->event);
	}
	strbuf_addstr(out, "};\n\n");
}

static void emit_params(struct strbuf *out, const struct model_prog *p)
{
	char buf[32];

	if (!p->nr_params) {
		return;
	}
	for (size_t i = 0; i < p->nr_params; i++) {
		const struct model_params *mp = &p->params[i];
		strbuf_addf(out, "/* parameter buffer %zu: %" PRIu32 " bytes",
			    i, mp->size);
		for (uint32_t r = 0; r < mp->nr_relocs; r++) {
			strbuf_addf(out, "%s+%" PRIu32 " = ", r ? ", " : "; ",
				    mp->relocs[r].offset);
			ref(out, mp->relocs[r].ref);
			if (mp->relocs[r].addend) {
				strbuf_addf(out, " + %" PRIu64,
					    mp->relocs[r].addend);
			}
		}
		strbuf_addstr(out, " */\n");
		if (mp->size) {
			snprintf(buf, sizeof(buf), "par%zu", i);
			strbuf_addstr(out, "static const uint8_t ");
			name(out, p, buf);
			strbuf_addstr(out, "[] = {");
			for (uint32_t b = 0; b < mp->size; b++) {
				strbuf_addstr(out, b % 16 ? " " : "\n\t");
				strbuf_addf(out, "0x%02x,", mp->bytes[b]);
			}
			strbuf_addstr(out, "\n};\n");
		}
		if (mp->nr_relocs) {
			snprintf(buf, sizeof(buf), "par%zu_relocs", i);
			strbuf_addstr(out, "static const struct gm_reloc ");
			name(out, p, buf);
			strbuf_addstr(out, "[] = {\n");
			for (uint32_t r = 0; r < mp->nr_relocs; r++) {
				strbuf_addf(out, "\t{ %" PRIu32 ", ",
					    mp->relocs[r].offset);
				ref(out, mp->relocs[r].ref);
				strbuf_addf(out, ", %" PRIu64 " },\n",
					    mp->relocs[r].addend);
			}
			strbuf_addstr(out, "};\n");
		}
	}
	strbuf_addstr(out, "\nstatic const struct gm_params_desc ");
	name(out, p, "params");
	strbuf_addstr(out, "[] = {\n");
	for (size_t i = 0; i < p->nr_params; i++) {
		const struct model_params *mp = &p->params[i];
		strbuf_addf(out, "\t{ %" PRIu32 ", %" PRIu32 ", ", mp->size,
			    mp->nr_relocs);
		if (mp->size) {
			snprintf(buf, sizeof(buf), "par%zu", i);
			name(out, p, buf);
		} else {
			strbuf_addstr(out, "NULL");
		}
		strbuf_addstr(out, ", ");
		if (mp->nr_relocs) {
			snprintf(buf, sizeof(buf), "par%zu_relocs", i);
			name(out, p, buf);
		} else {
			strbuf_addstr(out, "NULL");
		}
		strbuf_addf(out, " },\t/* %zu */\n", i);
	}
	strbuf_addstr(out, "};\n\n");
}

static void emit_launches(struct strbuf *out, const struct model_prog *p)
{
	if (!p->launches.nr) {
		return;
	}
	strbuf_addstr(out, "static const struct gm_launch_desc ");
	name(out, p, "launches");
	strbuf_addstr(out, "[] = {\n");
	for (size_t i = 0; i < p->launches.nr; i++) {
		const struct gm_launch_desc *l = gm_strmap_key(&p->launches,
							    (uint32_t)i, NULL);
		strbuf_addf(out, "\t{ %" PRIu32 ", %" PRIu32 ", { %" PRIu32
			    ", %" PRIu32 ", %" PRIu32 " }, { %" PRIu32 ", %"
			    PRIu32 ", %" PRIu32 " }, %" PRIu32 ", { %" PRIu32
			    ", %" PRIu32 ", %" PRIu32 " }, %s },\t/* %zu: ",
			    l->kernel, l->params, l->grid[0], l->grid[1],
			    l->grid[2], l->block[0], l->block[1], l->block[2],
			    l->smem, l->cluster[0], l->cluster[1], l->cluster[2],
			    (l->flags & GM_LAUNCH_COOPERATIVE) ?
				    "GM_LAUNCH_COOPERATIVE" : "0",
			    i);
		ctext(out, p->kernels[l->kernel].name);
		strbuf_addstr(out, " */\n");
	}
	strbuf_addstr(out, "};\n\n");
}

/* Regions up to the last one named by an operation or a launch; the
 * others are not allocated (size 0). */
static uint32_t nr_hostmems(const struct model_prog *p)
{
	uint32_t n = 0;

	for (size_t i = 0; i < p->nr_hostmems; i++) {
		if (p->hostmems[i].used) {
			n = (uint32_t)i + 1;
		}
	}
	return n;
}

static void emit_hostmems(struct strbuf *out, const struct model_prog *p)
{
	uint32_t n = nr_hostmems(p);

	if (!n) {
		return;
	}
	strbuf_addstr(out, "/* mapped page-locked and managed memory: kind, "
		      "bytes (0: not used) */\nstatic const struct "
		      "gm_hostmem_desc ");
	name(out, p, "hostmems");
	strbuf_addstr(out, "[] = {\n");
	for (uint32_t i = 0; i < n; i++) {
		const struct model_hostmem *h = &p->hostmems[i];
		strbuf_addf(out, "\t{ %s, %" PRIu64 " },\t/* %" PRIu32
			    ", event %" PRIu64 " */\n",
			    h->kind == GM_HOSTMEM_MANAGED ? "GM_HOSTMEM_MANAGED"
							  : "GM_HOSTMEM_MAPPED",
			    h->used ? h->size : 0, i, h->event);
	}
	strbuf_addstr(out, "};\n\n");
}

static void emit_arrays(struct strbuf *out, const struct model_prog *p)
{
	if (!p->nr_arrays) {
		return;
	}
	strbuf_addstr(out, "/* CUDA arrays: width, height, depth, format, "
		      "channels, flags */\nstatic const struct gm_array_desc ");
	name(out, p, "arrays");
	strbuf_addstr(out, "[] = {\n");
	for (size_t i = 0; i < p->nr_arrays; i++) {
		const struct gm_array_desc *a = &p->arrays[i].d;
		strbuf_addf(out, "\t{ %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %"
			    PRIu32 ", %" PRIu32 ", %" PRIu32 " },\t/* %zu */\n",
			    a->width, a->height, a->depth, a->format,
			    a->channels, a->flags, i);
	}
	strbuf_addstr(out, "};\n\n");
}

static void copy_end(struct strbuf *out, const struct gm_copy_end *e)
{
	static const char *const kinds[] = { "0", "GM_END_HOST",
					     "GM_END_DEVICE", "GM_END_ARRAY" };

	strbuf_addf(out, "{ %s, ", e->kind < 4 ? kinds[e->kind] : "0");
	if (e->kind == GM_END_DEVICE) {
		ref(out, e->ref);
	} else {
		strbuf_addf(out, "%" PRIu32, e->ref);
	}
	strbuf_addf(out, ", %" PRIu64 ", %" PRIu64 ", %" PRIu64 ", %" PRIu64
		    ", %" PRIu64 ", %" PRIu64 " }", e->offset, e->x, e->y,
		    e->z, e->pitch, e->height);
}

static void emit_copydescs(struct strbuf *out, const struct model_prog *p)
{
	static const char *const calls[] = { "0", "GM_COPYCALL_2D",
					     "GM_COPYCALL_2D_UNALIGNED",
					     "GM_COPYCALL_3D" };

	if (!p->copydescs.nr) {
		return;
	}
	strbuf_addstr(out, "/* 2-D, 3-D and array copies: call, source, "
		      "destination ({ kind, ref, offset,\n * x, y, z, pitch, "
		      "height }), width (bytes), height, depth */\n"
		      "static const struct gm_copy_desc ");
	name(out, p, "copydescs");
	strbuf_addstr(out, "[] = {\n");
	for (size_t i = 0; i < p->copydescs.nr; i++) {
		const struct gm_copy_desc *c = gm_strmap_key(&p->copydescs,
							  (uint32_t)i, NULL);
		strbuf_addf(out, "\t{ %s,\n\t  ",
			    c->call < 4 ? calls[c->call] : "0");
		copy_end(out, &c->src);
		strbuf_addstr(out, ",\n\t  ");
		copy_end(out, &c->dst);
		strbuf_addf(out, ",\n\t  %" PRIu64 ", %" PRIu64 ", %" PRIu64
			    " },\t/* %zu */\n", c->width, c->height,
			    c->depth, i);
	}
	strbuf_addstr(out, "};\n\n");
}

static void emit_checks(struct strbuf *out, const struct model_prog *p)
{
	if (!p->checks.nr) {
		return;
	}
	strbuf_addstr(out, "static const char *const ");
	name(out, p, "checks");
	strbuf_addstr(out, "[] = {\n");
	for (size_t i = 0; i < p->checks.nr; i++) {
		strbuf_addf(out, "\t\"%s\",\t/* %zu */\n",
			    (const char *)gm_strmap_key(&p->checks, (uint32_t)i,
						     NULL), i);
	}
	strbuf_addstr(out, "};\n\n");
}

static void addf(struct strbuf *out, const char *key, float v)
{
	strbuf_addf(out, ", .%s = (float)%.9g", key, (double)v);
}

static void emit_texdescs(struct strbuf *out, const struct model_prog *p)
{
	if (!p->texdescs.nr) {
		return;
	}
	strbuf_addstr(out, "static const struct gm_texture_desc ");
	name(out, p, "texdescs");
	strbuf_addstr(out, "[] = {\n");
	for (size_t i = 0; i < p->texdescs.nr; i++) {
		const struct gm_texture_desc *t = gm_strmap_key(&p->texdescs,
							     (uint32_t)i, NULL);
		strbuf_addf(out, "\t{ .res_type = %" PRIu32 ", .ref = ",
			    t->res_type);
		ref(out, t->ref);
		strbuf_addf(out, ", .offset = %" PRIu64 ", .format = %" PRIu32
			    ", .channels = %" PRIu32, t->offset, t->format,
			    t->channels);
		if (t->size_bytes) {
			strbuf_addf(out, ", .size_bytes = %" PRIu64,
				    t->size_bytes);
		}
		if (t->pitch) {
			strbuf_addf(out, ", .width = %" PRIu64 ", .height = %"
				    PRIu64 ", .pitch = %" PRIu64, t->width,
				    t->height, t->pitch);
		}
		strbuf_addf(out, ",\n\t  .address_mode = { %" PRIu32 ", %" PRIu32
			    ", %" PRIu32 " }, .filter_mode = %" PRIu32
			    ", .flags = %" PRIu32 ", .max_anisotropy = %" PRIu32
			    ", .mipmap_filter_mode = %" PRIu32,
			    t->address_mode[0], t->address_mode[1],
			    t->address_mode[2], t->filter_mode, t->flags,
			    t->max_anisotropy, t->mipmap_filter_mode);
		strbuf_addstr(out, ",\n\t  .mipmap_level_bias = ");
		strbuf_addf(out, "(float)%.9g", (double)t->mipmap_level_bias);
		addf(out, "min_mipmap_level_clamp", t->min_mipmap_level_clamp);
		addf(out, "max_mipmap_level_clamp", t->max_mipmap_level_clamp);
		strbuf_addstr(out, ",\n\t  .border_color = {");
		for (int c = 0; c < 4; c++) {
			strbuf_addf(out, "%s(float)%.9g", c ? ", " : " ",
				    (double)t->border_color[c]);
		}
		strbuf_addf(out, " } },\t/* %zu */\n", i);
	}
	strbuf_addstr(out, "};\n\n");
}

/* An operand of a row constructor, as GM_OPS says it prints. */
static void operand(struct strbuf *out, enum gm_operand_kind k, uint64_t v)
{
	switch (k) {
	case GM_OPK_FLAGS:
		flags(out, (unsigned)v);
		break;
	case GM_OPK_REF:
		ref(out, (uint32_t)v);
		break;
	case GM_OPK_BLOB:
	case GM_OPK_CHECK:
	case GM_OPK_EXEC:
		idnum(out, (uint32_t)v);
		break;
	case GM_OPK_ADDR:
		strbuf_addf(out, "0x%" PRIx64, v);
		break;
	default:
		strbuf_addf(out, "%" PRIu64, v);
		break;
	}
}

static void emit_op(struct strbuf *out, const struct model_prog *p,
		    const struct mop *op)
{
	strbuf_addf(out, "\t/* %" PRIu64 " ", op->event);
	ctext(out, model_api(p, op));
	if (op->code == GM_OP_LAUNCH) {
		const struct gm_launch_desc *l = gm_strmap_key(&p->launches, op->a,
							    NULL);
		strbuf_addstr(out, " ");
		ctext(out, p->kernels[l->kernel].name);
	}
	strbuf_addstr(out, " */ ");
	if (op->code == GM_OP_NOP || op->code >= GM_OP_COUNT) {
		/* no row constructor: the row itself */
		strbuf_addf(out, "{ GM_OP_NOP, 0, 0, 0, 0, 0, 0, 0, 0, %" PRIu64
			    " },\n", op->event);
		return;
	}
	switch (op->code) {
#define GM_OPND_PRINT_(field, kind)                                            \
	strbuf_addstr(out, ", ");                                              \
	operand(out, GM_OPK_##kind, op->field);
#define GM_OP_PRINT_(name, what, group, traits, operands)                              \
	case GM_OP_##name:                                                     \
		strbuf_addf(out, "GM_" #name "(%" PRIu64, op->event);          \
		operands strbuf_addch(out, ')');                               \
		break;
	GM_OPS(GM_OP_PRINT_, GM_OPND_PRINT_)
#undef GM_OP_PRINT_
#undef GM_OPND_PRINT_
	}
	strbuf_addstr(out, ",\n");
}

static uint32_t nr_allocs(const struct model_prog *p)
{
	return p->alloc_ids.next;
}

/*
 * The captured host time: one gap per operation (its code, gpumix_replay.h
 * gm_host_gap_ns()) and, for a program of several captured threads, each
 * operation's thread; ten numbers a line, so that a program of millions
 * of operations stays a data table.
 */
static void emit_host_time(struct strbuf *out, const struct model_prog *p)
{
	if (!p->host_gap) {
		return;
	}
	strbuf_addf(out, "/* captured host time: before each operation, the "
		    "gap since its thread's\n * previous operation returned "
		    "(ns; with GM_HOST_GAP_US: us), %.6f s in all */\n"
		    "static const uint32_t ",
		    p->host_gap_total_ns / 1e9);
	name(out, p, "host_gap");
	strbuf_addf(out, "[%zu] = {", p->nr_ops);
	for (size_t i = 0; i < p->nr_ops; i++) {
		strbuf_addstr(out, i % 10 ? " " : "\n\t");
		if (p->host_gap[i] & GM_HOST_GAP_US) {
			strbuf_addf(out, "GM_HOST_GAP_US | %" PRIu32 ",",
				    p->host_gap[i] & ~GM_HOST_GAP_US);
		} else {
			strbuf_addf(out, "%" PRIu32 ",", p->host_gap[i]);
		}
	}
	strbuf_addstr(out, "\n};\n\n");
	if (!p->host_thread) {
		return;
	}
	strbuf_addf(out, "/* the captured thread of each operation (%" PRIu32
		    " threads, numbered by their first operation) */\n"
		    "static const uint16_t ", p->nr_host_threads);
	name(out, p, "host_thread");
	strbuf_addf(out, "[%zu] = {", p->nr_ops);
	for (size_t i = 0; i < p->nr_ops; i++) {
		strbuf_addstr(out, i % 10 ? " " : "\n\t");
		strbuf_addf(out, "%u,", (unsigned)p->host_thread[i]);
	}
	strbuf_addstr(out, "\n};\n\n");
}

static void emit_program(struct strbuf *out, const struct model_prog *p)
{
	uint32_t graphs, execs, nodes;

	strbuf_addf(out, "/*\n * Program %u: ", p->index);
	ctext(out, p->name);
	strbuf_addstr(out, "\n * bundle: ");
	ctext(out, p->bundle);
	strbuf_addf(out, "\n * %zu operations, %zu streams, %zu events, %" PRIu32
		    " allocation ids, %zu modules, %zu kernels, %zu globals,\n"
		    " * %zu parameter buffers, %zu launch configurations, %zu "
		    "result checks%s\n */\n\n",
		    p->nr_ops, p->nr_streams, p->nr_events, nr_allocs(p),
		    p->nr_modules, p->nr_kernels, p->nr_globals, p->nr_params,
		    p->launches.nr, p->checks.nr,
		    p->deterministic ? "" : " (not verified: nondeterministic)");
	emit_streams(out, p);
	emit_events(out, p);
	emit_modules(out, p);
	emit_kernels(out, p);
	emit_globals(out, p);
	emit_params(out, p);
	emit_launches(out, p);
	emit_checks(out, p);
	emit_texdescs(out, p);
	emit_hostmems(out, p);
	emit_arrays(out, p);
	emit_copydescs(out, p);

	if (p->nr_ops) {
		strbuf_addstr(out, "/* the replay: one row per captured call, "
			      "\"trace-event api\" in the comment */\n");
		strbuf_addstr(out, "static const struct gm_op ");
		name(out, p, "ops");
		strbuf_addstr(out, "[] = {\n");
		for (size_t i = 0; i < p->nr_ops; i++) {
			emit_op(out, p, &p->ops[i]);
		}
		strbuf_addstr(out, "};\n\n");
	}
	emit_host_time(out, p);

	strbuf_addstr(out, "static void *");
	name(out, p, "thread");
	strbuf_addstr(out, "(void *arg)\n{\n\tstruct gm_prog *p = arg;\n\n"
		      "\t/* init (untimed): modules, kernels, globals, streams, "
		      "events, device memory */\n"
		      "\tif (gm_prog_init(p) == 0) {\n"
		      "\t\t/* replay (timed), repeated until the runtime says "
		      "stop */\n"
		      "\t\twhile (gm_replay_next(p)) {\n\t\t\tgm_replay_ops(p, ");
	table_or_null(out, p, p->nr_ops, "ops");
	strbuf_addf(out, ", %zu);\n\t\t}\n\t}\n"
		    "\t/* cleanup: everything the program holds */\n"
		    "\tgm_prog_cleanup(p);\n\treturn NULL;\n}\n\n", p->nr_ops);

	strbuf_addstr(out, "static const struct gm_program_desc ");
	ident(out, p);
	strbuf_addstr(out, " = {\n\t.name = ");
	cstr(out, p->name);
	strbuf_addstr(out, ",\n\t.bundle = ");
	cstr(out, p->bundle);
	strbuf_addf(out, ",\n\t.deterministic = %d,\n\t.thread = ",
		    p->deterministic ? 1 : 0);
	name(out, p, "thread");
	strbuf_addf(out, ",\n\t.nr_streams = %zu,\n\t.streams = ", p->nr_streams);
	name(out, p, "streams");
	strbuf_addf(out, ",\n\t.nr_events = %zu,\n\t.event_flags = ",
		    p->nr_events);
	table_or_null(out, p, p->nr_events, "event_flags");
	strbuf_addf(out, ",\n\t.nr_allocs = %" PRIu32 ",\n\t.nr_modules = %zu,"
		    "\n\t.modules = ", nr_allocs(p), p->nr_modules);
	table_or_null(out, p, p->nr_modules, "modules");
	strbuf_addf(out, ",\n\t.nr_kernels = %zu,\n\t.kernels = ", p->nr_kernels);
	table_or_null(out, p, p->nr_kernels, "kernels");
	strbuf_addf(out, ",\n\t.nr_globals = %zu,\n\t.globals = ", p->nr_globals);
	table_or_null(out, p, p->nr_globals, "globals");
	strbuf_addf(out, ",\n\t.nr_params = %zu,\n\t.params = ", p->nr_params);
	table_or_null(out, p, p->nr_params, "params");
	strbuf_addf(out, ",\n\t.nr_launches = %zu,\n\t.launches = ",
		    p->launches.nr);
	table_or_null(out, p, p->launches.nr, "launches");
	strbuf_addf(out, ",\n\t.nr_checks = %zu,\n\t.checks = ", p->checks.nr);
	table_or_null(out, p, p->checks.nr, "checks");
	strbuf_addf(out, ",\n\t.nr_textures = %" PRIu32 ",\n\t.nr_texdescs = "
		    "%zu,\n\t.texdescs = ", p->tex_ids.next, p->texdescs.nr);
	table_or_null(out, p, p->texdescs.nr, "texdescs");
	strbuf_addf(out, ",\n\t.host_arena = %" PRIu64, p->host_arena);
	if (nr_hostmems(p)) {
		strbuf_addf(out, ",\n\t.nr_hostmems = %" PRIu32
			    ",\n\t.hostmems = ", nr_hostmems(p));
		name(out, p, "hostmems");
	}
	strbuf_addf(out, ",\n\t.nr_ops = %zu,\n\t.ops = ", p->nr_ops);
	table_or_null(out, p, p->nr_ops, "ops");
	model_graphs_counts(p, &graphs, &execs, &nodes);
	if (graphs || execs || nodes) {
		/* Only programs with graphs: older output stays as it was. */
		strbuf_addf(out, ",\n\t.nr_graphs = %" PRIu32 ",\n\t.nr_execs"
			    " = %" PRIu32 ",\n\t.nr_nodes = %" PRIu32, graphs,
			    execs, nodes);
	}
	if (p->nr_arrays) {
		strbuf_addf(out, ",\n\t.nr_arrays = %zu,\n\t.arrays = ",
			    p->nr_arrays);
		name(out, p, "arrays");
	}
	if (p->copydescs.nr) {
		strbuf_addf(out, ",\n\t.nr_copydescs = %zu,\n\t.copydescs = ",
			    p->copydescs.nr);
		name(out, p, "copydescs");
	}
	if (p->host_gap) {
		/* Only programs with host times: older output stays. */
		strbuf_addstr(out, ",\n\t.host_gap = ");
		name(out, p, "host_gap");
		strbuf_addstr(out, ",\n\t.host_thread = ");
		table_or_null(out, p, p->host_thread ? 1 : 0, "host_thread");
		strbuf_addf(out, ",\n\t.nr_host_threads = %" PRIu32,
			    p->nr_host_threads);
	}
	strbuf_addstr(out, ",\n};\n\n");
}

int codegen_write(const struct model *m, struct strbuf *out)
{
	if (!m->finished) {
		return gm_error("the model is not finished");
	}
	strbuf_addstr(out, "/*\n * Replay program generated by gpumix "
		      "reconstruct. Do not edit: reconstruct again.\n"
		      " * workload: ");
	ctext(out, m->name);
	strbuf_addstr(out, "\n * default variant: ");
	ctext(out, m->variant);
	strbuf_addf(out, " (gpumix replay --variant V runs it under V)"
		    "\n * programs: %zu\n", m->nr_progs);
	for (size_t i = 0; i < m->nr_progs; i++) {
		strbuf_addf(out, " *   %zu: ", i);
		ctext(out, m->progs[i]->name);
		strbuf_addstr(out, " (");
		ctext(out, m->progs[i]->bundle);
		strbuf_addstr(out, ")\n");
	}
	strbuf_addstr(out, " * Build: cc replay.c -I<gpumix include> "
		      "-lgpumix-replay -lgpumix-common -lcupti -lcuda ...\n"
		      " * (gpumix replay does it); see doc/replay-program.md.\n"
		      " */\n#include <stddef.h>\n#include <stdint.h>\n\n"
		      "#include \"gpumix_replay.h\"\n\n");
	for (size_t i = 0; i < m->nr_progs; i++) {
		emit_program(out, m->progs[i]);
	}
	if (m->nr_blobs) {
		strbuf_addstr(out, "/* host-to-device data: blobs/<hash> in "
			      "the replay data directory */\n"
			      "static const struct gm_blob_desc blobs[] = {\n");
		for (size_t i = 0; i < m->nr_blobs; i++) {
			const struct model_blob *b = &m->blobs[i];
			strbuf_addf(out, "\t{ \"%s\", %" PRIu64 ", %s },\t/* %zu"
				    " */\n", b->hash, b->size,
				    (b->flags & GM_BLOB_PINNED) ?
					    "GM_BLOB_PINNED" : "0", i);
		}
		strbuf_addstr(out, "};\n\n");
	}
	strbuf_addstr(out, "static const struct gm_program_desc *const "
		      "programs[] = {\n");
	for (size_t i = 0; i < m->nr_progs; i++) {
		strbuf_addstr(out, "\t&");
		ident(out, m->progs[i]);
		strbuf_addstr(out, ",\n");
	}
	strbuf_addstr(out, "};\n\nstatic const struct gm_workload_desc "
		      "workload = {\n\t.abi = GM_REPLAY_ABI,\n\t.name = ");
	cstr(out, m->name);
	strbuf_addstr(out, ",\n\t.variant = ");
	cstr(out, m->variant);
	strbuf_addf(out, ",\n\t.policy = \"none\",\n\t.nr_programs = %zu,\n"
		    "\t.programs = programs,\n\t.nr_blobs = %zu,\n\t.blobs = %s,"
		    "\n};\n\nint main(int argc, char **argv)\n{\n"
		    "\treturn gm_replay_main(argc, argv, &workload);\n}\n",
		    m->nr_progs, m->nr_blobs, m->nr_blobs ? "blobs" : "NULL");
	return 0;
}
