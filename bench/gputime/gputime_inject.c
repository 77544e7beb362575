/* SPDX-License-Identifier: MIT */
/*
 * libgpumix-gputime.so: a CUPTI injection library (CUDA_INJECTION64_PATH)
 * that measures how much GPU work a program does, without changing it: the
 * benchmarks use it to report each suite program's GPU time, launch counts
 * and bytes moved. It collects CONCURRENT_KERNEL, MEMCPY and MEMSET activity
 * records and, at exit, appends a summary to the file named by
 * GPUMIX_GPUTIME_OUT (never to the program's stdout):
 *
 *   gputime pid=P busy_ns=B kernel_ns=K kernels=N memcpy_ns=M memcpys=N
 *           memset_ns=S memsets=N h2d_bytes=.. d2h_bytes=.. d2d_bytes=..
 *           max_h2d_bytes=.. dropped=D
 *   kernel name=NAME count=N total_ns=T max_ns=X
 *
 * busy_ns is the length of the union of all record intervals (GPU time
 * with overlaps counted once); the *_ns sums count each record fully.
 */
#include <cupti.h>
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define BUF_SIZE (8u << 20)

struct interval {
	uint64_t start, end;
};

struct kernel_stat {
	char *name;
	uint64_t count, total_ns, max_ns;
};

struct gputime_state {
	pthread_mutex_t lock;
	struct interval *iv;
	size_t nr_iv, alloc_iv;
	struct kernel_stat *ks;
	size_t nr_ks, alloc_ks;
	uint64_t kernel_ns, kernels, memcpy_ns, memcpys, memset_ns, memsets;
	uint64_t h2d, d2h, d2d, max_h2d, dropped, other;
	int oom;
};

static struct gputime_state st = { .lock = PTHREAD_MUTEX_INITIALIZER };

static void add_interval(uint64_t s, uint64_t e)
{
	if (st.nr_iv == st.alloc_iv) {
		size_t n = st.alloc_iv ? st.alloc_iv * 2 : 4096;
		struct interval *p = realloc(st.iv, n * sizeof(*p));
		if (!p) {
			st.oom = 1;
			return;
		}
		st.iv = p;
		st.alloc_iv = n;
	}
	st.iv[st.nr_iv].start = s;
	st.iv[st.nr_iv].end = e;
	st.nr_iv++;
}

static void add_kernel(const char *name, uint64_t ns)
{
	size_t i;

	name = name ? name : "?";
	for (i = 0; i < st.nr_ks; i++) {
		if (!strcmp(st.ks[i].name, name)) {
			break;
		}
	}
	if (i == st.nr_ks) {
		if (st.nr_ks == st.alloc_ks) {
			size_t n = st.alloc_ks ? st.alloc_ks * 2 : 64;
			struct kernel_stat *p = realloc(st.ks, n * sizeof(*p));
			if (!p) {
				st.oom = 1;
				return;
			}
			st.ks = p;
			st.alloc_ks = n;
		}
		st.ks[i].name = strdup(name);
		st.ks[i].count = st.ks[i].total_ns = st.ks[i].max_ns = 0;
		if (!st.ks[i].name) {
			st.oom = 1;
			return;
		}
		st.nr_ks++;
	}
	st.ks[i].count++;
	st.ks[i].total_ns += ns;
	if (ns > st.ks[i].max_ns) {
		st.ks[i].max_ns = ns;
	}
}

static void record(CUpti_Activity *r)
{
	switch (r->kind) {
	case CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL: {
		CUpti_ActivityKernel10 *k = (CUpti_ActivityKernel10 *)r;
		st.kernels++;
		st.kernel_ns += k->end - k->start;
		add_kernel(k->name, k->end - k->start);
		add_interval(k->start, k->end);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMCPY: {
		CUpti_ActivityMemcpy6 *m = (CUpti_ActivityMemcpy6 *)r;
		st.memcpys++;
		st.memcpy_ns += m->end - m->start;
		if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_HTOD) {
			st.h2d += m->bytes;
			if (m->bytes > st.max_h2d) {
				st.max_h2d = m->bytes;
			}
		} else if (m->copyKind == CUPTI_ACTIVITY_MEMCPY_KIND_DTOH) {
			st.d2h += m->bytes;
		} else {
			st.d2d += m->bytes;
		}
		add_interval(m->start, m->end);
		break;
	}
	case CUPTI_ACTIVITY_KIND_MEMSET: {
		CUpti_ActivityMemset4 *m = (CUpti_ActivityMemset4 *)r;
		st.memsets++;
		st.memset_ns += m->end - m->start;
		add_interval(m->start, m->end);
		break;
	}
	default:
		st.other++;	/* not enabled: counted so it cannot hide */
		break;
	}
}

static void CUPTIAPI buffer_requested(uint8_t **buf, size_t *size,
				      size_t *max_records)
{
	*buf = aligned_alloc(8, BUF_SIZE);
	*size = *buf ? BUF_SIZE : 0;
	*max_records = 0;
}

static void CUPTIAPI buffer_completed(CUcontext ctx, uint32_t stream,
				      uint8_t *buf, size_t size, size_t valid)
{
	CUpti_Activity *r = NULL;
	size_t dropped = 0;

	pthread_mutex_lock(&st.lock);
	while (cuptiActivityGetNextRecord(buf, valid, &r) == CUPTI_SUCCESS) {
		record(r);
	}
	if (cuptiActivityGetNumDroppedRecords(ctx, stream, &dropped) ==
	    CUPTI_SUCCESS) {
		st.dropped += dropped;
	}
	pthread_mutex_unlock(&st.lock);
	free(buf);
}

static int cmp_interval(const void *a, const void *b)
{
	const struct interval *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static uint64_t busy_time(void)
{
	uint64_t busy = 0, cs = 0, ce = 0;

	qsort(st.iv, st.nr_iv, sizeof(*st.iv), cmp_interval);
	for (size_t i = 0; i < st.nr_iv; i++) {
		if (i == 0 || st.iv[i].start > ce) {
			busy += ce - cs;
			cs = st.iv[i].start;
			ce = st.iv[i].end;
		} else if (st.iv[i].end > ce) {
			ce = st.iv[i].end;
		}
	}
	return busy + (ce - cs);
}

static void at_exit(void)
{
	const char *path = getenv("GPUMIX_GPUTIME_OUT");
	FILE *f;

	cuptiActivityFlushAll(1);
	if (!path || !*path) {
		return;
	}
	f = fopen(path, "a");
	if (!f) {
		return;
	}
	pthread_mutex_lock(&st.lock);
	fprintf(f, "gputime pid=%d busy_ns=%" PRIu64 " kernel_ns=%" PRIu64
		" kernels=%" PRIu64 " memcpy_ns=%" PRIu64 " memcpys=%" PRIu64
		" memset_ns=%" PRIu64 " memsets=%" PRIu64 " h2d_bytes=%" PRIu64
		" d2h_bytes=%" PRIu64 " d2d_bytes=%" PRIu64
		" max_h2d_bytes=%" PRIu64 " dropped=%" PRIu64 " other=%" PRIu64
		" oom=%d\n",
		(int)getpid(), busy_time(), st.kernel_ns, st.kernels,
		st.memcpy_ns, st.memcpys, st.memset_ns, st.memsets, st.h2d,
		st.d2h, st.d2d, st.max_h2d, st.dropped, st.other, st.oom);
	for (size_t i = 0; i < st.nr_ks; i++) {
		fprintf(f, "kernel name=%s count=%" PRIu64 " total_ns=%" PRIu64
			" max_ns=%" PRIu64 "\n", st.ks[i].name, st.ks[i].count,
			st.ks[i].total_ns, st.ks[i].max_ns);
	}
	pthread_mutex_unlock(&st.lock);
	fclose(f);
}

int InitializeInjection(void)
{
	if (cuptiActivityRegisterCallbacks(buffer_requested, buffer_completed) !=
	    CUPTI_SUCCESS) {
		return 0;
	}
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_CONCURRENT_KERNEL);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMCPY);
	cuptiActivityEnable(CUPTI_ACTIVITY_KIND_MEMSET);
	atexit(at_exit);
	return 1;
}
