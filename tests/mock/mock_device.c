/* SPDX-License-Identifier: MIT */
/*
 * The asynchronous device of the mock CUDA driver: streams, events, the
 * driver calls that queue, wait and synchronize, and the one device
 * thread that runs queued work later, in an order chosen to expose a
 * missing dependency (the MOCK_CUDA_* knobs are described in mock_cuda.c).
 *
 * Each stream, the legacy default stream included, is a FIFO queue of
 * commands (struct mock_cmd). A command may also depend on positions in
 * other streams (cuStreamWaitEvent, and the implicit ordering between the
 * legacy stream and blocking streams); it is runnable when those have run
 * and it has been queued for the latency, or at once when a host thread
 * is blocked waiting for it (directly or through such a dependency).
 * Among the streams whose head is runnable the device thread takes the
 * one the order knob names. A stream position is the count of commands
 * queued to it so far: an event records one, a wait copies it at the
 * call, a synchronization waits until the stream has run that many.
 *
 * There is one device thread, so a kernel that never ends (the k_spin
 * test kernel) stops every stream, where a GPU would run other streams'
 * work beside it. Nothing waits for that thread at exit: it is detached,
 * never joined, and blocks every signal. Streams and events are never
 * freed: queued work and waits may still name them after their destroy
 * call, and a later use of the handle is reported as invalid.
 */
#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "mock.h"
#include "mock_int.h"

pthread_mutex_t mock_lock = PTHREAD_MUTEX_INITIALIZER;

#define STREAM_MAGIC 0x57e4a11u
#define EVENT_MAGIC 0xe7e47u
#define LEGACY_STREAM_ID 7u
#define DEFAULT_LATENCY_US 200u
#define STARVED_NS 100000000ull		/* 0.1 s */

struct mock_dep {
	struct mstream *s;
	uint64_t seq;
};

struct mstream {
	uint32_t magic;
	uint32_t id;
	unsigned flags;		/* CU_STREAM_NON_BLOCKING */
	int legacy;		/* the legacy default stream */
	int destroyed;
	struct mctx *ctx;	/* its context (NULL: the legacy stream's is
				   the caller's current one) */
	struct mock_cmd *head, *tail;
	uint64_t enqueued;	/* commands queued so far */
	uint64_t done;		/* commands run so far (always a prefix) */
	uint64_t urgent;	/* a blocked host waits for commands up to here */
	struct mstream *next;	/* every stream ever created */
};

struct mevent {
	uint32_t magic;
	unsigned flags;		/* CU_EVENT_* */
	int destroyed;
	struct mstream *stream;	/* of the last record; NULL: never recorded */
	uint64_t seq;		/* position of that record in its stream */
	uint64_t gen;		/* records so far */
	uint64_t time_ns;	/* mock_now() when the last record ran */
	struct mevent *next;	/* every event ever made (never freed) */
};

/* Kept reachable, so that leak checkers do not report them: an event
 * outlives its destroy call (a later use is then an invalid handle). */
static struct mevent *all_events;

struct record_cmd {
	struct mock_cmd c;
	struct mevent *ev;
	uint64_t gen;
};

enum order {
	ORDER_LIFO,
	ORDER_FIFO,
	ORDER_RANDOM,
};

static struct {
	pthread_once_t once;
	pthread_cond_t work;	/* to the device thread: look again */
	pthread_cond_t done;	/* to blocked hosts: a command has run */
	int started;		/* the device thread runs */
	int knobs_bad;
	uint64_t latency_ns;
	enum order order;
	uint64_t rng;
	uint64_t next_order;
	uint32_t next_id;
	struct mstream legacy;
	struct mstream *streams;
} dev = {
	.once = PTHREAD_ONCE_INIT,
	.done = PTHREAD_COND_INITIALIZER,
	.latency_ns = DEFAULT_LATENCY_US * 1000ull,
	.rng = 1,
	.next_id = 100,
	.legacy = { .magic = STREAM_MAGIC, .id = LEGACY_STREAM_ID, .legacy = 1 },
	.streams = &dev.legacy,
};

static uint64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* xorshift64*: reproducible for a given MOCK_CUDA_SEED. */
static uint64_t rand_next(void)
{
	dev.rng ^= dev.rng >> 12;
	dev.rng ^= dev.rng << 25;
	dev.rng ^= dev.rng >> 27;
	return dev.rng * 0x2545f4914f6cdd1dull;
}

static int parse_knobs(void)
{
	const char *lat = getenv("MOCK_CUDA_LATENCY_US");
	const char *ord = getenv("MOCK_CUDA_ORDER");
	const char *seed = getenv("MOCK_CUDA_SEED");
	char *end;
	int bad = 0;

	if (lat && *lat) {
		unsigned long long us;
		errno = 0;
		us = strtoull(lat, &end, 10);
		if (errno || *end || us > 10000000ull) {
			fprintf(stderr, "mock cuda: MOCK_CUDA_LATENCY_US='%s' is "
				"not a number of microseconds up to 10000000\n",
				lat);
			bad = 1;
		} else {
			dev.latency_ns = us * 1000ull;
		}
	}
	if (ord && *ord) {
		if (!strcmp(ord, "lifo")) {
			dev.order = ORDER_LIFO;
		} else if (!strcmp(ord, "fifo")) {
			dev.order = ORDER_FIFO;
		} else if (!strcmp(ord, "random")) {
			dev.order = ORDER_RANDOM;
		} else {
			fprintf(stderr, "mock cuda: MOCK_CUDA_ORDER='%s' is not "
				"lifo, fifo or random\n", ord);
			bad = 1;
		}
	}
	if (seed && *seed) {
		unsigned long long v;
		errno = 0;
		v = strtoull(seed, &end, 10);
		if (errno || *end) {
			fprintf(stderr, "mock cuda: MOCK_CUDA_SEED='%s' is not a "
				"number\n", seed);
			bad = 1;
		} else {
			/* xorshift never leaves 0 */
			dev.rng = v ? v : 0x9e3779b97f4a7c15ull;
		}
	}
	return bad ? -1 : 0;
}

static int deps_met(const struct mock_cmd *c)
{
	for (unsigned i = 0; i < c->nr_deps; i++) {
		if (c->deps[i].s->done < c->deps[i].seq) {
			return 0;
		}
	}
	return 1;
}

/*
 * The command to run next, or NULL with *@wake the CLOCK_MONOTONIC time
 * to look again (0: when told). Caller holds mock_lock.
 *
 * Sleeping until the oldest waiting head is twice the latency old (it
 * became runnable after one latency) lets the commands a host queued in
 * a burst all become runnable together, so that the order knob decides
 * between them rather than the moment each call happened to return. A
 * head that has been runnable for STARVED_NS goes first whatever the
 * order, so that lifo cannot starve a stream while others keep busy.
 */
static struct mock_cmd *pick(uint64_t now, uint64_t *wake)
{
	struct mock_cmd *best = NULL, *oldest = NULL;
	uint64_t nr = 0;

	*wake = 0;
	for (struct mstream *s = dev.streams; s; s = s->next) {
		struct mock_cmd *h = s->head;

		if (!h || !deps_met(h)) {
			continue;
		}
		if (h->seq > s->urgent && now - h->enq_ns < dev.latency_ns) {
			uint64_t t = h->enq_ns + 2 * dev.latency_ns;
			if (!*wake || t < *wake) {
				*wake = t;
			}
			continue;
		}
		nr++;
		if (!oldest || h->order < oldest->order) {
			oldest = h;
		}
		switch (dev.order) {
		case ORDER_LIFO:
			if (!best || h->order > best->order) {
				best = h;
			}
			break;
		case ORDER_FIFO:
			if (!best || h->order < best->order) {
				best = h;
			}
			break;
		case ORDER_RANDOM:
			/* reservoir sampling: each runnable head alike */
			if (rand_next() % nr == 0) {
				best = h;
			}
			break;
		}
	}
	if (oldest && now - oldest->enq_ns > dev.latency_ns + STARVED_NS) {
		return oldest;
	}
	return best;
}

static void *device_main(void *arg)
{
	(void)arg;
	pthread_mutex_lock(&mock_lock);
	for (;;) {
		struct mock_cmd *c;
		struct mstream *s;
		uint64_t wake, start, end;

		c = pick(mono_ns(), &wake);
		if (!c) {
			if (wake) {
				struct timespec ts = {
					.tv_sec = (time_t)(wake / 1000000000u),
					.tv_nsec = (long)(wake % 1000000000u),
				};
				pthread_cond_timedwait(&dev.work, &mock_lock, &ts);
			} else {
				pthread_cond_wait(&dev.work, &mock_lock);
			}
			continue;
		}
		s = c->stream;
		s->head = c->next;
		if (!s->head) {
			s->tail = NULL;
		}
		pthread_mutex_unlock(&mock_lock);
		start = mock_now();
		if (c->exec) {
			c->exec(c);
		}
		end = mock_now();
		pthread_mutex_lock(&mock_lock);
		if (c->done) {
			c->done(c, start, end);
		}
		s->done = c->seq;
		pthread_cond_broadcast(&dev.done);
		free(c->deps);
		free(c);
	}
	return NULL;
}

static void start_device(void)
{
	pthread_condattr_t ca;
	pthread_attr_t ta;
	sigset_t all, old;
	pthread_t t;

	dev.knobs_bad = parse_knobs();
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&dev.work, &ca);
	pthread_condattr_destroy(&ca);
	/*
	 * Detached and never joined: at exit it may be inside a kernel that
	 * never ends. It blocks every signal, so that the program's handlers
	 * (SIGINT, the watchdog's SIGALRM) run on the program's threads.
	 */
	pthread_attr_init(&ta);
	pthread_attr_setdetachstate(&ta, PTHREAD_CREATE_DETACHED);
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	dev.started = !pthread_create(&t, &ta, device_main, NULL);
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	pthread_attr_destroy(&ta);
	if (!dev.started) {
		fprintf(stderr, "mock cuda: cannot start the device thread\n");
	}
}

static int device_start(void)
{
	pthread_once(&dev.once, start_device);
	return dev.started;
}

int mock_device_knobs(void)
{
	device_start();
	return dev.knobs_bad ? -1 : 0;
}

/* The stream @h names, or NULL. Caller holds mock_lock. */
static struct mstream *stream_of(CUstream h)
{
	struct mstream *s = (struct mstream *)h;

	if (h == NULL || h == CU_STREAM_LEGACY) {
		return &dev.legacy;
	}
	if (h == CU_STREAM_PER_THREAD) {
		return NULL;	/* not modelled: no caller uses it */
	}
	return s->magic == STREAM_MAGIC && !s->destroyed &&
	       (!s->ctx || mock_ctx_live(s->ctx)) ? s : NULL;
}

struct mctx *mock_stream_ctx(CUstream h)
{
	struct mstream *s;
	struct mctx *c = NULL;

	pthread_mutex_lock(&mock_lock);
	s = stream_of(h);
	if (s) {
		c = s->ctx ? s->ctx : mock_current_ctx();
	}
	pthread_mutex_unlock(&mock_lock);
	return c;
}

unsigned mock_streams_of(const struct mctx *c)
{
	unsigned n = 0;

	pthread_mutex_lock(&mock_lock);
	for (struct mstream *s = dev.streams; s; s = s->next) {
		n += s->ctx == c && !s->destroyed;
	}
	pthread_mutex_unlock(&mock_lock);
	return n;
}

static struct mevent *event_of(CUevent h)
{
	struct mevent *e = (struct mevent *)h;

	return e && e->magic == EVENT_MAGIC && !e->destroyed ? e : NULL;
}

static void add_dep(struct mock_cmd *c, struct mstream *s, uint64_t seq)
{
	struct mock_dep *d = realloc(c->deps, (c->nr_deps + 1) * sizeof(*d));

	if (!d) {
		fprintf(stderr, "mock cuda: out of memory\n");
		abort();
	}
	d[c->nr_deps].s = s;
	d[c->nr_deps].seq = seq;
	c->deps = d;
	c->nr_deps++;
}

/* Caller holds mock_lock. */
static void enqueue_locked(struct mstream *s, struct mock_cmd *c)
{
	c->stream = s;
	c->stream_id = s->id;
	c->ctx_id = (s->ctx ? s->ctx : mock_current_ctx())->id;
	c->next = NULL;
	c->order = ++dev.next_order;
	c->enq_ns = mono_ns();
	/* The legacy stream and the blocking streams wait for each other. */
	if (s->legacy) {
		for (struct mstream *t = dev.streams; t; t = t->next) {
			if (!t->legacy && !(t->flags & CU_STREAM_NON_BLOCKING) &&
			    t->done < t->enqueued) {
				add_dep(c, t, t->enqueued);
			}
		}
	} else if (!(s->flags & CU_STREAM_NON_BLOCKING) &&
		   dev.legacy.done < dev.legacy.enqueued) {
		add_dep(c, &dev.legacy, dev.legacy.enqueued);
	}
	c->seq = ++s->enqueued;
	if (s->tail) {
		s->tail->next = c;
	} else {
		s->head = c;
	}
	s->tail = c;
	pthread_cond_signal(&dev.work);
}

CUresult mock_enqueue(CUstream h, struct mock_cmd *c)
{
	struct mstream *s;

	if (!device_start()) {
		return CUDA_ERROR_OPERATING_SYSTEM;
	}
	if (mock_graph_capturing(h)) {
		return mock_graph_take(h, c);
	}
	pthread_mutex_lock(&mock_lock);
	s = stream_of(h);
	if (!s) {
		pthread_mutex_unlock(&mock_lock);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	enqueue_locked(s, c);
	pthread_mutex_unlock(&mock_lock);
	return CUDA_SUCCESS;
}

/*
 * A host thread is about to block until stream @s has run @seq commands:
 * those commands, and every position they depend on, skip the latency.
 * Caller holds mock_lock.
 */
static void hurry(struct mstream *s, uint64_t seq)
{
	if (seq <= s->urgent) {
		return;
	}
	s->urgent = seq;
	for (struct mock_cmd *c = s->head; c && c->seq <= seq; c = c->next) {
		for (unsigned i = 0; i < c->nr_deps; i++) {
			hurry(c->deps[i].s, c->deps[i].seq);
		}
	}
}

/* Block until @s has run @seq commands. Caller holds mock_lock. */
static void wait_for(struct mstream *s, uint64_t seq)
{
	if (s->done >= seq) {
		return;
	}
	hurry(s, seq);
	pthread_cond_signal(&dev.work);
	while (s->done < seq) {
		pthread_cond_wait(&dev.done, &mock_lock);
	}
}

void mock_device_sync(void)
{
	device_start();
	pthread_mutex_lock(&mock_lock);
	/* Hurry them all first: they may run in any order. */
	for (struct mstream *s = dev.streams; s; s = s->next) {
		hurry(s, s->enqueued);
	}
	for (struct mstream *s = dev.streams; s; s = s->next) {
		wait_for(s, s->enqueued);
	}
	pthread_mutex_unlock(&mock_lock);
}

uint32_t mock_stream_id(CUstream h)
{
	if (h == NULL || h == CU_STREAM_LEGACY || h == CU_STREAM_PER_THREAD) {
		return LEGACY_STREAM_ID;
	}
	return ((struct mstream *)h)->id;
}

/* ---- streams ---- */

/* The H100's range: 0 (least) to -5 (greatest); others are refused. */
#define MOCK_PRIORITY_GREATEST (-5)

CUresult CUDAAPI cuCtxGetStreamPriorityRange(int *least, int *greatest)
{
	*least = 0;
	*greatest = MOCK_PRIORITY_GREATEST;
	return CUDA_SUCCESS;
}

CUresult mock_stream_create(CUstream *phStream, unsigned flags, int priority,
			    struct mctx *ctx)
{
	struct mstream *s = calloc(1, sizeof(*s));

	if (priority < MOCK_PRIORITY_GREATEST || priority > 0) {
		free(s);
		return CUDA_ERROR_INVALID_VALUE;
	}
	if (!s) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	s->magic = STREAM_MAGIC;
	s->flags = flags;
	s->ctx = ctx;
	pthread_mutex_lock(&mock_lock);
	/* CUPTI promises stream ids unique within a context only. */
	if (ctx && ctx->green && getenv("MOCK_CUDA_STREAM_IDS") &&
	    !strcmp(getenv("MOCK_CUDA_STREAM_IDS"), "context")) {
		s->id = 100 + ctx->next_id++;
	} else {
		s->id = dev.next_id++;
	}
	/* after the legacy stream, which stays first */
	s->next = dev.legacy.next;
	dev.legacy.next = s;
	pthread_mutex_unlock(&mock_lock);
	*phStream = (CUstream)s;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamCreateWithPriority(CUstream *phStream,
					    unsigned int flags, int priority)
{
	return mock_stream_create(phStream, flags, priority,
				  mock_current_ctx());
}

CUresult CUDAAPI cuStreamCreate(CUstream *phStream, unsigned int flags)
{
	return cuStreamCreateWithPriority(phStream, flags, 0);
}

CUresult CUDAAPI cuStreamDestroy(CUstream hStream)
{
	struct mstream *s;

	pthread_mutex_lock(&mock_lock);
	s = stream_of(hStream);
	if (!s || s->legacy) {
		pthread_mutex_unlock(&mock_lock);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	/* Its queued work still runs, as with CUDA. */
	s->destroyed = 1;
	pthread_mutex_unlock(&mock_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamSynchronize(CUstream hStream)
{
	MOCK_API(cuStreamSynchronize);
	struct mstream *s;

	if (mock_graph_capturing(hStream)) {
		return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
	}
	device_start();
	pthread_mutex_lock(&mock_lock);
	s = stream_of(hStream);
	if (!s) {
		pthread_mutex_unlock(&mock_lock);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	wait_for(s, s->enqueued);
	pthread_mutex_unlock(&mock_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuStreamQuery(CUstream hStream)
{
	struct mstream *s;
	CUresult r;

	pthread_mutex_lock(&mock_lock);
	s = stream_of(hStream);
	r = !s ? CUDA_ERROR_INVALID_HANDLE :
	    s->done == s->enqueued ? CUDA_SUCCESS : CUDA_ERROR_NOT_READY;
	pthread_mutex_unlock(&mock_lock);
	return r;
}

CUresult CUDAAPI cuStreamWaitEvent(CUstream hStream, CUevent hEvent,
				   unsigned int Flags)
{
	struct mock_cmd *c;
	struct mstream *s;
	struct mevent *e;

	(void)Flags;
	if (!device_start()) {
		return CUDA_ERROR_OPERATING_SYSTEM;
	}
	if (mock_graph_stream_wait(hStream, hEvent)) {
		return CUDA_SUCCESS;	/* joined a capture */
	}
	if (mock_graph_capturing(hStream)) {
		return CUDA_SUCCESS;	/* an event from outside: no node */
	}
	c = calloc(1, sizeof(*c));
	if (!c) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	c->call_ns = mock_now();
	pthread_mutex_lock(&mock_lock);
	s = stream_of(hStream);
	e = event_of(hEvent);
	if (!s || !e) {
		pthread_mutex_unlock(&mock_lock);
		free(c);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	/* The event's position now: a later record does not move the wait. */
	if (e->stream && e->stream->done < e->seq) {
		add_dep(c, e->stream, e->seq);
	}
	enqueue_locked(s, c);
	pthread_mutex_unlock(&mock_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuCtxSynchronize(void)
{
	MOCK_API(cuCtxSynchronize);
	mock_device_sync();
	return CUDA_SUCCESS;
}

/* ---- events ---- */

CUresult CUDAAPI cuEventCreate(CUevent *phEvent, unsigned int Flags)
{
	struct mevent *e = calloc(1, sizeof(*e));

	if (!e) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	e->magic = EVENT_MAGIC;
	e->flags = Flags;
	pthread_mutex_lock(&mock_lock);
	e->next = all_events;
	all_events = e;
	pthread_mutex_unlock(&mock_lock);
	*phEvent = (CUevent)e;
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventDestroy(CUevent hEvent)
{
	struct mevent *e;

	pthread_mutex_lock(&mock_lock);
	e = event_of(hEvent);
	if (e) {
		e->destroyed = 1;
	}
	pthread_mutex_unlock(&mock_lock);
	return e ? CUDA_SUCCESS : CUDA_ERROR_INVALID_HANDLE;
}

/* Caller holds mock_lock: the record has run; time it unless moved. */
static void record_done(struct mock_cmd *c, uint64_t start, uint64_t end)
{
	struct record_cmd *r = (struct record_cmd *)c;

	(void)end;
	if (r->ev->gen == r->gen) {
		r->ev->time_ns = start;
	}
}

CUresult CUDAAPI cuEventRecord(CUevent hEvent, CUstream hStream)
{
	struct record_cmd *r;
	struct mstream *s;
	struct mevent *e;

	if (!device_start()) {
		return CUDA_ERROR_OPERATING_SYSTEM;
	}
	if (mock_graph_capturing(hStream)) {
		return mock_graph_event_record(hEvent, hStream);
	}
	r = calloc(1, sizeof(*r));
	if (!r) {
		return CUDA_ERROR_OUT_OF_MEMORY;
	}
	r->c.done = record_done;
	r->c.call_ns = mock_now();
	pthread_mutex_lock(&mock_lock);
	s = stream_of(hStream);
	e = event_of(hEvent);
	if (!s || !e) {
		pthread_mutex_unlock(&mock_lock);
		free(r);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	r->ev = e;
	r->gen = ++e->gen;
	enqueue_locked(s, &r->c);
	e->stream = s;
	e->seq = r->c.seq;
	pthread_mutex_unlock(&mock_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventQuery(CUevent hEvent)
{
	uint64_t t0 = mock_now();
	struct mevent *e;
	CUresult r;

	mock_api_record(120, t0);	/* CUPTI_DRIVER_TRACE_CBID_cuEventQuery */
	pthread_mutex_lock(&mock_lock);
	e = event_of(hEvent);
	r = !e ? CUDA_ERROR_INVALID_HANDLE :
	    !e->stream || e->stream->done >= e->seq ? CUDA_SUCCESS :
						      CUDA_ERROR_NOT_READY;
	pthread_mutex_unlock(&mock_lock);
	return r;
}

CUresult CUDAAPI cuEventSynchronize(CUevent hEvent)
{
	MOCK_API(cuEventSynchronize);
	struct mevent *e;

	device_start();
	pthread_mutex_lock(&mock_lock);
	e = event_of(hEvent);
	if (!e) {
		pthread_mutex_unlock(&mock_lock);
		return CUDA_ERROR_INVALID_HANDLE;
	}
	if (e->stream) {
		wait_for(e->stream, e->seq);
	}
	pthread_mutex_unlock(&mock_lock);
	return CUDA_SUCCESS;
}

CUresult CUDAAPI cuEventElapsedTime(float *pMilliseconds, CUevent hStart,
				    CUevent hEnd)
{
	struct mevent *a, *b;
	CUresult r = CUDA_SUCCESS;

	pthread_mutex_lock(&mock_lock);
	a = event_of(hStart);
	b = event_of(hEnd);
	if (!a || !b || !a->stream || !b->stream ||
	    ((a->flags | b->flags) & CU_EVENT_DISABLE_TIMING)) {
		r = CUDA_ERROR_INVALID_HANDLE;
	} else if (a->stream->done < a->seq || b->stream->done < b->seq) {
		r = CUDA_ERROR_NOT_READY;
	} else {
		*pMilliseconds = (float)(((double)b->time_ns -
					  (double)a->time_ns) / 1e6);
	}
	pthread_mutex_unlock(&mock_lock);
	return r;
}
