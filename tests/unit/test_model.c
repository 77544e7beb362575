/* SPDX-License-Identifier: MIT */
/*
 * The replay model: handle maps and id recycling, what each call becomes,
 * the host arena layout, and the exact error of every call the model
 * refuses (each names the trace event and the API).
 */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "reconstruct/model/model_int.h"
#include "error.h"
#include "test.h"

#define A0 0x7f0000000000ull
#define A1 0x7f0000100000ull
#define LIB 0x100
#define HASH "0123456789abcdef0123456789abcdef"

static struct model_prog *fresh(struct model **m)
{
	struct model_prog *p;

	*m = model_new(NULL, "cuda");
	p = model_add_program(*m, "p", "bundle", 1);
	model_add_module(p, 0, LIB, HASH, 4, "x");
	return p;
}

static struct model_copy copy(enum model_copy_kind k, uint64_t dst,
			      uint64_t src, uint64_t size)
{
	struct model_copy c;

	memset(&c, 0, sizeof(c));
	c.kind = k;
	c.dst = dst;
	c.src = src;
	c.size = size;
	return c;
}

static void expect_error(int ret, const char *msg, const char *what)
{
	if (ret >= 0) {
		CHECK(0, what);
		return;
	}
	CHECK_STR(gm_error_message(), msg, what);
	gm_error_clear();
}

static void test_errors(void)
{
	struct model *m;
	struct model_prog *p = fresh(&m);
	struct model_copy c;
	struct model_launch l;
	uint32_t blob;
	uint8_t data[64] = { 0 };

	model_add_blob_bytes(m, data, sizeof(data), &blob);
	model_add_alloc(p, 1, "cuMemAlloc_v2", A0, 4096);
	c = copy(MODEL_H2D, A0, 0x1000, 64);
	c.blob = blob;
	c.stream = 0x1234;
	expect_error(model_add_copy(p, 2, "cuMemcpyHtoDAsync_v2", &c),
		     "event 2 (cuMemcpyHtoDAsync_v2): unknown stream 0x1234",
		     "unknown stream");
	c.stream = 0;
	c.dst = A1;
	expect_error(model_add_copy(p, 3, "cuMemcpyHtoD_v2", &c),
		     "event 3 (cuMemcpyHtoD_v2): destination 0x7f0000100000 is"
		     " not inside a live device allocation or global",
		     "copy to unknown memory");
	c.dst = A0 + 4090;
	expect_error(model_add_copy(p, 4, "cuMemcpyHtoD_v2", &c),
		     "event 4 (cuMemcpyHtoD_v2): 64 bytes at destination "
		     "0x7f0000000ffa run past the end of allocation 0 (4096 "
		     "bytes, event 1)", "copy past the end");
	c.dst = A0;
	c.size = 65;
	expect_error(model_add_copy(p, 5, "cuMemcpyHtoD_v2", &c),
		     "event 5 (cuMemcpyHtoD_v2): source data (blob 0) is "
		     "missing or too small", "blob too small");
	expect_error(model_add_free(p, 6, "cuMemFree_v2", A0 + 64),
		     "event 6 (cuMemFree_v2): 0x7f0000000040 is not a live "
		     "allocation", "free of an interior pointer");
	CHECK_INT(model_add_free(p, 7, "cuMemFree_v2", A0), 0, "free");
	expect_error(model_add_free(p, 8, "cuMemFree_v2", A0),
		     "event 8 (cuMemFree_v2): 0x7f0000000000 is not a live "
		     "allocation", "double free");
	c = copy(MODEL_D2H, 0x1000, A0 + 8, 8);
	expect_error(model_add_copy(p, 9, "cuMemcpyDtoH_v2", &c),
		     "event 9 (cuMemcpyDtoH_v2): source 0x7f0000000008 points "
		     "into freed device memory", "copy from freed memory");
	expect_error(model_add_memset(p, 10, "cuMemsetD2D8", A0, 0, 3, 1, 0,
				      0),
		     "event 10 (cuMemsetD2D8): memset of 3-byte elements",
		     "bad memset width");
	memset(&l, 0, sizeof(l));
	l.kernel = 0x999;
	expect_error(model_add_launch(p, 11, "cuLaunchKernel", &l),
		     "event 11 (cuLaunchKernel): unknown kernel 0x999",
		     "unknown kernel");
	{
		static const uint32_t off[] = { 0, 8 }, size[] = { 8, 4 };
		uint64_t args[1] = { 0 };
		model_add_kernel(p, 12, 0x500, LIB, "k", 2, off, size);
		l.kernel = 0x500;
		l.grid[0] = l.grid[1] = l.grid[2] = 1;
		l.block[0] = l.block[1] = l.block[2] = 1;
		l.params = args;
		l.params_size = 8;
		expect_error(model_add_launch(p, 13, "cuLaunchKernel", &l),
			     "event 13 (cuLaunchKernel): 8 parameter bytes for"
			     " kernel 'k', whose layout needs 12",
			     "parameters shorter than the layout");
	}
	expect_error(model_add_kernel(p, 14, 0x501, 0x777, "k2", 0, NULL, NULL),
		     "event 14: kernel 'k2' of unknown module 0x777",
		     "kernel of an unknown module");
	expect_error(model_add_event_record(p, 15, "cuEventRecord", 0x42, 0),
		     "event 15 (cuEventRecord): unknown event 0x42",
		     "unknown event");
	expect_error(model_add_stream(p, 16, 0x2, 1, 0),
		     "event 16: stream handle 0x2 is reserved",
		     "reserved stream handle");
	{
		struct model_texture t;
		memset(&t, 0, sizeof(t));
		t.res_type = 0;	/* array */
		t.array = 0xa1;
		expect_error(model_add_texture(p, 17, "cuTexObjectCreate", 1,
					       &t),
			     "event 17 (cuTexObjectCreate): texture over unknown"
			     " array 0xa1", "texture over an unknown array");
		t.res_type = 1;	/* mipmapped array */
		expect_error(model_add_texture(p, 17, "cuTexObjectCreate", 1,
					       &t),
			     "event 17 (cuTexObjectCreate): texture objects over"
			     " mipmapped arrays (resource type 1) are not"
			     " supported", "mipmapped array texture");
	}
	expect_error(model_add_blob(m, "xyz", 4, "f", &blob),
		     "bad blob hash 'xyz'", "bad blob hash");
	model_add_unsupported(p, 18, "cuGraphLaunch");
	CHECK_INT(model_nr_unsupported(m), 1, "unsupported call counted");
	CHECK_INT(model_finish(m), 0, "finish");
	expect_error(model_add_op(p, 19, "cuCtxSynchronize", GM_OP_CTX_SYNC)
		     ? 0 : -1,
		     "the model of 'p' is already finished",
		     "no additions after finish");
	{
		struct strbuf sb = STRBUF_INIT;
		model_report(m, &sb);
		CHECK(strstr(sb.buf, "warning: program 'p': event 18: "
				     "cuGraphLaunch: unsupported, not replayed")
			      != NULL,
		      "unsupported call listed");
		strbuf_release(&sb);
	}
	model_free(m);
}

static void test_ids_and_ops(void)
{
	struct model *m;
	struct model_prog *p = fresh(&m);
	struct model_copy c;
	uint32_t blob;
	uint8_t data[256] = { 1 };
	const char *h = "FEDCBA9876543210FEDCBA9876543210";

	model_add_blob_bytes(m, data, sizeof(data), &blob);
	/* allocation ids: smallest free first */
	model_add_alloc(p, 1, "a", A0, 256);		/* 0 */
	model_add_alloc(p, 2, "a", A0 + 4096, 256);	/* 1 */
	model_add_free(p, 3, "f", A0);
	model_add_alloc(p, 4, "a", A1, 256);		/* 0 again */
	CHECK_INT(p->ops[3].code, GM_OP_ALLOC, "alloc op");
	CHECK_INT(p->ops[3].a, 0, "freed id reused");
	CHECK_INT(p->ops[3].z, 256, "alloc size");
	CHECK_INT(p->alloc_ids.next, 2, "two ids in all");

	/* streams: legacy handles, per-thread stream, recycling by kind */
	CHECK_INT(model_add_stream(p, 5, 0xa1, 1, 0), 0, "stream a1");
	CHECK_INT(model_add_stream(p, 6, 0xa2, 0, -1), 0, "stream a2");
	model_destroy_stream(p, 7, 0xa1);
	CHECK_INT(model_add_stream(p, 8, 0xa3, 0, -1), 0, "stream a3");
	CHECK_INT(p->nr_streams, 4, "a3 differs in kind from a1: new id");
	CHECK_INT(model_add_stream(p, 9, 0xa4, 1, 0), 0, "stream a4");
	CHECK_INT(p->nr_streams, 4, "a4 reuses a1's id");
	CHECK_INT(p->streams[2].d.flags, GM_STREAM_BLOCKING,
		  "blocking stream flagged");
	CHECK_INT(p->streams[2].d.priority, -1, "priority kept");

	c = copy(MODEL_H2D, A1, 0x9000, 256);
	c.blob = blob;
	c.stream = 0x1;		/* CU_STREAM_LEGACY */
	c.flags = MODEL_SYNC;
	model_add_copy(p, 10, "cuMemcpyHtoD_v2", &c);
	CHECK_INT(p->ops[4].stream, 0, "CU_STREAM_LEGACY is stream 0");
	CHECK_INT(p->ops[4].flags, GM_F_SYNC, "sync flag, not pinned");
	model_add_host_alloc(p, 11, 0x9000, 4096);
	c.stream = 0x2;		/* CU_STREAM_PER_THREAD */
	model_add_copy(p, 12, "cuMemcpyHtoDAsync_v2", &c);
	CHECK_INT(p->ops[5].stream, 4, "per-thread stream gets an id");
	CHECK_INT(p->streams[4].d.flags, GM_STREAM_BLOCKING,
		  "which is blocking");
	CHECK_INT(p->ops[5].flags, GM_F_SYNC | GM_F_PINNED,
		  "copy from page-locked memory flagged");
	CHECK(m->blobs[blob].flags & GM_BLOB_PINNED, "its blob too");

	/* D2H: async ones keep their arena room until their stream syncs */
	c = copy(MODEL_D2H, 0x9000, A1, 100);
	c.stream = 0xa2;
	c.d2h_hash = h;
	model_add_copy(p, 13, "cuMemcpyDtoHAsync_v2", &c);	/* op 6 */
	model_add_copy(p, 14, "cuMemcpyDtoHAsync_v2", &c);	/* op 7 */
	c.stream = 0;
	c.flags = MODEL_SYNC;
	c.d2h_hash = NULL;
	model_add_copy(p, 15, "cuMemcpyDtoH_v2", &c);		/* op 8 */
	model_add_op(p, 16, "cuStreamSynchronize", GM_OP_STREAM_SYNC, 0xa2);
	model_add_copy(p, 17, "cuMemcpyDtoH_v2", &c);		/* op 10 */
	CHECK_INT(model_set_result_hash(p, 30, 17, h), 0,
		  "a result hash that comes later");
	expect_error(model_set_result_hash(p, 31, 17, h),
		     "event 31: no device-to-host copy at event 17 waits for a "
		     "result hash", "only once");

	/* the global of a module, then the module goes away */
	CHECK_INT(model_add_global(p, 18, LIB, "sym", A0 + 65536, 64), 0,
		  "global");
	CHECK_INT(model_add_global(p, 19, LIB, "sym", A0 + 65536, 64), 0,
		  "global looked up again");
	c = copy(MODEL_H2D, A0 + 65536 + 8, 0x1, 8);
	c.blob = blob;
	model_add_copy(p, 20, "cuMemcpyHtoD_v2", &c);		/* op 11 */
	CHECK_INT(p->ops[11].a, GM_G(0), "symbol copy goes to the global");
	CHECK_INT(p->ops[11].x, 8, "at its offset");
	CHECK_INT(model_unload_module(p, 21, LIB), 0, "unload");
	expect_error(model_add_copy(p, 22, "cuMemcpyHtoD_v2", &c),
		     "event 22 (cuMemcpyHtoD_v2): destination 0x7f0000010008 "
		     "points into freed device memory",
		     "the global is gone with its module");

	model_add_event(p, 23, 0xe1, 2 | 4);
	model_destroy_event(p, 24, 0xe1);
	model_add_event(p, 25, 0xe2, 2);
	CHECK_INT(p->nr_events, 1, "event id recycled");
	CHECK_INT(p->events[0].flags, 2, "interprocess flag dropped");

	CHECK_INT(model_finish(m), 0, "finish");
	CHECK_INT(p->ops[6].y, 0, "first async result at 0");
	CHECK_INT(p->ops[7].y, 128, "second after it (64-byte aligned)");
	CHECK_INT(p->ops[8].y, 256, "sync result after the pending ones");
	CHECK_INT(p->ops[8].b, GM_NONE, "no recorded hash: no check");
	CHECK_INT(p->ops[10].y, 0, "arena reused after the stream sync");
	CHECK_INT(p->host_arena, 356, "arena size");
	CHECK_INT(p->ops[6].b, 0, "check id");
	CHECK_STR(gm_strmap_key(&p->checks, 0, NULL),
		  "fedcba9876543210fedcba9876543210", "hash kept lowercase");
	CHECK_INT(p->ops[7].b, 0, "identical hashes share a check");
	CHECK_INT(p->ops[10].b, 0, "the late hash is the copy's check");
	CHECK_INT(p->nr_unverifiable, 1, "unverifiable results counted");
	CHECK_STR(m->name, "p", "workload named after its programs");
	model_free(m);
}

/* Results into resident host pages (MODEL_HOST_WARM): flagged, and in
 * rooms of their own above the fresh ones, on a page boundary. */
static void test_host_warm(void)
{
	struct model *m;
	struct model_prog *p = fresh(&m);
	struct model_copy c;

	model_add_alloc(p, 1, "cuMemAlloc_v2", A0, 4096);
	CHECK_INT(model_add_host_alloc(p, 2, 0x9000, 4096), 0, "page-locked");
	c = copy(MODEL_D2H, 0x100000, A0, 100);
	c.flags = MODEL_SYNC;
	model_add_copy(p, 3, "cuMemcpyDtoH_v2", &c);		/* op 1: fresh */
	c.flags = MODEL_SYNC | MODEL_HOST_WARM;
	model_add_copy(p, 4, "cuMemcpyDtoH_v2", &c);		/* op 2: warm */
	c.flags = MODEL_HOST_WARM;
	model_add_copy(p, 5, "cuMemcpyDtoHAsync_v2", &c);	/* op 3: warm, async */
	c.flags = MODEL_SYNC;
	model_add_copy(p, 6, "cuMemcpyDtoH_v2", &c);		/* op 4: fresh */
	c = copy(MODEL_D2H, 0x9000, A0, 64);
	c.flags = MODEL_SYNC | MODEL_HOST_WARM;
	model_add_copy(p, 7, "cuMemcpyDtoH_v2", &c);		/* op 5: pinned */
	CHECK_INT(model_finish(m), 0, "finish");
	CHECK_INT(p->ops[1].flags & GM_F_HOST_WARM, 0, "a fresh copy: no flag");
	CHECK_INT(p->ops[2].flags & GM_F_HOST_WARM, GM_F_HOST_WARM,
		  "a copy into resident pages: flagged");
	CHECK_INT(p->ops[5].flags & (GM_F_HOST_WARM | GM_F_PINNED), GM_F_PINNED,
		  "page-locked memory: pinned, never warm");
	CHECK_INT(p->ops[1].y, 0, "fresh rooms from 0");
	CHECK_INT(p->ops[4].y, 0, "a fresh result reuses the fresh rooms: the "
		  "pending one is in the warm rooms");
	CHECK_INT(p->ops[2].y, 65536, "warm rooms on the next 64 KiB boundary");
	CHECK_INT(p->ops[3].y, 65536, "the async warm result from there");
	CHECK_INT(p->host_arena, 65536 + 100, "the arena ends after them");
	model_free(m);
}

/* Captured host time (model_hosttime.c): gaps per thread, 0 for a
 * thread's first operation and inside one call, coded beyond 2 s. */
static void test_host_time(void)
{
	struct model *m;
	struct model_prog *p = fresh(&m), *q;
	struct model_copy c = copy(MODEL_D2D, A0, A0 + 1024, 64);
	const uint64_t T = 1000000000ull;

	model_set_host_time(p, 11, T / 2, T / 2 + 100);
	model_add_alloc(p, 1, "cuMemAlloc_v2", A0, 4096);
	/* 0.5 s later, the first GPU operation: the section starts */
	model_set_host_time(p, 11, T, T + 100);
	model_add_memset(p, 2, "cuMemsetD8_v2", A0, 0, 1, 64, 0, MODEL_SYNC);
	model_set_host_time(p, 22, T + 50, T + 60);	/* another thread */
	model_add_memset(p, 3, "cuMemsetD8_v2", A0, 0, 1, 64, 0, 0);
	model_set_host_time(p, 11, T + 1100, T + 1200);	/* 1000 after */
	model_add_copy(p, 4, "cuMemcpyDtoD_v2", &c);
	model_set_host_time(p, 22, T + 5060, T + 5100);	/* 5000 after */
	/* a 2-D memset: several operations of one call */
	model_add_memset(p, 5, "cuMemsetD8_v2", A0, 0, 1, 64, 0, 0);
	model_add_memset(p, 5, "cuMemsetD8_v2", A0 + 64, 0, 1, 64, 0, 0);
	model_set_host_time(p, 11, T + 3 * T, T + 3 * T + 10);	/* 3 s */
	model_add_memset(p, 6, "cuMemsetD8_v2", A0, 0, 1, 64, 0, 0);
	model_set_host_time(p, 11, 3600 * T, 3600 * T + 10);	/* an hour */
	model_add_memset(p, 7, "cuMemsetD8_v2", A0, 0, 1, 64, 0, 0);
	model_set_host_time(p, 11, 3605 * T, 3605 * T + 10);	/* 5 s */
	model_add_free(p, 8, "cuMemFree_v2", A0);	/* after the section */
	q = model_add_program(m, "q", "old-bundle", 1);	/* no host times */
	model_add_module(q, 0, LIB, HASH, 4, "x");
	model_add_alloc(q, 1, "cuMemAlloc_v2", A0, 4096);
	CHECK_INT(model_finish(m), 0, "finish");
	CHECK(p->host_gap != NULL, "a program with host times has gaps");
	CHECK_INT(p->nr_ops, 9, "nine operations");
	if (p->host_gap && p->nr_ops == 9) {
		CHECK_INT(p->host_gap[8], 0, "after the last GPU operation: "
			  "no gap (outside the GPU section)");
		CHECK_INT(p->host_gap[1], 0, "the first GPU operation: no gap "
			  "(the host time before the GPU section is not spent)");
		CHECK_INT(p->host_gap[2], 0, "thread 22's first: none either");
		CHECK_INT(p->host_gap[3], 1000, "entry less its thread's last "
			  "return, not the other thread's");
		CHECK_INT(p->host_gap[4], 5000, "thread 22: since its own call");
		CHECK_INT(p->host_gap[5], 0, "the second operation of one call");
		CHECK_INT(p->host_gap[6], GM_HOST_GAP_US | (3 * 1000000u - 1),
			  "3 s: coded in microseconds");
		CHECK_INT(gm_host_gap_ns(p->host_gap[6]), 3 * T - 1000,
			  "... and decoded (to the microsecond)");
		CHECK_INT(gm_host_gap_ns(p->host_gap[7]), GM_HOST_GAP_MAX_NS,
			  "an hour: kept at the most a gap holds");
		CHECK_INT(p->nr_host_gap_saturated, 1, "... and counted");
	}
	CHECK(p->host_thread != NULL && p->nr_host_threads == 2,
	      "two threads");
	if (p->host_thread && p->nr_ops == 9) {
		CHECK(p->host_thread[0] == 0 && p->host_thread[2] == 1 &&
		      p->host_thread[3] == 0 && p->host_thread[4] == 1,
		      "threads numbered by their first operation");
	}
	CHECK(q->host_gap == NULL && q->host_thread == NULL,
	      "a program without host times has no tables");
	model_free(m);
}

/* Mapped page-locked and managed memory (model_hostmem.c). */
static void test_hostmem(void)
{
	struct model *m;
	struct model_prog *p = fresh(&m);
	uint8_t data[64] = { 7 };
	uint32_t blob;
	const char *h = "00112233445566778899aabbccddeeff";
	struct model_copy c;

	model_add_blob_bytes(m, data, sizeof(data), &blob);
	model_add_alloc(p, 1, "cuMemAlloc_v2", A0, 256);
	CHECK_INT(model_add_host_alloc(p, 2, 0x9000, 64), 0, "page-locked");
	CHECK_INT(model_add_managed(p, 3, A1, 64), 0, "managed");
	CHECK_INT(model_alias_host(p, 4, 0x9000, 0x9000), 0,
		  "unified addressing: no alias");
	CHECK_INT(model_add_host_fill(p, 5, 0x9000, 64, blob), 0, "fill");
	CHECK_INT(p->ops[1].code, GM_OP_HOST_FILL, "a host write");
	CHECK_INT(p->ops[1].a, GM_H(0), "of the page-locked region");
	CHECK_INT(model_add_host_check(p, 6, A1 + 16, 16, h), 0, "check");
	CHECK_INT(p->ops[2].a, GM_H(1), "of the managed region");
	CHECK_INT(p->ops[2].x, 16, "at its offset");
	expect_error(model_add_host_fill(p, 7, A0, 64, blob),
		     "event 7 (hostmem): 0x7f0000000000 is device memory, not "
		     "page-locked or managed memory", "no host write to device "
		     "memory");
	expect_error(model_add_host_check(p, 8, A1, 65, h),
		     "event 8 (hostmem): 65 bytes at address 0x7f0000100000 "
		     "run past the end of mapped or managed memory 1 (64 "
		     "bytes, event 3)",
		     "a read past its end");
	expect_error(model_add_host_check(p, 9, A1, 64, "xyz"),
		     "event 9 (hostmem): bad result hash 'xyz'", "a bad hash");
	CHECK_INT(model_add_prefetch(p, 10, "cuMemPrefetchAsync_v2", A1, 64,
				     GM_LOC_DEVICE, 0), 0, "prefetch");
	/* A copy into managed memory relocates to it. */
	c = copy(MODEL_H2D, A1, 0x1, 64);
	c.blob = blob;
	CHECK_INT(model_add_copy(p, 11, "cuMemcpyHtoD_v2", &c), 0, "copy");
	CHECK_INT(p->ops[4].a, GM_H(1), "into the managed region");
	CHECK_INT(model_alias_host(p, 12, 0x9008, 0x5008), 0,
		  "another device address");
	CHECK_INT(model_add_host_fill(p, 13, 0x5000, 64, blob), 0,
		  "through it");
	CHECK_INT(p->ops[5].a, GM_H(0), "the same region");
	CHECK_INT(model_add_free(p, 14, "cuMemFree_v2", A1), 0,
		  "managed memory freed by cuMemFree");
	CHECK_INT(p->nr_ops, 6, "without an operation");
	expect_error(model_add_host_fill(p, 15, A1, 64, blob),
		     "event 15 (hostmem): address 0x7f0000100000 points into "
		     "freed device memory", "gone after its free");
	CHECK_INT(model_add_host_free(p, 16, 0x9000), 0, "cuMemFreeHost");
	expect_error(model_add_host_fill(p, 17, 0x5000, 64, blob),
		     "event 17 (hostmem): address 0x5000 points into freed "
		     "device memory", "its alias too");
	model_add_host_alloc(p, 18, 0xa000, 64);	/* never used */
	CHECK_INT(model_finish(m), 0, "finish");
	CHECK_INT(p->hostmems[0].used && p->hostmems[1].used &&
		  !p->hostmems[2].used, 1, "only named regions are used");
	model_free(m);
}

/*
 * A device pointer copied into a module global or an allocation: one
 * PTR_STORE after the copy per word that held an address inside a live
 * allocation, from inline bytes and from a blob file (a table above the
 * inline limit); a copy into an allocation above 64 KiB is not looked at.
 */
static void test_pointer_stores(void)
{
	struct model *m;
	struct model_prog *p = fresh(&m);
	struct model_copy c;
	uint64_t table[256] = { 0 }, ptr = A1 + 16;
	char path[] = "/tmp/gpumix-test-blob.XXXXXX";
	uint32_t inl, file;
	int fd = mkstemp(path);

	table[200] = A1 + 32;		/* a pointer at byte 1600 */
	table[10] = 12345;		/* a number: left alone */
	CHECK(fd >= 0 && write(fd, table, sizeof(table)) == sizeof(table),
	      "blob file written");
	close(fd);
	model_add_blob_bytes(m, &ptr, sizeof(ptr), &inl);
	model_add_blob(m, HASH, sizeof(table), path, &file);
	model_add_alloc(p, 1, "a", A1, 256);
	model_add_global(p, 2, LIB, "tab", A0 + 65536, sizeof(table));

	c = copy(MODEL_H2D, A0 + 65536 + 8, 0x9000, 8);
	c.blob = inl;
	CHECK_INT(model_add_copy(p, 3, "cuMemcpyHtoD_v2", &c), 0, "inline copy");
	CHECK_INT(p->nr_ops, 3, "the copy and one pointer store");
	CHECK_INT(p->ops[2].code, GM_OP_PTR_STORE, "a PTR_STORE");
	CHECK(p->ops[2].a == GM_G(0) && p->ops[2].x == 8 &&
	      p->ops[2].b == GM_A(0) && p->ops[2].y == 16,
	      "... of the allocation's address + 16 at the copied word");

	c = copy(MODEL_H2D, A0 + 65536, 0x9000, sizeof(table));
	c.blob = file;
	CHECK_INT(model_add_copy(p, 4, "cuMemcpyHtoD_v2", &c), 0, "table copy");
	CHECK_INT(p->nr_ops, 5, "one store for the one pointer of the table");
	CHECK(p->ops[4].x == 1600 && p->ops[4].b == GM_A(0) &&
	      p->ops[4].y == 32, "... read from the blob file");

	c = copy(MODEL_H2D, A1, 0x9000, 8);
	c.blob = inl;
	CHECK_INT(model_add_copy(p, 5, "cuMemcpyHtoD_v2", &c), 0,
		  "a pointer copied into an allocation (a pointer table)");
	CHECK(p->nr_ops == 7 && p->ops[6].code == GM_OP_PTR_STORE &&
	      p->ops[6].a == GM_A(0) && p->ops[6].x == 0 &&
	      p->ops[6].b == GM_A(0) && p->ops[6].y == 16,
	      "... is stored too");
	CHECK_INT((int)p->nr_pointer_stores, 3, "three stores counted");
	{
		uint64_t g = A0 + 65536 + 24;	/* inside the global */
		c = copy(MODEL_H2D, A1 + 8, 0x9000, 8);
		model_add_blob_bytes(m, &g, sizeof(g), &c.blob);
		CHECK_INT(model_add_copy(p, 50, "cuMemcpyHtoD_v2", &c), 0,
			  "a global's address copied into an allocation");
		CHECK(p->ops[p->nr_ops - 1].code == GM_OP_PTR_STORE &&
		      p->ops[p->nr_ops - 1].b == GM_G(0) &&
		      p->ops[p->nr_ops - 1].y == 24,
		      "... is stored too (globals are never placed)");
	}
	{
		uint64_t big[8193] = { 0 };
		uint32_t bb;
		big[0] = A1;
		model_add_alloc(p, 51, "a", A1 + 0x100000, sizeof(big));
		model_add_blob_bytes(m, big, sizeof(big), &bb);
		c = copy(MODEL_H2D, A1 + 0x100000, 0x9000, sizeof(big));
		c.blob = bb;
		CHECK_INT(model_add_copy(p, 52, "cuMemcpyHtoD_v2", &c), 0,
			  "a copy of more than 64 KiB into an allocation");
		CHECK(p->ops[p->nr_ops - 1].code == GM_OP_H2D,
		      "... is bulk data: not looked at");
	}

	unlink(path);
	c = copy(MODEL_H2D, A0 + 65536, 0x9000, sizeof(table));
	c.blob = file;
	CHECK(model_add_copy(p, 6, "cuMemcpyHtoD_v2", &c) < 0 &&
	      strstr(gm_error_message(), path),
	      "a blob file that cannot be read is an error naming it");
	gm_error_clear();
	model_free(m);
}

/*
 * Virtual memory management: a reservation becomes an allocation at its
 * first mapping, as long as its furthest mapping reaches, addressable as
 * a whole (a copy straddling two mappings is one copy); unmapping keeps
 * it, freeing the reservation frees it. Aliases, moved and host memory
 * are reported unsupported; a mapping outside a reservation is an error.
 */
static void test_vmm(void)
{
	const uint64_t g = 2ull << 20, va = 0x200000000000ull;
	struct model *m;
	struct model_prog *p = fresh(&m);
	struct model_copy c;
	uint32_t blob;
	uint8_t data[64] = { 0 };

	model_add_blob_bytes(m, data, sizeof(data), &blob);
	CHECK_INT(model_vmm_reserve(p, 1, "r", va, 8 * g), 0, "reserve");
	expect_error(model_vmm_reserve(p, 2, "r", va + g, g),
		     "event 2 (r): the reservation of 0x200000200000 overlaps "
		     "the one of event 1", "an overlapping reservation");
	CHECK_INT(model_vmm_create(p, 3, "c", 0xd1, g, 1), 0, "create");
	CHECK_INT(model_vmm_create(p, 4, "c", 0xd2, 2 * g, 1), 0, "create");
	CHECK_INT((int)p->nr_ops, 0, "no operation yet");
	CHECK_INT(model_vmm_map(p, 5, "m", va + 2 * g, g, 0, 0xd1), 0, "map");
	CHECK(p->nr_ops == 1 && p->ops[0].code == GM_OP_ALLOC &&
	      p->ops[0].x == va && p->ops[0].z == 3 * g,
	      "the first mapping allocates from the reservation's start");
	CHECK_INT(model_vmm_map(p, 6, "m", va + 3 * g, 2 * g, 0, 0xd2), 0,
		  "map next to it");
	CHECK(p->nr_ops == 1 && p->ops[0].z == 5 * g,
	      "... the allocation grows to its end");
	c = copy(MODEL_H2D, va + 3 * g - 32, 0x9000, 64);
	c.blob = blob;
	CHECK_INT(model_add_copy(p, 7, "cuMemcpyHtoD_v2", &c), 0,
		  "a copy across both mappings");
	CHECK(p->ops[1].a == GM_A(0) && p->ops[1].x == 3 * g - 32,
	      "... is one copy into the allocation");
	expect_error(model_vmm_map(p, 8, "m", va + 7 * g, 2 * g, 0, 0xd2),
		     "event 8 (m): 4194304 bytes at 0x200000e00000 are not "
		     "inside a live reservation", "a mapping past the reservation");
	model_vmm_map(p, 9, "m", va, g, 0, 0xd1);
	CHECK(p->nr_unsupported == 1 &&
	      !strcmp(p->unsupported[0].text, "cuMemMap.alias"),
	      "memory mapped twice: unsupported");
	CHECK_INT(model_vmm_unmap(p, 10, "u", va + 2 * g, g), 0, "unmap");
	model_vmm_map(p, 11, "m", va + 6 * g, g, 0, 0xd1);
	CHECK_INT((int)p->nr_unsupported, 2, "moved memory: unsupported");
	CHECK_INT(model_vmm_map(p, 12, "m", va + 2 * g, g, 0, 0xd1), 0,
		  "mapped again where it was: its content is there");
	CHECK_INT(model_vmm_create(p, 13, "c", 0xd3, g, 0), 0,
		  "host memory: recorded");
	CHECK(p->nr_unsupported == 3 &&
	      !strcmp(p->unsupported[2].text, "cuMemCreate.host"),
	      "... unsupported");
	CHECK_INT(model_vmm_map(p, 14, "m", va, g, 0, 0xd3), 0,
		  "... its mapping is skipped");
	CHECK_INT(model_vmm_release(p, 15, "l", 0xd1), 0, "release");
	expect_error(model_vmm_map(p, 16, "m", va + 7 * g, g, 0, 0xd1),
		     "event 16 (m): 0xd1 is not a live physical allocation",
		     "a released allocation is gone");
	CHECK_INT(model_vmm_free(p, 17, "f", va), 0, "free");
	CHECK(p->nr_ops == 3 && p->ops[2].code == GM_OP_FREE &&
	      p->ops[2].a == 0, "... frees the allocation");
	expect_error(model_vmm_free(p, 18, "f", va),
		     "event 18 (f): 0x200000000000 is not a live reservation",
		     "a reservation freed twice");
	CHECK_INT(model_vmm_reserve(p, 19, "r", va, g), 0,
		  "the address reserved again");
	CHECK_INT(model_vmm_free(p, 20, "f", va), 0,
		  "... freed without a mapping: no operation");
	CHECK_INT((int)p->nr_ops, 3, "...");
	model_free(m);
}

int main(void)
{
	test_errors();
	test_ids_and_ops();
	test_hostmem();
	test_host_warm();
	test_host_time();
	test_pointer_stores();
	test_vmm();
	return test_done();
}
