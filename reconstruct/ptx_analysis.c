/* SPDX-License-Identifier: MIT */
/*
 * Kernel classification for the elastic transformation (see
 * ptx_analysis.h). Three passes per function: a scan of every instruction
 * for features (special registers, state spaces, barriers, warp-level
 * operations, calls); a control-flow graph with a block-uniformity
 * analysis of registers, used to find divergent returns that precede
 * synchronisation ("early return before a barrier") and loops that spin on
 * memory; then the call graph, so a kernel inherits what its callees do.
 */
#include "ptx_analysis.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "strmap.h"

/* ---- opcode tables ---------------------------------------------------- */

static const char *const known_ops[] = {
	"abs", "activemask", "add", "addc", "alloca", "and", "applypriority",
	"atom", "bar", "barrier", "bfe", "bfi", "bfind", "bmsk", "bra",
	"brev", "brkpt", "brx", "call", "clz", "cnot", "copysign", "cos",
	"cp", "createpolicy", "cvt", "cvta", "discard", "div", "dp2a",
	"dp4a", "elect", "ex2", "exit", "fence", "fma", "fns", "getctarank",
	"griddepcontrol", "isspacep", "istypep", "ld", "ldmatrix", "ldu",
	"lg2", "lop3", "mad", "mad24", "madc", "mapa", "match", "max",
	"mbarrier", "membar", "min", "mma", "mov", "movmatrix", "mul",
	"mul24", "multimem", "nanosleep", "neg", "not", "or", "pmevent",
	"popc", "prefetch", "prefetchu", "prmt", "rcp", "red", "redux", "rem",
	"ret", "rsqrt", "sad", "selp", "set", "setmaxnreg", "setp", "shf",
	"shfl", "shl", "shr", "sin", "slct", "sqrt", "st", "stackrestore",
	"stacksave", "stmatrix", "sub", "subc", "suld", "suq", "sured",
	"sust", "szext", "tanh", "tensormap", "testp", "tex", "tld4", "trap",
	"txq", "vote", "wgmma", "wmma", "xor", "vadd", "vsub", "vabsdiff",
	"vmin", "vmax", "vshl", "vshr", "vmad", "vset", "vadd2", "vsub2",
	"vavrg2", "vabsdiff2", "vmin2", "vmax2", "vset2", "vadd4", "vsub4",
	"vavrg4", "vabsdiff4", "vmin4", "vmax4", "vset4", "cvt_pack",
	NULL,
};

/* Instructions whose first operand is not a destination register. */
static const char *const no_def_ops[] = {
	"st", "red", "bar", "barrier", "bra", "brx", "call", "ret", "exit",
	"trap", "brkpt", "membar", "fence", "prefetch", "prefetchu",
	"pmevent", "nanosleep", "cp", "stmatrix", "discard", "applypriority",
	"sust", "sured", "setmaxnreg", "griddepcontrol", "tensormap",
	"stackrestore", NULL,
};

/* Results that can differ between threads whatever the operands. */
static const char *const nonpure_ops[] = {
	"ld", "ldu", "atom", "red", "shfl", "vote", "match", "redux",
	"activemask", "tex", "tld4", "txq", "suld", "suq", "call", "elect",
	"mbarrier", "cp", "wmma", "mma", "ldmatrix", "movmatrix", "wgmma",
	"mapa", "getctarank", "alloca", "stacksave", "multimem", NULL,
};

static int in_list(const char *const *list, const char *s)
{
	for (int i = 0; list[i]; i++) {
		if (!strcmp(list[i], s)) {
			return 1;
		}
	}
	return 0;
}

/* ---- special registers ------------------------------------------------ */

static const char *const other_sregs[] = {
	"%laneid", "%warpid", "%nwarpid", "%smid", "%nsmid", "%gridid",
	"%is_explicit_cluster", "%clusterid", "%nclusterid",
	"%cluster_ctaid", "%cluster_nctaid", "%cluster_ctarank",
	"%cluster_nctarank", "%lanemask_eq", "%lanemask_le", "%lanemask_lt",
	"%lanemask_ge", "%lanemask_gt", "%clock", "%clock_hi", "%clock64",
	"%globaltimer", "%globaltimer_lo", "%globaltimer_hi",
	"%total_smem_size", "%aggr_smem_size", "%dynamic_smem_size",
	"%reserved_smem_offset_begin", "%reserved_smem_offset_end",
	"%reserved_smem_offset_cap", "%reserved_smem_offset_2",
	"%current_graph_exec", NULL,
};

/* Base name of a special register token ("%ctaid" of "%ctaid.x"). */
static size_t sreg_base(const char *t, size_t n, int *comp)
{
	size_t b = 0;

	while (b < n && t[b] != '.') {
		b++;
	}
	*comp = -1;
	if (b + 2 == n && t[b] == '.') {
		switch (t[b + 1]) {
		case 'x':
			*comp = 0;
			break;
		case 'y':
			*comp = 1;
			break;
		case 'z':
			*comp = 2;
			break;
		default:
			*comp = -2;
			break;
		}
	} else if (b != n) {
		*comp = -2;
	}
	return b;
}

static int base_is(const char *t, size_t b, const char *name)
{
	return strlen(name) == b && !memcmp(t, name, b);
}

enum gm_ptx_sreg gm_ptx_sreg_of(const struct gm_ptx_module *m, uint32_t i,
				int *comp)
{
	size_t n;
	const char *t;

	*comp = -1;
	if (i >= m->toks.nr || m->toks.v[i].kind != GM_PTX_WORD) {
		return GM_PTX_SREG_NONE;
	}
	t = gm_ptx_tok_text(m, i, &n);
	if (n < 2 || t[0] != '%') {
		return GM_PTX_SREG_NONE;
	}
	size_t b = sreg_base(t, n, comp);
	if (base_is(t, b, "%ctaid")) {
		return GM_PTX_SREG_CTAID;
	}
	if (base_is(t, b, "%nctaid")) {
		return GM_PTX_SREG_NCTAID;
	}
	if (base_is(t, b, "%tid")) {
		return GM_PTX_SREG_TID;
	}
	if (base_is(t, b, "%ntid")) {
		return GM_PTX_SREG_NTID;
	}
	for (int k = 0; other_sregs[k]; k++) {
		if (base_is(t, b, other_sregs[k])) {
			return GM_PTX_SREG_OTHER;
		}
	}
	/* %envreg0..31, %pm0..7, %pm0_64.. */
	if ((b > 7 && !memcmp(t, "%envreg", 7)) ||
	    (b > 3 && !memcmp(t, "%pm", 3) && t[3] >= '0' && t[3] <= '9')) {
		return GM_PTX_SREG_OTHER;
	}
	return GM_PTX_SREG_NONE;
}

static int tok_has_prefix(const struct gm_ptx_module *m, uint32_t i,
			  const char *p)
{
	return gm_ptx_tok_starts(m, i, p);
}

/* Whether sreg token @i is uniform across a CTA. */
static int sreg_uniform(const struct gm_ptx_module *m, uint32_t i)
{
	int comp;
	enum gm_ptx_sreg s = gm_ptx_sreg_of(m, i, &comp);

	if (s == GM_PTX_SREG_CTAID || s == GM_PTX_SREG_NCTAID ||
	    s == GM_PTX_SREG_NTID) {
		return 1;
	}
	return tok_has_prefix(m, i, "%nsmid") ||
	       tok_has_prefix(m, i, "%gridid") ||
	       tok_has_prefix(m, i, "%nwarpid") ||
	       tok_has_prefix(m, i, "%smid") ||
	       tok_has_prefix(m, i, "%envreg") ||
	       tok_has_prefix(m, i, "%dynamic_smem_size") ||
	       tok_has_prefix(m, i, "%total_smem_size") ||
	       tok_has_prefix(m, i, "%aggr_smem_size");
}

/* ---- per-function facts ----------------------------------------------- */

struct func_facts {
	unsigned own;		/* features of the function's own code */
	unsigned total;		/* with callees */
	unsigned barrier_ids;	/* own and callees */
	char first_what[160];	/* first instruction of note, for reasons */
	char unknown[160];	/* first instruction not understood */
	char spin[160];		/* first spin loop */
	char hazard[200];	/* early return before synchronisation */
	char ctaid_callee[128];	/* a callee that reads %ctaid */
	char tid_callee[128];	/* a callee that reads %tid */
	char warp_what[128];	/* first warp-level op */
	size_t *callees;	/* indices into module funcs */
	size_t nr_callees, alloc_callees;
	int has_reqntid;
	char launched_by[128];	/* a function that takes this kernel's address */
	int cfg_error;
	char cfg_why[160];
};

static uint32_t stmt_line(const struct gm_ptx_module *m,
			  const struct gm_ptx_stmt *s)
{
	return m->toks.v[s->opcode].line;
}

static void note(char *buf, size_t len, const char *fmt, ...)
	GM_PRINTF(3, 4);

static void note(char *buf, size_t len, const char *fmt, ...)
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

static int punct_is(const struct gm_ptx_module *m, uint32_t i, char c)
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
static void scan_func(const struct gm_ptx_module *m,
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
			note(ff->first_what, sizeof(ff->first_what),
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
		uint32_t line = stmt_line(m, s);
		gm_ptx_opcode_base(m, s, base, sizeof(base));
		opcode_text(m, s, op, sizeof(op));
		if (!in_list(known_ops, base)) {
			ff->own |= GM_PTX_F_UNKNOWN;
			note(ff->unknown, sizeof(ff->unknown),
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
				note(ff->warp_what, sizeof(ff->warp_what),
				     "'%s' at line %u", op, line);
			} else if (gm_ptx_opcode_has(m, s, ".cluster")) {
				ff->own |= GM_PTX_F_CLUSTER;
				note(ff->first_what, sizeof(ff->first_what),
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
			note(ff->warp_what, sizeof(ff->warp_what),
			     "'%s' at line %u", op, line);
			if (strcmp(base, "activemask") &&
			    ((strcmp(base, "shfl") && strcmp(base, "vote")) ||
			     gm_ptx_opcode_has(m, s, ".sync"))) {
				ff->own |= GM_PTX_F_WARPSYNC;
			}
		}
		if (!strcmp(base, "mapa") || !strcmp(base, "getctarank")) {
			ff->own |= GM_PTX_F_CLUSTER;
			note(ff->first_what, sizeof(ff->first_what),
			     "'%s' at line %u", op, line);
		}
		if (!strcmp(base, "ret") || !strcmp(base, "exit")) {
			ff->own |= GM_PTX_F_EXIT;
		}
		if (!strcmp(base, "call") && s->nr_ops > 0) {
			uint32_t t = 0;
			struct gm_ptx_range r = gm_ptx_operand(f, s, 0);
			if (punct_is(m, r.begin, '(')) {
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
					note(ff->first_what,
					     sizeof(ff->first_what),
					     "call of '%s' at line %u", callee,
					     line);
				} else if (is_device_runtime(callee)) {
					ff->own |= GM_PTX_F_DEVRT;
					note(ff->first_what,
					     sizeof(ff->first_what),
					     "call of '%s' at line %u", callee,
					     line);
				} else {
					add_callee(ff, (size_t)(cf - m->funcs));
				}
				free(callee);
			}
		}
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
					note(ff->first_what,
					     sizeof(ff->first_what),
					     "vector read of a special register at line %u",
					     line);
				}
				if (sr == GM_PTX_SREG_OTHER) {
					if (tok_has_prefix(m, i, "%laneid") ||
					    tok_has_prefix(m, i, "%warpid") ||
					    tok_has_prefix(m, i, "%nwarpid") ||
					    tok_has_prefix(m, i, "%lanemask")) {
						ff->own |= GM_PTX_F_WARP;
						note(ff->warp_what,
						     sizeof(ff->warp_what),
						     "read of a lane or warp id at line %u",
						     line);
					} else if (tok_has_prefix(m, i, "%cluster") ||
						   tok_has_prefix(m, i, "%nclusterid") ||
						   tok_has_prefix(m, i, "%is_explicit_cluster")) {
						ff->own |= GM_PTX_F_CLUSTER;
						note(ff->first_what,
						     sizeof(ff->first_what),
						     "cluster register at line %u",
						     line);
					} else if (tok_has_prefix(m, i, "%envreg")) {
						ff->own |= GM_PTX_F_GRIDSYNC;
					}
				}
				if (is_shared_symbol(m, i)) {
					ff->own |= GM_PTX_F_SHARED;
				}
			}
		}
	}
}

/* ---- control flow ------------------------------------------------------ */

enum {
	BB_RET = 1,		/* ends in an unguarded ret/exit */
	BB_GRET = 2,		/* ends in a guarded ret/exit */
	BB_SYNC = 4,		/* contains a barrier or warp-synchronous op */
	BB_DIVERGENT = 8,	/* ends in a branch threads may disagree on */
};

struct cfg {
	uint32_t *insn;		/* statement index of each instruction */
	size_t nr_insn;
	int32_t *bb_of;		/* block of each instruction */
	struct bb {
		uint32_t first, last;	/* instruction indices */
		uint32_t succ_first, nr_succ;
		unsigned flags;
	} *bb;
	size_t nr_bb, alloc_bb;
	uint32_t *succ;
	size_t nr_succ, alloc_succ;
	int64_t *ipdom;		/* immediate post-dominator (uniformity()) */
};

static void cfg_release(struct cfg *c)
{
	free(c->insn);
	free(c->bb_of);
	free(c->bb);
	free(c->succ);
	free(c->ipdom);
	memset(c, 0, sizeof(*c));
}

struct label_tab {
	struct gm_strmap map;	/* label -> instruction index */
	struct gm_strmap targets; /* .branchtargets label -> statement */
};

static int lookup_label(const struct gm_ptx_module *m, struct label_tab *lt,
			uint32_t tok, size_t nr_insn)
{
	size_t n;
	const char *t = gm_ptx_tok_text(m, tok, &n);
	int64_t k;

	if (!gm_strmap_get_bytes(&lt->map, t, n, &k) || (size_t)k > nr_insn) {
		return -1;
	}
	return (int)k;
}

static void add_succ(struct cfg *c, uint32_t insn_target)
{
	GM_ALLOC_GROW(c->succ, c->nr_succ + 1, c->alloc_succ);
	c->succ[c->nr_succ++] = insn_target;	/* mapped to blocks later */
}

static int build_cfg(const struct gm_ptx_module *m, const struct gm_ptx_func *f,
		     struct cfg *c, char *why, size_t whylen)
{
	struct label_tab lt;
	uint8_t *leader = NULL;
	int ret = -1;
	char base[32];

	memset(c, 0, sizeof(*c));
	memset(&lt, 0, sizeof(lt));
	c->insn = gm_xmalloc((f->nr_stmts + 1) * sizeof(*c->insn));
	for (size_t k = 0; k < f->nr_stmts; k++) {
		const struct gm_ptx_stmt *s = &f->stmts[k];
		if (s->kind == GM_PTX_S_LABEL) {
			size_t n;
			const char *t = gm_ptx_tok_text(m, s->begin, &n);
			gm_strmap_put_bytes(&lt.map, t, n, (int64_t)c->nr_insn);
			if (k + 1 < f->nr_stmts &&
			    f->stmts[k + 1].kind == GM_PTX_S_DIRECTIVE &&
			    gm_ptx_tok_is(m, f->stmts[k + 1].opcode,
					  ".branchtargets")) {
				gm_strmap_put_bytes(&lt.targets, t, n,
						    (int64_t)(k + 1));
			}
		} else if (s->kind == GM_PTX_S_INSN) {
			c->insn[c->nr_insn++] = (uint32_t)k;
		}
	}
	if (!c->nr_insn) {
		ret = 0;
		goto out;
	}
	leader = gm_xcalloc(c->nr_insn + 1, 1);
	leader[0] = 1;
	for (size_t i = 0; i < lt.map.nr; i++) {
		leader[lt.map.items[i].value] = 1;
	}
	for (size_t i = 0; i < c->nr_insn; i++) {
		const struct gm_ptx_stmt *s = &f->stmts[c->insn[i]];
		gm_ptx_opcode_base(m, s, base, sizeof(base));
		if (!strcmp(base, "bra") || !strcmp(base, "brx") ||
		    !strcmp(base, "ret") || !strcmp(base, "exit") ||
		    (!strcmp(base, "trap") && s->guard < 0)) {
			leader[i + 1] = 1;
		}
	}
	c->bb_of = gm_xmalloc(c->nr_insn * sizeof(*c->bb_of));
	for (size_t i = 0; i < c->nr_insn; i++) {
		if (leader[i]) {
			GM_ALLOC_GROW(c->bb, c->nr_bb + 1, c->alloc_bb);
			memset(&c->bb[c->nr_bb], 0, sizeof(c->bb[0]));
			c->bb[c->nr_bb].first = (uint32_t)i;
			c->nr_bb++;
		}
		c->bb[c->nr_bb - 1].last = (uint32_t)i;
		c->bb_of[i] = (int32_t)(c->nr_bb - 1);
	}
	for (size_t b = 0; b < c->nr_bb; b++) {
		struct bb *bb = &c->bb[b];
		uint32_t li = bb->last;
		const struct gm_ptx_stmt *s = &f->stmts[c->insn[li]];
		int fall = 1;

		bb->succ_first = (uint32_t)c->nr_succ;
		gm_ptx_opcode_base(m, s, base, sizeof(base));
		if (!strcmp(base, "bra")) {
			if (s->nr_ops < 1) {
				snprintf(why, whylen, "branch without a target at line %u",
					 stmt_line(m, s));
				goto out;
			}
			int t = lookup_label(m, &lt, gm_ptx_operand(f, s, 0).begin,
					     c->nr_insn);
			if (t < 0) {
				snprintf(why, whylen, "branch to an unknown label at line %u",
					 stmt_line(m, s));
				goto out;
			}
			add_succ(c, (uint32_t)t);
			fall = s->guard >= 0;
		} else if (!strcmp(base, "brx")) {
			if (s->nr_ops < 2) {
				snprintf(why, whylen, "bad brx at line %u",
					 stmt_line(m, s));
				goto out;
			}
			size_t n;
			uint32_t lt_tok = gm_ptx_operand(f, s, 1).begin;
			const char *t = gm_ptx_tok_text(m, lt_tok, &n);
			int64_t slot;
			if (!gm_strmap_get_bytes(&lt.targets, t, n, &slot)) {
				snprintf(why, whylen, "brx with unknown targets at line %u",
					 stmt_line(m, s));
				goto out;
			}
			const struct gm_ptx_stmt *d =
				&f->stmts[slot];
			for (uint32_t k = d->opcode + 1; k < d->end; k++) {
				if (m->toks.v[k].kind != GM_PTX_WORD) {
					continue;
				}
				int tg = lookup_label(m, &lt, k, c->nr_insn);
				if (tg < 0) {
					snprintf(why, whylen, "brx target unknown at line %u",
						 stmt_line(m, s));
					goto out;
				}
				add_succ(c, (uint32_t)tg);
			}
			fall = s->guard >= 0;
		} else if (!strcmp(base, "ret") || !strcmp(base, "exit")) {
			bb->flags |= s->guard >= 0 ? BB_GRET : BB_RET;
			fall = s->guard >= 0;
		} else if (!strcmp(base, "trap") && s->guard < 0) {
			fall = 0;
		}
		if (fall && li + 1 < c->nr_insn) {
			add_succ(c, li + 1);
		}
		bb->nr_succ = (uint32_t)(c->nr_succ - bb->succ_first);
	}
	/* Instruction targets to block indices (past the end: no block). */
	{
		size_t w = 0;
		for (size_t b = 0; b < c->nr_bb; b++) {
			struct bb *bb = &c->bb[b];
			uint32_t first = (uint32_t)w;
			for (uint32_t k = 0; k < bb->nr_succ; k++) {
				uint32_t t = c->succ[bb->succ_first + k];
				if (t < c->nr_insn) {
					c->succ[w++] = (uint32_t)c->bb_of[t];
				} else {
					/* a label after the last instruction */
					bb->flags |= BB_RET;
				}
			}
			bb->succ_first = first;
			bb->nr_succ = (uint32_t)(w - first);
		}
		c->nr_succ = w;
	}
	ret = 0;
out:
	free(leader);
	gm_strmap_clear(&lt.map);
	gm_strmap_clear(&lt.targets);
	return ret;
}

/* ---- uniformity -------------------------------------------------------- */

struct reginfo {
	struct gm_strmap map;	/* register -> index into arrays below */
	int *ndefs;
	int32_t *def;		/* instruction index of the only def */
	uint8_t *uniform;
	size_t nr, alloc;
	struct gm_strmap declared; /* names declared by .reg (no % needed) */
};

static int is_register(const struct gm_ptx_module *m, struct reginfo *ri,
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

static int reg_index(const struct gm_ptx_module *m, struct reginfo *ri,
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

static void reginfo_release(struct reginfo *ri)
{
	gm_strmap_clear(&ri->map);
	gm_strmap_clear(&ri->declared);
	free(ri->ndefs);
	free(ri->def);
	free(ri->uniform);
	memset(ri, 0, sizeof(*ri));
}

static int insn_defines(const struct gm_ptx_module *m,
			const struct gm_ptx_stmt *s)
{
	char base[32];

	gm_ptx_opcode_base(m, s, base, sizeof(base));
	if (s->nr_ops == 0 || in_list(no_def_ops, base)) {
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
				if (!sreg_uniform(m, i)) {
					return 0;
				}
				continue;
			}
			if (!is_register(m, ri, i)) {
				continue;
			}
			int k = reg_index(m, ri, i, 0);
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
		int k = reg_index(m, ri, (uint32_t)s->guard, 0);
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
	if (in_list(nonpure_ops, base)) {
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
	int k = reg_index(m, ri, (uint32_t)s->guard, 0);
	return k < 0 || !ri->uniform[k];
}

/* ---- post-dominators and divergence -------------------------------- */

/* A bit matrix, one row of @words 64-bit words per block. */
struct bits {
	uint64_t *w;
	size_t words;
};

static int bit_get(const uint64_t *row, size_t i)
{
	return (row[i / 64] >> (i % 64)) & 1;
}

static void bit_set(uint64_t *row, size_t i)
{
	row[i / 64] |= (uint64_t)1 << (i % 64);
}

/*
 * Immediate post-dominator of every block (nr_bb: the virtual exit,
 * -1: none, e.g. a block that cannot reach an exit).
 */
static int64_t *post_dominators(struct cfg *c)
{
	size_t n = c->nr_bb, words = (n + 1 + 63) / 64;
	uint64_t *pd = gm_xcalloc((n + 1) * words, sizeof(uint64_t));
	uint64_t *tmp = gm_xcalloc(words, sizeof(uint64_t));
	int64_t *ipdom = gm_xmalloc((n + 1) * sizeof(*ipdom));

	for (size_t b = 0; b < n; b++) {
		memset(pd + b * words, 0xff, words * sizeof(uint64_t));
	}
	bit_set(pd + n * words, n);
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t b = n; b-- > 0;) {
			struct bb *bb = &c->bb[b];
			int exits = !bb->nr_succ || (bb->flags & (BB_GRET | BB_RET));
			memset(tmp, 0xff, words * sizeof(uint64_t));
			for (uint32_t k = 0; k < bb->nr_succ; k++) {
				const uint64_t *row = pd + c->succ[bb->succ_first + k] * words;
				for (size_t w = 0; w < words; w++) {
					tmp[w] &= row[w];
				}
			}
			if (exits) {
				const uint64_t *row = pd + n * words;
				for (size_t w = 0; w < words; w++) {
					tmp[w] &= row[w];
				}
			}
			bit_set(tmp, b);
			if (memcmp(tmp, pd + b * words, words * sizeof(uint64_t))) {
				memcpy(pd + b * words, tmp, words * sizeof(uint64_t));
				changed = 1;
			}
		}
	}
	for (size_t b = 0; b < n; b++) {
		const uint64_t *row = pd + b * words;
		size_t cnt = 0;
		ipdom[b] = -1;
		if (!bit_get(row, n)) {
			continue;	/* never reaches an exit */
		}
		for (size_t i = 0; i <= n; i++) {
			cnt += bit_get(row, i);
		}
		/* the strict post-dominator with one bit fewer */
		for (size_t p = 0; p <= n; p++) {
			if (p == b || !bit_get(row, p)) {
				continue;
			}
			size_t cp = 0;
			for (size_t i = 0; i <= n; i++) {
				cp += bit_get(pd + p * words, i);
			}
			if (cp + 1 == cnt) {
				ipdom[b] = (int64_t)p;
				break;
			}
		}
	}
	ipdom[n] = -1;
	free(pd);
	free(tmp);
	return ipdom;
}

/* Mark in @infl the blocks between divergent @d and its reconvergence. */
static void mark_region(struct cfg *c, size_t d, int64_t stop, uint8_t *infl,
			uint32_t *stack)
{
	size_t top = 0;
	uint8_t *seen = gm_xcalloc(c->nr_bb + 1, 1);
	struct bb *bb = &c->bb[d];

	for (uint32_t k = 0; k < bb->nr_succ; k++) {
		stack[top++] = c->succ[bb->succ_first + k];
	}
	while (top) {
		uint32_t b = stack[--top];
		if ((int64_t)b == stop || seen[b]) {
			continue;
		}
		seen[b] = 1;
		infl[b] = 1;
		struct bb *x = &c->bb[b];
		for (uint32_t k = 0; k < x->nr_succ; k++) {
			stack[top++] = c->succ[x->succ_first + k];
		}
	}
	free(seen);
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
static void uniformity(const struct gm_ptx_module *m,
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
				if (is_register(m, ri, t)) {
					reg_index(m, ri, t, 1);
				}
			}
		}
		if (s->guard >= 0 && is_register(m, ri, (uint32_t)s->guard)) {
			reg_index(m, ri, (uint32_t)s->guard, 1);
		}
		if (!insn_defines(m, s)) {
			continue;
		}
		struct gm_ptx_range r = gm_ptx_operand(f, s, 0);
		for (uint32_t t = r.begin; t < r.end; t++) {
			if (is_register(m, ri, t)) {
				int k = reg_index(m, ri, t, 1);
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
	int64_t *ipdom = post_dominators(c);
	c->ipdom = ipdom;
	uint8_t *infl = gm_xcalloc(c->nr_bb + 1, 1);
	uint8_t *done = gm_xcalloc(c->nr_bb + 1, 1);
	uint32_t *stack = gm_xmalloc((c->nr_succ + c->nr_bb + 1) * sizeof(*stack));

	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < c->nr_insn; i++) {
			const struct gm_ptx_stmt *s = &f->stmts[c->insn[i]];
			if (!insn_defines(m, s)) {
				continue;
			}
			int u = insn_uniform(m, f, s, ri);
			int in_div = infl[c->bb_of[i]];
			struct gm_ptx_range r = gm_ptx_operand(f, s, 0);
			for (uint32_t t = r.begin; t < r.end; t++) {
				if (!is_register(m, ri, t)) {
					continue;
				}
				int k = reg_index(m, ri, t, 0);
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
			mark_region(c, b, ipdom[b], infl, stack);
			changed = 1;
		}
	}
	free(infl);
	free(done);
	free(stack);
}

/* Does instruction @s synchronise with other threads (for the scan)? */
static int insn_syncs(const struct gm_ptx_module *m,
		      const struct gm_ptx_func *f,
		      const struct gm_ptx_stmt *s,
		      const struct func_facts *facts)
{
	char base[32];

	gm_ptx_opcode_base(m, s, base, sizeof(base));
	if (!strcmp(base, "bar") || !strcmp(base, "barrier")) {
		return 1;
	}
	if (!strcmp(base, "shfl") || !strcmp(base, "vote")) {
		return gm_ptx_opcode_has(m, s, ".sync");
	}
	if (!strcmp(base, "match") || !strcmp(base, "redux") ||
	    !strcmp(base, "wmma") || !strcmp(base, "mma") ||
	    !strcmp(base, "ldmatrix") || !strcmp(base, "stmatrix") ||
	    !strcmp(base, "movmatrix") || !strcmp(base, "wgmma") ||
	    !strcmp(base, "elect")) {
		return 1;
	}
	if (!strcmp(base, "call") && s->nr_ops > 0) {
		uint32_t t = punct_is(m, gm_ptx_operand(f, s, 0).begin, '(');
		if (t < s->nr_ops) {
			char *callee = gm_ptx_tok_dup(m, gm_ptx_operand(f, s, t).begin);
			const struct gm_ptx_func *cf =
				gm_ptx_module_find_func(m, callee);
			free(callee);
			if (cf) {
				unsigned tot = facts[cf - m->funcs].total;
				return (tot & (GM_PTX_F_BARRIER |
					       GM_PTX_F_WARPSYNC)) != 0;
			}
		}
	}
	return 0;
}

/*
 * The early-return scan. A thread that returns, in the transformed
 * kernel, waits at the loop tail instead of exiting; if threads it
 * diverged from then reach a barrier or a warp-synchronous operation, the
 * CTA deadlocks or pairs the wrong barriers. At each divergent branch D,
 * with R the blocks between D and its reconvergence point P: threads may
 * leave early when R holds a return not preceded by synchronisation, or
 * when R synchronises, some path reaches P without doing so, and P leads
 * to a return without it; others still synchronise when R does or when
 * P leads to synchronisation.
 */
static void scan_hazard(const struct gm_ptx_module *m,
			const struct gm_ptx_func *f, struct cfg *c,
			struct reginfo *ri, const struct func_facts *facts,
			struct func_facts *ff)
{
	size_t nb = c->nr_bb;
	uint8_t *rs = gm_xcalloc(nb + 1, 1);	/* reaches a sync */
	uint8_t *rns = gm_xcalloc(nb + 1, 1);	/* reaches a ret, no sync */
	uint8_t *inr = gm_xcalloc(nb + 1, 1);
	uint8_t *seen = gm_xcalloc(nb + 1, 1);
	uint32_t *stack = gm_xmalloc((c->nr_succ + nb + 1) * sizeof(*stack));

	(void)ri;
	for (size_t b = 0; b < nb; b++) {
		for (uint32_t i = c->bb[b].first; i <= c->bb[b].last; i++) {
			if (insn_syncs(m, f, &f->stmts[c->insn[i]], facts)) {
				c->bb[b].flags |= BB_SYNC;
			}
		}
	}
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t bi = nb; bi-- > 0;) {
			struct bb *bb = &c->bb[bi];
			uint8_t s = (bb->flags & BB_SYNC) != 0;
			uint8_t r = !(bb->flags & BB_SYNC) &&
				    (bb->flags & (BB_RET | BB_GRET));
			for (uint32_t k = 0; k < bb->nr_succ; k++) {
				uint32_t t = c->succ[bb->succ_first + k];
				s |= rs[t];
				if (!(bb->flags & BB_SYNC)) {
					r |= rns[t];
				}
			}
			if (s != rs[bi] || r != rns[bi]) {
				rs[bi] = s;
				rns[bi] = r;
				changed = 1;
			}
		}
	}
	for (size_t d = 0; d < nb && !ff->hazard[0]; d++) {
		struct bb *bb = &c->bb[d];
		if (!(bb->flags & BB_DIVERGENT)) {
			continue;
		}
		int64_t p = c->ipdom ? c->ipdom[d] : -1;
		int has_p = p >= 0 && (size_t)p < nb;
		size_t top = 0;
		int sync_r = 0, ret_r = (bb->flags & BB_GRET) != 0;

		/* R: reachable from D's successors, stopping at P */
		memset(inr, 0, nb + 1);
		for (uint32_t k = 0; k < bb->nr_succ; k++) {
			stack[top++] = c->succ[bb->succ_first + k];
		}
		while (top) {
			uint32_t b = stack[--top];
			if ((int64_t)b == p || inr[b]) {
				continue;
			}
			inr[b] = 1;
			sync_r |= (c->bb[b].flags & BB_SYNC) != 0;
			for (uint32_t k = 0; k < c->bb[b].nr_succ; k++) {
				stack[top++] = c->succ[c->bb[b].succ_first + k];
			}
		}
		/*
		 * Paths without synchronisation from D: to a return inside R,
		 * or to P (those threads skip what the others synchronise on)
		 */
		int skip_p = 0;
		memset(seen, 0, nb + 1);
		top = 0;
		for (uint32_t k = 0; k < bb->nr_succ; k++) {
			stack[top++] = c->succ[bb->succ_first + k];
		}
		while (top) {
			uint32_t b = stack[--top];
			if ((int64_t)b == p) {
				skip_p = 1;
				continue;
			}
			if (!inr[b] || seen[b] || (c->bb[b].flags & BB_SYNC)) {
				continue;
			}
			seen[b] = 1;
			if (c->bb[b].flags & (BB_RET | BB_GRET)) {
				ret_r = 1;
			}
			for (uint32_t k = 0; k < c->bb[b].nr_succ; k++) {
				stack[top++] = c->succ[c->bb[b].succ_first + k];
			}
		}
		int leave = ret_r || (sync_r && has_p && skip_p && rns[p]);
		int stay = sync_r || (has_p && rs[p]);
		if (leave && stay) {
			const struct gm_ptx_stmt *s = &f->stmts[c->insn[bb->last]];
			snprintf(ff->hazard, sizeof(ff->hazard),
				 "divergent return before synchronisation: threads may stop at the branch at line %u while others still reach a barrier or warp-synchronous operation",
				 stmt_line(m, s));
		}
	}
	free(rs);
	free(rns);
	free(inr);
	free(seen);
	free(stack);
}

/* Loads whose value another CTA may change while this one waits. */
static int insn_polls(const struct gm_ptx_module *m, const struct gm_ptx_stmt *s)
{
	char base[32];

	gm_ptx_opcode_base(m, s, base, sizeof(base));
	if (gm_ptx_opcode_has(m, s, ".shared") || gm_ptx_opcode_has(m, s, ".local") ||
	    gm_ptx_opcode_has(m, s, ".param") || gm_ptx_opcode_has(m, s, ".const")) {
		return 0;
	}
	if (!strcmp(base, "atom")) {
		return 1;
	}
	if (!strcmp(base, "ld")) {
		return gm_ptx_opcode_has(m, s, ".volatile") ||
		       gm_ptx_opcode_has(m, s, ".acquire") ||
		       gm_ptx_opcode_has(m, s, ".relaxed") ||
		       gm_ptx_opcode_has(m, s, ".mmio");
	}
	return 0;
}

/*
 * Loops that spin on memory written by other CTAs (global barriers, flags)
 * deadlock once CTAs run one after another. A loop is a retreating edge in
 * layout order; it spins when a branch leaving it, or its back edge,
 * depends on a polling load inside it.
 */
static void scan_spin(const struct gm_ptx_module *m, const struct gm_ptx_func *f,
		      struct cfg *c, struct reginfo *ri, struct func_facts *ff)
{
	uint8_t *taint = gm_xcalloc(ri->nr + 1, 1);

	for (size_t b = 0; b < c->nr_bb && !ff->spin[0]; b++) {
		struct bb *bb = &c->bb[b];
		for (uint32_t k = 0; k < bb->nr_succ && !ff->spin[0]; k++) {
			uint32_t h = c->succ[bb->succ_first + k];
			if (h > b) {
				continue;
			}
			uint32_t lo = c->bb[h].first, hi = bb->last;
			memset(taint, 0, ri->nr + 1);
			int any = 0;
			for (int changed = 1; changed;) {
				changed = 0;
				for (uint32_t i = lo; i <= hi; i++) {
					const struct gm_ptx_stmt *s =
						&f->stmts[c->insn[i]];
					if (!insn_defines(m, s)) {
						continue;
					}
					int t = insn_polls(m, s);
					for (uint32_t o = 1; !t && o < s->nr_ops; o++) {
						struct gm_ptx_range r = gm_ptx_operand(f, s, o);
						for (uint32_t q = r.begin; q < r.end; q++) {
							int ix = is_register(m, ri, q)
								 ? reg_index(m, ri, q, 0) : -1;
							if (ix >= 0 && taint[ix]) {
								t = 1;
							}
						}
					}
					if (!t) {
						continue;
					}
					struct gm_ptx_range r = gm_ptx_operand(f, s, 0);
					for (uint32_t q = r.begin; q < r.end; q++) {
						int ix = is_register(m, ri, q)
							 ? reg_index(m, ri, q, 0) : -1;
						if (ix >= 0 && !taint[ix]) {
							taint[ix] = 1;
							changed = any = 1;
						}
					}
				}
			}
			if (!any) {
				continue;
			}
			/* branches of the loop that leave it or close it */
			for (size_t x = h; x <= b; x++) {
				struct bb *xb = &c->bb[x];
				const struct gm_ptx_stmt *s =
					&f->stmts[c->insn[xb->last]];
				if (s->guard < 0) {
					continue;
				}
				int ix = reg_index(m, ri, (uint32_t)s->guard, 0);
				if (ix < 0 || !taint[ix]) {
					continue;
				}
				int leaves = x == b;
				for (uint32_t q = 0; q < xb->nr_succ; q++) {
					uint32_t t = c->succ[xb->succ_first + q];
					if (t < h || t > b) {
						leaves = 1;
					}
				}
				if (leaves) {
					snprintf(ff->spin, sizeof(ff->spin),
						 "loop at line %u waits on memory other blocks may write (possible inter-block synchronisation)",
						 stmt_line(m, &f->stmts[c->insn[lo]]));
					break;
				}
			}
		}
	}
	free(taint);
}

/* ---- classification --------------------------------------------------- */


static void set_reason(struct gm_ptx_kernel_info *k, const char *fmt, ...)
	GM_PRINTF(2, 3);

static void set_reason(struct gm_ptx_kernel_info *k, const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(k->reason, sizeof(k->reason), fmt, ap);
	va_end(ap);
}

/* First callee (transitively) of @fi with a feature in @mask, or NULL. */
static const char *callee_with(const struct gm_ptx_module *m,
			       struct func_facts *facts, size_t fi,
			       unsigned mask, uint8_t *seen)
{
	struct func_facts *ff = &facts[fi];

	for (size_t k = 0; k < ff->nr_callees; k++) {
		size_t c = ff->callees[k];
		if (seen[c]) {
			continue;
		}
		seen[c] = 1;
		if (facts[c].own & mask) {
			return m->funcs[c].name;
		}
		const char *r = callee_with(m, facts, c, mask, seen);
		if (r) {
			return r;
		}
	}
	return NULL;
}

static void classify(const struct gm_ptx_module *m, struct func_facts *facts,
		     size_t fi, struct gm_ptx_kernel_info *k)
{
	struct func_facts *ff = &facts[fi];
	unsigned t = ff->total;
	uint8_t *seen = gm_xcalloc(m->nr_funcs + 1, 1);
	const char *cal;

	k->features = t;
	k->barrier_ids = ff->barrier_ids;
	k->reqntid = ff->has_reqntid;
	k->tail_barrier = -1;
	k->cls = GM_ELASTIC_NONE;
	if (ff->cfg_error) {
		set_reason(k, "control flow not understood: %s", ff->cfg_why);
	} else if (ff->launched_by[0]) {
		set_reason(k, "launched from the device by '%s'", ff->launched_by);
	} else if (t & GM_PTX_F_UNKNOWN) {
		set_reason(k, "%s is not understood",
			   ff->unknown[0] ? ff->unknown : "an instruction of a callee");
	} else if (t & GM_PTX_F_CLUSTER) {
		set_reason(k, "uses thread-block clusters (%s)",
			   ff->first_what[0] ? ff->first_what : "in a callee");
	} else if (t & GM_PTX_F_GRIDSYNC) {
		set_reason(k, "grid-wide synchronisation (cooperative launch: reads %%envreg)");
	} else if (t & GM_PTX_F_DEVRT) {
		set_reason(k, "dynamic parallelism (%s)",
			   ff->first_what[0] ? ff->first_what : "device runtime call in a callee");
	} else if (t & GM_PTX_F_INDIRECT) {
		set_reason(k, "indirect call (%s)",
			   ff->first_what[0] ? ff->first_what : "in a callee");
	} else if (t & GM_PTX_F_SREG_VECTOR) {
		set_reason(k, "%s is not understood", ff->first_what);
	} else if ((cal = callee_with(m, facts, fi, GM_PTX_F_CTAID, seen))) {
		set_reason(k, "function '%s' reads %%ctaid or %%nctaid", cal);
	} else if (t & GM_PTX_F_SPIN) {
		const char *why = ff->spin;
		if (!why[0]) {
			memset(seen, 0, m->nr_funcs + 1);
			why = "a callee spins on memory (possible inter-block synchronisation)";
		}
		set_reason(k, "%s", why);
	} else if (t & GM_PTX_F_BARRIER_VAR) {
		set_reason(k, "barrier with a register or out-of-range id");
	} else if (ff->hazard[0]) {
		set_reason(k, "%s", ff->hazard);
	} else {
		unsigned need = GM_PTX_F_SHARED | GM_PTX_F_BARRIER |
				GM_PTX_F_WARP;
		k->cls = GM_ELASTIC_THREAD;
		memset(seen, 0, m->nr_funcs + 1);
		if (t & need) {
			k->cls = GM_ELASTIC_BLOCK;
			if (t & GM_PTX_F_SHARED) {
				set_reason(k, "uses shared memory");
			} else if (t & GM_PTX_F_BARRIER) {
				set_reason(k, "uses barriers");
			} else {
				set_reason(k, "uses warp-level operations (%s)",
					   ff->warp_what[0] ? ff->warp_what : "in a callee");
			}
		} else if (ff->has_reqntid) {
			k->cls = GM_ELASTIC_BLOCK;
			set_reason(k, "block size fixed by .reqntid");
		} else if ((cal = callee_with(m, facts, fi, GM_PTX_F_TID, seen))) {
			k->cls = GM_ELASTIC_BLOCK;
			set_reason(k, "function '%s' reads %%tid or %%ntid", cal);
		}
		if (t & (GM_PTX_F_SHARED | GM_PTX_F_BARRIER | GM_PTX_F_WARPSYNC)) {
			unsigned ids = ff->barrier_ids;
			if (!(t & GM_PTX_F_BARRIER0_COUNT) && !(ids & ~1u)) {
				k->tail_barrier = 0;
			} else {
				for (int id = 1; id < 16; id++) {
					if (!(ids & (1u << id))) {
						k->tail_barrier = id;
						break;
					}
				}
				if (k->tail_barrier < 0) {
					k->cls = GM_ELASTIC_NONE;
					set_reason(k, "all 16 barriers are in use");
				}
			}
		}
	}
	free(seen);
}

int gm_ptx_analyze(const struct gm_ptx_module *m, struct gm_ptx_analysis *out)
{
	size_t nf = m->nr_funcs;
	struct func_facts *facts = gm_xcalloc(nf + 1, sizeof(*facts));
	struct cfg *cfgs = gm_xcalloc(nf + 1, sizeof(*cfgs));
	struct reginfo *ris = gm_xcalloc(nf + 1, sizeof(*ris));

	memset(out, 0, sizeof(*out));
	for (size_t i = 0; i < nf; i++) {
		const struct gm_ptx_func *f = &m->funcs[i];
		if (!f->has_body) {
			continue;
		}
		scan_func(m, f, &facts[i]);
		if (build_cfg(m, f, &cfgs[i], facts[i].cfg_why,
			      sizeof(facts[i].cfg_why)) < 0) {
			facts[i].cfg_error = 1;
			continue;
		}
		uniformity(m, f, &cfgs[i], &ris[i]);
		scan_spin(m, f, &cfgs[i], &ris[i], &facts[i]);
		if (facts[i].spin[0]) {
			facts[i].own |= GM_PTX_F_SPIN;
		}
	}
	/* Kernels whose address the code takes are launched from the device. */
	struct gm_strmap entries = GM_STRMAP_INIT;
	for (size_t e = 0; e < nf; e++) {
		if (m->funcs[e].is_entry) {
			size_t n;
			const char *w = gm_ptx_tok_text(m, m->funcs[e].name_tok, &n);
			gm_strmap_put_bytes(&entries, w, n, (int64_t)e);
		}
	}
	for (size_t i = 0; i < nf; i++) {
		const struct gm_ptx_func *f = &m->funcs[i];
		for (size_t k = 0; f->has_body && k < f->nr_stmts; k++) {
			const struct gm_ptx_stmt *s = &f->stmts[k];
			if (s->kind != GM_PTX_S_INSN) {
				continue;
			}
			for (uint32_t t = s->opcode + 1; t < s->end; t++) {
				size_t n;
				const char *w = gm_ptx_tok_text(m, t, &n);
				if (m->toks.v[t].kind != GM_PTX_WORD || w[0] == '%') {
					continue;
				}
				int64_t slot;
				if (gm_strmap_get_bytes(&entries, w, n, &slot)) {
					size_t e = (size_t)slot;
					note(facts[e].launched_by,
					     sizeof(facts[e].launched_by), "%s",
					     f->name);
				}
			}
		}
	}
	gm_strmap_clear(&entries);
	/* Callee features, to a fixpoint (recursion allowed). */
	for (size_t i = 0; i < nf; i++) {
		facts[i].total = facts[i].own;
	}
	for (int changed = 1; changed;) {
		changed = 0;
		for (size_t i = 0; i < nf; i++) {
			for (size_t k = 0; k < facts[i].nr_callees; k++) {
				size_t c = facts[i].callees[k];
				unsigned t = facts[i].total | facts[c].total;
				unsigned ids = facts[i].barrier_ids |
					       facts[c].barrier_ids;
				if (t != facts[i].total ||
				    ids != facts[i].barrier_ids) {
					facts[i].total = t;
					facts[i].barrier_ids = ids;
					changed = 1;
				}
			}
		}
	}
	/* Callees' ctaid/tid reads are judged separately from the kernel's. */
	for (size_t i = 0; i < nf; i++) {
		facts[i].total = (facts[i].total &
				  ~(unsigned)(GM_PTX_F_CTAID | GM_PTX_F_TID |
					      GM_PTX_F_EXIT)) |
				 (facts[i].own & (GM_PTX_F_CTAID | GM_PTX_F_TID |
						  GM_PTX_F_EXIT));
	}
	for (size_t i = 0; i < nf; i++) {
		const struct gm_ptx_func *f = &m->funcs[i];
		if (!f->is_entry || !f->has_body || facts[i].cfg_error) {
			continue;
		}
		scan_hazard(m, f, &cfgs[i], &ris[i], facts, &facts[i]);
	}
	for (size_t i = 0; i < nf; i++) {
		const struct gm_ptx_func *f = &m->funcs[i];
		if (!f->is_entry || !f->has_body) {
			continue;
		}
		GM_ALLOC_GROW(out->kernels, out->nr_kernels + 1, out->alloc);
		struct gm_ptx_kernel_info *k = &out->kernels[out->nr_kernels++];
		memset(k, 0, sizeof(*k));
		k->name = gm_xstrdup(f->name);
		k->func = f;
		classify(m, facts, i, k);
	}
	for (size_t i = 0; i < nf; i++) {
		free(facts[i].callees);
		cfg_release(&cfgs[i]);
		reginfo_release(&ris[i]);
	}
	free(facts);
	free(cfgs);
	free(ris);
	return 0;
}

void gm_ptx_analysis_release(struct gm_ptx_analysis *a)
{
	for (size_t i = 0; i < a->nr_kernels; i++) {
		free(a->kernels[i].name);
	}
	free(a->kernels);
	memset(a, 0, sizeof(*a));
}
