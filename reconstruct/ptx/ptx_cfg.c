/* SPDX-License-Identifier: MIT */
/*
 * The control-flow graph of a function and its post-dominators, for
 * the uniformity and hazard passes (see ptx_analysis_int.h).
 */
#include "ptx_analysis_int.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "strmap.h"

/* ---- control flow ------------------------------------------------------ */



void ptxa_cfg_release(struct cfg *c)
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

int ptxa_build_cfg(const struct gm_ptx_module *m, const struct gm_ptx_func *f,
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
					 ptxa_stmt_line(m, s));
				goto out;
			}
			int t = lookup_label(m, &lt, gm_ptx_operand(f, s, 0).begin,
					     c->nr_insn);
			if (t < 0) {
				snprintf(why, whylen, "branch to an unknown label at line %u",
					 ptxa_stmt_line(m, s));
				goto out;
			}
			add_succ(c, (uint32_t)t);
			fall = s->guard >= 0;
		} else if (!strcmp(base, "brx")) {
			if (s->nr_ops < 2) {
				snprintf(why, whylen, "bad brx at line %u",
					 ptxa_stmt_line(m, s));
				goto out;
			}
			size_t n;
			uint32_t lt_tok = gm_ptx_operand(f, s, 1).begin;
			const char *t = gm_ptx_tok_text(m, lt_tok, &n);
			int64_t slot;
			if (!gm_strmap_get_bytes(&lt.targets, t, n, &slot)) {
				snprintf(why, whylen, "brx with unknown targets at line %u",
					 ptxa_stmt_line(m, s));
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
						 ptxa_stmt_line(m, s));
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
int64_t *ptxa_post_dominators(struct cfg *c)
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
void ptxa_mark_region(struct cfg *c, size_t d, int64_t stop, uint8_t *infl,
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
