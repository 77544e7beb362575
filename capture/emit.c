/* SPDX-License-Identifier: MIT */
/*
 * The emit layer of libgpumix-capture.so (see emit.h). One explicit state
 * struct for the process, one thread-local struct per thread. The counter
 * file is mapped shared so that its numbers survive a crash or a kill;
 * after fork() the child stops counting into the parent's mapping and
 * creates its own file on its first event. A process records events only
 * while it has its own file: the capture tells its processes from those
 * of a capture running beside it by that file (bundle.c).
 */
#include "emit.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "api.h"
#include "image.h"

/* LTTng's provider header, read once more for the tracepoint calls. */
#include "capture/gpumix_capture_tp.h"

#define THREAD_AREA (GM_DATA_MAX + GM_STR_MAX + 64)

struct capture_state {
	pthread_mutex_t lock;
	int ready;		/* init succeeded in this process */
	int closed;		/* LTTng-UST is being torn down */
	int atfork_done;
	unsigned generation;	/* bumped in each forked child */
	pid_t pid;
	char dir[PATH_MAX];
	struct gm_counts *counts;	/* NULL until mapped in this process */
	/* A forked child's nearest ancestor's file, until it has its own:
	 * where a failure to create that is counted. */
	struct gm_counts *parent_counts;
	int no_counts;		/* this forked child has no file: silent */
	struct blob_store blobs, modules;
	pthread_key_t area_key;
};

static struct capture_state st = {
	.lock = PTHREAD_MUTEX_INITIALIZER,
	.generation = 1,
	.blobs = { -1, 0 },
	.modules = { -1, 0 },
};

static __thread struct gm_thread th;

static uint64_t monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/* The clean clock's source (gm_capture_test_clock() replaces it). */
static uint64_t (*clock_now)(void) = monotonic_ns;

void gm_capture_test_clock(uint64_t (*now)(void))
{
	clock_now = now ? now : monotonic_ns;
}

void gm_capture_own_begin(struct gm_thread *t)
{
	t->own_start = clock_now();
	t->clean_at = t->own_start - t->own_ns;
	t->in_own = 1;
}

void gm_capture_own_end(struct gm_thread *t)
{
	uint64_t now = clock_now();

	if (now > t->own_start) {
		t->own_ns += now - t->own_start;
	}
	t->in_own = 0;
}

uint64_t gm_capture_clean_ns(struct gm_thread *t)
{
	return t->in_own ? t->clean_at : clock_now() - t->own_ns;
}

static uint64_t realtime_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_REALTIME, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

static void free_area(void *p)
{
	munmap(p, THREAD_AREA);
}

/* Create and map procs/<pid>.counts; called with st.lock held. */
static int map_counts(void)
{
	char path[PATH_MAX + 64];
	struct gm_counts *c;
	int fd;

	snprintf(path, sizeof(path), "%s/procs/%ld.counts", st.dir,
		 (long)st.pid);
	fd = open(path, O_RDWR | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		return -1;
	}
	/*
	 * Blocks allocated now, not a sparse file: a store into a mapped
	 * page the file system cannot back (a full disk) is a SIGBUS that
	 * would kill the captured program.
	 */
	if (posix_fallocate(fd, 0, sizeof(*c))) {
		close(fd);
		unlink(path);
		return -1;
	}
	c = mmap(NULL, sizeof(*c), PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	close(fd);
	if (c == MAP_FAILED) {
		unlink(path);
		return -1;
	}
	c->version = GM_COUNTS_VERSION;
	c->size = sizeof(*c);
	c->pid = (uint64_t)st.pid;
	c->ppid = (uint64_t)getppid();
	c->state = GM_STATE_RUNNING;
	c->start_ns = realtime_ns();
	/* The magic last: a reader never sees a half-initialised header. */
	__atomic_thread_fence(__ATOMIC_RELEASE);
	memcpy(c->magic, GM_COUNTS_MAGIC, sizeof(c->magic));
	st.counts = c;
	return 0;
}

static void after_fork_child(void)
{
	/*
	 * The parent's mapping is shared: never count events into it again,
	 * but keep it until this process has its own file. (A parent without
	 * a file of its own yet passes on its ancestor's.)
	 */
	if (st.counts) {
		st.parent_counts = st.counts;
		st.counts = NULL;
	}
	st.no_counts = 0;
	st.pid = getpid();
	st.generation++;
	pthread_mutex_init(&st.lock, NULL);
}

int gm_capture_init(const char *dir)
{
	int ret = -1;
	char sub[PATH_MAX + 16];

	pthread_mutex_lock(&st.lock);
	if (st.ready) {
		ret = 0;
		goto out;
	}
	if (!dir) {
		dir = getenv(GM_CAPTURE_DIR_ENV);
	}
	if (!dir || !*dir || strlen(dir) >= sizeof(st.dir)) {
		goto out;
	}
	strcpy(st.dir, dir);
	st.pid = getpid();
	snprintf(sub, sizeof(sub), "%s/procs", st.dir);
	mkdir(sub, 0755);
	snprintf(sub, sizeof(sub), "%s/blobs", st.dir);
	mkdir(sub, 0755);
	if (blob_store_open(&st.blobs, sub)) {
		goto out;
	}
	snprintf(sub, sizeof(sub), "%s/modules", st.dir);
	mkdir(sub, 0755);
	if (blob_store_open(&st.modules, sub)) {
		blob_store_close(&st.blobs);
		goto out;
	}
	if (pthread_key_create(&st.area_key, free_area) || map_counts()) {
		blob_store_close(&st.blobs);
		blob_store_close(&st.modules);
		goto out;
	}
	if (!st.atfork_done) {
		pthread_atfork(NULL, NULL, after_fork_child);
		st.atfork_done = 1;
	}
	st.ready = 1;
	ret = 0;
out:
	pthread_mutex_unlock(&st.lock);
	return ret;
}

int gm_capture_ready(void)
{
	return st.ready;
}

struct gm_counts *gm_capture_counts(void)
{
	if (st.ready && !st.counts && !st.no_counts) {
		/* First event of a forked child. */
		pthread_mutex_lock(&st.lock);
		if (!st.counts && !st.no_counts) {
			if (!map_counts()) {
				if (st.parent_counts) {
					munmap(st.parent_counts, sizeof(*st.parent_counts));
					st.parent_counts = NULL;
				}
			} else {
				/* Its events would pass for another capture's:
				 * record none, and say so in the ancestor's file. */
				st.no_counts = 1;
				if (st.parent_counts) {
					__atomic_fetch_add(&st.parent_counts->children_without_counts,
							   1, __ATOMIC_RELAXED);
				}
			}
		}
		pthread_mutex_unlock(&st.lock);
	}
	return st.counts;
}

struct gm_thread *gm_capture_thread(void)
{
	struct gm_counts *c;

	if (th.generation != st.generation) {
		th.generation = st.generation;
		th.tid = (uint64_t)syscall(SYS_gettid);
		th.slot = NULL;
		th.claimed = 0;
	}
	if (!th.claimed && (c = gm_capture_counts())) {
		uint64_t i = __atomic_fetch_add(&c->nr_slots, 1, __ATOMIC_RELAXED);
		if (i < GM_COUNTS_SLOTS) {
			c->slots[i].tid = th.tid;
			th.slot = &c->slots[i];
		} else {
			gm_capture_warn(slot_overflow);
		}
		th.claimed = 1;
	}
	return &th;
}

/*
 * Library destructors run after every atexit handler and, since this
 * library depends on liblttng-ust, before liblttng-ust's own: from here on
 * an event could not reach the trace, so it is counted as late instead of
 * emitted. Only a runtime's teardown (shared cudart unloading its modules
 * from its destructor) gets here.
 */
__attribute__((destructor)) static void capture_close(void)
{
	st.closed = 1;
}

void gm_capture_emit(enum gm_event_kind kind, struct gm_record *r)
{
	struct gm_thread *t;

	if (!st.ready) {
		return;
	}
	if (st.closed) {
		gm_capture_warn(late_events);
		return;
	}
	if (!gm_capture_counts()) {
		return;		/* a forked child without its file (counted) */
	}
	t = gm_capture_thread();
	if (!r->str || !r->str[0]) {
		r->str = GM_EMPTY_STR;
	}
	if (!r->data_len) {
		r->data = NULL;
	}
	r->data_words = (uint16_t)((r->data_len + 7) / 8);
	r->host_ns = gm_capture_clean_ns(t);
	switch (kind) {
	case GM_EV_ENTER:
		lttng_ust_tracepoint(gpumix_capture, enter, r);
		break;
	case GM_EV_EXIT:
		lttng_ust_tracepoint(gpumix_capture, exit, r);
		break;
	case GM_EV_RT_ENTER:
		lttng_ust_tracepoint(gpumix_capture, rt_enter, r);
		break;
	case GM_EV_RT_EXIT:
		lttng_ust_tracepoint(gpumix_capture, rt_exit, r);
		break;
	case GM_EV_UNSUPPORTED:
		lttng_ust_tracepoint(gpumix_capture, unsupported, r);
		break;
	case GM_EV_D2H_HASH:
		lttng_ust_tracepoint(gpumix_capture, d2h_hash, r);
		break;
	case GM_EV_LAYOUT:
		lttng_ust_tracepoint(gpumix_capture, layout, r);
		break;
	case GM_EV_ACT_KERNEL:
		lttng_ust_tracepoint(gpumix_capture, act_kernel, r);
		break;
	case GM_EV_ACT_MEMCPY:
		lttng_ust_tracepoint(gpumix_capture, act_memcpy, r);
		break;
	case GM_EV_ACT_MEMSET:
		lttng_ust_tracepoint(gpumix_capture, act_memset, r);
		break;
	case GM_EV_PROCESS:
		lttng_ust_tracepoint(gpumix_capture, process, r);
		break;
	case GM_EV_DEVICE:
		lttng_ust_tracepoint(gpumix_capture, device, r);
		break;
	case GM_EV_HOSTMEM:
		lttng_ust_tracepoint(gpumix_capture, hostmem, r);
		break;
	case GM_EV_HOST_FUNC:
		lttng_ust_tracepoint(gpumix_capture, host_func, r);
		break;
	case GM_EV_COUNT:
		/* Not an event: counted so that the count-back flags it. */
		break;
	}
	if (t->slot) {
		t->slot->events++;
	} else if (st.counts) {
		__atomic_fetch_add(&st.counts->overflow_events, 1,
				   __ATOMIC_RELAXED);
	}
}

static uint64_t *thread_area(void)
{
	if (!th.buf) {
		void *p = mmap(NULL, THREAD_AREA, PROT_READ | PROT_WRITE,
			       MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
		if (p == MAP_FAILED) {
			return NULL;
		}
		th.buf = p;
		pthread_setspecific(st.area_key, p);
	}
	return th.buf;
}

void *gm_capture_data(struct gm_record *r, size_t len)
{
	uint64_t *buf;

	r->data_len = 0;
	r->data = NULL;
	if (len > GM_DATA_MAX) {
		gm_capture_loss(oversized_data);
		return NULL;
	}
	buf = thread_area();
	if (!buf) {
		gm_capture_loss(oversized_data);
		return NULL;
	}
	if (len) {
		buf[(len - 1) / 8] = 0;	/* padding bytes are zero */
	}
	r->data = buf;
	r->data_len = (uint32_t)len;
	return buf;
}

void gm_capture_str(struct gm_record *r, const char *s)
{
	size_t n;
	char *dst;
	uint64_t *area;

	if (!s) {
		r->str = "";
		return;
	}
	n = strnlen(s, GM_STR_MAX + 1);
	if (n <= GM_STR_MAX) {
		r->str = s;
		return;
	}
	area = thread_area();
	if (!area) {
		r->str = "";
		gm_capture_loss(truncated_strings);
		return;
	}
	dst = (char *)area + GM_DATA_MAX + 8;
	memcpy(dst, s, GM_STR_MAX);
	dst[GM_STR_MAX] = '\0';
	r->str = dst;
	r->flags |= GM_RF_TRUNCATED;
	gm_capture_loss(truncated_strings);
}

/* Remember why a write failed (the manifest says it: "disk full"). */
static void note_errno(void)
{
	struct gm_counts *c = gm_capture_counts();

	if (c && errno) {
		__atomic_store_n(&c->last_errno, (uint64_t)errno, __ATOMIC_RELAXED);
	}
}

static void set_blob(struct gm_record *r, struct gm_hash h, uint64_t size)
{
	r->blob_hi = h.hi;
	r->blob_lo = h.lo;
	r->blob_size = size;
}

int gm_capture_payload(struct gm_record *r, const struct gm_span *span,
		       size_t inline_max)
{
	uint64_t size = gm_span_size(span);
	struct gm_hash h = { 0, 0 };
	int ret;

	if (size <= inline_max) {
		void *buf = gm_capture_data(r, (size_t)size);
		if (!buf) {
			return -1;
		}
		gm_span_pack(span, buf);
		return 0;
	}
	r->flags |= GM_RF_BLOB;
	if (!st.ready) {
		return -1;
	}
	ret = blob_store_put(&st.blobs, span, "", &h);
	set_blob(r, h, size);
	if (ret < 0) {
		r->flags |= GM_RF_FAILED;
		gm_capture_loss(blob_failures);
		note_errno();
		return -1;
	}
	if (ret) {
		gm_capture_add(blobs_written, 1);
		gm_capture_add(blob_bytes_written, size);
	} else {
		gm_capture_add(blobs_deduped, 1);
		gm_capture_add(blob_bytes_deduped, size);
	}
	return 0;
}

int gm_capture_hash(struct gm_record *r, const struct gm_span *span)
{
	struct gm_hash h;

	r->flags |= GM_RF_HASH;
	if (gm_span_hash(span, &h)) {
		r->flags |= GM_RF_FAILED;
		gm_capture_loss(blob_failures);
		return -1;
	}
	set_blob(r, h, gm_span_size(span));
	return 0;
}

static int store_image(struct gm_record *r, const struct gm_image *img)
{
	struct gm_span span = gm_span_bytes(img->data, img->size);
	struct gm_hash h = { 0, 0 };
	int ret;

	r->flags |= GM_RF_MODULE | (uint16_t)(img->kind << GM_RF_IMAGE_SHIFT);
	ret = st.ready ? blob_store_put(&st.modules, &span,
					 gm_image_suffix(img->kind), &h) : -1;
	set_blob(r, h, img->size);
	if (ret < 0) {
		r->flags |= GM_RF_FAILED;
		gm_capture_loss(module_failures);
		note_errno();
		return -1;
	}
	if (ret) {
		gm_capture_add(modules_written, 1);
		gm_capture_add(module_bytes, img->size);
	}
	return 0;
}

int gm_capture_image(struct gm_record *r, const void *p)
{
	struct gm_image img;

	if (gm_image_inspect(p, &img)) {
		r->flags |= GM_RF_MODULE | GM_RF_FAILED;
		gm_capture_loss(module_failures);
		return -1;
	}
	return store_image(r, &img);
}

int gm_capture_image_file(struct gm_record *r, const char *path)
{
	struct gm_image img = { NULL, 0, GM_IMAGE_FILE, 0 };
	struct stat sb;
	char *buf = NULL;
	size_t got = 0;
	int fd, ret = -1;

	fd = path ? open(path, O_RDONLY | O_CLOEXEC) : -1;
	if (fd < 0 || fstat(fd, &sb) || (uint64_t)sb.st_size > GM_IMAGE_MAX) {
		goto out;
	}
	buf = malloc((size_t)sb.st_size + 1);
	if (!buf) {
		goto out;
	}
	while (got < (size_t)sb.st_size) {
		ssize_t n = read(fd, buf + got, (size_t)sb.st_size - got);
		if (n < 0 && errno == EINTR) {
			continue;
		}
		if (n <= 0) {
			goto out;
		}
		got += (size_t)n;
	}
	buf[got] = '\0';
	img.data = buf;
	img.size = got;
	{
		/* Name the stored file after what it holds when we can tell. */
		struct gm_image probe;
		if (got >= 16 && !gm_image_inspect(buf, &probe) &&
		    probe.kind != GM_IMAGE_PTX && !probe.wrapped &&
		    probe.size <= got) {
			img.kind = probe.kind;
		} else if (got && memchr(buf, '\0', got) == NULL) {
			img.kind = GM_IMAGE_PTX;
		}
	}
	ret = store_image(r, &img);
	goto done;
out:
	r->flags |= GM_RF_MODULE | GM_RF_FAILED;
	gm_capture_loss(module_failures);
done:
	if (fd >= 0) {
		close(fd);
	}
	free(buf);
	return ret;
}

void gm_capture_count_call(int runtime, unsigned cbid)
{
	struct gm_counts *c = gm_capture_counts();

	if (!c || cbid >= GM_COUNTS_CBIDS) {
		return;
	}
	__atomic_fetch_add(runtime ? &c->runtime_calls[cbid]
				   : &c->driver_calls[cbid],
			   1, __ATOMIC_RELAXED);
}

static void write_names(const char *(*name_of)(int, unsigned))
{
	char path[PATH_MAX + 64], tmp[PATH_MAX + 128];
	struct gm_counts *c = st.counts;
	int fd;

	snprintf(path, sizeof(path), "%s/procs/%ld.names", st.dir, (long)st.pid);
	snprintf(tmp, sizeof(tmp), "%s.tmp", path);
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		return;
	}
	for (int rt = 0; rt < 2; rt++) {
		const uint64_t *calls = rt ? c->runtime_calls : c->driver_calls;
		for (unsigned i = 0; i < GM_COUNTS_CBIDS; i++) {
			const char *name;
			if (!calls[i] || !(name = name_of(rt, i))) {
				continue;
			}
			dprintf(fd, "%s %u %s\n", rt ? "runtime" : "driver", i,
				name);
		}
	}
	if (close(fd) == 0) {
		rename(tmp, path);
	} else {
		unlink(tmp);
	}
}

void gm_capture_exiting(void)
{
	struct gm_counts *c = gm_capture_counts();

	if (c) {
		__atomic_store_n(&c->state, GM_STATE_EXITING, __ATOMIC_RELEASE);
	}
}

void gm_capture_finish(const char *(*name_of)(int runtime, unsigned cbid))
{
	struct gm_counts *c = gm_capture_counts();

	if (!c) {
		return;
	}
	if (name_of) {
		write_names(name_of);
	}
	c->end_ns = realtime_ns();
	__atomic_store_n(&c->state, GM_STATE_EXITED, __ATOMIC_RELEASE);
}
