/* SPDX-License-Identifier: MIT */
/*
 * The PTX opcode tables and special registers the analysis knows
 * (see ptx_analysis_int.h): which opcodes it understands, which define no
 * register or have effects beyond it, and which special registers are
 * uniform across a block.
 */
#include "ptx_analysis_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "strmap.h"

/* ---- opcode tables ---------------------------------------------------- */

const char *const ptxa_known_ops[] = {
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
const char *const ptxa_no_def_ops[] = {
	"st", "red", "bar", "barrier", "bra", "brx", "call", "ret", "exit",
	"trap", "brkpt", "membar", "fence", "prefetch", "prefetchu",
	"pmevent", "nanosleep", "cp", "stmatrix", "discard", "applypriority",
	"sust", "sured", "setmaxnreg", "griddepcontrol", "tensormap",
	"stackrestore", NULL,
};

/* Results that can differ between threads whatever the operands. */
const char *const ptxa_nonpure_ops[] = {
	"ld", "ldu", "atom", "red", "shfl", "vote", "match", "redux",
	"activemask", "tex", "tld4", "txq", "suld", "suq", "call", "elect",
	"mbarrier", "cp", "wmma", "mma", "ldmatrix", "movmatrix", "wgmma",
	"mapa", "getctarank", "alloca", "stacksave", "multimem", NULL,
};

int ptxa_in_list(const char *const *list, const char *s)
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

int ptxa_tok_has_prefix(const struct gm_ptx_module *m, uint32_t i,
			const char *p)
{
	return gm_ptx_tok_starts(m, i, p);
}

/* Whether sreg token @i is uniform across a CTA. */
int ptxa_sreg_uniform(const struct gm_ptx_module *m, uint32_t i)
{
	int comp;
	enum gm_ptx_sreg s = gm_ptx_sreg_of(m, i, &comp);

	if (s == GM_PTX_SREG_CTAID || s == GM_PTX_SREG_NCTAID ||
	    s == GM_PTX_SREG_NTID) {
		return 1;
	}
	return ptxa_tok_has_prefix(m, i, "%nsmid") ||
	       ptxa_tok_has_prefix(m, i, "%gridid") ||
	       ptxa_tok_has_prefix(m, i, "%nwarpid") ||
	       ptxa_tok_has_prefix(m, i, "%smid") ||
	       ptxa_tok_has_prefix(m, i, "%envreg") ||
	       ptxa_tok_has_prefix(m, i, "%dynamic_smem_size") ||
	       ptxa_tok_has_prefix(m, i, "%total_smem_size") ||
	       ptxa_tok_has_prefix(m, i, "%aggr_smem_size");
}
