/* SPDX-License-Identifier: MIT */
/*
 * A stand-in for a CUDA program in the capture tests: it loads the real
 * libgpumix-capture.so (linked), and instead of CUDA calls reaching CUPTI
 * it drives the synthetic sequence of capture_synth.h through the same
 * emit functions the CUPTI callbacks use, into the real LTTng provider.
 * Run it under `gpumix capture`; it needs no GPU.
 *
 * usage: capture_emitter [--threads N] [--fork] [--orphan MS] [--hang-after N]
 *                        [--lose N] [--unsupported] [--long-name]
 *                        [--exit N] [--repeat N] [--mini [--kernel-name S]]
 *   --threads N     emit the sequence from N threads (default 1)
 *   --fork          a forked child emits the sequence too
 *   --orphan MS     a forked child the emitter does not wait for emits the
 *                   sequence MS milliseconds later (after the emitter exits)
 *   --hang-after N  stop after N events of the first thread and wait to
 *                   be killed (what a crash looks like to capture)
 *   --lose N        count N events that are never emitted
 *   --unsupported   emit one unsupported call (a loss)
 *   --long-name     emit one name longer than GM_STR_MAX (a loss)
 *   --exit N        exit with status N
 *   --repeat N      emit the sequence N times per thread (benchmarks)
 *   --vary          make every repetition's payloads different (fills a
 *                   disk: no deduplication)
 *   --mini          emit a short sequence of a dozen calls instead (the
 *                   committed corpus of tests/data/bundles is made of it)
 *   --kernel-name S the kernel's name in --mini (default _Z1kPfi), any bytes
 *   --bench N       emit N launch-like entry/exit pairs and print the
 *                   cost per event (the CPU part of the per-call cost)
 *   --count         print "events=E calls=C launches=L" of one thread's
 *                   sequence and exit (no capture needed)
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "capture/emit.h"
#include "capture_synth.h"

static long hang_after = -1;
static unsigned repeat = 1;
static int vary, mini;
static long bench;

/* What a kernel launch costs the emit layer: entry with 11 words and 24
 * argument bytes, exit with 11 words. */
static void emit_bench(void)
{
	uint64_t a[11] = { 0xb000, 4, 1, 1, 128, 1, 1, 0, 0, 0x6000, 0 };
	uint8_t params[24];
	struct timespec t0, t1;

	synth_fill(params, sizeof(params), 9);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (long i = 0; i < bench; i++) {
		struct gm_record r = { 0 };
		void *d;
		r.api = GM_API_cuLaunchKernel;
		r.corr = (uint32_t)i;
		r.args = a;
		r.nr_args = 11;
		d = gm_capture_data(&r, sizeof(params));
		memcpy(d, params, sizeof(params));
		gm_capture_emit(GM_EV_ENTER, &r);
		memset(&r, 0, sizeof(r));
		r.api = GM_API_cuLaunchKernel;
		r.corr = (uint32_t)i;
		gm_capture_emit(GM_EV_EXIT, &r);	/* no outputs: no words */
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	fprintf(stderr, "capture_emitter: %ld events, %.1f ns per event\n",
		2 * bench,
		((t1.tv_sec - t0.tv_sec) * 1e9 + (t1.tv_nsec - t0.tv_nsec)) /
			(2.0 * bench));
}
static __thread unsigned seed_offset;

static void emit_one(unsigned i, unsigned thread)
{
	struct synth s;
	struct gm_record r = { 0 };
	void *buf = NULL, *extra = NULL;
	uint8_t *packed = NULL;

	synth_get(i, &s);
	s.seed += seed_offset;
	r.api = s.api;
	/* Entry and exit share a correlation id (the entry's index). */
	r.corr = (s.kind == GM_EV_EXIT ? i - 1 : i) + SYNTH_THREAD_STRIDE * thread;
	r.rt_corr = s.rt_corr;
	r.status = s.status;
	r.nr_args = (uint8_t)s.nr_args;
	r.args = s.args;
	if (s.kind == GM_EV_EXIT && !synth_exit_words(s.api)) {
		r.nr_args = 0;	/* as the capture library does */
	}
	switch (s.payload) {
	case SYNTH_NONE:
		break;
	case SYNTH_DATA: {
		void *d = gm_capture_data(&r, s.width);
		if (d) {
			synth_fill(d, s.width, s.seed);
		}
		break;
	}
	case SYNTH_PAYLOAD:
	case SYNTH_HASH: {
		struct gm_span span;
		buf = synth_buffer(&s, &span, &packed);
		if (s.payload == SYNTH_PAYLOAD) {
			gm_capture_payload(&r, &span, GM_INLINE_MAX);
		} else {
			gm_capture_hash(&r, &span);
		}
		break;
	}
	case SYNTH_IMAGE: {
		const void *stored;
		size_t n;
		buf = synth_image(&s, &stored, &n, &extra);
		gm_capture_image(&r, buf);
		break;
	}
	case SYNTH_IMAGE_FILE:
		/* write_module_file() wrote it before any thread started. */
		gm_capture_image_file(&r, s.str);
		break;
	}
	gm_capture_str(&r, s.str);
	gm_capture_emit(s.kind, &r);
	free(buf);
	free(extra);
	free(packed);
}

/* The module file of the MODULE_FILE/LIBRARY_FILE calls (same content). */
static void write_module_file(void)
{
	unsigned n = synth_count();

	for (unsigned i = 0; i < n; i++) {
		struct synth s;
		const void *stored;
		size_t len;
		void *buf, *extra;
		FILE *f;

		synth_get(i, &s);
		if (s.payload != SYNTH_IMAGE_FILE) {
			continue;
		}
		buf = synth_image(&s, &stored, &len, &extra);
		f = fopen(s.str, "w");
		if (f) {
			fwrite(stored, 1, len - 1, f);	/* text without its NUL */
			fclose(f);
		}
		free(buf);
		free(extra);
		return;
	}
}

/* The kernel's name in --mini (--kernel-name: any bytes a trace may hold). */
static const char *kernel_name = "_Z1kPfi";

/* A short, plausible program: load, allocate, copy in, launch, copy out. */
static void emit_mini(void)
{
	static const char ptx[] = ".version 8.0\n.target sm_90\n"
				  ".address_size 64\n.visible .entry k()\n{\n ret;\n}\n";
	uint8_t h2d[2048], d2h[64], params[12];
	uint32_t layout[4] = { 0, 8, 8, 4 };
	uint64_t a[GM_MAX_ARGS];
	unsigned corr = 1;
	struct gm_record r;
	struct gm_span sp;

#define MINI_CALL(name, exit_, ...)                                            \
	do {                                                                   \
		uint64_t w_[] = { __VA_ARGS__ };                               \
		memset(&r, 0, sizeof(r));                                      \
		memcpy(a, w_, sizeof(w_));                                     \
		r.api = GM_API_##name;                                         \
		r.corr = corr;                                                 \
		r.rt_corr = 0;                                                 \
		r.args = a;                                                    \
		r.nr_args = GM_NR_ARGS(name);                                  \
		(void)(exit_);                                                 \
	} while (0)

	synth_fill(h2d, sizeof(h2d), 5);
	synth_fill(d2h, sizeof(d2h), 6);
	synth_fill(params, sizeof(params), 7);

	MINI_CALL(cuLibraryLoadData, 0, 0, 0x1000, 0, 0, 0, 0, 0, 0);
	gm_capture_image(&r, ptx);
	gm_capture_emit(GM_EV_ENTER, &r);
	MINI_CALL(cuLibraryLoadData, 1, 0xa000, 0x1000, 0, 0, 0, 0, 0, 0);
	gm_capture_emit(GM_EV_EXIT, &r);
	corr++;
	MINI_CALL(cuLibraryGetKernel, 0, 0, 0xa000, 0x2000);
	gm_capture_str(&r, kernel_name);
	gm_capture_emit(GM_EV_ENTER, &r);
	MINI_CALL(cuLibraryGetKernel, 1, 0xb000, 0xa000, 0x2000);
	gm_capture_str(&r, kernel_name);
	memcpy(gm_capture_data(&r, sizeof(layout)), layout, sizeof(layout));
	gm_capture_emit(GM_EV_EXIT, &r);
	corr++;
	MINI_CALL(cuMemAlloc_v2, 0, 0, 4096);
	gm_capture_emit(GM_EV_ENTER, &r);
	MINI_CALL(cuMemAlloc_v2, 1, 0x7f0000000000, 4096);
	gm_capture_emit(GM_EV_EXIT, &r);
	corr++;
	MINI_CALL(cuMemcpyHtoD_v2, 0, 0x7f0000000000, 0x5000, sizeof(h2d));
	sp = gm_span_bytes(h2d, sizeof(h2d));
	gm_capture_payload(&r, &sp, GM_INLINE_MAX);
	gm_capture_emit(GM_EV_ENTER, &r);
	MINI_CALL(cuMemcpyHtoD_v2, 1, 0x7f0000000000, 0x5000, sizeof(h2d));
	gm_capture_emit(GM_EV_EXIT, &r);
	corr++;
	MINI_CALL(cuLaunchKernel, 0, 0xb000, 4, 1, 1, 128, 1, 1, 0, 0, 0x6000, 0);
	memcpy(gm_capture_data(&r, sizeof(params)), params, sizeof(params));
	gm_capture_emit(GM_EV_ENTER, &r);
	MINI_CALL(cuLaunchKernel, 1, 0xb000, 4, 1, 1, 128, 1, 1, 0, 0, 0x6000, 0);
	gm_capture_emit(GM_EV_EXIT, &r);
	corr++;
	MINI_CALL(cuMemcpyDtoH_v2, 0, 0x7000, 0x7f0000000000, sizeof(d2h));
	gm_capture_emit(GM_EV_ENTER, &r);
	MINI_CALL(cuMemcpyDtoH_v2, 1, 0x7000, 0x7f0000000000, sizeof(d2h));
	sp = gm_span_bytes(d2h, sizeof(d2h));
	gm_capture_hash(&r, &sp);
	gm_capture_emit(GM_EV_EXIT, &r);
	corr++;
	MINI_CALL(cuMemFree_v2, 0, 0x7f0000000000);
	gm_capture_emit(GM_EV_ENTER, &r);
	MINI_CALL(cuMemFree_v2, 1, 0x7f0000000000);
	gm_capture_emit(GM_EV_EXIT, &r);
	{
		uint64_t w[GM_NR_WORDS(gm_ev_act_kernel)] = { 1000, 5000, 5 };
		memset(&r, 0, sizeof(r));
		r.corr = 5;
		r.args = w;
		r.nr_args = GM_NR_WORDS(gm_ev_act_kernel);
		gm_capture_str(&r, kernel_name);
		gm_capture_emit(GM_EV_ACT_KERNEL, &r);
	}
#undef MINI_CALL
}

static void *emit_all(void *arg)
{
	unsigned thread = (unsigned)(uintptr_t)arg;
	unsigned n = synth_count();

	if (mini) {
		emit_mini();
		if (hang_after >= 0) {
			fprintf(stderr, "capture_emitter: waiting to be killed\n");
			for (;;) {
				pause();
			}
		}
		return NULL;
	}
	for (unsigned k = 0; k < repeat; k++) {
		seed_offset = vary ? k * 7919 : 0;
		for (unsigned i = 0; i < n; i++) {
			if (thread == 0 && hang_after >= 0 &&
			    (long)(k * n + i) == hang_after) {
				fprintf(stderr, "capture_emitter: waiting to be killed\n");
				for (;;) {
					pause();
				}
			}
			emit_one(i, thread);
		}
	}
	return NULL;
}

int main(int argc, char **argv)
{
	unsigned threads = 1, lose = 0;
	int do_fork = 0, unsupported = 0, long_name = 0, status = 0;
	long orphan_ms = -1;
	pthread_t tids[64];
	pid_t child = -1;

	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--threads") && i + 1 < argc) {
			threads = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--fork")) {
			do_fork = 1;
		} else if (!strcmp(argv[i], "--orphan") && i + 1 < argc) {
			orphan_ms = atol(argv[++i]);
		} else if (!strcmp(argv[i], "--hang-after") && i + 1 < argc) {
			hang_after = atol(argv[++i]);
		} else if (!strcmp(argv[i], "--lose") && i + 1 < argc) {
			lose = (unsigned)atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--unsupported")) {
			unsupported = 1;
		} else if (!strcmp(argv[i], "--long-name")) {
			long_name = 1;
		} else if (!strcmp(argv[i], "--exit") && i + 1 < argc) {
			status = atoi(argv[++i]);
		} else if (!strcmp(argv[i], "--count")) {
			unsigned calls = 0, launches = 0, n = synth_count();
			for (unsigned k = 0; k < n; k++) {
				struct synth s;
				synth_get(k, &s);
				if (s.kind != GM_EV_ENTER) {
					continue;
				}
				calls++;
				launches += gm_api_table[s.api].special == GM_SP_LAUNCH ||
					    gm_api_table[s.api].special == GM_SP_LAUNCH_COOP ||
					    gm_api_table[s.api].special == GM_SP_LAUNCH_EX;
			}
			printf("events=%u calls=%u launches=%u\n", n, calls, launches);
			return 0;
		} else if (!strcmp(argv[i], "--bench") && i + 1 < argc) {
			bench = atol(argv[++i]);
		} else if (!strcmp(argv[i], "--kernel-name") && i + 1 < argc) {
			kernel_name = argv[++i];
		} else if (!strcmp(argv[i], "--mini")) {
			mini = 1;
		} else if (!strcmp(argv[i], "--vary")) {
			vary = 1;
		} else if (!strcmp(argv[i], "--repeat") && i + 1 < argc) {
			repeat = (unsigned)atoi(argv[++i]);
		} else {
			fprintf(stderr, "capture_emitter: bad argument '%s'\n", argv[i]);
			return 2;
		}
	}
	if (threads < 1 || threads > 64) {
		threads = 1;
	}
	if (gm_capture_init(NULL)) {
		fprintf(stderr, "capture_emitter: not running under gpumix capture\n");
		return 3;
	}
	if (bench > 0) {
		emit_bench();
		gm_capture_finish(NULL);
		return 0;
	}
	write_module_file();
	printf("capture_emitter: %u threads, %u events each\n", threads,
	       mini ? 15 : synth_count() * repeat);
	fflush(stdout);
	for (unsigned t = 1; t < threads; t++) {
		pthread_create(&tids[t], NULL, emit_all, (void *)(uintptr_t)t);
	}
	emit_all((void *)0);
	for (unsigned t = 1; t < threads; t++) {
		pthread_join(tids[t], NULL);
	}
	if (do_fork) {
		child = fork();
		if (child == 0) {
			emit_all((void *)(uintptr_t)63);
			gm_capture_finish(NULL);
			_exit(0);
		}
		waitpid(child, NULL, 0);
	}
	if (orphan_ms >= 0) {
		/* A child the program does not wait for: it is still emitting
		 * when the program exits. */
		child = fork();
		if (child == 0) {
			usleep((useconds_t)orphan_ms * 1000);
			emit_all((void *)(uintptr_t)62);
			gm_capture_finish(NULL);
			remove("synthetic-module.ptx");
			_exit(0);
		}
	}
	for (unsigned k = 0; k < lose; k++) {
		struct gm_record r = { 0 };
		gm_capture_emit(GM_EV_COUNT, &r);	/* counted, never emitted */
	}
	if (unsupported) {
		struct gm_record r = { 0 };
		uint64_t w[2] = { 999, 2 };
		r.api = 999;
		r.corr = SYNTH_THREAD_STRIDE - 1;
		r.args = w;
		r.nr_args = 2;
		gm_capture_str(&r, "cuGraphLaunch");
		gm_capture_loss(unsupported_calls);
		gm_capture_emit(GM_EV_UNSUPPORTED, &r);
	}
	if (long_name) {
		struct gm_record r = { 0 };
		char *name = malloc(GM_STR_MAX + 100);
		memset(name, 'k', GM_STR_MAX + 99);
		name[GM_STR_MAX + 99] = '\0';
		r.corr = SYNTH_THREAD_STRIDE - 2;
		gm_capture_str(&r, name);
		gm_capture_emit(GM_EV_RT_ENTER, &r);
		free(name);
	}
	gm_capture_finish(NULL);
	/* Its content is in the bundle now; leave no stray file in the caller's
	 * working directory (an orphan still reads it, and removes it). */
	if (orphan_ms < 0) {
		remove("synthetic-module.ptx");
	}
	return status;
}
