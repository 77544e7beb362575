/* SPDX-License-Identifier: MIT */
/*
 * One program of a replay (struct gm_prog): the calls its generated thread
 * makes. gm_prog_init() checks its tables, plans its bulk allocator,
 * loads its modules, resolves kernels and globals, creates its streams
 * and events, then waits at the init barrier; gm_replay_next() ends one
 * timed replay (drain, verify, record) and starts the next while the
 * repetition controller says so (in `single`, when it is the program's
 * turn); gm_prog_cleanup() waits at the cleanup barrier and frees
 * everything. The operations themselves are interp.c's.
 */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "addr_space.h"
#include "clock.h"
#include "copy_nd.h"
#include "cu_check.h"
#include "error.h"
#include "graph_ops.h"
#include "kernel_knobs.h"
#include "prog_check.h"
#include "elastic_launch.h"
#include "launch_plan.h"
#include "process_board.h"
#include "probe.h"
#include "sched.h"
#include "fs.h"
#include "replay_int.h"
#include "strbuf.h"

/* How long a process variant's replay process waits for the others at a barrier: a
 * safety net (the parent stops the board when a process dies). */
#define MPS_WAIT_S 900.0

/*
 * Check every id and offset once, and plan the bulk allocator: the same
 * placement decisions as the replay, in an unbounded chunk, give the
 * device memory the program needs.
 */
static int validate_and_plan(struct gm_prog *p, uint64_t *pool_bytes,
			     int *pinned_arena)
{
	const struct gm_program_desc *d = p->d;
	struct bulk_alloc plan;
	uint64_t *addr = NULL, *size = NULL;
	int ret = -1;

	*pinned_arena = 0;
	if (gm_desc_check_tables(p->run, d) < 0) {
		return gm_error("program '%s': bad tables", d->name);
	}
	gm_bulk_alloc_plan_init(&plan, 0);
	addr = gm_xcalloc(d->nr_allocs + 1, sizeof(*addr));
	size = gm_xcalloc(d->nr_allocs + 1, sizeof(*size));
	for (uint64_t i = 0; i < d->nr_ops; i++) {
		const struct gm_op *op = &d->ops[i];
		if (gm_desc_check_op(p->run, d, op) < 0) {
			gm_error("program '%s': operation %" PRIu64
				 " (trace event %" PRIu64 ") is malformed",
				 d->name, i, op->event);
			goto out;
		}
		if ((op->code == GM_OP_D2H || op->code == GM_OP_COPY_OUT) &&
		    (op->flags & GM_F_PINNED)) {
			*pinned_arena = 1;
		}
		if (op->code == GM_OP_ALLOC) {
			if (size[op->a]) {
				gm_error("program '%s': operation %" PRIu64
					 " allocates live allocation %" PRIu32,
					 d->name, i, op->a);
				goto out;
			}
			if (gm_addr_captured(p) &&
			    !gm_addr_holds(p, op->x, op->z)) {
				gm_error("program '%s': operation %" PRIu64
					 " allocates %" PRIu64 " bytes at 0x%"
					 PRIx64 ", outside its captured ranges",
					 d->name, i, op->z, op->x);
				goto out;
			}
			/* (the plan's one chunk is 2^60 bytes: a request it
			 * cannot hold fits no device) */
			if (gm_bulk_alloc_get(&plan, op->z, &addr[op->a])) {
				gm_error("program '%s': operation %" PRIu64
					 " allocates %" PRIu64 " bytes, more "
					 "than any device memory", d->name, i,
					 op->z);
				goto out;
			}
			size[op->a] = gm_bulk_alloc_round(&plan, op->z);
		} else if (op->code == GM_OP_FREE) {
			if (!size[op->a]) {
				gm_error("program '%s': operation %" PRIu64
					 " frees allocation %" PRIu32
					 " which is not live", d->name, i,
					 op->a);
				goto out;
			}
			gm_bulk_alloc_put(&plan, addr[op->a], size[op->a]);
			size[op->a] = 0;
		}
	}
	/* At the captured addresses, the ranges are the memory. */
	*pool_bytes = gm_addr_captured(p) ? 0 : plan.high_water;
	ret = 0;
out:
	free(addr);
	free(size);
	gm_bulk_alloc_release(&plan);
	return ret;
}

/* ---- per-program init ---- */


static int load_modules(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;

	p->libs = gm_xcalloc(d->nr_modules + 1, sizeof(*p->libs));
	p->el_image = gm_xcalloc(d->nr_modules + 1, sizeof(*p->el_image));
	for (uint32_t i = 0; i < d->nr_modules; i++) {
		const struct gm_module_desc *m = &d->modules[i];
		const char *hash;
		uint64_t size;
		char *name, *path;
		uint8_t *image;
		int ret, err = 0;
		const char *own = gm_kernel_module_file(p, i, &err);

		if (err) {
			return -1;
		}
		if (own) {
			/* (as captured: its kernels are never elastic) */
			if (gm_load_kernel_module(p, i, own) < 0) {
				return -1;
			}
			p->nr_libs_loaded = i + 1;
			continue;
		}
		name = gm_elastic_module_file(p->run, m, &size, &hash,
					      &p->el_image[i]);
		path = gm_path_join(p->run->opt.data_dir, name);
		image = gm_xmalloc(size + 1);

		free(name);
		/* PTX text from a file (cuModuleLoad) has no NUL of its own. */
		image[size] = 0;
		ret = gm_read_exact(path, image, size);
		if (!ret) {
			ret = gm_check_hash(path, image, size, hash);
		}
		if (!ret) {
			ret = CU_CHECK(cuLibraryLoadData(&p->libs[i], image,
							 NULL, NULL, 0, NULL,
							 NULL, 0));
		}
		free(image);
		if (ret < 0) {
			gm_error("cannot load module %" PRIu32 " ('%s')", i,
				 path);
			free(path);
			return -1;
		}
		if (gm_debug_on() && p->el_image[i]) {
			gm_log(p->run, "replay: elastic: program=%s, module=%"
			       PRIu32 ", loaded '%s'", d->name, i, path);
		}
		free(path);
		p->nr_libs_loaded = i + 1;
	}
	gm_elastic_classify(p);
	return 0;
}


static int resolve_kernels(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;

	p->funcs = gm_xcalloc(d->nr_kernels + 1, sizeof(*p->funcs));
	p->kargs = gm_xcalloc(d->nr_kernels + 1, sizeof(*p->kargs));
	for (uint32_t i = 0; i < d->nr_kernels; i++) {
		const struct gm_kernel_desc *k = &d->kernels[i];
		CUkernel kern;

		gm_smem_pad_setup(p, i);
		if (CU_CHECK(cuLibraryGetKernel(&kern, p->libs[k->module],
						k->name)) ||
		    CU_CHECK(cuKernelGetFunction(&p->funcs[i], kern))) {
			return gm_error("cannot resolve kernel '%s'", k->name);
		}
		for (uint32_t a = 0; a < k->nr_attrs; a++) {
			if (CU_CHECK(cuFuncSetAttribute(
				    p->funcs[i],
				    (CUfunction_attribute)k->attrs[a].attrib,
				    k->attrs[a].value))) {
				return gm_error("cannot set attribute %" PRId32
						" of kernel '%s'",
						k->attrs[a].attrib, k->name);
			}
		}
		/* After the captured attributes: the padding's opt-in must
		 * not be undone by the program's own, smaller one. */
		if (gm_smem_pad_optin(p, i) < 0 ||
		    gm_knob_cooperative_check(p, i) < 0) {
			return -1;
		}
		/* One more slot: an elastic kernel's gm_elastic_args. */
		p->kargs[i] = gm_xcalloc(k->nr_params + 2, sizeof(void *));
		for (uint32_t j = 0; j < k->nr_params; j++) {
			p->kargs[i][j] = p->param_buf + k->param_offset[j];
		}
		if (p->el_class[i] != GM_ELASTIC_NONE) {
			p->kargs[i][k->nr_params] = &p->el_args;
		}
	}
	return 0;
}

static int resolve_globals(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;

	p->globals = gm_xcalloc(d->nr_globals + 1, sizeof(*p->globals));
	p->global_size = gm_xcalloc(d->nr_globals + 1, sizeof(uint64_t));
	for (uint32_t i = 0; i < d->nr_globals; i++) {
		const struct gm_global_desc *g = &d->globals[i];
		size_t bytes = 0;

		if (CU_CHECK(cuLibraryGetGlobal(&p->globals[i], &bytes,
						p->libs[g->module], g->name))) {
			return gm_error("cannot resolve global '%s'", g->name);
		}
		if (bytes != g->size) {
			gm_log(p->run, "replay: warning: program '%s': global "
			       "'%s' has %zu bytes, the capture saw %" PRIu64,
			       d->name, g->name, bytes, g->size);
		}
		p->global_size[i] = bytes;
	}
	return 0;
}

int gm_prog_stream_create(struct gm_prog *p, CUstream *out, int priority,
			  const char *what)
{
	struct gm_run *run = p->run;
	uint32_t id = 0, ctx_id = 0;

	if (run->sched->stream_create ?
		    run->sched->stream_create(p, out, priority) < 0 :
		    CU_CHECK(cuStreamCreateWithPriority(
			    out, CU_STREAM_NON_BLOCKING, priority))) {
		return gm_error("cannot create %s", what);
	}
	if (run->prof.enabled) {
		if (CUPTI_CHECK(cuptiGetContextId(p->ctx, &ctx_id)) ||
		    CUPTI_CHECK(cuptiGetStreamIdEx(p->ctx, *out, 0, &id))) {
			return -1;
		}
		if (gm_profiler_own_stream(&run->prof, ctx_id, id,
					   p->index) < 0) {
			return gm_error("cannot attribute %s", what);
		}
	}
	if (gm_debug_on()) {
		gm_log(run, "replay: created stream: program=%s, %s, "
		       "priority=%d, cupti-id=%" PRIu32, p->d->name, what,
		       priority, id);
	}
	return 0;
}

static int create_streams(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;
	struct gm_run *run = p->run;

	p->streams = gm_xcalloc(d->nr_streams, sizeof(*p->streams));
	for (uint32_t s = 0; !run->sched->own_streams && s < d->nr_streams;
	     s++) {
		char what[32];
		snprintf(what, sizeof(what), "stream-id=%" PRIu32, s);
		int prio = run->sched->stream_priority ?
				   run->sched->stream_priority(
					   p, d->streams[s].priority) :
				   d->streams[s].priority;
		if (gm_prog_stream_create(p, &p->streams[s], prio, what) < 0) {
			return -1;
		}
		p->nr_streams_created = s + 1;
	}
	/* The scheduler's own streams, if any, before the runtime's. */
	if (run->sched->prog_init && run->sched->prog_init(p) < 0) {
		return -1;
	}
	/* Not registered with the profiler: its work is no program's. Made
	 * after the program's streams so they get the hardware queues they
	 * would get without it. */
	if (run->sched->stream_create ?
		    run->sched->stream_create(p, &p->aux_stream, 0) < 0 :
		    CU_CHECK(cuStreamCreateWithPriority(
			    &p->aux_stream, CU_STREAM_NON_BLOCKING, 0))) {
		return -1;
	}
	for (uint32_t s = 1; !run->sched->own_streams && s < d->nr_streams;
	     s++) {
		if (d->streams[s].flags & GM_STREAM_BLOCKING) {
			p->nr_blocking++;
		}
	}
	if (p->nr_blocking) {
		uint32_t n = 0;
		p->blocking = gm_xcalloc(p->nr_blocking, sizeof(uint32_t));
		p->sync_events = gm_xcalloc(d->nr_streams, sizeof(CUevent));
		p->dirty = gm_xcalloc(d->nr_streams, 1);
		p->seen_gen = gm_xcalloc(d->nr_streams, sizeof(uint64_t));
		for (uint32_t s = 0; s < d->nr_streams; s++) {
			if (s && (d->streams[s].flags & GM_STREAM_BLOCKING)) {
				p->blocking[n++] = s;
			}
			if (CU_CHECK(cuEventCreate(&p->sync_events[s],
						   CU_EVENT_DISABLE_TIMING))) {
				return -1;
			}
		}
	}
	p->graphs = gm_xcalloc(d->nr_graphs + 1, sizeof(*p->graphs));
	p->execs = gm_xcalloc(d->nr_execs + 1, sizeof(*p->execs));
	p->nodes = gm_xcalloc(d->nr_nodes + 1, sizeof(*p->nodes));
	p->capturing = gm_xcalloc(d->nr_streams + 1, 1);
	p->events = gm_xcalloc(d->nr_events + 1, sizeof(*p->events));
	for (uint32_t e = 0; !run->sched->own_streams && e < d->nr_events;
	     e++) {
		if (CU_CHECK(cuEventCreate(&p->events[e], d->event_flags[e]))) {
			return gm_error("cannot create event %" PRIu32, e);
		}
		p->nr_events_created = e + 1;
	}
	return 0;
}

static int prog_init(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;
	struct gm_run *run = p->run;
	uint64_t pool_bytes = 0, max_params = 8;
	int pinned_arena;

	if (validate_and_plan(p, &pool_bytes, &pinned_arena) < 0) {
		return -1;
	}
	for (uint32_t i = 0; i < d->nr_params; i++) {
		if (d->params[i].size > max_params) {
			max_params = d->params[i].size;
		}
	}
	/* Room for an elastic kernel's parameter after the buffer too. */
	p->param_buf = gm_xcalloc(1, max_params + 16 + GM_ELASTIC_PARAM_SIZE);
	p->checks = gm_xcalloc(d->nr_checks + 1, sizeof(*p->checks));
	for (uint32_t i = 0; i < d->nr_checks; i++) {
		if (gm_hash_parse(d->checks[i], &p->checks[i]) < 0) {
			return gm_error("check %" PRIu32 ": bad hash '%s'", i,
					d->checks[i]);
		}
	}
	p->alloc_ptr = gm_xcalloc(d->nr_allocs + 1, sizeof(*p->alloc_ptr));
	p->alloc_size = gm_xcalloc(d->nr_allocs + 1, sizeof(*p->alloc_size));
	p->tex = gm_xcalloc(d->nr_textures + 1, sizeof(*p->tex));
	if (!p->ctx) {
		p->ctx = run->ctx;
	}
	if (CU_CHECK(cuCtxSetCurrent(p->ctx)) || load_modules(p) < 0 ||
	    resolve_kernels(p) < 0 ||
	    (run->planner->prog_init && run->planner->prog_init(p) < 0) ||
	    resolve_globals(p) < 0 || create_streams(p) < 0 ||
	    gm_hostmem_init(p) < 0 || gm_arrays_init(p) < 0) {
		return -1;
	}
	gm_bulk_alloc_init(&p->pool, 0);
	if (pool_bytes) {
		CUdeviceptr base;
		pool_bytes = (pool_bytes + (UINT64_C(2) << 20) - 1) &
			     ~((UINT64_C(2) << 20) - 1);
		if (CU_CHECK(cuMemAlloc(&base, pool_bytes))) {
			return gm_error("cannot reserve %" PRIu64 " bytes of "
					"device memory", pool_bytes);
		}
		GM_ALLOC_GROW(p->chunks, p->nr_chunks + 1, p->alloc_chunks);
		p->chunks[p->nr_chunks++] = base;
		if (gm_bulk_alloc_add_chunk(&p->pool, base, pool_bytes) < 0) {
			return -1;
		}
	}
	if (d->host_arena) {
		/* Page-aligned, so that fresh_host_pages() can drop it whole. */
		p->arena = mmap(NULL, d->host_arena, PROT_READ | PROT_WRITE,
				MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p->arena == MAP_FAILED) {
			p->arena = NULL;
			return gm_error_errno("cannot map %" PRIu64 " bytes for "
					      "device-to-host results",
					      d->host_arena);
		}
		if (pinned_arena &&
		    CU_CHECK(cuMemHostAlloc((void **)&p->arena_pinned,
					    d->host_arena, 0))) {
			return -1;
		}
	}
	return gm_probe_prog_init(p);
}

static int prepare_replay(struct gm_prog *p);

int gm_prog_init(struct gm_prog *p)
{
	struct gm_run *run = p->run;
	int ok;

	p->tid = (pid_t)syscall(SYS_gettid);
	/* This thread's driver calls, from here on (drvcalls.h). */
	p->drv = gm_xcalloc(1, sizeof(*p->drv));
	gm_drv_attach(p->drv, (int64_t)(gm_now() - gm_now_ns()));
	if (run->prof.enabled) {
		gm_profiler_own_thread(&run->prof, (uint32_t)p->tid, p->index);
	}
	/* The first replay is prepared before the barrier, so that every
	 * program starts its timed part as soon as the barrier opens. */
	if (prog_init(p) < 0 || prepare_replay(p) < 0) {
		gm_error("program '%s': init failed", p->d->name);
		p->failed = 1;
		gm_record_failure(run);
	}
	gm_host_gaps_init(&p->hg, p->d, &run->opt);
	if (gm_host_gaps_on(&p->hg)) {
		/* Sleeps of the host gaps end within microseconds, not the
		 * default 50 us of timer slack. */
		prctl(PR_SET_TIMERSLACK, 1UL, 0, 0, 0);
	} else if (run->opt.host_time == GM_HOST_TIME_CAPTURED &&
		   !p->hg.have_tables) {
		gm_log(run, "replay: program '%s' has no captured host times "
		       "(its bundle or its reconstruction predates them): its "
		       "calls are replayed back to back", p->d->name);
	}
	p->init_done = 1;

	/* Barrier: every program initialised (or failed) before any replay. */
	pthread_mutex_lock(&run->lock);
	run->arrived++;
	if (run->arrived == run->w->nr_programs) {
		run->phase = GM_PHASE_REPLAY;
		pthread_cond_broadcast(&run->cond);
	}
	while (run->phase == GM_PHASE_INIT) {
		pthread_cond_wait(&run->cond, &run->lock);
	}
	ok = !p->failed && !atomic_load(&run->stop);
	pthread_mutex_unlock(&run->lock);
	/* A process variant's replay process: every other process too. */
	if (run->board && gm_process_board_ready(run->board, run->process_index, ok,
					     MPS_WAIT_S) < 0) {
		if (ok) {
			gm_record_failure(run);
		}
		gm_error_clear();
		ok = 0;
	}
	return ok ? 0 : -1;
}

/* ---- replay phase ---- */

/* Another replay process of a process variant failed: stop as if a thread here had. */
static void board_check(struct gm_run *run)
{
	if (run->board && !atomic_load(&run->stop) &&
	    gm_process_board_stopped(run->board)) {
		atomic_store(&run->stop, 1);
	}
}

static void end_turn(struct gm_prog *p)
{
	struct gm_run *run = p->run;

	watchdog_set_active(p->wd, 0);
	if (!run->single) {
		return;
	}
	pthread_mutex_lock(&run->lock);
	if (run->turn == p->index) {
		run->turn++;
		pthread_cond_broadcast(&run->cond);
	}
	pthread_mutex_unlock(&run->lock);
}

/* Forget what one replay left behind: allocations, textures, checks. */
static int reset_replay_state(struct gm_prog *p)
{
	int ret = 0;

	for (uint32_t t = 0; t < p->d->nr_textures; t++) {
		if (p->tex[t]) {
			if (CU_CHECK(cuTexObjectDestroy(p->tex[t]))) {
				ret = -1;
			}
			p->tex[t] = 0;
		}
	}
	memset(p->alloc_ptr, 0, p->d->nr_allocs * sizeof(*p->alloc_ptr));
	memset(p->alloc_size, 0, p->d->nr_allocs * sizeof(*p->alloc_size));
	gm_bulk_alloc_reset(&p->pool);
	p->nr_pending = 0;
	p->nr_lh_used = 0;	/* the streams are drained */
	gm_arrays_reset(p);
	if (p->run->sched->replay_end && p->run->sched->replay_end(p) < 0) {
		ret = -1;
	}
	return ret;
}

/*
 * Every replay starts from zeroed device memory, as the captured process
 * started from fresh allocations: a program that (wrongly) relies on it
 * gives the same results in every replay. Untimed, on the runtime's own
 * stream.
 */
static int zero_pool(struct gm_prog *p)
{
	for (size_t c = 0; c < p->pool.nr_chunks; c++) {
		if (CU_CHECK(cuMemsetD8Async(p->pool.chunks[c].base, 0,
					     p->pool.chunks[c].size,
					     p->aux_stream))) {
			return -1;
		}
	}
	if (gm_addr_zero(p) < 0) {
		return -1;
	}
	return p->pool.nr_chunks || gm_addr_captured(p) ?
		       CU_CHECK(cuStreamSynchronize(p->aux_stream)) : 0;
}

/*
 * A captured program usually copies its results into buffers it has just
 * allocated, so its device-to-host copies paid for the first touch of
 * every page (cutcp's 131 MB result: about 107 ms instead of 12 ms on an
 * H100). Each replay gets fresh pages likewise, before its timed part,
 * except the rooms of the copies whose captured destination was resident
 * (GM_F_HOST_WARM: a buffer the program had written before, such as a
 * zero-filled std::vector): those are touched again. --warm-host keeps
 * every page from one replay to the next.
 */
static int fresh_host_pages(struct gm_prog *p)
{
	uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);

	if (!p->arena || p->run->opt.warm_host) {
		return 0;
	}
	if (madvise(p->arena, p->d->host_arena, MADV_DONTNEED)) {
		return gm_error_errno("program '%s': cannot give its result "
				      "pages back before the replay",
				      p->d->name);
	}
	for (uint64_t i = 0; i < p->d->nr_ops; i++) {
		const struct gm_op *op = &p->d->ops[i];
		if (gm_op_host_warm(op)) {
			uintptr_t at = ((uintptr_t)p->arena + op->y) & ~(page - 1);
			uintptr_t end = (uintptr_t)p->arena + op->y + op->z;
			for (; at < end; at += page) {
				*(volatile uint8_t *)at = 0;
			}
		}
	}
	return 0;
}

/*
 * Before a replay's timed part: cleared device memory, fresh result
 * pages. The first replay's is done in gm_prog_init, before the start
 * barrier.
 */
static int prepare_replay(struct gm_prog *p)
{
	if (zero_pool(p) < 0) {
		return gm_error("program '%s': cannot clear its device memory",
				p->d->name);
	}
	if (fresh_host_pages(p) < 0 || gm_probe_replay_begin(p) < 0) {
		return -1;
	}
	p->prepared = 1;
	return 0;
}

int gm_replay_next(struct gm_prog *p)
{
	struct gm_run *run = p->run;

	if (p->replaying) {
		uint64_t end;
		int more, kept;

		p->replaying = 0;
		if (!p->failed && !atomic_load(&run->stop)) {
			/* The end is when the replay's GPU work is done. */
			watchdog_at(p->wd, p->d->nr_ops);
			if (gm_prog_drain(p) < 0) {
				gm_error("program '%s': replay %u failed",
					 p->d->name, p->replay);
				p->failed = 1;
			}
		}
		end = gm_now();
		gm_drv_phase(GM_DRV_SETUP);
		/* The probe's records, untimed: the GPU work is done. */
		if (!p->failed && !atomic_load(&run->stop) &&
		    gm_probe_replay_end(p) < 0) {
			p->failed = 1;
		}
		if (reset_replay_state(p) < 0 && !p->failed) {
			p->failed = 1;
		}
		if (p->failed) {
			gm_record_failure(run);
			end_turn(p);
			return 0;
		}
		if (atomic_load(&run->stop)) {
			end_turn(p);
			return 0;
		}
		pthread_mutex_lock(&run->lock);
		more = run->board ? gm_process_board_completed(
					    run->board, run->process_index, &kept) :
				    gm_repeat_completed(p->group,
							p->group_index, &kept);
		GM_ALLOC_GROW(run->replays, run->nr_replays + 1,
			      run->alloc_replays);
		run->replays[run->nr_replays++] = (struct run_replay_rec){
			.program = p->d->name,
			.replay = p->replay,
			.start_ns = p->start_ns,
			.end_ns = end,
			.io_ns = p->io_ns,
			.kept = kept,
		};
		gm_open_loop_ended(p, p->start_ns, end);
		pthread_mutex_unlock(&run->lock);
		p->replay++;
		if (!more) {
			end_turn(p);
			return 0;
		}
	} else if (p->replay == 0 && run->single) {
		pthread_mutex_lock(&run->lock);
		while (run->turn != p->index && !atomic_load(&run->stop)) {
			pthread_cond_wait(&run->cond, &run->lock);
		}
		pthread_mutex_unlock(&run->lock);
	}
	board_check(run);
	if (p->failed || atomic_load(&run->stop)) {
		end_turn(p);
		return 0;
	}
	if (!p->prepared && prepare_replay(p) < 0) {
		p->failed = 1;
		gm_record_failure(run);
		end_turn(p);
		return 0;
	}
	/* An open-loop program's request starts at its arrival. */
	if (gm_open_loop_wait(p)) {
		end_turn(p);
		return 0;
	}
	p->prepared = 0;
	p->io_ns = 0;
	watchdog_at(p->wd, 0);
	watchdog_set_active(p->wd, 1);
	p->start_ns = gm_now();
	p->replaying = 1;
	gm_drv_phase(GM_DRV_REPLAY);
	return 1;
}

/* ---- cleanup ---- */

void gm_prog_cleanup(struct gm_prog *p)
{
	struct gm_run *run = p->run;
	const struct gm_program_desc *d = p->d;

	if (p->replaying) {
		/* The generated loop always ends through gm_replay_next. */
		p->replaying = 0;
		end_turn(p);
	}
	gm_drv_phase(GM_DRV_SETUP);
	watchdog_set_active(p->wd, 0);
	if (p->failed && !run->failure[0]) {
		gm_record_failure(run);
	}
	/* Barrier: nobody frees while another program still replays. */
	pthread_mutex_lock(&run->lock);
	run->arrived++;
	if (run->arrived == 2 * run->w->nr_programs) {
		run->phase = GM_PHASE_CLEANUP;
		pthread_cond_broadcast(&run->cond);
	}
	while (run->phase != GM_PHASE_CLEANUP) {
		pthread_cond_wait(&run->cond, &run->lock);
	}
	pthread_mutex_unlock(&run->lock);
	if (run->board) {
		gm_process_board_finish(run->board, run->process_index, MPS_WAIT_S);
	}

	for (uint32_t s = 0; s < p->nr_streams_created; s++) {
		cuStreamSynchronize(p->streams[s]);
	}
	if (run->sched->prog_release) {
		run->sched->prog_release(p);
	}
	gm_graphs_release(p);
	if (p->tex) {
		for (uint32_t t = 0; t < d->nr_textures; t++) {
			if (p->tex[t]) {
				cuTexObjectDestroy(p->tex[t]);
			}
		}
	}
	gm_arrays_release(p);
	for (uint32_t e = 0; e < p->nr_events_created; e++) {
		cuEventDestroy(p->events[e]);
	}
	if (p->sync_events) {
		for (uint32_t s = 0; s < d->nr_streams; s++) {
			if (p->sync_events[s]) {
				cuEventDestroy(p->sync_events[s]);
			}
		}
	}
	for (uint32_t s = 0; s < p->nr_streams_created; s++) {
		cuStreamDestroy(p->streams[s]);
	}
	if (p->aux_stream) {
		cuStreamSynchronize(p->aux_stream);
		cuStreamDestroy(p->aux_stream);
		p->aux_stream = NULL;
	}
	for (size_t c = 0; c < p->nr_chunks; c++) {
		cuMemFree(p->chunks[c]);
	}
	gm_probe_prog_release(p);
	for (uint32_t i = 0; i < p->nr_libs_loaded; i++) {
		cuLibraryUnload(p->libs[i]);
	}
	free(p->smem_pad);
	p->smem_pad = NULL;
	gm_hostmem_release(p);
	gm_host_gaps_release(&p->hg);
	if (p->arena_pinned) {
		cuMemFreeHost(p->arena_pinned);
	}
	if (p->arena) {
		munmap(p->arena, d->host_arena);
	}
	if (p->kargs) {
		for (uint32_t k = 0; k < d->nr_kernels; k++) {
			free(p->kargs[k]);
		}
	}
	free(p->kargs);
	free(p->funcs);
	free(p->libs);
	free(p->el_image);
	free(p->el_class);
	free(p->el_resident);
	free(p->globals);
	free(p->global_size);
	free(p->streams);
	free(p->events);
	free(p->sync_events);
	free(p->dirty);
	free(p->seen_gen);
	free(p->blocking);
	free(p->checks);
	free(p->alloc_ptr);
	free(p->alloc_size);
	free(p->tex);
	free(p->chunks);
	free(p->param_buf);
	free(p->pending);
	gm_bulk_alloc_release(&p->pool);
	p->nr_streams_created = p->nr_events_created = p->nr_libs_loaded = 0;
	p->nr_chunks = 0;
	p->arena = p->arena_pinned = NULL;
	p->kargs = NULL;
	p->pending = NULL;
	gm_drv_attach(NULL, 0);	/* the table stays, for the run directory */
}
