/* SPDX-License-Identifier: MIT */
/*
 * A small PTX interpreter for tests (header-only: static functions for
 * the one test program that includes it). It runs a kernel of a parsed
 * module on the CPU, one CTA after another, each thread with its own
 * registers and program counter; threads run until they block at a CTA
 * barrier or a warp-synchronous instruction (shfl.sync, vote.sync,
 * bar.warp.sync), which are released when every thread they wait for has
 * arrived; a state where nothing can run is reported as a deadlock. It
 * knows the integer subset nvcc emits for the test corpus and the code
 * the elastic transformation generates: enough to check, without a GPU,
 * that a transformed kernel computes what the original computes for any
 * physical grid, block, offset and limit (%smid is the CTA's linear id
 * modulo PI_SMS, %globaltimer the steps run). Global, local and generic
 * addresses are host pointers; shared addresses are offsets into the
 * CTA's shared array (a generic shared address is base + offset).
 */
#ifndef GM_PTX_INTERP_H
#define GM_PTX_INTERP_H

#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reconstruct/ptx/ptx_module.h"
#include "reconstruct/ptx/ptx_analysis.h"
#include "strbuf.h"

/* The SMs %smid spreads CTAs over. */
#define PI_SMS 7

enum pi_opk {
	PI_NONE, PI_REG, PI_IMM, PI_SREG, PI_SYM, PI_MEM, PI_VEC, PI_LABEL,
	PI_PAIR,	/* a|b */
};

enum pi_sym_kind { PI_SYM_GLOBAL, PI_SYM_SHARED, PI_SYM_LOCAL, PI_SYM_PARAM,
		   PI_SYM_FUNC, PI_SYM_OTHER };

struct pi_operand {
	enum pi_opk kind;
	int neg;		/* !p */
	int reg;		/* PI_REG: register index; PI_MEM base reg or -1 */
	int reg2;		/* PI_PAIR second register */
	int64_t imm;		/* PI_IMM value; PI_MEM offset */
	int sreg, comp;		/* PI_SREG */
	char *sym;		/* PI_SYM / PI_MEM symbol */
	int nvec;		/* PI_VEC */
	int vec[4];
};

enum pi_opc {
	PO_DECL, PO_BRA, PO_RET, PO_EXIT, PO_CALL, PO_NOP, PO_TRAP, PO_BAR,
	PO_WARP, PO_LD, PO_ST, PO_ATOM, PO_RED, PO_CVTA, PO_CVT, PO_SETP,
	PO_SELP, PO_MOV, PO_ADD, PO_SUB, PO_MUL, PO_MAD, PO_DIV, PO_REM,
	PO_MIN, PO_MAX, PO_AND, PO_OR, PO_XOR, PO_NOT, PO_NEG, PO_ABS, PO_SHL,
	PO_SHR, PO_BFI, PO_OTHER,
};

struct pi_insn {
	enum pi_opc opc;
	int bits, sgn, flt;	/* type modifier */
	int shared;		/* .shared state space */
	int stmt;		/* statement index in the function */
	char base[24];		/* opcode base */
	char mods[10][24];	/* modifiers without the dot */
	int nmods;
	int guard, guard_neg;
	int nops;
	struct pi_operand op[8];
	int target;		/* bra: instruction index */
	uint32_t line;
};

struct pi_func {
	const struct gm_ptx_func *f;
	struct pi_insn *insn;
	int ninsn;
	char **regs;		/* register names */
	int nregs, aregs;
	/* declarations executed when control enters (local/param/reg) */
};

struct pi_frame {
	struct pi_func *fn;
	int pc;
	uint64_t *r;
	/*
	 * symbol -> storage, for .param and .local names of this frame;
	 * sown[i]: the frame allocated sptr[i] (a .local array) and frees it,
	 * else it aliases the caller's storage
	 */
	char **sname;
	unsigned char **sptr;
	char *sown;
	int nsym, asym;
	int ret_to;		/* caller pc after the call */
};

enum pi_state { PI_RUN, PI_BAR, PI_WARP, PI_DONE };

struct pi_thread {
	struct pi_frame *frames;
	int nframes, aframes;
	enum pi_state state;
	int bar_id, bar_count;
	int warp_insn;		/* instruction waited at */
	uint64_t warp_vals[4];
	uint32_t tid[3];
	unsigned linear;
};

struct pi_kernel_launch {
	uint32_t grid[3], block[3];
	size_t dyn_smem;
	const void *params;	/* the kernel parameter buffer */
	size_t params_size;
};

struct pi_vm {
	const struct gm_ptx_module *m;
	struct pi_func *funcs;	/* one per module function (lazily decoded) */
	int nfuncs;
	/* module-scope variables */
	char **gname;
	unsigned char **gptr;
	size_t *gsize;
	int *gspace;
	int ng;
	size_t shared_static;	/* bytes of static shared memory */
	size_t *shared_off;	/* per variable */
	char err[512];
	uint64_t steps, max_steps;
	/* per-CTA */
	unsigned char *shared;
	size_t shared_size;
	const struct pi_kernel_launch *launch;
	uint32_t ctaid[3];
	const struct pi_func *kernel;
	const unsigned char *params;
	size_t params_size;
	size_t *param_off;	/* kernel parameter offsets */
	char *fsh_name[64];	/* shared variables declared in the kernel */
	size_t fsh_off[64];
	int nfsh;
};

static int pi_fail(struct pi_vm *vm, const char *fmt, ...)
{
	va_list ap;

	if (!vm->err[0]) {
		va_start(ap, fmt);
		vsnprintf(vm->err, sizeof(vm->err), fmt, ap);
		va_end(ap);
	}
	return -1;
}

static int pi_has(const struct pi_insn *in, const char *mod)
{
	for (int i = 0; i < in->nmods; i++) {
		if (!strcmp(in->mods[i], mod)) {
			return 1;
		}
	}
	return 0;
}

/* The type modifier (the last one when @skip_last is 0): bits, sign. */
static void pi_type_n(const struct pi_insn *in, int nmods, int *bits, int *sgn,
		      int *flt)
{
	*bits = 32;
	*sgn = 0;
	*flt = 0;
	for (int i = nmods - 1; i >= 0; i--) {
		const char *t = in->mods[i];
		int n = 0, used = 0;
		if (!strcmp(t, "pred")) {
			*bits = 1;
			return;
		}
		if (strchr("usbf", t[0]) && sscanf(t + 1, "%d%n", &n, &used) == 1 &&
		    !t[1 + used] && (n == 8 || n == 16 || n == 32 || n == 64)) {
			*bits = n;
			*sgn = t[0] == 's';
			*flt = t[0] == 'f';
			return;
		}
	}
}

static void pi_type(const struct pi_insn *in, int *bits, int *sgn, int *flt)
{
	pi_type_n(in, in->nmods, bits, sgn, flt);
}

static enum pi_opc pi_opcode(const char *b)
{
	static const struct {
		const char *name;
		enum pi_opc opc;
	} t[] = {
		{ "bra", PO_BRA }, { "ret", PO_RET }, { "exit", PO_EXIT },
		{ "call", PO_CALL }, { "membar", PO_NOP }, { "fence", PO_NOP },
		{ "trap", PO_TRAP }, { "bar", PO_BAR }, { "barrier", PO_BAR },
		{ "shfl", PO_WARP }, { "vote", PO_WARP }, { "ld", PO_LD },
		{ "ldu", PO_LD }, { "st", PO_ST }, { "atom", PO_ATOM },
		{ "red", PO_RED }, { "cvta", PO_CVTA }, { "cvt", PO_CVT },
		{ "setp", PO_SETP }, { "selp", PO_SELP }, { "mov", PO_MOV },
		{ "add", PO_ADD }, { "sub", PO_SUB }, { "mul", PO_MUL },
		{ "mad", PO_MAD }, { "div", PO_DIV }, { "rem", PO_REM },
		{ "min", PO_MIN }, { "max", PO_MAX }, { "and", PO_AND },
		{ "or", PO_OR }, { "xor", PO_XOR }, { "not", PO_NOT },
		{ "neg", PO_NEG }, { "abs", PO_ABS }, { "shl", PO_SHL },
		{ "shr", PO_SHR }, { "bfi", PO_BFI }, { "decl", PO_DECL },
	};
	for (size_t i = 0; i < sizeof(t) / sizeof(t[0]); i++) {
		if (!strcmp(t[i].name, b)) {
			return t[i].opc;
		}
	}
	return PO_OTHER;
}

static int pi_reg_index(struct pi_func *fn, const char *name, size_t n)
{
	for (int i = 0; i < fn->nregs; i++) {
		if (strlen(fn->regs[i]) == n && !memcmp(fn->regs[i], name, n)) {
			return i;
		}
	}
	if (fn->nregs == fn->aregs) {
		fn->aregs = fn->aregs ? fn->aregs * 2 : 64;
		fn->regs = realloc(fn->regs, fn->aregs * sizeof(*fn->regs));
	}
	fn->regs[fn->nregs] = strndup(name, n);
	return fn->nregs++;
}

static int pi_tok_punct(const struct gm_ptx_module *m, uint32_t i, char c)
{
	return i < m->toks.nr && m->toks.v[i].kind == GM_PTX_PUNCT &&
	       m->src[m->toks.v[i].off] == c;
}

static int64_t pi_number(const char *t, size_t n)
{
	char buf[64];
	if (n >= sizeof(buf)) {
		n = sizeof(buf) - 1;
	}
	memcpy(buf, t, n);
	buf[n] = '\0';
	if ((buf[1] == 'f' || buf[1] == 'F') && buf[0] == '0') {
		return (int64_t)strtoull(buf + 2, NULL, 16);
	}
	if ((buf[1] == 'd' || buf[1] == 'D') && buf[0] == '0') {
		return (int64_t)strtoull(buf + 2, NULL, 16);
	}
	return (int64_t)strtoull(buf, NULL, 0);
}

/* Decode one operand from tokens [b, e). */
static int pi_decode_op(struct pi_vm *vm, struct pi_func *fn, uint32_t b,
			uint32_t e, struct pi_operand *o)
{
	const struct gm_ptx_module *m = vm->m;
	size_t n;
	const char *t;

	memset(o, 0, sizeof(*o));
	o->reg = -1;
	if (b >= e) {
		return pi_fail(vm, "empty operand");
	}
	if (pi_tok_punct(m, b, '!')) {
		o->neg = 1;
		b++;
	}
	if (pi_tok_punct(m, b, '{')) {
		o->kind = PI_VEC;
		for (uint32_t i = b + 1; i + 1 < e; i++) {
			if (m->toks.v[i].kind == GM_PTX_WORD && o->nvec < 4) {
				t = gm_ptx_tok_text(m, i, &n);
				o->vec[o->nvec++] = pi_reg_index(fn, t, n);
			}
		}
		return 0;
	}
	if (pi_tok_punct(m, b, '[')) {
		o->kind = PI_MEM;
		int sign = 1;
		for (uint32_t i = b + 1; i + 1 < e; i++) {
			if (pi_tok_punct(m, i, '+')) {
				sign = 1;
				continue;
			}
			if (pi_tok_punct(m, i, '-')) {
				sign = -sign;
				continue;
			}
			t = gm_ptx_tok_text(m, i, &n);
			if (m->toks.v[i].kind == GM_PTX_NUM) {
				o->imm += sign * pi_number(t, n);
			} else if (t[0] == '%') {
				o->reg = pi_reg_index(fn, t, n);
			} else {
				o->sym = strndup(t, n);
			}
			sign = 1;
		}
		return 0;
	}
	if (e - b == 3 && pi_tok_punct(m, b + 1, '|')) {
		o->kind = PI_PAIR;
		t = gm_ptx_tok_text(m, b, &n);
		o->reg = pi_reg_index(fn, t, n);
		t = gm_ptx_tok_text(m, b + 2, &n);
		o->reg2 = pi_reg_index(fn, t, n);
		return 0;
	}
	if (pi_tok_punct(m, b, '-') && e - b == 2) {
		t = gm_ptx_tok_text(m, b + 1, &n);
		o->kind = PI_IMM;
		o->imm = -pi_number(t, n);
		return 0;
	}
	if (e - b != 1) {
		return pi_fail(vm, "operand not understood at line %u", m->toks.v[b].line);
	}
	t = gm_ptx_tok_text(m, b, &n);
	if (m->toks.v[b].kind == GM_PTX_NUM) {
		o->kind = PI_IMM;
		o->imm = pi_number(t, n);
		return 0;
	}
	int comp;
	enum gm_ptx_sreg s = gm_ptx_sreg_of(m, b, &comp);
	if (s != GM_PTX_SREG_NONE) {
		o->kind = PI_SREG;
		o->comp = comp;
		o->sym = strndup(t, n);
		o->sreg = s;
		return 0;
	}
	if (t[0] == '%') {
		o->kind = PI_REG;
		o->reg = pi_reg_index(fn, t, n);
		return 0;
	}
	/* a register declared without % (inline asm), else a symbol */
	for (size_t k = 0; k < fn->f->nr_stmts; k++) {
		const struct gm_ptx_stmt *st = &fn->f->stmts[k];
		if (st->kind != GM_PTX_S_DECL || !gm_ptx_tok_is(m, st->opcode, ".reg")) {
			continue;
		}
		for (uint32_t i = st->opcode + 1; i < st->end; i++) {
			size_t n2;
			const char *t2 = gm_ptx_tok_text(m, i, &n2);
			if (n2 == n && !memcmp(t2, t, n)) {
				o->kind = PI_REG;
				o->reg = pi_reg_index(fn, t, n);
				return 0;
			}
		}
	}
	o->kind = PI_SYM;
	o->sym = strndup(t, n);
	return 0;
}

static int pi_find_global(struct pi_vm *vm, const char *name)
{
	for (int i = 0; i < vm->ng; i++) {
		if (!strcmp(vm->gname[i], name)) {
			return i;
		}
	}
	return -1;
}

static int pi_decode(struct pi_vm *vm, struct pi_func *fn)
{
	const struct gm_ptx_module *m = vm->m;
	const struct gm_ptx_func *f = fn->f;
	int *label_insn = calloc(f->nr_stmts + 1, sizeof(int));
	int n = 0;

	fn->insn = calloc(f->nr_stmts + 1, sizeof(*fn->insn));
	for (size_t k = 0; k < f->nr_stmts; k++) {
		const struct gm_ptx_stmt *s = &f->stmts[k];
		label_insn[k] = n;
		if (s->kind == GM_PTX_S_INSN || s->kind == GM_PTX_S_DECL) {
			/* declarations run too: they create .local/.param storage */
			struct pi_insn *in = &fn->insn[n++];
			size_t len;
			const char *t = gm_ptx_tok_text(m, s->opcode, &len);
			char buf[256];
			memcpy(buf, t, len < 255 ? len : 255);
			buf[len < 255 ? len : 255] = '\0';
			in->stmt = (int)k;
			in->line = m->toks.v[s->opcode].line;
			in->target = -1;
			in->guard = -1;
			char *save, *tok = strtok_r(buf, ".", &save);
			snprintf(in->base, sizeof(in->base), "%s",
				 s->kind == GM_PTX_S_DECL ? "decl" : tok ? tok : "");
			if (s->kind == GM_PTX_S_DECL) {
				continue;
			}
			while ((tok = strtok_r(NULL, ".", &save)) && in->nmods < 10) {
				snprintf(in->mods[in->nmods++], sizeof(in->mods[0]), "%s", tok);
			}
			if (s->guard >= 0) {
				t = gm_ptx_tok_text(m, (uint32_t)s->guard, &len);
				in->guard = pi_reg_index(fn, t, len);
				in->guard_neg = s->guard_neg;
			}
			if (s->nr_ops > 8) {
				free(label_insn);
				return pi_fail(vm, "too many operands at line %u", in->line);
			}
			for (uint32_t o = 0; o < s->nr_ops; o++) {
				struct gm_ptx_range r = gm_ptx_operand(f, s, o);
				/* call: (ret), func, (args) -- keep the raw parens */
				if (!strcmp(in->base, "call") && pi_tok_punct(m, r.begin, '(')) {
					in->op[o].kind = PI_NONE;
					in->op[o].imm = r.begin;
					in->op[o].reg2 = (int)r.end;
					continue;
				}
				if (pi_decode_op(vm, fn, r.begin, r.end, &in->op[o]) < 0) {
					free(label_insn);
					return -1;
				}
			}
			in->nops = (int)s->nr_ops;
		}
	}
	fn->ninsn = n;
	for (int i = 0; i < n; i++) {
		struct pi_insn *in = &fn->insn[i];
		in->opc = pi_opcode(in->base);
		pi_type(in, &in->bits, &in->sgn, &in->flt);
		in->shared = pi_has(in, "shared");
	}
	/* branch targets */
	for (int i = 0; i < n; i++) {
		struct pi_insn *in = &fn->insn[i];
		if (strcmp(in->base, "bra") || in->nops < 1 || in->op[0].kind != PI_SYM) {
			continue;
		}
		for (size_t k = 0; k < f->nr_stmts; k++) {
			if (f->stmts[k].kind == GM_PTX_S_LABEL &&
			    gm_ptx_tok_is(m, f->stmts[k].begin, in->op[0].sym)) {
				in->target = label_insn[k];
			}
		}
		if (in->target < 0) {
			free(label_insn);
			return pi_fail(vm, "unknown label %s", in->op[0].sym);
		}
	}
	free(label_insn);
	return 0;
}

static struct pi_func *pi_func_of(struct pi_vm *vm, const char *name)
{
	for (int i = 0; i < vm->nfuncs; i++) {
		if (!strcmp(vm->funcs[i].f->name, name) && vm->funcs[i].f->has_body) {
			if (!vm->funcs[i].insn && pi_decode(vm, &vm->funcs[i]) < 0) {
				return NULL;
			}
			return &vm->funcs[i];
		}
	}
	pi_fail(vm, "no function '%s'", name);
	return NULL;
}

/* Storage of a symbol in the current frame, or a module variable. */
static unsigned char *pi_sym_ptr(struct pi_vm *vm, struct pi_frame *fr,
				 const char *sym, int *space)
{
	for (int i = fr->nsym - 1; i >= 0; i--) {
		if (!strcmp(fr->sname[i], sym)) {
			*space = PI_SYM_LOCAL;
			return fr->sptr[i];
		}
	}
	if (fr->fn == vm->kernel) {
		for (size_t p = 0; p < fr->fn->f->nr_params; p++) {
			if (!strcmp(fr->fn->f->params[p].name, sym)) {
				*space = PI_SYM_PARAM;
				return (unsigned char *)vm->params + vm->param_off[p];
			}
		}
	}
	for (int i = 0; i < vm->nfsh; i++) {
		if (!strcmp(vm->fsh_name[i], sym)) {
			*space = PI_SYM_SHARED;
			return (unsigned char *)(uintptr_t)vm->fsh_off[i];
		}
	}
	int g = pi_find_global(vm, sym);
	if (g >= 0) {
		*space = vm->gspace[g];
		if (vm->gspace[g] == GM_PTX_SPACE_SHARED) {
			return (unsigned char *)(uintptr_t)vm->shared_off[g];
		}
		return vm->gptr[g];
	}
	pi_fail(vm, "unknown symbol '%s'", sym);
	return NULL;
}

static void pi_frame_add_sym(struct pi_frame *fr, const char *name,
			     unsigned char *p, int owned)
{
	if (fr->nsym == fr->asym) {
		fr->asym = fr->asym ? fr->asym * 2 : 8;
		fr->sname = realloc(fr->sname, fr->asym * sizeof(*fr->sname));
		fr->sptr = realloc(fr->sptr, fr->asym * sizeof(*fr->sptr));
		fr->sown = realloc(fr->sown, fr->asym * sizeof(*fr->sown));
	}
	fr->sname[fr->nsym] = strdup(name);
	fr->sown[fr->nsym] = (char)owned;
	fr->sptr[fr->nsym++] = p;
}

/* Free what frame @fr owns: names, its .local arrays, registers. */
static void pi_frame_release(struct pi_frame *fr)
{
	for (int i = 0; i < fr->nsym; i++) {
		free(fr->sname[i]);
		if (fr->sown[i]) {
			free(fr->sptr[i]);
		}
	}
	free(fr->sname);
	free(fr->sptr);
	free(fr->sown);
	free(fr->r);
}

static uint64_t pi_mask(int bits, uint64_t v)
{
	return bits >= 64 ? v : v & ((1ull << bits) - 1);
}

static int64_t pi_sext(int bits, uint64_t v)
{
	if (bits >= 64) {
		return (int64_t)v;
	}
	uint64_t m = 1ull << (bits - 1);
	v = pi_mask(bits, v);
	return (int64_t)((v ^ m) - m);
}

static uint64_t pi_sreg_value(struct pi_vm *vm, struct pi_thread *th,
			      const struct pi_operand *o)
{
	const char *s = o->sym;
	int c = o->comp < 0 ? 0 : o->comp;
	const struct pi_kernel_launch *l = vm->launch;

	if (!strncmp(s, "%tid", 4)) {
		return th->tid[c];
	}
	if (!strncmp(s, "%ntid", 5)) {
		return l->block[c];
	}
	if (!strncmp(s, "%ctaid", 6)) {
		return vm->ctaid[c];
	}
	if (!strncmp(s, "%nctaid", 7)) {
		return l->grid[c];
	}
	if (!strcmp(s, "%laneid")) {
		return th->linear % 32;
	}
	if (!strcmp(s, "%warpid")) {
		return th->linear / 32;
	}
	if (!strncmp(s, "%envreg", 7)) {
		return 0;
	}
	/* CTAs take "SMs" round robin; the clock is the steps run so far. */
	if (!strcmp(s, "%smid")) {
		return (vm->ctaid[0] + (uint64_t)l->grid[0] *
			(vm->ctaid[1] + (uint64_t)l->grid[1] * vm->ctaid[2])) %
		       PI_SMS;
	}
	if (!strcmp(s, "%globaltimer")) {
		return 1000 + vm->steps;
	}
	pi_fail(vm, "special register %s not supported", s);
	return 0;
}

static uint64_t pi_get(struct pi_vm *vm, struct pi_thread *th,
		       const struct pi_operand *o)
{
	struct pi_frame *fr = &th->frames[th->nframes - 1];
	int space;

	switch (o->kind) {
	case PI_REG:
		return o->neg ? !fr->r[o->reg] : fr->r[o->reg];
	case PI_IMM:
		return (uint64_t)o->imm;
	case PI_SREG:
		return pi_sreg_value(vm, th, o);
	case PI_SYM: {
		unsigned char *p = pi_sym_ptr(vm, fr, o->sym, &space);
		return (uint64_t)(uintptr_t)p;
	}
	default:
		pi_fail(vm, "operand kind %d not readable", o->kind);
		return 0;
	}
}

static void pi_set(struct pi_thread *th, int reg, int bits, uint64_t v)
{
	struct pi_frame *fr = &th->frames[th->nframes - 1];
	fr->r[reg] = bits == 1 ? (v != 0) : pi_mask(bits, v);
}

/* Host address of a memory operand for space @space ("shared", ...). */
static unsigned char *pi_addr(struct pi_vm *vm, struct pi_thread *th,
			      const struct pi_insn *in, const struct pi_operand *o)
{
	struct pi_frame *fr = &th->frames[th->nframes - 1];
	uint64_t a = 0;
	int space = -1;

	if (o->kind != PI_MEM) {
		pi_fail(vm, "expected a memory operand at line %u", in->line);
		return NULL;
	}
	if (o->sym) {
		a = (uint64_t)(uintptr_t)pi_sym_ptr(vm, fr, o->sym, &space);
	}
	if (o->reg >= 0) {
		a += fr->r[o->reg];
	}
	a += (uint64_t)o->imm;
	if (in->shared) {
		if (a >= vm->shared_size) {
			pi_fail(vm, "shared access at %llu out of %zu bytes (line %u)",
				(unsigned long long)a, vm->shared_size, in->line);
			return NULL;
		}
		return vm->shared + a;
	}
	return (unsigned char *)(uintptr_t)a;
}

static uint64_t pi_load(const unsigned char *p, int bytes)
{
	uint64_t v = 0;
	memcpy(&v, p, (size_t)bytes);
	return v;
}

static void pi_store(unsigned char *p, int bytes, uint64_t v)
{
	memcpy(p, &v, (size_t)bytes);
}

static int pi_cmp(const char *op, int sgn, int bits, uint64_t a, uint64_t b)
{
	static const char *const ops[] = { "eq", "ne", "lt", "le", "gt", "ge",
					   "lo", "ls", "hi", "hs" };
	int k = -1;

	for (int i = 0; i < 10; i++) {
		if (!strcmp(op, ops[i])) {
			k = i >= 6 ? i - 4 : i;
		}
	}
	if (k < 0) {
		return -1;
	}
	int lt, eq;
	if (sgn) {
		int64_t x = pi_sext(bits, a), y = pi_sext(bits, b);
		lt = x < y;
		eq = x == y;
	} else {
		uint64_t x = pi_mask(bits, a), y = pi_mask(bits, b);
		lt = x < y;
		eq = x == y;
	}
	switch (k) {
	case 0:
		return eq;
	case 1:
		return !eq;
	case 2:
		return lt;
	case 3:
		return lt || eq;
	case 4:
		return !lt && !eq;
	default:
		return !lt;
	}
}

static int pi_call(struct pi_vm *vm, struct pi_thread *th, struct pi_insn *in);

static int pi_decl(struct pi_vm *vm, struct pi_frame *fr, struct pi_insn *in)
{
	const struct gm_ptx_stmt *s = &fr->fn->f->stmts[in->stmt];
	const struct gm_ptx_module *m = vm->m;

	if (!gm_ptx_tok_is(m, s->opcode, ".local") &&
	    !gm_ptx_tok_is(m, s->opcode, ".param")) {
		return 0;
	}
	size_t size = 8;
	char *name = NULL;
	for (uint32_t i = s->opcode + 1; i < s->end; i++) {
		size_t n;
		const char *t = gm_ptx_tok_text(m, i, &n);
		if (m->toks.v[i].kind == GM_PTX_WORD && t[0] != '.') {
			free(name);
			name = strndup(t, n);
		}
		if (pi_tok_punct(m, i, '[') && i + 1 < s->end &&
		    m->toks.v[i + 1].kind == GM_PTX_NUM) {
			t = gm_ptx_tok_text(m, i + 1, &n);
			size = (size_t)pi_number(t, n);
		}
	}
	if (name) {
		pi_frame_add_sym(fr, name, calloc(1, size + 16), 1);
		free(name);
	}
	return 0;
}

static int pi_atom(struct pi_vm *vm, struct pi_thread *th, struct pi_insn *in)
{
	int red = in->opc == PO_RED, bits = in->bits, sgn = in->sgn;
	int bytes = bits / 8;
	unsigned char *p = pi_addr(vm, th, in, &in->op[red ? 0 : 1]);
	if (!p) {
		return -1;
	}
	uint64_t old = pi_load(p, bytes), v = pi_get(vm, th, &in->op[red ? 1 : 2]);
	uint64_t nv;
	if (pi_has(in, "add")) {
		nv = old + v;
	} else if (pi_has(in, "exch")) {
		nv = v;
	} else if (pi_has(in, "cas")) {
		nv = pi_mask(bits, old) == pi_mask(bits, v) ? pi_get(vm, th, &in->op[3]) : old;
	} else if (pi_has(in, "inc")) {
		nv = pi_mask(bits, old) >= pi_mask(bits, v) ? 0 : old + 1;
	} else if (pi_has(in, "or")) {
		nv = old | v;
	} else if (pi_has(in, "and")) {
		nv = old & v;
	} else if (pi_has(in, "xor")) {
		nv = old ^ v;
	} else if (pi_has(in, "max")) {
		nv = sgn ? (pi_sext(bits, old) > pi_sext(bits, v) ? old : v)
			 : (pi_mask(bits, old) > pi_mask(bits, v) ? old : v);
	} else if (pi_has(in, "min")) {
		nv = sgn ? (pi_sext(bits, old) < pi_sext(bits, v) ? old : v)
			 : (pi_mask(bits, old) < pi_mask(bits, v) ? old : v);
	} else {
		return pi_fail(vm, "atom op not supported (line %u)", in->line);
	}
	pi_store(p, bytes, nv);
	if (!red) {
		pi_set(th, in->op[0].reg, bits, old);
	}
	th->frames[th->nframes - 1].pc++;
	return 0;
}

/* Execute one instruction of @th; return 0, or -1 on error. */
static int pi_step(struct pi_vm *vm, struct pi_thread *th)
{
	struct pi_frame *fr = &th->frames[th->nframes - 1];
	struct pi_insn *in;

	if (fr->pc >= fr->fn->ninsn) {
		return pi_fail(vm, "fell off the end of %s", fr->fn->f->name);
	}
	in = &fr->fn->insn[fr->pc];
	if (++vm->steps > vm->max_steps) {
		return pi_fail(vm, "more than %llu steps (a loop that never ends?)",
			       (unsigned long long)vm->max_steps);
	}
	if (in->opc == PO_DECL) {
		pi_decl(vm, fr, in);
		fr->pc++;
		return 0;
	}
	if (in->guard >= 0) {
		uint64_t g = fr->r[in->guard];
		if ((g != 0) == in->guard_neg) {
			fr->pc++;
			return 0;
		}
	}
	int bits = in->bits, sgn = in->sgn;
	int bytes = bits / 8 ? bits / 8 : 1;
	if (in->flt && in->opc != PO_LD && in->opc != PO_ST && in->opc != PO_MOV) {
		return pi_fail(vm, "floating point '%s' not supported (line %u)",
			       in->base, in->line);
	}
	switch (in->opc) {
	case PO_BRA:
		fr->pc = in->target;
		return 0;
	case PO_RET:
	case PO_EXIT:
		if (in->opc == PO_EXIT || th->nframes == 1) {
			th->state = PI_DONE;
			return 0;
		} else {
			int to = fr->ret_to;
			pi_frame_release(fr);
			th->nframes--;
			th->frames[th->nframes - 1].pc = to;
		}
		return 0;
	case PO_CALL:
		return pi_call(vm, th, in);
	case PO_NOP:
		fr->pc++;
		return 0;
	case PO_TRAP:
		return pi_fail(vm, "trap at line %u", in->line);
	case PO_BAR:
		if (pi_has(in, "warp")) {
			th->state = PI_WARP;
			th->warp_insn = fr->pc;
			th->warp_vals[0] = pi_get(vm, th, &in->op[0]);
			return 0;
		}
		if (pi_has(in, "red") || pi_has(in, "arrive") || pi_has(in, "cluster")) {
			return pi_fail(vm, "%s not supported (line %u)", in->base, in->line);
		}
		th->state = PI_BAR;
		th->bar_id = (int)pi_get(vm, th, &in->op[0]);
		th->bar_count = in->nops > 1 ? (int)pi_get(vm, th, &in->op[1]) : 0;
		return 0;
	case PO_WARP:
		th->state = PI_WARP;
		th->warp_insn = fr->pc;
		for (int i = 1; i < in->nops && i < 5; i++) {
			th->warp_vals[i - 1] = pi_get(vm, th, &in->op[i]);
		}
		return 0;
	case PO_LD: {
		unsigned char *p = pi_addr(vm, th, in, &in->op[1]);
		if (!p) {
			return -1;
		}
		if (in->op[0].kind == PI_VEC) {
			for (int v = 0; v < in->op[0].nvec; v++) {
				pi_set(th, in->op[0].vec[v], bits, pi_load(p + v * bytes, bytes));
			}
		} else {
			uint64_t v = pi_load(p, bytes);
			if (sgn) {
				v = (uint64_t)pi_sext(bits, v);
			}
			fr->r[in->op[0].reg] = v;
		}
		fr->pc++;
		return 0;
	}
	case PO_ST: {
		unsigned char *p = pi_addr(vm, th, in, &in->op[0]);
		if (!p) {
			return -1;
		}
		if (in->op[1].kind == PI_VEC) {
			for (int v = 0; v < in->op[1].nvec; v++) {
				pi_store(p + v * bytes, bytes, fr->r[in->op[1].vec[v]]);
			}
		} else {
			pi_store(p, bytes, pi_get(vm, th, &in->op[1]));
		}
		fr->pc++;
		return 0;
	}
	case PO_ATOM:
	case PO_RED:
		return pi_atom(vm, th, in);
	case PO_CVTA: {
		uint64_t v = pi_get(vm, th, &in->op[1]);
		if (in->shared) {
			uint64_t base = (uint64_t)(uintptr_t)vm->shared;
			v = pi_has(in, "to") ? v - base : v + base;
		}
		pi_set(th, in->op[0].reg, bits, v);
		fr->pc++;
		return 0;
	}
	case PO_CVT: {
		/* cvt.dst.src: the last type is the source */
		int db, ds, df;
		pi_type_n(in, in->nmods - 1, &db, &ds, &df);
		uint64_t v = pi_get(vm, th, &in->op[1]);
		v = sgn ? (uint64_t)pi_sext(bits, v) : pi_mask(bits, v);
		pi_set(th, in->op[0].reg, db, v);
		fr->pc++;
		return 0;
	}
	case PO_SETP: {
		uint64_t x = pi_get(vm, th, &in->op[1]), y = pi_get(vm, th, &in->op[2]);
		int r = pi_cmp(in->mods[0], sgn, bits, x, y);
		if (r < 0) {
			return pi_fail(vm, "setp.%s not supported", in->mods[0]);
		}
		if (in->nmods >= 3 && in->nops >= 4) {
			uint64_t c = pi_get(vm, th, &in->op[3]);
			const char *bop = in->mods[1];
			r = !strcmp(bop, "and") ? (r && c) : !strcmp(bop, "or") ? (r || c)
								   : (r ^ (c != 0));
		}
		pi_set(th, in->op[0].reg, 1, (uint64_t)r);
		if (in->op[0].kind == PI_PAIR) {
			pi_set(th, in->op[0].reg2, 1, (uint64_t)!r);
		}
		fr->pc++;
		return 0;
	}
	case PO_SELP: {
		uint64_t c = pi_get(vm, th, &in->op[3]);
		pi_set(th, in->op[0].reg, bits,
		       c ? pi_get(vm, th, &in->op[1]) : pi_get(vm, th, &in->op[2]));
		fr->pc++;
		return 0;
	}
	case PO_MOV:
		if (in->op[0].kind == PI_VEC || in->op[1].kind == PI_VEC) {
			return pi_fail(vm, "vector mov not supported (line %u)", in->line);
		}
		pi_set(th, in->op[0].reg, bits, pi_get(vm, th, &in->op[1]));
		fr->pc++;
		return 0;
	case PO_OTHER:
	case PO_DECL:
		return pi_fail(vm, "instruction '%s' not supported (line %u)",
			       in->base, in->line);
	default:
		break;
	}
	/* integer arithmetic */
	uint64_t a = in->nops > 1 ? pi_get(vm, th, &in->op[1]) : 0;
	uint64_t c = in->nops > 2 ? pi_get(vm, th, &in->op[2]) : 0;
	uint64_t d = in->nops > 3 ? pi_get(vm, th, &in->op[3]) : 0;
	uint64_t r = 0;
	int db = bits;
	int wide = (in->opc == PO_MUL || in->opc == PO_MAD) && pi_has(in, "wide");
	int64_t sa = pi_sext(bits, a), sc = pi_sext(bits, c);
	uint64_t ua = pi_mask(bits, a), uc = pi_mask(bits, c);
	if (wide) {
		db = bits * 2;
	}
	if (bits == 1) {
		switch (in->opc) {
		case PO_AND:
			r = a && c;
			break;
		case PO_OR:
			r = a || c;
			break;
		case PO_XOR:
			r = (a != 0) ^ (c != 0);
			break;
		case PO_NOT:
			r = !a;
			break;
		default:
			return pi_fail(vm, "'%s' on predicates (line %u)", in->base, in->line);
		}
		pi_set(th, in->op[0].reg, 1, r);
		fr->pc++;
		return 0;
	}
	switch (in->opc) {
	case PO_ADD:
		r = a + c;
		break;
	case PO_SUB:
		r = a - c;
		break;
	case PO_MUL:
	case PO_MAD:
		if (wide) {
			r = sgn ? (uint64_t)(sa * sc) : ua * uc;
		} else if (pi_has(in, "hi")) {
			if (bits != 32) {
				return pi_fail(vm, "mul.hi.64 not supported");
			}
			r = sgn ? (uint64_t)((sa * sc) >> 32) : (ua * uc) >> 32;
		} else {
			r = a * c;
		}
		if (in->opc == PO_MAD) {
			r += d;
		}
		break;
	case PO_DIV:
	case PO_REM:
		if (uc == 0) {
			r = pi_mask(bits, ~0ull);
		} else if (in->opc == PO_DIV) {
			r = sgn ? (uint64_t)(sa / sc) : ua / uc;
		} else {
			r = sgn ? (uint64_t)(sa % sc) : ua % uc;
		}
		break;
	case PO_MIN:
		r = sgn ? (uint64_t)(sa < sc ? sa : sc) : (ua < uc ? ua : uc);
		break;
	case PO_MAX:
		r = sgn ? (uint64_t)(sa > sc ? sa : sc) : (ua > uc ? ua : uc);
		break;
	case PO_AND:
		r = a & c;
		break;
	case PO_OR:
		r = a | c;
		break;
	case PO_XOR:
		r = a ^ c;
		break;
	case PO_NOT:
		r = ~a;
		break;
	case PO_NEG:
		r = -a;
		break;
	case PO_ABS:
		r = sa < 0 ? (uint64_t)-sa : (uint64_t)sa;
		break;
	case PO_SHL:
		r = uc >= (uint64_t)bits ? 0 : a << uc;
		break;
	case PO_SHR:
		if (sgn) {
			r = (uint64_t)(uc >= (uint64_t)bits ? (sa < 0 ? -1 : 0) : sa >> uc);
		} else {
			r = uc >= (uint64_t)bits ? 0 : ua >> uc;
		}
		break;
	case PO_BFI: {
		/* bfi d, a, b, pos, len: a's low len bits into b at pos */
		uint64_t pos = d & 0xff, len = pi_get(vm, th, &in->op[4]) & 0xff;
		uint64_t mask = len >= 64 ? ~0ull : ((1ull << len) - 1);
		r = pos >= (uint64_t)bits ? c : (c & ~(mask << pos)) | ((a & mask) << pos);
		break;
	}
	default:
		return pi_fail(vm, "instruction '%s' not supported (line %u)",
			       in->base, in->line);
	}
	pi_set(th, in->op[0].reg, db, r);
	fr->pc++;
	return 0;
}

static int pi_push_frame(struct pi_thread *th, struct pi_func *fn)
{
	if (th->nframes == th->aframes) {
		th->aframes = th->aframes ? th->aframes * 2 : 4;
		th->frames = realloc(th->frames, th->aframes * sizeof(*th->frames));
	}
	struct pi_frame *fr = &th->frames[th->nframes++];
	memset(fr, 0, sizeof(*fr));
	fr->fn = fn;
	fr->r = calloc((size_t)fn->nregs + 1, sizeof(uint64_t));
	return 0;
}

/* Names in a parenthesised operand: tokens [b, e). */
static int pi_paren_names(const struct gm_ptx_module *m, uint32_t b, uint32_t e,
			  char names[][64], int max)
{
	int n = 0;
	for (uint32_t i = b; i < e && n < max; i++) {
		if (m->toks.v[i].kind == GM_PTX_WORD) {
			size_t len;
			const char *t = gm_ptx_tok_text(m, i, &len);
			snprintf(names[n++], 64, "%.*s", (int)len, t);
		}
	}
	return n;
}

static int pi_call(struct pi_vm *vm, struct pi_thread *th, struct pi_insn *in)
{
	const struct gm_ptx_module *m = vm->m;
	struct pi_frame *fr = &th->frames[th->nframes - 1];
	char rets[4][64], args[16][64];
	int nr = 0, na = 0, k = 0;
	const char *callee = NULL;

	if (in->op[0].kind == PI_NONE) {
		nr = pi_paren_names(m, (uint32_t)in->op[0].imm, (uint32_t)in->op[0].reg2, rets, 4);
		k = 1;
	}
	if (k >= in->nops || in->op[k].kind != PI_SYM) {
		return pi_fail(vm, "indirect call not supported");
	}
	callee = in->op[k].sym;
	if (k + 1 < in->nops && in->op[k + 1].kind == PI_NONE) {
		na = pi_paren_names(m, (uint32_t)in->op[k + 1].imm,
				    (uint32_t)in->op[k + 1].reg2, args, 16);
	}
	struct pi_func *fn = pi_func_of(vm, callee);
	if (!fn) {
		return -1;
	}
	unsigned char *rp[4] = { 0 }, *ap[16] = { 0 };
	int space;
	for (int i = 0; i < nr; i++) {
		rp[i] = pi_sym_ptr(vm, fr, rets[i], &space);
	}
	for (int i = 0; i < na; i++) {
		ap[i] = pi_sym_ptr(vm, fr, args[i], &space);
	}
	fr->pc++;
	int ret_to = fr->pc;
	pi_push_frame(th, fn);
	struct pi_frame *nf = &th->frames[th->nframes - 1];
	nf->ret_to = ret_to;
	/* the callee's return and parameter names alias the caller's storage */
	const struct gm_ptx_func *f = fn->f;
	uint32_t i = f->item.begin;
	if (nr) {
		/* .func (.param .b32 name) */
		for (; i < f->name_tok; i++) {
			if (m->toks.v[i].kind == GM_PTX_WORD &&
			    m->src[m->toks.v[i].off] != '.' && i + 1 < f->name_tok) {
				char *name = gm_ptx_tok_dup(m, i);
				pi_frame_add_sym(nf, name, rp[0], 0);
				free(name);
				break;
			}
		}
	}
	for (size_t p = 0; p < f->nr_params && (int)p < na; p++) {
		pi_frame_add_sym(nf, f->params[p].name, ap[p], 0);
	}
	return 0;
}

/* Byte offsets of the kernel's parameters (natural alignment). */
static size_t pi_param_layout(struct pi_vm *vm, const struct gm_ptx_func *f,
			      size_t *off)
{
	const struct gm_ptx_module *m = vm->m;
	size_t at = 0;

	for (size_t p = 0; p < f->nr_params; p++) {
		size_t size = 0, align = 0;
		int ptr = 0;
		for (uint32_t i = f->params[p].toks.begin; i < f->params[p].toks.end; i++) {
			if (gm_ptx_tok_is(m, i, ".ptr")) {
				ptr = 1;
			}
			size_t n;
			const char *t = gm_ptx_tok_text(m, i, &n);
			int bits;
			if (n > 2 && t[0] == '.' && strchr("usbf", t[1]) &&
			    sscanf(t + 2, "%d", &bits) == 1) {
				size = (size_t)bits / 8;
			}
			if (!ptr && gm_ptx_tok_is(m, i, ".align") &&
			    i + 1 < f->params[p].toks.end) {
				t = gm_ptx_tok_text(m, i + 1, &n);
				align = (size_t)pi_number(t, n);
			}
			if (pi_tok_punct(m, i, '[') && i + 1 < f->params[p].toks.end) {
				t = gm_ptx_tok_text(m, i + 1, &n);
				size *= (size_t)pi_number(t, n);
			}
		}
		if (!align) {
			align = size ? size : 1;
		}
		at = (at + align - 1) / align * align;
		off[p] = at;
		at += size;
	}
	return at;
}

static void pi_free_thread(struct pi_thread *th)
{
	for (int f = 0; f < th->nframes; f++) {
		pi_frame_release(&th->frames[f]);
	}
	free(th->frames);
	memset(th, 0, sizeof(*th));
}

/* Release warp-synchronous instructions whose members all arrived. */
static int pi_release_warp(struct pi_vm *vm, struct pi_thread *ts, int nthreads,
			   int w)
{
	int first = w * 32, last = first + 32 < nthreads ? first + 32 : nthreads;
	int waiting = 0, done = 0, insn = -1;

	for (int t = first; t < last; t++) {
		if (ts[t].state == PI_WARP) {
			waiting++;
			insn = ts[t].warp_insn;
		} else if (ts[t].state == PI_DONE) {
			done++;
		} else {
			return 0;	/* someone still runs or waits at a CTA barrier */
		}
	}
	if (!waiting) {
		return 0;
	}
	for (int t = first; t < last; t++) {
		if (ts[t].state == PI_WARP && ts[t].warp_insn != insn) {
			return pi_fail(vm, "warp %d waits at different instructions", w);
		}
	}
	struct pi_thread *t0 = NULL;
	for (int t = first; t < last; t++) {
		if (ts[t].state == PI_WARP) {
			t0 = &ts[t];
			break;
		}
	}
	struct pi_frame *fr0 = &t0->frames[t0->nframes - 1];
	struct pi_insn *in = &fr0->fn->insn[insn];
	uint32_t ballot = 0;
	for (int t = first; t < last; t++) {
		if (ts[t].state == PI_WARP && ts[t].warp_vals[0]) {
			ballot |= 1u << (t - first);
		}
	}
	for (int t = first; t < last; t++) {
		struct pi_thread *th = &ts[t];
		if (th->state != PI_WARP) {
			continue;
		}
		int lane = t - first;
		if (!strcmp(in->base, "shfl")) {
			/* shfl.sync.mode.b32 d|p, a, b, c, mask */
			uint32_t bval = (uint32_t)th->warp_vals[1];
			uint32_t cval = (uint32_t)th->warp_vals[2];
			int maxl = cval & 31, segmask = (cval >> 8) & 31;
			int minl = lane & segmask, maxlane = minl | (maxl & ~segmask);
			int j = lane, ok;
			if (pi_has(in, "up")) {
				j = lane - (int)bval;
				ok = j >= maxlane;
			} else if (pi_has(in, "down")) {
				j = lane + (int)bval;
				ok = j <= maxlane;
			} else if (pi_has(in, "bfly")) {
				j = lane ^ (int)bval;
				ok = j <= maxlane;
			} else {
				j = minl | ((int)bval & ~segmask);
				ok = j <= maxlane;
			}
			if (!ok || first + j >= last || ts[first + j].state != PI_WARP) {
				j = lane;
			}
			uint64_t v = ts[first + j].warp_vals[0];
			if (in->op[0].kind == PI_PAIR) {
				pi_set(th, in->op[0].reg, 32, v);
				pi_set(th, in->op[0].reg2, 1, (uint64_t)ok);
			} else {
				pi_set(th, in->op[0].reg, 32, v);
			}
		} else if (!strcmp(in->base, "vote")) {
			uint32_t mask = (uint32_t)th->warp_vals[1];
			uint64_t r;
			if (pi_has(in, "ballot")) {
				r = ballot & mask;
			} else if (pi_has(in, "all")) {
				r = (ballot & mask) == mask;
			} else if (pi_has(in, "any")) {
				r = (ballot & mask) != 0;
			} else {
				r = (ballot & mask) == 0 || (ballot & mask) == mask;
			}
			pi_set(th, in->op[0].reg, pi_has(in, "ballot") ? 32 : 1, r);
		}
		th->state = PI_RUN;
		th->frames[th->nframes - 1].pc++;
	}
	(void)done;
	return 1;
}

/* Run one CTA; returns 0 or -1 (vm->err). */
static int pi_run_cta(struct pi_vm *vm, uint32_t cx, uint32_t cy, uint32_t cz)
{
	const struct pi_kernel_launch *l = vm->launch;
	int nthreads = (int)(l->block[0] * l->block[1] * l->block[2]);
	struct pi_thread *ts = calloc((size_t)nthreads, sizeof(*ts));
	int ret = -1;

	vm->ctaid[0] = cx;
	vm->ctaid[1] = cy;
	vm->ctaid[2] = cz;
	memset(vm->shared, 0xcd, vm->shared_size);	/* garbage, as on a GPU */
	for (int t = 0; t < nthreads; t++) {
		ts[t].tid[0] = (uint32_t)t % l->block[0];
		ts[t].tid[1] = ((uint32_t)t / l->block[0]) % l->block[1];
		ts[t].tid[2] = (uint32_t)t / (l->block[0] * l->block[1]);
		ts[t].linear = (unsigned)t;
		pi_push_frame(&ts[t], (struct pi_func *)vm->kernel);
	}
	for (;;) {
		int progress = 0, live = 0;
		for (int t = 0; t < nthreads; t++) {
			while (ts[t].state == PI_RUN) {
				if (pi_step(vm, &ts[t]) < 0) {
					goto out;
				}
				progress = 1;
			}
			live += ts[t].state != PI_DONE;
		}
		if (!live) {
			break;
		}
		/* warp-synchronous instructions */
		for (int w = 0; w * 32 < nthreads; w++) {
			int r = pi_release_warp(vm, ts, nthreads, w);
			if (r < 0) {
				goto out;
			}
			progress |= r;
		}
		/* CTA barriers: all threads not done, or the count, arrived */
		for (int id = 0; id < 16; id++) {
			int arrived = 0, count = 0, notdone = 0;
			for (int t = 0; t < nthreads; t++) {
				notdone += ts[t].state != PI_DONE;
				if (ts[t].state == PI_BAR && ts[t].bar_id == id) {
					arrived++;
					if (ts[t].bar_count) {
						count = ts[t].bar_count;
					}
				}
			}
			int need = count ? count : notdone;
			if (!arrived || arrived < need) {
				continue;
			}
			int released = 0;
			for (int t = 0; t < nthreads && released < need; t++) {
				if (ts[t].state == PI_BAR && ts[t].bar_id == id) {
					ts[t].state = PI_RUN;
					ts[t].frames[ts[t].nframes - 1].pc++;
					released++;
				}
			}
			progress = 1;
		}
		if (!progress) {
			pi_fail(vm, "deadlock in CTA (%u,%u,%u)", cx, cy, cz);
			goto out;
		}
	}
	ret = 0;
out:
	for (int t = 0; t < nthreads; t++) {
		pi_free_thread(&ts[t]);
	}
	free(ts);
	return ret;
}

/*
 * Run kernel @name of @m with @l. Module-scope .global variables are
 * zero-filled host buffers (kept across launches in @vm). Returns 0, or
 * -1 with the reason in vm->err.
 */
static int pi_launch(struct pi_vm *vm, const char *name,
		     const struct pi_kernel_launch *l)
{
	struct pi_func *k = pi_func_of(vm, name);
	int ret = -1;

	if (!k) {
		return -1;
	}
	vm->kernel = k;
	vm->launch = l;
	vm->params = l->params;
	vm->params_size = l->params_size;
	free(vm->param_off);
	vm->param_off = calloc(k->f->nr_params + 1, sizeof(size_t));
	size_t need = pi_param_layout(vm, k->f, vm->param_off);
	if (need > l->params_size) {
		return pi_fail(vm, "kernel %s needs %zu parameter bytes, got %zu", name,
			       need, l->params_size);
	}
	/* shared variables of the kernel's body, then the dynamic ones */
	size_t off = vm->shared_static;
	for (int i = 0; i < vm->nfsh; i++) {
		free(vm->fsh_name[i]);
	}
	vm->nfsh = 0;
	for (size_t k = 0; k < vm->kernel->f->nr_stmts && vm->nfsh < 64; k++) {
		const struct gm_ptx_stmt *st = &vm->kernel->f->stmts[k];
		const struct gm_ptx_module *m = vm->m;
		if (st->kind != GM_PTX_S_DECL || !gm_ptx_tok_is(m, st->opcode, ".shared")) {
			continue;
		}
		size_t size = 0;
		char *name = NULL;
		for (uint32_t i = st->opcode + 1; i < st->end; i++) {
			size_t n;
			const char *t = gm_ptx_tok_text(m, i, &n);
			if (m->toks.v[i].kind == GM_PTX_WORD && t[0] != '.') {
				free(name);
				name = strndup(t, n);
			}
			if (pi_tok_punct(m, i, '[') && i + 1 < st->end &&
			    m->toks.v[i + 1].kind == GM_PTX_NUM) {
				t = gm_ptx_tok_text(m, i + 1, &n);
				size = (size_t)pi_number(t, n);
			}
		}
		off = (off + 15) / 16 * 16;
		vm->fsh_name[vm->nfsh] = name;
		vm->fsh_off[vm->nfsh++] = off;
		off += size;
	}
	off = (off + 15) / 16 * 16;
	for (int i = 0; i < vm->ng; i++) {
		if (vm->gspace[i] == GM_PTX_SPACE_SHARED && vm->m->vars[i].is_extern) {
			vm->shared_off[i] = off;
		}
	}
	vm->shared_size = off + l->dyn_smem + 16;
	vm->shared = calloc(1, vm->shared_size);
	for (uint32_t z = 0; z < l->grid[2]; z++) {
		for (uint32_t y = 0; y < l->grid[1]; y++) {
			for (uint32_t x = 0; x < l->grid[0]; x++) {
				if (pi_run_cta(vm, x, y, z) < 0) {
					goto out;
				}
			}
		}
	}
	ret = 0;
out:
	free(vm->shared);
	vm->shared = NULL;
	return ret;
}

static void pi_init(struct pi_vm *vm, const struct gm_ptx_module *m)
{
	memset(vm, 0, sizeof(*vm));
	vm->m = m;
	vm->max_steps = 20000000ull;
	vm->nfuncs = (int)m->nr_funcs;
	vm->funcs = calloc(m->nr_funcs + 1, sizeof(*vm->funcs));
	for (size_t i = 0; i < m->nr_funcs; i++) {
		vm->funcs[i].f = &m->funcs[i];
	}
	vm->ng = (int)m->nr_vars;
	vm->gname = calloc(m->nr_vars + 1, sizeof(char *));
	vm->gptr = calloc(m->nr_vars + 1, sizeof(unsigned char *));
	vm->gsize = calloc(m->nr_vars + 1, sizeof(size_t));
	vm->gspace = calloc(m->nr_vars + 1, sizeof(int));
	vm->shared_off = calloc(m->nr_vars + 1, sizeof(size_t));
	for (size_t i = 0; i < m->nr_vars; i++) {
		vm->gname[i] = strdup(m->vars[i].name);
		vm->gspace[i] = m->vars[i].space;
		vm->gsize[i] = 4096;
		vm->gptr[i] = calloc(1, 4096);
		if (m->vars[i].space == GM_PTX_SPACE_SHARED) {
			/* size from "[N]" after the name; extern: dynamic */
			uint32_t t = m->vars[i].tok;
			size_t size = 0;
			if (pi_tok_punct(m, t + 1, '[') && m->toks.v[t + 2].kind == GM_PTX_NUM) {
				size_t n;
				const char *s = gm_ptx_tok_text(m, t + 2, &n);
				size = (size_t)pi_number(s, n);
			}
			vm->shared_static = (vm->shared_static + 15) / 16 * 16;
			vm->shared_off[i] = vm->shared_static;
			vm->shared_static += m->vars[i].is_extern ? 0 : size;
		}
	}
	/* extern (dynamic) shared arrays start after the static ones */
	vm->shared_static = (vm->shared_static + 15) / 16 * 16;
	for (size_t i = 0; i < m->nr_vars; i++) {
		if (m->vars[i].space == GM_PTX_SPACE_SHARED && m->vars[i].is_extern) {
			vm->shared_off[i] = vm->shared_static;
		}
	}
}

static void pi_release(struct pi_vm *vm)
{
	for (int i = 0; i < vm->nfuncs; i++) {
		struct pi_func *fn = &vm->funcs[i];
		for (int k = 0; k < fn->ninsn; k++) {
			for (int o = 0; o < 8; o++) {
				free(fn->insn[k].op[o].sym);
			}
		}
		free(fn->insn);
		for (int r = 0; r < fn->nregs; r++) {
			free(fn->regs[r]);
		}
		free(fn->regs);
	}
	free(vm->funcs);
	for (int i = 0; i < vm->ng; i++) {
		free(vm->gname[i]);
		free(vm->gptr[i]);
	}
	free(vm->gname);
	free(vm->gptr);
	free(vm->gsize);
	free(vm->gspace);
	free(vm->shared_off);
	free(vm->param_off);
	for (int i = 0; i < vm->nfsh; i++) {
		free(vm->fsh_name[i]);
	}
	memset(vm, 0, sizeof(*vm));
}

#endif
