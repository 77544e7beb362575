/* SPDX-License-Identifier: MIT */
/*
 * The run directory of one replay process (doc/run-directory.md): its
 * activity, replays, driver calls and, last, the manifest. The manifest's
 * keys that the process variants' merged manifest shares
 * (gm_manifest_program() and the like) are here too.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "build/version.h"
#include "addr_space.h"
#include "drvcalls.h"
#include "error.h"
#include "fs.h"
#include "kvfile.h"
#include "mps_daemon.h"
#include "probe.h"
#include "launch_plan.h"
#include "replay_int.h"
#include "sched.h"
#include "strbuf.h"

static int cmp_replay(const void *a, const void *b, void *arg)
{
	const struct run_replay_rec *x = a, *y = b;
	const struct gm_workload_desc *w = arg;
	unsigned ix = 0, iy = 0;

	for (unsigned i = 0; i < w->nr_programs; i++) {
		if (w->programs[i]->name == x->program) {
			ix = i;
		}
		if (w->programs[i]->name == y->program) {
			iy = i;
		}
	}
	if (ix != iy) {
		return ix < iy ? -1 : 1;
	}
	return x->replay < y->replay ? -1 : x->replay > y->replay;
}

void gm_manifest_program(struct kvfile *kv, unsigned i,
			 const struct gm_program_desc *d)
{
	uint64_t pageable = 0, warm = 0;
	char key[64];

	snprintf(key, sizeof(key), "program.%u.name", i);
	kvfile_set(kv, key, d->name);
	snprintf(key, sizeof(key), "program.%u.bundle", i);
	kvfile_set(kv, key, d->bundle ? d->bundle : "");
	snprintf(key, sizeof(key), "program.%u.deterministic", i);
	kvfile_set(kv, key, d->deterministic ? "1" : "0");
	for (uint64_t o = 0; o < d->nr_ops; o++) {
		const struct gm_op *op = &d->ops[o];
		pageable += gm_op_pageable_d2h(op);
		warm += gm_op_host_warm(op);
	}
	snprintf(key, sizeof(key), "program.%u.d2h_pageable", i);
	kvfile_set_u64(kv, key, pageable);
	snprintf(key, sizeof(key), "program.%u.d2h_warm", i);
	kvfile_set_u64(kv, key, warm);
}

void gm_manifest_host_time(struct kvfile *kv, const struct gm_replay_opts *o)
{
	kvfile_set(kv, "host_time", gm_host_time_name(o->host_time));
	if (o->max_host_gap_s >= 0) {
		kvfile_setf(kv, "max_host_gap_s", "%.9g", o->max_host_gap_s);
	}
}

void gm_manifest_repetition(struct kvfile *kv, const struct gm_replay_opts *o)
{
	kvfile_set_u64(kv, "run.repetition", o->repetition);
	if (o->have_study_seed) {
		kvfile_set_u64(kv, "study.seed", o->study_seed);
	}
}

static void fill_manifest(struct gm_run *run, struct kvfile *kv,
			  const char *status, const char *failure,
			  uint64_t dropped)
{
	const struct gm_workload_desc *w = run->w;
	const struct gm_device_info *dev = &run->device;
	const char *conn = getenv("CUDA_DEVICE_MAX_CONNECTIONS");
	char now[32];
	uint64_t streams = 0;

	kvfile_set(kv, "format", RUN_FORMAT);
	kvfile_set(kv, "workload", w->name);
	kvfile_set(kv, "variant", run->opt.variant->name);
	kvfile_set(kv, "policy", run->opt.policy ? run->opt.policy : "none");
	kvfile_set_u64(kv, "programs", w->nr_programs);
	for (unsigned i = 0; i < w->nr_programs; i++) {
		gm_manifest_program(kv, i, w->programs[i]);
		gm_addr_manifest(run, kv, i);
		if (run->progs) {
			gm_host_gaps_manifest(&run->progs[i].hg, kv, i);
		}
		/* + the runtime's own */
		streams += (run->progs && run->sched->nr_streams ?
			    run->sched->nr_streams(&run->progs[i]) :
			    w->programs[i]->nr_streams) + 1;
	}
	kvfile_set(kv, "device.name", dev->name[0] ? dev->name : "unknown");
	/* A study spread over GPUs pins each run to one: say which. */
	const char *vis = gm_visible_devices();
	if (vis && *vis) {
		kvfile_set(kv, "device.visible", vis);
	}
	/* Runs of one study may come from several nodes (SLURM). */
	char host[256];
	if (!gethostname(host, sizeof(host))) {
		host[sizeof(host) - 1] = '\0';
		kvfile_set(kv, "hostname", host);
	}
	kvfile_setf(kv, "device.cc", "%d.%d", dev->cc_major, dev->cc_minor);
	kvfile_set_u64(kv, "device.sm_count", dev->sm_count > 0 ? dev->sm_count : 1);
	kvfile_set_u64(kv, "device.max_threads_per_sm",
		       dev->max_threads_per_sm > 0 ? dev->max_threads_per_sm : 1);
	kvfile_set_u64(kv, "device.max_blocks_per_sm",
		       dev->max_blocks_per_sm > 0 ? dev->max_blocks_per_sm : 1);
	kvfile_set_u64(kv, "device.regs_per_sm",
		       dev->regs_per_sm > 0 ? dev->regs_per_sm : 1);
	kvfile_set_u64(kv, "device.smem_per_sm",
		       dev->smem_per_sm > 0 ? dev->smem_per_sm : 0);
	kvfile_set_u64(kv, "driver_version", (uint64_t)dev->driver_version);
	kvfile_set_u64(kv, "runtime_version", CUDA_VERSION);
	kvfile_set(kv, "cuda_device_max_connections",
		   conn && *conn ? conn : "8");
	kvfile_set_u64(kv, "streams", streams);
	kvfile_set_u64(kv, "min_replays", run->opt.min_replays);
	kvfile_set(kv, "replay.one_shot", run->opt.one_shot ? "1" : "0");
	gm_manifest_repetition(kv, &run->opt);
	kvfile_set(kv, "gpumix_version", GM_VERSION_STRING);
	kvfile_set(kv, "started_at", run->started_at);
	gm_run_utc_now(now, sizeof(now));
	kvfile_set(kv, "finished_at", now);
	kvfile_set(kv, "status", status);
	if (failure && *failure) {
		kvfile_set(kv, "failure", failure);
	}
	kvfile_set_u64(kv, "cupti.dropped_records", dropped);
	kvfile_set(kv, "profiled", run->prof.enabled ? "1" : "0");
	kvfile_setf(kv, "watchdog_s", "%g", run->opt.watchdog_s);
	kvfile_set(kv, "host_pages", run->opt.warm_host ? "warm" : "fresh");
	kvfile_set(kv, "host_callbacks",
		   gm_host_callbacks_name(run->opt.host_callbacks));
	gm_manifest_host_time(kv, &run->opt);
	gm_open_loop_manifest(run, kv);
	gm_gpu_state_manifest(kv, "gpu.start", &run->gpu_start);
	gm_gpu_state_manifest(kv, "gpu.end", &run->gpu_end);
	if (run->board) {
		/* A replay process's own; the merge adds them up. */
		kvfile_set_u64(kv, "processes.mps_clients", run->mps_client);
	}
	if (run->sched->manifest) {
		run->sched->manifest(run, kv);
	}
	if (run->planner->manifest) {
		run->planner->manifest(run, kv);
	}
	gm_probe_manifest(run, kv);
	if (run->opt.elastic.mode != GM_ELASTIC_OFF) {
		char mode[32];
		gm_elastic_setting_name(&run->opt.elastic, mode, sizeof(mode));
		/* The elastic variant's grids come from its policy. */
		kvfile_set(kv, "elastic", run->planner == &gm_planner_policy ?
			   "policy" : mode);
		gm_elastic_slice_name(&run->opt.elastic, mode, sizeof(mode));
		kvfile_set(kv, "elastic.slice", mode);
		kvfile_set(kv, "elastic.arch", run->el_index.arch ?
			   run->el_index.arch : "");
		kvfile_set_u64(kv, "elastic.modules", run->el_index.nr);
		kvfile_set_u64(kv, "elastic.launches",
			       atomic_load(&run->el_count.elastic));
		kvfile_set_u64(kv, "elastic.physical_launches",
			       atomic_load(&run->el_count.physical));
		kvfile_set_u64(kv, "elastic.identity_launches",
			       atomic_load(&run->el_count.identity));
		kvfile_set_u64(kv, "elastic.unmodified_launches",
			       atomic_load(&run->el_count.unmodified));
		kvfile_set_u64(kv, "elastic.identity_shape_launches",
			       atomic_load(&run->el_count.identity_shape));
	}
}

/* drivercalls.tsv: each program thread's driver calls (drvcalls.h). */
static int write_drivercalls(struct gm_run *run)
{
	struct strbuf sb = STRBUF_INIT;
	uint64_t n = 0;
	char *path;
	int ret;

	for (unsigned i = 0; run->progs && i < run->w->nr_programs; i++) {
		n += gm_drv_format(run->progs[i].drv, run->w->programs[i]->name,
				   &sb);
		if (run->progs[i].drv && run->progs[i].drv->lost) {
			gm_log(run, "replay: program '%s': %" PRIu64 " driver "
			       "calls of sites past the table's %d not timed",
			       run->w->programs[i]->name,
			       run->progs[i].drv->lost, GM_DRV_SITES);
		}
	}
	strbuf_addf(&sb, "END\t%" PRIu64 "\n", n);
	path = gm_path_join(run->opt.run_dir, "drivercalls.tsv");
	ret = gm_write_file_atomic(path, sb.buf, sb.len, 1);
	free(path);
	strbuf_release(&sb);
	return ret;
}

/* Write activity.tsv, replays.tsv and, last, the manifest. */
int gm_write_run(struct gm_run *run, const char *status,
		 const char *failure, int hung)
{
	const struct gm_workload_desc *w = run->w;
	struct kvfile kv = KVFILE_INIT;
	const char **names = gm_xcalloc(w->nr_programs + 1, sizeof(char *));
	struct run_replay_rec *reps;
	size_t nr;
	uint64_t written = 0, unattributed = 0, incomplete = 0, dropped;
	int ret = 0;

	for (unsigned i = 0; i < w->nr_programs; i++) {
		names[i] = w->programs[i]->name;
	}
	/* (A hung GPU is not asked: the watchdog must write at once.) */
	if (!hung) {
		gm_gpu_state_read(&run->nvml, &run->gpu_end);
	}
	dropped = hung ? gm_profiler_dropped_so_far(&run->prof) :
			 gm_profiler_dropped(&run->prof);
	if (gm_profiler_write(&run->prof, run->opt.run_dir, names,
			      w->nr_programs, &written, &unattributed,
			      &incomplete) < 0) {
		gm_error_report(stderr);
		ret = -1;
	}
	if (gm_probe_write(run, &run->prof) < 0 ||
	    write_drivercalls(run) < 0) {
		gm_error_report(stderr);
		ret = -1;
	}
	pthread_mutex_lock(&run->lock);
	nr = run->nr_replays;
	reps = gm_xcalloc(nr + 1, sizeof(*reps));
	if (nr) {
		memcpy(reps, run->replays, nr * sizeof(*reps));
	}
	pthread_mutex_unlock(&run->lock);
	qsort_r(reps, nr, sizeof(*reps), cmp_replay, (void *)w);
	if (gm_run_write_replays(run->opt.run_dir, reps, nr) < 0 ||
	    gm_open_loop_write(run) < 0) {
		gm_error_report(stderr);
		ret = -1;
	}
	free(reps);
	if (dropped) {
		gm_log(run, "replay: warning: CUPTI dropped %" PRIu64
		       " activity records", dropped);
	}
	gm_log(run, "replay: %" PRIu64 " activity records written, %" PRIu64
	       " outside the programs left out", written, unattributed);
	if (incomplete) {
		gm_log(run, "replay: %" PRIu64 " GPU records without an end "
		       "(still running) left out", incomplete);
	}
	if (ret < 0 && !strcmp(status, "ok")) {
		status = "failed";
		failure = "cannot write the run directory";
	}
	fill_manifest(run, &kv, status, failure, dropped);
	if (gm_run_write_manifest(run->opt.run_dir, &kv) < 0) {
		gm_error_report(stderr);
		ret = -1;
	}
	kvfile_release(&kv);
	free(names);
	return ret;
}

