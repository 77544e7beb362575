/* SPDX-License-Identifier: MIT */
/*
 * The CUPTI subscriber of libgpumix-capture.so, on a CPU: `gpumix capture`
 * runs capture_cupti_emitter, which hands the subscriber's callback the
 * callback data CUPTI would give it for a small program. The bundle must
 * hold what a GPU capture would: arguments from the parameter structs,
 * outputs at exit, runtime context, host-to-device payloads (contiguous
 * and pitched), device-to-host result hashes (synchronous; asynchronous
 * ones at the event, stream or exit that completes them, a non-blocking
 * stream untouched by a legacy synchronization), launch arguments at
 * their layout (kernelParams and extra), the fatbin behind the runtime's
 * wrapper, PTX, texture descriptors, a failed call, an unsupported call,
 * and the query counts.
 */
#include <cuda.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "capture_synth.h"
#include "fs.h"
#include "kvfile.h"
#include "reconstruct/trace/trace_reader.h"
#include "strbuf.h"
#include "test.h"

#define MAX_EV 256

struct copy {
	struct gm_event ev;
	uint8_t data[512];
	char str[64];
};

static struct copy evs[MAX_EV];
static unsigned nr;

static const struct gm_event *find(enum gm_event_kind kind, int api,
				   unsigned nth)
{
	for (unsigned i = 0; i < nr; i++) {
		if (evs[i].ev.kind == kind && (api < 0 || evs[i].ev.api == api) &&
		    nth-- == 0) {
			return &evs[i].ev;
		}
	}
	return NULL;
}

/* The d2h_hash of the result of @bytes bytes (sizes are unique). */
static const struct gm_event *find_d2h(uint64_t bytes)
{
	for (unsigned i = 0; i < nr; i++) {
		if (evs[i].ev.kind == GM_EV_D2H_HASH &&
		    evs[i].ev.blob_size == bytes) {
			return &evs[i].ev;
		}
	}
	return NULL;
}

static int hash_is(const struct gm_event *ev, const void *p, size_t n)
{
	struct gm_hash h = gm_hash_bytes(p, n);
	return ev && ev->blob.hi == h.hi && ev->blob.lo == h.lo && ev->blob_size == n;
}

static const char *mget(const struct kvfile *m, const char *k)
{
	const char *v = kvfile_get(m, k);
	return v ? v : "(missing)";
}

int main(void)
{
	const char *b = getenv("GPUMIX_BUILD") ? getenv("GPUMIX_BUILD") : "build";
	char dir[256], out[512], cmd[2048];
	struct trace_reader *r;
	const struct gm_event *ev, *e2;
	struct strbuf sb = STRBUF_INIT;
	/* buf holds the largest input the emitter sends: a 64 x 100 image. */
	uint8_t buf[64 * 100], packed[4096], buf20[20];
	struct gm_span span;
	int rc;

	snprintf(dir, sizeof(dir), "%s/gpumix-cupti.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		CHECK(0, "scratch directory");
		return test_done();
	}
	snprintf(out, sizeof(out), "%s/b", dir);
	snprintf(cmd, sizeof(cmd), "'%s/gpumix' -q capture -o '%s' -- "
		 "'%s/tests/capture_cupti_emitter' >/dev/null 2>&1", b, out, b);
	rc = system(cmd);
	CHECK_INT(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 1,
		  "capture exits 1 (the program made an unsupported call)");
	if (trace_reader_open(&r, out, GM_READER_ALLOW_LOSSY)) {
		CHECK(0, "the bundle opens");
		printf("#   %s\n", gm_error_message());
		return test_done();
	}
	while ((rc = trace_reader_next(r, &ev)) > 0 && nr < MAX_EV) {
		evs[nr].ev = *ev;
		/* (An event without inline data has data NULL.) */
		if (ev->data_len && ev->data_len <= sizeof(evs[nr].data)) {
			memcpy(evs[nr].data, ev->data, ev->data_len);
			evs[nr].ev.data = evs[nr].data;
		}
		snprintf(evs[nr].str, sizeof(evs[nr].str), "%s", ev->str);
		evs[nr].ev.str = evs[nr].str;
		nr++;
	}
	CHECK_INT(rc, 0, "every event decodes");

	/* cudaMalloc -> cuMemAlloc_v2, outputs at exit, runtime context. */
	ev = find(GM_EV_EXIT, GM_API_cuMemAlloc_v2, 0);
	e2 = find(GM_EV_RT_ENTER, -1, 0);
	CHECK(ev && GM_EVENT_ARGS(ev, cuMemAlloc_v2)->dptr == 0x7f0000000000ull &&
	      GM_EVENT_ARGS(ev, cuMemAlloc_v2)->bytesize == 4096,
	      "cuMemAlloc_v2: size at entry, pointer at exit");
	CHECK(ev && e2 && !strcmp(e2->str, "cudaMalloc_v3020") &&
	      ev->rt_corr == e2->corr, "... inside cudaMalloc (rt_corr)");
	ev = find(GM_EV_ENTER, GM_API_cuMemAlloc_v2, 0);
	CHECK(ev && GM_EVENT_ARGS(ev, cuMemAlloc_v2)->dptr == 0,
	      "... outputs are 0 at entry");

	/* Host-to-device bytes at entry. */
	ev = find(GM_EV_ENTER, GM_API_cuMemcpyHtoD_v2, 0);
	synth_fill(buf, 3000, 11);
	CHECK(ev && (ev->flags & GM_RF_BLOB) && !trace_reader_payload(r, ev, &sb) &&
	      sb.len == 3000 && !memcmp(sb.buf, buf, 3000),
	      "cuMemcpyHtoD_v2: the 3000 source bytes are in the blob store");

	/* The runtime's fatbin, through its wrapper. */
	ev = find(GM_EV_ENTER, GM_API_cuLibraryLoadData, 0);
	{
		struct synth s;
		const void *fat;
		size_t n;
		void *w, *x;
		memset(&s, 0, sizeof(s));
		s.image = SYNTH_FATBIN_WRAPPED;
		s.seed = 21;
		w = synth_image(&s, &fat, &n, &x);
		strbuf_reset(&sb);
		CHECK(ev && ((ev->flags & GM_RF_IMAGE_MASK) >> GM_RF_IMAGE_SHIFT) ==
				  GM_IMAGE_FATBIN &&
		      !trace_reader_module(r, ev, &sb) && sb.len == n &&
		      !memcmp(sb.buf, fat, n),
		      "cuLibraryLoadData: the whole fatbin behind the wrapper is stored");
		free(w);
		free(x);
	}
	ev = find(GM_EV_EXIT, GM_API_cuLibraryGetKernel, 0);
	CHECK(ev && !strcmp(ev->str, "_Z3addfPfi") &&
	      GM_EVENT_ARGS(ev, cuLibraryGetKernel)->pKernel == 0xb000,
	      "cuLibraryGetKernel: name and kernel handle");

	/* Launch arguments at their layout. */
	ev = find(GM_EV_ENTER, GM_API_cuLaunchKernel, 0);
	{
		float a = 1.5f;
		uint64_t p = 0x7f0000001000ull;
		int n = 1000;
		memset(buf, 0, 20);
		memcpy(buf, &a, 4);
		memcpy(buf + 8, &p, 8);
		memcpy(buf + 16, &n, 4);
	}
	CHECK(ev && ev->data_len == 20 && !memcmp(ev->data, buf, 20),
	      "cuLaunchKernel: argument bytes at the layout offsets");
	memcpy(buf20, buf, 20);
	CHECK(ev && GM_EVENT_ARGS(ev, cuLaunchKernel)->gridDimY == 2 &&
	      GM_EVENT_ARGS(ev, cuLaunchKernel)->blockDimX == 128,
	      "... grid and block");
	e2 = find(GM_EV_EXIT, GM_API_cuLaunchKernel, 0);
	CHECK(e2 && e2->nr_args == 11 && e2->args[1] == 4,
	      "... its exit gets the entry's words back from the reader");
	ev = find(GM_EV_ENTER, GM_API_cuLaunchKernel, 1);
	synth_fill(buf, 16, 17);
	CHECK(ev && ev->data_len == 16 && !memcmp(ev->data, buf, 16),
	      "cuLaunchKernel through 'extra': the argument buffer");

	/* An asynchronous result, hashed at the event synchronization. */
	ev = find(GM_EV_D2H_HASH, -1, 0);
	e2 = find(GM_EV_EXIT, GM_API_cuEventSynchronize, 0);
	synth_fill(buf, 512, 12);
	CHECK(hash_is(ev, buf, 512) && !(ev->flags & GM_RF_UNSYNCED),
	      "cuMemcpyDtoHAsync_v2: its result is hashed");
	CHECK(ev && e2 && ev->index > e2->index &&
	      ev->corr == find(GM_EV_ENTER, GM_API_cuMemcpyDtoHAsync_v2, 0)->corr,
	      "... when the event it precedes is synchronized, with its corr");

	/* Pitched 2-D copies: packed rows in, packed rows hashed out. */
	ev = find(GM_EV_ENTER, GM_API_cuMemcpy2D_v2, 0);
	synth_fill(buf, 64 * 100, 15);
	span.base = buf + 110;
	span.width = 80;
	span.height = 40;
	span.depth = 1;
	span.pitch = 100;
	span.slice_pitch = 4000;
	gm_span_pack(&span, packed);
	strbuf_reset(&sb);
	CHECK(ev && !trace_reader_payload(r, ev, &sb) && sb.len == 3200 &&
	      !memcmp(sb.buf, packed, 3200),
	      "cuMemcpy2D_v2 from host: the rows, packed");
	CHECK(ev && GM_EVENT_ARGS(ev, cuMemcpy2D_v2)->WidthInBytes == 80 &&
	      GM_EVENT_ARGS(ev, cuMemcpy2D_v2)->srcPitch == 100,
	      "... the descriptor's fields are argument words");
	ev = find(GM_EV_EXIT, GM_API_cuMemcpy2D_v2, 1);
	synth_fill(buf, 64 * 100, 16);
	span.base = buf;
	gm_span_pack(&span, packed);
	CHECK(hash_is(ev, packed, 3200), "cuMemcpy2D_v2 to host: the rows hashed");

	/* A non-blocking stream: not completed by a legacy synchronization. */
	ev = find(GM_EV_D2H_HASH, -1, 1);
	e2 = find(GM_EV_EXIT, GM_API_cuStreamSynchronize, 0);
	synth_fill(buf, 256, 13);
	CHECK(hash_is(ev, buf, 256) && e2 && ev->index > e2->index,
	      "a non-blocking stream's result waits for cuStreamSynchronize");
	ev = find(GM_EV_EXIT, GM_API_cuMemcpyDtoH_v2, 0);
	synth_fill(buf, 128, 14);
	CHECK(hash_is(ev, buf, 128) && (ev->flags & GM_RF_HASH),
	      "cuMemcpyDtoH_v2: hashed at exit");

	/* Whether the result's pages were resident at the call. */
	ev = find(GM_EV_ENTER, GM_API_cuMemcpyDtoH_v2, 0);
	CHECK(ev && (ev->flags & GM_RF_HOST_WARM),
	      "a result into a buffer the program had filled: resident");
	ev = find(GM_EV_ENTER, GM_API_cuMemcpyDtoH_v2, 1);
	CHECK(ev && GM_EVENT_ARGS(ev, cuMemcpyDtoH_v2)->ByteCount == 65536 &&
	      !(ev->flags & GM_RF_HOST_WARM),
	      "a result into pages never touched: not resident");
	ev = find(GM_EV_ENTER, GM_API_cuMemcpyDtoH_v2, 2);
	CHECK(ev && (ev->flags & GM_RF_HOST_WARM),
	      "into written pages, not page-aligned: resident");
	ev = find(GM_EV_ENTER, GM_API_cuMemcpyDtoH_v2, 3);
	CHECK(ev && !(ev->flags & GM_RF_HOST_WARM),
	      "a quarter of its pages written: not resident");
	ev = find(GM_EV_EXIT, GM_API_cuMemcpyDtoH_v2, 1);
	CHECK(ev && !(ev->flags & GM_RF_HOST_WARM),
	      "the flag is the entry's (the copy itself touches the pages)");

	/* Texture object. */
	ev = find(GM_EV_EXIT, GM_API_cuTexObjectCreate, 0);
	CHECK(ev && GM_EVENT_ARGS(ev, cuTexObjectCreate)->resArray == 0x8000 &&
	      GM_EVENT_ARGS(ev, cuTexObjectCreate)->pTexObject == 77,
	      "cuTexObjectCreate: the array behind it and the object");
	ev = find(GM_EV_ENTER, GM_API_cuTexObjectCreate, 0);
	CHECK(ev && ev->data_len == sizeof(CUDA_RESOURCE_DESC) +
					    sizeof(CUDA_TEXTURE_DESC),
	      "... and its descriptors' bytes");

	/* PTX loaded by the program itself. */
	ev = find(GM_EV_ENTER, GM_API_cuModuleLoadData, 0);
	CHECK(ev && ((ev->flags & GM_RF_IMAGE_MASK) >> GM_RF_IMAGE_SHIFT) ==
			    GM_IMAGE_PTX && ev->blob_size == 45,
	      "cuModuleLoadData: the PTX text with its NUL");
	ev = find(GM_EV_EXIT, GM_API_cuModuleGetFunction, 0);
	CHECK(ev && !strcmp(ev->str, "k2") &&
	      GM_EVENT_ARGS(ev, cuModuleGetFunction)->hfunc == 0xd000,
	      "cuModuleGetFunction: name and function");

	/* cuLaunchKernelEx: the config as words, attributes then arguments. */
	ev = find(GM_EV_ENTER, GM_API_cuLaunchKernelEx, 0);
	CHECK(ev && GM_EVENT_ARGS(ev, cuLaunchKernelEx)->gridDimX == 7 &&
	      GM_EVENT_ARGS(ev, cuLaunchKernelEx)->sharedMemBytes == 65536 &&
	      GM_EVENT_ARGS(ev, cuLaunchKernelEx)->hStream == 0x5000 &&
	      GM_EVENT_ARGS(ev, cuLaunchKernelEx)->numAttrs == 1,
	      "cuLaunchKernelEx: its launch configuration as words");
	CHECK(ev && ev->data_len == sizeof(CUlaunchAttribute) + 20 &&
	      ((const CUlaunchAttribute *)ev->data)->id ==
		      CU_LAUNCH_ATTRIBUTE_COOPERATIVE &&
	      !memcmp(ev->data + sizeof(CUlaunchAttribute), buf20, 20),
	      "... its attributes, then its arguments");
	ev = find(GM_EV_ENTER, GM_API_cuLaunchCooperativeKernel, 0);
	CHECK(ev && ev->data_len == 20 && !memcmp(ev->data, buf20, 20),
	      "cuLaunchCooperativeKernel: its arguments");
	ev = find(GM_EV_D2H_HASH, -1, 2);
	e2 = find(GM_EV_EXIT, GM_API_cuCtxSynchronize, 0);
	CHECK(ev && e2 && ev->blob_size == 32 && ev->index > e2->index &&
	      !(ev->flags & GM_RF_UNSYNCED),
	      "cuCtxSynchronize completes every pending result");

	/* Results synchronized through events, hashed at the first
	 * synchronization covering them (the emitter reuses each buffer
	 * right after it). */
	{
		static const char *what[4] = {
			"an event synchronization",
			"a synchronization of a stream that waited for the "
			"copy's event",
			"a successful query of an event recorded on the legacy "
			"stream after a copy on a blocking stream",
			"an event synchronization after a query that said not "
			"ready (not the query)",
		};
		static const size_t sz[4] = { 40, 48, 56, 72 };
		static const unsigned seed[4] = { 40, 41, 42, 53 };
		for (int i = 0; i < 4; i++) {
			ev = find_d2h(sz[i]);
			char msg[256];
			synth_fill(buf, sz[i], seed[i]);
			snprintf(msg, sizeof(msg), "a result is hashed at %s",
				 what[i]);
			CHECK(ev && hash_is(ev, buf, sz[i]) &&
			      !(ev->flags & GM_RF_UNSYNCED), msg);
		}
	}

	/* Host functions: the program's own ran, through the trampoline,
	 * which timed them; the one that never ran left no host_func. */
	ev = find(GM_EV_ENTER, GM_API_cuMemcpyHtoD_v2, 1);
	{
		uint64_t s[6] = { 0 };
		if (ev && ev->data_len == sizeof(s)) {
			memcpy(s, ev->data, sizeof(s));
		}
		CHECK(s[0] == 1 && s[1] == 1,
		      "cuLaunchHostFunc: the program's function ran once, with "
		      "its own argument");
		CHECK(s[2] == 1 && s[3] == 0x5000 &&
		      s[4] == CUDA_ERROR_NOT_READY && s[5] == 1,
		      "cuStreamAddCallback: the program's callback ran with its "
		      "stream, status and argument");
	}
	ev = find(GM_EV_ENTER, GM_API_cuLaunchHostFunc, 0);
	CHECK(ev && GM_EVENT_ARGS(ev, cuLaunchHostFunc)->hStream == 0x5000 &&
	      GM_EVENT_ARGS(ev, cuLaunchHostFunc)->fn != 0,
	      "cuLaunchHostFunc: recorded with the program's stream");
	e2 = find(GM_EV_HOST_FUNC, -1, 0);
	CHECK(ev && e2 && e2->corr == ev->corr &&
	      e2->api == GM_API_cuLaunchHostFunc,
	      "... a host_func event names its call");
	CHECK(e2 && GM_EVENT_AS(e2, host_func)->end >
			    GM_EVENT_AS(e2, host_func)->start,
	      "... with the time the function took");
	ev = find(GM_EV_ENTER, GM_API_cuStreamAddCallback, 0);
	e2 = find(GM_EV_HOST_FUNC, -1, 1);
	CHECK(ev && e2 && e2->corr == ev->corr &&
	      e2->api == GM_API_cuStreamAddCallback,
	      "cuStreamAddCallback: timed too");
	e2 = find(GM_EV_HOST_FUNC, -1, 0);
	ev = find_d2h(120);
	synth_fill(buf, 120, 60);
	CHECK(hash_is(ev, buf, 120) && e2 && ev->index < e2->index &&
	      !(ev->flags & GM_RF_UNSYNCED),
	      "a result before a host function is hashed when it starts (it "
	      "may read and reuse the buffer)");
	ev = find_d2h(136);
	synth_fill(buf, 136, 61);
	CHECK(hash_is(ev, buf, 136) && e2 && ev->index > e2->index,
	      "... one enqueued after the host function is not");
	CHECK(find(GM_EV_HOST_FUNC, -1, 2) == NULL &&
	      find(GM_EV_EXIT, GM_API_cuLaunchHostFunc, 1) != NULL,
	      "a host function that never ran: its call is recorded, no time");

	/* A memory pool: its properties, attribute values, allocations. */
	ev = find(GM_EV_EXIT, GM_API_cuMemPoolCreate, 0);
	CHECK(ev && GM_EVENT_ARGS(ev, cuMemPoolCreate)->pool == 0xe000 &&
	      GM_EVENT_ARGS(ev, cuMemPoolCreate)->allocType ==
		      CU_MEM_ALLOCATION_TYPE_PINNED &&
	      GM_EVENT_ARGS(ev, cuMemPoolCreate)->locationType ==
		      CU_MEM_LOCATION_TYPE_DEVICE,
	      "cuMemPoolCreate: the pool and its properties");
	ev = find(GM_EV_ENTER, GM_API_cuMemPoolSetAttribute, 0);
	CHECK(ev && GM_EVENT_ARGS(ev, cuMemPoolSetAttribute)->attr ==
			    CU_MEMPOOL_ATTR_RELEASE_THRESHOLD &&
	      GM_EVENT_ARGS(ev, cuMemPoolSetAttribute)->val == 64ull << 20,
	      "cuMemPoolSetAttribute: the release threshold's value (64-bit)");
	ev = find(GM_EV_ENTER, GM_API_cuMemPoolSetAttribute, 1);
	CHECK(ev && GM_EVENT_ARGS(ev, cuMemPoolSetAttribute)->val == 0 &&
	      GM_EVENT_ARGS(ev, cuMemPoolSetAttribute)->attr ==
		      CU_MEMPOOL_ATTR_REUSE_ALLOW_OPPORTUNISTIC,
	      "... a reuse flag's value (an int)");
	ev = find(GM_EV_EXIT, GM_API_cuMemAllocFromPoolAsync, 0);
	CHECK(ev && GM_EVENT_ARGS(ev, cuMemAllocFromPoolAsync)->dptr ==
			    0x7f0000100000ull &&
	      GM_EVENT_ARGS(ev, cuMemAllocFromPoolAsync)->pool == 0xe000 &&
	      GM_EVENT_ARGS(ev, cuMemAllocFromPoolAsync)->bytesize == 8192,
	      "cuMemAllocFromPoolAsync: the address, size and pool");
	CHECK(find(GM_EV_EXIT, GM_API_cuMemPoolTrimTo, 0) &&
	      find(GM_EV_EXIT, GM_API_cuMemPoolDestroy, 0),
	      "cuMemPoolTrimTo and cuMemPoolDestroy are recorded");

	/* Virtual memory management: what each call is, and the properties
	 * behind its pointers. */
	ev = find(GM_EV_EXIT, GM_API_cuMemAddressReserve, 0);
	CHECK(ev && GM_EVENT_ARGS(ev, cuMemAddressReserve)->ptr ==
			    0x7f0040000000ull &&
	      GM_EVENT_ARGS(ev, cuMemAddressReserve)->size == 8u << 20,
	      "cuMemAddressReserve: the reserved address and size");
	ev = find(GM_EV_EXIT, GM_API_cuMemCreate, 0);
	CHECK(ev && GM_EVENT_ARGS(ev, cuMemCreate)->handle == 0xd001 &&
	      GM_EVENT_ARGS(ev, cuMemCreate)->size == 2u << 20 &&
	      GM_EVENT_ARGS(ev, cuMemCreate)->propType ==
		      CU_MEM_ALLOCATION_TYPE_PINNED &&
	      GM_EVENT_ARGS(ev, cuMemCreate)->locType ==
		      CU_MEM_LOCATION_TYPE_DEVICE &&
	      GM_EVENT_ARGS(ev, cuMemCreate)->handleTypes ==
		      CU_MEM_HANDLE_TYPE_POSIX_FILE_DESCRIPTOR,
	      "cuMemCreate: the handle and the allocation's properties");
	ev = find(GM_EV_ENTER, GM_API_cuMemMap, 0);
	CHECK(ev && GM_EVENT_ARGS(ev, cuMemMap)->ptr == 0x7f0040000000ull &&
	      GM_EVENT_ARGS(ev, cuMemMap)->handle == 0xd001,
	      "cuMemMap: where and what");
	ev = find(GM_EV_ENTER, GM_API_cuMemSetAccess, 0);
	CHECK(ev && GM_EVENT_ARGS(ev, cuMemSetAccess)->count == 1 &&
	      GM_EVENT_ARGS(ev, cuMemSetAccess)->locType ==
		      CU_MEM_LOCATION_TYPE_DEVICE &&
	      GM_EVENT_ARGS(ev, cuMemSetAccess)->access ==
		      CU_MEM_ACCESS_FLAGS_PROT_READWRITE,
	      "cuMemSetAccess: the first access descriptor");
	CHECK(find(GM_EV_EXIT, GM_API_cuMemUnmap, 0) &&
	      find(GM_EV_EXIT, GM_API_cuMemRelease, 0) &&
	      find(GM_EV_EXIT, GM_API_cuMemAddressFree, 0),
	      "cuMemUnmap, cuMemRelease and cuMemAddressFree are recorded");
	{
		const struct kvfile *m = trace_reader_manifest(r);
		CHECK_STR(mget(m, "ignored.cuMemGetAllocationGranularity"), "1",
			  "the granularity query is counted");
		CHECK_STR(mget(m, "ignored.cuMulticastGetGranularity"), "1",
			  "... and the multicast one (no multicast object)");
	}

	/* Generic node creation. */
	ev = find(GM_EV_EXIT, GM_API_cuGraphAddEmptyNode, 0);
	CHECK(ev && ev->args[0] == 0xa72 && ev->args[1] == 0xa70,
	      "cuGraphAddNode_v2 of an empty node: recorded as "
	      "cuGraphAddEmptyNode");
	{
		unsigned conditional = 0, other = 0;
		for (unsigned i = 0; i < nr; i++) {
			if (evs[i].ev.kind != GM_EV_UNSUPPORTED) {
				continue;
			}
			if (!strcmp(evs[i].str, "cuGraphAddNode_v2.conditional")) {
				conditional++;
			} else if (!strncmp(evs[i].str, "cuGraphAddNode", 14)) {
				other++;
			}
		}
		CHECK(conditional == 1 && other == 0,
		      "... a conditional node is unsupported, by name, a "
		      "programmatic edge is not");
		const struct kvfile *m = trace_reader_manifest(r);
		CHECK_STR(mget(m, "calls.cuGraphAddEmptyNode"), "3",
			  "... counted as the typed call");
		CHECK_STR(mget(m, "unsupported.cuGraphAddNode_v2"), "1",
			  "... the unsupported one under its own name");
	}
	ev = find(GM_EV_ENTER, GM_API_cuGraphAddEmptyNode, 1);
	e2 = find(GM_EV_EXIT, GM_API_cuGraphAddEmptyNode, 1);
	CHECK(ev && e2 && e2->args[0] == 0xa73 && ev->args[3] == 1 &&
	      ev->args[gm_api_arg_index(GM_API_cuGraphAddEmptyNode, "dep0")] ==
		      0xa74,
	      "a node after a programmatic edge and a plain one: recorded "
	      "after the plain one");
	{
		const struct gm_event *d = find(GM_EV_ENTER,
						GM_API_cuGraphAddDependencies_v2, 0);
		uint64_t want[3] = { 0xa71, 0xa73, 0x10001 };
		CHECK(d && d->data_len == 24 && !memcmp(d->data, want, 24),
		      "... its programmatic edge as the cuGraphAddDependencies_v2 "
		      "that adds it: (from, to, edge data)");
		CHECK(find(GM_EV_EXIT, GM_API_cuGraphAddDependencies_v2, 0) != NULL,
		      "... which exits");
		CHECK(!find(GM_EV_ENTER, GM_API_cuGraphAddDependencies_v2, 1),
		      "... the only one: cuGraphAddNode has no edge data");
	}
	ev = find(GM_EV_ENTER, GM_API_cuGraphAddEmptyNode, 2);
	CHECK(ev && ev->args[3] == 1 &&
	      ev->args[gm_api_arg_index(GM_API_cuGraphAddEmptyNode, "dep0")] ==
		      0xa71,
	      "cuGraphAddNode: recorded as the typed call, its dependency "
	      "plain");

	/* A failing call and its runtime call. */
	ev = find(GM_EV_EXIT, GM_API_cuMemAlloc_v2, 1);
	e2 = find(GM_EV_RT_EXIT, -1, 0);
	CHECK(ev && ev->status == 2, "a failed driver call keeps its status");
	CHECK(e2 && e2->status == 2 && !strcmp(e2->str, "cudaMalloc_v3020"),
	      "... and its failed runtime call is recorded");
	CHECK(find(GM_EV_RT_EXIT, -1, 1) == NULL,
	      "successful runtime calls need no rt_exit");

	/* A graph's copy: hashed per launch, at the sync after it. */
	{
		uint8_t want[88];
		unsigned n = 0;
		for (unsigned i = 0; i < nr; i++) {
			const struct gm_event *e = &evs[i].ev;
			if (e->kind != GM_EV_D2H_HASH || e->blob_size != 88) {
				continue;
			}
			synth_fill(want, sizeof(want), 40 + n);
			CHECK(e->api == GM_API_cuGraphLaunch && hash_is(e, want, 88) &&
			      !(e->flags & GM_RF_UNSYNCED) && i > 0 &&
			      evs[i - 1].ev.kind == GM_EV_EXIT &&
			      evs[i - 1].ev.api == GM_API_cuStreamSynchronize,
			      n ? "graph launch 2: its copy hashed after the sync" :
				  "graph launch 1: its copy hashed after the sync");
			n++;
		}
		CHECK_INT(n, 2, "two launches, two results, none at capture");
	}
	{
		uint8_t want[104];
		const struct gm_event *e = NULL;
		unsigned at = 0;
		for (unsigned i = 0; i < nr; i++) {
			if (evs[i].ev.kind == GM_EV_D2H_HASH &&
			    evs[i].ev.blob_size == sizeof(want)) {
				e = &evs[i].ev;
				at = i;
			}
		}
		(void)at;
		e = NULL;
		for (unsigned i = 0; i < nr && !e; i++) {
			if (evs[i].ev.kind == GM_EV_D2H_HASH &&
			    evs[i].ev.blob_size == sizeof(want)) {
				e = &evs[i].ev;
				at = i;
			}
		}
		synth_fill(want, sizeof(want), 50);
		CHECK(e && e->api == GM_API_cuGraphLaunch &&
			      hash_is(e, want, sizeof(want)) &&
			      evs[at - 1].ev.kind == GM_EV_EXIT &&
			      evs[at - 1].ev.api == GM_API_cuEventSynchronize,
		      "an explicit graph's copy: hashed after the event its "
		      "record node recorded is synchronized");
	}
	{
		unsigned changed = 0;
		for (unsigned i = 0; i < nr; i++) {
			changed += evs[i].ev.kind == GM_EV_UNSUPPORTED &&
				   !strcmp(evs[i].ev.str,
					   "cuGraphLaunch.changed_host_source");
		}
		CHECK_INT(changed, 1, "a graph launched after its copy's host "
			  "source changed is reported, once");
	}
	{
		unsigned knode = 0, mset = 0;
		for (unsigned i = 0; i < nr; i++) {
			const struct gm_event *e = &evs[i].ev;
			if (e->kind != GM_EV_UNSUPPORTED) {
				continue;
			}
			knode += !strcmp(e->str,
					 "cuGraphExecKernelNodeSetParams_v2");
			mset += !strcmp(e->str, "cuGraphAddMemsetNode");
		}
		CHECK(knode == 1, "a kernel node no recorded call made: "
		      "reported at capture");
		CHECK(mset == 1, "a memset node of 8-byte elements: reported "
		      "at capture");
	}

	/* Unsupported, unsynchronized, queries. */
	ev = NULL;
	for (unsigned i = 0; i < nr && !ev; i++) {
		if (evs[i].ev.kind == GM_EV_UNSUPPORTED &&
		    evs[i].ev.raw_api == 133) {
			ev = &evs[i].ev;
		}
	}
	CHECK(ev && !strcmp(ev->str, "cuGraphicsMapResources") &&
		      ev->raw_api == 133,
	      "an unsupported call is an event with its name");
	ev = find_d2h(64);
	CHECK(ev && (ev->flags & GM_RF_UNSYNCED) && ev->blob_size == 64,
	      "a result never synchronized is hashed at exit, marked UNSYNCED");
	{
		const struct kvfile *m = trace_reader_manifest(r);
		CHECK_STR(mget(m, "losses"), "5",
			  "manifest: five losses (an unsupported call, a changed "
			  "graph source, two graph calls not rebuilt, a "
			  "conditional node)");
		CHECK_STR(mget(m, "unsupported.cuGraphicsMapResources"), "1",
			  "manifest: unsupported calls by name");
		CHECK_STR(mget(m, "ignored.cuDeviceGetAttribute"), "3",
			  "manifest: queries counted by name");
		CHECK_STR(mget(m, "runtime.cudaMalloc_v3020"), "2",
			  "manifest: runtime calls by name");
		CHECK_STR(mget(m, "warning.unsynced_d2h"), "1",
			  "manifest: the unsynchronized result is a warning");
		CHECK_STR(mget(m, "calls.cuMemcpyDtoHAsync_v2"), "11",
			  "manifest: recorded calls by name");
	}
	trace_reader_free(r);
	strbuf_release(&sb);
	gm_remove_tree(dir);
	return test_done();
}
