/* SPDX-License-Identifier: MIT */
/*
 * libgpumix-corun.so: the light interposer of `gpumix corun`. CUDA loads
 * it through CUDA_INJECTION64_PATH and calls InitializeInjection() during
 * cuInit, for static and shared cudart alike (as the capture library,
 * capture/inject.c). It traces nothing: one CUPTI subscriber listens to
 * the driver calls that are GPU operations (gm_api_gpu_op: launches,
 * copies, memsets, graph launches, synchronizations) and notes the
 * process's GPU section, from the entry of its first GPU operation to the
 * return of its last. At the first one it waits at the co-run's start
 * barrier (common/start_barrier.h), so that the programs' sections start
 * together; at exit it writes the section to GPUMIX_CORUN_OUT/section.PID
 * (corun/section.h).
 *
 * The program must not notice: nothing on stdout, no exit(), no change
 * of results, no CUDA call of its own (the callbacks only read the
 * clock). Without GPUMIX_CORUN_OUT it subscribes to nothing.
 */
#include <cuda.h>
#include <cupti.h>
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api.h"
#include "clock.h"
#include "corun/section.h"
#include "error.h"
#include "fs.h"
#include "start_barrier.h"
#include "strbuf.h"

#define GM_CORUN_API __attribute__((visibility("default")))

static struct corun_inject {
	int initialised;
	char *out_dir;			/* GPUMIX_CORUN_OUT (owned) */
	struct gm_start_barrier barrier; /* shm NULL: no barrier */
	unsigned slot;
	double timeout_s;
	CUpti_SubscriberHandle sub;
	/* Driver entry points, from the loaded libcuda (never the runtime) */
	CUresult (*ctx_device)(CUdevice *);
	CUresult (*device_name)(char *, int, CUdevice);

	/* The start: taken once, by the first GPU operation's thread,
	 * while the others that reach a GPU operation wait on the lock. */
	pthread_mutex_t start_lock;
	atomic_int started;
	uint64_t arrive_ns, start_ns;
	unsigned first_cbid;

	/* The end: the latest return of a GPU operation. */
	pthread_mutex_t end_lock;
	uint64_t end_ns, ops;
	unsigned last_cbid;

	struct corun_section out;	/* barrier outcome, error */
} in = {
	.start_lock = PTHREAD_MUTEX_INITIALIZER,
	.end_lock = PTHREAD_MUTEX_INITIALIZER,
};

/* Note why this process cannot be measured (the first reason wins). */
static void fail(const char *fmt, const char *arg)
{
	if (!in.out.error[0]) {
		snprintf(in.out.error, sizeof(in.out.error), fmt, arg);
	}
}

/* "1,3": the slots that had not arrived at the barrier. */
static void note_missing(void)
{
	struct gm_start_barrier *b = &in.barrier;
	size_t len = 0;

	in.out.arrived = gm_barrier_count(b);
	for (unsigned i = 0; i < gm_barrier_parties(b); i++) {
		if (!gm_barrier_arrived(b, i) && len < sizeof(in.out.missing)) {
			len += (size_t)snprintf(in.out.missing + len,
						sizeof(in.out.missing) - len,
						"%s%u", len ? "," : "", i);
		}
	}
}

/* The name of the GPU the first GPU operation goes to. */
static void note_device(void)
{
	CUdevice dev = 0;

	if (in.ctx_device && in.ctx_device(&dev) != CUDA_SUCCESS) {
		dev = 0;
	}
	if (!in.device_name ||
	    in.device_name(in.out.device, (int)sizeof(in.out.device), dev) !=
		    CUDA_SUCCESS) {
		in.out.device[0] = '\0';
	}
}

static void first_op(unsigned cbid)
{
	pthread_mutex_lock(&in.start_lock);
	if (!atomic_load_explicit(&in.started, memory_order_relaxed)) {
		in.arrive_ns = gm_now_ns();
		in.first_cbid = cbid;
		note_device();
		if (in.barrier.shm) {
			switch (gm_barrier_wait(&in.barrier, in.slot,
						in.timeout_s)) {
			case GM_BARRIER_GO:
				in.out.barrier = CORUN_BARRIER_GO;
				break;
			case GM_BARRIER_TIMEOUT:
				in.out.barrier = CORUN_BARRIER_TIMEOUT;
				note_missing();
				break;
			case GM_BARRIER_GAVE_UP:
				in.out.barrier = CORUN_BARRIER_GAVE_UP;
				note_missing();
				break;
			default:
				in.out.barrier = CORUN_BARRIER_ERROR;
				fail("%s", gm_error_message());
				gm_error_clear();
				break;
			}
		}
		in.start_ns = gm_now_ns();
		atomic_store_explicit(&in.started, 1, memory_order_release);
	}
	pthread_mutex_unlock(&in.start_lock);
}

static void CUPTIAPI callback(void *userdata, CUpti_CallbackDomain domain,
			      CUpti_CallbackId cbid, const void *data)
{
	const CUpti_CallbackData *cb = data;
	uint64_t now;

	(void)userdata;
	if (domain != CUPTI_CB_DOMAIN_DRIVER_API) {
		return;		/* only driver callbacks are enabled */
	}
	if (cb->callbackSite == CUPTI_API_ENTER) {
		if (!atomic_load_explicit(&in.started, memory_order_acquire)) {
			first_op(cbid);
		}
		return;
	}
	now = gm_now_ns();
	pthread_mutex_lock(&in.end_lock);
	in.ops++;
	if (now >= in.end_ns) {
		in.end_ns = now;
		in.last_cbid = cbid;
	}
	pthread_mutex_unlock(&in.end_lock);
}

static const char *call_name(unsigned cbid)
{
	int api = gm_api_by_cbid((int)cbid);

	return api < 0 ? "?" : gm_api_table[api].name;
}

static void at_exit(void)
{
	struct corun_section *s = &in.out;
	char *path;

	/* Later GPU operations (another thread, a runtime's teardown)
	 * could only move the end; what is written is what was seen. */
	pthread_mutex_lock(&in.start_lock);
	pthread_mutex_lock(&in.end_lock);
	s->pid = (uint64_t)getpid();
	s->ops = in.ops;
	if (s->ops) {
		s->arrive_ns = in.arrive_ns;
		s->start_ns = in.start_ns;
		s->end_ns = in.end_ns;
		snprintf(s->first_op, sizeof(s->first_op), "%s",
			 call_name(in.first_cbid));
		snprintf(s->last_op, sizeof(s->last_op), "%s",
			 call_name(in.last_cbid));
	}
	pthread_mutex_unlock(&in.end_lock);
	pthread_mutex_unlock(&in.start_lock);
	path = gm_xasprintf("%s/section.%llu", in.out_dir,
			    (unsigned long long)s->pid);
	if (corun_section_write(s, path)) {
		/* stderr only: the command reports the missing file */
		fprintf(stderr, "gpumix corun: cannot write '%s': %s\n", path,
			gm_error_message());
		gm_error_clear();
	}
	free(path);
	gm_barrier_close(&in.barrier);
}

/* Open the barrier named by the environment, if any. */
static void open_barrier(void)
{
	const char *dir = getenv(GM_CORUN_ENV_BARRIER);
	const char *slot = getenv(GM_CORUN_ENV_SLOT);
	const char *t = getenv(GM_CORUN_ENV_TIMEOUT);
	char *path, *end = NULL;

	in.timeout_s = GM_CORUN_DEFAULT_TIMEOUT_S;
	if (t && *t) {
		double v = strtod(t, &end);
		if (*end || !(v > 0)) {
			in.out.barrier = CORUN_BARRIER_ERROR;
			fail("bad " GM_CORUN_ENV_TIMEOUT " '%s'", t);
			return;
		}
		in.timeout_s = v;
	}
	if (!dir || !*dir) {
		return;
	}
	in.slot = slot ? (unsigned)strtoul(slot, &end, 10) : 0;
	if (!slot || !*slot || *end) {
		in.out.barrier = CORUN_BARRIER_ERROR;
		fail("bad or missing " GM_CORUN_ENV_SLOT " '%s'",
		     slot ? slot : "");
		return;
	}
	path = gm_path_join(dir, GM_BARRIER_FILE);
	if (gm_barrier_open(&in.barrier, path)) {
		in.out.barrier = CORUN_BARRIER_ERROR;
		fail("%s", gm_error_message());
		gm_error_clear();
	} else if (in.slot >= gm_barrier_parties(&in.barrier)) {
		in.out.barrier = CORUN_BARRIER_ERROR;
		fail("slot %s beyond the barrier's parties", slot);
		gm_barrier_close(&in.barrier);
	}
	free(path);
}

static void resolve_driver(void)
{
	void *h = dlopen("libcuda.so.1", RTLD_NOW | RTLD_NOLOAD);

	if (!h) {
		return;
	}
	*(void **)&in.ctx_device = dlsym(h, "cuCtxGetDevice");
	*(void **)&in.device_name = dlsym(h, "cuDeviceGetName");
	dlclose(h);	/* libcuda stays loaded for the life of the process */
}

GM_CORUN_API int InitializeInjection(void)
{
	const char *out = getenv(GM_CORUN_ENV_OUT);
	CUptiResult r;

	if (in.initialised) {
		return 1;
	}
	in.initialised = 1;
	if (!out || !*out) {
		return 1;	/* not under gpumix corun */
	}
	in.out_dir = gm_xstrdup(out);
	resolve_driver();
	open_barrier();
	r = cuptiSubscribe(&in.sub, callback, NULL);
	for (int i = 0; r == CUPTI_SUCCESS && i < GM_API_COUNT; i++) {
		if (gm_api_gpu_op(i) != GM_GPU_OP_NONE) {
			r = cuptiEnableCallback(1, in.sub,
						CUPTI_CB_DOMAIN_DRIVER_API,
						(CUpti_CallbackId)gm_api_table[i].cbid);
		}
	}
	if (r != CUPTI_SUCCESS) {
		const char *why = NULL;
		cuptiGetResultString(r, &why);
		fail("CUPTI refused the subscriber: %s", why ? why : "?");
		/* unmeasured, it would never arrive: its partners need not
		 * wait for the time limit to learn that */
		if (in.barrier.shm) {
			gm_barrier_break(&in.barrier);
		}
	}
	atexit(at_exit);
	return 1;
}
