/* SPDX-License-Identifier: MIT */
/*
 * The hazard scans of the kernel analysis (see ptx_analysis_int.h): a
 * return that only some threads take before a barrier the others still
 * reach, and loops that spin on memory.
 */
#include "ptx_analysis_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "strmap.h"

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
		uint32_t t = ptxa_punct_is(m, gm_ptx_operand(f, s, 0).begin, '(');
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
void ptxa_scan_hazard(const struct gm_ptx_module *m,
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
				 ptxa_stmt_line(m, s));
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
void ptxa_scan_spin(const struct gm_ptx_module *m, const struct gm_ptx_func *f,
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
					if (!ptxa_insn_defines(m, s)) {
						continue;
					}
					int t = insn_polls(m, s);
					for (uint32_t o = 1; !t && o < s->nr_ops; o++) {
						struct gm_ptx_range r = gm_ptx_operand(f, s, o);
						for (uint32_t q = r.begin; q < r.end; q++) {
							int ix = ptxa_is_register(m, ri, q)
								 ? ptxa_reg_index(m, ri, q, 0) : -1;
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
						int ix = ptxa_is_register(m, ri, q)
							 ? ptxa_reg_index(m, ri, q, 0) : -1;
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
				int ix = ptxa_reg_index(m, ri, (uint32_t)s->guard, 0);
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
						 ptxa_stmt_line(m, &f->stmts[c->insn[lo]]));
					break;
				}
			}
		}
	}
	free(taint);
}
