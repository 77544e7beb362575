/* SPDX-License-Identifier: MIT */
/*
 * CUPTI activity profiler (see profiler.h).
 */
#include "profiler.h"

#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "cu_check.h"
#include "error.h"
#include "run_writer.h"
#include "strbuf.h"

#define BUFFER_SIZE (8u << 20)
#define BUFFER_ALIGN 8

/* CUPTI's buffer callbacks take no argument: the one started profiler. */
static struct profiler *the_profiler;

static void CUPTIAPI buffer_requested(uint8_t **buffer, size_t *size,
				      size_t *max_records)
{
	void *p = NULL;

	if (posix_memalign(&p, BUFFER_ALIGN, BUFFER_SIZE)) {
		p = NULL;
	}
	*buffer = p;
	*size = p ? BUFFER_SIZE : 0;
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream_id,
				      uint8_t *buffer, size_t size,
				      size_t valid)
{
	struct profiler *pr = the_profiler;
	size_t dropped = 0;

	if (!pr || !buffer) {
		free(buffer);
		return;
	}
	cuptiActivityGetNumDroppedRecords(ctx, stream_id, &dropped);
	pthread_mutex_lock(&pr->lock);
	pr->dropped += dropped;
	if (valid) {
		struct prof_buffer *b = malloc(sizeof(*b));
		if (b) {
			b->data = buffer;
			b->valid = valid;
			b->next = NULL;
			*pr->tail = b;
			pr->tail = &b->next;
			pr->last = b;
			pr->nr_buffers++;
			buffer = NULL;
		} else {
			pr->dropped++;	/* at least one record lost */
		}
	}
	pthread_mutex_unlock(&pr->lock);
	free(buffer);
}

static const CUpti_ActivityKind kinds[] = {
	CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL,
	CUPTI_ACTIVITY_KIND_MEMCPY,
	CUPTI_ACTIVITY_KIND_MEMSET,
	CUPTI_ACTIVITY_KIND_RUNTIME,
	CUPTI_ACTIVITY_KIND_DRIVER,
};

/* Driver calls the runtime polls with (never the captured program's). */
static const CUpti_CallbackId not_recorded[] = {
	CUPTI_DRIVER_TRACE_CBID_cuEventQuery,
	CUPTI_DRIVER_TRACE_CBID_cuStreamQuery,
};

int gm_profiler_start(struct profiler *pr)
{
	memset(pr, 0, sizeof(*pr));
	pthread_mutex_init(&pr->lock, NULL);
	pr->tail = &pr->head;
	if (the_profiler) {
		return gm_error("a CUPTI profiler is already running");
	}
	the_profiler = pr;
	if (CUPTI_CHECK(cuptiSetThreadIdType(CUPTI_ACTIVITY_THREAD_ID_TYPE_SYSTEM)) ||
	    CUPTI_CHECK(cuptiActivityRegisterCallbacks(buffer_requested,
						       buffer_completed)) ||
	    CUPTI_CHECK(cuptiActivityEnableLatencyTimestamps(1))) {
		goto fail;
	}
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		if (CUPTI_CHECK(cuptiActivityEnable(kinds[i]))) {
			goto fail;
		}
	}
	/*
	 * The nss dispatcher polls with these while it waits: millions of
	 * records that are the runtime's, not the program's (a 55-pair
	 * study's database grew to 6.8 GB with them). After the DRIVER kind,
	 * which would turn them back on.
	 */
	for (size_t i = 0; i < sizeof(not_recorded) / sizeof(not_recorded[0]);
	     i++) {
		if (CUPTI_CHECK(cuptiActivityEnableDriverApi(not_recorded[i], 0))) {
			goto fail;
		}
	}
	pr->enabled = 1;
	return 0;
fail:
	the_profiler = NULL;
	gm_error_hint("profiling may need privileges (NVreg_RestrictProfilingToAdminUsers=0);"
		      " --no-profile runs without it");
	return gm_error("cannot start CUPTI activity profiling");
}

int gm_profiler_enable_external(struct profiler *pr)
{
	if (!pr->enabled) {
		return 0;
	}
	if (CUPTI_CHECK(cuptiActivityEnable(
		    CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION))) {
		return gm_error("cannot turn on CUPTI's external correlation "
				"records");
	}
	pr->external = 1;
	return 0;
}

void gm_profiler_external_ids(struct profiler *pr,
			   void (*fn)(void *ctx, uint64_t ext, uint32_t corr),
			   void *ctx)
{
	struct prof_buffer *head, *last;

	pthread_mutex_lock(&pr->lock);
	head = pr->head;
	last = pr->last;
	pthread_mutex_unlock(&pr->lock);
	for (struct prof_buffer *b = head; b; b = b->next) {
		CUpti_Activity *rec = NULL;
		while (cuptiActivityGetNextRecord(b->data, b->valid, &rec) ==
		       CUPTI_SUCCESS) {
			const CUpti_ActivityExternalCorrelation *x =
				(const void *)rec;
			if (rec->kind == CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION &&
			    x->externalKind ==
				    CUPTI_EXTERNAL_CORRELATION_KIND_CUSTOM0) {
				fn(ctx, x->externalId, x->correlationId);
			}
		}
		if (b == last) {
			break;
		}
	}
}

void gm_profiler_release(struct profiler *pr)
{
	struct prof_buffer *b, *next;

	if (pr->enabled) {
		for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
			cuptiActivityDisable(kinds[i]);
		}
		if (pr->external) {
			cuptiActivityDisable(
				CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION);
		}
		cuptiActivityFlushAll(CUPTI_ACTIVITY_FLAG_FLUSH_FORCED);
	}
	pthread_mutex_lock(&pr->lock);
	b = pr->head;
	pr->head = pr->last = NULL;
	pr->tail = &pr->head;
	the_profiler = NULL;
	pthread_mutex_unlock(&pr->lock);
	for (; b; b = next) {
		next = b->next;
		free(b->data);
		free(b);
	}
	free(pr->streams);
	free(pr->threads);
	pr->streams = pr->threads = NULL;
	pr->nr_streams = pr->nr_threads = 0;
	pr->enabled = 0;
}

static void add_owner(struct prof_owner **v, size_t *nr, size_t *alloc,
		      uint32_t ctx, uint32_t id, unsigned program)
{
	for (size_t i = 0; i < *nr; i++) {
		if ((*v)[i].ctx == ctx && (*v)[i].id == id) {
			(*v)[i].program = program;
			return;
		}
	}
	GM_ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[*nr].ctx = ctx;
	(*v)[*nr].id = id;
	(*v)[*nr].program = program;
	(*nr)++;
}

int gm_profiler_own_stream(struct profiler *pr, uint32_t ctx_id,
			uint32_t stream_id, unsigned program)
{
	unsigned other = program;

	pthread_mutex_lock(&pr->lock);
	for (size_t i = 0; i < pr->nr_streams; i++) {
		if (pr->streams[i].ctx == ctx_id &&
		    pr->streams[i].id == stream_id) {
			other = pr->streams[i].program;
		}
	}
	if (other == program) {
		add_owner(&pr->streams, &pr->nr_streams, &pr->alloc_streams,
			  ctx_id, stream_id, program);
	}
	pthread_mutex_unlock(&pr->lock);
	if (other != program) {
		return gm_error("CUPTI stream %" PRIu32 " of context %" PRIu32
				" is also program %u's: the activity records of "
				"the two could not be told apart", stream_id,
				ctx_id, other);
	}
	return 0;
}

void gm_profiler_own_thread(struct profiler *pr, uint32_t tid,
			    unsigned program)
{
	pthread_mutex_lock(&pr->lock);
	add_owner(&pr->threads, &pr->nr_threads, &pr->alloc_threads, 0, tid,
		  program);
	pthread_mutex_unlock(&pr->lock);
}

int gm_profiler_flush(struct profiler *pr, int forced)
{
	if (!pr->enabled) {
		return 0;
	}
	return CUPTI_CHECK(cuptiActivityFlushAll(
		forced ? CUPTI_ACTIVITY_FLAG_FLUSH_FORCED : 0));
}

uint64_t gm_profiler_dropped_so_far(struct profiler *pr)
{
	uint64_t total;

	pthread_mutex_lock(&pr->lock);
	total = pr->dropped;
	pthread_mutex_unlock(&pr->lock);
	return total;
}

uint64_t gm_profiler_dropped(struct profiler *pr)
{
	size_t d = 0;
	uint64_t total;

	if (pr->enabled &&
	    cuptiActivityGetNumDroppedRecords(NULL, 0, &d) == CUPTI_SUCCESS) {
		pthread_mutex_lock(&pr->lock);
		pr->dropped += d;
		pthread_mutex_unlock(&pr->lock);
	}
	pthread_mutex_lock(&pr->lock);
	total = pr->dropped;
	pthread_mutex_unlock(&pr->lock);
	return total;
}

static const char *find_owner(const struct prof_owner *v, size_t nr,
			      uint32_t ctx, uint32_t id,
			      const char *const *names, unsigned nr_programs)
{
	for (size_t i = 0; i < nr; i++) {
		if (v[i].ctx == ctx && v[i].id == id &&
		    v[i].program < nr_programs) {
			return names[v[i].program];
		}
	}
	return NULL;
}

static const char *copy_kind_name(uint8_t k)
{
	switch (k) {
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOD:
		return "HTOD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOH:
		return "DTOH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOA:
		return "HTOA";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOH:
		return "ATOH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOA:
		return "ATOA";
	case CUPTI_ACTIVITY_MEMCPY_KIND_ATOD:
		return "ATOD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOA:
		return "DTOA";
	case CUPTI_ACTIVITY_MEMCPY_KIND_DTOD:
		return "DTOD";
	case CUPTI_ACTIVITY_MEMCPY_KIND_HTOH:
		return "HTOH";
	case CUPTI_ACTIVITY_MEMCPY_KIND_PTOP:
		return "PTOP";
	}
	return "UNKNOWN";
}

static uint64_t known(uint64_t ts)
{
	return ts == (uint64_t)CUPTI_TIMESTAMP_UNKNOWN ? 0 : ts;
}

/* A GPU record whose end never came (a kernel still running when a hung
 * run is written): left out of the log, counted. */
#define INCOMPLETE ((const char *)1)
/* A record that is the runtime's own bookkeeping (external correlation,
 * for the block probe): left out, not counted. */
#define SKIPPED ((const char *)2)

/* Format one record into @line; returns its program, NULL when it belongs
 * to none, INCOMPLETE or SKIPPED. */
static const char *format_record(struct profiler *pr, const CUpti_Activity *rec,
				 const char *const *names, unsigned nr_programs,
				 struct strbuf *line)
{
	const char *prog;

	switch (rec->kind) {
	case CUPTI_ACTIVITY_KIND_KERNEL:
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		const CUpti_ActivityKernel10 *k = (const void *)rec;
		if (!k->end || k->end < k->start) {
			return INCOMPLETE;
		}
		struct run_kernel_rec r = {
			.correlation_id = k->correlationId,
			.start = k->start, .end = k->end,
			.queued = known(k->queued),
			.submitted = known(k->submitted),
			.device_id = k->deviceId, .context_id = k->contextId,
			.stream_id = k->streamId,
			.grid = { k->gridX, k->gridY, k->gridZ },
			.block = { k->blockX, k->blockY, k->blockZ },
			.registers = k->registersPerThread,
			.static_smem = k->staticSharedMemory,
			.dynamic_smem = k->dynamicSharedMemory,
			.name = k->name,
		};
		prog = find_owner(pr->streams, pr->nr_streams, k->contextId,
				  k->streamId, names, nr_programs);
		if (prog) {
			r.program = prog;
			gm_run_format_kernel(line, &r);
		}
		return prog;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		const CUpti_ActivityMemcpy6 *m = (const void *)rec;
		if (!m->end || m->end < m->start) {
			return INCOMPLETE;
		}
		struct run_memcpy_rec r = {
			.correlation_id = m->correlationId,
			.start = m->start, .end = m->end,
			.copy_kind = copy_kind_name(m->copyKind),
			.bytes = m->bytes, .stream_id = m->streamId,
		};
		prog = find_owner(pr->streams, pr->nr_streams, m->contextId,
				  m->streamId, names, nr_programs);
		if (prog) {
			r.program = prog;
			gm_run_format_memcpy(line, &r);
		}
		return prog;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		const CUpti_ActivityMemset4 *m = (const void *)rec;
		if (!m->end || m->end < m->start) {
			return INCOMPLETE;
		}
		struct run_memset_rec r = {
			.correlation_id = m->correlationId,
			.start = m->start, .end = m->end,
			.bytes = m->bytes, .value = m->value,
			.stream_id = m->streamId,
		};
		prog = find_owner(pr->streams, pr->nr_streams, m->contextId,
				  m->streamId, names, nr_programs);
		if (prog) {
			r.program = prog;
			gm_run_format_memset(line, &r);
		}
		return prog;
	}
	case CUPTI_ACTIVITY_KIND_RUNTIME:
	case CUPTI_ACTIVITY_KIND_DRIVER: {
		const CUpti_ActivityAPI *a = (const void *)rec;
		int rt = rec->kind == CUPTI_ACTIVITY_KIND_RUNTIME;
		const char *name = NULL;
		struct run_api_rec r = {
			.correlation_id = a->correlationId,
			.start = a->start, .end = a->end,
			.domain = rt ? "runtime" : "driver",
			.cbid = a->cbid, .thread_id = a->threadId,
		};
		if (cuptiGetCallbackName(rt ? CUPTI_CB_DOMAIN_RUNTIME_API :
					      CUPTI_CB_DOMAIN_DRIVER_API,
					 a->cbid, &name) != CUPTI_SUCCESS ||
		    !name) {
			name = "unknown";
		}
		r.name = name;
		prog = find_owner(pr->threads, pr->nr_threads, 0, a->threadId,
				  names, nr_programs);
		if (prog) {
			r.program = prog;
			gm_run_format_api(line, &r);
		}
		return prog;
	}
	case CUPTI_ACTIVITY_KIND_EXTERNAL_CORRELATION:
		return SKIPPED;
	default:
		return NULL;
	}
}

int gm_profiler_write(struct profiler *pr, const char *dir,
		   const char *const *names, unsigned nr_programs,
		   uint64_t *written, uint64_t *unattributed,
		   uint64_t *incomplete)
{
	struct run_activity ra;
	struct strbuf line = STRBUF_INIT;
	struct prof_buffer *head, *last;

	*written = 0;
	*unattributed = 0;
	*incomplete = 0;
	if (gm_run_activity_open(&ra, dir) < 0) {
		return -1;
	}
	pthread_mutex_lock(&pr->lock);
	head = pr->head;
	last = pr->last;
	pthread_mutex_unlock(&pr->lock);

	for (struct prof_buffer *b = head; b; b = b->next) {
		CUpti_Activity *rec = NULL;
		while (cuptiActivityGetNextRecord(b->data, b->valid, &rec) ==
		       CUPTI_SUCCESS) {
			const char *prog;
			strbuf_reset(&line);
			prog = format_record(pr, rec, names, nr_programs, &line);
			if (prog == INCOMPLETE) {
				(*incomplete)++;
			} else if (prog == SKIPPED) {
				continue;
			} else if (prog) {
				gm_run_activity_add(&ra, &line);
				(*written)++;
			} else {
				(*unattributed)++;
			}
		}
		if (b == last) {
			break;
		}
	}
	strbuf_release(&line);
	return gm_run_activity_commit(&ra);
}
