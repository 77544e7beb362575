/* SPDX-License-Identifier: MIT */
/*
 * The first pass of the kernel analysis (see ptx_analysis_int.h): a
 * scan of every instruction of a function for its features (special
 * registers, state spaces, barriers, warp-level operations, calls).
 */
#include "ptx_analysis_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "strmap.h"

/* ---- per-function facts ----------------------------------------------- */


uint32_t ptxa_stmt_line(const struct gm_ptx_module *m,
			const struct gm_ptx_stmt *s)
{
	return m->toks.v[s->opcode].line;
}

void ptxa_note(char *buf, size_t len, const char *fmt, ...)
{
	va_list ap;

	if (buf[0]) {
		return;		/* keep the first */
	}
	va_start(ap, fmt);
	vsnprintf(buf, len, fmt, ap);
	va_end(ap);
}

/* Opcode text as a C string, truncated. */
static void opcode_text(const struct gm_ptx_module *m,
			const struct gm_ptx_stmt *s, char *buf, size_t len)
{
	size_t n;
	const char *t = gm_ptx_tok_text(m, s->opcode, &n);

	if (n >= len) {
		n = len - 1;
	}
	memcpy(buf, t, n);
	buf[n] = '\0';
}

static int is_shared_symbol(const struct gm_ptx_module *m, uint32_t i)
{
	size_t n;
	const char *t = gm_ptx_tok_text(m, i, &n);
	char name[256];

	if (m->toks.v[i].kind != GM_PTX_WORD || t[0] == '%' || t[0] == '.' ||
	    n >= sizeof(name)) {
		return 0;
	}
	memcpy(name, t, n);
	name[n] = '\0';
	const struct gm_ptx_var *v = gm_ptx_module_find_var(m, name);
	return v && v->space == GM_PTX_SPACE_SHARED;
}

int ptxa_punct_is(const struct gm_ptx_module *m, uint32_t i, char c)
{
	return m->toks.v[i].kind == GM_PTX_PUNCT && m->src[m->toks.v[i].off] == c;
}

/* Parse a decimal or hex immediate operand; -1 if it is not one. */
static long imm_value(const struct gm_ptx_module *m, struct gm_ptx_range r)
{
	char buf[32];
	size_t n;
	const char *t;

	if (r.end != r.begin + 1 || m->toks.v[r.begin].kind != GM_PTX_NUM) {
		return -1;
	}
	t = gm_ptx_tok_text(m, r.begin, &n);
	if (n >= sizeof(buf)) {
		return -1;
	}
	memcpy(buf, t, n);
	buf[n] = '\0';
	char *end;
	long v = strtol(buf, &end, 0);
	if (*end && strcmp(end, "U") && strcmp(end, "u")) {
		return -1;
	}
	return v;
}

/* Device runtime entry points: cudaLaunchDevice, __cudaCDP2..., etc. */
static int is_device_runtime(const char *name)
{
	while (*name == '_') {
		name++;
	}
	return !strncmp(name, "cuda", 4);
}

static void add_callee(struct func_facts *ff, size_t idx)
{
	for (size_t i = 0; i < ff->nr_callees; i++) {
		if (ff->callees[i] == idx) {
			return;
		}
	}
	GM_ALLOC_GROW(ff->callees, ff->nr_callees + 1, ff->alloc_callees);
	ff->callees[ff->nr_callees++] = idx;
}

static void scan_barrier(const struct gm_ptx_module *m,
			 const struct gm_ptx_func *f,
			 const struct gm_ptx_stmt *s, struct func_facts *ff)
{
	int red = gm_ptx_opcode_has(m, s, ".red");
	uint32_t idk = red ? 1 : 0;
	uint32_t min_ops = red ? 3 : 1;

	ff->own |= GM_PTX_F_BARRIER;
	if (s->nr_ops < min_ops) {
		/* "barrier.sync;" without an id is not PTX */
		ff->own |= GM_PTX_F_BARRIER_VAR;
		return;
	}
	long id = imm_value(m, gm_ptx_operand(f, s, idk));
	if (id < 0 || id > 15) {
		ff->own |= GM_PTX_F_BARRIER_VAR;
		return;
	}
	ff->barrier_ids |= 1u << id;
	int counted = red ? s->nr_ops >= 4 : s->nr_ops >= 2;
	if (gm_ptx_opcode_has(m, s, ".arrive")) {
		counted = 1;
	}
	if (counted && id == 0) {
		ff->own |= GM_PTX_F_BARRIER0_COUNT;
	}
}

/* Feature scan of one function's own code. */
/* A statement @s of opcode @base that is a call: its callee, or why it cannot be followed. */
static void scan_call(const struct gm_ptx_module *m,
		      const struct gm_ptx_func *f,
		      const struct gm_ptx_stmt *s, struct func_facts *ff,
		      const char *base, uint32_t line)
{
	if (!strcmp(base, "call") && s->nr_ops > 0) {
		uint32_t t = 0;
		struct gm_ptx_range r = gm_ptx_operand(f, s, 0);
		if (ptxa_punct_is(m, r.begin, '(')) {
			t = 1;
		}
		if (t < s->nr_ops) {
			r = gm_ptx_operand(f, s, t);
			char *callee = gm_ptx_tok_dup(m, r.begin);
			const struct gm_ptx_func *cf =
				gm_ptx_module_find_func(m, callee);
			if (callee[0] == '%' || !cf) {
				/* a register, or not a known function */
				if (is_device_runtime(callee)) {
					ff->own |= GM_PTX_F_DEVRT;
				} else {
					ff->own |= GM_PTX_F_INDIRECT;
				}
				ptxa_note(ff->first_what,
				     sizeof(ff->first_what),
				     "call of '%s' at line %u", callee,
				     line);
			} else if (is_device_runtime(callee)) {
				ff->own |= GM_PTX_F_DEVRT;
				ptxa_note(ff->first_what,
				     sizeof(ff->first_what),
				     "call of '%s' at line %u", callee,
				     line);
			} else {
				add_callee(ff, (size_t)(cf - m->funcs));
			}
			free(callee);
		}
	}
}

/* The operands of statement @s: the special registers and shared
 * symbols they read. */
static void scan_operands(const struct gm_ptx_module *m,
			 const struct gm_ptx_func *f,
			 const struct gm_ptx_stmt *s, struct func_facts *ff,
			 uint32_t line)
{
	for (uint32_t o = 0; o < s->nr_ops; o++) {
		struct gm_ptx_range r = gm_ptx_operand(f, s, o);
		for (uint32_t i = r.begin; i < r.end; i++) {
			int comp;
			enum gm_ptx_sreg sr = gm_ptx_sreg_of(m, i, &comp);
			if (sr == GM_PTX_SREG_CTAID ||
			    sr == GM_PTX_SREG_NCTAID) {
				ff->own |= GM_PTX_F_CTAID;
			} else if (sr == GM_PTX_SREG_TID ||
				   sr == GM_PTX_SREG_NTID) {
				ff->own |= GM_PTX_F_TID;
			}
			if (sr >= GM_PTX_SREG_CTAID &&
			    sr <= GM_PTX_SREG_NTID && comp < 0) {
				ff->own |= GM_PTX_F_SREG_VECTOR;
				ptxa_note(ff->first_what,
				     sizeof(ff->first_what),
				     "vector read of a special register at line %u",
				     line);
			}
			if (sr == GM_PTX_SREG_OTHER) {
				if (ptxa_tok_has_prefix(m, i, "%laneid") ||
				    ptxa_tok_has_prefix(m, i, "%warpid") ||
				    ptxa_tok_has_prefix(m, i, "%nwarpid") ||
				    ptxa_tok_has_prefix(m, i, "%lanemask")) {
					ff->own |= GM_PTX_F_WARP;
					ptxa_note(ff->warp_what,
					     sizeof(ff->warp_what),
					     "read of a lane or warp id at line %u",
					     line);
				} else if (ptxa_tok_has_prefix(m, i, "%cluster") ||
					   ptxa_tok_has_prefix(m, i, "%nclusterid") ||
					   ptxa_tok_has_prefix(m, i, "%is_explicit_cluster")) {
					ff->own |= GM_PTX_F_CLUSTER;
					ptxa_note(ff->first_what,
					     sizeof(ff->first_what),
					     "cluster register at line %u",
					     line);
				} else if (ptxa_tok_has_prefix(m, i, "%envreg")) {
					ff->own |= GM_PTX_F_GRIDSYNC;
				}
			}
			if (is_shared_symbol(m, i)) {
				ff->own |= GM_PTX_F_SHARED;
			}
		}
	}
}

void ptxa_scan_func(const struct gm_ptx_module *m,
		    const struct gm_ptx_func *f, struct func_facts *ff)
{
	char base[32], op[96];

	for (uint32_t i = f->params_close >= 0 ? (uint32_t)f->params_close : 0;
	     f->body_open >= 0 && i < (uint32_t)f->body_open; i++) {
		if (gm_ptx_tok_is(m, i, ".reqntid")) {
			ff->has_reqntid = 1;
		}
		if (gm_ptx_tok_is(m, i, ".explicitcluster") ||
		    gm_ptx_tok_is(m, i, ".reqnctapercluster") ||
		    gm_ptx_tok_is(m, i, ".maxclusterrank")) {
			ff->own |= GM_PTX_F_CLUSTER;
			ptxa_note(ff->first_what, sizeof(ff->first_what),
			     "cluster directive at line %u",
			     m->toks.v[i].line);
		}
	}
	for (size_t k = 0; k < f->nr_stmts; k++) {
		const struct gm_ptx_stmt *s = &f->stmts[k];
		if (s->kind == GM_PTX_S_DECL) {
			for (uint32_t i = s->begin; i < s->end; i++) {
				if (gm_ptx_tok_is(m, i, ".shared")) {
					ff->own |= GM_PTX_F_SHARED;
				}
			}
			continue;
		}
		if (s->kind != GM_PTX_S_INSN) {
			continue;
		}
		uint32_t line = ptxa_stmt_line(m, s);
		gm_ptx_opcode_base(m, s, base, sizeof(base));
		opcode_text(m, s, op, sizeof(op));
		if (!ptxa_in_list(ptxa_known_ops, base)) {
			ff->own |= GM_PTX_F_UNKNOWN;
			ptxa_note(ff->unknown, sizeof(ff->unknown),
			     "instruction '%s' at line %u", op, line);
		}
		if (gm_ptx_opcode_has(m, s, ".shared")) {
			ff->own |= GM_PTX_F_SHARED;
		}
		if (!strcmp(base, "cp") || !strcmp(base, "mbarrier") ||
		    !strcmp(base, "ldmatrix") || !strcmp(base, "stmatrix") ||
		    !strcmp(base, "wgmma")) {
			ff->own |= GM_PTX_F_SHARED;
		}
		if (!strcmp(base, "bar") || !strcmp(base, "barrier")) {
			if (gm_ptx_opcode_has(m, s, ".warp")) {
				ff->own |= GM_PTX_F_WARP | GM_PTX_F_WARPSYNC;
				ptxa_note(ff->warp_what, sizeof(ff->warp_what),
				     "'%s' at line %u", op, line);
			} else if (gm_ptx_opcode_has(m, s, ".cluster")) {
				ff->own |= GM_PTX_F_CLUSTER;
				ptxa_note(ff->first_what, sizeof(ff->first_what),
				     "'%s' at line %u", op, line);
			} else {
				scan_barrier(m, f, s, ff);
			}
		}
		if (!strcmp(base, "shfl") || !strcmp(base, "vote") ||
		    !strcmp(base, "match") || !strcmp(base, "redux") ||
		    !strcmp(base, "wmma") || !strcmp(base, "mma") ||
		    !strcmp(base, "ldmatrix") || !strcmp(base, "stmatrix") ||
		    !strcmp(base, "movmatrix") || !strcmp(base, "wgmma") ||
		    !strcmp(base, "elect") || !strcmp(base, "activemask")) {
			ff->own |= GM_PTX_F_WARP;
			ptxa_note(ff->warp_what, sizeof(ff->warp_what),
			     "'%s' at line %u", op, line);
			if (strcmp(base, "activemask") &&
			    ((strcmp(base, "shfl") && strcmp(base, "vote")) ||
			     gm_ptx_opcode_has(m, s, ".sync"))) {
				ff->own |= GM_PTX_F_WARPSYNC;
			}
		}
		if (!strcmp(base, "mapa") || !strcmp(base, "getctarank")) {
			ff->own |= GM_PTX_F_CLUSTER;
			ptxa_note(ff->first_what, sizeof(ff->first_what),
			     "'%s' at line %u", op, line);
		}
		if (!strcmp(base, "ret") || !strcmp(base, "exit")) {
			ff->own |= GM_PTX_F_EXIT;
		}
		scan_call(m, f, s, ff, base, line);
		scan_operands(m, f, s, ff, line);
	}
}
