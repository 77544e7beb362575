/* SPDX-License-Identifier: MIT */
/*
 * Block uniformity of registers (see ptx_analysis_int.h): which
 * registers hold the same value in every thread of a block, and so which
 * branches all threads take alike.
 */
#include "ptx_analysis_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "strmap.h"

/* ---- uniformity -------------------------------------------------------- */


int ptxa_is_register(const struct gm_ptx_module *m, struct reginfo *ri,
		     uint32_t i)
{
	size_t n;
	const char *t;
	int comp;

	if (m->toks.v[i].kind != GM_PTX_WORD) {
		return 0;
	}
	if (gm_ptx_sreg_of(m, i, &comp) != GM_PTX_SREG_NONE) {
		return 0;
	}
	t = gm_ptx_tok_text(m, i, &n);
	if (t[0] == '%') {
		return 1;
	}
	return gm_strmap_find(&ri->declared, t, n) >= 0;
}

int ptxa_reg_index(const struct gm_ptx_module *m, struct reginfo *ri,
		   uint32_t i, int insert)
{
	size_t n;
	const char *t = gm_ptx_tok_text(m, i, &n);
	int64_t k;

	if (gm_strmap_get_bytes(&ri->map, t, n, &k)) {
		return (int)k;
	}
	if (!insert) {
		return -1;
	}
	GM_ALLOC_GROW(ri->ndefs, ri->nr + 1, ri->alloc);
	ri->def = gm_xrealloc(ri->def, ri->alloc * sizeof(*ri->def));
	ri->uniform = gm_xrealloc(ri->uniform, ri->alloc);
	ri->ndefs[ri->nr] = 0;
	ri->def[ri->nr] = -1;
	ri->uniform[ri->nr] = 0;
	gm_strmap_put_bytes(&ri->map, t, n, (int64_t)ri->nr);
	return (int)ri->nr++;
}

void ptxa_reginfo_release(struct reginfo *ri)
{
	gm_strmap_clear(&ri->map);
	gm_strmap_clear(&ri->declared);
	free(ri->ndefs);
	free(ri->def);
	free(ri->uniform);
	memset(ri, 0, sizeof(*ri));
}

int ptxa_insn_defines(const struct gm_ptx_module *m,
		      const struct gm_ptx_stmt *s)
{
	char base[32];

	gm_ptx_opcode_base(m, s, base, sizeof(base));
	if (s->nr_ops == 0 || ptxa_in_list(ptxa_no_def_ops, base)) {
		return 0;
	}
	if (!strcmp(base, "wmma") && gm_ptx_opcode_has(m, s, ".store")) {
		return 0;
	}
	if (!strcmp(base, "mbarrier") && !gm_ptx_opcode_has(m, s, ".arrive") &&
	    !gm_ptx_opcode_has(m, s, ".test_wait") &&
	    !gm_ptx_opcode_has(m, s, ".try_wait") &&
	    !gm_ptx_opcode_has(m, s, ".pending_count")) {
		return 0;
	}
	return 1;
}

/* Whether the address operand of ld @s names a kernel parameter. */
static int is_param_address(const struct gm_ptx_module *m,
			    const struct gm_ptx_func *f,
			    const struct gm_ptx_stmt *s)
{
	if (s->nr_ops < 2) {
		return 0;
	}
	struct gm_ptx_range r = gm_ptx_operand(f, s, 1);
	for (uint32_t i = r.begin; i < r.end; i++) {
		if (m->toks.v[i].kind != GM_PTX_WORD) {
			continue;
		}
		for (size_t p = 0; p < f->nr_params; p++) {
			if (gm_ptx_tok_is(m, i, f->params[p].name)) {
				return 1;
			}
		}
	}
	return 0;
}

/* Are all registers read by operands [from, nr_ops) of @s uniform? */
static int sources_uniform(const struct gm_ptx_module *m,
			   const struct gm_ptx_func *f,
			   const struct gm_ptx_stmt *s, struct reginfo *ri,
			   uint32_t from)
{
	for (uint32_t o = from; o < s->nr_ops; o++) {
		struct gm_ptx_range r = gm_ptx_operand(f, s, o);
		for (uint32_t i = r.begin; i < r.end; i++) {
			int comp;
			if (gm_ptx_sreg_of(m, i, &comp) != GM_PTX_SREG_NONE) {
				if (!ptxa_sreg_uniform(m, i)) {
					return 0;
				}
				continue;
			}
			if (!ptxa_is_register(m, ri, i)) {
				continue;
			}
			int k = ptxa_reg_index(m, ri, i, 0);
			if (k < 0 || !ri->uniform[k]) {
				return 0;
			}
		}
	}
	return 1;
}

static int insn_uniform(const struct gm_ptx_module *m,
			const struct gm_ptx_func *f,
			const struct gm_ptx_stmt *s, struct reginfo *ri)
{
	char base[32];

	if (s->guard >= 0) {
		int k = ptxa_reg_index(m, ri, (uint32_t)s->guard, 0);
		if (k < 0 || !ri->uniform[k]) {
			return 0;
		}
	}
	gm_ptx_opcode_base(m, s, base, sizeof(base));
	if (!strcmp(base, "ld") || !strcmp(base, "ldu")) {
		if (gm_ptx_opcode_has(m, s, ".param")) {
			return f->is_entry && is_param_address(m, f, s);
		}
		if (gm_ptx_opcode_has(m, s, ".const") ||
		    gm_ptx_opcode_has(m, s, ".nc") || !strcmp(base, "ldu")) {
			return sources_uniform(m, f, s, ri, 1);
		}
		return 0;
	}
	if (ptxa_in_list(ptxa_nonpure_ops, base)) {
		return 0;
	}
	return sources_uniform(m, f, s, ri, 1);
}

/* Whether the terminator of block @b can split the threads of a CTA. */
static int divergent_terminator(const struct gm_ptx_module *m,
				const struct gm_ptx_func *f, struct cfg *c,
				struct reginfo *ri, size_t b)
{
	const struct gm_ptx_stmt *s = &f->stmts[c->insn[c->bb[b].last]];
	char base[32];

	gm_ptx_opcode_base(m, s, base, sizeof(base));
	if (!strcmp(base, "brx")) {
		return !sources_uniform(m, f, s, ri, 0) ||
		       (s->guard >= 0 && !insn_uniform(m, f, s, ri));
	}
	if (s->guard < 0) {
		return 0;
	}
	if (strcmp(base, "bra") && strcmp(base, "ret") && strcmp(base, "exit")) {
		return 0;
	}
	if (gm_ptx_opcode_has(m, s, ".uni")) {
		return 0;
	}
	int k = ptxa_reg_index(m, ri, (uint32_t)s->guard, 0);
	return k < 0 || !ri->uniform[k];
}

/*
 * Which registers hold the same value in every thread of a CTA. The
 * usual divergence analysis: start from "all uniform" and mark a register
 * varying when one of its definitions is (a varying operand or guard, a
 * per-thread source such as %tid or memory), or when it has several
 * definitions and one of them lies where threads may have diverged (the
 * region of a divergent branch up to its immediate post-dominator).
 * Iterate until nothing changes.
 */
void ptxa_uniformity(const struct gm_ptx_module *m,
		     const struct gm_ptx_func *f, struct cfg *c,
		     struct reginfo *ri)
{
	memset(ri, 0, sizeof(*ri));
	for (size_t k = 0; k < f->nr_stmts; k++) {
		const struct gm_ptx_stmt *s = &f->stmts[k];
		if (s->kind != GM_PTX_S_DECL || !gm_ptx_tok_is(m, s->opcode, ".reg")) {
			continue;
		}
		for (uint32_t i = s->opcode + 1; i < s->end; i++) {
			size_t n;
			const char *t = gm_ptx_tok_text(m, i, &n);
			if (m->toks.v[i].kind == GM_PTX_WORD && t[0] != '.' &&
			    t[0] != '%') {
				gm_strmap_add(&ri->declared, t, n, NULL);
			}
		}
	}
	for (size_t i = 0; i < c->nr_insn; i++) {
		const struct gm_ptx_stmt *s = &f->stmts[c->insn[i]];
		for (uint32_t o = 0; o < s->nr_ops; o++) {
			struct gm_ptx_range r = gm_ptx_operand(f, s, o);
			for (uint32_t t = r.begin; t < r.end; t++) {
				if (ptxa_is_register(m, ri, t)) {
					ptxa_reg_index(m, ri, t, 1);
				}
			}
		}
		if (s->guard >= 0 && ptxa_is_register(m, ri, (uint32_t)s->guard)) {
			ptxa_reg_index(m, ri, (uint32_t)s->guard, 1);
		}
		if (!ptxa_insn_defines(m, s)) {
			continue;
		}
		struct gm_ptx_range r = gm_ptx_operand(f, s, 0);
		for (uint32_t t = r.begin; t < r.end; t++) {
			if (ptxa_is_register(m, ri, t)) {
				int k = ptxa_reg_index(m, ri, t, 1);
				ri->ndefs[k]++;
			}
		}
	}
	/* (No registers: uniform is NULL, which memset does not take.) */
	if (ri->nr) {
		memset(ri->uniform, 1, ri->nr);
	}
	if (!c->nr_bb) {
		return;
	}
	int64_t *ipdom = ptxa_post_dominators(c);
	c->ipdom = ipdom;
	uint8_t *infl = gm_xcalloc(c->nr_bb + 1, 1);
	uint8_t *done = gm_xcalloc(c->nr_bb + 1, 1);
	uint32_t *stack = gm_xmalloc((c->nr_succ + c->nr_bb + 1) * sizeof(*stack));

	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < c->nr_insn; i++) {
			const struct gm_ptx_stmt *s = &f->stmts[c->insn[i]];
			if (!ptxa_insn_defines(m, s)) {
				continue;
			}
			int u = insn_uniform(m, f, s, ri);
			int in_div = infl[c->bb_of[i]];
			struct gm_ptx_range r = gm_ptx_operand(f, s, 0);
			for (uint32_t t = r.begin; t < r.end; t++) {
				if (!ptxa_is_register(m, ri, t)) {
					continue;
				}
				int k = ptxa_reg_index(m, ri, t, 0);
				if (ri->uniform[k] &&
				    (!u || (in_div && ri->ndefs[k] > 1))) {
					ri->uniform[k] = 0;
					changed = 1;
				}
			}
		}
		for (size_t b = 0; b < c->nr_bb; b++) {
			if (done[b] || !divergent_terminator(m, f, c, ri, b)) {
				continue;
			}
			done[b] = 1;
			c->bb[b].flags |= BB_DIVERGENT;
			ptxa_mark_region(c, b, ipdom[b], infl, stack);
			changed = 1;
		}
	}
	free(infl);
	free(done);
	free(stack);
}
