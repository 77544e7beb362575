/* SPDX-License-Identifier: MIT */
/*
 * Unit tests of the PTX side of the elastic variant: the tokenizer and
 * parser (tricky syntax, and the exact errors for malformed text), the
 * kernel analysis on small hand-written kernels, the corpus of
 * tests/data/ptx against its golden classes, and the transformation of
 * every corpus module (block probe included), which must assemble with
 * ptxas -arch=sm_90.
 */
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "reconstruct/ptx/ptx_analysis.h"
#include "reconstruct/ptx/ptx_elastic.h"
#include "reconstruct/ptx/ptx_module.h"
#include "reconstruct/ptx/ptx_ptxas.h"
#include "strbuf.h"
#include "test.h"

static const char *top(void)
{
	const char *t = getenv("GPUMIX_TOP");
	return t && *t ? t : ".";
}

/* Parse @text; return 0 or -1 and leave the error message in @why. */
static int parse(struct gm_ptx_module *m, const char *text, char *why,
		 size_t len)
{
	int r = gm_ptx_module_parse(m, text, strlen(text));
	snprintf(why, len, "%s", r < 0 ? gm_error_message() : "");
	gm_error_clear();
	return r;
}

static void test_lexer_parser(void)
{
	static const char good[] =
		".version 8.0\n"
		".target sm_90 // comment\n"
		".address_size 64\n"
		"/* block\n comment */\n"
		".global .align 4 .b8 tab[8] = {1, 2, 3, 4, 5, 6, 7, 8};\n"
		".shared .align 4 .b8 sh[64];\n"
		".extern .func (.param .b32 r) ext (.param .b64 a);\n"
		".section .debug_abbrev { .b8 1, 2 }\n"
		".visible .entry k(\n"
		"\t.param .u64 k_p0,\n"
		"\t.param .align 8 .b8 k_p1[16]\n"
		") .maxntid 128, 1, 1\n"
		"{\n"
		"\t.reg .pred %p<3>;\n"
		"\t.reg .b32 %r<9>;\n"
		"\t.pragma \"nounroll\";\n"
		"\t.loc 1 2 3\n"
		"\tmov.u32 %r1, %ctaid.x;\n"
		"\tsetp.lt.u32 %p1|%p2, %r1, 4;\n"
		"\t@!%p1 bra $L1;\n"
		"\tmov.b64 {%r2, %r3}, 0;\n"
		"\t{ .reg .pred q; setp.eq.u32 q, %r1, 0; @q ret; }\n"
		"$L1:\n"
		"\tld.shared::cta.u32 %r4, [sh+4];\n"
		"\tret;\n"
		"}\n";
	struct gm_ptx_module m;
	char why[256];

	CHECK(parse(&m, good, why, sizeof(why)) == 0, "parser: tricky but valid PTX");
	CHECK_INT(m.version_major * 10 + m.version_minor, 80, "parser: .version 8.0");
	CHECK_INT(m.target_sm, 90, "parser: .target sm_90");
	CHECK_INT(m.nr_funcs, 2, "parser: a prototype and a kernel");
	const struct gm_ptx_var *v = gm_ptx_module_find_var(&m, "sh");
	CHECK(v && v->space == GM_PTX_SPACE_SHARED, "parser: module-scope shared variable");
	CHECK(gm_ptx_module_find_var(&m, "tab") != NULL, "parser: initialised global");
	struct gm_ptx_func *f = gm_ptx_module_find_func(&m, "k");
	CHECK(f && f->is_entry && f->has_body, "parser: kernel with a body");
	CHECK(f && f->nr_params == 2 && !strcmp(f->params[1].name, "k_p1"),
	      "parser: parameter names");
	struct gm_ptx_func *e = gm_ptx_module_find_func(&m, "ext");
	CHECK(e && !e->has_body && !e->is_entry, "parser: extern prototype");
	if (f) {
		int insns = 0, labels = 0, opens = 0, setp_ops = -1, vec_ops = -1;
		for (size_t i = 0; i < f->nr_stmts; i++) {
			const struct gm_ptx_stmt *s = &f->stmts[i];
			insns += s->kind == GM_PTX_S_INSN;
			labels += s->kind == GM_PTX_S_LABEL;
			opens += s->kind == GM_PTX_S_OPEN;
			if (s->kind == GM_PTX_S_INSN && gm_ptx_tok_is(&m, s->opcode, "setp.lt.u32")) {
				setp_ops = (int)s->nr_ops;
			}
			if (s->kind == GM_PTX_S_INSN && gm_ptx_tok_is(&m, s->opcode, "mov.b64")) {
				vec_ops = (int)s->nr_ops;
			}
		}
		CHECK_INT(insns, 8, "parser: instructions, nested ones included");
		CHECK_INT(labels, 1, "parser: one label");
		CHECK_INT(opens, 1, "parser: one nested scope");
		CHECK_INT(setp_ops, 3, "parser: 'p|q' is one operand");
		CHECK_INT(vec_ops, 2, "parser: a vector is one operand");
	}
	gm_ptx_module_release(&m);

	static const struct {
		const char *text, *error;
	} bad[] = {
		{ ".version 8.0\n/* open", "line 2: unterminated comment" },
		{ ".version 8.0\n.pragma \"x;\n", "line 2: unterminated string" },
		{ ".entry k() {\n mov.u32 %r1, 1\n}", "line 2: statement without ';' in 'k'" },
		{ ".entry k() {\n ret;\n}}", "line 3: declaration without ';'" },
		{ ".entry k() {\n { ret;\n}", "line 1: unbalanced '{'" },
		{ ".version 8.0\n#include\n", "line 2: unexpected character 0x23" },
		{ ".entry k() {\n @!1 ret;\n}", "line 2: bad guard predicate" },
	};
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		char what[128];
		int r = parse(&m, bad[i].text, why, sizeof(why));
		snprintf(what, sizeof(what), "parser error %zu: %s", i, bad[i].error);
		CHECK(r < 0 && !strcmp(why, bad[i].error), what);
		if (r == 0 || strcmp(why, bad[i].error)) {
			printf("#   got '%s'\n", why);
		}
		gm_ptx_module_release(&m);
	}
}

/* Analyze one kernel "k" wrapped in a module header. */
static enum gm_elastic_class classify(const char *body, char *reason,
				      size_t len, int *tail)
{
	struct strbuf sb = STRBUF_INIT;
	struct gm_ptx_module m;
	struct gm_ptx_analysis a = { 0 };
	enum gm_elastic_class c = GM_ELASTIC_NONE;

	strbuf_addf(&sb, ".version 8.0\n.target sm_90\n.address_size 64\n%s",
		    body);
	reason[0] = '\0';
	if (gm_ptx_module_parse(&m, sb.buf, sb.len) == 0 &&
	    gm_ptx_analyze(&m, &a) == 0 && a.nr_kernels) {
		c = a.kernels[0].cls;
		snprintf(reason, len, "%s", a.kernels[0].reason);
		if (tail) {
			*tail = a.kernels[0].tail_barrier;
		}
	} else {
		snprintf(reason, len, "parse error: %s", gm_error_message());
		gm_error_clear();
	}
	gm_ptx_analysis_release(&a);
	gm_ptx_module_release(&m);
	strbuf_release(&sb);
	return c;
}

static void check_class(const char *what, const char *body,
			enum gm_elastic_class want, const char *reason_part)
{
	char reason[256];
	enum gm_elastic_class c = classify(body, reason, sizeof(reason), NULL);
	int ok = c == want && (!reason_part || strstr(reason, reason_part));

	CHECK(ok, what);
	if (!ok) {
		printf("#   got %s (%s)\n", gm_elastic_class_name(c), reason);
	}
}

static void test_analysis(void)
{
	int tail = -2;
	char reason[256];

	check_class("analysis: uniform early return before a barrier is fine",
		    ".entry k(.param .u32 n) {\n"
		    " .reg .pred %p<2>; .reg .b32 %r<4>;\n"
		    " ld.param.u32 %r1, [n];\n"
		    " mov.u32 %r2, %ctaid.x;\n"
		    " setp.ge.u32 %p1, %r2, %r1;\n"
		    " @%p1 bra $done;\n"
		    " bar.sync 0;\n"
		    "$done:\n ret;\n}\n",
		    GM_ELASTIC_BLOCK, "barriers");
	check_class("analysis: divergent early return before a barrier is refused",
		    ".entry k(.param .u32 n) {\n"
		    " .reg .pred %p<2>; .reg .b32 %r<4>;\n"
		    " ld.param.u32 %r1, [n];\n"
		    " mov.u32 %r2, %tid.x;\n"
		    " setp.ge.u32 %p1, %r2, %r1;\n"
		    " @%p1 bra $done;\n"
		    " bar.sync 0;\n"
		    "$done:\n ret;\n}\n",
		    GM_ELASTIC_NONE, "line 9");
	check_class("analysis: predicated divergent ret before a shuffle is refused",
		    ".entry k() {\n"
		    " .reg .pred %p<3>; .reg .b32 %r<4>;\n"
		    " mov.u32 %r2, %tid.x;\n"
		    " setp.ge.u32 %p1, %r2, 7;\n"
		    " @%p1 ret;\n"
		    " shfl.sync.bfly.b32 %r3|%p2, %r2, 1, 31, -1;\n"
		    " ret;\n}\n",
		    GM_ELASTIC_NONE, "divergent return");
	check_class("analysis: divergent return after the last barrier is fine",
		    ".entry k() {\n"
		    " .reg .pred %p<3>; .reg .b32 %r<4>;\n"
		    " mov.u32 %r2, %tid.x;\n"
		    " bar.sync 0;\n"
		    " setp.ge.u32 %p1, %r2, 7;\n"
		    " @%p1 ret;\n"
		    " add.u32 %r3, %r2, 1;\n"
		    " ret;\n}\n",
		    GM_ELASTIC_BLOCK, NULL);
	check_class("analysis: a uniform loop counter keeps a barrier loop elastic",
		    ".entry k() {\n"
		    " .reg .pred %p<3>; .reg .b32 %r<4>;\n"
		    " mov.u32 %r1, %ntid.x;\n"
		    "$loop:\n"
		    " shr.u32 %r1, %r1, 1;\n"
		    " bar.sync 0;\n"
		    " setp.ne.u32 %p1, %r1, 0;\n"
		    " @%p1 bra $loop;\n"
		    " ret;\n}\n",
		    GM_ELASTIC_BLOCK, NULL);
	check_class("analysis: a per-thread loop counter around a barrier is refused",
		    ".entry k() {\n"
		    " .reg .pred %p<3>; .reg .b32 %r<4>;\n"
		    " mov.u32 %r1, %tid.x;\n"
		    "$loop:\n"
		    " shr.u32 %r1, %r1, 1;\n"
		    " bar.sync 0;\n"
		    " setp.ne.u32 %p1, %r1, 0;\n"
		    " @%p1 bra $loop;\n"
		    " ret;\n}\n",
		    GM_ELASTIC_NONE, "divergent return");
	check_class("analysis: a barrier id in a register is refused",
		    ".entry k() {\n .reg .b32 %r<2>;\n mov.u32 %r1, 3;\n"
		    " bar.sync %r1;\n ret;\n}\n",
		    GM_ELASTIC_NONE, "register");
	CHECK_INT(classify(".entry k() {\n bar.sync 0, 64;\n ret;\n}\n", reason,
			   sizeof(reason), &tail), GM_ELASTIC_BLOCK,
		  "analysis: barrier 0 with a count is elastic");
	CHECK_INT(tail, 1, "analysis: ... and the loop tail uses barrier 1");
	CHECK_INT(classify(".entry k() {\n bar.sync 0;\n bar.sync 2, 64;\n ret;\n}\n",
			   reason, sizeof(reason), &tail), GM_ELASTIC_BLOCK,
		  "analysis: named barrier 2 with a count");
	CHECK_INT(tail, 1, "analysis: ... the loop tail uses the first free id");
	{
		struct strbuf sb = STRBUF_INIT;
		strbuf_addstr(&sb, ".entry k() {\n");
		for (int i = 0; i < 16; i++) {
			strbuf_addf(&sb, " bar.sync %d, 32;\n", i);
		}
		strbuf_addstr(&sb, " ret;\n}\n");
		check_class("analysis: all 16 barriers in use is refused", sb.buf,
			    GM_ELASTIC_NONE, "16 barriers");
		strbuf_release(&sb);
	}
	check_class("analysis: an unknown instruction is refused",
		    ".entry k() {\n frobnicate.u32 %r1;\n ret;\n}\n",
		    GM_ELASTIC_NONE, "'frobnicate.u32' at line 5");
	check_class("analysis: .reqntid keeps the block size",
		    ".entry k() .reqntid 64, 1, 1 {\n .reg .b32 %r<2>;\n"
		    " mov.u32 %r1, %ctaid.x;\n ret;\n}\n",
		    GM_ELASTIC_BLOCK, ".reqntid");
	check_class("analysis: a vector read of %ctaid is not understood",
		    ".entry k() {\n .reg .b32 %r<5>;\n"
		    " mov.v4.u32 {%r1, %r2, %r3, %r4}, %ctaid;\n ret;\n}\n",
		    GM_ELASTIC_NONE, "vector read");
	check_class("analysis: brx.idx targets are followed",
		    ".entry k() {\n .reg .b32 %r<2>;\n"
		    " mov.u32 %r1, %tid.x;\n"
		    "$t: .branchtargets $a, $b;\n"
		    " brx.idx %r1, $t;\n"
		    "$a:\n ret;\n$b:\n ret;\n}\n",
		    GM_ELASTIC_THREAD, NULL);
	check_class("analysis: a branch to an unknown label is refused",
		    ".entry k() {\n bra $nowhere;\n ret;\n}\n",
		    GM_ELASTIC_NONE, "unknown label");
	check_class("analysis: %laneid makes a kernel block-elastic",
		    ".entry k() {\n .reg .b32 %r<2>;\n mov.u32 %r1, %laneid;\n ret;\n}\n",
		    GM_ELASTIC_BLOCK, "lane");
	check_class("analysis: %cluster_ctarank is refused",
		    ".entry k() {\n .reg .b32 %r<2>;\n mov.u32 %r1, %cluster_ctarank;\n ret;\n}\n",
		    GM_ELASTIC_NONE, "clusters");
	check_class("analysis: an indirect call is refused",
		    ".entry k() {\n .reg .b64 %rd<2>;\n mov.u64 %rd1, 0;\n"
		    " call %rd1, (), proto;\n ret;\n}\n",
		    GM_ELASTIC_NONE, "indirect call");
	check_class("analysis: a spin on a volatile load is refused",
		    ".global .u32 flag;\n"
		    ".entry k() {\n .reg .pred %p<2>; .reg .b32 %r<2>;\n"
		    "$w:\n ld.volatile.global.u32 %r1, [flag];\n"
		    " setp.eq.u32 %p1, %r1, 0;\n @%p1 bra $w;\n ret;\n}\n",
		    GM_ELASTIC_NONE, "waits on memory");
	check_class("analysis: an atomic inside a grid-stride loop is fine",
		    ".entry k(.param .u64 p) {\n .reg .pred %p<2>; .reg .b32 %r<4>; .reg .b64 %rd<2>;\n"
		    " ld.param.u64 %rd1, [p];\n mov.u32 %r1, %tid.x;\n"
		    "$l:\n atom.global.add.u32 %r2, [%rd1], 1;\n"
		    " add.u32 %r1, %r1, 64;\n setp.lt.u32 %p1, %r1, 1000;\n"
		    " @%p1 bra $l;\n ret;\n}\n",
		    GM_ELASTIC_THREAD, NULL);
}

/* Elastic kernels of a transformed module: param added; others intact. */
static void check_transformed(const char *file, const struct gm_ptx_module *m,
			      const struct gm_ptx_analysis *a,
			      const struct strbuf *out)
{
	char what[1024];
	struct gm_ptx_module t;
	int ok = gm_ptx_module_parse(&t, out->buf, out->len) == 0;

	snprintf(what, sizeof(what), "%s: the transformed text parses", file);
	CHECK(ok, what);
	for (size_t i = 0; ok && i < a->nr_kernels; i++) {
		const struct gm_ptx_kernel_info *k = &a->kernels[i];
		const struct gm_ptx_func *f = gm_ptx_module_find_func(&t, k->name);
		int has = f && f->nr_params &&
			  !strcmp(f->params[f->nr_params - 1].name, "gm_el_args");
		if (k->cls == GM_ELASTIC_NONE) {
			struct strbuf item = STRBUF_INIT;
			gm_ptx_add_source(&item, m, k->func->item.begin,
					  k->func->item.end);
			snprintf(what, sizeof(what), "%s: %s is kept unmodified",
				 file, k->name);
			CHECK(!has && strstr(out->buf, item.buf), what);
			strbuf_release(&item);
		} else {
			struct strbuf item = STRBUF_INIT;
			int sites = 0;
			snprintf(what, sizeof(what), "%s: %s gets the gm_el_args parameter",
				 file, k->name);
			CHECK(has, what);
			if (f) {
				gm_ptx_add_source(&item, &t, f->item.begin, f->item.end);
			}
			for (const char *q = item.buf; (q = strstr(q, "gpumix block probe"));
			     q++) {
				sites++;
			}
			/* the parameter holds the whole struct: the probe
			 * reads its last 16 bytes */
			{
				char decl[64];
				snprintf(decl, sizeof(decl), ".b8 gm_el_args[%d]",
					 GM_ELASTIC_PARAM_SIZE);
				snprintf(what, sizeof(what), "%s: %s declares %s",
					 file, k->name, decl);
				CHECK(strstr(item.buf, decl) != NULL, what);
			}
			/* start and end, on the identity path and in the loop */
			snprintf(what, sizeof(what), "%s: %s has the block probe's 4 sites",
				 file, k->name);
			CHECK_INT(sites, 4, what);
			strbuf_release(&item);
		}
	}
	gm_ptx_module_release(&t);
}

static void test_corpus(void)
{
	char *dir = gm_xasprintf("%s/tests/data/ptx", top());
	char *list = gm_path_join(dir, "classes.txt");
	struct strbuf golden = STRBUF_INIT;
	char cur[256] = "";
	struct strbuf ptx = STRBUF_INIT, out = STRBUF_INIT;
	struct gm_ptx_module m;
	struct gm_ptx_analysis a = { 0 };
	int have = 0, kernels = 0;

	memset(&m, 0, sizeof(m));
	if (gm_read_file(list, &golden) < 0) {
		CHECK(0, "corpus: classes.txt is readable");
		gm_error_report(stdout);
		goto out;
	}
	for (char *line = strtok(golden.buf, "\n"); line; line = strtok(NULL, "\n")) {
		char file[256], kernel[256], cls[64], what[1024];
		int n = 0;
		if (line[0] == '#' ||
		    sscanf(line, "%255s %255s %63s %n", file, kernel, cls, &n) < 3) {
			continue;
		}
		const char *reason_part = n > 0 && line[n] ? line + n : NULL;
		if (strcmp(file, cur)) {
			gm_ptx_analysis_release(&a);
			gm_ptx_module_release(&m);
			strbuf_reset(&ptx);
			strbuf_reset(&out);
			snprintf(cur, sizeof(cur), "%s", file);
			char *p = gm_path_join(dir, file);
			have = gm_read_file(p, &ptx) == 0 &&
			       gm_ptx_module_parse(&m, ptx.buf, ptx.len) == 0 &&
			       gm_ptx_analyze(&m, &a) == 0;
			free(p);
			snprintf(what, sizeof(what), "corpus: %s parses", file);
			CHECK(have, what);
			if (!have) {
				gm_error_report(stdout);
				continue;
			}
			struct gm_ptxas_report before = { 0 }, after = { 0 };
			int nel = 0;
			for (size_t i = 0; i < a.nr_kernels; i++) {
				nel += a.kernels[i].cls != GM_ELASTIC_NONE;
			}
			snprintf(what, sizeof(what), "corpus: %s transforms %d kernels", file, nel);
			CHECK_INT(gm_ptx_elastic_transform(&m, &a, NULL, &out), nel, what);
			check_transformed(file, &m, &a, &out);
			snprintf(what, sizeof(what), "corpus: %s assembles with ptxas -arch=sm_90", file);
			CHECK(gm_ptxas_assemble(ptx.buf, ptx.len, "sm_90", &before) == 0, what);
			snprintf(what, sizeof(what), "corpus: transformed %s assembles with ptxas -arch=sm_90", file);
			if (!CHECK(gm_ptxas_assemble(out.buf, out.len, "sm_90", &after) == 0, what)) {
				gm_error_report(stdout);
			}
			for (size_t i = 0; i < a.nr_kernels; i++) {
				const struct gm_ptxas_func *b = gm_ptxas_report_find(&before, a.kernels[i].name);
				const struct gm_ptxas_func *e = gm_ptxas_report_find(&after, a.kernels[i].name);
				printf("# %-20s %-16s regs %3d -> %3d\n", a.kernels[i].name,
				       gm_elastic_class_name(a.kernels[i].cls),
				       b ? b->registers : -1, e ? e->registers : -1);
			}
			gm_ptxas_report_release(&before);
			gm_ptxas_report_release(&after);
			gm_error_clear();
		}
		if (!have) {
			continue;
		}
		const struct gm_ptx_kernel_info *k = NULL;
		for (size_t i = 0; i < a.nr_kernels; i++) {
			if (!strcmp(a.kernels[i].name, kernel)) {
				k = &a.kernels[i];
			}
		}
		snprintf(what, sizeof(what), "corpus: %s %s is %s%s%s%s", file,
			 kernel, cls, reason_part ? " (" : "",
			 reason_part ? reason_part : "", reason_part ? ")" : "");
		int ok = k && !strcmp(gm_elastic_class_name(k->cls), cls) &&
			 (!reason_part || strstr(k->reason, reason_part));
		CHECK(ok, what);
		if (!ok && k) {
			printf("#   got %s (%s)\n", gm_elastic_class_name(k->cls), k->reason);
		}
		kernels++;
	}
	CHECK(kernels >= 20, "corpus: at least 20 golden kernels");
out:
	gm_ptx_analysis_release(&a);
	gm_ptx_module_release(&m);
	strbuf_release(&ptx);
	strbuf_release(&out);
	strbuf_release(&golden);
	free(list);
	free(dir);
}

static void test_transform_details(void)
{
	static const char src[] =
		".version 8.0\n.target sm_90\n.address_size 64\n"
		"// gm_el is taken\n"
		".visible .entry k {\n .reg .b32 %r<3>;\n"
		" mov.u32 %r1, %nctaid.y;\n mov.u32 %r2, %ctaid.x;\n ret;\n}\n";
	struct gm_ptx_module m;
	struct gm_ptx_analysis a = { 0 };
	struct strbuf out = STRBUF_INIT;
	struct gm_ptxas_report r = { 0 };

	CHECK(gm_ptx_module_parse(&m, src, strlen(src)) == 0 && gm_ptx_analyze(&m, &a) == 0,
	      "transform: a kernel without a parameter list");
	CHECK_INT(gm_ptx_elastic_transform(&m, &a, NULL, &out), 1, "transform: one kernel");
	CHECK(strstr(out.buf, "gm_el1_args") != NULL, "transform: a fresh prefix when 'gm_el' is used");
	CHECK(strstr(out.buf, "ld.param.u32 \t%r1, [gm_el1_args+4]") != NULL,
	      "transform: mov from %nctaid.y reads the logical grid");
	CHECK(strstr(out.buf, "mov.u32 %r2, %gm_el1_bx") != NULL,
	      "transform: %ctaid.x becomes the logical block");
	CHECK(gm_ptxas_assemble(out.buf, out.len, "sm_90", &r) == 0,
	      "transform: the result assembles");
	gm_ptxas_report_release(&r);
	gm_ptx_analysis_release(&a);
	gm_ptx_module_release(&m);
	strbuf_reset(&out);

	CHECK(gm_ptx_register_cap(10) == 32 && gm_ptx_register_cap(44) == 48 &&
	      gm_ptx_register_cap(48) == 48 && gm_ptx_register_cap(129) == 136,
	      "register cap: max(32, rounded up to 8)");
	static const char capped[] =
		".version 8.0\n.target sm_90\n.address_size 64\n"
		".visible .entry k1(.param .u64 p) {\n .reg .b32 %r<3>;\n"
		" mov.u32 %r1, %ctaid.x;\n ret;\n}\n"
		".visible .entry k2(.param .u64 p) .maxnreg 64 {\n .reg .b32 %r<3>;\n"
		" mov.u32 %r1, %ctaid.x;\n ret;\n}\n";
	struct gm_ptx_reg_cap caps[] = { { "k1", 40 }, { "k2", 40 } };
	struct gm_ptx_elastic_options opt = { .reg_caps = caps, .nr_reg_caps = 2 };
	CHECK(gm_ptx_module_parse(&m, capped, strlen(capped)) == 0 && gm_ptx_analyze(&m, &a) == 0 &&
	      gm_ptx_elastic_transform(&m, &a, &opt, &out) == 2, "register cap: two kernels");
	const char *first = strstr(out.buf, ".maxnreg 40");
	CHECK(first && strstr(first + 1, ".maxnreg 40") && !strstr(out.buf, ".maxnreg 64"),
	      "register cap: added to one kernel, replacing the other's own");
	CHECK(gm_ptxas_assemble(out.buf, out.len, "sm_90", &r) == 0, "register cap: assembles");
	gm_ptxas_report_release(&r);
	gm_ptx_analysis_release(&a);
	gm_ptx_module_release(&m);
	strbuf_reset(&out);

	static const char src32[] =
		".version 8.0\n.target sm_90\n.address_size 32\n"
		".entry k() {\n ret;\n}\n";
	CHECK(gm_ptx_module_parse(&m, src32, strlen(src32)) == 0 && gm_ptx_analyze(&m, &a) == 0,
	      "transform: a 32-bit module parses");
	CHECK_INT(gm_ptx_elastic_transform(&m, &a, NULL, &out), 0,
		  "transform: 32-bit addressing is left alone");
	CHECK(a.nr_kernels == 1 && a.kernels[0].cls == GM_ELASTIC_NONE &&
	      strstr(a.kernels[0].reason, "32-bit"), "transform: ... with the reason");
	CHECK(strstr(out.buf, "// gpumix-elastic-kernel: k not-elastic\n") &&
	      !strcmp(strstr(out.buf, src32) ? strstr(out.buf, src32) : "", src32),
	      "transform: ... and the text is unchanged after the class comments");
	gm_ptx_analysis_release(&a);
	gm_ptx_module_release(&m);
	strbuf_release(&out);
}

static void test_ptxas(void)
{
	static const char report[] =
		"ptxas info    : 0 bytes gmem\n"
		"ptxas info    : Compiling entry function 'k1' for 'sm_90'\n"
		"ptxas info    : Function properties for k1\n"
		"    16 bytes stack frame, 4 bytes spill stores, 8 bytes spill loads\n"
		"ptxas info    : Used 40 registers, used 1 barriers, 1024 bytes smem, 368 bytes cmem[0]\n"
		"ptxas info    : Function properties for f\n"
		"    0 bytes stack frame, 0 bytes spill stores, 0 bytes spill loads\n"
		"ptxas info    : Compiling entry function 'k2' for 'sm_90'\n"
		"ptxas info    : Used 8 registers, used 0 barriers\n";
	struct gm_ptxas_report r = { 0 };

	gm_ptxas_parse_report(report, &r);
	const struct gm_ptxas_func *k1 = gm_ptxas_report_find(&r, "k1");
	const struct gm_ptxas_func *k2 = gm_ptxas_report_find(&r, "k2");
	CHECK(k1 && k1->is_entry && k1->registers == 40 && k1->barriers == 1 &&
	      k1->smem == 1024 && k1->cmem0 == 368, "ptxas: report of k1");
	CHECK(k1 && k1->stack == 16 && k1->spill_stores == 4 && k1->spill_loads == 8,
	      "ptxas: stack and spills of k1");
	CHECK(k2 && k2->registers == 8 && k2->barriers == 0 && k2->smem == 0,
	      "ptxas: report of k2");
	const struct gm_ptxas_func *f = gm_ptxas_report_find(&r, "f");
	CHECK(f && !f->is_entry, "ptxas: a device function");
	gm_ptxas_report_release(&r);

	static const char broken[] = ".version 8.0\n.target sm_90\n.entry k() { bogus; }\n";
	CHECK(gm_ptxas_assemble(broken, strlen(broken), "sm_90", &r) < 0 &&
	      strstr(gm_error_message(), "ptxas -arch=sm_90 failed") &&
	      strstr(gm_error_message(), "error"),
	      "ptxas: a failure quotes the error");
	gm_error_clear();
	gm_ptxas_report_release(&r);
}

int main(void)
{
	test_lexer_parser();
	test_analysis();
	test_corpus();
	test_transform_details();
	test_ptxas();
	return test_done();
}
