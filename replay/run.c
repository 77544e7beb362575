/* SPDX-License-Identifier: MIT */
/*
 * The replay process (struct gm_run): gm_replay_main() parses options,
 * holds the captured address ranges (addr_space.h), prepares the run
 * directory, starts CUPTI before CUDA, sets eager module
 * loading, retains the primary context, reads the blobs, starts one thread
 * per program (prog.c) and the watchdog, and writes the run directory,
 * manifest last. Also the helpers every part shares: the clock, the log,
 * failure recording.
 */
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "addr_space.h"
#include "cu_check.h"
#include "drvcalls.h"
#include "error.h"
#include "fs.h"
#include "kvfile.h"
#include "launch_plan.h"
#include "mps_daemon.h"
#include "process_board.h"
#include "process_run.h"
#include "probe.h"
#include "replay_int.h"
#include "sched.h"
#include "strbuf.h"

#define EXIT_HUNG 3
#define FLUSH_TIMEOUT_S 10

/* ---- blobs ---- */

/*
 * The blobs the run's programs copy from (host-to-device operations): an
 * process variant's replay process has one program of the workload and reads only its
 * blobs. NULL: all of them (every program of the workload is here).
 */
static uint8_t *blobs_needed(const struct gm_run *run)
{
	const struct gm_workload_desc *w = run->w;
	uint8_t *need;

	if (!run->board) {
		return NULL;
	}
	need = gm_xcalloc(w->nr_blobs + 1, 1);
	for (uint32_t p = 0; p < w->nr_programs; p++) {
		const struct gm_program_desc *d = w->programs[p];
		for (uint64_t i = 0; i < d->nr_ops; i++) {
			if (d->ops[i].code == GM_OP_H2D &&
			    d->ops[i].b < w->nr_blobs) {
				need[d->ops[i].b] = 1;
			}
		}
	}
	return need;
}

static int load_blobs(struct gm_run *run)
{
	const struct gm_workload_desc *w = run->w;
	uint8_t *need = blobs_needed(run);

	run->blob_host = gm_xcalloc(w->nr_blobs + 1, sizeof(void *));
	run->blob_pinned = gm_xcalloc(w->nr_blobs + 1, 1);
	for (uint32_t i = 0; i < w->nr_blobs; i++) {
		const struct gm_blob_desc *b = &w->blobs[i];
		char *name, *path;
		uint64_t n = b->size ? b->size : 1;
		void *buf = NULL;
		int ret;

		if (need && !need[i]) {
			continue;	/* another process's */
		}
		name = gm_xasprintf("blobs/%s", b->hash);
		path = gm_path_join(run->opt.data_dir, name);
		free(name);
		if (b->flags & GM_BLOB_PINNED) {
			if (CU_CHECK(cuMemHostAlloc(&buf, n, 0))) {
				free(path);
				free(need);
				return gm_error("cannot pin blob %" PRIu32, i);
			}
			run->blob_pinned[i] = 1;
		} else {
			buf = gm_xmalloc(n);
		}
		run->blob_host[i] = buf;
		ret = gm_read_exact(path, buf, b->size);
		if (!ret) {
			ret = gm_check_hash(path, buf, b->size, b->hash);
		}
		free(path);
		if (ret < 0) {
			free(need);
			return gm_error("cannot load blob %" PRIu32, i);
		}
	}
	free(need);
	return 0;
}

static void free_blobs(struct gm_run *run)
{
	if (!run->blob_host) {
		return;
	}
	for (uint32_t i = 0; i < run->w->nr_blobs; i++) {
		if (run->blob_pinned[i]) {
			cuMemFreeHost(run->blob_host[i]);
		} else {
			free(run->blob_host[i]);
		}
	}
	free(run->blob_host);
	free(run->blob_pinned);
	run->blob_host = NULL;
}

/* ---- the watchdog ---- */

struct flush_job {
	struct gm_run *run;
	pthread_mutex_t lock;
	pthread_cond_t cond;
	int done;
};

static void *flush_main(void *arg)
{
	struct flush_job *j = arg;

	gm_profiler_flush(&j->run->prof, 1);
	pthread_mutex_lock(&j->lock);
	j->done = 1;
	pthread_cond_signal(&j->cond);
	pthread_mutex_unlock(&j->lock);
	return NULL;
}

/* Flush CUPTI without trusting it to return while the GPU hangs. */
static void flush_with_timeout(struct gm_run *run)
{
	static struct flush_job j;	/* outlives us if the flush blocks */
	struct timespec until;
	pthread_t t;

	if (!run->prof.enabled) {
		return;
	}
	j.run = run;
	pthread_mutex_init(&j.lock, NULL);
	pthread_cond_init(&j.cond, NULL);
	if (pthread_create(&t, NULL, flush_main, &j)) {
		return;
	}
	pthread_detach(t);
	clock_gettime(CLOCK_REALTIME, &until);
	until.tv_sec += FLUSH_TIMEOUT_S;
	pthread_mutex_lock(&j.lock);
	while (!j.done) {
		if (pthread_cond_timedwait(&j.cond, &j.lock, &until) ==
		    ETIMEDOUT) {
			gm_log(run, "replay: CUPTI did not flush in %d s; the "
			       "activity log has what it delivered before",
			       FLUSH_TIMEOUT_S);
			break;
		}
	}
	pthread_mutex_unlock(&j.lock);
}

static void on_hang(void *arg, unsigned target, double stalled_s)
{
	struct gm_run *run = arg;
	struct gm_prog *p = &run->progs[target];
	const struct gm_program_desc *d = p->d;
	const struct gm_op *ops = p->cur_ops ? p->cur_ops : d->ops;
	uint64_t op = atomic_load(&p->wd->op);
	uint64_t last = atomic_load(&p->last_launch);
	struct strbuf why = STRBUF_INIT;

	atomic_store(&run->stop, 1);
	atomic_store(&run->finishing, 1);
	/* Should writing the run directory block too, end the process. */
	alarm(6 * FLUSH_TIMEOUT_S);
	strbuf_addf(&why, "program '%s' made no progress for %.0f s in replay %u",
		    d->name, stalled_s, p->replay);
	if (op < d->nr_ops) {
		strbuf_addf(&why, ", operation %" PRIu64 " (%s, trace event %"
			    PRIu64 ")", op, gm_op_name(ops[op].code),
			    ops[op].event);
	} else {
		strbuf_addstr(&why, ", waiting for its GPU work at the end of"
			      " the replay");
	}
	if (last) {
		const struct gm_op *l = &ops[last - 1];
		const struct gm_launch_desc *ld = &d->launches[l->a];
		strbuf_addf(&why, "; last kernel launched: '%s' (operation %"
			    PRIu64 ", trace event %" PRIu64 ")",
			    d->kernels[ld->kernel].name, last - 1, l->event);
	}
	gm_log(run, "replay: error: %s", why.buf);
	gm_log(run, "replay: the watchdog (%g s) stops the run",
	       run->opt.watchdog_s);
	flush_with_timeout(run);
	gm_write_run(run, "hung", why.buf, 1);
	strbuf_release(&why);
	_exit(EXIT_HUNG);
}

/* ---- process set-up ---- */

static int device_setup(struct gm_run *run)
{
	struct gm_device_info *dev = &run->device;
	static const struct {
		CUdevice_attribute a;
		size_t off;
	} attrs[] = {
		{ CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR,
		  offsetof(struct gm_device_info, cc_major) },
		{ CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR,
		  offsetof(struct gm_device_info, cc_minor) },
		{ CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT,
		  offsetof(struct gm_device_info, sm_count) },
		{ CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR,
		  offsetof(struct gm_device_info, max_threads_per_sm) },
		{ CU_DEVICE_ATTRIBUTE_MAX_BLOCKS_PER_MULTIPROCESSOR,
		  offsetof(struct gm_device_info, max_blocks_per_sm) },
		{ CU_DEVICE_ATTRIBUTE_MAX_REGISTERS_PER_MULTIPROCESSOR,
		  offsetof(struct gm_device_info, regs_per_sm) },
		{ CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_MULTIPROCESSOR,
		  offsetof(struct gm_device_info, smem_per_sm) },
	};

	if (CU_CHECK(cuInit(0)) || CU_CHECK(cuDeviceGet(&run->dev, 0)) ||
	    CU_CHECK(cuDriverGetVersion(&dev->driver_version)) ||
	    CU_CHECK(cuDeviceGetName(dev->name, sizeof(dev->name), run->dev))) {
		return gm_error("cannot initialise CUDA");
	}
	for (size_t i = 0; i < sizeof(attrs) / sizeof(attrs[0]); i++) {
		if (CU_CHECK(cuDeviceGetAttribute(
			    (int *)((char *)dev + attrs[i].off), attrs[i].a,
			    run->dev))) {
			return -1;
		}
	}
	if (CU_CHECK(cuDevicePrimaryCtxRetain(&run->ctx, run->dev))) {
		return -1;
	}
	run->have_ctx = 1;
	return CU_CHECK(cuCtxSetCurrent(run->ctx));
}

/*
 * The GPU's state at the start (NVML, read-only): a machine without NVML
 * replays all the same, its manifest without gpu.* keys, as the log says.
 */
static void gpu_state_start(struct gm_run *run)
{
	char bus[64], why[512];

	if (cuDeviceGetPCIBusId(bus, sizeof(bus), run->dev) != CUDA_SUCCESS) {
		gm_log(run, "replay: no GPU clock, temperature or throttle "
		       "reasons in the manifest: cuDeviceGetPCIBusId failed");
		return;
	}
	if (gm_nvml_open(&run->nvml, bus, why, sizeof(why)) < 0) {
		gm_log(run, "replay: no GPU clock, temperature or throttle "
		       "reasons in the manifest: %s", why);
		return;
	}
	gm_gpu_state_read(&run->nvml, &run->gpu_start);
}

/*
 * A replay process of a process variant: under mps it must really be an
 * MPS client (CUDA runs without MPS, silently, when the daemon cannot be
 * reached); under procs it must not be one (a daemon that serves this
 * user at the default pipe directory takes every process that does not
 * say otherwise). It tells the board how its clock relates to
 * CLOCK_MONOTONIC.
 */
static int process_child_setup(struct gm_run *run)
{
	const char *pipe = getenv("CUDA_MPS_PIPE_DIRECTORY");
	int64_t best = 0;
	uint64_t span = UINT64_MAX;
	int mps = 0;

	if (CU_CHECK(cuDeviceGetAttribute(&mps, CU_DEVICE_ATTRIBUTE_MPS_ENABLED,
					  run->dev))) {
		return -1;
	}
	run->mps_client = !!mps;
	if (!mps && (run->opt.variant->flags & GM_VARIANT_MPS_DAEMON)) {
		gm_error_hint("the MPS control daemon did not answer at '%s'",
			      pipe ? pipe : "(unset)");
		return gm_error("this replay process is not an MPS client");
	}
	if (mps && !(run->opt.variant->flags & GM_VARIANT_MPS_DAEMON)) {
		gm_error_hint("an MPS control daemon answered at '%s'; stop it "
			      "(echo quit | nvidia-cuda-mps-control) to replay "
			      "time-sliced processes, or use variant mps",
			      pipe ? pipe : "/tmp/nvidia-mps, the default");
		return gm_error("this replay process is an MPS client, but "
				"variant '%s' runs without MPS",
				run->opt.variant->name);
	}
	/* The tightest of a few brackets: monotonic, replay clock, monotonic. */
	for (int k = 0; k < 16; k++) {
		struct timespec a, b;
		uint64_t t, ma, mb;
		clock_gettime(CLOCK_MONOTONIC, &a);
		t = gm_now();
		clock_gettime(CLOCK_MONOTONIC, &b);
		ma = (uint64_t)a.tv_sec * 1000000000u + (uint64_t)a.tv_nsec;
		mb = (uint64_t)b.tv_sec * 1000000000u + (uint64_t)b.tv_nsec;
		if (mb - ma < span) {
			span = mb - ma;
			best = (int64_t)(t - (ma + (mb - ma) / 2));
		}
	}
	gm_process_board_set_offset(run->board, run->process_index, best);
	return 0;
}

static void print_usage(FILE *f, const char *argv0,
			const struct gm_workload_desc *w)
{
	fprintf(f, "usage: %s [--variant V] [options]\n"
		"\n"
		"Replays workload '%s' (%u programs; reconstructed for variant "
		"%s)\nand writes a run directory (doc/run-directory.md).\n\n",
		argv0, w->name, w->nr_programs, w->variant);
	gm_replay_opts_help(f);
	fputs("\nexit status: 0 ok; 1 failed (e.g. a result differs); 2 usage; "
	      "3 hung;\n4 a --smem-pad or --kernel-module point that cannot "
	      "exist\n", f);
}

/* 0: go on; 1: --help was printed; 2: usage error (printed). */
static int parse_options(struct gm_run *run, int argc, char **argv,
			 char **owned_data, char **owned_run)
{
	const struct gm_workload_desc *w = run->w;
	int first = 0, rc;

	gm_replay_opts_init(&run->opt);
	rc = gm_replay_opts_parse(&run->opt, argc, argv, &first);
	if (rc == 1) {
		print_usage(stdout, argv[0], w);
		return 1;
	}
	if (rc == 0 && first < argc) {
		rc = gm_error("unexpected argument '%s'", argv[first]);
	}
	if (rc == 0) {
		rc = gm_replay_opts_finish(&run->opt, w->variant);
	}
	if (rc < 0) {
		fprintf(stderr, "error: %s\n", gm_error_message());
		gm_error_clear();
		fprintf(stderr, "(%s --help lists the options)\n", argv[0]);
		return 2;
	}
	if (!run->opt.data_dir) {
		char exe[4096];
		ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
		if (n <= 0) {
			fprintf(stderr, "error: cannot find the replay data; "
				"use --data\n");
			return 2;
		}
		exe[n] = 0;
		char *slash = strrchr(exe, '/');
		if (slash) {
			*slash = 0;
		}
		*owned_data = gm_xstrdup(exe);
		run->opt.data_dir = *owned_data;
	}
	if (!run->opt.run_dir) {
		*owned_run = gm_xasprintf("runs/%s.%s", w->name,
					  run->opt.variant->name);
		run->opt.run_dir = *owned_run;
	}
	return 0;
}

static void *thread_start(void *arg)
{
	struct gm_prog *p = arg;

	return p->d->thread(p);
}

/* The programs' state, the scheduler's and planner's, the watchdog:
 * everything the programs' threads share. 0 or -1. */
static int start_programs(struct gm_run *run)
{
	const struct gm_workload_desc *w = run->w;

	run->progs = gm_xcalloc(w->nr_programs, sizeof(*run->progs));
	run->targets = gm_xcalloc(w->nr_programs, sizeof(*run->targets));
	run->nr_groups = run->single ? w->nr_programs : 1;
	run->groups = gm_xcalloc(run->nr_groups, sizeof(*run->groups));
	for (unsigned g = 0; g < run->nr_groups; g++) {
		gm_repeat_init(&run->groups[g],
			       run->single ? 1 : w->nr_programs,
			       run->opt.min_replays, run->opt.one_shot);
	}
	for (unsigned i = 0; i < w->nr_programs; i++) {
		struct gm_prog *p = &run->progs[i];
		p->run = run;
		p->index = i;
		p->d = w->programs[i];
		p->wd = &run->targets[i];
		gm_watchdog_target_init(p->wd);
		atomic_init(&p->last_launch, 0);
		p->group = &run->groups[run->single ? i : 0];
		p->group_index = run->single ? 0 : i;
		for (unsigned j = 0; j < i; j++) {
			if (!strcmp(w->programs[j]->name, p->d->name)) {
				gm_error("programs %u and %u are both called "
					 "'%s'", j, i, p->d->name);
				return -1;
			}
		}
	}
	if ((run->sched->run_init && run->sched->run_init(run) < 0) ||
	    (run->planner->run_init && run->planner->run_init(run) < 0)) {
		return -1;
	}
	gm_open_loop_groups(run);
	if (gm_watchdog_start(&run->wd, run->targets, w->nr_programs,
			   run->opt.watchdog_s, on_hang, run) < 0) {
		return -1;
	}
	return 0;
}

/* Run each program on a thread of its own (@threads has room for
 * them) and wait for them all. */
static void run_threads(struct gm_run *run, pthread_t *threads)
{
	const struct gm_workload_desc *w = run->w;
	unsigned started = 0;

	for (unsigned i = 0; i < w->nr_programs; i++) {
		int err = pthread_create(&threads[i], NULL, thread_start,
					 &run->progs[i]);
		if (err) {
			errno = err;
			gm_error_errno("cannot start the thread of program '%s'",
				       w->programs[i]->name);
			gm_record_failure(run);
			/* Threads already started must not wait for it. */
			pthread_mutex_lock(&run->lock);
			run->arrived += 2 * (w->nr_programs - i);
			run->phase = run->arrived >= 2 * w->nr_programs ?
					    GM_PHASE_CLEANUP :
				    run->arrived >= w->nr_programs ?
					    GM_PHASE_REPLAY : GM_PHASE_INIT;
			pthread_cond_broadcast(&run->cond);
			pthread_mutex_unlock(&run->lock);
			break;
		}
		started++;
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(threads[i], NULL);
	}
	gm_watchdog_stop(&run->wd);
	if (atomic_load(&run->finishing)) {
		pause();	/* the watchdog is writing and will exit */
	}
}

/* Release what the run holds (its log last). */
static void release_run(struct gm_run *run)
{
	const struct gm_workload_desc *w = run->w;

	gm_nvml_close(&run->nvml);
	free_blobs(run);
	gm_addr_space_release(run);
	gm_process_board_detach(run->board);
	if (run->prof.tail) {
		gm_profiler_release(&run->prof);
	}
	if (run->have_ctx) {
		cuDevicePrimaryCtxRelease(run->dev);
	}
	if (run->groups) {
		for (unsigned g = 0; g < run->nr_groups; g++) {
			gm_repeat_release(&run->groups[g]);
		}
	}
	if (run->sched->run_release) {
		run->sched->run_release(run);
	}
	if (run->planner->run_release) {
		run->planner->run_release(run);
	}
	gm_elastic_index_release(&run->el_index);
	gm_probe_run_release(run);
	gm_open_loop_release(run);
	free(run->groups);
	for (unsigned i = 0; run->progs && i < w->nr_programs; i++) {
		free(run->progs[i].drv);
	}
	free(run->progs);
	free(run->targets);
	free(run->replays);
	if (run->log_fd >= 0) {
		close(run->log_fd);
	}
}

/* --process-child: this process replays program I of @w alone, @one
 * its workload of one program, the parent's board attached. 0, or the
 * exit status of a refusal. */
static int become_process_child(struct gm_run *run,
				const struct gm_workload_desc *w,
				struct gm_workload_desc *one)
{
	if (!(run->opt.variant->flags & GM_VARIANT_PROCESSES) ||
	    (unsigned)run->opt.process_child >= w->nr_programs) {
		fprintf(stderr, "error: --process-child %d: no such program "
			"of a process variant\n", run->opt.process_child);
		return 2;
	}
	run->board = gm_process_board_attach(run->opt.board_fd);
	if (!run->board) {
		gm_error_report(stderr);
		return 1;
	}
	run->process_index = (unsigned)run->opt.process_child;
	*one = *w;
	one->programs = &w->programs[run->process_index];
	one->nr_programs = 1;
	return 0;
}

/* Write the run directory, ok or failed; the exit status. */
static int finish_run(struct gm_run *run)
{
	int exit_code;

	if (run->failed) {
		gm_write_run(run, "failed", run->failure, 0);
		gm_log(run, "replay: failed: %s", run->failure);
		exit_code = run->no_point ? GM_REPLAY_EXIT_NO_POINT : 1;
	} else {
		exit_code = gm_write_run(run, "ok", NULL, 0) < 0 ? 1 : 0;
		if (!exit_code) {
			gm_log(run, "replay: ok: %zu replays of %u programs "
			       "recorded in '%s'", run->nr_replays,
			       run->w->nr_programs, run->opt.run_dir);
		}
	}
	return exit_code;
}

/* Before anything runs: the requests' arrival times, drawn for every
 * program of the whole workload @full (open_loop.h). 0 or -1. */
static int setup_arrivals(struct gm_run *run,
			  const struct gm_workload_desc *full)
{
	const char **all = gm_xcalloc(full->nr_programs + 1, sizeof(*all));
	int rc;

	for (unsigned i = 0; i < full->nr_programs; i++) {
		all[i] = full->programs[i]->name;
	}
	rc = gm_open_loop_setup(run, all, full->nr_programs);
	free(all);
	if (rc < 0) {
		gm_error_report(stderr);
		gm_open_loop_release(run);
		return -1;
	}
	return 0;
}

/* Open the run's log and say what runs. */
static void start_log(struct gm_run *run)
{
	const struct gm_workload_desc *w = run->w;
	char *log = gm_path_join(run->opt.run_dir, "log");

	run->log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
				     O_CLOEXEC, 0666);
	free(log);
	gm_run_utc_now(run->started_at, sizeof(run->started_at));
	if (run->opt.one_shot) {
		gm_log(run, "replay: workload '%s', variant %s, %u programs, "
		       "one-shot: each replayed once, run directory '%s'",
		       w->name, run->opt.variant->name, w->nr_programs,
		       run->opt.run_dir);
	} else {
		gm_log(run, "replay: workload '%s', variant %s, %u programs, "
		       "at least %u replays each, run directory '%s'", w->name,
		       run->opt.variant->name, w->nr_programs,
		       run->opt.min_replays, run->opt.run_dir);
	}
}

/* A sweep's --smem-pad or --kernel-module that names no kernel of @w is
 * a mistake (a kernel's mangled name mistyped): said before any work. */
static int check_kernel_knobs(const struct gm_workload_desc *w,
			      const struct gm_replay_opts *o)
{
	for (int pad = 0; pad < 2; pad++) {
		const struct gm_kernel_knob *t = pad ? o->smem_pad
						     : o->kernel_module;
		unsigned nr = pad ? o->nr_smem_pad : o->nr_kernel_module;
		for (unsigned i = 0; i < nr; i++) {
			int found = 0;
			for (uint32_t p = 0; p < w->nr_programs && !found; p++) {
				const struct gm_program_desc *d = w->programs[p];
				for (uint32_t k = 0; k < d->nr_kernels && !found;
				     k++) {
					found = gm_kernel_knob_is(
						&t[i], d->kernels[k].name);
				}
			}
			if (!found) {
				return gm_error("%s: no program of workload '%s' "
						"has a kernel '%.*s'", pad ?
						"--smem-pad" : "--kernel-module",
						w->name, (int)t[i].kernel_len,
						t[i].kernel);
			}
		}
	}
	return 0;
}

int gm_replay_main(int argc, char **argv, const struct gm_workload_desc *w)
{
	struct gm_run run;
	struct gm_workload_desc one;	/* a replay process's one program */
	const struct gm_workload_desc *full;	/* the whole workload */
	char *owned_data = NULL, *owned_run = NULL;
	pthread_t *threads = NULL;
	int rc, exit_code = 1;

	memset(&run, 0, sizeof(run));
	run.log_fd = -1;
	pthread_mutex_init(&run.lock, NULL);
	pthread_cond_init(&run.cond, NULL);
	if (!w || w->abi != GM_REPLAY_ABI) {
		fprintf(stderr, "error: this replay program was generated for "
			"replay ABI %u, the library implements %u; reconstruct "
			"it again\n", w ? w->abi : 0, GM_REPLAY_ABI);
		return 1;
	}
	run.w = w;
	full = w;
	rc = parse_options(&run, argc, argv, &owned_data, &owned_run);
	if (rc) {
		return rc == 1 ? 0 : rc;
	}
	if (run.opt.process_child >= 0) {
		rc = become_process_child(&run, w, &one);
		if (rc) {
			return rc;
		}
		run.w = w = &one;
	}
	/* Before anything maps memory (cuInit, CUPTI, the blobs): hold the
	 * captured ranges this process places. The parent of a process
	 * variant places none; each replay process holds its program's. */
	if (!(run.opt.variant->flags & GM_VARIANT_PROCESSES) || run.board) {
		gm_addr_space_hold(&run);
	}
	if (setup_arrivals(&run, full) < 0) {
		gm_addr_hold_release(&run.addr_hold);
		return 2;
	}
	run.single = !!(run.opt.variant->flags & GM_VARIANT_ALONE);
	run.sched = gm_sched_find(run.opt.variant->sched);
	if (!run.sched) {
		fprintf(stderr, "error: this replay runtime has no scheduler for "
			"variant '%s'\n", run.opt.variant->name);
		gm_addr_hold_release(&run.addr_hold);
		return 1;
	}
	/* Polled completion needs the transformed kernels' flag, a policy
	 * their elasticity and the probe their probe code: all run the
	 * elastic modules (with elasticity off where the planner does not
	 * ask for more). */
	if ((run.opt.completion == GM_COMPLETION_POLL ||
	     run.opt.probe != GM_PROBE_OFF ||
	     (run.opt.variant->flags & GM_VARIANT_POLICY)) &&
	    run.opt.elastic.mode == GM_ELASTIC_OFF) {
		run.opt.elastic.mode = GM_ELASTIC_IDENTITY;
	}
	run.planner = gm_planner_for(&run.opt);
	if (run.opt.elastic.mode != GM_ELASTIC_OFF &&
	    gm_elastic_index_read(&run.el_index, run.opt.data_dir) < 0) {
		gm_error_report(stderr);
		gm_elastic_index_release(&run.el_index);
		free(owned_data);
		free(owned_run);
		gm_addr_hold_release(&run.addr_hold);
		return 1;
	}
	if (!w->nr_programs) {
		fprintf(stderr, "error: the workload has no programs\n");
		gm_addr_hold_release(&run.addr_hold);
		return 1;
	}
	if (check_kernel_knobs(w, &run.opt) < 0) {
		gm_error_report(stderr);
		gm_elastic_index_release(&run.el_index);
		free(owned_data);
		free(owned_run);
		gm_addr_hold_release(&run.addr_hold);
		return 2;
	}
	if (gm_run_dir_prepare(run.opt.run_dir, run.opt.force) < 0) {
		gm_error_report(stderr);
		gm_addr_hold_release(&run.addr_hold);
		return 1;
	}
	start_log(&run);

	if ((run.opt.variant->flags & GM_VARIANT_PROCESSES) && !run.board) {
		exit_code = gm_process_run(&run, argc, argv);
		goto release;
	}
	/* Eager loading: no module load inside a timed replay. */
	setenv("CUDA_MODULE_LOADING", "EAGER", 1);
	if (run.opt.profile && gm_profiler_start(&run.prof) < 0) {
		gm_record_failure(&run);
		goto finish;
	}
	/* The captured addresses before any device memory of the runtime's
	 * own (the blobs' page-locked copies included). */
	if (device_setup(&run) < 0 || gm_addr_space_init(&run) < 0 ||
	    load_blobs(&run) < 0) {
		gm_record_failure(&run);
		goto finish;
	}
	gm_log(&run, "replay: device '%s' (cc %d.%d, %d SMs), driver %d",
	       run.device.name, run.device.cc_major, run.device.cc_minor,
	       run.device.sm_count, run.device.driver_version);
	gpu_state_start(&run);
	if (run.board && process_child_setup(&run) < 0) {
		gm_record_failure(&run);
		goto finish;
	}
	if (run.opt.elastic.mode != GM_ELASTIC_OFF) {
		char mode[32], slice[32];
		gm_elastic_setting_name(&run.opt.elastic, mode, sizeof(mode));
		gm_elastic_slice_name(&run.opt.elastic, slice, sizeof(slice));
		gm_log(&run, "replay: elastic %s, slice %s (0: none), %zu "
		       "elastic modules for %s", mode, slice, run.el_index.nr,
		       run.el_index.arch);
	}
	if (gm_probe_run_init(&run) < 0) {
		gm_record_failure(&run);
		goto finish;
	}

	if (start_programs(&run) < 0) {
		gm_record_failure(&run);
		goto finish;
	}
	threads = gm_xcalloc(w->nr_programs, sizeof(*threads));
	run_threads(&run, threads);

finish:
	if (run.have_ctx) {
		cuCtxSynchronize();
	}
	if (run.prof.enabled && gm_profiler_flush(&run.prof, 1) < 0) {
		gm_error_report(stderr);
	}
	exit_code = finish_run(&run);
release:
	release_run(&run);
	free(threads);
	free(owned_data);
	free(owned_run);
	return exit_code;
}
