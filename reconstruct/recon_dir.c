/* SPDX-License-Identifier: MIT */
/*
 * Writing the reconstruct output directory (see recon_dir.h).
 */
#include "recon_dir.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "atomic_file.h"
#include "reconstruct/model/codegen.h"
#include "error.h"
#include "fs.h"
#include "kvfile.h"
#include "reconstruct/model/model_int.h"
#include "output_dir.h"
#include "recon_elastic.h"
#include "strbuf.h"
#include "tmp_name.h"

/* Copy the @size bytes of the regular file @src to the new file @dst. */
static int copy_file(const char *src, const char *dst, uint64_t size)
{
	char buf[1 << 16];
	uint64_t copied = 0;
	int in, out, ret = 0;
	ssize_t n;

	in = gm_open_regular(src);
	if (in < 0) {
		return -1;
	}
	out = open(dst, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0644);
	if (out < 0) {
		close(in);
		return gm_error_errno("cannot create '%s'", dst);
	}
	while ((n = read(in, buf, sizeof(buf))) != 0) {
		if (n < 0) {
			if (errno == EINTR) {
				continue;
			}
			ret = gm_error_errno("cannot read '%s'", src);
			break;
		}
		copied += (uint64_t)n;
		if (copied > size) {
			ret = gm_error("'%s' holds more than the %" PRIu64
				       " bytes the trace says", src, size);
			break;
		}
		if (gm_write_all(out, buf, (size_t)n) < 0) {
			ret = gm_error("cannot write '%s'", dst);
			break;
		}
	}
	if (!ret && copied != size) {
		ret = gm_error("'%s' holds %" PRIu64 " bytes, the trace says %"
			       PRIu64, src, copied, size);
	}
	if (close(out) < 0 && !ret) {
		ret = gm_error_errno("cannot write '%s'", dst);
	}
	close(in);
	if (ret) {
		unlink(dst);
	}
	return ret;
}

/* Put @src (of @size bytes) at @dir/@hash; a file already there is fine. */
static int place(const char *dir, const char *hash, const char *src,
		 const uint8_t *bytes, uint64_t size)
{
	char *dst = gm_path_join(dir, hash);
	struct stat st;
	int ret = 0;

	if (gm_path_exists(dst)) {
		free(dst);
		return 0;
	}
	if (bytes) {
		ret = gm_write_file_atomic(dst, bytes, size, 0);
	} else if (!src) {
		ret = gm_error("no source for %s", hash);
	} else if (stat(src, &st) < 0) {
		ret = gm_error_errno("cannot stat '%s'", src);
	} else if (!S_ISREG(st.st_mode)) {
		/* A link to /dev/zero or a FIFO in the bundle. */
		ret = gm_error("'%s' is not a regular file", src);
	} else if ((uint64_t)st.st_size != size) {
		ret = gm_error("'%s' has %llu bytes, the trace says %" PRIu64,
			       src, (unsigned long long)st.st_size, size);
	} else if (linkat(AT_FDCWD, src, AT_FDCWD, dst, AT_SYMLINK_FOLLOW) < 0) {
		ret = copy_file(src, dst, size);
	}
	free(dst);
	return ret;
}

static void fill_manifest(const struct model *m, struct kvfile *kv,
			  const struct recon_dir_opts *o, const char *arch)
{
	kvfile_set(kv, "format", RECON_FORMAT);
	kvfile_set(kv, "workload", m->name);
	kvfile_set(kv, "variant", m->variant);
	kvfile_set_u64(kv, "programs", m->nr_progs);
	for (size_t i = 0; i < m->nr_progs; i++) {
		const struct model_prog *p = m->progs[i];
		char key[64];
		snprintf(key, sizeof(key), "program.%zu.name", i);
		kvfile_set(kv, key, p->name);
		snprintf(key, sizeof(key), "program.%zu.bundle", i);
		kvfile_set(kv, key, p->bundle);
		snprintf(key, sizeof(key), "program.%zu.deterministic", i);
		kvfile_set(kv, key, p->deterministic ? "1" : "0");
		snprintf(key, sizeof(key), "program.%zu.ops", i);
		kvfile_set_u64(kv, key, p->nr_ops);
		snprintf(key, sizeof(key), "program.%zu.host_time", i);
		kvfile_set(kv, key, p->host_gap ? "captured" : "none");
		if (p->host_gap) {
			snprintf(key, sizeof(key), "program.%zu.host_gap_s", i);
			kvfile_setf(kv, key, "%.6f", p->host_gap_total_ns / 1e9);
			snprintf(key, sizeof(key), "program.%zu.host_threads", i);
			kvfile_set_u64(kv, key, p->nr_host_threads);
		}
	}
	kvfile_set_u64(kv, "blobs", m->nr_blobs);
	if (o->elastic) {
		kvfile_set(kv, "elastic", "1");
		kvfile_set(kv, "elastic.arch", arch);
	}
}

int recon_dir_write(const struct model *m, const char *dir,
		    const struct recon_dir_opts *opts)
{
	static const struct recon_dir_opts none;
	const struct recon_dir_opts *o = opts ? opts : &none;
	struct recon_elastic_stats est;
	struct strbuf scratch = STRBUF_INIT;
	char *tmp = gm_tmp_name(dir, "tmp");
	char *blobs = gm_path_join(tmp, "blobs");
	char *modules = gm_path_join(tmp, "modules");
	char *path = NULL;
	struct strbuf src = STRBUF_INIT;
	struct kvfile kv = KVFILE_INIT;
	int ret = -1;

	if (!m->finished) {
		gm_error("the model is not finished");
		goto out;
	}
	memset(&est, 0, sizeof(est));
	if (gm_path_exists(dir) && !o->force) {
		gm_error("'%s' already exists", dir);
		gm_error_hint("use --force to replace it");
		goto out;
	}
	/* --force replaces a build, never what is not one. */
	if (gm_output_may_replace(dir, GM_OUTPUT_BUILD)) {
		goto out;
	}
	/* What killed reconstructs of @dir left, then our own. */
	if (gm_tmp_remove_stale(dir, GM_TMP_DEAD) < 0 ||
	    gm_remove_tree(tmp) < 0 || gm_mkdir_p(blobs, 0777) < 0 ||
	    gm_mkdir_p(modules, 0777) < 0 ||
	    gm_output_mark(tmp, GM_OUTPUT_BUILD) < 0) {
		goto fail;
	}
	for (size_t i = 0; i < m->nr_blobs; i++) {
		const struct model_blob *b = &m->blobs[i];
		if (place(blobs, b->hash, b->path, b->bytes, b->size) < 0) {
			gm_error("blob %zu", i);
			goto fail;
		}
	}
	for (size_t i = 0; i < m->nr_progs; i++) {
		const struct model_prog *p = m->progs[i];
		for (size_t j = 0; j < p->nr_modules; j++) {
			const struct model_module *mod = &p->modules[j];
			if (place(modules, mod->hash, mod->path, NULL,
				  mod->size) < 0) {
				gm_error("program '%s': module %zu", p->name, j);
				goto fail;
			}
		}
	}
	if (o->elastic &&
	    recon_elastic_write(m, tmp, o->elastic,
				o->report ? o->report : &scratch, &est) < 0) {
		goto fail;
	}
	if (o->elastic_stats) {
		*o->elastic_stats = est;
	}
	if (codegen_write(m, &src) < 0) {
		goto fail;
	}
	path = gm_path_join(tmp, "replay.c");
	if (gm_write_file_atomic(path, src.buf, src.len, 0) < 0) {
		goto fail;
	}
	free(path);
	path = gm_path_join(tmp, "manifest");
	fill_manifest(m, &kv, o, est.arch);
	if (kvfile_write(&kv, path, "gpumix reconstruct output") < 0) {
		goto fail;
	}
	if (gm_output_remove(dir, GM_OUTPUT_BUILD) < 0) {
		goto fail;
	}
	if (rename(tmp, dir) < 0) {
		gm_error_errno("cannot rename '%s' to '%s'", tmp, dir);
		goto fail;
	}
	ret = 0;
	goto out;
fail:
	gm_error("cannot write the replay program to '%s'", dir);
	gm_remove_tree(tmp);
out:
	free(path);
	free(tmp);
	free(blobs);
	free(modules);
	strbuf_release(&src);
	strbuf_release(&scratch);
	kvfile_release(&kv);
	return ret;
}
