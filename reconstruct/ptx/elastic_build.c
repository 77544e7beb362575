/* SPDX-License-Identifier: MIT */
/*
 * One PTX module made elastic, with ptxas's register check (see
 * elastic_build.h).
 */
#include "elastic_build.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "ptx_module.h"

/* The value of @f's own .maxnreg directive, or 0. */
static int own_maxnreg_of(const struct gm_ptx_module *m,
			  const struct gm_ptx_func *f)
{
	uint32_t i = f->params_close >= 0 ? (uint32_t)f->params_close
					  : f->name_tok;

	for (; f->body_open >= 0 && i + 1 < (uint32_t)f->body_open; i++) {
		if (gm_ptx_tok_is(m, i, ".maxnreg")) {
			char *v = gm_ptx_tok_dup(m, i + 1);
			int n = atoi(v);
			free(v);
			return n;
		}
	}
	return 0;
}

/*
 * The caps that keep the original's occupancy: a kernel whose registers
 * now take a larger allocation is capped at the original's; one that
 * spills under its own .maxnreg gets that raised as far as occupancy
 * allows. Fills @caps (room for every kernel); returns how many.
 */
static size_t choose_caps(const struct gm_ptx_module *m,
			  const struct gm_ptx_analysis *a,
			  const struct gm_elastic_build *b,
			  struct gm_ptx_reg_cap *caps)
{
	size_t n = 0;

	for (size_t i = 0; i < a->nr_kernels; i++) {
		const struct gm_ptxas_func *was =
			gm_ptxas_report_find(&b->before, a->kernels[i].name);
		const struct gm_ptxas_func *now =
			gm_ptxas_report_find(&b->after, a->kernels[i].name);
		int own = own_maxnreg_of(m, a->kernels[i].func);
		int want = 0;

		if (!was || !now || a->kernels[i].cls == GM_ELASTIC_NONE) {
			continue;
		}
		if (own <= 0 && gm_ptx_register_cap(now->registers) >
					gm_ptx_register_cap(was->registers)) {
			want = gm_ptx_register_cap(was->registers);
		} else if (own > 0 && now->spill_stores > was->spill_stores &&
			   gm_ptx_register_cap(own) > own) {
			want = gm_ptx_register_cap(own);
		}
		if (want) {
			caps[n].kernel = a->kernels[i].name;
			caps[n++].maxnreg = want;
		}
	}
	return n;
}

static int assemble_after(const struct gm_elastic_build_opts *o,
			  struct gm_elastic_build *b)
{
	gm_ptxas_report_release(&b->after);
	strbuf_reset(&b->cubin);
	return gm_ptxas_assemble_cubin(b->ptx.buf, b->ptx.len, o->arch,
				       &b->after,
				       o->want_cubin ? &b->cubin : NULL);
}

int gm_elastic_build(const char *ptx, size_t len, const char *label,
		     const struct gm_elastic_build_opts *o,
		     struct gm_elastic_build *out)
{
	struct gm_ptx_module m;
	struct gm_ptx_analysis a = { 0 };
	struct gm_ptx_elastic_options eo = { 0 };
	struct gm_ptx_reg_cap *caps = NULL;
	int parsed = 0, ret = -1, n;

	strbuf_init(&out->ptx, 0);
	strbuf_init(&out->cubin, 0);
	eo.block_only = o->block_only;
	parsed = 1;	/* released whether or not it parses */
	if (gm_ptx_module_parse(&m, ptx, len) < 0) {
		gm_error("cannot parse the PTX of %s", label);
		goto out;
	}
	if (gm_ptx_analyze(&m, &a) < 0) {
		gm_error("cannot analyze the PTX of %s", label);
		goto out;
	}
	if (o->assemble &&
	    gm_ptxas_assemble(m.src, m.len, o->arch, &out->before) < 0) {
		gm_error("the original PTX of %s does not assemble", label);
		goto out;
	}
	n = gm_ptx_elastic_transform(&m, &a, &eo, &out->ptx);
	if (n < 0) {
		gm_error("cannot transform the PTX of %s", label);
		goto out;
	}
	if (o->assemble && assemble_after(o, out) < 0) {
		gm_error("the transformed PTX of %s does not assemble", label);
		gm_error_hint("please report this with the input file: the "
			      "transformation has a bug");
		goto out;
	}
	if (o->assemble && o->register_cap) {
		caps = gm_xcalloc(a.nr_kernels + 1, sizeof(*caps));
		eo.nr_reg_caps = choose_caps(&m, &a, out, caps);
		eo.reg_caps = caps;
	}
	if (eo.nr_reg_caps) {
		strbuf_reset(&out->ptx);
		n = gm_ptx_elastic_transform(&m, &a, &eo, &out->ptx);
		if (n < 0 || assemble_after(o, out) < 0) {
			gm_error("the transformed PTX of %s does not assemble "
				 "with register caps", label);
			goto out;
		}
	}
	out->nr_transformed = (size_t)n;
	out->kernels = gm_xcalloc(a.nr_kernels + 1, sizeof(*out->kernels));
	for (size_t i = 0; i < a.nr_kernels; i++) {
		struct gm_elastic_build_kernel *k = &out->kernels[i];
		k->name = gm_xstrdup(a.kernels[i].name);
		k->cls = a.kernels[i].cls;
		memcpy(k->reason, a.kernels[i].reason, sizeof(k->reason));
		k->reason[sizeof(k->reason) - 1] = '\0';
		for (size_t c = 0; c < eo.nr_reg_caps; c++) {
			if (!strcmp(caps[c].kernel, k->name)) {
				k->maxnreg = caps[c].maxnreg;
			}
		}
		out->nr_kernels = i + 1;
	}
	ret = 0;
out:
	free(caps);
	gm_ptx_analysis_release(&a);
	if (parsed) {
		gm_ptx_module_release(&m);
	}
	return ret;
}

void gm_elastic_build_release(struct gm_elastic_build *b)
{
	strbuf_release(&b->ptx);
	strbuf_release(&b->cubin);
	for (size_t i = 0; i < b->nr_kernels; i++) {
		free(b->kernels[i].name);
	}
	free(b->kernels);
	gm_ptxas_report_release(&b->before);
	gm_ptxas_report_release(&b->after);
	memset(b, 0, sizeof(*b));
}
