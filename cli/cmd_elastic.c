/* SPDX-License-Identifier: MIT */
/*
 * gpumix elastic: classify and transform the kernels of a PTX module, a
 * fatbin, an executable or shared object with device code, or the modules
 * of a capture bundle, and report each kernel's class with its registers
 * and shared memory before and after the transformation (from ptxas).
 */
#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "atomic_file.h"
#include "cli.h"
#include "error.h"
#include "fs.h"
#include "reconstruct/ptx/elastic_build.h"
#include "reconstruct/ptx/fatbin.h"
#include "reconstruct/ptx/ptx_analysis.h"
#include "reconstruct/ptx/ptx_elastic.h"
#include "reconstruct/ptx/ptx_ptxas.h"
#include "strbuf.h"

static const char usage[] =
	"usage: gpumix elastic [-o <out>] [-f] [--arch <sm_NN>] [--no-assemble]\n"
	"                      [--block-only] [--no-register-cap] <file> | <bundle>\n"
	"   or: gpumix elastic --list <file>";

static const char help[] =
	"\n"
	"Make the kernels of <file> (a .ptx file, a fatbin, or an executable or\n"
	"shared object with a .nv_fatbin section) or of every module of a capture\n"
	"<bundle> (its modules/ directory) elastic, and print per kernel its class\n"
	"(thread-elastic, block-elastic, or not-elastic with the reason) and its\n"
	"registers and static shared memory before and after, as reported by\n"
	"ptxas (found through CUDA_HOME or PATH). Kernels that are not elastic\n"
	"are kept unmodified.\n"
	"\n"
	"options:\n"
	"  -o, --output <out>\n"
	"                    write the transformed PTX to <out> ('-': stdout);\n"
	"                    with several PTX modules <out> is a directory that\n"
	"                    receives one <module>.ptx each\n"
	"  -f, --force       overwrite existing output files\n"
	"  --arch <sm_NN>    target of ptxas, and which PTX of a fatbin to use\n"
	"                    (default sm_90)\n"
	"  --no-assemble     do not run ptxas (no register columns)\n"
	"  --block-only      never resize thread blocks\n"
	"  --no-register-cap keep ptxas's register choice (by default, a kernel\n"
	"                    whose registers would lower its occupancy is capped\n"
	"                    at max(32, the original's rounded up to 8), and one\n"
	"                    that spills under its own .maxnreg gets it raised\n"
	"                    within the same occupancy)\n"
	"  --list            list the entries of the fatbins in <file> (kind,\n"
	"                    architecture, compression, sizes) and stop\n"
	"\n"
	"exit status: 0 success; 1 error (unreadable input, a module that does\n"
	"not assemble before or after); 2 usage error.\n";

struct module {
	char *label;		/* where it came from, for the table */
	char *name;		/* output file name stem */
	struct strbuf ptx;
};

struct modules {
	struct module *v;
	size_t nr, alloc;
};

static struct module *add_module(struct modules *ms, const char *label,
				 const char *name)
{
	GM_ALLOC_GROW(ms->v, ms->nr + 1, ms->alloc);
	struct module *m = &ms->v[ms->nr++];
	m->label = gm_xstrdup(label);
	m->name = gm_xstrdup(name);
	strbuf_init(&m->ptx, 0);
	return m;
}

static const char *base_name(const char *path)
{
	const char *s = strrchr(path, '/');

	return s && s[1] ? s + 1 : path;
}

/* Strip a known extension from @name (in place). */
static void strip_ext(char *name)
{
	static const char *const exts[] = { ".ptx", ".fatbin", ".out", ".so",
					    NULL };
	size_t n = strlen(name);

	for (int i = 0; exts[i]; i++) {
		size_t e = strlen(exts[i]);
		if (n > e && !strcmp(name + n - e, exts[i])) {
			name[n - e] = '\0';
			return;
		}
	}
}

/* The PTX modules of one file: itself, or one per fatbin it holds. */
static int collect_file(const char *path, unsigned sm, struct modules *ms,
			int quiet_if_none)
{
	struct strbuf sb = STRBUF_INIT;
	struct gm_fatbin fb;
	char *stem = gm_xstrdup(base_name(path));
	int ret = -1;

	strip_ext(stem);
	memset(&fb, 0, sizeof(fb));
	if (gm_read_file(path, &sb) < 0) {
		goto out;
	}
	if (!gm_fatbin_is_elf(sb.buf, sb.len) &&
	    !gm_fatbin_is_fatbin(sb.buf, sb.len) &&
	    !(sb.len >= 4 && *(const uint32_t *)sb.buf == GM_FATBIN_WRAPPER_MAGIC)) {
		struct module *m = add_module(ms, path, stem);
		strbuf_add(&m->ptx, sb.buf, sb.len);
		ret = 0;
		goto out;
	}
	if (gm_fatbin_from_image(sb.buf, sb.len, &fb) < 0) {
		gm_error("cannot read device code from '%s'", path);
		goto out;
	}
	size_t found = 0;
	for (size_t c = 0; c < fb.nr_containers; c++) {
		struct gm_fatbin sub = fb;
		struct gm_fatbin_entry *only = NULL;
		size_t n = 0;
		/* pick per fatbin: a program built from several .cu files has several */
		for (size_t i = 0; i < fb.nr; i++) {
			if (fb.entries[i].container == c) {
				n++;
			}
		}
		only = gm_xcalloc(n + 1, sizeof(*only));
		n = 0;
		for (size_t i = 0; i < fb.nr; i++) {
			if (fb.entries[i].container == c) {
				only[n++] = fb.entries[i];
			}
		}
		sub.entries = only;
		sub.nr = n;
		long k = gm_fatbin_pick_ptx(&sub, sm);
		if (k >= 0) {
			char label[512], name[256];
			snprintf(label, sizeof(label),
				 "%s (fatbin %zu, compute_%u PTX at offset %zu)",
				 path, c, only[k].arch, only[k].offset);
			if (found || fb.nr_containers > 1) {
				snprintf(name, sizeof(name), "%s.%zu", stem, c);
			} else {
				snprintf(name, sizeof(name), "%s", stem);
			}
			struct module *m = add_module(ms, label, name);
			if (gm_fatbin_entry_data(&only[k], &m->ptx) < 0) {
				free(only);
				gm_error("cannot read device code from '%s'", path);
				goto out;
			}
			found++;
		}
		free(only);
	}
	if (!found && !quiet_if_none) {
		gm_error("'%s' holds no PTX (only SASS): nothing to transform",
			 path);
		goto out;
	}
	ret = 0;
out:
	gm_fatbin_release(&fb);
	strbuf_release(&sb);
	free(stem);
	return ret;
}

static const char *const compression_names[] = { "raw", "lz4", "zstd" };

/* gpumix elastic --list: the entries of every fatbin of @path. */
static int list_file(const char *path)
{
	struct strbuf sb = STRBUF_INIT;
	struct gm_fatbin fb;
	int ret = -1;

	memset(&fb, 0, sizeof(fb));
	if (gm_read_file(path, &sb) < 0) {
		goto out;
	}
	if (gm_fatbin_from_image(sb.buf, sb.len, &fb) < 0) {
		gm_error("cannot read device code from '%s'", path);
		goto out;
	}
	printf("%-7s %-5s %-5s %-12s %-5s %10s %10s %10s\n", "fatbin", "entry",
	       "kind", "arch", "comp", "offset", "size", "raw-size");
	for (size_t i = 0; i < fb.nr; i++) {
		const struct gm_fatbin_entry *e = &fb.entries[i];
		char arch[32];
		const char *kind = e->kind == GM_FATBIN_PTX ? "ptx"
				   : e->kind == GM_FATBIN_ELF ? "elf" : "other";
		snprintf(arch, sizeof(arch), "%s_%u",
			 e->kind == GM_FATBIN_PTX ? "compute" : "sm", e->arch);
		printf("%-7zu %-5zu %-5s %-12s %-5s %10zu %10zu %10zu\n",
		       e->container, i, kind, arch,
		       compression_names[e->compression], e->offset, e->size,
		       e->uncompressed_size);
	}
	fflush(stdout);
	ret = 0;
out:
	gm_fatbin_release(&fb);
	strbuf_release(&sb);
	return ret;
}

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The modules of a capture bundle: every file of <bundle>/modules. */
static int collect_bundle(const char *dir, unsigned sm, struct modules *ms)
{
	char *mdir = gm_path_join(dir, "modules");
	DIR *d = opendir(mdir);
	char **names = NULL;
	size_t nr = 0, alloc = 0;
	int ret = -1;

	if (!d) {
		gm_error_errno("cannot open '%s'", mdir);
		gm_error_hint("a bundle is a directory made by 'gpumix capture'");
		free(mdir);
		return -1;
	}
	struct dirent *e;
	while ((e = readdir(d))) {
		if (e->d_name[0] == '.') {
			continue;
		}
		GM_ALLOC_GROW(names, nr + 1, alloc);
		names[nr++] = gm_path_join(mdir, e->d_name);
	}
	closedir(d);
	if (nr) {
		qsort(names, nr, sizeof(*names), cmp_str);
	}
	ret = 0;
	for (size_t i = 0; i < nr; i++) {
		if (gm_is_dir(names[i])) {
			continue;
		}
		if (collect_file(names[i], sm, ms, 1) < 0) {
			ret = -1;
			break;
		}
	}
	for (size_t i = 0; i < nr; i++) {
		free(names[i]);
	}
	free(names);
	free(mdir);
	if (!ret && !ms->nr) {
		ret = gm_error("no PTX in the modules of '%s'", dir);
	}
	return ret;
}

static void print_usage_row(const struct gm_ptxas_func *f, int assemble)
{
	if (!assemble) {
		printf("  %5s %6s", "-", "-");
	} else if (f) {
		printf("  %5d %6lu", f->registers, f->smem);
	} else {
		printf("  %5s %6s", "?", "?");
	}
}

struct totals {
	size_t kernels, thread, block, none;
};

/* Transform one module, print its table; @out receives the new PTX. */
static int do_module(struct module *mod, const char *arch, int assemble,
		     int cap, int block_only, struct strbuf *out,
		     struct totals *tot)
{
	struct gm_elastic_build_opts o = {
		.arch = arch,
		.assemble = assemble,
		.register_cap = cap,
		.block_only = block_only,
	};
	struct gm_elastic_build b = { 0 };

	if (gm_elastic_build(mod->ptx.buf, mod->ptx.len, mod->label, &o,
			     &b) < 0) {
		gm_elastic_build_release(&b);
		return -1;
	}
	printf("# %s\n", mod->label);
	printf("%-40s %-15s %5s %6s  %5s %6s  %s\n", "kernel", "class", "regs",
	       "smem", "regs'", "smem'", "reason");
	for (size_t i = 0; i < b.nr_kernels; i++) {
		const struct gm_elastic_build_kernel *k = &b.kernels[i];
		printf("%-40s %-15s", k->name, gm_elastic_class_name(k->cls));
		print_usage_row(gm_ptxas_report_find(&b.before, k->name), assemble);
		print_usage_row(gm_ptxas_report_find(&b.after, k->name), assemble);
		printf("  %s\n", k->reason[0] ? k->reason : "-");
		tot->kernels++;
		if (k->cls == GM_ELASTIC_THREAD) {
			tot->thread++;
		} else if (k->cls == GM_ELASTIC_BLOCK) {
			tot->block++;
		} else {
			tot->none++;
		}
	}
	strbuf_add(out, b.ptx.buf, b.ptx.len);
	gm_elastic_build_release(&b);
	return 0;
}

/*
 * One PTX file per module in directory @dir, all or nothing: every name
 * is checked (none may exist without @force, no two modules may share
 * one) and every file written and synced under a temporary name before
 * any is renamed into place; on failure nothing new is left, not even
 * @dir when this call created it.
 */
static int write_modules(const char *dir, const struct modules *ms,
			 const struct strbuf *outs, int force)
{
	struct atomic_file *af = gm_xcalloc(ms->nr, sizeof(*af));
	int created = !gm_path_exists(dir);
	size_t opened = 0;
	int ret = -1;

	for (size_t i = 0; i < ms->nr; i++) {
		for (size_t j = 0; j < i; j++) {
			if (!strcmp(ms->v[i].name, ms->v[j].name)) {
				gm_error("two modules would be written to '%s/%s.ptx' "
					 "(%s and %s)", dir, ms->v[i].name,
					 ms->v[j].label, ms->v[i].label);
				goto out;
			}
		}
	}
	if (gm_mkdir_p(dir, 0777) < 0) {
		goto out;
	}
	for (; opened < ms->nr; opened++) {
		char *name = gm_xasprintf("%s.ptx", ms->v[opened].name);
		char *p = gm_path_join(dir, name);
		int r = atomic_file_open(&af[opened], p, force);
		free(p);
		free(name);
		if (r < 0) {
			goto out;
		}
	}
	for (size_t i = 0; i < ms->nr; i++) {
		if (atomic_file_write(&af[i], outs[i].buf, outs[i].len) < 0 ||
		    atomic_file_sync(&af[i]) < 0) {
			goto out;
		}
	}
	for (size_t i = 0; i < ms->nr; i++) {
		/* (after a failure here the rest are aborted below) */
		if (atomic_file_commit(&af[i]) < 0) {
			for (size_t j = i + 1; j < ms->nr; j++) {
				atomic_file_abort(&af[j]);
			}
			opened = 0;
			goto out;
		}
	}
	opened = 0;
	ret = 0;
out:
	for (size_t i = 0; i < opened; i++) {
		atomic_file_abort(&af[i]);
	}
	if (ret < 0 && created) {
		rmdir(dir);	/* only when empty: nothing of ours is in it */
	}
	free(af);
	return ret;
}

static int write_output(const char *path, const struct strbuf *sb, int force)
{
	if (!strcmp(path, "-")) {
		if (fwrite(sb->buf, 1, sb->len, stdout) != sb->len ||
		    fflush(stdout)) {
			return gm_error_errno("cannot write the PTX to stdout");
		}
		return 0;
	}
	return gm_write_file_atomic(path, sb->buf, sb->len, force);
}

enum { OPT_ARCH = 256, OPT_NO_ASSEMBLE, OPT_BLOCK_ONLY, OPT_LIST,
       OPT_NO_REGISTER_CAP };

static const struct option elastic_longopts[] = {
	{ "output", required_argument, NULL, 'o' },
	{ "force", no_argument, NULL, 'f' },
	{ "arch", required_argument, NULL, OPT_ARCH },
	{ "no-assemble", no_argument, NULL, OPT_NO_ASSEMBLE },
	{ "block-only", no_argument, NULL, OPT_BLOCK_ONLY },
	{ "no-register-cap", no_argument, NULL, OPT_NO_REGISTER_CAP },
	{ "list", no_argument, NULL, OPT_LIST },
	{ NULL, 0, NULL, 0 },
};

const struct gm_cmd_options gm_elastic_options = {
	.shorts = "o:f",
	.longopts = elastic_longopts,
};

int cmd_elastic(int argc, char **argv)
{
	struct gm_opt_parser op;
	const char *outpath = NULL, *arch = "sm_90", *input = NULL;
	int assemble = 1, force = 0, list = 0, cap = 1, ret = GM_EXIT_ERROR;
	int block_only = 0, c;
	struct modules ms = { 0 };
	struct strbuf *outs = NULL;
	struct totals tot = { 0 };
	unsigned sm = 0;

	gm_opt_init(&op, &gm_elastic_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		switch (c) {
		case GM_OPT_HELP:
			printf("%s\n%s", usage, help);
			return GM_EXIT_OK;
		case 'o':
			outpath = op.arg;
			break;
		case OPT_ARCH:
			arch = op.arg;
			break;
		case 'f':
			force = 1;
			break;
		case OPT_NO_ASSEMBLE:
			assemble = 0;
			break;
		case OPT_BLOCK_ONLY:
			block_only = 1;
			break;
		case OPT_LIST:
			list = 1;
			break;
		case OPT_NO_REGISTER_CAP:
			cap = 0;
			break;
		default:
			return GM_EXIT_USAGE;
		}
	}
	if (op.ind + 1 < argc) {
		return gm_usage_error(usage, "more than one input");
	}
	if (op.ind < argc) {
		input = argv[op.ind];
	}
	if (!input) {
		return gm_usage_error(usage, "no input");
	}
	if (sscanf(arch, "sm_%u", &sm) != 1 || sm < 50) {
		return gm_usage_error(usage, "bad --arch '%s' (expected sm_NN)",
				      arch);
	}
	if (list) {
		return list_file(input) < 0 ? gm_cli_fail() : GM_EXIT_OK;
	}
	if (gm_is_dir(input) ? collect_bundle(input, sm, &ms) < 0
			     : collect_file(input, sm, &ms, 0) < 0) {
		goto out;
	}
	outs = gm_xcalloc(ms.nr, sizeof(*outs));
	for (size_t i = 0; i < ms.nr; i++) {
		strbuf_init(&outs[i], 0);
		if (i) {
			putchar('\n');
		}
		if (do_module(&ms.v[i], arch, assemble, cap, block_only, &outs[i],
			      &tot) < 0) {
			goto out;
		}
	}
	fflush(stdout);
	if (outpath && ms.nr == 1) {
		if (write_output(outpath, &outs[0], force) < 0) {
			goto out;
		}
	} else if (outpath) {
		if (!strcmp(outpath, "-")) {
			gm_error("%zu PTX modules: -o needs a directory", ms.nr);
			goto out;
		}
		if (write_modules(outpath, &ms, outs, force) < 0) {
			goto out;
		}
	}
	gm_note("%zu kernels: %zu thread-elastic, %zu block-elastic, %zu not elastic",
		tot.kernels, tot.thread, tot.block, tot.none);
	ret = GM_EXIT_OK;
out:
	for (size_t i = 0; i < ms.nr; i++) {
		free(ms.v[i].label);
		free(ms.v[i].name);
		strbuf_release(&ms.v[i].ptx);
		if (outs) {
			strbuf_release(&outs[i]);
		}
	}
	free(outs);
	free(ms.v);
	if (ret != GM_EXIT_OK) {
		return gm_cli_fail();
	}
	return ret;
}
