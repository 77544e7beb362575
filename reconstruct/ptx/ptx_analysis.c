/* SPDX-License-Identifier: MIT */
/*
 * Kernel classification for the elastic transformation (see
 * ptx_analysis.h). Three passes per function: a scan of every instruction
 * for features (special registers, state spaces, barriers, warp-level
 * operations, calls); a control-flow graph with a block-uniformity
 * analysis of registers, used to find divergent returns that precede
 * synchronisation ("early return before a barrier") and loops that spin on
 * memory; then the call graph, so a kernel inherits what its callees do.
 * This file holds the driver and the classification; the passes are in
 * ptx_scan.c, ptx_cfg.c, ptx_uniform.c and ptx_hazard.c.
 */
#include "ptx_analysis.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "strmap.h"
#include "ptx_analysis_int.h"

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
		ptxa_scan_func(m, f, &facts[i]);
		if (ptxa_build_cfg(m, f, &cfgs[i], facts[i].cfg_why,
			      sizeof(facts[i].cfg_why)) < 0) {
			facts[i].cfg_error = 1;
			continue;
		}
		ptxa_uniformity(m, f, &cfgs[i], &ris[i]);
		ptxa_scan_spin(m, f, &cfgs[i], &ris[i], &facts[i]);
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
					ptxa_note(facts[e].launched_by,
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
		ptxa_scan_hazard(m, f, &cfgs[i], &ris[i], facts, &facts[i]);
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
		ptxa_cfg_release(&cfgs[i]);
		ptxa_reginfo_release(&ris[i]);
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
