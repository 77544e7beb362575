/* SPDX-License-Identifier: MIT */
/*
 * The parent process of the process variants, procs and mps (doc/mps.md):
 * it never touches CUDA. It creates the shared board (process_board.h),
 * runs this same replay program once per program (`--process-child
 * I:FD`, each writing a run directory of its own under RUNDIR/processes/I),
 * waits for them, and merges the processes' run directories into one
 * that reads exactly like a cuda run's: correlation ids made unique per
 * run, timestamps on one clock, the manifest of the whole workload.
 *
 * Under mps (GM_VARIANT_MPS_DAEMON) it first starts a private MPS control
 * daemon (mps_daemon.h; its logs in RUNDIR/mps/daemon), whose pipe
 * directory the processes inherit, each with its active-thread
 * percentage in CUDA_MPS_ACTIVE_THREAD_PERCENTAGE, and stops it whatever
 * happened (interrupts included). Under procs the
 * processes share the GPU by the driver's time-slicing: no daemon, and
 * no CUDA_MPS_* variable of gpumix's environment reaches them, so that
 * none connects to an MPS daemon by accident (each checks it is no MPS
 * client; the manifest names the variables removed).
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "atomic_file.h"
#include "error.h"
#include "fs.h"
#include "kvfile.h"
#include "mps_daemon.h"
#include "process_board.h"
#include "process_merge.h"
#include "process_run.h"
#include "probe.h"
#include "replay_int.h"
#include "run_command.h"
#include "strbuf.h"

#define EXIT_HUNG 3
#define EXIT_INTERRUPTED 130
/* Clock offsets that differ by less are the same clock sampled twice. */
#define SAME_CLOCK_NS 50000

static volatile sig_atomic_t interrupted;

static void on_signal(int sig)
{
	interrupted = sig;
}

struct child {
	struct gm_run_command cmd;	/* only the struct, after the start */
	struct gm_run_child run;
	pid_t pid;
	char *dir;
	int status;		/* exit status, 128 + signal, -1: not run */
	int64_t shift;		/* ns added to its timestamps */
};

/*
 * GPUMIX_PROCESS_WRAPPER: a command (words split at blanks, no quoting)
 * that each replay process runs under, such as compute-sanitizer with its
 * options. Under mps a tool around the whole replay would hold the MPS
 * daemon too: compute-sanitizer follows the daemon's fork of its server,
 * which then never starts, and every client waits (doc/mps.md). Sets *@n
 * to the number of words (0: none); the words point into a copy the
 * caller frees with free(words[0]).
 */
static char **process_wrapper(size_t *n)
{
	const char *w = getenv("GPUMIX_PROCESS_WRAPPER");
	char *copy, **words = NULL, *save = NULL;
	size_t alloc = 0;

	*n = 0;
	if (!w || !*w) {
		return NULL;
	}
	/* from its first word, so that words[0] is the copy */
	copy = gm_xstrdup(w + strspn(w, " \t"));
	for (char *t = strtok_r(copy, " \t", &save); t;
	     t = strtok_r(NULL, " \t", &save)) {
		GM_ALLOC_GROW(words, *n + 1, alloc);
		words[(*n)++] = t;
	}
	if (!*n) {
		free(copy);
	}
	return words;
}

/* This replay program's path: a wrapper runs it by its name, and ps
 * shows the replay rather than "exe". NULL when it cannot be read. */
static char *self_path(void)
{
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

	if (n <= 0) {
		return NULL;
	}
	exe[n] = 0;
	return gm_xstrdup(exe);
}

/*
 * The names of the CUDA_MPS_* variables in this process's environment,
 * NULL-terminated (the names are the caller's to free, with the array):
 * those a procs replay process must not inherit.
 */
static char **mps_env_names(void)
{
	extern char **environ;
	char **names = NULL;
	size_t n = 0, alloc = 0;

	for (char **e = environ; *e; e++) {
		size_t len = strcspn(*e, "=");
		if (!strncmp(*e, "CUDA_MPS_", 9) && (*e)[len] == '=') {
			GM_ALLOC_GROW(names, n + 2, alloc);
			names[n++] = gm_xasprintf("%.*s", (int)len, *e);
		}
	}
	if (names) {
		names[n] = NULL;
	}
	return names;
}

static void free_names(char **names)
{
	for (size_t i = 0; names && names[i]; i++) {
		free(names[i]);
	}
	free(names);
}

/*
 * The changes to program @i's environment (run_command.h's form, the
 * strings allocated): under MPS its active-thread percentage set, or the
 * variable removed when it has none; without, the variables @no_mps
 * names removed. Freed with free_names().
 */
static char **child_env(struct gm_run *run, unsigned i, char *const *no_mps)
{
	const struct gm_program_desc *d = run->w->programs[i];
	unsigned pct = gm_mps_threads_for(run->opt.mps_threads, d->name);
	size_t n = 0;
	char **env;

	while (no_mps && no_mps[n]) {
		n++;
	}
	env = gm_xcalloc(n + 2, sizeof(char *));
	if (run->opt.variant->flags & GM_VARIANT_MPS_DAEMON) {
		env[0] = pct ? gm_xasprintf("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE"
					    "=%u", pct)
			     : gm_xstrdup("CUDA_MPS_ACTIVE_THREAD_PERCENTAGE");
		return env;
	}
	for (size_t k = 0; k < n; k++) {
		env[k] = gm_xstrdup(no_mps[k]);
	}
	return env;
}

/*
 * Start program @i's replay process into @c (its pid in c->pid; the
 * environment as child_env() says). It dies with this process
 * (PR_SET_PDEATHSIG) and inherits the board's descriptor. Returns 0, or
 * -1 with a cause.
 */
static int spawn(struct gm_run *run, unsigned i, int argc, char **argv,
		 int board_fd, char *const *no_mps, struct child *c)
{
	const struct gm_program_desc *d = run->w->programs[i];
	size_t nw;
	char **wrap = process_wrapper(&nw);
	char **v = gm_xcalloc(nw + (size_t)argc + 8, sizeof(char *));
	char **env = child_env(run, i, no_mps);
	char *arg = gm_xasprintf("%u:%d", i, board_fd);
	char *exe = self_path();
	int n = 0, ret = -1;

	if (nw && !exe) {
		gm_error("cannot run the replay process of '%s' under "
			 "GPUMIX_PROCESS_WRAPPER: this program's path "
			 "(/proc/self/exe) cannot be read", d->name);
		goto out;
	}
	for (size_t w = 0; w < nw; w++) {
		v[n++] = wrap[w];
	}
	v[n++] = nw ? exe : argv[0];
	for (int a = 1; a < argc; a++) {
		v[n++] = argv[a];
	}
	/* Later options win: the child's own directory and data. */
	v[n++] = "--process-child";
	v[n++] = arg;
	v[n++] = "--data";
	v[n++] = (char *)run->opt.data_dir;
	v[n++] = "-o";
	v[n++] = c->dir;
	v[n] = NULL;
	memset(&c->cmd, 0, sizeof(c->cmd));
	c->cmd.argv = v;
	c->cmd.env = env;
	c->cmd.keep_input = 1;
	c->cmd.death_signal = SIGKILL;
	if (nw) {
		c->cmd.search_path = 1;
	} else {
		/* By its path, so that ps names the replay, not "exe"; by
		 * /proc/self/exe when a rebuild took that path away. */
		c->cmd.path = exe && !access(exe, X_OK) ? exe : "/proc/self/exe";
	}
	if (gm_run_command_start(&c->cmd, &c->run) == 0) {
		c->pid = c->run.pid;
		ret = 0;
	} else if (c->run.r.not_run) {
		/* The message the replay process's own report had. */
		gm_error_clear();
		errno = c->run.r.error;
		if (nw) {
			gm_error_errno("cannot run the replay process of '%s' "
				       "under GPUMIX_PROCESS_WRAPPER '%s'",
				       d->name, v[0]);
		} else {
			gm_error_errno("cannot run the replay process of '%s'",
				       d->name);
		}
	} else {
		gm_error("cannot start the replay process of '%s'", d->name);
	}
	/* Only the struct is read after the start. */
	c->cmd.argv = c->cmd.env = NULL;
	c->cmd.path = NULL;
out:
	if (nw) {
		free(wrap[0]);
	}
	free(wrap);
	free(exe);
	free(arg);
	free(v);
	free_names(env);
	return ret;
}

/* Wait for every child; stop the board at the first that fails, and
 * every child on an interrupt. Polls (20 ms), so that a signal that
 * comes between two checks is seen at the next. */
static void wait_children(struct gm_run *run, struct gm_process_board *b,
			  struct child *c, unsigned n)
{
	unsigned left = 0;
	int killed = 0;

	for (unsigned i = 0; i < n; i++) {
		left += c[i].pid > 0;
	}
	while (left) {
		struct timespec nap = { 0, 20000000L };
		int ended = 0;

		if (interrupted && !killed) {
			gm_process_board_stop(b);
			for (unsigned i = 0; i < n; i++) {
				if (c[i].pid > 0 && c[i].status < 0) {
					kill(c[i].pid, SIGTERM);
				}
			}
			killed = 1;
		}
		/* Each by its pid: the reaper is a child too. */
		for (unsigned i = 0; i < n; i++) {
			const struct gm_run_result *r = &c[i].run.r;

			if (c[i].pid <= 0 || c[i].status >= 0 ||
			    !gm_run_command_poll(&c[i].run, 0)) {
				continue;
			}
			ended = 1;
			left--;
			if (!r->signal && r->exit_code < 0) {
				c[i].status = 255;	/* lost: failed */
				continue;
			}
			c[i].status = r->signal ? 128 + r->signal : r->exit_code;
			if (c[i].status) {
				gm_log(run, "replay: the replay process of '%s' "
				       "(pid %d) %s %d", run->w->programs[i]->name,
				       (int)c[i].pid, r->signal ?
				       "was killed by signal" :
				       "exited with status", r->signal ?
				       r->signal : r->exit_code);
				gm_process_board_stop(b);
			}
		}
		if (!ended) {
			nanosleep(&nap, NULL);
		}
	}
}

/*
 * One clock: each process measured its replay clock minus
 * CLOCK_MONOTONIC. Where two differ by more than sampling noise, the
 * later processes' timestamps move onto the first's clock.
 */
static int64_t clock_shifts(struct gm_process_board *b, struct child *c,
			    unsigned n)
{
	int64_t lo = 0, hi = 0, ref = 0;
	int have = 0;

	for (unsigned i = 0; i < n; i++) {
		if (!b->have_offset[i]) {
			continue;
		}
		if (!have) {
			ref = lo = hi = b->clock_offset[i];
			have = 1;
		}
		lo = b->clock_offset[i] < lo ? b->clock_offset[i] : lo;
		hi = b->clock_offset[i] > hi ? b->clock_offset[i] : hi;
		c[i].shift = ref - b->clock_offset[i];
		if (c[i].shift > -SAME_CLOCK_NS && c[i].shift < SAME_CLOCK_NS) {
			c[i].shift = 0;
		}
	}
	return hi - lo;
}

static void manifest_program_keys(struct gm_run *run, struct kvfile *kv)
{
	for (unsigned i = 0; i < run->w->nr_programs; i++) {
		const struct gm_program_desc *d = run->w->programs[i];
		char key[64];
		gm_manifest_program(kv, i, d);
		if (!(run->opt.variant->flags & GM_VARIANT_MPS_DAEMON)) {
			continue;
		}
		snprintf(key, sizeof(key), "mps.program.%u.active_threads", i);
		kvfile_set_u64(kv, key, gm_mps_threads_for(run->opt.mps_threads,
							   d->name));
	}
}

/* "CUDA_MPS_PIPE_DIRECTORY,CUDA_MPS_LOG_DIRECTORY", or "none". */
static void set_names(struct kvfile *kv, const char *key, char *const *names)
{
	struct strbuf sb = STRBUF_INIT;

	for (size_t i = 0; names && names[i]; i++) {
		strbuf_addf(&sb, "%s%s", sb.len ? "," : "", names[i]);
	}
	kvfile_set(kv, key, sb.len ? sb.buf : "none");
	strbuf_release(&sb);
}

/* The sums over the processes' manifests. */
struct part_sums {
	uint64_t streams, clients, dropped;
};

/* Add @part's keys under @prefix (naming @infix where not NULL) to
 * @kv's: counts that add up over the processes. */
static void add_counts(struct kvfile *kv, const struct kvfile *part,
		       const char *prefix, const char *infix)
{
	for (size_t k = 0; k < part->nr; k++) {
		uint64_t mine, theirs;
		if (strncmp(part->keys[k], prefix, strlen(prefix)) ||
		    (infix && !strstr(part->keys[k], infix)) ||
		    kvfile_get_u64(part, part->keys[k], &theirs, "") ||
		    kvfile_get_u64(kv, part->keys[k], &mine, "")) {
			gm_error_clear();
			continue;
		}
		kvfile_set_u64(kv, part->keys[k], mine + theirs);
	}
}

/*
 * Read process @i's manifest (run directory @dir) into @part and take its
 * keys into @kv: the first one read (*@have_template 0) gives the
 * device, versions and options; each gives its program's keys and adds
 * to @sum. -1 when it has none (it died before writing).
 */
static int merge_manifest(struct kvfile *kv, struct kvfile *part,
			  const char *dir, unsigned i, int *have_template,
			  struct part_sums *sum)
{
	char *m = gm_path_join(dir, "manifest");
	uint64_t v;

	kvfile_release(part);
	if (!gm_path_exists(m) || kvfile_read(part, m) < 0) {
		gm_error_clear();
		free(m);
		return -1;
	}
	free(m);
	if (!*have_template) {
		/* Device, versions, options: the same in every
		 * process; the programs' keys are each one's. */
		for (size_t k = 0; k < part->nr; k++) {
			if (strncmp(part->keys[k], "program.", 8)) {
				kvfile_set(kv, part->keys[k], part->values[k]);
			}
		}
		*have_template = 1;	/* counts the processes read */
	}
	/* Its one program is program 0 there: its keys (host time,
	 * ...) are program I's here. */
	for (size_t k = 0; k < part->nr; k++) {
		if (!strncmp(part->keys[k], "program.0.", 10)) {
			char key[64];
			snprintf(key, sizeof(key), "program.%u.%s", i,
				 part->keys[k] + 10);
			kvfile_set(kv, key, part->values[k]);
		}
	}
	if (!kvfile_get_u64(part, "streams", &v, "manifest")) {
		sum->streams += v;
	}
	if (!kvfile_get_u64(part, "processes.mps_clients", &v, "manifest")) {
		sum->clients += v;
	}
	/* Launch counts add up; the template has the first's. */
	if (*have_template > 1) {
		add_counts(kv, part, "elastic.", "launches");
	}
	(*have_template)++;
	if (!kvfile_get_u64(part, "cupti.dropped_records", &v, "manifest")) {
		sum->dropped += v;
	}
	gm_error_clear();
	return 0;
}

/* No process wrote a manifest: the keys every run has, as unknown. */
static void set_unknown_device(struct kvfile *kv)
{
	static const char *const unknown[][2] = {
		{ "device.name", "unknown" }, { "device.cc", "0.0" },
		{ "device.sm_count", "1" },
		{ "device.max_threads_per_sm", "1" },
		{ "device.max_blocks_per_sm", "1" },
		{ "device.regs_per_sm", "1" }, { "device.smem_per_sm", "0" },
		{ "driver_version", "0" }, { "cuda_device_max_connections", "8" },
		{ "gpumix_version", "unknown" }, { "profiled", "0" },
	};
	for (size_t k = 0; k < sizeof(unknown) / sizeof(*unknown); k++) {
		kvfile_set(kv, unknown[k][0], unknown[k][1]);
	}
	kvfile_set_u64(kv, "runtime_version", CUDA_VERSION);
}

/* Write the merged replays.tsv, requests.tsv (open loop) and
 * drivercalls.tsv. 0 or -1. */
static int write_merged(struct gm_run *run, struct strbuf *reps,
			struct strbuf *reqs, struct strbuf *drv,
			uint64_t drv_lines)
{
	char *path;
	int ret = 0;

	path = gm_path_join(run->opt.run_dir, "replays.tsv");
	if (gm_write_file_atomic(path, reps->buf, reps->len, 1) < 0) {
		ret = -1;
	}
	free(path);
	if (run->open_loop) {
		path = gm_path_join(run->opt.run_dir, "requests.tsv");
		if (gm_write_file_atomic(path, reqs->buf, reqs->len, 1) < 0) {
			ret = -1;
		}
		free(path);
	}
	strbuf_addf(drv, "END\t%" PRIu64 "\n", drv_lines);
	path = gm_path_join(run->opt.run_dir, "drivercalls.tsv");
	if (gm_write_file_atomic(path, drv->buf, drv->len, 1) < 0) {
		ret = -1;
	}
	free(path);
	strbuf_release(drv);
	return ret;
}

/*
 * Write the run directory from the processes' ones. @daemon_ok: under
 * MPS, whether the daemon ended after quit; @no_mps: without, the
 * variables the processes did not inherit. Returns 0 or -1.
 */
static int merge(struct gm_run *run, struct gm_process_board *b, struct child *c,
		 const char *status, const char *failure, int daemon_ok,
		 char *const *no_mps)
{
	const struct gm_workload_desc *w = run->w;
	struct kvfile kv = KVFILE_INIT, part = KVFILE_INIT;
	struct run_activity ra;
	struct gm_merged_probe mp = { 0 };
	struct strbuf reps = STRBUF_INIT, drv = STRBUF_INIT, reqs = STRBUF_INIT;
	uint64_t drv_lines = 0, corr = 0;
	struct part_sums sum = { 0 };
	int64_t spread = clock_shifts(b, c, w->nr_programs);
	int have_template = 0, ret = 0;
	char now[32];

	if (gm_run_activity_open(&ra, run->opt.run_dir) < 0) {
		return -1;
	}
	if (run->opt.probe != GM_PROBE_OFF &&
	    gm_merged_probe_open(&mp, run->opt.run_dir) < 0) {
		gm_error_report(stderr);
		ret = -1;
	}
	strbuf_addstr(&reps, "program\treplay\tstart_ns\tend_ns\tio_ns\tkept\n");
	strbuf_addstr(&reqs, RUN_REQUESTS_HEADER "\n");
	for (unsigned i = 0; i < w->nr_programs; i++) {
		if (merge_manifest(&kv, &part, c[i].dir, i, &have_template,
				   &sum) < 0) {
			continue;	/* it died before writing: its failure says */
		}
		uint64_t base = corr;
		if (gm_merge_activity(&ra, c[i].dir, corr, &corr, c[i].shift) < 0 ||
		    gm_merge_replays(&reps, c[i].dir, c[i].shift) < 0 ||
		    gm_merge_requests(&reqs, c[i].dir, c[i].shift) < 0 ||
		    gm_merge_drivercalls(&drv, c[i].dir, c[i].shift,
				      &drv_lines) < 0 ||
		    (mp.open && gm_merge_probe(&mp, c[i].dir, base,
					    c[i].shift) < 0)) {
			gm_error_report(stderr);
			ret = -1;
		}
		/* The probe's counts add up like the launch counts. */
		if (have_template > 2) {
			add_counts(&kv, &part, "probe.", NULL);
		}
	}
	if (!have_template) {
		set_unknown_device(&kv);
	}
	kvfile_set(&kv, "format", RUN_FORMAT);
	kvfile_set(&kv, "workload", w->name);
	kvfile_set(&kv, "variant", run->opt.variant->name);
	kvfile_set(&kv, "policy", "none");
	kvfile_set_u64(&kv, "programs", w->nr_programs);
	manifest_program_keys(run, &kv);
	kvfile_set_u64(&kv, "streams", sum.streams);
	kvfile_set_u64(&kv, "min_replays", run->opt.min_replays);
	kvfile_set(&kv, "replay.one_shot", run->opt.one_shot ? "1" : "0");
	gm_manifest_repetition(&kv, &run->opt);
	gm_manifest_host_time(&kv, &run->opt);
	gm_open_loop_manifest(run, &kv);
	kvfile_set(&kv, "started_at", run->started_at);
	gm_run_utc_now(now, sizeof(now));
	kvfile_set(&kv, "finished_at", now);
	kvfile_set_u64(&kv, "cupti.dropped_records", sum.dropped);
	kvfile_set_u64(&kv, "processes.count", w->nr_programs);
	kvfile_set_u64(&kv, "processes.clock_spread_ns", (uint64_t)spread);
	kvfile_set_u64(&kv, "processes.mps_clients", sum.clients);
	gm_log(run, "replay: the processes' clocks differ by %lld ns%s",
	       (long long)spread, spread >= SAME_CLOCK_NS ?
	       " (their records were moved onto the first's)" : "");
	if (run->opt.variant->flags & GM_VARIANT_MPS_DAEMON) {
		kvfile_set(&kv, "mps.daemon", daemon_ok ? "stopped" : "killed");
	} else {
		set_names(&kv, "processes.mps_env_removed", no_mps);
	}
	if (ret < 0 && !strcmp(status, "ok")) {
		status = "failed";
		failure = "cannot merge the replay processes' run directories";
	}
	kvfile_set(&kv, "status", status);
	if (failure && *failure) {
		kvfile_set(&kv, "failure", failure);
	}
	if (gm_run_activity_commit(&ra) < 0) {
		ret = -1;
	}
	if (gm_merged_probe_commit(&mp, run->opt.run_dir, ret == 0) < 0) {
		gm_error_report(stderr);
		ret = -1;
	}
	if (write_merged(run, &reps, &reqs, &drv, drv_lines) < 0) {
		ret = -1;
	}
	if (ret == 0 || strcmp(status, "ok")) {
		if (gm_run_write_manifest(run->opt.run_dir, &kv) < 0) {
			ret = -1;
		}
	}
	if (ret < 0) {
		gm_error_report(stderr);
	}
	kvfile_release(&kv);
	kvfile_release(&part);
	strbuf_release(&reps);
	strbuf_release(&reqs);
	return ret;
}

/* The processes' records are in the run's files now: keep their logs
 * and manifests, drop the copies. */
static void drop_parts(struct child *c, unsigned n)
{
	for (unsigned i = 0; i < n; i++) {
		static const char *const parts[] = {
			"activity.tsv", "replays.tsv", "probe.tsv", "probe.bin",
			"drivercalls.tsv", "requests.tsv",
		};
		for (size_t k = 0; k < sizeof(parts) / sizeof(parts[0]); k++) {
			char *path = gm_path_join(c[i].dir, parts[k]);
			unlink(path);
			free(path);
		}
	}
}

/* The first failure among the processes' manifests, and whether one hung. */
static void child_failure(struct gm_run *run, struct child *c, unsigned n,
			  struct strbuf *why, int *hung)
{
	for (unsigned i = 0; i < n; i++) {
		struct kvfile kv = KVFILE_INIT;
		char *m = gm_path_join(c[i].dir, "manifest");
		const char *st, *f;
		if (!kvfile_read(&kv, m)) {
			st = kvfile_get(&kv, "status");
			f = kvfile_get(&kv, "failure");
			if (st && !strcmp(st, "hung")) {
				*hung = 1;
			}
			/* The first cause, not "another process failed". */
			if (st && strcmp(st, "ok") && f && *f &&
			    (!why->len || !strstr(f, "another replay process"))) {
				if (!why->len || strstr(why->buf,
							"another replay process")) {
					strbuf_reset(why);
					strbuf_addstr(why, f);
				}
			}
		}
		gm_error_clear();
		kvfile_release(&kv);
		free(m);
		/* (-1: never ran; the run's failure says why) */
		if (!why->len && c[i].status > 0) {
			strbuf_addf(why, "the replay process of '%s' %s %d",
				    run->w->programs[i]->name,
				    c[i].status > 128 ? "was killed by signal" :
				    "exited with status", c[i].status > 128 ?
				    c[i].status - 128 : c[i].status);
		}
	}
}

/* The processes' records are told apart by program name alone. */
static int unique_names(const struct gm_workload_desc *w)
{
	for (unsigned i = 0; i < w->nr_programs; i++) {
		for (unsigned j = 0; j < i; j++) {
			if (!strcmp(w->programs[j]->name, w->programs[i]->name)) {
				return gm_error("programs %u and %u are both "
						"called '%s'", j, i,
						w->programs[i]->name);
			}
		}
	}
	return 0;
}

int gm_process_run(struct gm_run *run, int argc, char **argv)
{
	const struct gm_workload_desc *w = run->w;
	int mps = !!(run->opt.variant->flags & GM_VARIANT_MPS_DAEMON);
	struct gm_mps_daemon daemon;
	struct gm_process_board *b = NULL;
	struct child *c = NULL;
	struct sigaction sa, old[3];
	static const int sigs[3] = { SIGINT, SIGTERM, SIGHUP };
	struct strbuf why = STRBUF_INIT;
	char *parts_dir, *log_dir, **no_mps = NULL;
	int board_fd = -1, daemon_ok = 1, hung = 0, failed = 0, exit_code;

	parts_dir = gm_path_join(run->opt.run_dir, "processes");
	log_dir = gm_path_join(run->opt.run_dir, "mps/daemon");
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_signal;
	sigemptyset(&sa.sa_mask);
	for (int s = 0; s < 3; s++) {
		sigaction(sigs[s], &sa, &old[s]);
	}
	if (unique_names(w) == 0) {
		b = gm_process_board_create(w->nr_programs, run->opt.min_replays,
					    run->opt.one_shot, &board_fd);
		if (b) {
			gm_open_loop_board(run, b);
		}
	}
	if (!b || (mps && gm_mps_daemon_start(&daemon, log_dir,
					      gm_mps_daemon_timeout_s()) < 0)) {
		/* Refused: nothing of this run stays behind. */
		gm_error_report(stderr);
		gm_error_clear();
		if (run->log_fd >= 0) {
			close(run->log_fd);
			run->log_fd = -1;
		}
		gm_remove_tree(run->opt.run_dir);
		exit_code = 1;
		goto out;
	}
	if (mps) {
		gm_log(run, "replay: MPS control daemon started (pipe directory "
		       "'%s', logs '%s')", daemon.pipe_dir, log_dir);
		gm_mps_daemon_env(&daemon);
	} else {
		no_mps = mps_env_names();
		for (size_t k = 0; no_mps && no_mps[k]; k++) {
			gm_log(run, "replay: %s is not passed on to the replay "
			       "processes (variant %s runs without MPS)",
			       no_mps[k], run->opt.variant->name);
		}
	}
	c = gm_xcalloc(w->nr_programs, sizeof(*c));
	/* Every directory first: those after a failed start are read too. */
	for (unsigned i = 0; i < w->nr_programs; i++) {
		char sub[16];
		snprintf(sub, sizeof(sub), "%u", i);
		c[i].dir = gm_path_join(parts_dir, sub);
		c[i].status = -1;
	}
	for (unsigned i = 0; i < w->nr_programs; i++) {
		if (interrupted) {
			break;
		}
		if (spawn(run, i, argc, argv, board_fd, no_mps, &c[i]) < 0) {
			gm_record_failure(run);
			gm_process_board_stop(b);
			break;
		}
	}
	wait_children(run, b, c, w->nr_programs);
	if (mps) {
		daemon_ok = gm_mps_daemon_stop(&daemon) == 0;
		if (!daemon_ok) {
			gm_log(run, "replay: warning: %s", gm_error_message());
			gm_error_clear();
		} else {
			gm_log(run, "replay: MPS control daemon stopped");
		}
	}
	for (unsigned i = 0; i < w->nr_programs; i++) {
		if (c[i].status != 0) {
			failed = 1;
		}
	}
	if (failed || run->failed) {
		child_failure(run, c, w->nr_programs, &why, &hung);
		if (interrupted) {
			strbuf_reset(&why);
			strbuf_addf(&why, "interrupted by signal %d",
				    (int)interrupted);
		}
		if (!why.len) {
			strbuf_addstr(&why, run->failure[0] ? run->failure :
				      "a replay process failed");
		}
	}
	if (merge(run, b, c, failed || run->failed ? (hung ? "hung" : "failed")
		  : "ok", why.len ? why.buf : NULL, daemon_ok, no_mps) < 0) {
		failed = 1;
	} else if (!failed && !run->failed) {
		drop_parts(c, w->nr_programs);
	}
	exit_code = interrupted ? EXIT_INTERRUPTED : hung ? EXIT_HUNG :
		    failed || run->failed ? 1 : 0;
	if (!exit_code) {
		gm_log(run, "replay: ok: %u %s recorded in '%s'",
		       w->nr_programs, mps ? "replay processes under MPS" :
		       "time-sliced replay processes", run->opt.run_dir);
	} else {
		gm_log(run, "replay: failed: %s", why.len ? why.buf :
		       "cannot write the run directory");
	}
out:
	for (int s = 0; s < 3; s++) {
		sigaction(sigs[s], &old[s], NULL);
	}
	if (c) {
		for (unsigned i = 0; i < w->nr_programs; i++) {
			free(c[i].dir);
		}
	}
	free(c);
	gm_process_board_detach(b);
	if (board_fd >= 0) {
		close(board_fd);
	}
	free_names(no_mps);
	strbuf_release(&why);
	free(parts_dir);
	free(log_dir);
	return exit_code;
}
