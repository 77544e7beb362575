/* SPDX-License-Identifier: MIT */
/*
 * PTX elastic transformation (see ptx_elastic.h). The module text is
 * copied through, and each transformed kernel is edited by a list of
 * patches (replacements and insertions at byte offsets), so everything
 * not touched stays byte for byte. The generated code is written from
 * templates in which '#' stands for the name prefix ("gm_el", or
 * "gm_el1"... when the module already uses that name).
 *
 * Loop structure of a transformed kernel (block-elastic shown):
 *
 *	prologue: load gm_el_args; identity = physical grid == logical
 *	          grid, full range
 *	          if identity: probe start; <the original body, ret -> bra
 *	          idone>; idone: probe end; goto done
 *	          end = offset + min(limit, total - offset);
 *	          lb = offset + linear physical block id
 *	loop:     logical (bx, by, bz) = split(lb); probe start
 *	          <original body; %ctaid -> logical, ret -> bra tail>
 *	tail:     probe end; if lb + nphys >= end: goto done
 *	          lb += nphys; barrier; goto loop
 *	done:     completion notification; ret
 *
 * The probe's code runs only when gm_el_args.probe is set (a uniform
 * branch otherwise).
 *
 * Divisions only happen when a physical block runs a logical block other
 * than its own, and not at all for 1-D grids; with elasticity off and
 * the probe off the extra work is the prologue and four uniform
 * branches (two of them the probe's, each after a parameter load).
 */
#include "ptx_elastic.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "elastic_abi.h"

/* The extra parameter's declared size: the struct's (the probe reads its
 * last 16 bytes; a smaller declaration reads zeros there on the GPU). */
#define GM_EL_STR_(x) #x
#define GM_EL_STR(x) GM_EL_STR_(x)
#define GM_EL_ARGS_SIZE GM_EL_STR(GM_ELASTIC_PARAM_SIZE)
#include "error.h"
#include "strbuf.h"

struct patch {
	uint32_t start, end;	/* bytes of the source replaced */
	size_t seq;		/* insertion order, for ties */
	char *text;
};

struct patches {
	struct patch *v;
	size_t nr, alloc;
};

static void add_patch(struct patches *p, uint32_t start, uint32_t end,
		      struct strbuf *text)
{
	GM_ALLOC_GROW(p->v, p->nr + 1, p->alloc);
	p->v[p->nr].start = start;
	p->v[p->nr].end = end;
	p->v[p->nr].seq = p->nr;
	p->v[p->nr].text = strbuf_detach(text, NULL);
	p->nr++;
}

static int cmp_patch(const void *a, const void *b)
{
	const struct patch *x = a, *y = b;

	if (x->start != y->start) {
		return x->start < y->start ? -1 : 1;
	}
	return x->seq < y->seq ? -1 : (x->seq > y->seq);
}

/* Append @tmpl with every '#' replaced by @pfx. */
static void put(struct strbuf *sb, const char *pfx, const char *tmpl)
{
	for (const char *p = tmpl; *p; p++) {
		if (*p == '#') {
			strbuf_addstr(sb, pfx);
		} else {
			strbuf_addch(sb, *p);
		}
	}
}

/* put() with every '~' replaced by @site as well. */
static void put_site(struct strbuf *sb, const char *pfx, const char *site,
		     const char *tmpl)
{
	for (const char *p = tmpl; *p; p++) {
		if (*p == '#') {
			strbuf_addstr(sb, pfx);
		} else if (*p == '~') {
			strbuf_addstr(sb, site);
		} else {
			strbuf_addch(sb, *p);
		}
	}
}

static uint32_t tok_start(const struct gm_ptx_module *m, uint32_t i)
{
	return m->toks.v[i].off;
}

static uint32_t tok_end(const struct gm_ptx_module *m, uint32_t i)
{
	return m->toks.v[i].off + m->toks.v[i].len;
}

/* ---- generated code ---------------------------------------------------- */

static const char decls[] =
	"\t.reg .b32 \t%#_bx, %#_by, %#_bz, %#_tx, %#_ty, %#_tz;\n"
	"\t.reg .b32 \t%#_gx, %#_gy, %#_gz, %#_ux, %#_uy, %#_uz;\n"
	"\t.reg .b32 \t%#_off, %#_lim, %#_tot, %#_end, %#_lb, %#_pc, %#_pl;\n"
	"\t.reg .b32 \t%#_nx, %#_ny, %#_nz, %#_px, %#_py, %#_pz, %#_pt, %#_lt;\n"
	"\t.reg .b32 \t%#_th, %#_sq, %#_sr, %#_B, %#_t0, %#_t1, %#_t2;\n"
	"\t.reg .b64 \t%#_d0, %#_d1, %#_d2, %#_d3;\n"
	"\t.reg .pred \t%#_id, %#_q0, %#_q1;\n";

/* Identity test: the physical grid is the logical grid, all blocks. */
static const char prologue_grid[] =
	"\t// gpumix elastic prologue\n"
	"\tld.param.u32 \t%#_gx, [#_args+0];\n"
	"\tld.param.u32 \t%#_gy, [#_args+4];\n"
	"\tld.param.u32 \t%#_gz, [#_args+8];\n"
	"\tld.param.u32 \t%#_off, [#_args+24];\n"
	"\tld.param.u32 \t%#_lim, [#_args+28];\n"
	"\tmov.u32 \t%#_nx, %nctaid.x;\n"
	"\tmov.u32 \t%#_ny, %nctaid.y;\n"
	"\tmov.u32 \t%#_nz, %nctaid.z;\n"
	"\tmul.lo.u32 \t%#_tot, %#_gx, %#_gy;\n"
	"\tmul.lo.u32 \t%#_tot, %#_tot, %#_gz;\n"
	"\tsetp.eq.u32 \t%#_id, %#_nx, %#_gx;\n"
	"\tsetp.eq.and.u32 \t%#_id, %#_ny, %#_gy, %#_id;\n"
	"\tsetp.eq.and.u32 \t%#_id, %#_nz, %#_gz, %#_id;\n"
	"\tsetp.eq.and.u32 \t%#_id, %#_off, 0, %#_id;\n"
	"\tsetp.ge.and.u32 \t%#_id, %#_lim, %#_tot, %#_id;\n";

/* Thread-elastic identity also needs the physical block. */
static const char prologue_tid[] =
	"\tld.param.u32 \t%#_ux, [#_args+12];\n"
	"\tld.param.u32 \t%#_uy, [#_args+16];\n"
	"\tld.param.u32 \t%#_uz, [#_args+20];\n"
	"\tmov.u32 \t%#_px, %ntid.x;\n"
	"\tmov.u32 \t%#_py, %ntid.y;\n"
	"\tmov.u32 \t%#_pz, %ntid.z;\n"
	"\tsetp.eq.and.u32 \t%#_id, %#_px, %#_ux, %#_id;\n"
	"\tsetp.eq.and.u32 \t%#_id, %#_py, %#_uy, %#_id;\n"
	"\tsetp.eq.and.u32 \t%#_id, %#_pz, %#_uz, %#_id;\n";

/* end = offset + min(limit, total - offset); lb, end: the range. */
static const char prologue_range[] =
	"\tsub.u32 \t%#_t0, %#_tot, %#_off;\n"
	"\tsetp.gt.u32 \t%#_q0, %#_off, %#_tot;\n"
	"\tselp.u32 \t%#_t0, 0, %#_t0, %#_q0;\n"
	"\tmin.u32 \t%#_t0, %#_t0, %#_lim;\n"
	"\tadd.u32 \t%#_end, %#_off, %#_t0;\n"
	"\tmov.u32 \t%#_t1, %ctaid.z;\n"
	"\tmov.u32 \t%#_t2, %ctaid.y;\n"
	"\tmad.lo.u32 \t%#_t1, %#_t1, %#_ny, %#_t2;\n"
	"\tmov.u32 \t%#_t2, %ctaid.x;\n"
	"\tmad.lo.u32 \t%#_pl, %#_t1, %#_nx, %#_t2;\n"
	"\tmul.lo.u32 \t%#_pc, %#_nx, %#_ny;\n"
	"\tmul.lo.u32 \t%#_pc, %#_pc, %#_nz;\n";

/* Split the linear logical block lb into (bx, by, bz). */
static const char split_block[] =
	"\tld.param.u32 \t%#_gx, [#_args+0];\n"
	"\tld.param.u32 \t%#_gy, [#_args+4];\n"
	"\tsetp.lt.u32 \t%#_q0, %#_lb, %#_gx;\n"
	"\t@%#_q0 bra \t$#_row;\n"
	"\tdiv.u32 \t%#_t0, %#_lb, %#_gx;\n"
	"\tmul.lo.u32 \t%#_t1, %#_t0, %#_gx;\n"
	"\tsub.u32 \t%#_bx, %#_lb, %#_t1;\n"
	"\tdiv.u32 \t%#_bz, %#_t0, %#_gy;\n"
	"\tmul.lo.u32 \t%#_t1, %#_bz, %#_gy;\n"
	"\tsub.u32 \t%#_by, %#_t0, %#_t1;\n"
	"\tbra \t$#_split;\n"
	"$#_row:\n"
	"\tmov.u32 \t%#_bx, %#_lb;\n"
	"\tmov.u32 \t%#_by, 0;\n"
	"\tmov.u32 \t%#_bz, 0;\n"
	"$#_split:\n";

/* Block-elastic: each iteration runs one whole logical block. */
static const char prologue_block[] =
	"\tadd.u32 \t%#_lb, %#_off, %#_pl;\n"
	"\tsetp.ge.u32 \t%#_q0, %#_lb, %#_end;\n"
	"\t@%#_q0 bra.uni \t$#_done;\n"
	"$#_loop:\n";

/* Recompute the end of the range (cheaper than keeping it live). */
static const char tail_end[] =
	"\tld.param.u32 \t%#_gx, [#_args+0];\n"
	"\tld.param.u32 \t%#_gy, [#_args+4];\n"
	"\tld.param.u32 \t%#_gz, [#_args+8];\n"
	"\tld.param.u32 \t%#_off, [#_args+24];\n"
	"\tld.param.u32 \t%#_lim, [#_args+28];\n"
	"\tmul.lo.u32 \t%#_tot, %#_gx, %#_gy;\n"
	"\tmul.lo.u32 \t%#_tot, %#_tot, %#_gz;\n"
	"\tsub.u32 \t%#_t0, %#_tot, %#_off;\n"
	"\tmin.u32 \t%#_t0, %#_t0, %#_lim;\n"
	"\tadd.u32 \t%#_end, %#_off, %#_t0;\n";

static const char tail_block_head[] =
	"$#_tail:\n"
	"\t// gpumix elastic loop tail: next logical block of this physical block\n";

static const char tail_block[] =
	"\tmov.u32 \t%#_nx, %nctaid.x;\n"
	"\tmov.u32 \t%#_ny, %nctaid.y;\n"
	"\tmov.u32 \t%#_nz, %nctaid.z;\n"
	"\tmul.lo.u32 \t%#_pc, %#_nx, %#_ny;\n"
	"\tmul.lo.u32 \t%#_pc, %#_pc, %#_nz;\n"
	"\tsub.u32 \t%#_t0, %#_end, %#_lb;\n"
	"\tsetp.le.u32 \t%#_q0, %#_t0, %#_pc;\n"
	"\t@%#_q0 bra.uni \t$#_done;\n"
	"\tadd.u32 \t%#_lb, %#_lb, %#_pc;\n";

/*
 * Thread-elastic: each physical thread walks logical threads (block lb,
 * thread th) with a stride of (sq blocks, sr threads), the number of
 * physical threads; no division once started.
 */
static const char prologue_thread[] =
	"\tmul.lo.u32 \t%#_B, %#_ux, %#_uy;\n"
	"\tmul.lo.u32 \t%#_B, %#_B, %#_uz;\n"
	"\tmul.lo.u32 \t%#_pt, %#_px, %#_py;\n"
	"\tmul.lo.u32 \t%#_pt, %#_pt, %#_pz;\n"
	"\tmov.u32 \t%#_t1, %tid.z;\n"
	"\tmov.u32 \t%#_t2, %tid.y;\n"
	"\tmad.lo.u32 \t%#_t1, %#_t1, %#_py, %#_t2;\n"
	"\tmov.u32 \t%#_t2, %tid.x;\n"
	"\tmad.lo.u32 \t%#_lt, %#_t1, %#_px, %#_t2;\n"
	"\tsetp.ne.u32 \t%#_q0, %#_pt, %#_B;\n"
	"\t@%#_q0 bra.uni \t$#_resized;\n"
	"\tadd.u32 \t%#_lb, %#_off, %#_pl;\n"
	"\tmov.u32 \t%#_th, %#_lt;\n"
	"\tmov.u32 \t%#_sq, %#_pc;\n"
	"\tmov.u32 \t%#_sr, 0;\n"
	"\tbra.uni \t$#_check;\n"
	"$#_resized:\n"
	"\t// physical block size differs: first logical thread and stride\n"
	"\tmul.wide.u32 \t%#_d0, %#_pl, %#_pt;\n"
	"\tcvt.u64.u32 \t%#_d1, %#_lt;\n"
	"\tadd.u64 \t%#_d0, %#_d0, %#_d1;\n"
	"\tcvt.u64.u32 \t%#_d2, %#_B;\n"
	"\tdiv.u64 \t%#_d1, %#_d0, %#_d2;\n"
	"\tmul.lo.u64 \t%#_d3, %#_d1, %#_d2;\n"
	"\tsub.u64 \t%#_d3, %#_d0, %#_d3;\n"
	"\tcvt.u32.u64 \t%#_t0, %#_d1;\n"
	"\tadd.u32 \t%#_lb, %#_off, %#_t0;\n"
	"\tcvt.u32.u64 \t%#_th, %#_d3;\n"
	"\tmul.wide.u32 \t%#_d0, %#_pc, %#_pt;\n"
	"\tdiv.u64 \t%#_d1, %#_d0, %#_d2;\n"
	"\tmul.lo.u64 \t%#_d3, %#_d1, %#_d2;\n"
	"\tsub.u64 \t%#_d3, %#_d0, %#_d3;\n"
	"\tcvt.u32.u64 \t%#_sq, %#_d1;\n"
	"\tcvt.u32.u64 \t%#_sr, %#_d3;\n"
	"$#_check:\n"
	"\tsetp.ge.u32 \t%#_q0, %#_lb, %#_end;\n"
	"\t@%#_q0 bra \t$#_done;\n"
	"$#_loop:\n";

/* Split the logical thread th into (tx, ty, tz). */
static const char split_thread[] =
	"\tld.param.u32 \t%#_ux, [#_args+12];\n"
	"\tld.param.u32 \t%#_uy, [#_args+16];\n"
	"\tsetp.lt.u32 \t%#_q0, %#_th, %#_ux;\n"
	"\t@%#_q0 bra \t$#_trow;\n"
	"\tdiv.u32 \t%#_t0, %#_th, %#_ux;\n"
	"\tmul.lo.u32 \t%#_t1, %#_t0, %#_ux;\n"
	"\tsub.u32 \t%#_tx, %#_th, %#_t1;\n"
	"\tdiv.u32 \t%#_tz, %#_t0, %#_uy;\n"
	"\tmul.lo.u32 \t%#_t1, %#_tz, %#_uy;\n"
	"\tsub.u32 \t%#_ty, %#_t0, %#_t1;\n"
	"\tbra \t$#_body;\n"
	"$#_trow:\n"
	"\tmov.u32 \t%#_tx, %#_th;\n"
	"\tmov.u32 \t%#_ty, 0;\n"
	"\tmov.u32 \t%#_tz, 0;\n";

static const char body_start[] =
	"$#_body:\n"
	"\t// original kernel body\n";

static const char tail_thread_head[] =
	"$#_tail:\n"
	"\t// gpumix elastic loop tail: next logical thread of this physical thread\n";

static const char tail_thread[] =
	"\tld.param.u32 \t%#_ux, [#_args+12];\n"
	"\tld.param.u32 \t%#_uy, [#_args+16];\n"
	"\tld.param.u32 \t%#_uz, [#_args+20];\n"
	"\tmul.lo.u32 \t%#_B, %#_ux, %#_uy;\n"
	"\tmul.lo.u32 \t%#_B, %#_B, %#_uz;\n"
	"\tadd.u32 \t%#_th, %#_th, %#_sr;\n"
	"\tsetp.ge.u32 \t%#_q0, %#_th, %#_B;\n"
	"\tselp.u32 \t%#_t2, 1, 0, %#_q0;\n"
	"\t@%#_q0 sub.u32 \t%#_th, %#_th, %#_B;\n"
	"\tadd.u32 \t%#_t2, %#_t2, %#_sq;\n"
	"\tsub.u32 \t%#_t1, %#_end, %#_lb;\n"
	"\tsetp.ge.u32 \t%#_q0, %#_t2, %#_t1;\n"
	"\t@%#_q0 bra \t$#_done;\n"
	"\tadd.u32 \t%#_lb, %#_lb, %#_t2;\n"
	"\tbra \t$#_loop;\n";

/* Completion notification, the paper's Listing 2 corrected. */
static const char notify_head[] =
	"$#_done:\n"
	"\t// gpumix completion notification (when done_flag is set)\n"
	"\tld.param.u64 \t%#_d0, [#_args+32];\n"
	"\tsetp.eq.u64 \t%#_q0, %#_d0, 0;\n"
	"\t@%#_q0 bra.uni \t$#_end;\n";

static const char notify_rest[] =
	"\tmov.u32 \t%#_t0, %tid.x;\n"
	"\tmov.u32 \t%#_t1, %tid.y;\n"
	"\tor.b32 \t%#_t0, %#_t0, %#_t1;\n"
	"\tmov.u32 \t%#_t1, %tid.z;\n"
	"\tor.b32 \t%#_t0, %#_t0, %#_t1;\n"
	"\tsetp.ne.u32 \t%#_q0, %#_t0, 0;\n"
	"\t@%#_q0 bra \t$#_end;\n"
	"\tld.param.u64 \t%#_d1, [#_args+40];\n"
	"\tcvta.to.global.u64 \t%#_d1, %#_d1;\n"
	"\tcvta.to.global.u64 \t%#_d0, %#_d0;\n"
	"\tmembar.gl;\n"
	"\tatom.global.add.u32 \t%#_t0, [%#_d1], 1;\n"
	"\tmov.u32 \t%#_nx, %nctaid.x;\n"
	"\tmov.u32 \t%#_ny, %nctaid.y;\n"
	"\tmov.u32 \t%#_nz, %nctaid.z;\n"
	"\tmul.lo.u32 \t%#_pc, %#_nx, %#_ny;\n"
	"\tmul.lo.u32 \t%#_pc, %#_pc, %#_nz;\n"
	"\tsub.u32 \t%#_pc, %#_pc, 1;\n"
	"\tsetp.ne.u32 \t%#_q0, %#_t0, %#_pc;\n"
	"\t@%#_q0 bra \t$#_end;\n"
	"\tst.volatile.global.u32 \t[%#_d1], 0;\n"
	"\tmembar.sys;\n"
	"\tst.volatile.global.u32 \t[%#_d0], 1;\n"
	"$#_end:\n"
	"\tret;\n";

/*
 * The block probe (doc/elastic.md): with gm_el_args.probe set, thread 0
 * of each logical block (the thread running its logical thread 0 in the
 * thread-elastic loop) stores the start time and SM into slot
 * (block - offset) of the buffer, and after a barrier at the block's end
 * the duration. Only registers dead across the body are used, and the
 * start goes to memory at once, so the body's register pressure stays
 * the same. '~' stands for the site's label.
 */
static const char probe_on[] =
	"\tld.param.u64 \t%#_d0, [#_args+48];\n"
	"\tsetp.eq.u64 \t%#_q0, %#_d0, 0;\n"
	"\t@%#_q0 bra.uni \t$#_~;\n";

/* Only thread (0,0,0) of the physical block goes on. */
static const char probe_who_tid[] =
	"\tmov.u32 \t%#_t0, %tid.x;\n"
	"\tmov.u32 \t%#_t1, %tid.y;\n"
	"\tor.b32 \t%#_t0, %#_t0, %#_t1;\n"
	"\tmov.u32 \t%#_t1, %tid.z;\n"
	"\tor.b32 \t%#_t0, %#_t0, %#_t1;\n"
	"\tsetp.ne.u32 \t%#_q0, %#_t0, 0;\n"
	"\t@%#_q0 bra \t$#_~;\n";

/* Only the thread running logical thread 0 goes on. */
static const char probe_who_th[] =
	"\tsetp.ne.u32 \t%#_q0, %#_th, 0;\n"
	"\t@%#_q0 bra \t$#_~;\n";

/* Slot of the identity path: the linear block id (offset is 0). */
static const char probe_slot_ctaid[] =
	"\tmov.u32 \t%#_t0, %ctaid.z;\n"
	"\tmov.u32 \t%#_t1, %nctaid.y;\n"
	"\tmov.u32 \t%#_t2, %ctaid.y;\n"
	"\tmad.lo.u32 \t%#_t0, %#_t0, %#_t1, %#_t2;\n"
	"\tmov.u32 \t%#_t1, %nctaid.x;\n"
	"\tmov.u32 \t%#_t2, %ctaid.x;\n"
	"\tmad.lo.u32 \t%#_t2, %#_t0, %#_t1, %#_t2;\n";

/* Slot of the loop: logical block lb minus the range's offset. */
static const char probe_slot_lb[] =
	"\tld.param.u32 \t%#_t0, [#_args+24];\n"
	"\tsub.u32 \t%#_t2, %#_lb, %#_t0;\n";

/* The record's address (slot in t2) when the slot is in the buffer. */
static const char probe_addr[] =
	"\tld.param.u32 \t%#_t1, [#_args+56];\n"
	"\tsetp.ge.u32 \t%#_q0, %#_t2, %#_t1;\n"
	"\t@%#_q0 bra \t$#_~;\n"
	"\tmul.wide.u32 \t%#_d1, %#_t2, 16;\n"
	"\tadd.u64 \t%#_d0, %#_d0, %#_d1;\n"
	"\tcvta.to.global.u64 \t%#_d0, %#_d0;\n";

static const char probe_start_store[] =
	"\tmov.u64 \t%#_d1, %globaltimer;\n"
	"\tmov.u32 \t%#_t1, %smid;\n"
	"\tst.global.u64 \t[%#_d0], %#_d1;\n"
	"\tst.global.u32 \t[%#_d0+12], %#_t1;\n"
	"$#_~:\n";

static const char probe_end_store[] =
	"\tld.global.u64 \t%#_d1, [%#_d0];\n"
	"\tmov.u64 \t%#_d2, %globaltimer;\n"
	"\tsub.u64 \t%#_d2, %#_d2, %#_d1;\n"
	"\tmin.u64 \t%#_d2, %#_d2, 4294967295;\n"
	"\tcvt.u32.u64 \t%#_t1, %#_d2;\n"
	"\tst.global.u32 \t[%#_d0+8], %#_t1;\n"
	"$#_~:\n";

/*
 * A thread-elastic loop may only wait at a barrier when every thread of
 * the physical block runs the same logical block (physical block size =
 * logical block size): then they all iterate alike. Resized, the record
 * is its logical thread 0's own start and end.
 */
static const char probe_thread_barrier[] =
	"\tmov.u32 \t%#_px, %ntid.x;\n"
	"\tmov.u32 \t%#_py, %ntid.y;\n"
	"\tmov.u32 \t%#_pz, %ntid.z;\n"
	"\tmul.lo.u32 \t%#_pt, %#_px, %#_py;\n"
	"\tmul.lo.u32 \t%#_pt, %#_pt, %#_pz;\n"
	"\tld.param.u32 \t%#_ux, [#_args+12];\n"
	"\tld.param.u32 \t%#_uy, [#_args+16];\n"
	"\tld.param.u32 \t%#_uz, [#_args+20];\n"
	"\tmul.lo.u32 \t%#_B, %#_ux, %#_uy;\n"
	"\tmul.lo.u32 \t%#_B, %#_B, %#_uz;\n"
	"\tsetp.ne.u32 \t%#_q0, %#_pt, %#_B;\n"
	"\t@%#_q0 bra.uni \t$#_~nb;\n";

static void put_barrier(struct strbuf *sb, const struct gm_ptx_module *m,
			int id)
{
	/* The non-aligned form: threads may arrive from divergent paths. */
	if (m->version_major >= 6) {
		strbuf_addf(sb, "\tbarrier.sync \t%d;\n", id);
	} else {
		strbuf_addf(sb, "\tbar.sync \t%d;\n", id);
	}
}

/* Where a probe site is: which loop, and so which slot and thread. */
enum probe_path {
	PROBE_IDENTITY,		/* elasticity off: the physical block */
	PROBE_BLOCK,		/* block-elastic loop: logical block lb */
	PROBE_THREAD,		/* thread-elastic loop: logical thread 0 */
};

static void put_probe_common(struct strbuf *sb, const char *pfx,
			     const char *site, enum probe_path path)
{
	put_site(sb, pfx, site, path == PROBE_THREAD ? probe_who_th :
						       probe_who_tid);
	put_site(sb, pfx, site, path == PROBE_IDENTITY ? probe_slot_ctaid :
							 probe_slot_lb);
	put_site(sb, pfx, site, probe_addr);
}

/* The probe's start of a logical block, before the body. */
static void put_probe_start(struct strbuf *sb, const char *pfx,
			    enum probe_path path)
{
	const char *site = path == PROBE_IDENTITY ? "pi0" : "pl0";

	put(sb, pfx, "\t// gpumix block probe: start of a block\n");
	put_site(sb, pfx, site, probe_on);
	put_probe_common(sb, pfx, site, path);
	put_site(sb, pfx, site, probe_start_store);
}

/*
 * The probe's end of a logical block, where every thread of it arrives
 * (the identity path's completion, the loop tail), after a barrier on
 * @barrier (the tail's: ret and exit jump here, and the analysis refused
 * kernels whose threads could leave while others still synchronise).
 */
static void put_probe_end(struct strbuf *sb, const struct gm_ptx_module *m,
			  const char *pfx, enum probe_path path, int barrier)
{
	const char *site = path == PROBE_IDENTITY ? "pi1" : "pl1";

	put(sb, pfx, "\t// gpumix block probe: end of a block\n");
	put_site(sb, pfx, site, probe_on);
	if (path == PROBE_THREAD) {
		put_site(sb, pfx, site, probe_thread_barrier);
		put_barrier(sb, m, 0);
		put_site(sb, pfx, site, "$#_~nb:\n");
	} else {
		put_barrier(sb, m, barrier);
	}
	put_probe_common(sb, pfx, site, path);
	put_site(sb, pfx, site, probe_end_store);
}

/* ---- body rewriting ---------------------------------------------------- */

static const char *const comp_name = "xyz";

/*
 * Rewrite one instruction of a transformed kernel. Returns 1 and fills
 * @sb when the statement changes, 0 when it stays as it is.
 */
static int rewrite_insn(const struct gm_ptx_module *m,
			const struct gm_ptx_func *f,
			const struct gm_ptx_stmt *s, int thread,
			const char *pfx, struct strbuf *sb)
{
	char base[32];
	int comp;

	gm_ptx_opcode_base(m, s, base, sizeof(base));
	if (!strcmp(base, "ret") || !strcmp(base, "exit")) {
		if (s->guard >= 0) {
			gm_ptx_add_source(sb, m, s->begin, s->opcode);
			strbuf_addch(sb, ' ');
		}
		put(sb, pfx, gm_ptx_opcode_has(m, s, ".uni") ? "bra.uni \t$#_tail"
							     : "bra \t$#_tail");
		return 1;
	}
	/* mov d, %nctaid.c (and %ntid.c): read the parameter directly */
	if (!strcmp(base, "mov") && s->nr_ops == 2) {
		struct gm_ptx_range src = gm_ptx_operand(f, s, 1);
		if (src.end == src.begin + 1) {
			enum gm_ptx_sreg sr = gm_ptx_sreg_of(m, src.begin, &comp);
			int off = -1;
			if (sr == GM_PTX_SREG_NCTAID && comp >= 0) {
				off = GM_ELASTIC_OFF_GRID + 4 * comp;
			} else if (thread && sr == GM_PTX_SREG_NTID && comp >= 0) {
				off = GM_ELASTIC_OFF_BLOCK + 4 * comp;
			}
			if (off >= 0) {
				struct gm_ptx_range d = gm_ptx_operand(f, s, 0);
				gm_ptx_add_source(sb, m, s->begin, s->opcode);
				if (s->guard >= 0) {
					strbuf_addch(sb, ' ');
				}
				strbuf_addstr(sb, "ld.param.u32 \t");
				gm_ptx_add_source(sb, m, d.begin, d.end);
				strbuf_addf(sb, ", [%s_args+%d]", pfx, off);
				return 1;
			}
		}
	}
	int changed = 0;
	uint32_t cursor = tok_start(m, s->begin);
	for (uint32_t o = 0; o < s->nr_ops; o++) {
		struct gm_ptx_range r = gm_ptx_operand(f, s, o);
		for (uint32_t i = r.begin; i < r.end; i++) {
			enum gm_ptx_sreg sr = gm_ptx_sreg_of(m, i, &comp);
			const char *rep = NULL;
			if (comp < 0 || comp > 2) {
				continue;
			}
			if (sr == GM_PTX_SREG_CTAID) {
				rep = "b";
			} else if (sr == GM_PTX_SREG_NCTAID) {
				rep = "g";
			} else if (thread && sr == GM_PTX_SREG_TID) {
				rep = "t";
			} else if (thread && sr == GM_PTX_SREG_NTID) {
				rep = "u";
			}
			if (!rep) {
				continue;
			}
			strbuf_add(sb, m->src + cursor, tok_start(m, i) - cursor);
			strbuf_addf(sb, "%%%s_%s%c", pfx, rep, comp_name[comp]);
			cursor = tok_end(m, i);
			changed = 1;
		}
	}
	if (!changed) {
		strbuf_reset(sb);
		return 0;
	}
	strbuf_add(sb, m->src + cursor, tok_end(m, s->end - 1) - cursor);
	return 1;
}

static int cmp_cstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Whether token @i names one of the sorted @labels. */
static int is_label(const struct gm_ptx_module *m, uint32_t i,
		    char **labels, size_t nr)
{
	char buf[256];
	size_t n;
	const char *t = gm_ptx_tok_text(m, i, &n);

	if (m->toks.v[i].kind != GM_PTX_WORD || !nr || n >= sizeof(buf)) {
		return 0;
	}
	memcpy(buf, t, n);
	buf[n] = '\0';
	char *key = buf;
	return bsearch(&key, labels, nr, sizeof(*labels), cmp_cstr) != NULL;
}

/*
 * The body as it was, for launches with elasticity off: labels and
 * top-scope local arrays renamed (suffix "_<prefix>_i"; the arrays are
 * declared again under the new name), other declarations of the top scope
 * left out (the elastic copy declares them), ret and exit jumping to the
 * probe's end of the block and then the completion notification.
 */
static void put_identity_copy(const struct gm_ptx_module *m,
			      const struct gm_ptx_func *f, size_t first,
			      const char *pfx, struct strbuf *sb)
{
	char **labels = NULL;
	size_t nr = 0, alloc = 0;
	char base[32];

	for (size_t k = 0; k < f->nr_stmts; k++) {
		const struct gm_ptx_stmt *s = &f->stmts[k];
		if (s->kind == GM_PTX_S_LABEL) {
			GM_ALLOC_GROW(labels, nr + 1, alloc);
			labels[nr++] = gm_ptx_tok_dup(m, s->begin);
		}
	}
	/*
	 * Local arrays of the top scope get a copy of their own: ptxas keeps
	 * an array in registers only if every use allows it, and the loop of
	 * the elastic path may not; the original code should not pay for it.
	 */
	for (size_t k = 0; k < f->nr_stmts; k++) {
		const struct gm_ptx_stmt *s = &f->stmts[k];
		if (s->kind != GM_PTX_S_DECL || s->depth != 0 ||
		    !gm_ptx_tok_is(m, s->opcode, ".local")) {
			continue;
		}
		int64_t name = -1;
		for (uint32_t i = s->opcode + 1; i < s->end; i++) {
			size_t n;
			const char *t = gm_ptx_tok_text(m, i, &n);
			if (m->toks.v[i].kind == GM_PTX_PUNCT && (t[0] == '[' || t[0] == '<')) {
				break;
			}
			if (m->toks.v[i].kind == GM_PTX_WORD && t[0] != '.') {
				name = i;
			}
		}
		if (name < 0) {
			continue;
		}
		GM_ALLOC_GROW(labels, nr + 1, alloc);
		labels[nr++] = gm_ptx_tok_dup(m, (uint32_t)name);
		strbuf_addch(sb, '\t');
		gm_ptx_add_source(sb, m, s->begin, (uint32_t)name + 1);
		strbuf_addf(sb, "_%s_i", pfx);
		if ((uint32_t)name + 1 < s->end) {
			strbuf_add(sb, m->src + tok_end(m, (uint32_t)name),
				   tok_end(m, s->end - 1) - tok_end(m, (uint32_t)name));
		}
		strbuf_addstr(sb, ";\n");
	}
	/* (No labels: labels is NULL, which qsort does not take.) */
	if (nr) {
		qsort(labels, nr, sizeof(*labels), cmp_cstr);
	}
	put(sb, pfx, "\t// gpumix elastic: elasticity off, the original body\n");
	for (size_t k = first; k < f->nr_stmts; k++) {
		const struct gm_ptx_stmt *s = &f->stmts[k];
		int semi = s->end < m->toks.nr &&
			   m->toks.v[s->end].kind == GM_PTX_PUNCT &&
			   m->src[m->toks.v[s->end].off] == ';';
		switch (s->kind) {
		case GM_PTX_S_LABEL:
			gm_ptx_add_source(sb, m, s->begin, s->end);
			strbuf_addf(sb, "_%s_i:\n", pfx);
			continue;
		case GM_PTX_S_OPEN:
			strbuf_addstr(sb, "\t{\n");
			continue;
		case GM_PTX_S_CLOSE:
			strbuf_addstr(sb, "\t}\n");
			continue;
		case GM_PTX_S_DECL:
			if (s->depth == 0) {
				continue;
			}
			break;
		case GM_PTX_S_DIRECTIVE:
		case GM_PTX_S_INSN:
			break;
		}
		if (s->kind == GM_PTX_S_INSN) {
			gm_ptx_opcode_base(m, s, base, sizeof(base));
			if (!strcmp(base, "ret") || !strcmp(base, "exit")) {
				strbuf_addch(sb, '\t');
				if (s->guard >= 0) {
					gm_ptx_add_source(sb, m, s->begin, s->opcode);
					strbuf_addch(sb, ' ');
				}
				put(sb, pfx, gm_ptx_opcode_has(m, s, ".uni")
						     ? "bra.uni \t$#_idone;\n"
						     : "bra \t$#_idone;\n");
				continue;
			}
		}
		strbuf_addch(sb, '\t');
		uint32_t cursor = tok_start(m, s->begin);
		for (uint32_t i = s->begin; i < s->end; i++) {
			if (!is_label(m, i, labels, nr)) {
				continue;
			}
			strbuf_add(sb, m->src + cursor, tok_end(m, i) - cursor);
			strbuf_addf(sb, "_%s_i", pfx);
			cursor = tok_end(m, i);
		}
		if (s->end > s->begin) {
			strbuf_add(sb, m->src + cursor, tok_end(m, s->end - 1) - cursor);
		}
		strbuf_addstr(sb, semi ? ";\n" : "\n");
	}
	for (size_t i = 0; i < nr; i++) {
		free(labels[i]);
	}
	free(labels);
}

/* First statement of the body that is not a leading declaration. */
static size_t first_code_stmt(const struct gm_ptx_func *f)
{
	size_t k = 0;

	while (k < f->nr_stmts &&
	       (f->stmts[k].kind == GM_PTX_S_DECL ||
		(f->stmts[k].kind == GM_PTX_S_DIRECTIVE &&
		 f->stmts[k].depth == 0))) {
		k++;
	}
	return k;
}

int gm_ptx_register_cap(int original_regs)
{
	int cap = (original_regs + 7) / 8 * 8;

	return cap < 32 ? 32 : cap;
}

/* The number token of the kernel's own .maxnreg, or -1. */
static int64_t own_maxnreg(const struct gm_ptx_module *m,
			   const struct gm_ptx_func *f)
{
	uint32_t from = f->params_close >= 0 ? (uint32_t)f->params_close
					     : f->name_tok;
	for (uint32_t i = from; i + 1 < (uint32_t)f->body_open; i++) {
		if (gm_ptx_tok_is(m, i, ".maxnreg") &&
		    m->toks.v[i + 1].kind == GM_PTX_NUM) {
			return i + 1;
		}
	}
	return -1;
}

static void transform_kernel(const struct gm_ptx_module *m,
			     const struct gm_ptx_func *f,
			     const struct gm_ptx_kernel_info *k, int thread,
			     const char *pfx, const struct gm_ptx_elastic_options *opt,
			     struct patches *p)
{
	struct strbuf sb = STRBUF_INIT;
	size_t first = first_code_stmt(f);
	/* the barrier the probe and the notification wait at */
	int barrier = k->tail_barrier >= 0 ? k->tail_barrier : 0;

	/* a register cap: added, or in place of the kernel's own */
	for (size_t i = 0; opt && i < opt->nr_reg_caps; i++) {
		if (strcmp(opt->reg_caps[i].kernel, f->name) ||
		    opt->reg_caps[i].maxnreg <= 0) {
			continue;
		}
		int64_t own = own_maxnreg(m, f);
		if (own >= 0) {
			strbuf_addf(&sb, "%d", opt->reg_caps[i].maxnreg);
			add_patch(p, tok_start(m, (uint32_t)own),
				  tok_end(m, (uint32_t)own), &sb);
		} else {
			strbuf_addf(&sb, ".maxnreg %d\n", opt->reg_caps[i].maxnreg);
			add_patch(p, tok_start(m, (uint32_t)f->body_open),
				  tok_start(m, (uint32_t)f->body_open), &sb);
		}
		break;
	}

	/* the parameter, after the last one */
	if (f->params_open >= 0 && f->nr_params) {
		uint32_t last = f->params[f->nr_params - 1].toks.end - 1;
		put(&sb, pfx, ",\n\t.param .align 8 .b8 #_args[" GM_EL_ARGS_SIZE "]");
		add_patch(p, tok_end(m, last), tok_end(m, last), &sb);
	} else if (f->params_open >= 0) {
		put(&sb, pfx, "\n\t.param .align 8 .b8 #_args[" GM_EL_ARGS_SIZE "]\n");
		add_patch(p, tok_start(m, (uint32_t)f->params_close),
			  tok_start(m, (uint32_t)f->params_close), &sb);
	} else {
		put(&sb, pfx, "(\n\t.param .align 8 .b8 #_args[" GM_EL_ARGS_SIZE "]\n)");
		add_patch(p, tok_end(m, f->name_tok), tok_end(m, f->name_tok),
			  &sb);
	}

	/* declarations, prologue and loop head, at the start of a line */
	uint32_t at = first < f->nr_stmts ? tok_start(m, f->stmts[first].begin)
					  : tok_start(m, (uint32_t)f->body_close);
	while (at > 0 && (m->src[at - 1] == ' ' || m->src[at - 1] == '\t')) {
		at--;
	}
	/* top-scope declarations further down move up here */
	for (size_t i = first; i < f->nr_stmts; i++) {
		const struct gm_ptx_stmt *s = &f->stmts[i];
		if (s->kind != GM_PTX_S_DECL || s->depth != 0) {
			continue;
		}
		uint32_t end = tok_end(m, s->end - 1);
		if (s->end < m->toks.nr && m->toks.v[s->end].kind == GM_PTX_PUNCT &&
		    m->src[m->toks.v[s->end].off] == ';') {
			end = tok_end(m, s->end);
		}
		strbuf_addch(&sb, '\t');
		strbuf_add(&sb, m->src + tok_start(m, s->begin),
			   end - tok_start(m, s->begin));
		strbuf_addch(&sb, '\n');
		struct strbuf none = STRBUF_INIT;
		add_patch(p, tok_start(m, s->begin), end, &none);
	}
	put(&sb, pfx, decls);
	put(&sb, pfx, prologue_grid);
	if (thread) {
		put(&sb, pfx, prologue_tid);
	}
	put(&sb, pfx, "\t@!%#_id bra.uni \t$#_elastic;\n");
	put_probe_start(&sb, pfx, PROBE_IDENTITY);
	put_identity_copy(m, f, first, pfx, &sb);
	put(&sb, pfx, "$#_idone:\n");
	put_probe_end(&sb, m, pfx, PROBE_IDENTITY, barrier);
	put(&sb, pfx, "\tbra.uni \t$#_done;\n$#_elastic:\n");
	put(&sb, pfx, prologue_range);
	put(&sb, pfx, thread ? prologue_thread : prologue_block);
	put(&sb, pfx, split_block);
	if (thread) {
		put(&sb, pfx, split_thread);
	}
	put(&sb, pfx, body_start);
	put_probe_start(&sb, pfx, thread ? PROBE_THREAD : PROBE_BLOCK);
	add_patch(p, at, at, &sb);

	/* the body */
	for (size_t i = first; i < f->nr_stmts; i++) {
		const struct gm_ptx_stmt *s = &f->stmts[i];
		if (s->kind != GM_PTX_S_INSN) {
			continue;
		}
		if (rewrite_insn(m, f, s, thread, pfx, &sb)) {
			add_patch(p, tok_start(m, s->begin),
				  tok_end(m, s->end - 1), &sb);
		}
	}

	/* tail, completion notification */
	at = tok_start(m, (uint32_t)f->body_close);
	strbuf_addch(&sb, '\n');
	if (thread) {
		put(&sb, pfx, tail_thread_head);
		put_probe_end(&sb, m, pfx, PROBE_THREAD, 0);
		put(&sb, pfx, tail_end);
		put(&sb, pfx, tail_thread);
	} else {
		put(&sb, pfx, tail_block_head);
		put_probe_end(&sb, m, pfx, PROBE_BLOCK, barrier);
		put(&sb, pfx, tail_end);
		put(&sb, pfx, tail_block);
		if (k->tail_barrier >= 0) {
			put_barrier(&sb, m, k->tail_barrier);
		}
		put(&sb, pfx, "\tbra.uni \t$#_loop;\n");
	}
	put(&sb, pfx, notify_head);
	put_barrier(&sb, m, barrier);
	put(&sb, pfx, notify_rest);
	add_patch(p, at, at, &sb);
	strbuf_release(&sb);
}

/* A prefix for generated names that the module does not use yet. */
static void choose_prefix(const struct gm_ptx_module *m, char *pfx, size_t len)
{
	snprintf(pfx, len, "gm_el");
	for (int n = 1; memmem(m->src, m->len, pfx, strlen(pfx)); n++) {
		snprintf(pfx, len, "gm_el%d", n);
	}
}

int gm_ptx_elastic_transform(const struct gm_ptx_module *m,
			     struct gm_ptx_analysis *a,
			     const struct gm_ptx_elastic_options *opt,
			     struct strbuf *out)
{
	struct patches p = { 0 };
	char pfx[32];
	int done = 0;

	choose_prefix(m, pfx, sizeof(pfx));
	for (size_t i = 0; i < a->nr_kernels; i++) {
		struct gm_ptx_kernel_info *k = &a->kernels[i];
		if (k->cls == GM_ELASTIC_NONE) {
			continue;
		}
		if (m->address_size != 64) {
			k->cls = GM_ELASTIC_NONE;
			snprintf(k->reason, sizeof(k->reason),
				 "32-bit addressing (.address_size %u) is not supported",
				 m->address_size);
			continue;
		}
		if (opt && opt->block_only && k->cls == GM_ELASTIC_THREAD) {
			k->cls = GM_ELASTIC_BLOCK;
			snprintf(k->reason, sizeof(k->reason),
				 "thread resizing turned off");
		}
		transform_kernel(m, k->func, k, k->cls == GM_ELASTIC_THREAD,
				 pfx, opt, &p);
		done++;
	}
	/* which kernels are what, for the runtime that loads the text */
	strbuf_addstr(out, "// gpumix elastic transformation; launch interface: gpumix common/elastic_abi.h\n");
	for (size_t i = 0; i < a->nr_kernels; i++) {
		strbuf_addf(out, "// gpumix-elastic-kernel: %s %s\n", a->kernels[i].name,
			    gm_elastic_class_name(a->kernels[i].cls));
	}
	if (p.nr) {
		qsort(p.v, p.nr, sizeof(*p.v), cmp_patch);
	}
	uint32_t cursor = 0;
	for (size_t i = 0; i < p.nr; i++) {
		strbuf_add(out, m->src + cursor, p.v[i].start - cursor);
		strbuf_addstr(out, p.v[i].text);
		cursor = p.v[i].end;
		free(p.v[i].text);
	}
	strbuf_add(out, m->src + cursor, m->len - cursor);
	if (!m->len || m->src[m->len - 1] != '\n') {
		strbuf_addch(out, '\n');
	}
	free(p.v);
	return done;
}
