/* SPDX-License-Identifier: MIT */
/*
 * ptxas runner and report parser (see ptx_ptxas.h). The PTX goes to a
 * temporary file (ptxas reads files), the cubin to /dev/null (or to a
 * second temporary file when the caller wants it), and the report, which
 * ptxas prints on stdout and stderr, through a pipe.
 */
#include "ptx_ptxas.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "error.h"
#include "fs.h"
#include "run_output.h"
#include "strbuf.h"

static int executable(const char *p)
{
	return access(p, X_OK) == 0;
}

char *gm_ptxas_path(void)
{
	const char *home = getenv("CUDA_HOME");
	char *p;

	if (home && *home) {
		p = gm_xasprintf("%s/bin/ptxas", home);
		if (executable(p)) {
			return p;
		}
		free(p);
	}
	p = gm_path_search("ptxas", NULL);
	if (p) {
		return p;
	}
	if (executable("/usr/local/cuda/bin/ptxas")) {
		return gm_xstrdup("/usr/local/cuda/bin/ptxas");
	}
	gm_error("cannot find ptxas");
	gm_error_hint("set CUDA_HOME to the CUDA toolkit, or put ptxas on PATH");
	return NULL;
}

static struct gm_ptxas_func *func_for(struct gm_ptxas_report *r,
				      const char *name, int entry)
{
	for (size_t i = 0; i < r->nr; i++) {
		if (!strcmp(r->funcs[i].name, name)) {
			if (entry) {
				r->funcs[i].is_entry = 1;
			}
			return &r->funcs[i];
		}
	}
	GM_ALLOC_GROW(r->funcs, r->nr + 1, r->alloc);
	struct gm_ptxas_func *f = &r->funcs[r->nr++];
	memset(f, 0, sizeof(*f));
	f->name = gm_xstrdup(name);
	f->is_entry = entry;
	return f;
}

/* The text between the first pair of quotes in @s, or NULL. */
static char *quoted(const char *s)
{
	const char *a = strchr(s, '\'');
	const char *b = a ? strchr(a + 1, '\'') : NULL;

	if (!b) {
		return NULL;
	}
	return gm_xasprintf("%.*s", (int)(b - a - 1), a + 1);
}

/* "<prefix><number><suffix>" at @s: store the number, return 1. */
static int field(const char *s, const char *prefix, const char *suffix,
		 unsigned long *v)
{
	size_t p = strlen(prefix);
	char *end;

	if (strncmp(s, prefix, p) || s[p] < '0' || s[p] > '9') {
		return 0;
	}
	*v = strtoul(s + p, &end, 10);
	return !strncmp(end, suffix, strlen(suffix));
}

static void parse_used(struct gm_ptxas_func *f, const char *s)
{
	/* "Used 12 registers, used 1 barriers, 1024 bytes smem, 8 bytes cmem[0]" */
	while (s && *s) {
		unsigned long v;
		while (*s == ' ' || *s == ',') {
			s++;
		}
		if (field(s, "Used ", " registers", &v) ||
		    field(s, "used ", " registers", &v)) {
			f->registers = (int)v;
		} else if (field(s, "used ", " barriers", &v)) {
			f->barriers = (int)v;
		} else if (field(s, "", " bytes smem", &v)) {
			f->smem = v;
		} else if (field(s, "", " bytes cmem[0]", &v)) {
			f->cmem0 = v;
		}
		s = strchr(s, ',');
	}
}

void gm_ptxas_parse_report(const char *text, struct gm_ptxas_report *out)
{
	struct gm_ptxas_func *cur = NULL;
	const char *line = text;

	while (line && *line) {
		const char *nl = strchr(line, '\n');
		size_t n = nl ? (size_t)(nl - line) : strlen(line);
		char *l = gm_xasprintf("%.*s", (int)n, line);
		const char *body = strstr(l, "info    : ");
		unsigned long a, b, c;

		if (body) {
			body += strlen("info    : ");
		}
		if (body && !strncmp(body, "Compiling entry function", 24)) {
			char *name = quoted(body);
			if (name) {
				cur = func_for(out, name, 1);
				free(name);
			}
		} else if (body && !strncmp(body, "Function properties for ", 24)) {
			cur = func_for(out, body + 24, 0);
		} else if (body && !strncmp(body, "Used ", 5) && cur) {
			parse_used(cur, body);
		} else if (cur && sscanf(l, " %lu bytes stack frame, %lu bytes spill stores, %lu bytes spill loads",
					 &a, &b, &c) == 3) {
			cur->stack = a;
			cur->spill_stores = b;
			cur->spill_loads = c;
		}
		free(l);
		line = nl ? nl + 1 : NULL;
	}
}

const struct gm_ptxas_func *gm_ptxas_report_find(const struct gm_ptxas_report *r,
						 const char *name)
{
	for (size_t i = 0; i < r->nr; i++) {
		if (!strcmp(r->funcs[i].name, name)) {
			return &r->funcs[i];
		}
	}
	return NULL;
}

void gm_ptxas_report_release(struct gm_ptxas_report *r)
{
	for (size_t i = 0; i < r->nr; i++) {
		free(r->funcs[i].name);
	}
	free(r->funcs);
	free(r->log);
	memset(r, 0, sizeof(*r));
}

/* The first lines of ptxas output that carry an error. */
static void add_errors(struct strbuf *sb, const char *log)
{
	int n = 0;
	const char *line = log;

	while (line && *line && n < 3) {
		const char *nl = strchr(line, '\n');
		size_t len = nl ? (size_t)(nl - line) : strlen(line);
		if (memmem(line, len, "error", 5) || memmem(line, len, "fatal", 5)) {
			strbuf_addf(sb, "%s%.*s", n ? "; " : "", (int)len, line);
			n++;
		}
		line = nl ? nl + 1 : NULL;
	}
}

/* Run ptxas [-c] -arch -v on @file into @cubin; its output goes to @log. */
static int run_ptxas(const char *ptxas, const char *archopt, int reloc,
		     const char *file, const char *cubin, struct strbuf *log,
		     int *status)
{
	const char *argv[] = { ptxas, archopt, "-v", file, "-o", cubin, NULL,
			       NULL };

	if (reloc) {
		/* ptxas -c ARCH -v FILE -o CUBIN */
		memmove(&argv[2], &argv[1], 6 * sizeof(argv[0]));
		argv[1] = "-c";
	}
	return gm_run_output((char *const *)argv, log, status);
}

int gm_ptxas_assemble(const char *ptx, size_t len, const char *arch,
		      struct gm_ptxas_report *out)
{
	return gm_ptxas_assemble_cubin(ptx, len, arch, out, NULL);
}

int gm_ptxas_assemble_cubin(const char *ptx, size_t len, const char *arch,
			    struct gm_ptxas_report *out, struct strbuf *cubin)
{
	const char *tmpdir = getenv("TMPDIR");
	char *ptxas = NULL, *tmp = NULL, *archopt = NULL, *bin = NULL;
	struct strbuf log = STRBUF_INIT;
	int fd = -1, ret = -1, status = 0, reloc = 0;

	ptxas = gm_ptxas_path();
	if (!ptxas) {
		return -1;
	}
	tmp = gm_xasprintf("%s/gpumix-ptx.XXXXXX.ptx",
			   tmpdir && *tmpdir ? tmpdir : "/tmp");
	fd = mkstemps(tmp, 4);
	if (fd < 0) {
		gm_error_errno("cannot create a temporary file '%s'", tmp);
		free(tmp);
		tmp = NULL;
		goto out;
	}
	if (gm_write_all(fd, ptx, len) < 0 || close(fd) < 0) {
		fd = -1;
		gm_error_errno("cannot write '%s'", tmp);
		goto out;
	}
	fd = -1;
	if (cubin) {
		/* Next to the PTX: the same unique stem, another suffix. */
		bin = gm_xasprintf("%.*s.cubin", (int)(strlen(tmp) - 4), tmp);
	}
	archopt = gm_xasprintf("-arch=%s", arch);
	if (run_ptxas(ptxas, archopt, 0, tmp, bin ? bin : "/dev/null", &log,
		      &status) < 0) {
		goto out;
	}
	/* Separately compiled code (-rdc) links later: assemble it alone. */
	if ((!WIFEXITED(status) || WEXITSTATUS(status) != 0) &&
	    strstr(log.buf, "Unresolved extern function")) {
		strbuf_reset(&log);
		reloc = 1;
		if (run_ptxas(ptxas, archopt, 1, tmp, bin ? bin : "/dev/null",
			      &log, &status) < 0) {
			goto out;
		}
	}
	out->log = strbuf_detach(&log, NULL);
	if (!WIFEXITED(status) || WEXITSTATUS(status) != 0) {
		struct strbuf why = STRBUF_INIT;
		add_errors(&why, out->log);
		gm_error("ptxas %s failed%s%s", archopt, why.len ? ": " : "",
			 why.buf);
		strbuf_release(&why);
		goto out;
	}
	gm_ptxas_parse_report(out->log, out);
	/* A relocatable object cannot be loaded alone: no cubin then. */
	if (bin && !reloc && gm_read_file(bin, cubin) < 0) {
		gm_error("cannot read the cubin ptxas wrote");
		goto out;
	}
	ret = 0;
out:
	if (fd >= 0) {
		close(fd);
	}
	if (tmp) {
		unlink(tmp);
	}
	if (bin) {
		unlink(bin);
		free(bin);
	}
	strbuf_release(&log);
	free(tmp);
	free(archopt);
	free(ptxas);
	return ret;
}
