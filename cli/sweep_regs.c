/* SPDX-License-Identifier: MIT */
/*
 * A kernel's captured PTX with its registers capped, reassembled
 * (sweep_regs.h). The cap is PTX's per-entry .maxnreg rather than
 * ptxas -maxrregcount, which would cap every kernel of the module: the
 * sweep changes one kernel at a time.
 */
#include "sweep_regs.h"

#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "error.h"
#include "fs.h"
#include "reconstruct/ptx/fatbin.h"
#include "reconstruct/ptx/ptx_ptxas.h"
#include "strbuf.h"

/* The PTX of module image @img for @arch into @ptx: the text itself, or
 * a fatbin's PTX entry. 0, or 1 when it has none. */
static int module_ptx(const struct strbuf *img, unsigned arch,
		      struct strbuf *ptx)
{
	struct gm_fatbin fb;
	long e;
	int ret = 1;

	if (!gm_fatbin_is_fatbin(img->buf, img->len) &&
	    !gm_fatbin_is_elf(img->buf, img->len)) {
		strbuf_add(ptx, img->buf, img->len);
		return 0;
	}
	memset(&fb, 0, sizeof(fb));
	if (gm_fatbin_from_image(img->buf, img->len, &fb) == 0 &&
	    (e = gm_fatbin_pick_ptx(&fb, arch)) >= 0 &&
	    gm_fatbin_entry_data(&fb.entries[e], ptx) == 0) {
		ret = 0;
	}
	gm_error_clear();
	gm_fatbin_release(&fb);
	return ret;
}

/* Where entry @kernel's body starts in @ptx ('{' after ".entry NAME(...)"),
 * or NULL when @ptx has no such entry. */
static char *entry_body(char *ptx, const char *kernel)
{
	size_t len = strlen(kernel);

	for (char *p = strstr(ptx, ".entry "); p; p = strstr(p + 1, ".entry ")) {
		char *n = p + strlen(".entry ");
		while (*n == ' ' || *n == '\t') {
			n++;
		}
		if (!strncmp(n, kernel, len) &&
		    (n[len] == '(' || n[len] == ' ' || n[len] == '\t' ||
		     n[len] == '\n' || n[len] == '\r')) {
			return strchr(n + len, '{');
		}
	}
	return NULL;
}

int gm_sweep_regs_module(const char *build, const char *kernel,
			 const char *arch, int cap, const char *out,
			 int *regs)
{
	char *dir = gm_path_join(build, "modules");
	DIR *d = opendir(dir);
	struct dirent *de;
	struct strbuf ptx = STRBUF_INIT, capped = STRBUF_INIT;
	struct strbuf cubin = STRBUF_INIT;
	struct gm_ptxas_report rep;
	char *body = NULL;
	int ret = 1;

	memset(&rep, 0, sizeof(rep));
	if (!d) {
		ret = gm_error_errno("cannot read '%s'", dir);
		goto out;
	}
	while (!body && (de = readdir(d))) {
		struct strbuf img = STRBUF_INIT;
		char *path;
		if (de->d_name[0] == '.') {
			continue;
		}
		path = gm_path_join(dir, de->d_name);
		strbuf_reset(&ptx);
		if (gm_read_file(path, &img) == 0 &&
		    module_ptx(&img, (unsigned)atoi(arch + 3), &ptx) == 0) {
			body = entry_body(ptx.buf, kernel);
		}
		gm_error_clear();
		strbuf_release(&img);
		free(path);
	}
	closedir(d);
	if (!body) {
		goto out;
	}
	/* A performance-tuning directive goes between the parameters and
	 * the body; an entry's own .maxnreg (rare) would conflict. */
	strbuf_add(&capped, ptx.buf, (size_t)(body - ptx.buf));
	strbuf_addf(&capped, ".maxnreg %d\n", cap);
	strbuf_addstr(&capped, body);
	if (gm_ptxas_assemble_cubin(capped.buf, capped.len, arch, &rep,
				    &cubin) < 0) {
		ret = gm_error("cannot reassemble '%s' at %d registers per "
			       "thread", kernel, cap);
		goto out;
	}
	if (!cubin.len) {
		ret = gm_error("ptxas made no cubin of the module of '%s' (it "
			       "calls external functions)", kernel);
		goto out;
	}
	{
		const struct gm_ptxas_func *f = gm_ptxas_report_find(&rep, kernel);
		if (!f) {
			ret = gm_error("ptxas's report has no '%s'", kernel);
			goto out;
		}
		*regs = f->registers;
	}
	ret = gm_write_file_atomic(out, cubin.buf, cubin.len, 1) < 0 ? -1 : 0;
out:
	gm_ptxas_report_release(&rep);
	strbuf_release(&ptx);
	strbuf_release(&capped);
	strbuf_release(&cubin);
	free(dir);
	return ret;
}
