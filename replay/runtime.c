/* SPDX-License-Identifier: MIT */
/*
 * The replay runtime: gm_replay_main() sets up the process (options, run
 * directory, CUPTI before CUDA, eager module loading, the primary context,
 * blobs), runs one thread per program through init, replay and cleanup,
 * and writes the run directory (manifest last). Programs meet at two
 * barriers: after init (no program starts its timed replays while another
 * still loads) and before cleanup (no cuMemFree disturbs a program still
 * replaying). In the `single` variant the programs take turns, each
 * alone on the GPU; in `cuda` they all replay at once. The watchdog stops
 * a run in which a replaying program makes no progress.
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

#include "build/version.h"
#include "cu_check.h"
#include "error.h"
#include "fs.h"
#include "kvfile.h"
#include "replay_int.h"
#include "strbuf.h"

#define EXIT_HUNG 3
#define FLUSH_TIMEOUT_S 10

/* ---- small helpers ---- */

uint64_t gm_now(void)
{
	uint64_t t = 0;

	if (cuptiGetTimestamp(&t) != CUPTI_SUCCESS) {
		struct timespec ts;
		clock_gettime(CLOCK_REALTIME, &ts);
		t = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	}
	return t;
}

void gm_log(struct gm_run *run, const char *fmt, ...)
{
	char buf[2048];
	va_list ap;
	int n;

	va_start(ap, fmt);
	n = vsnprintf(buf, sizeof(buf) - 1, fmt, ap);
	va_end(ap);
	if (n < 0) {
		return;
	}
	if ((size_t)n > sizeof(buf) - 2) {
		n = sizeof(buf) - 2;
	}
	buf[n++] = '\n';
	if (write(2, buf, n) < 0) {
		/* nothing sensible to do */
	}
	if (run && run->log_fd >= 0 && write(run->log_fd, buf, n) < 0) {
		/* the log is best effort; the manifest carries the status */
	}
}

static int debug_on(void)
{
	const char *v = getenv("GPUMIX_DEBUG");

	return v && *v && strcmp(v, "0");
}

/* Move this thread's recorded error into the run (first failure wins). */
static void record_failure(struct gm_run *run)
{
	struct strbuf sb = STRBUF_INIT;
	int n = gm_error_count();

	if (!n) {
		strbuf_addstr(&sb, "unknown failure");
	}
	for (int i = 0; i < n; i++) {
		if (i) {
			strbuf_addstr(&sb, ": ");
		}
		strbuf_addstr(&sb, gm_error_cause(i));
	}
	gm_log(run, "replay: error: %s", sb.buf);
	{
		/* The hint, if any, goes to the log as the report prints it. */
		char *text = NULL;
		size_t len = 0;
		FILE *f = open_memstream(&text, &len);
		if (f) {
			gm_error_report(f);
			fclose(f);
			char *hint = text ? strstr(text, "hint: ") : NULL;
			if (hint) {
				hint[strcspn(hint, "\n")] = 0;
				gm_log(run, "replay: %s", hint);
			}
			free(text);
		}
	}
	pthread_mutex_lock(&run->lock);
	if (!run->failure[0]) {
		snprintf(run->failure, sizeof(run->failure), "%s", sb.buf);
	}
	run->failed = 1;
	atomic_store(&run->stop, 1);
	pthread_cond_broadcast(&run->cond);
	pthread_mutex_unlock(&run->lock);
	gm_error_clear();
	strbuf_release(&sb);
}

static int read_exact(const char *path, void *buf, uint64_t size)
{
	struct stat st;
	uint64_t done = 0;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	if (fd < 0) {
		return gm_error_errno("cannot open '%s'", path);
	}
	if (fstat(fd, &st) < 0) {
		close(fd);
		return gm_error_errno("cannot stat '%s'", path);
	}
	if ((uint64_t)st.st_size != size) {
		close(fd);
		return gm_error("'%s' has %llu bytes, expected %" PRIu64, path,
				(unsigned long long)st.st_size, size);
	}
	while (done < size) {
		ssize_t n = read(fd, (char *)buf + done, size - done);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			close(fd);
			return n < 0 ? gm_error_errno("cannot read '%s'", path)
				     : gm_error("'%s' is truncated", path);
		}
		done += (uint64_t)n;
	}
	close(fd);
	return 0;
}

static int check_hash(const char *path, const void *data, uint64_t size,
		      const char *want)
{
	char have[GM_HASH_HEX_LEN + 1];

	gm_hash_hex(gm_hash_bytes(data, size), have);
	if (strcmp(have, want)) {
		return gm_error("'%s' is corrupt: its content hashes to %s",
				path, have);
	}
	return 0;
}

/* ---- blobs ---- */

static int load_blobs(struct gm_run *run)
{
	const struct gm_workload_desc *w = run->w;

	run->blob_host = gm_xcalloc(w->nr_blobs + 1, sizeof(void *));
	run->blob_pinned = gm_xcalloc(w->nr_blobs + 1, 1);
	for (uint32_t i = 0; i < w->nr_blobs; i++) {
		const struct gm_blob_desc *b = &w->blobs[i];
		char *name = gm_xasprintf("blobs/%s", b->hash);
		char *path = gm_path_join(run->opt.data_dir, name);
		uint64_t n = b->size ? b->size : 1;
		void *buf = NULL;
		int ret;

		free(name);
		if (b->flags & GM_BLOB_PINNED) {
			if (CU_CHECK(cuMemHostAlloc(&buf, n, 0))) {
				free(path);
				return gm_error("cannot pin blob %" PRIu32, i);
			}
			run->blob_pinned[i] = 1;
		} else {
			buf = gm_xmalloc(n);
		}
		run->blob_host[i] = buf;
		ret = read_exact(path, buf, b->size);
		if (!ret) {
			ret = check_hash(path, buf, b->size, b->hash);
		}
		free(path);
		if (ret < 0) {
			return gm_error("cannot load blob %" PRIu32, i);
		}
	}
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

/* ---- descriptor validation ---- */

#define BAD(...) (gm_error(__VA_ARGS__), -1)

static int check_ref(const struct gm_program_desc *d, uint32_t ref,
		     int allow_tex)
{
	uint32_t id = ref & GM_REF_ID_MASK;

	switch (ref & GM_REF_KIND_MASK) {
	case GM_REF_ALLOC:
		return id < d->nr_allocs ? 0 :
		       BAD("allocation %" PRIu32 " out of range", id);
	case GM_REF_GLOBAL:
		return id < d->nr_globals ? 0 :
		       BAD("global %" PRIu32 " out of range", id);
	case GM_REF_TEXTURE:
		if (allow_tex) {
			return id < d->nr_textures ? 0 :
			       BAD("texture %" PRIu32 " out of range", id);
		}
		break;
	}
	return BAD("bad reference 0x%" PRIx32, ref);
}

static int check_tables(const struct gm_run *run, const struct gm_program_desc *d)
{
	if (!d->nr_streams || !d->streams ||
	    !(d->streams[0].flags & GM_STREAM_LEGACY)) {
		return BAD("stream 0 must be the legacy stream");
	}
	for (uint32_t i = 0; i < d->nr_kernels; i++) {
		const struct gm_kernel_desc *k = &d->kernels[i];
		if (k->module >= d->nr_modules || !k->name) {
			return BAD("kernel %" PRIu32 ": bad module or name", i);
		}
	}
	for (uint32_t i = 0; i < d->nr_globals; i++) {
		if (d->globals[i].module >= d->nr_modules || !d->globals[i].name) {
			return BAD("global %" PRIu32 ": bad module or name", i);
		}
	}
	for (uint32_t i = 0; i < d->nr_params; i++) {
		const struct gm_params_desc *pd = &d->params[i];
		for (uint32_t r = 0; r < pd->nr_relocs; r++) {
			if (pd->relocs[r].offset + 8 > pd->size ||
			    check_ref(d, pd->relocs[r].ref, 1) < 0) {
				return BAD("parameter buffer %" PRIu32
					   ": bad relocation %" PRIu32, i, r);
			}
		}
	}
	for (uint32_t i = 0; i < d->nr_launches; i++) {
		const struct gm_launch_desc *l = &d->launches[i];
		const struct gm_kernel_desc *k;
		if (l->kernel >= d->nr_kernels || l->params >= d->nr_params) {
			return BAD("launch %" PRIu32 ": bad kernel or parameters", i);
		}
		k = &d->kernels[l->kernel];
		for (uint32_t j = 0; j < k->nr_params; j++) {
			if (k->param_offset[j] + k->param_size[j] >
			    d->params[l->params].size) {
				return BAD("launch %" PRIu32 ": parameter buffer"
					   " smaller than the layout of '%s'",
					   i, k->name);
			}
		}
	}
	for (uint32_t i = 0; i < d->nr_texdescs; i++) {
		if (check_ref(d, d->texdescs[i].ref, 0) < 0) {
			return BAD("texture description %" PRIu32, i);
		}
	}
	(void)run;
	return 0;
}

static int check_op(const struct gm_run *run, const struct gm_program_desc *d,
		    const struct gm_op *op)
{
	const struct gm_workload_desc *w = run->w;

	switch (op->code) {
	case GM_OP_H2D:
	case GM_OP_D2H:
	case GM_OP_D2D:
	case GM_OP_MEMSET8:
	case GM_OP_MEMSET16:
	case GM_OP_MEMSET32:
	case GM_OP_LAUNCH:
	case GM_OP_EVENT_RECORD:
	case GM_OP_STREAM_WAIT:
	case GM_OP_STREAM_SYNC:
		if (op->stream >= d->nr_streams) {
			return BAD("stream %u out of range", op->stream);
		}
		break;
	}
	switch (op->code) {
	case GM_OP_NOP:
	case GM_OP_STREAM_SYNC:
	case GM_OP_CTX_SYNC:
		return 0;
	case GM_OP_ALLOC:
	case GM_OP_FREE:
		return op->a < d->nr_allocs ? 0 :
		       BAD("allocation %" PRIu32 " out of range", op->a);
	case GM_OP_H2D:
		if (op->b >= w->nr_blobs || op->y > w->blobs[op->b].size ||
		    op->z > w->blobs[op->b].size - op->y) {
			return BAD("blob %" PRIu32 " out of range", op->b);
		}
		return check_ref(d, op->a, 0);
	case GM_OP_D2H:
		if (op->b != GM_NONE && op->b >= d->nr_checks) {
			return BAD("check %" PRIu32 " out of range", op->b);
		}
		if (op->y > d->host_arena || op->z > d->host_arena - op->y) {
			return BAD("host arena offset out of range");
		}
		return check_ref(d, op->a, 0);
	case GM_OP_D2D:
		if (check_ref(d, op->b, 0) < 0) {
			return -1;
		}
		return check_ref(d, op->a, 0);
	case GM_OP_MEMSET8:
	case GM_OP_MEMSET16:
	case GM_OP_MEMSET32:
		return check_ref(d, op->a, 0);
	case GM_OP_LAUNCH:
		return op->a < d->nr_launches ? 0 :
		       BAD("launch %" PRIu32 " out of range", op->a);
	case GM_OP_EVENT_RECORD:
	case GM_OP_STREAM_WAIT:
	case GM_OP_EVENT_SYNC:
		return op->a < d->nr_events ? 0 :
		       BAD("event %" PRIu32 " out of range", op->a);
	case GM_OP_TEX_CREATE:
		if (op->b >= d->nr_texdescs) {
			return BAD("texture description %" PRIu32
				   " out of range", op->b);
		}
		/* fall through */
	case GM_OP_TEX_DESTROY:
		return op->a < d->nr_textures ? 0 :
		       BAD("texture %" PRIu32 " out of range", op->a);
	}
	return BAD("unknown operation code %u", op->code);
}

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
	if (check_tables(p->run, d) < 0) {
		return gm_error("program '%s': bad tables", d->name);
	}
	bulk_alloc_plan_init(&plan, 0);
	addr = gm_xcalloc(d->nr_allocs + 1, sizeof(*addr));
	size = gm_xcalloc(d->nr_allocs + 1, sizeof(*size));
	for (uint64_t i = 0; i < d->nr_ops; i++) {
		const struct gm_op *op = &d->ops[i];
		if (check_op(p->run, d, op) < 0) {
			gm_error("program '%s': operation %" PRIu64
				 " (trace event %" PRIu64 ") is malformed",
				 d->name, i, op->event);
			goto out;
		}
		if (op->code == GM_OP_D2H && (op->flags & GM_F_PINNED)) {
			*pinned_arena = 1;
		}
		if (op->code == GM_OP_ALLOC) {
			if (size[op->a]) {
				gm_error("program '%s': operation %" PRIu64
					 " allocates live allocation %" PRIu32,
					 d->name, i, op->a);
				goto out;
			}
			bulk_alloc_get(&plan, op->z, &addr[op->a]);
			size[op->a] = bulk_alloc_round(&plan, op->z);
		} else if (op->code == GM_OP_FREE) {
			if (!size[op->a]) {
				gm_error("program '%s': operation %" PRIu64
					 " frees allocation %" PRIu32
					 " which is not live", d->name, i,
					 op->a);
				goto out;
			}
			bulk_alloc_put(&plan, addr[op->a], size[op->a]);
			size[op->a] = 0;
		}
	}
	*pool_bytes = plan.high_water;
	ret = 0;
out:
	free(addr);
	free(size);
	bulk_alloc_release(&plan);
	return ret;
}

/* ---- per-program init ---- */

static int load_modules(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;

	p->libs = gm_xcalloc(d->nr_modules + 1, sizeof(*p->libs));
	for (uint32_t i = 0; i < d->nr_modules; i++) {
		const struct gm_module_desc *m = &d->modules[i];
		char *name = gm_xasprintf("modules/%s", m->hash);
		char *path = gm_path_join(p->run->opt.data_dir, name);
		uint8_t *image = gm_xmalloc(m->size + 1);
		int ret;

		free(name);
		ret = read_exact(path, image, m->size);
		if (!ret) {
			ret = check_hash(path, image, m->size, m->hash);
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
		free(path);
		p->nr_libs_loaded = i + 1;
	}
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
		p->kargs[i] = gm_xcalloc(k->nr_params + 1, sizeof(void *));
		for (uint32_t j = 0; j < k->nr_params; j++) {
			p->kargs[i][j] = p->param_buf + k->param_offset[j];
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

static int create_streams(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;
	struct gm_run *run = p->run;

	p->streams = gm_xcalloc(d->nr_streams, sizeof(*p->streams));
	for (uint32_t s = 0; s < d->nr_streams; s++) {
		uint32_t id = 0;
		if (CU_CHECK(cuStreamCreateWithPriority(&p->streams[s],
							CU_STREAM_NON_BLOCKING,
							d->streams[s].priority))) {
			return gm_error("cannot create stream %" PRIu32, s);
		}
		p->nr_streams_created = s + 1;
		if (run->prof.enabled) {
			if (CUPTI_CHECK(cuptiGetStreamIdEx(run->ctx,
							   p->streams[s], 0,
							   &id))) {
				return -1;
			}
			profiler_own_stream(&run->prof, id, p->index);
		}
		if (debug_on()) {
			gm_log(run, "replay: created stream: program=%s, "
			       "stream-id=%" PRIu32 ", cupti-id=%" PRIu32,
			       d->name, s, id);
		}
	}
	/* Not registered with the profiler: its work is no program's. Made
	 * after the program's streams so they get the hardware queues they
	 * would get without it. */
	if (CU_CHECK(cuStreamCreateWithPriority(&p->aux_stream,
						CU_STREAM_NON_BLOCKING, 0))) {
		return -1;
	}
	for (uint32_t s = 1; s < d->nr_streams; s++) {
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
	p->events = gm_xcalloc(d->nr_events + 1, sizeof(*p->events));
	for (uint32_t e = 0; e < d->nr_events; e++) {
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
	p->param_buf = gm_xcalloc(1, max_params + 16);
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
	if (CU_CHECK(cuCtxSetCurrent(p->run->ctx)) || load_modules(p) < 0 ||
	    resolve_kernels(p) < 0 || resolve_globals(p) < 0 ||
	    create_streams(p) < 0) {
		return -1;
	}
	bulk_alloc_init(&p->pool, 0);
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
		if (bulk_alloc_add_chunk(&p->pool, base, pool_bytes) < 0) {
			return -1;
		}
	}
	if (d->host_arena) {
		p->arena = gm_xmalloc(d->host_arena);
		if (pinned_arena &&
		    CU_CHECK(cuMemHostAlloc((void **)&p->arena_pinned,
					    d->host_arena, 0))) {
			return -1;
		}
	}
	return 0;
}

int gm_prog_init(struct gm_prog *p)
{
	struct gm_run *run = p->run;
	int ok;

	p->tid = (pid_t)syscall(SYS_gettid);
	if (run->prof.enabled) {
		profiler_own_thread(&run->prof, (uint32_t)p->tid, p->index);
	}
	if (prog_init(p) < 0) {
		gm_error("program '%s': init failed", p->d->name);
		p->failed = 1;
		record_failure(run);
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
	return ok ? 0 : -1;
}

/* ---- replay phase ---- */

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
	bulk_alloc_reset(&p->pool);
	p->nr_pending = 0;
	p->legacy_gen = p->legacy_event_gen = 0;
	if (p->nr_blocking) {
		memset(p->dirty, 0, p->d->nr_streams);
		memset(p->seen_gen, 0, p->d->nr_streams * sizeof(uint64_t));
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
	return p->pool.nr_chunks ? CU_CHECK(cuStreamSynchronize(p->aux_stream))
				 : 0;
}

int gm_replay_next(struct gm_prog *p)
{
	struct gm_run *run = p->run;

	if (p->replaying) {
		uint64_t end;
		int more;

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
		if (reset_replay_state(p) < 0 && !p->failed) {
			p->failed = 1;
		}
		if (p->failed) {
			record_failure(run);
			end_turn(p);
			return 0;
		}
		if (atomic_load(&run->stop)) {
			end_turn(p);
			return 0;
		}
		pthread_mutex_lock(&run->lock);
		more = repeat_completed(p->group, p->group_index);
		GM_ALLOC_GROW(run->replays, run->nr_replays + 1,
			      run->alloc_replays);
		run->replays[run->nr_replays++] = (struct run_replay_rec){
			.program = p->d->name,
			.replay = p->replay,
			.start_ns = p->start_ns,
			.end_ns = end,
			.io_ns = p->io_ns,
			.kept = more,
		};
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
	if (p->failed || atomic_load(&run->stop)) {
		end_turn(p);
		return 0;
	}
	if (zero_pool(p) < 0) {
		gm_error("program '%s': cannot clear its device memory",
			 p->d->name);
		p->failed = 1;
		record_failure(run);
		end_turn(p);
		return 0;
	}
	p->io_ns = 0;
	watchdog_at(p->wd, 0);
	watchdog_set_active(p->wd, 1);
	p->start_ns = gm_now();
	p->replaying = 1;
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
	watchdog_set_active(p->wd, 0);
	if (p->failed && !run->failure[0]) {
		record_failure(run);
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

	for (uint32_t s = 0; s < p->nr_streams_created; s++) {
		cuStreamSynchronize(p->streams[s]);
	}
	if (p->tex) {
		for (uint32_t t = 0; t < d->nr_textures; t++) {
			if (p->tex[t]) {
				cuTexObjectDestroy(p->tex[t]);
			}
		}
	}
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
	for (uint32_t i = 0; i < p->nr_libs_loaded; i++) {
		cuLibraryUnload(p->libs[i]);
	}
	if (p->arena_pinned) {
		cuMemFreeHost(p->arena_pinned);
	}
	free(p->arena);
	if (p->kargs) {
		for (uint32_t k = 0; k < d->nr_kernels; k++) {
			free(p->kargs[k]);
		}
	}
	free(p->kargs);
	free(p->funcs);
	free(p->libs);
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
	bulk_alloc_release(&p->pool);
	p->nr_streams_created = p->nr_events_created = p->nr_libs_loaded = 0;
	p->nr_chunks = 0;
	p->arena = p->arena_pinned = NULL;
	p->kargs = NULL;
	p->pending = NULL;
}

/* ---- the run directory ---- */

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
	kvfile_set(kv, "variant", w->variant);
	kvfile_set(kv, "policy", w->policy && *w->policy ? w->policy : "none");
	kvfile_set_u64(kv, "programs", w->nr_programs);
	for (unsigned i = 0; i < w->nr_programs; i++) {
		const struct gm_program_desc *d = w->programs[i];
		char key[64];
		snprintf(key, sizeof(key), "program.%u.name", i);
		kvfile_set(kv, key, d->name);
		snprintf(key, sizeof(key), "program.%u.bundle", i);
		kvfile_set(kv, key, d->bundle ? d->bundle : "");
		snprintf(key, sizeof(key), "program.%u.deterministic", i);
		kvfile_set(kv, key, d->deterministic ? "1" : "0");
		streams += d->nr_streams + 1;	/* + the runtime's own */
	}
	kvfile_set(kv, "device.name", dev->name[0] ? dev->name : "unknown");
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
	kvfile_set(kv, "gpumix_version", GM_VERSION_STRING);
	kvfile_set(kv, "started_at", run->started_at);
	run_utc_now(now, sizeof(now));
	kvfile_set(kv, "finished_at", now);
	kvfile_set(kv, "status", status);
	if (failure && *failure) {
		kvfile_set(kv, "failure", failure);
	}
	kvfile_set_u64(kv, "cupti.dropped_records", dropped);
	kvfile_set(kv, "profiled", run->prof.enabled ? "1" : "0");
	kvfile_setf(kv, "watchdog_s", "%g", run->opt.watchdog_s);
}

/* Write activity.tsv, replays.tsv and, last, the manifest. */
static int write_run(struct gm_run *run, const char *status,
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
	dropped = hung ? profiler_dropped_so_far(&run->prof) :
			 profiler_dropped(&run->prof);
	if (profiler_write(&run->prof, run->opt.run_dir, names, w->nr_programs,
			   &written, &unattributed, &incomplete) < 0) {
		gm_error_report(stderr);
		ret = -1;
	}
	pthread_mutex_lock(&run->lock);
	nr = run->nr_replays;
	reps = gm_xcalloc(nr + 1, sizeof(*reps));
	memcpy(reps, run->replays, nr * sizeof(*reps));
	pthread_mutex_unlock(&run->lock);
	qsort_r(reps, nr, sizeof(*reps), cmp_replay, (void *)w);
	if (run_write_replays(run->opt.run_dir, reps, nr) < 0) {
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
	if (run_write_manifest(run->opt.run_dir, &kv) < 0) {
		gm_error_report(stderr);
		ret = -1;
	}
	kvfile_release(&kv);
	free(names);
	return ret;
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

	profiler_flush(&j->run->prof, 1);
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
	write_run(run, "hung", why.buf, 1);
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

static const char usage[] =
	"usage: %s [--data DIR] [-o RUNDIR] [--min-replays R] [--watchdog SECONDS]\n"
	"       [--force] [--no-profile]\n"
	"\n"
	"Replays workload '%s' (variant %s, %u programs) and writes a run\n"
	"directory (doc/run-directory.md).\n"
	"\n"
	"  --data DIR          replay data (blobs/, modules/); default: this\n"
	"                      program's directory\n"
	"  -o RUNDIR           run directory; default runs/<workload>.<variant>\n"
	"  --min-replays R     every program replays until each has done R (7)\n"
	"  --watchdog SECONDS  stop a replay without progress (60; 0: off)\n"
	"  --force             replace an existing run directory\n"
	"  --no-profile        no CUPTI activity log\n"
	"\n"
	"exit status: 0 ok; 1 failed (e.g. a result differs); 2 usage; 3 hung\n";

static int parse_options(struct gm_run *run, int argc, char **argv,
			 char **owned_data, char **owned_run)
{
	static const struct option longopts[] = {
		{ "data", required_argument, NULL, 'd' },
		{ "output", required_argument, NULL, 'o' },
		{ "min-replays", required_argument, NULL, 'r' },
		{ "watchdog", required_argument, NULL, 'w' },
		{ "force", no_argument, NULL, 'f' },
		{ "no-profile", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	const struct gm_workload_desc *w = run->w;
	int c;

	run->opt.min_replays = 7;
	run->opt.watchdog_s = 60;
	run->opt.profile = 1;
	while ((c = getopt_long(argc, argv, "o:h", longopts, NULL)) != -1) {
		char *end;
		switch (c) {
		case 'd':
			run->opt.data_dir = optarg;
			break;
		case 'o':
			run->opt.run_dir = optarg;
			break;
		case 'r': {
			unsigned long v = strtoul(optarg, &end, 10);
			if (*end || !*optarg || v < 2 || v > 1000000) {
				fprintf(stderr, "error: --min-replays must be an "
					"integer of at least 2 (each program's "
					"last replay is discarded)\n");
				return 2;
			}
			run->opt.min_replays = (unsigned)v;
			break;
		}
		case 'w':
			run->opt.watchdog_s = strtod(optarg, &end);
			if (*end || !*optarg || run->opt.watchdog_s < 0) {
				fprintf(stderr, "error: --watchdog takes a "
					"number of seconds (0: off)\n");
				return 2;
			}
			break;
		case 'f':
			run->opt.force = 1;
			break;
		case 'n':
			run->opt.profile = 0;
			break;
		case 'h':
			printf(usage, argv[0], w->name, w->variant,
			       w->nr_programs);
			return 1;
		default:
			fprintf(stderr, usage, argv[0], w->name, w->variant,
				w->nr_programs);
			return 2;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "error: unexpected argument '%s'\n", argv[optind]);
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
		*owned_run = gm_xasprintf("runs/%s.%s", w->name, w->variant);
		run->opt.run_dir = *owned_run;
	}
	return 0;
}

static void *thread_start(void *arg)
{
	struct gm_prog *p = arg;

	return p->d->thread(p);
}

int gm_replay_main(int argc, char **argv, const struct gm_workload_desc *w)
{
	struct gm_run run;
	char *owned_data = NULL, *owned_run = NULL;
	pthread_t *threads = NULL;
	unsigned started = 0;
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
	rc = parse_options(&run, argc, argv, &owned_data, &owned_run);
	if (rc) {
		return rc == 1 ? 0 : rc;
	}
	if (strcmp(w->variant, "single") && strcmp(w->variant, "cuda")) {
		fprintf(stderr, "error: variant '%s' is not implemented by this "
			"runtime (single, cuda)\n", w->variant);
		return 1;
	}
	run.single = !strcmp(w->variant, "single");
	if (!w->nr_programs) {
		fprintf(stderr, "error: the workload has no programs\n");
		return 1;
	}
	if (run_dir_prepare(run.opt.run_dir, run.opt.force) < 0) {
		gm_error_report(stderr);
		return 1;
	}
	{
		char *log = gm_path_join(run.opt.run_dir, "log");
		run.log_fd = open(log, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND |
					       O_CLOEXEC, 0666);
		free(log);
	}
	run_utc_now(run.started_at, sizeof(run.started_at));
	gm_log(&run, "replay: workload '%s', variant %s, %u programs, at "
	       "least %u replays each, run directory '%s'", w->name,
	       w->variant, w->nr_programs, run.opt.min_replays,
	       run.opt.run_dir);

	/* Eager loading: no module load inside a timed replay. */
	setenv("CUDA_MODULE_LOADING", "EAGER", 1);
	if (run.opt.profile && profiler_start(&run.prof) < 0) {
		record_failure(&run);
		goto finish;
	}
	if (device_setup(&run) < 0 || load_blobs(&run) < 0) {
		record_failure(&run);
		goto finish;
	}
	gm_log(&run, "replay: device '%s' (cc %d.%d, %d SMs), driver %d",
	       run.device.name, run.device.cc_major, run.device.cc_minor,
	       run.device.sm_count, run.device.driver_version);

	run.progs = gm_xcalloc(w->nr_programs, sizeof(*run.progs));
	run.targets = gm_xcalloc(w->nr_programs, sizeof(*run.targets));
	run.nr_groups = run.single ? w->nr_programs : 1;
	run.groups = gm_xcalloc(run.nr_groups, sizeof(*run.groups));
	for (unsigned g = 0; g < run.nr_groups; g++) {
		repeat_init(&run.groups[g], run.single ? 1 : w->nr_programs,
			    run.opt.min_replays);
	}
	for (unsigned i = 0; i < w->nr_programs; i++) {
		struct gm_prog *p = &run.progs[i];
		p->run = &run;
		p->index = i;
		p->d = w->programs[i];
		p->wd = &run.targets[i];
		watchdog_target_init(p->wd);
		atomic_init(&p->last_launch, 0);
		p->group = &run.groups[run.single ? i : 0];
		p->group_index = run.single ? 0 : i;
		for (unsigned j = 0; j < i; j++) {
			if (!strcmp(w->programs[j]->name, p->d->name)) {
				gm_error("programs %u and %u are both called "
					 "'%s'", j, i, p->d->name);
				record_failure(&run);
				goto finish;
			}
		}
	}
	if (watchdog_start(&run.wd, run.targets, w->nr_programs,
			   run.opt.watchdog_s, on_hang, &run) < 0) {
		record_failure(&run);
		goto finish;
	}
	threads = gm_xcalloc(w->nr_programs, sizeof(*threads));
	for (unsigned i = 0; i < w->nr_programs; i++) {
		int err = pthread_create(&threads[i], NULL, thread_start,
					 &run.progs[i]);
		if (err) {
			errno = err;
			gm_error_errno("cannot start the thread of program '%s'",
				       w->programs[i]->name);
			record_failure(&run);
			/* Threads already started must not wait for it. */
			pthread_mutex_lock(&run.lock);
			run.arrived += 2 * (w->nr_programs - i);
			run.phase = run.arrived >= 2 * w->nr_programs ?
					    GM_PHASE_CLEANUP :
				    run.arrived >= w->nr_programs ?
					    GM_PHASE_REPLAY : GM_PHASE_INIT;
			pthread_cond_broadcast(&run.cond);
			pthread_mutex_unlock(&run.lock);
			break;
		}
		started++;
	}
	for (unsigned i = 0; i < started; i++) {
		pthread_join(threads[i], NULL);
	}
	watchdog_stop(&run.wd);
	if (atomic_load(&run.finishing)) {
		pause();	/* the watchdog is writing and will exit */
	}

finish:
	if (run.have_ctx) {
		cuCtxSynchronize();
	}
	if (run.prof.enabled && profiler_flush(&run.prof, 1) < 0) {
		gm_error_report(stderr);
	}
	if (run.failed) {
		write_run(&run, "failed", run.failure, 0);
		gm_log(&run, "replay: failed: %s", run.failure);
		exit_code = 1;
	} else {
		exit_code = write_run(&run, "ok", NULL, 0) < 0 ? 1 : 0;
		if (!exit_code) {
			gm_log(&run, "replay: ok: %zu replays of %u programs "
			       "recorded in '%s'", run.nr_replays,
			       w->nr_programs, run.opt.run_dir);
		}
	}
	free_blobs(&run);
	if (run.prof.tail) {
		profiler_release(&run.prof);
	}
	if (run.have_ctx) {
		cuDevicePrimaryCtxRelease(run.dev);
	}
	if (run.groups) {
		for (unsigned g = 0; g < run.nr_groups; g++) {
			repeat_release(&run.groups[g]);
		}
	}
	free(run.groups);
	free(run.progs);
	free(run.targets);
	free(threads);
	free(run.replays);
	free(owned_data);
	free(owned_run);
	if (run.log_fd >= 0) {
		close(run.log_fd);
	}
	return exit_code;
}
