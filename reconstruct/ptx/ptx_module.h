/* SPDX-License-Identifier: MIT */
/*
 * A parsed PTX module, as much as the elastic transformation needs: the
 * header directives, module-scope variables (to know which symbols live in
 * shared memory), and every .entry and .func with its parameters and its
 * body split into statements (labels, declarations, directives,
 * instructions with guard, opcode and operands, scope braces). Nothing is
 * normalised: each statement keeps its token range, so unchanged code is
 * written back byte for byte.
 */
#ifndef GM_PTX_MODULE_H
#define GM_PTX_MODULE_H

#include <stddef.h>
#include <stdint.h>

#include "ptx_lex.h"

struct strbuf;

/* Token indices [begin, end). */
struct gm_ptx_range {
	uint32_t begin, end;
};

enum gm_ptx_stmt_kind {
	GM_PTX_S_INSN,		/* [@[!]p] opcode operands ; */
	GM_PTX_S_LABEL,		/* name : */
	GM_PTX_S_DECL,		/* .reg/.local/.shared/.param/... ; */
	GM_PTX_S_DIRECTIVE,	/* .pragma ; .loc/.file line; .branchtargets ; */
	GM_PTX_S_OPEN,		/* { */
	GM_PTX_S_CLOSE,		/* } */
};

struct gm_ptx_stmt {
	enum gm_ptx_stmt_kind kind;
	uint32_t begin, end;	/* tokens, without the final ';' */
	int32_t guard;		/* token of the guard predicate, or -1 */
	int guard_neg;		/* @!p */
	uint32_t opcode;	/* opcode or directive token */
	uint32_t op_first;	/* first operand in gm_ptx_func.ops */
	uint32_t nr_ops;
	int depth;		/* scope depth, 0 = top of the body */
};

struct gm_ptx_param {
	char *name;
	struct gm_ptx_range toks;
};

struct gm_ptx_func {
	char *name;
	int is_entry;		/* .entry (kernel) rather than .func */
	int has_body;		/* a definition, not a prototype */
	struct gm_ptx_range item;	/* the whole item, body included */
	uint32_t name_tok;
	int32_t params_open, params_close;	/* '(' ')' or -1 */
	int32_t body_open, body_close;		/* '{' '}' or -1 */
	struct gm_ptx_param *params;
	size_t nr_params;
	struct gm_ptx_stmt *stmts;
	size_t nr_stmts, alloc_stmts;
	struct gm_ptx_range *ops;
	size_t nr_ops, alloc_ops;
	size_t alloc_params;
};

enum gm_ptx_space {
	GM_PTX_SPACE_OTHER,
	GM_PTX_SPACE_GLOBAL,
	GM_PTX_SPACE_CONST,
	GM_PTX_SPACE_SHARED,
	GM_PTX_SPACE_LOCAL,
};

struct gm_ptx_var {
	char *name;
	enum gm_ptx_space space;
	int is_extern;
	uint32_t tok;		/* the name token */
};

struct gm_ptx_module {
	char *src;		/* owned copy of the text */
	size_t len;
	struct gm_ptx_tokens toks;
	unsigned version_major, version_minor;	/* .version */
	unsigned target_sm;	/* 90 for .target sm_90, 0 if unknown */
	unsigned address_size;	/* 64 unless .address_size says otherwise */
	struct gm_ptx_func *funcs;
	size_t nr_funcs, alloc_funcs;
	struct gm_ptx_var *vars;
	size_t nr_vars, alloc_vars;
};

/*
 * Parse @len bytes of PTX text (NUL padding allowed) into @m, which owns a
 * copy. Returns 0, or -1 with a recorded error that names the line (or
 * says that the text is empty or has no .version directive).
 * @m is usable (and must be released) either way.
 */
int gm_ptx_module_parse(struct gm_ptx_module *m, const char *text,
			size_t len);

/* Free everything @m owns and zero it. */
void gm_ptx_module_release(struct gm_ptx_module *m);

/* The function named @name, or NULL. */
struct gm_ptx_func *gm_ptx_module_find_func(const struct gm_ptx_module *m,
					    const char *name);

/* The module-scope variable named @name, or NULL. */
const struct gm_ptx_var *gm_ptx_module_find_var(const struct gm_ptx_module *m,
						const char *name);

/* Token text (not NUL-terminated) and its length. */
static inline const char *gm_ptx_tok_text(const struct gm_ptx_module *m,
					  uint32_t i, size_t *len)
{
	*len = m->toks.v[i].len;
	return m->src + m->toks.v[i].off;
}

/* Whether token @i is exactly @s. */
int gm_ptx_tok_is(const struct gm_ptx_module *m, uint32_t i, const char *s);

/* Whether token @i starts with @prefix. */
int gm_ptx_tok_starts(const struct gm_ptx_module *m, uint32_t i,
		      const char *prefix);

/* A new NUL-terminated copy of token @i (caller frees). */
char *gm_ptx_tok_dup(const struct gm_ptx_module *m, uint32_t i);

/*
 * Append the source text of tokens [begin, end) to @sb, spacing and
 * comments between them included, exactly as written.
 */
void gm_ptx_add_source(struct strbuf *sb, const struct gm_ptx_module *m,
		       uint32_t begin, uint32_t end);

/* The operand @k of statement @s (token range). */
static inline struct gm_ptx_range gm_ptx_operand(const struct gm_ptx_func *f,
						 const struct gm_ptx_stmt *s,
						 uint32_t k)
{
	return f->ops[s->op_first + k];
}

/*
 * The base of an opcode ("ld" for "ld.global.u32") into @buf; returns @buf.
 */
const char *gm_ptx_opcode_base(const struct gm_ptx_module *m,
			       const struct gm_ptx_stmt *s, char *buf,
			       size_t len);

/*
 * Whether the opcode of @s carries the modifier @mod (".shared",
 * ".sync", ".u64"), matched exactly between dots; a modifier such as
 * ".shared::cta" matches ".shared".
 */
int gm_ptx_opcode_has(const struct gm_ptx_module *m,
		      const struct gm_ptx_stmt *s, const char *mod);

#endif
