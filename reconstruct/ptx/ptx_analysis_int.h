/* SPDX-License-Identifier: MIT */
/*
 * Inside the kernel analysis of ptx_analysis.c: the facts gathered per
 * function, the control-flow graph, register uniformity, and the passes
 * that fill them, one file each (ptx_tables.c, ptx_scan.c, ptx_cfg.c,
 * ptx_uniform.c, ptx_hazard.c). Not for use outside reconstruct/.
 */
#ifndef GM_PTX_ANALYSIS_INT_H
#define GM_PTX_ANALYSIS_INT_H

#include <stddef.h>
#include <stdint.h>

#include "error.h"
#include "ptx_analysis.h"
#include "strmap.h"

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


struct reginfo {
	struct gm_strmap map;	/* register -> index into arrays below */
	int *ndefs;
	int32_t *def;		/* instruction index of the only def */
	uint8_t *uniform;
	size_t nr, alloc;
	struct gm_strmap declared; /* names declared by .reg (no % needed) */
};


/* ptx_tables.c */
int ptxa_in_list(const char *const *list, const char *s);
extern const char *const ptxa_known_ops[];
extern const char *const ptxa_no_def_ops[];
extern const char *const ptxa_nonpure_ops[];
int ptxa_sreg_uniform(const struct gm_ptx_module *m, uint32_t i);
int ptxa_tok_has_prefix(const struct gm_ptx_module *m, uint32_t i,
			const char *p);

/* ptx_scan.c */
uint32_t ptxa_stmt_line(const struct gm_ptx_module *m,
			const struct gm_ptx_stmt *s);
void ptxa_note(char *buf, size_t len, const char *fmt, ...)
	GM_PRINTF(3, 4);
int ptxa_punct_is(const struct gm_ptx_module *m, uint32_t i, char c);
void ptxa_scan_func(const struct gm_ptx_module *m,
		    const struct gm_ptx_func *f, struct func_facts *ff);

/* ptx_cfg.c */
int ptxa_build_cfg(const struct gm_ptx_module *m, const struct gm_ptx_func *f,
		   struct cfg *c, char *why, size_t whylen);
void ptxa_cfg_release(struct cfg *c);
void ptxa_mark_region(struct cfg *c, size_t d, int64_t stop, uint8_t *infl,
		      uint32_t *stack);
int64_t *ptxa_post_dominators(struct cfg *c);

/* ptx_uniform.c */
int ptxa_insn_defines(const struct gm_ptx_module *m,
		      const struct gm_ptx_stmt *s);
int ptxa_is_register(const struct gm_ptx_module *m, struct reginfo *ri,
		     uint32_t i);
int ptxa_reg_index(const struct gm_ptx_module *m, struct reginfo *ri,
		   uint32_t i, int insert);
void ptxa_reginfo_release(struct reginfo *ri);
void ptxa_uniformity(const struct gm_ptx_module *m,
		     const struct gm_ptx_func *f, struct cfg *c,
		     struct reginfo *ri);

/* ptx_hazard.c */
void ptxa_scan_hazard(const struct gm_ptx_module *m,
		      const struct gm_ptx_func *f, struct cfg *c,
		      struct reginfo *ri, const struct func_facts *facts,
		      struct func_facts *ff);
void ptxa_scan_spin(const struct gm_ptx_module *m, const struct gm_ptx_func *f,
		    struct cfg *c, struct reginfo *ri, struct func_facts *ff);

#endif
