/* SPDX-License-Identifier: MIT */
/*
 * gpumix replay: build the generated replay program of a reconstruct
 * output directory against libgpumix-replay (when it is missing or older
 * than its source or the library) and run it on the GPU, which writes a
 * run directory (doc/run-directory.md). The compiler is $CC (default
 * cc); headers and libraries are found next to this gpumix binary (see
 * doc/gpumix-replay.md); CUDA is $CUDA_HOME or the one gpumix was built
 * with.
 */
#include <dlfcn.h>
#include <errno.h>
#include <getopt.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cli.h"
#include "error.h"
#include "file_lock.h"
#include "fs.h"
#include "kvfile.h"
#include "reconstruct/recon_dir.h"
#include "replay_opts.h"
#include "run_command.h"
#include "strbuf.h"
#include "tmp_name.h"

#ifndef GM_CUDA_HOME
#define GM_CUDA_HOME "/usr/local/cuda"
#endif
#ifndef GM_REPLAY_LIBS
#define GM_REPLAY_LIBS ""
#endif

static const char usage[] =
	"usage: gpumix replay [--variant V] [-o RUNDIR] [--one-shot]\n"
	"                     [--min-replays R] [--watchdog SECONDS] [--force]\n"
	"                     [--no-profile] [--warm-host] [--build-only] [--rebuild]\n"
	"                     [--host-callbacks empty|timed]\n"
	"                     [--addresses captured|relocated]\n"
	"                     [--host-time captured|none] [--max-host-gap SECONDS]\n"
	"                     [--arrivals PROGRAM=SPEC [--requests N]\n"
	"                     [--arrival-seed N] [--slo Nx|Nms]\n"
	"                     [--arrivals-label LABEL] [--alone RUNDIR]]\n"
	"                     [--policy P] [--timeslice-us US] [--copy-chunk BYTES]\n"
	"                     [--completion event|poll] [--high-priority PROGRAM]\n"
	"                     [--sm-share PROGRAM=SHARE,... | --scale KNEES]\n"
	"                     [--mps-threads PCT|NAME=PCT,...]\n"
	"                     [--repetition R] [--study-seed N] [--probe blocks]\n"
	"                     [--elastic MODE [--elastic-slice BLOCKS]] DIR";

static void print_help(void)
{
	printf("%s\n\n"
	       "Build the replay program in DIR (written by gpumix reconstruct) "
	       "and run\nit on the GPU under a variant, writing a run "
	       "directory.\n\n", usage);
	gm_replay_opts_help(stdout);
	printf("  --build-only          build DIR/replay, do not run it\n"
	       "  --rebuild             build even when DIR/replay is up to "
	       "date\n"
	       "\n"
	       "environment: CC (compiler, default cc), CUDA_HOME, "
	       "GPUMIX_REPLAY_INCLUDE\n"
	       "and GPUMIX_REPLAY_LIBDIR (where gpumix_replay.h and "
	       "libgpumix-replay.a are).\n"
	       "\n"
	       "exit status: 0 ok; 1 error, failed or hung replay; 2 usage "
	       "error;\n4 a --smem-pad or --kernel-module point that cannot "
	       "exist (a cooperative\nlaunch it leaves too few blocks per SM); "
	       "130 interrupted.\n");
}

struct replay_opts {
	const char *dir;
	struct gm_replay_opts r;	/* checked here, forwarded as given */
	char **fwd;			/* the option words to forward */
	int nr_fwd;
	int nr_owned;			/* words[1 .. nr_owned - 1] are ours */
	int build_only, rebuild;
};

static char *self_dir(void)
{
	char buf[4096];
	ssize_t n = readlink("/proc/self/exe", buf, sizeof(buf) - 1);
	char *slash;

	if (n <= 0) {
		return NULL;
	}
	buf[n] = 0;
	slash = strrchr(buf, '/');
	if (slash) {
		*slash = 0;
	}
	return gm_xstrdup(buf);
}

/*
 * Where the header and the libraries are: the environment, an installed
 * layout (PREFIX/bin/gpumix with PREFIX/include/gpumix and
 * PREFIX/lib/gpumix), or the build tree (TOP/build/gpumix with
 * TOP/replay and TOP/build).
 */
static int find_toolchain(char **inc, char **lib)
{
	const char *ei = getenv("GPUMIX_REPLAY_INCLUDE");
	const char *el = getenv("GPUMIX_REPLAY_LIBDIR");
	char *self = self_dir();
	char *cand_inc[2] = { NULL, NULL }, *cand_lib[2] = { NULL, NULL };
	int ret = -1;

	if (ei && el) {
		*inc = gm_xstrdup(ei);
		*lib = gm_xstrdup(el);
		free(self);
		return 0;
	}
	if (!self) {
		return gm_error_errno("cannot find the gpumix binary");
	}
	cand_inc[0] = gm_xasprintf("%s/../include/gpumix", self);
	cand_lib[0] = gm_xasprintf("%s/../lib/gpumix", self);
	cand_inc[1] = gm_xasprintf("%s/../replay", self);
	cand_lib[1] = gm_xstrdup(self);
	for (int i = 0; i < 2; i++) {
		char *h = gm_path_join(cand_inc[i], "gpumix_replay.h");
		char *a = gm_path_join(cand_lib[i], "libgpumix-replay.a");
		int ok = gm_path_exists(h) && gm_path_exists(a);
		free(h);
		free(a);
		if (ok) {
			*inc = gm_xstrdup(ei ? ei : cand_inc[i]);
			*lib = gm_xstrdup(el ? el : cand_lib[i]);
			ret = 0;
			break;
		}
	}
	if (ret < 0) {
		gm_error("cannot find gpumix_replay.h and libgpumix-replay.a "
			 "near '%s'", self);
		gm_error_hint("build with make, install with make install, or "
			      "set GPUMIX_REPLAY_INCLUDE and GPUMIX_REPLAY_LIBDIR");
	}
	for (int i = 0; i < 2; i++) {
		free(cand_inc[i]);
		free(cand_lib[i]);
	}
	free(self);
	return ret;
}

static int mtime(const char *path, struct timespec *ts)
{
	struct stat st;

	if (stat(path, &st) < 0) {
		return -1;
	}
	*ts = st.st_mtim;
	return 0;
}

static int older(const struct timespec *a, const struct timespec *b)
{
	return a->tv_sec < b->tv_sec ||
	       (a->tv_sec == b->tv_sec && a->tv_nsec < b->tv_nsec);
}

/* Run @argv; returns its exit status, 128 + signal, or -1 (cause). */
static int run(char *const *argv)
{
	/* Killed with us (a study stopping this stage kills us). */
	struct gm_run_command c = { .argv = argv, .search_path = 1,
				    .death_signal = SIGTERM };
	struct gm_run_result r;

	if (gm_run_command(&c, &r, NULL, NULL)) {
		if (!r.not_run) {
			return -1;
		}
		/* As a shell would: the reason, and 127. */
		fprintf(stderr, "error: %s\n", gm_error_message());
		gm_error_clear();
		return 127;
	}
	return r.signal ? 128 + r.signal : r.exit_code;
}

struct argv_buf {
	char **v;
	size_t nr, alloc;
};

static void push(struct argv_buf *a, const char *s)
{
	GM_ALLOC_GROW(a->v, a->nr + 2, a->alloc);
	a->v[a->nr++] = s ? gm_xstrdup(s) : NULL;
	a->v[a->nr] = NULL;
}

static void pushf(struct argv_buf *a, const char *fmt, const char *arg)
{
	char *s = gm_xasprintf(fmt, arg);
	push(a, s);
	free(s);
}

static void push_words(struct argv_buf *a, const char *words)
{
	char *copy = gm_xstrdup(words), *save = NULL;

	for (char *w = strtok_r(copy, " \t", &save); w;
	     w = strtok_r(NULL, " \t", &save)) {
		push(a, w);
	}
	free(copy);
}

static void argv_release(struct argv_buf *a)
{
	for (size_t i = 0; i < a->nr; i++) {
		free(a->v[i]);
	}
	free(a->v);
	a->v = NULL;
	a->nr = a->alloc = 0;
}

static void print_argv(const struct argv_buf *a)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; i < a->nr; i++) {
		strbuf_addf(&sb, "%s%s", i ? " " : "", a->v[i]);
	}
	gm_note("%s", sb.buf);
	strbuf_release(&sb);
}

/* 1 when @exe is newer than its source @src and the library @lib_a. */
static int up_to_date(const char *exe, const char *src, const char *lib_a)
{
	struct timespec t_src, t_exe, t_lib;

	return !mtime(src, &t_src) && !mtime(exe, &t_exe) &&
	       !mtime(lib_a, &t_lib) && !older(&t_exe, &t_src) &&
	       !older(&t_exe, &t_lib);
}

static void on_waiting(void *arg, const char *lock)
{
	gm_note("replay: waiting for another gpumix building '%s' (lock '%s')",
		(const char *)arg, lock);
}

/*
 * Builds of one program exclude each other (the lock of DIR/replay,
 * taken across hosts sharing the directory), so the holder knows that
 * every DIR/replay.tmp-PID is a killed build's and removes it. Without
 * a build to do, the leftovers go too when no one holds the lock (and a
 * directory where it cannot be made is left alone).
 */
static void remove_leftovers(const char *exe)
{
	struct gm_file_lock l;
	struct gm_file_lock_wait nowait = { 0, NULL, NULL };
	int r = gm_file_lock_take(&l, exe, 0, &nowait);

	if (r == 0 && gm_tmp_remove_stale(exe, GM_TMP_ANY) < 0) {
		gm_warning("%s", gm_error_message());
	}
	gm_error_clear();
	gm_file_lock_release(&l);
}

static int build(const char *dir, int rebuild)
{
	char *inc = NULL, *lib = NULL, *lib_a = NULL;
	char *src = gm_path_join(dir, "replay.c");
	char *exe = gm_path_join(dir, "replay");
	char *tmp = gm_tmp_name(exe, "tmp");
	const char *cc = getenv("CC");
	const char *cuda = getenv("CUDA_HOME");
	struct timespec t_src;
	struct argv_buf a = { NULL, 0, 0 };
	struct gm_file_lock lock = GM_FILE_LOCK_INIT;
	struct gm_file_lock_wait w = { 1, on_waiting, exe };
	int ret = -1, st;

	if (!cc || !*cc) {
		cc = "cc";
	}
	if (!cuda || !*cuda) {
		cuda = GM_CUDA_HOME;
	}
	if (find_toolchain(&inc, &lib) < 0) {
		goto out;
	}
	lib_a = gm_path_join(lib, "libgpumix-replay.a");
	if (mtime(src, &t_src) < 0) {
		gm_error_errno("cannot read '%s'", src);
		goto out;
	}
	if (!rebuild && up_to_date(exe, src, lib_a)) {
		remove_leftovers(exe);
		ret = 0;
		goto out;
	}
	if (gm_file_lock_take(&lock, exe, 0, &w) ||
	    gm_tmp_remove_stale(exe, GM_TMP_ANY) < 0) {
		gm_error("cannot build the replay program '%s'", src);
		goto out;
	}
	/* Another gpumix may have built it while we waited. */
	if (!rebuild && up_to_date(exe, src, lib_a)) {
		ret = 0;
		goto out;
	}
	push_words(&a, cc);
	push(&a, "-std=c11");
	push(&a, "-O1");
	pushf(&a, "-I%s", inc);
	pushf(&a, "-I%s/include", cuda);
	push(&a, "-o");
	push(&a, tmp);
	push(&a, src);
	pushf(&a, "-L%s", lib);
	push(&a, "-lgpumix-replay");
	push(&a, "-lgpumix-common");
	pushf(&a, "-L%s/lib64", cuda);
	pushf(&a, "-L%s/lib64/stubs", cuda);
	pushf(&a, "-Wl,-rpath,%s/lib64", cuda);
	push(&a, "-lcupti");
	push(&a, "-lcuda");
	push_words(&a, GM_REPLAY_LIBS);
	push(&a, "-lpthread");
	push(&a, "-lm");
	gm_note("replay: building '%s'", exe);
	if (gm_cli.verbosity > 0) {
		print_argv(&a);
	}
	st = run(a.v);
	if (st != 0) {
		unlink(tmp);
		if (st > 0) {
			gm_error("%s exited with status %d", a.v[0], st);
		}
		gm_error("cannot build the replay program '%s'", src);
		goto out;
	}
	if (rename(tmp, exe) < 0) {
		gm_error_errno("cannot rename '%s' to '%s'", tmp, exe);
		unlink(tmp);
		goto out;
	}
	ret = 0;
out:
	gm_file_lock_release(&lock);
	argv_release(&a);
	free(inc);
	free(lib);
	free(lib_a);
	free(src);
	free(exe);
	free(tmp);
	return ret;
}

/*
 * --build-only and --rebuild are ours; every other option is the replay
 * program's, parsed by the same code it uses (common/replay_opts.c) so
 * that mistakes show before a build, and forwarded as given.
 */
enum { OPT_BUILD_ONLY = 1000, OPT_REBUILD };

static const struct option replay_longopts[] = {
	{ "build-only", no_argument, NULL, OPT_BUILD_ONLY },
	{ "rebuild", no_argument, NULL, OPT_REBUILD },
	{ NULL, 0, NULL, 0 },
};

/* Ours, and the replay program's (common/replay_opts.c). */
const struct gm_cmd_options gm_replay_options = {
	.shorts = "o:",
	.longopts = replay_longopts,
	.more_longopts = gm_replay_longopts,
};

/* The word that gives option @key (with @value) to the replay program. */
static char *forward_word(int key, const char *value)
{
	for (const struct option *l = gm_replay_longopts; l->name; l++) {
		if (l->val == key) {
			return value ? gm_xasprintf("--%s=%s", l->name, value)
				     : gm_xasprintf("--%s", l->name);
		}
	}
	return gm_xasprintf("-%c%s", key, value ? value : "");
}

static int parse(int argc, char **argv, struct replay_opts *o, char ***words)
{
	char **v = gm_xcalloc((size_t)argc + 1, sizeof(char *));
	struct gm_opt_parser op;
	int n = 0, first = 0, rc, c;

	*words = v;
	v[n++] = argv[0];
	gm_opt_init(&op, &gm_replay_options, usage, argc, argv);
	while ((c = gm_opt_next(&op)) != GM_OPT_END) {
		switch (c) {
		case GM_OPT_HELP:
			print_help();
			return -1;
		case GM_OPT_FAIL:
			return GM_EXIT_USAGE;
		case OPT_BUILD_ONLY:
			o->build_only = 1;
			break;
		case OPT_REBUILD:
			o->rebuild = 1;
			break;
		default:
			v[n++] = forward_word(c, op.arg);
			o->nr_owned = n;
			break;
		}
	}
	for (int i = op.ind; i < argc; i++) {
		v[n++] = argv[i];
	}
	gm_replay_opts_init(&o->r);
	rc = gm_replay_opts_parse(&o->r, n, v, &first);
	if (rc == 1) {
		print_help();
		return -1;
	}
	if (rc < 0) {
		char why[512];
		snprintf(why, sizeof(why), "%s", gm_error_message());
		gm_error_clear();
		return gm_usage_error(usage, "%s", why);
	}
	if (first + 1 != n) {
		return gm_usage_error(usage, first == n ? "which directory?" :
						      "too many arguments");
	}
	/* getopt_long put the options first: those are forwarded. */
	o->dir = v[first];
	o->fwd = v + 1;
	o->nr_fwd = first - 1;
	return 0;
}

/*
 * The replay program exited 127 without writing its manifest: it never
 * ran (the dynamic loader's own message, above, is all the user would
 * otherwise see). Say why where it can be found: the CUDA driver, which
 * every replay program needs and a host without an NVIDIA driver lacks,
 * is looked for as the program's loader looks (this process's library
 * path is the program's).
 */
#define CUDA_DRIVER "libcuda.so.1"

static void not_started(void)
{
	void *h = dlopen(CUDA_DRIVER, RTLD_LAZY | RTLD_LOCAL);

	if (!h) {
		const char *why = dlerror();
		gm_error("the CUDA driver library '%s' cannot be loaded: %s",
			 CUDA_DRIVER, why ? why : "not found");
		gm_error("the replay program could not start: this host has no "
			 "NVIDIA driver, or the library path does not reach it");
		return;
	}
	dlclose(h);
	gm_error("the replay program could not start (a library it needs is "
		 "missing: the loader's message is above)");
}

static void free_words(char **words, const struct replay_opts *o)
{
	for (int i = 1; words && i < o->nr_owned; i++) {
		free(words[i]);
	}
	free(words);
}

int cmd_replay(int argc, char **argv)
{
	struct replay_opts o;
	struct kvfile kv = KVFILE_INIT, run_kv = KVFILE_INIT;
	struct argv_buf a = { NULL, 0, 0 };
	char *manifest, *run_dir = NULL, *exe = NULL, **words = NULL;
	const char *format, *workload, *variant;
	int st, ret = GM_EXIT_ERROR;

	memset(&o, 0, sizeof(o));
	st = parse(argc, argv, &o, &words);
	if (st) {
		free_words(words, &o);
		return st < 0 ? GM_EXIT_OK : st;
	}
	manifest = gm_path_join(o.dir, "manifest");
	if (!gm_is_dir(o.dir) || kvfile_read(&kv, manifest) < 0) {
		gm_error("'%s' is not a replay program directory (from gpumix "
			 "reconstruct)", o.dir);
		free(manifest);
		goto out;
	}
	free(manifest);
	format = kvfile_get(&kv, "format");
	workload = kvfile_get(&kv, "workload");
	variant = kvfile_get(&kv, "variant");
	if (!format || strcmp(format, RECON_FORMAT) || !workload || !variant) {
		gm_error("'%s/manifest': not a '%s' manifest", o.dir,
			 RECON_FORMAT);
		goto out;
	}
	if (gm_replay_opts_finish(&o.r, variant) < 0) {
		char why[512];
		snprintf(why, sizeof(why), "%s", gm_error_message());
		gm_error_clear();
		ret = gm_usage_error(usage, "%s", why);
		goto done;
	}
	if (o.r.elastic.mode != GM_ELASTIC_OFF ||
	    o.r.completion == GM_COMPLETION_POLL ||
	    o.r.probe != GM_PROBE_OFF ||
	    (o.r.variant->flags & GM_VARIANT_POLICY)) {
		char *index = gm_path_join(o.dir, "elastic/index");
		int have = gm_path_exists(index);
		free(index);
		if (!have) {
			gm_error("'%s' has no elastic modules, which %s needs",
				 o.dir, o.r.elastic.mode != GM_ELASTIC_OFF ?
				 "--elastic" :
				 o.r.completion == GM_COMPLETION_POLL ?
				 "--completion poll" :
				 o.r.probe != GM_PROBE_OFF ?
				 "--probe blocks" : "the variant");
			gm_error_hint("reconstruct it with 'gpumix reconstruct "
				      "--elastic'");
			goto out;
		}
	}
	if (build(o.dir, o.rebuild) < 0) {
		goto out;
	}
	if (o.build_only) {
		ret = GM_EXIT_OK;
		goto out;
	}
	run_dir = o.r.run_dir ? gm_xstrdup(o.r.run_dir) :
				gm_xasprintf("runs/%s.%s", workload,
					     o.r.variant->name);
	exe = gm_path_join(o.dir, "replay");
	push(&a, exe);
	push(&a, "--data");
	push(&a, o.dir);
	push(&a, "-o");
	push(&a, run_dir);
	for (int i = 0; i < o.nr_fwd; i++) {
		push(&a, o.fwd[i]);
	}
	if (gm_cli.verbosity > 0) {
		print_argv(&a);
	}
	st = run(a.v);
	if (st < 0) {
		goto out;
	}
	{
		char *rm = gm_path_join(run_dir, "manifest");
		const char *status = NULL, *failure = NULL;
		if (gm_path_exists(rm) && kvfile_read(&run_kv, rm) == 0) {
			status = kvfile_get(&run_kv, "status");
			failure = kvfile_get(&run_kv, "failure");
		}
		gm_error_clear();
		free(rm);
		if (st == 0 && status && !strcmp(status, "ok")) {
			gm_note("replay: ok, run directory '%s'", run_dir);
			ret = GM_EXIT_OK;
			goto out;
		}
		if (failure) {
			gm_error("%s", failure);
		}
		if (st == 128 + SIGINT) {
			gm_error("the replay of '%s' was interrupted", o.dir);
			gm_cli_fail();
			ret = GM_EXIT_INTERRUPTED;
			goto done;
		}
		if (status && !strcmp(status, "hung")) {
			gm_error("the replay of '%s' hung (run directory '%s')",
				 o.dir, run_dir);
		} else if (st > 128) {
			gm_error("the replay of '%s' was killed by signal %d",
				 o.dir, st - 128);
		} else if (st == GM_REPLAY_EXIT_NO_POINT && status) {
			/* Not a failure of the replay: told apart (a sweep
			 * skips the point). */
			gm_error("the replay of '%s' asks for a point that cannot "
				 "exist (run directory '%s')", o.dir, run_dir);
			ret = GM_REPLAY_EXIT_NO_POINT;
		} else {
			if (st == 127 && !status) {
				not_started();
			}
			gm_error("the replay of '%s' failed (exit status %d%s%s)",
				 o.dir, st, status ? ", run directory " : "",
				 status ? run_dir : "");
		}
	}
out:
	if (ret != GM_EXIT_OK) {
		gm_cli_fail();
	}
done:
	argv_release(&a);
	kvfile_release(&kv);
	kvfile_release(&run_kv);
	free(run_dir);
	free(exe);
	free_words(words, &o);
	return ret;
}
