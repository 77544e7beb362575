/* SPDX-License-Identifier: MIT */
/*
 * Reading DIR/elastic/index (see elastic_index.h).
 */
#include "elastic_index.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "fs.h"
#include "kvfile.h"

/* The value of "module.<i>.<what>", or NULL when absent or empty. */
static const char *get(const struct kvfile *kv, size_t i, const char *what)
{
	char key[160];
	const char *v;

	snprintf(key, sizeof(key), "module.%zu.%s", i, what);
	v = kvfile_get(kv, key);
	return v && *v ? v : NULL;
}

/* The same, required: NULL with a recorded cause. */
static const char *need(const struct kvfile *kv, const char *path, size_t i,
			const char *what)
{
	const char *v = get(kv, i, what);

	if (!v) {
		gm_error("'%s': no 'module.%zu.%s'", path, i, what);
	}
	return v;
}

static int need_u64(const struct kvfile *kv, const char *path, size_t i,
		    const char *what, uint64_t *out)
{
	char key[160];

	snprintf(key, sizeof(key), "module.%zu.%s", i, what);
	return kvfile_get_u64(kv, key, out, path);
}

static int read_image(const struct kvfile *kv, const char *path, size_t i,
		      struct gm_elastic_image *img)
{
	const char *v;
	uint64_t n;

	if (!(v = need(kv, path, i, "hash"))) {
		return -1;
	}
	img->hash = gm_xstrdup(v);
	if (!(v = need(kv, path, i, "ptx"))) {
		return -1;
	}
	img->ptx = gm_xstrdup(v);
	if (!(v = need(kv, path, i, "ptx_hash"))) {
		return -1;
	}
	img->ptx_hash = gm_xstrdup(v);
	if (need_u64(kv, path, i, "ptx_size", &img->ptx_size) < 0) {
		return -1;
	}
	if ((v = get(kv, i, "cubin"))) {
		img->cubin = gm_xstrdup(v);
		if (!(v = need(kv, path, i, "cubin_hash")) ||
		    need_u64(kv, path, i, "cubin_size", &img->cubin_size) < 0 ||
		    need_u64(kv, path, i, "cubin_arch", &n) < 0) {
			return -1;
		}
		img->cubin_hash = gm_xstrdup(v);
		img->cubin_arch = (unsigned)n;
	}
	if (need_u64(kv, path, i, "kernels", &n) < 0) {
		return -1;
	}
	if (n > 1000000) {
		return gm_error("'%s': module %zu has %" PRIu64 " kernels",
				path, i, n);
	}
	img->kernel = gm_xcalloc(n + 1, sizeof(*img->kernel));
	img->cls = gm_xcalloc(n + 1, sizeof(*img->cls));
	for (size_t k = 0; k < n; k++) {
		char what[64];
		snprintf(what, sizeof(what), "kernel.%zu.name", k);
		if (!(v = need(kv, path, i, what))) {
			return -1;
		}
		img->kernel[k] = gm_xstrdup(v);
		img->nr_kernels = k + 1;
		snprintf(what, sizeof(what), "kernel.%zu.class", k);
		if (!(v = need(kv, path, i, what))) {
			return -1;
		}
		if (gm_elastic_class_parse(v, &img->cls[k]) < 0) {
			return gm_error("'%s': module %zu kernel %zu: unknown "
					"class '%s'", path, i, k, v);
		}
	}
	return 0;
}

int gm_elastic_index_read(struct gm_elastic_index *x, const char *data_dir)
{
	char *path = gm_path_join(data_dir, "elastic/index");
	struct kvfile kv = KVFILE_INIT;
	const char *v;
	uint64_t n;
	int ret = -1;

	if (!gm_path_exists(path)) {
		gm_error("no elastic modules: '%s' does not exist", path);
		gm_error_hint("reconstruct the workload with 'gpumix reconstruct "
			      "--elastic'");
		goto out;
	}
	if (kvfile_read(&kv, path) < 0) {
		goto out;
	}
	v = kvfile_get(&kv, "format");
	if (!v || strcmp(v, GM_ELASTIC_INDEX_FORMAT)) {
		/* Format 2: gm_el_args grew to 64 bytes (the block probe). */
		gm_error_hint("reconstruct the workload again with 'gpumix "
			      "reconstruct --elastic': its elastic modules "
			      "have another launch interface");
		gm_error("'%s': format '%s', expected '%s'", path,
			 v ? v : "(none)", GM_ELASTIC_INDEX_FORMAT);
		goto out;
	}
	v = kvfile_get(&kv, "arch");
	x->arch = gm_xstrdup(v ? v : "");
	if (kvfile_get_u64(&kv, "modules", &n, path) < 0) {
		goto out;
	}
	if (n > 1000000) {
		gm_error("'%s': %" PRIu64 " modules", path, n);
		goto out;
	}
	x->images = gm_xcalloc(n + 1, sizeof(*x->images));
	for (size_t i = 0; i < n; i++) {
		x->nr = i + 1;
		if (read_image(&kv, path, i, &x->images[i]) < 0) {
			goto out;
		}
	}
	ret = 0;
out:
	if (ret < 0) {
		gm_error("cannot read the elastic modules");
	}
	kvfile_release(&kv);
	free(path);
	return ret;
}

const struct gm_elastic_image *gm_elastic_index_find(
	const struct gm_elastic_index *x, const char *hash)
{
	for (size_t i = 0; i < x->nr; i++) {
		if (x->images[i].hash && !strcmp(x->images[i].hash, hash)) {
			return &x->images[i];
		}
	}
	return NULL;
}

enum gm_elastic_class gm_elastic_image_class(const struct gm_elastic_image *img,
					      const char *name)
{
	for (size_t k = 0; img && k < img->nr_kernels; k++) {
		if (!strcmp(img->kernel[k], name)) {
			return img->cls[k];
		}
	}
	return GM_ELASTIC_NONE;
}

void gm_elastic_index_release(struct gm_elastic_index *x)
{
	for (size_t i = 0; i < x->nr; i++) {
		struct gm_elastic_image *img = &x->images[i];
		free(img->hash);
		free(img->ptx);
		free(img->ptx_hash);
		free(img->cubin);
		free(img->cubin_hash);
		for (size_t k = 0; k < img->nr_kernels; k++) {
			free(img->kernel[k]);
		}
		free(img->kernel);
		free(img->cls);
	}
	free(x->images);
	free(x->arch);
	memset(x, 0, sizeof(*x));
}

int gm_elastic_reasons_read(struct gm_elastic_reasons *r, const char *data_dir)
{
	char *path = gm_path_join(data_dir, "elastic/kernels.tsv");
	struct strbuf sb = STRBUF_INIT;
	char *line, *save = NULL;
	unsigned n = 0;
	int ret = -1;

	if (!gm_path_exists(path)) {
		ret = 0;
		goto out;
	}
	if (gm_read_file(path, &sb) < 0) {
		goto out;
	}
	for (line = strtok_r(sb.buf, "\n", &save); line;
	     line = strtok_r(NULL, "\n", &save)) {
		char *f[9];
		size_t nf = 0;
		n++;
		f[nf++] = line;
		for (char *c = line; *c && nf < 9; c++) {
			if (*c == '\t') {
				*c = 0;
				f[nf++] = c + 1;
			}
		}
		if (nf != 9) {
			gm_error("'%s' line %u: %zu fields, expected 9", path, n,
				 nf);
			goto out;
		}
		if (n == 1 || strcmp(f[2], "not-elastic")) {
			continue;	/* the header, or an elastic kernel */
		}
		GM_ALLOC_GROW(r->module, r->nr + 1, r->alloc);
		r->kernel = gm_xrealloc(r->kernel, r->alloc * sizeof(char *));
		r->reason = gm_xrealloc(r->reason, r->alloc * sizeof(char *));
		r->module[r->nr] = gm_xstrdup(f[0]);
		r->kernel[r->nr] = gm_xstrdup(f[1]);
		r->reason[r->nr] = gm_xstrdup(f[8]);
		r->nr++;
	}
	ret = 0;
out:
	strbuf_release(&sb);
	free(path);
	return ret;
}

const char *gm_elastic_reason(const struct gm_elastic_reasons *r,
			      const char *module, const char *kernel)
{
	for (size_t i = 0; i < r->nr; i++) {
		if (!strcmp(r->kernel[i], kernel) &&
		    (!module || !strcmp(r->module[i], module))) {
			return r->reason[i];
		}
	}
	return NULL;
}

void gm_elastic_reasons_release(struct gm_elastic_reasons *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		free(r->module[i]);
		free(r->kernel[i]);
		free(r->reason[i]);
	}
	free(r->module);
	free(r->kernel);
	free(r->reason);
	memset(r, 0, sizeof(*r));
}
