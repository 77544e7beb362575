/* SPDX-License-Identifier: MIT */
/*
 * The elastic/ directory of a reconstruct output (see recon_elastic.h).
 */
#include "recon_elastic.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "elastic_abi.h"
#include "reconstruct/ptx/elastic_build.h"
#include "error.h"
#include "reconstruct/ptx/fatbin.h"
#include "fs.h"
#include "hash.h"
#include "kvfile.h"
#include "reconstruct/model/model_int.h"
#include "strbuf.h"

/* The architecture: the option, else the first bundle's device. */
static void pick_arch(const struct model *m, const char *want, char *arch,
		      size_t n)
{
	if (want) {
		snprintf(arch, n, "%s", want);
		return;
	}
	snprintf(arch, n, "sm_90");
	for (size_t i = 0; i < m->nr_progs; i++) {
		struct kvfile kv = KVFILE_INIT;
		char *path = gm_path_join(m->progs[i]->bundle, "manifest");
		unsigned major, minor;
		int found = 0;

		if (kvfile_read(&kv, path) == 0) {
			const char *cc = kvfile_get(&kv, "device.cc");
			if (cc && sscanf(cc, "%u.%u", &major, &minor) == 2) {
				snprintf(arch, n, "sm_%u%u", major, minor);
				found = 1;
			}
		}
		gm_error_clear();
		kvfile_release(&kv);
		free(path);
		if (found) {
			return;
		}
	}
}

/*
 * The PTX of image @path for @sm into @ptx: 1 found, 0 none (@why says
 * why not), -1 error (cause recorded).
 */
static int image_ptx(const char *path, unsigned sm, struct strbuf *ptx,
		     char *why, size_t whylen)
{
	struct strbuf img = STRBUF_INIT;
	struct gm_fatbin fb;
	size_t with_ptx = 0;
	long pick = -1;
	int ret = -1;

	memset(&fb, 0, sizeof(fb));
	if (gm_read_file(path, &img) < 0) {
		goto out;
	}
	if (!gm_fatbin_is_elf(img.buf, img.len) &&
	    !gm_fatbin_is_fatbin(img.buf, img.len)) {
		/* Text loaded as is (cuModuleLoadData of PTX). */
		if (memmem(img.buf, img.len, ".entry", 6) ||
		    memmem(img.buf, img.len, ".version", 8)) {
			strbuf_add(ptx, img.buf, strnlen(img.buf, img.len));
			ret = 1;
		} else {
			snprintf(why, whylen, "neither a fatbin, a cubin nor PTX");
			ret = 0;
		}
		goto out;
	}
	if (gm_fatbin_from_image(img.buf, img.len, &fb) < 0) {
		snprintf(why, whylen, "no PTX in it (%s)", gm_error_message());
		gm_error_clear();
		ret = 0;
		goto out;
	}
	for (size_t c = 0; c < fb.nr_containers; c++) {
		for (size_t i = 0; i < fb.nr; i++) {
			if (fb.entries[i].container == c &&
			    fb.entries[i].kind == GM_FATBIN_PTX) {
				with_ptx++;
				break;
			}
		}
	}
	if (with_ptx > 1) {
		snprintf(why, whylen, "%zu fatbins with PTX in one image",
			 with_ptx);
		ret = 0;
		goto out;
	}
	pick = gm_fatbin_pick_ptx(&fb, sm);
	if (pick < 0) {
		snprintf(why, whylen, "no PTX in it (only SASS)");
		ret = 0;
		goto out;
	}
	if (gm_fatbin_entry_data(&fb.entries[pick], ptx) < 0) {
		gm_error("cannot read the PTX of '%s'", path);
		goto out;
	}
	ret = 1;
out:
	gm_fatbin_release(&fb);
	strbuf_release(&img);
	return ret;
}

/* One table column: @v, or "-" when ptxas did not report it (@have 0). */
static void num_col(struct strbuf *sb, int have, unsigned long v)
{
	if (have) {
		strbuf_addf(sb, "\t%lu", v);
	} else {
		strbuf_addstr(sb, "\t-");
	}
}

/* Whether program @prog's module @mod is an image loaded before. */
static int seen_before(const struct model *m, size_t prog, size_t mod)
{
	const char *hash = m->progs[prog]->modules[mod].hash;

	for (size_t i = 0; i <= prog; i++) {
		const struct model_prog *p = m->progs[i];
		size_t end = i == prog ? mod : p->nr_modules;
		for (size_t j = 0; j < end; j++) {
			if (!strcmp(p->modules[j].hash, hash)) {
				return 1;
			}
		}
	}
	return 0;
}

/* Whether program @p launches kernels of its module @mod named @name. */
static int used_by(const struct model_prog *p, size_t mod, const char *name)
{
	for (size_t k = 0; k < p->nr_kernels; k++) {
		if (p->kernels[k].module == mod &&
		    !strcmp(p->kernels[k].name, name)) {
			return 1;
		}
	}
	return 0;
}

static int write_bytes(const char *dir, const char *name, const void *buf,
		       size_t len, struct kvfile *kv, const char *key)
{
	char *path = gm_path_join(dir, name);
	char hex[GM_HASH_HEX_LEN + 1];
	char k[128];
	int ret = gm_write_file_atomic(path, buf, len, 0);

	free(path);
	if (ret < 0) {
		return -1;
	}
	gm_hash_hex(gm_hash_bytes(buf, len), hex);
	kvfile_set(kv, key, name);
	snprintf(k, sizeof(k), "%s_size", key);
	kvfile_set_u64(kv, k, len);
	snprintf(k, sizeof(k), "%s_hash", key);
	kvfile_set(kv, k, hex);
	return 0;
}

struct state {
	const struct model *m;
	const char *edir;
	char arch[16];
	unsigned sm;
	struct gm_elastic_build_opts bo;
	struct kvfile index;
	struct strbuf table;
	struct strbuf *report;
	struct recon_elastic_stats st;
};

/*
 * Module @mi of program @p keeps its original code: say why, in the
 * report and for each of its kernels in the kernel table.
 */
static void keep_original(struct state *s, const struct model_prog *p,
			  size_t mi, const char *why)
{
	const struct model_module *mod = &p->modules[mi];

	strbuf_addf(s->report, "elastic: program '%s': module %s: %s; its "
		    "kernels run unmodified\n", p->name, mod->hash, why);
	s->st.kept++;
	for (size_t k = 0; k < p->nr_kernels; k++) {
		if (p->kernels[k].module != mi) {
			continue;
		}
		strbuf_addf(&s->table, "%s\t%s\tnot-elastic\t-\t-\t-\t-\t-"
			    "\t%s\n", mod->hash, p->kernels[k].name, why);
		s->st.kernels++;
		s->st.none++;
	}
}

/* The recorded causes, newest first, as one line into @buf. */
static void error_chain(char *buf, size_t len)
{
	struct strbuf sb = STRBUF_INIT;

	for (int i = 0; i < gm_error_count(); i++) {
		strbuf_addf(&sb, "%s%s", i ? ": " : "", gm_error_cause(i));
	}
	for (size_t i = 0; i < sb.len; i++) {
		if (sb.buf[i] == '\n' || sb.buf[i] == '\t') {
			sb.buf[i] = ' ';
		}
	}
	snprintf(buf, len, "%s", sb.len ? sb.buf : "cannot be made elastic");
	strbuf_release(&sb);
}

/*
 * 1 when the PTX says `.target sm_NN` (or compute_NN) above the device's
 * @sm (@why says so): ptxas for the device could not assemble it, and a
 * driver would not load it either.
 */
static int ptx_target_above(const char *ptx, size_t len, unsigned sm,
			    char *why, size_t whylen)
{
	const char *t = memmem(ptx, len, ".target", 7);
	unsigned want;

	if (!t) {
		return 0;
	}
	t += 7;
	while (t < ptx + len && (*t == ' ' || *t == '\t')) {
		t++;
	}
	if (sscanf(t, "sm_%u", &want) != 1 &&
	    sscanf(t, "compute_%u", &want) != 1) {
		return 0;
	}
	if (want <= sm) {
		return 0;
	}
	snprintf(why, whylen, "its PTX targets sm_%u, above the device's sm_%u",
		 want, sm);
	return 1;
}

/* One image, loaded first by program @pi as its module @mi. */
static int do_image(struct state *s, size_t pi, size_t mi)
{
	const struct model_prog *p = s->m->progs[pi];
	const struct model_module *mod = &p->modules[mi];
	struct strbuf ptx = STRBUF_INIT;
	struct gm_elastic_build b = { 0 };
	char why[512], key[160], *label, *name;
	size_t idx = s->st.transformed;
	int got, ret = -1;

	s->st.images++;
	label = gm_xasprintf("modules/%s", mod->hash);
	got = image_ptx(mod->path, s->sm, &ptx, why, sizeof(why));
	if (got < 0) {
		goto out;
	}
	if (got && ptx_target_above(ptx.buf, ptx.len, s->sm, why,
				    sizeof(why))) {
		got = 0;
	}
	if (got && gm_elastic_build(ptx.buf, ptx.len, label, &s->bo, &b) < 0) {
		/* Never the whole reconstruct: the module keeps its code. */
		error_chain(why, sizeof(why));
		gm_error_clear();
		got = 0;
	}
	if (!got) {
		keep_original(s, p, mi, why);
		ret = 0;
		goto out;
	}
	for (size_t k = 0; k < b.nr_kernels; k++) {
		const struct gm_elastic_build_kernel *ek = &b.kernels[k];
		strbuf_addf(&s->table, "%s\t%s\t%s", mod->hash, ek->name,
			    gm_elastic_class_name(ek->cls));
		const struct gm_ptxas_func *fb, *fa;
		fb = gm_ptxas_report_find(&b.before, ek->name);
		fa = gm_ptxas_report_find(&b.after, ek->name);
		num_col(&s->table, fb != NULL, fb ? (unsigned long)fb->registers : 0);
		num_col(&s->table, fa != NULL, fa ? (unsigned long)fa->registers : 0);
		num_col(&s->table, fb != NULL, fb ? fb->smem : 0);
		num_col(&s->table, fa != NULL, fa ? fa->smem : 0);
		num_col(&s->table, ek->maxnreg != 0, (unsigned long)ek->maxnreg);
		strbuf_addf(&s->table, "\t%s\n",
			    ek->reason[0] ? ek->reason : "-");
		s->st.kernels++;
		s->st.thread += ek->cls == GM_ELASTIC_THREAD;
		s->st.block += ek->cls == GM_ELASTIC_BLOCK;
		s->st.none += ek->cls == GM_ELASTIC_NONE;
		if (ek->cls == GM_ELASTIC_NONE && used_by(p, mi, ek->name)) {
			strbuf_addf(s->report, "elastic: program '%s': kernel "
				    "'%s' is not elastic (%s); it runs "
				    "unmodified\n", p->name, ek->name,
				    ek->reason);
		}
	}
	if (!b.nr_transformed) {
		ret = 0;
		goto out;
	}
	s->st.transformed++;
	snprintf(key, sizeof(key), "module.%zu.hash", idx);
	kvfile_set(&s->index, key, mod->hash);
	name = gm_xasprintf("%s.ptx", mod->hash);
	snprintf(key, sizeof(key), "module.%zu.ptx", idx);
	ret = write_bytes(s->edir, name, b.ptx.buf, b.ptx.len, &s->index, key);
	free(name);
	if (!ret && b.cubin.len) {
		name = gm_xasprintf("%s.%s.cubin", mod->hash, s->arch);
		snprintf(key, sizeof(key), "module.%zu.cubin", idx);
		ret = write_bytes(s->edir, name, b.cubin.buf, b.cubin.len,
				  &s->index, key);
		free(name);
		snprintf(key, sizeof(key), "module.%zu.cubin_arch", idx);
		kvfile_set_u64(&s->index, key, s->sm);
	}
	if (ret < 0) {
		goto out;
	}
	snprintf(key, sizeof(key), "module.%zu.kernels", idx);
	kvfile_set_u64(&s->index, key, b.nr_kernels);
	for (size_t k = 0; k < b.nr_kernels; k++) {
		snprintf(key, sizeof(key), "module.%zu.kernel.%zu.name", idx, k);
		kvfile_set(&s->index, key, b.kernels[k].name);
		snprintf(key, sizeof(key), "module.%zu.kernel.%zu.class", idx, k);
		kvfile_set(&s->index, key, gm_elastic_class_name(b.kernels[k].cls));
	}
	ret = 0;
out:
	if (ret < 0) {
		gm_error("program '%s': cannot make module %s elastic", p->name,
			 mod->hash);
	}
	gm_elastic_build_release(&b);
	strbuf_release(&ptx);
	free(label);
	return ret;
}

int recon_elastic_write(const struct model *m, const char *dir,
			const struct recon_elastic_opts *o,
			struct strbuf *report, struct recon_elastic_stats *stp)
{
	struct state s;
	char *path = NULL, *ptxas = NULL;
	int ret = -1;

	memset(&s, 0, sizeof(s));
	s.m = m;
	s.report = report;
	kvfile_init(&s.index);
	strbuf_init(&s.table, 0);
	pick_arch(m, o->arch, s.arch, sizeof(s.arch));
	if (sscanf(s.arch, "sm_%u", &s.sm) != 1 || s.sm < 50) {
		return gm_error("bad architecture '%s' (expected sm_NN)",
				s.arch);
	}
	snprintf(s.st.arch, sizeof(s.st.arch), "%s", s.arch);
	s.bo.arch = s.arch;
	s.bo.register_cap = 1;
	s.bo.want_cubin = 1;
	if (!o->no_assemble) {
		ptxas = gm_ptxas_path();
		if (!ptxas) {
			gm_error_clear();
			strbuf_addstr(report, "warning: elastic: ptxas not found "
				      "(CUDA_HOME, PATH): PTX only, without "
				      "register caps; the replay JIT-compiles "
				      "it\n");
		}
	}
	s.bo.assemble = ptxas != NULL;
	s.st.assembled = s.bo.assemble;
	s.edir = path = gm_path_join(dir, "elastic");
	if (gm_mkdir_p(path, 0777) < 0) {
		goto out;
	}
	kvfile_set(&s.index, "format", GM_ELASTIC_INDEX_FORMAT);
	kvfile_set(&s.index, "arch", s.arch);
	kvfile_set_u64(&s.index, "modules", 0);
	strbuf_addstr(&s.table, "module\tkernel\tclass\tregs\tregs_after\t"
		      "smem\tsmem_after\tmaxnreg\treason\n");
	for (size_t i = 0; i < m->nr_progs; i++) {
		for (size_t j = 0; j < m->progs[i]->nr_modules; j++) {
			if (!seen_before(m, i, j) && do_image(&s, i, j) < 0) {
				goto out;
			}
		}
	}
	kvfile_set_u64(&s.index, "modules", s.st.transformed);
	{
		char *idx = gm_path_join(path, "index");
		char *tsv = gm_path_join(path, "kernels.tsv");
		int r = kvfile_write(&s.index, idx, "gpumix reconstruct "
				     "--elastic: elastic modules (doc/elastic.md)");
		if (!r) {
			r = gm_write_file_atomic(tsv, s.table.buf, s.table.len,
						 0);
		}
		free(idx);
		free(tsv);
		if (r < 0) {
			goto out;
		}
	}
	ret = 0;
out:
	if (stp) {
		*stp = s.st;
	}
	kvfile_release(&s.index);
	strbuf_release(&s.table);
	free(path);
	free(ptxas);
	return ret;
}
