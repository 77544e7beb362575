/* SPDX-License-Identifier: MIT */
/*
 * recon-emitter: a stand-in CUDA program for the reconstruct tests and
 * benchmark. Run under `gpumix capture`, it emits the driver calls a real
 * program would make, through the real libgpumix-capture.so emit layer and
 * LTTng provider, so the bundle it leaves is made by the real capture
 * path; it needs no GPU. The calls use the kernels of
 * tests/gpu/replay_kernels.cu (whose fatbin is given with --fatbin) on
 * real data, and the result hashes are those the GPU would produce, so a
 * reconstructed bundle also replays verified on a GPU.
 *
 *   recon-emitter basic   [--fatbin F]   one thread: most of the call table
 *   recon-emitter threads [--fatbin F]   two worker threads, one program
 *   recon-emitter fork    [--fatbin F]   a forked child calls CUDA too
 *   recon-emitter unsupported [--fatbin F]  a CUDA array, copied into
 *       (one copy across its rows, not whole ones), read by a texture
 *       and a surface object (surfaces are not replayed)
 *   recon-emitter reset   [--fatbin F]   cudaDeviceReset, then more work
 *   recon-emitter bad-copy [--fatbin F]  a copy into freed memory
 *   recon-emitter fault   [--fatbin F]   a kernel that faults: the copy
 *       after it and every later call return 700 (illegal address), as
 *       on a GPU; an out-of-memory allocation fails first
 *   recon-emitter event-reuse [--fatbin F]  rounds of: a copy in, an async
 *       copy back into one pinned buffer, an event recorded after it and
 *       synchronized (the result hashed after its exit, as the capture
 *       does); the next round reuses the buffer before any stream sync
 *   recon-emitter clock   [--fatbin F]   three results, the first two
 *       (asynchronous, synchronous) holding the time, as a kernel reading
 *       clock64 or %globaltimer gives: different in every capture
 *   recon-emitter untraced [--fatbin F]  a kernel no traced call names
 *       (as cuFFT's): described at its launch with its name and library
 *   recon-emitter unnamed [--fatbin F]   the same, the library unknown
 *       (a loss: the driver would not say)
 *   recon-emitter pointer-global [--fatbin F]  a device pointer stored
 *       into a module global (cudaMemcpyToSymbol), a kernel writing
 *       through it
 *   recon-emitter pointer-table [--fatbin F]  as batched cuBLAS: tables
 *       of device pointers copied from the host into device memory, a
 *       kernel reading its matrices through them (addresses in the mock
 *       driver's device range, tests/mock/mock_vmm.c, where a driver puts
 *       a process's first allocations)
 *   recon-emitter vmm     [--fatbin F]   virtual memory management as the
 *       CUDA samples do it: a reservation, two physical allocations
 *       mapped next to each other, access set, a copy and a kernel over
 *       both, then unmapped, released and freed
 *   recon-emitter cooperative [--fatbin F]  a cooperative launch of 128
 *       blocks (too many for a small SM partition)
 *   recon-emitter graphs  [--fatbin F]   a stream-captured graph launched
 *       three times (one result accumulates), an explicit graph of every
 *       node kind with its kernel node changed in the executable graph,
 *       then in the graph and the executable updated, then cloned
 *   recon-emitter graph-invalid [--fatbin F]  a capture the program
 *       invalidated (its end fails), then work on the stream, verified
 *   recon-emitter hostfunc [--fatbin F]  rounds of stream-ordered
 *       allocations from a memory pool with a release threshold and from
 *       the default pool, host functions and a stream callback between
 *       the copies and kernels (timed, one timed before its call
 *       returned, the last never run)
 *   recon-emitter bench --calls N [--fatbin F]
 *       about N calls (launches, small copies, memsets) for the
 *       reconstruct benchmark; results not meaningful
 *
 * Without --fatbin a tiny PTX module stands in (enough to build, not to
 * replay).
 */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cuda.h>

#include "api.h"
#include "capture/emit.h"
#include "hash.h"

#define N_ELEMS 4096u
#define BYTES ((uint64_t)N_ELEMS * 4)
#define C_ADD 7u
#define LIB 0xa000
#define CTX 0xc000
#define K_SCALE 0xb001
#define K_INCR 0xb002
#define K_TEX 0xb003
#define F_SCALE 0xf001
#define STREAM1 0x5100
#define EVENT1 0x5200
#define TEX1 0x9001
#define PINNED 0x7e0000000000ull
#define A_CADD 0x7f0000100000ull
#define A_GOUT 0x7f0000100100ull
#define A_IN 0x7f0000200000ull
#define A_OUT 0x7f0000400000ull
#define A_OUT2 0x7f0000600000ull
#define HOST 0x5000
/* The mock driver's first device addresses (pointer-table, vmm). */
#define DEV0 0x200000000000ull
#define GRANULE (2ull << 20)
#define K_PTRS 0xb004
#define VMM_H1 0xd001
#define VMM_H2 0xd002

static const char tiny_ptx[] =
	".version 8.0\n.target sm_90\n.address_size 64\n"
	".visible .entry _Z5scalePjPKjjj(.param .u64 a, .param .u64 b,\n"
	"\t.param .u32 c, .param .u32 d)\n{\n\tret;\n}\n";

static void *image;		/* fatbin or tiny_ptx */
static unsigned next_corr = 1;

/* What a call carries besides its words. */
struct att {
	const void *data;	/* inline bytes */
	size_t len;
	const void *payload;	/* host-to-device source (inline or blob) */
	size_t plen;
	const void *hash;	/* result bytes to hash */
	size_t hlen;
	int image;		/* the module image */
	const char *str;
};

/* An asynchronous device-to-host result not hashed yet (per thread). */
struct late {
	unsigned corr;
	int api;
	uint64_t dst, bytes, stream;
	void *copy;
};
static __thread struct late lates[16];
static __thread unsigned nr_lates;

static void attach(struct gm_record *r, const struct att *a)
{
	if (!a) {
		return;
	}
	if (a->data) {
		memcpy(gm_capture_data(r, a->len), a->data, a->len);
	}
	if (a->payload) {
		struct gm_span s = gm_span_bytes(a->payload, a->plen);
		gm_capture_payload(r, &s, GM_INLINE_MAX);
	}
	if (a->hash) {
		struct gm_span s = gm_span_bytes(a->hash, a->hlen);
		gm_capture_hash(r, &s);
	}
	if (a->image) {
		gm_capture_image(r, image);
	}
	if (a->str) {
		gm_capture_str(r, a->str);
	}
}

/*
 * One driver call: an entry with the inputs (outputs 0), then an exit
 * with all words and @status. Returns its correlation id.
 */
static unsigned call(int api, const uint64_t *w, unsigned nw, int32_t status,
		     const struct att *in, const struct att *out)
{
	const struct gm_api_desc *d = &gm_api_table[api];
	uint64_t a[GM_MAX_ARGS];
	struct gm_record r;
	unsigned c = __atomic_fetch_add(&next_corr, 1, __ATOMIC_RELAXED);

	if (nw != d->nr_args) {
		fprintf(stderr, "recon-emitter: %s takes %u words, not %u\n",
			d->name, d->nr_args, nw);
		abort();
	}
	for (unsigned i = 0; i < nw; i++) {
		a[i] = d->args[i].dir == GM_DIR_OUT ? 0 : w[i];
	}
	memset(&r, 0, sizeof(r));
	r.api = (uint16_t)api;
	r.corr = c;
	r.args = a;
	r.nr_args = (uint8_t)nw;
	attach(&r, in);
	gm_capture_emit(GM_EV_ENTER, &r);
	if (nw) {
		memcpy(a, w, nw * sizeof(uint64_t));
	}
	memset(&r, 0, sizeof(r));
	r.api = (uint16_t)api;
	r.corr = c;
	r.status = status;
	r.args = a;
	r.nr_args = (uint8_t)nw;
	attach(&r, out);
	gm_capture_emit(GM_EV_EXIT, &r);
	return c;
}

#define CALL(name, status, in, out, ...)                                       \
	({                                                                     \
		uint64_t w_[] = { __VA_ARGS__ };                               \
		call(GM_API_##name, w_, sizeof(w_) / sizeof(w_[0]), status,    \
		     in, out);                                                 \
	})
#define ATT(...) (&(struct att){ __VA_ARGS__ })
#define CALL0(name) call(GM_API_##name, NULL, 0, 0, NULL, NULL)

/* The results of stream @stream (all: ~0) become known: d2h_hash events. */
static void complete(uint64_t stream)
{
	unsigned k = 0;

	for (unsigned i = 0; i < nr_lates; i++) {
		struct late *l = &lates[i];
		uint64_t w[GM_NR_WORDS(gm_ev_d2h_hash)] = { l->api, l->dst,
							   l->bytes, l->stream };
		struct gm_record r;
		struct gm_span s;

		if (stream != ~0ull && l->stream != stream) {
			lates[k++] = *l;
			continue;
		}
		memset(&r, 0, sizeof(r));
		r.api = (uint16_t)l->api;
		r.corr = l->corr;
		r.args = w;
		r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_d2h_hash);
		s = gm_span_bytes(l->copy, l->bytes);
		gm_capture_hash(&r, &s);
		gm_capture_emit(GM_EV_D2H_HASH, &r);
		free(l->copy);
	}
	nr_lates = k;
}

static void d2h_async(uint64_t dst, uint64_t src, const void *result,
		      uint64_t bytes, uint64_t stream)
{
	unsigned c = CALL(cuMemcpyDtoHAsync_v2, 0, NULL, NULL, dst, src, bytes,
			  stream);
	struct late *l = &lates[nr_lates++];

	l->corr = c;
	l->api = GM_API_cuMemcpyDtoHAsync_v2;
	l->dst = dst;
	l->bytes = bytes;
	l->stream = stream;
	l->copy = malloc(bytes);
	memcpy(l->copy, result, bytes);
}

static void stream_sync(uint64_t stream)
{
	uint64_t w[1] = { stream };
	struct gm_record r;
	uint64_t a[1];
	unsigned c = __atomic_fetch_add(&next_corr, 1, __ATOMIC_RELAXED);

	/* As the capture library does: results hashed before the exit. */
	memset(&r, 0, sizeof(r));
	r.api = GM_API_cuStreamSynchronize;
	r.corr = c;
	memcpy(a, w, sizeof(w));
	r.args = a;
	r.nr_args = 1;
	gm_capture_emit(GM_EV_ENTER, &r);
	complete(stream);
	r.nr_args = 1;
	gm_capture_emit(GM_EV_EXIT, &r);
}

static void launch(uint64_t kernel, uint64_t stream, const void *params,
		   size_t size)
{
	struct att a = { .data = params, .len = size };

	CALL(cuLaunchKernel, 0, &a, NULL, kernel, (N_ELEMS + 255) / 256, 1, 1,
	     256, 1, 1, 0, stream, 0x6000, 0);
}

/* Kernel activity records, as CUPTI delivers them at the end. */
static void act_kernel(unsigned corr, const char *name, uint64_t start,
		       uint64_t ns)
{
	uint64_t w[GM_NR_WORDS(gm_ev_act_kernel)] = { start, start + ns, corr };
	struct gm_record r;

	memset(&r, 0, sizeof(r));
	r.corr = corr;
	r.args = w;
	r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_act_kernel);
	gm_capture_str(&r, name);
	gm_capture_emit(GM_EV_ACT_KERNEL, &r);
}

static void hash_params(uint8_t *par, uint64_t p0, uint64_t p1, uint32_t a,
			uint32_t b)
{
	memset(par, 0, 24);
	memcpy(par, &p0, 8);
	memcpy(par + 8, &p1, 8);
	memcpy(par + 16, &a, 4);
	memcpy(par + 20, &b, 4);
}

/* cuInit, the primary context, the module, its kernels and c_add. */
static void load_code(void)
{
	static const uint32_t scale[] = { 0, 8, 8, 8, 16, 4, 20, 4 };
	static const uint32_t incr[] = { 0, 16 };
	static const uint32_t tex[] = { 0, 8, 8, 8, 16, 4 };
	struct att img = { .image = 1 };
	struct att s1 = { .str = "_Z5scalePjPKjjj" };
	struct att x1 = { .str = "_Z5scalePjPKjjj", .data = scale, .len = sizeof(scale) };
	struct att s2 = { .str = "_Z4incr4span" };
	struct att x2 = { .str = "_Z4incr4span", .data = incr, .len = sizeof(incr) };
	struct att s3 = { .str = "_Z8tex_copyPjyj" };
	struct att x3 = { .str = "_Z8tex_copyPjyj", .data = tex, .len = sizeof(tex) };
	struct att g = { .str = "c_add" };

	CALL(cuInit, 0, NULL, NULL, 0);
	CALL(cuDevicePrimaryCtxRetain, 0, NULL, NULL, CTX, 0);
	CALL(cuCtxSetCurrent, 0, NULL, NULL, CTX);
	CALL(cuLibraryLoadData, 0, &img, NULL, LIB, 0x1000, 0, 0, 0, 0, 0, 0);
	CALL(cuLibraryGetKernel, 0, &s1, &x1, K_SCALE, LIB, 0x2000);
	CALL(cuLibraryGetKernel, 0, &s2, &x2, K_INCR, LIB, 0x2010);
	CALL(cuLibraryGetKernel, 0, &s3, &x3, K_TEX, LIB, 0x2020);
	CALL(cuLibraryGetGlobal, 0, &g, &g, A_CADD, 4, LIB, 0x2030);
}

/* The input and expected outputs of the basic program. */
struct data {
	uint32_t *in, *out, *out2;
	uint32_t mul;
};

static void make_data(struct data *d, unsigned seed, int incr)
{
	d->in = malloc(BYTES);
	d->out = malloc(BYTES);
	d->out2 = malloc(BYTES);
	d->mul = 3 + 2 * seed;
	for (uint32_t i = 0; i < N_ELEMS; i++) {
		d->in[i] = i * 2654435761u + seed;
		d->out[i] = d->in[i] * d->mul + C_ADD + (incr ? 1 : 0);
	}
	for (uint32_t i = 0; i + 1 < N_ELEMS; i++) {
		d->out2[i] = d->out[i + 1];
	}
	d->out2[N_ELEMS - 1] = 0xdeadbeefu;
}

static void free_data(struct data *d)
{
	free(d->in);
	free(d->out);
	free(d->out2);
}

static void basic(void)
{
	static const uint32_t cadd = C_ADD;
	struct att sym = { .payload = &cadd, .plen = 4 };
	struct data d;
	struct att in, res, res2;
	uint8_t par[24];
	unsigned c1, c2, c3;

	make_data(&d, 0, 1);
	load_code();
	CALL(cuCtxSetLimit, 0, NULL, NULL, CU_LIMIT_STACK_SIZE, 4096);
	CALL(cuKernelGetFunction, 0, NULL, NULL, F_SCALE, K_SCALE);
	CALL(cuFuncSetAttribute, 0, NULL, NULL, F_SCALE,
	     CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, 1024);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_IN, BYTES);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT, BYTES);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT2, BYTES);
	/* a failed allocation: skipped, with a warning */
	CALL(cuMemAlloc_v2, CUDA_ERROR_OUT_OF_MEMORY, NULL, NULL, 0, 1ull << 50);
	CALL(cuMemAllocHost_v2, 0, NULL, NULL, PINNED, BYTES);
	CALL(cuStreamCreate, 0, NULL, NULL, STREAM1, CU_STREAM_NON_BLOCKING);
	CALL(cuEventCreate, 0, NULL, NULL, EVENT1, CU_EVENT_DISABLE_TIMING);
	/* cudaMemcpyToSymbol(c_add), then the input */
	CALL(cuMemcpyHtoD_v2, 0, &sym, NULL, A_CADD, 0x1000, 4);
	in = (struct att){ .payload = d.in, .plen = BYTES };
	CALL(cuMemcpyHtoD_v2, 0, &in, NULL, A_IN, HOST, BYTES);
	hash_params(par, A_OUT, A_IN, d.mul, N_ELEMS);
	c1 = CALL(cuLaunchKernel, 0, ATT(.data = par, .len = 24),
		  NULL, F_SCALE, (N_ELEMS + 255) / 256, 1, 1, 256, 1, 1, 0, 0,
		  0x6000, 0);
	{
		/* incr through cuLaunchKernelEx with a cluster of 2 blocks */
		CUlaunchAttribute at;
		uint8_t buf[sizeof(at) + 16];
		uint64_t span[2] = { A_OUT, N_ELEMS };
		memset(&at, 0, sizeof(at));
		at.id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION;
		at.value.clusterDim.x = 2;
		at.value.clusterDim.y = 1;
		at.value.clusterDim.z = 1;
		memcpy(buf, &at, sizeof(at));
		memcpy(buf + sizeof(at), span, 16);
		c2 = CALL(cuLaunchKernelEx, 0,
			  ATT(.data = buf, .len = sizeof(buf)), NULL,
			  0x7000, K_INCR, 0x6000, 0, (N_ELEMS + 255) / 256, 1, 1,
			  256, 1, 1, 0, 0, 1, sizeof(at));
	}
	CALL(cuEventRecord, 0, NULL, NULL, EVENT1, 0);
	CALL(cuStreamWaitEvent, 0, NULL, NULL, STREAM1, EVENT1, 0);
	{
		CUDA_RESOURCE_DESC rd;
		CUDA_TEXTURE_DESC td;
		uint8_t buf[sizeof(rd) + sizeof(td)];
		memset(&rd, 0, sizeof(rd));
		memset(&td, 0, sizeof(td));
		rd.resType = CU_RESOURCE_TYPE_LINEAR;
		rd.res.linear.devPtr = A_OUT;
		rd.res.linear.format = CU_AD_FORMAT_UNSIGNED_INT32;
		rd.res.linear.numChannels = 1;
		rd.res.linear.sizeInBytes = BYTES;
		td.flags = CU_TRSF_READ_AS_INTEGER;
		memcpy(buf, &rd, sizeof(rd));
		memcpy(buf + sizeof(rd), &td, sizeof(td));
		CALL(cuTexObjectCreate, 0,
		     ATT(.data = buf, .len = sizeof(buf)), NULL,
		     TEX1, 0x8000, 0x8100, 0, CU_RESOURCE_TYPE_LINEAR, 0, A_OUT);
	}
	{
		uint64_t po = A_OUT2, tex = TEX1;
		uint32_t n = N_ELEMS;
		memset(par, 0, sizeof(par));
		memcpy(par, &po, 8);
		memcpy(par + 8, &tex, 8);
		memcpy(par + 16, &n, 4);
		c3 = CALL(cuLaunchKernel, 0,
			  ATT(.data = par, .len = 20), NULL, K_TEX,
			  (N_ELEMS + 255) / 256, 1, 1, 256, 1, 1, 0, STREAM1,
			  0x6000, 0);
	}
	d2h_async(PINNED, A_OUT2, d.out, BYTES, STREAM1);
	stream_sync(STREAM1);
	CALL(cuMemsetD32_v2, 0, NULL, NULL, A_OUT2, 0xdeadbeefu, N_ELEMS);
	CALL(cuMemcpyDtoD_v2, 0, NULL, NULL, A_OUT2, A_OUT + 4, BYTES - 4);
	res2 = (struct att){ .hash = d.out2, .hlen = BYTES };
	CALL(cuMemcpyDtoH_v2, 0, NULL, &res2, HOST, A_OUT2, BYTES);
	/* cudaMemcpyFromSymbol(c_add) */
	res = (struct att){ .hash = &cadd, .hlen = 4 };
	CALL(cuMemcpyDtoH_v2, 0, NULL, &res, HOST, A_CADD, 4);
	CALL(cuTexObjectDestroy, 0, NULL, NULL, TEX1);
	CALL(cuEventDestroy_v2, 0, NULL, NULL, EVENT1);
	CALL(cuStreamDestroy_v2, 0, NULL, NULL, STREAM1);
	CALL(cuMemFreeHost, 0, NULL, NULL, PINNED);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_IN);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_OUT);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_OUT2);
	CALL0(cuCtxSynchronize);
	CALL(cuLibraryUnload, 0, NULL, NULL, LIB);
	act_kernel(c1, "_Z5scalePjPKjjj", 1000000, 50000);
	act_kernel(c2, "_Z4incr4span", 1100000, 40000);
	act_kernel(c3, "_Z8tex_copyPjyj", 1200000, 45000);
	free_data(&d);
}

/*
 * A kernel that no traced call names, as cuFFT's: the library is loaded,
 * but the kernel handle comes through an untraced path, so the capture
 * describes it at its first launch in a layout event, with its name and
 * its library (@module; 0 when the driver would not say, a loss).
 */
static void untraced_kernel(uint64_t module)
{
	static const uint32_t scale[] = { 0, 8, 8, 8, 16, 4, 20, 4 };
	static const uint32_t cadd = C_ADD;
	uint64_t w[GM_NR_WORDS(gm_ev_layout)] = { K_SCALE, 4, 1, module };
	struct att img = { .image = 1 };
	struct att g = { .str = "c_add" };
	struct att sym = { .payload = &cadd, .plen = 4 };
	struct data d;
	struct att in, res;
	struct gm_record r;
	uint8_t par[24];
	unsigned c;

	make_data(&d, 0, 0);
	CALL(cuInit, 0, NULL, NULL, 0);
	CALL(cuDevicePrimaryCtxRetain, 0, NULL, NULL, CTX, 0);
	CALL(cuCtxSetCurrent, 0, NULL, NULL, CTX);
	CALL(cuLibraryLoadData, 0, &img, NULL, LIB, 0x1000, 0, 0, 0, 0, 0, 0);
	CALL(cuLibraryGetGlobal, 0, &g, &g, A_CADD, 4, LIB, 0x2030);
	CALL(cuMemcpyHtoD_v2, 0, &sym, NULL, A_CADD, 0x1000, 4);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_IN, BYTES);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT, BYTES);
	in = (struct att){ .payload = d.in, .plen = BYTES };
	CALL(cuMemcpyHtoD_v2, 0, &in, NULL, A_IN, HOST, BYTES);
	memset(&r, 0, sizeof(r));
	r.corr = __atomic_load_n(&next_corr, __ATOMIC_RELAXED);
	r.args = w;
	r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_layout);
	memcpy(gm_capture_data(&r, sizeof(scale)), scale, sizeof(scale));
	gm_capture_str(&r, "_Z5scalePjPKjjj");
	if (!module) {
		gm_capture_loss(unnamed_kernels);
	}
	gm_capture_emit(GM_EV_LAYOUT, &r);
	hash_params(par, A_OUT, A_IN, d.mul, N_ELEMS);
	c = CALL(cuLaunchKernel, 0, ATT(.data = par, .len = 24), NULL, K_SCALE,
		 (N_ELEMS + 255) / 256, 1, 1, 256, 1, 1, 0, 0, 0x6000, 0);
	res = (struct att){ .hash = d.out, .hlen = BYTES };
	CALL(cuMemcpyDtoH_v2, 0, NULL, &res, HOST, A_OUT, BYTES);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_IN);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_OUT);
	CALL(cuLibraryUnload, 0, NULL, NULL, LIB);
	act_kernel(c, "_Z5scalePjPKjjj", 1000000, 50000);
	free_data(&d);
}

/*
 * A device pointer stored into a module global from the host (the
 * address of the output, copied into g_out as cudaMemcpyToSymbol does),
 * then a kernel writing through it: the replay must store its own
 * address there.
 */
static void pointer_global(void)
{
	static const uint32_t cadd = C_ADD;
	static const uint32_t gbl[] = { 0, 8, 8, 4, 12, 4 };
	static const uint64_t out_ptr = A_OUT;
	struct att img = { .image = 1 };
	struct att g = { .str = "c_add" }, go = { .str = "g_out" };
	struct att sym = { .payload = &cadd, .plen = 4 };
	struct att ptr = { .payload = &out_ptr, .plen = 8 };
	struct att k = { .str = "_Z9scale_gblPKjjj" };
	struct att kx = { .str = "_Z9scale_gblPKjjj", .data = gbl, .len = sizeof(gbl) };
	struct data d;
	struct att in, res;
	uint8_t par[16];
	uint32_t mul, n = N_ELEMS;
	uint64_t pin = A_IN;
	unsigned c;

	make_data(&d, 0, 0);
	mul = d.mul;
	CALL(cuInit, 0, NULL, NULL, 0);
	CALL(cuDevicePrimaryCtxRetain, 0, NULL, NULL, CTX, 0);
	CALL(cuCtxSetCurrent, 0, NULL, NULL, CTX);
	CALL(cuLibraryLoadData, 0, &img, NULL, LIB, 0x1000, 0, 0, 0, 0, 0, 0);
	CALL(cuLibraryGetKernel, 0, &k, &kx, K_SCALE, LIB, 0x2000);
	CALL(cuLibraryGetGlobal, 0, &g, &g, A_CADD, 4, LIB, 0x2030);
	CALL(cuLibraryGetGlobal, 0, &go, &go, A_GOUT, 8, LIB, 0x2040);
	CALL(cuMemcpyHtoD_v2, 0, &sym, NULL, A_CADD, 0x1000, 4);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_IN, BYTES);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT, BYTES);
	CALL(cuMemcpyHtoD_v2, 0, &ptr, NULL, A_GOUT, 0x1008, 8);
	in = (struct att){ .payload = d.in, .plen = BYTES };
	CALL(cuMemcpyHtoD_v2, 0, &in, NULL, A_IN, HOST, BYTES);
	memcpy(par, &pin, 8);
	memcpy(par + 8, &mul, 4);
	memcpy(par + 12, &n, 4);
	c = CALL(cuLaunchKernel, 0, ATT(.data = par, .len = 16), NULL, K_SCALE,
		 (N_ELEMS + 255) / 256, 1, 1, 256, 1, 1, 0, 0, 0x6000, 0);
	res = (struct att){ .hash = d.out, .hlen = BYTES };
	CALL(cuMemcpyDtoH_v2, 0, NULL, &res, HOST, A_OUT, BYTES);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_IN);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_OUT);
	CALL(cuLibraryUnload, 0, NULL, NULL, LIB);
	act_kernel(c, "_Z9scale_gblPKjjj", 1000000, 50000);
	free_data(&d);
}

/*
 * Batched work through tables of device pointers in device memory, as
 * cuBLAS's *Batched calls read them: four slices of the input and the
 * output, their addresses copied from the host into one table, a kernel
 * finding its slices through it. The replay must either place the
 * allocations at these addresses or store its own into the table.
 */
static void pointer_table(void)
{
	static const uint32_t ptrs[] = { 0, 8, 8, 8, 16, 4, 20, 4 };
	static const uint32_t cadd = C_ADD;
	const uint64_t in = DEV0, out = DEV0 + 0x10000, tab = DEV0 + 0x20000;
	const uint32_t nb = 4, n = N_ELEMS / 4;
	struct att img = { .image = 1 };
	struct att g = { .str = "c_add" };
	struct att k = { .str = "_Z10scale_ptrsPKPjPKPKjjj" };
	struct att kx = { .str = "_Z10scale_ptrsPKPjPKPKjjj", .data = ptrs,
			  .len = sizeof(ptrs) };
	uint64_t table[8], po = tab, pi = tab + 8 * nb;
	struct data d;
	struct att res;
	uint8_t par[24];
	unsigned c;

	make_data(&d, 1, 0);
	for (uint32_t b = 0; b < nb; b++) {
		table[b] = out + b * n * 4;
		table[nb + b] = in + b * n * 4;
	}
	CALL(cuInit, 0, NULL, NULL, 0);
	CALL(cuDevicePrimaryCtxRetain, 0, NULL, NULL, CTX, 0);
	CALL(cuCtxSetCurrent, 0, NULL, NULL, CTX);
	CALL(cuLibraryLoadData, 0, &img, NULL, LIB, 0x1000, 0, 0, 0, 0, 0, 0);
	CALL(cuLibraryGetKernel, 0, &k, &kx, K_PTRS, LIB, 0x2000);
	CALL(cuLibraryGetGlobal, 0, &g, &g, A_CADD, 4, LIB, 0x2030);
	CALL(cuMemcpyHtoD_v2, 0, ATT(.payload = &cadd, .plen = 4), NULL,
	     A_CADD, 0x1000, 4);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, in, BYTES);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, out, BYTES);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, tab, sizeof(table));
	CALL(cuMemcpyHtoD_v2, 0, ATT(.payload = d.in, .plen = BYTES), NULL,
	     in, HOST, BYTES);
	CALL(cuMemcpyHtoD_v2, 0, ATT(.payload = table, .plen = sizeof(table)),
	     NULL, tab, HOST, sizeof(table));
	memcpy(par, &po, 8);
	memcpy(par + 8, &pi, 8);
	memcpy(par + 16, &d.mul, 4);
	memcpy(par + 20, &n, 4);
	c = CALL(cuLaunchKernel, 0, ATT(.data = par, .len = 24), NULL, K_PTRS,
		 N_ELEMS / 256, 1, 1, 256, 1, 1, 0, 0, 0x6000, 0);
	res = (struct att){ .hash = d.out, .hlen = BYTES };
	CALL(cuMemcpyDtoH_v2, 0, NULL, &res, HOST, out, BYTES);
	CALL(cuMemFree_v2, 0, NULL, NULL, in);
	CALL(cuMemFree_v2, 0, NULL, NULL, out);
	CALL(cuMemFree_v2, 0, NULL, NULL, tab);
	CALL(cuLibraryUnload, 0, NULL, NULL, LIB);
	act_kernel(c, "_Z10scale_ptrsPKPjPKPKjjj", 1000000, 50000);
	free_data(&d);
}

/*
 * Virtual memory management as the CUDA samples (vectorAddMMAP) do it: a
 * reservation of four granules, two physical allocations mapped next to
 * each other, access set over both; the input straddles them, and the
 * kernel reads and writes across the boundary.
 */
static void vmm(void)
{
	const uint64_t va = DEV0, size = 4 * GRANULE;
	const uint64_t in = va + GRANULE - BYTES / 2, out = va + GRANULE + BYTES;
	struct data d;
	struct att res;
	uint8_t par[24];
	unsigned c;

	make_data(&d, 2, 0);
	load_code();
	CALL(cuMemcpyHtoD_v2, 0, ATT(.payload = &(uint32_t){ C_ADD }, .plen = 4),
	     NULL, A_CADD, 0x1000, 4);
	CALL(cuMemAddressReserve, 0, NULL, NULL, va, size, 0, 0, 0);
	CALL(cuMemCreate, 0, NULL, NULL, VMM_H1, GRANULE, 0x7100, 0,
	     CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	CALL(cuMemCreate, 0, NULL, NULL, VMM_H2, GRANULE, 0x7100, 0,
	     CU_MEM_ALLOCATION_TYPE_PINNED, CU_MEM_LOCATION_TYPE_DEVICE, 0, 0);
	CALL(cuMemMap, 0, NULL, NULL, va, GRANULE, 0, VMM_H1, 0);
	CALL(cuMemMap, 0, NULL, NULL, va + GRANULE, GRANULE, 0, VMM_H2, 0);
	CALL(cuMemSetAccess, 0, NULL, NULL, va, 2 * GRANULE, 0x7200, 1,
	     CU_MEM_LOCATION_TYPE_DEVICE, 0, CU_MEM_ACCESS_FLAGS_PROT_READWRITE);
	CALL(cuMemcpyHtoD_v2, 0, ATT(.payload = d.in, .plen = BYTES), NULL,
	     in, HOST, BYTES);
	hash_params(par, out, in, d.mul, N_ELEMS);
	c = CALL(cuLaunchKernel, 0, ATT(.data = par, .len = 24), NULL, K_SCALE,
		 N_ELEMS / 256, 1, 1, 256, 1, 1, 0, 0, 0x6000, 0);
	res = (struct att){ .hash = d.out, .hlen = BYTES };
	CALL(cuMemcpyDtoH_v2, 0, NULL, &res, HOST, out, BYTES);
	CALL(cuMemUnmap, 0, NULL, NULL, va, GRANULE);
	CALL(cuMemUnmap, 0, NULL, NULL, va + GRANULE, GRANULE);
	CALL(cuMemRelease, 0, NULL, NULL, VMM_H1);
	CALL(cuMemRelease, 0, NULL, NULL, VMM_H2);
	CALL(cuMemAddressFree, 0, NULL, NULL, va, size);
	CALL(cuLibraryUnload, 0, NULL, NULL, LIB);
	act_kernel(c, "_Z5scalePjPKjjj", 1000000, 50000);
	free_data(&d);
}

/*
 * A cooperative launch (cuLaunchKernelEx with the COOPERATIVE attribute)
 * of 128 blocks of 256 threads: all must be resident at once, which a
 * partition of too few SMs cannot give (gpumix scale's test).
 */
static void cooperative(void)
{
	struct data d;
	struct att in, res;
	CUlaunchAttribute at;
	uint8_t buf[sizeof(at) + 24];
	unsigned c;

	make_data(&d, 0, 0);
	load_code();
	CALL(cuMemcpyHtoD_v2, 0, ATT(.payload = &(uint32_t){ C_ADD }, .plen = 4),
	     NULL, A_CADD, 0x1000, 4);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_IN, BYTES);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT, BYTES);
	in = (struct att){ .payload = d.in, .plen = BYTES };
	CALL(cuMemcpyHtoD_v2, 0, &in, NULL, A_IN, HOST, BYTES);
	memset(&at, 0, sizeof(at));
	at.id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
	at.value.cooperative = 1;
	memcpy(buf, &at, sizeof(at));
	hash_params(buf + sizeof(at), A_OUT, A_IN, d.mul, N_ELEMS);
	c = CALL(cuLaunchKernelEx, 0, ATT(.data = buf, .len = sizeof(buf)), NULL,
		 0x7000, K_SCALE, 0x6000, 0, 128, 1, 1, 256, 1, 1, 0, 0, 1,
		 sizeof(at));
	res = (struct att){ .hash = d.out, .hlen = BYTES };
	CALL(cuMemcpyDtoH_v2, 0, NULL, &res, HOST, A_OUT, BYTES);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_IN);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_OUT);
	CALL(cuLibraryUnload, 0, NULL, NULL, LIB);
	act_kernel(c, "_Z5scalePjPKjjj", 1000000, 50000);
	free_data(&d);
}

/* Both workers hold their streams and buffers at once (the interleaving
 * the corpus's threads bundle is about). */
static pthread_barrier_t workers_ready;

/* Each worker thread: its own stream and buffers, scale, result. */
static void *worker(void *arg)
{
	unsigned t = (unsigned)(uintptr_t)arg;
	uint64_t s = STREAM1 + 0x10 * t, in = A_IN + 0x10000000ull * t,
		 out = A_OUT + 0x10000000ull * t;
	struct data d;
	uint8_t par[24];

	make_data(&d, t, 0);
	CALL(cuStreamCreate, 0, NULL, NULL, s, CU_STREAM_NON_BLOCKING);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, in, BYTES);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, out, BYTES);
	pthread_barrier_wait(&workers_ready);
	CALL(cuMemcpyHtoDAsync_v2, 0,
	     ATT(.payload = d.in, .plen = BYTES), NULL, in, HOST,
	     BYTES, s);
	hash_params(par, out, in, d.mul, N_ELEMS);
	launch(K_SCALE, s, par, 24);
	d2h_async(HOST, out, d.out, BYTES, s);
	stream_sync(s);
	CALL(cuMemFree_v2, 0, NULL, NULL, in);
	CALL(cuMemFree_v2, 0, NULL, NULL, out);
	CALL(cuStreamDestroy_v2, 0, NULL, NULL, s);
	free_data(&d);
	return NULL;
}

static void threads(void)
{
	static const uint32_t cadd = C_ADD;
	pthread_t tid[2];

	load_code();
	CALL(cuMemcpyHtoD_v2, 0, ATT(.payload = &cadd, .plen = 4),
	     NULL, A_CADD, 0x1000, 4);
	pthread_barrier_init(&workers_ready, NULL, 2);
	for (unsigned t = 0; t < 2; t++) {
		pthread_create(&tid[t], NULL, worker, (void *)(uintptr_t)(t + 1));
	}
	for (unsigned t = 0; t < 2; t++) {
		pthread_join(tid[t], NULL);
	}
	pthread_barrier_destroy(&workers_ready);
	CALL0(cuCtxSynchronize);
}

static void fork_child(void)
{
	pid_t child;

	load_code();
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_IN, BYTES);
	child = fork();
	if (child == 0) {
		CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT, BYTES);
		gm_capture_finish(NULL);
		_exit(0);
	}
	waitpid(child, NULL, 0);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_IN);
}

static void unsupported_calls(void)
{
	uint8_t desc[sizeof(CUDA_RESOURCE_DESC) + sizeof(CUDA_TEXTURE_DESC)];
	CUDA_RESOURCE_DESC rd;
	uint32_t small[16] = { 0 };
	struct att src = { .payload = small, .plen = sizeof(small) };

	load_code();
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_IN, BYTES);
	CALL(cuArrayCreate_v2, 0, NULL, NULL, 0xa1, 0x8000, 64, 2, 0,
	     CU_AD_FORMAT_UNSIGNED_INT32, 1, 0);
	CALL(cuMemcpyHtoA_v2, 0, &src, NULL, 0xa1, 0, HOST, sizeof(small));
	memset(desc, 0, sizeof(desc));
	memset(&rd, 0, sizeof(rd));
	rd.resType = CU_RESOURCE_TYPE_ARRAY;
	rd.res.array.hArray = (CUarray)0xa1;
	memcpy(desc, &rd, sizeof(rd));
	CALL(cuTexObjectCreate, 0,
	     ATT(.data = desc, .len = sizeof(desc)), NULL, 0x9002,
	     0x8000, 0x8100, 0, CU_RESOURCE_TYPE_ARRAY, 0xa1, 0);
	CALL(cuTexObjectDestroy, 0, NULL, NULL, 0x9002);
	/* Still unsupported: a copy across rows of the array, not whole
	 * ones (no rectangle of it), a surface object over it. */
	src.plen = 8 * 4;
	CALL(cuMemcpyHtoA_v2, 0, &src, NULL, 0xa1, 60 * 4, HOST, 8 * 4);
	CALL(cuSurfObjectCreate, 0, ATT(.data = &rd, .len = sizeof(rd)), NULL,
	     0x9003, 0x8200, CU_RESOURCE_TYPE_ARRAY, 0xa1, 0);
	CALL(cuSurfObjectDestroy, 0, NULL, NULL, 0x9003);
	CALL(cuArrayDestroy, 0, NULL, NULL, 0xa1);
	CALL(cuMemsetD32_v2, 0, NULL, NULL, A_IN, 0, N_ELEMS);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_IN);
}

static void reset(void)
{
	struct data d;
	uint8_t par[24];

	make_data(&d, 0, 0);
	load_code();
	CALL(cuStreamCreate, 0, NULL, NULL, STREAM1, 0);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_IN, BYTES);
	/* cudaDeviceReset(): everything goes; the runtime loads again */
	CALL(cuDevicePrimaryCtxReset_v2, 0, NULL, NULL, 0);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_IN);
	CALL(cuStreamDestroy_v2, 0, NULL, NULL, STREAM1);
	CALL(cuLibraryUnload, 0, NULL, NULL, LIB);
	load_code();
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_IN, BYTES);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT, BYTES);
	CALL(cuMemsetD32_v2, 0, NULL, NULL, A_IN, 1, N_ELEMS);
	CALL(cuMemsetD8_v2, 0, NULL, NULL, A_CADD, 0, 4);
	hash_params(par, A_OUT, A_IN, 5, N_ELEMS);
	launch(K_SCALE, 0, par, 24);
	{
		uint32_t *r = malloc(BYTES);
		for (uint32_t i = 0; i < N_ELEMS; i++) {
			r[i] = 5;
		}
		CALL(cuMemcpyDtoH_v2, 0, NULL,
		     ATT(.hash = r, .hlen = BYTES), HOST, A_OUT,
		     BYTES);
		free(r);
	}
	CALL(cuDevicePrimaryCtxReset_v2, 0, NULL, NULL, 0);
	CALL(cuLibraryUnload, 0, NULL, NULL, LIB);
	free_data(&d);
}

static void bad_copy(void)
{
	uint32_t small[16] = { 0 };

	load_code();
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_IN, BYTES);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_IN);
	CALL(cuMemcpyHtoD_v2, 0,
	     ATT(.payload = small, .plen = sizeof(small)), NULL,
	     A_IN + 64, HOST, sizeof(small));
}

static void fault(void)
{
	uint8_t par[24];

	load_code();
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_IN, BYTES);
	CALL(cuMemAlloc_v2, CUDA_ERROR_OUT_OF_MEMORY, NULL, NULL, 0, 1ull << 50);
	/* scale with an output pointer nowhere: the launch itself succeeds */
	hash_params(par, 0x10, A_IN, 3, N_ELEMS);
	CALL(cuKernelGetFunction, 0, NULL, NULL, F_SCALE, K_SCALE);
	CALL(cuLaunchKernel, 0, ATT(.data = par, .len = 24), NULL, F_SCALE,
	     (N_ELEMS + 255) / 256, 1, 1, 256, 1, 1, 0, 0, 0x6000, 0);
	CALL(cuMemcpyDtoH_v2, CUDA_ERROR_ILLEGAL_ADDRESS, NULL, NULL, HOST,
	     A_IN, 64);
	CALL(cuMemFree_v2, CUDA_ERROR_ILLEGAL_ADDRESS, NULL, NULL, A_IN);
}

static void event_reuse(void)
{
	uint8_t data[3][256];

	load_code();
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT, BYTES);
	CALL(cuMemAllocHost_v2, 0, NULL, NULL, PINNED, BYTES);
	CALL(cuStreamCreate, 0, NULL, NULL, STREAM1, 0);
	CALL(cuEventCreate, 0, NULL, NULL, EVENT1, CU_EVENT_DISABLE_TIMING);
	for (int r = 0; r < 3; r++) {
		for (int i = 0; i < 256; i++) {
			data[r][i] = (uint8_t)(r * 77 + i);
		}
		CALL(cuMemcpyHtoD_v2, 0, ATT(.payload = data[r], .plen = 256),
		     NULL, A_OUT, HOST, 256);
		d2h_async(PINNED, A_OUT, data[r], 256, STREAM1);
		CALL(cuEventRecord, 0, NULL, NULL, EVENT1, STREAM1);
		CALL(cuEventSynchronize, 0, NULL, NULL, EVENT1);
		complete(STREAM1);	/* hashed after the exit */
	}
	CALL0(cuCtxSynchronize);
	CALL(cuEventDestroy_v2, 0, NULL, NULL, EVENT1);
	CALL(cuStreamDestroy_v2, 0, NULL, NULL, STREAM1);
	CALL(cuMemFreeHost, 0, NULL, NULL, PINNED);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_OUT);
}

static void clock_results(void)
{
	static const uint8_t fixed[64] = { 1, 2, 3, 4, 5, 6, 7, 8 };
	uint8_t timed[64] = { 0 };
	struct timespec ts;
	uint64_t now;

	clock_gettime(CLOCK_REALTIME, &ts);
	now = (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
	memcpy(timed, &now, sizeof(now));
	load_code();
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT, BYTES);
	CALL(cuStreamCreate, 0, NULL, NULL, STREAM1, 0);
	d2h_async(PINNED, A_OUT, timed, sizeof(timed), STREAM1);
	stream_sync(STREAM1);
	CALL(cuMemcpyDtoH_v2, 0, NULL, ATT(.hash = &now, .hlen = 8), HOST,
	     A_OUT, 8);
	CALL(cuMemcpyDtoH_v2, 0, NULL, ATT(.hash = fixed, .hlen = 16), HOST,
	     A_OUT, 16);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_OUT);
}

/* ---- host functions and memory pools ---- */

#define POOL_DEF 0xe100
#define POOL1 0xe200

struct host_ran {
	int api;
	unsigned corr;
	uint64_t ns;
};

/* The host_func event, from a thread of its own as CUDA's would be. */
static void *host_ran_thread(void *arg)
{
	const struct host_ran *h = arg;
	uint64_t w[GM_NR_WORDS(gm_ev_host_func)] = { 5000000, 5000000 + h->ns };
	struct gm_record r;

	memset(&r, 0, sizeof(r));
	r.api = (uint16_t)h->api;
	r.corr = h->corr;
	r.args = w;
	r.nr_args = (uint8_t)GM_NR_WORDS(gm_ev_host_func);
	gm_capture_emit(GM_EV_HOST_FUNC, &r);
	return NULL;
}

static void host_ran(int api, unsigned corr, uint64_t ns)
{
	struct host_ran h = { api, corr, ns };
	pthread_t t;

	pthread_create(&t, NULL, host_ran_thread, &h);
	pthread_join(t, NULL);
}

/*
 * cuLaunchHostFunc (or cuStreamAddCallback) on @stream whose function
 * took @ns: run after the call returned (@when 0), before it returned
 * (1: an idle stream), or never (2: the program exits first).
 */
static void host_func(int api, uint64_t stream, uint64_t ns, int when)
{
	uint64_t a[4] = { stream, 0x401000, 0x7ffd0000, 0 };
	unsigned nw = gm_api_table[api].nr_args;
	struct gm_record r;
	unsigned c = __atomic_fetch_add(&next_corr, 1, __ATOMIC_RELAXED);

	memset(&r, 0, sizeof(r));
	r.api = (uint16_t)api;
	r.corr = c;
	r.args = a;
	r.nr_args = (uint8_t)nw;
	gm_capture_emit(GM_EV_ENTER, &r);
	if (when == 1) {
		host_ran(api, c, ns);
	}
	r.nr_args = 0;		/* no outputs: the entry's words */
	gm_capture_emit(GM_EV_EXIT, &r);
	if (when == 0) {
		host_ran(api, c, ns);
	}
}

/*
 * A program that uses a memory pool with a release threshold and host
 * functions between its kernels, the way real code does: per round, an
 * input from the pool and an output from the default pool
 * (cudaMallocFromPoolAsync, cudaMallocAsync), the input copied in, a
 * host function, scale, a stream callback, the result back, the stream
 * synchronized, both freed in stream order.
 */
static void hostfunc_pools(void)
{
	static const uint32_t cadd = C_ADD;
	struct data d;
	uint8_t par[24];

	make_data(&d, 0, 0);
	load_code();
	CALL(cuMemcpyHtoD_v2, 0, ATT(.payload = &cadd, .plen = 4),
	     NULL, A_CADD, 0x1000, 4);
	CALL(cuStreamCreate, 0, NULL, NULL, STREAM1, CU_STREAM_NON_BLOCKING);
	CALL(cuDeviceGetDefaultMemPool, 0, NULL, NULL, POOL_DEF, 0);
	CALL(cuMemPoolSetAttribute, 0, NULL, NULL, POOL_DEF,
	     CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, 0x7ffd1000, UINT64_MAX);
	CALL(cuMemPoolCreate, 0, NULL, NULL, POOL1, 0x7ffd2000,
	     CU_MEM_ALLOCATION_TYPE_PINNED, 0, CU_MEM_LOCATION_TYPE_DEVICE, 0);
	CALL(cuMemPoolSetAttribute, 0, NULL, NULL, POOL1,
	     CU_MEMPOOL_ATTR_RELEASE_THRESHOLD, 0x7ffd1000, 32ull << 20);
	for (int round = 0; round < 3; round++) {
		CALL(cuMemAllocFromPoolAsync, 0, NULL, NULL, A_IN, BYTES, POOL1,
		     STREAM1);
		CALL(cuMemAllocAsync, 0, NULL, NULL, A_OUT, BYTES, STREAM1);
		CALL(cuMemcpyHtoDAsync_v2, 0,
		     ATT(.payload = d.in, .plen = BYTES), NULL, A_IN, HOST,
		     BYTES, STREAM1);
		host_func(GM_API_cuLaunchHostFunc, STREAM1, 3000000,
			  round == 1);
		hash_params(par, A_OUT, A_IN, d.mul, N_ELEMS);
		launch(K_SCALE, STREAM1, par, 24);
		if (round == 2) {
			host_func(GM_API_cuStreamAddCallback, STREAM1, 1000000,
				  0);
		}
		d2h_async(HOST, A_OUT, d.out, BYTES, STREAM1);
		stream_sync(STREAM1);
		CALL(cuMemFreeAsync, 0, NULL, NULL, A_IN, STREAM1);
		CALL(cuMemFreeAsync, 0, NULL, NULL, A_OUT, STREAM1);
	}
	CALL(cuMemPoolTrimTo, 0, NULL, NULL, POOL1, 0);
	/* the last host function: the program exits before it runs */
	host_func(GM_API_cuLaunchHostFunc, STREAM1, 0, 2);
	CALL(cuMemPoolDestroy, 0, NULL, NULL, POOL1);
	free_data(&d);
}

/*
 * About @calls calls: per 16, 13 launches of scale over 8 sub-buffers, a
 * 256-byte host-to-device copy, a 64-byte result and a memset.
 */
static void bench(unsigned long calls)
{
	uint8_t in[4][256], res[4][64], par[24];

	for (int v = 0; v < 4; v++) {
		for (int i = 0; i < 256; i++) {
			in[v][i] = (uint8_t)(v * 31 + i);
		}
		for (int i = 0; i < 64; i++) {
			res[v][i] = (uint8_t)(v * 17 + i);
		}
	}
	load_code();
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_IN, BYTES);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT, BYTES);
	for (unsigned long i = 0; i < calls; i++) {
		switch (i % 16) {
		case 0:
			CALL(cuMemcpyHtoD_v2, 0,
			     ATT(.payload = in[(i / 16) % 4], .plen = 256),
			     NULL, A_IN + 256 * ((i / 16) % 8), HOST, 256);
			break;
		case 8:
			CALL(cuMemcpyDtoH_v2, 0, NULL,
			     ATT(.hash = res[(i / 16) % 4], .hlen = 64),
			     HOST, A_OUT + 64 * (i % 8), 64);
			break;
		case 12:
			CALL(cuMemsetD32Async, 0, NULL, NULL, A_OUT + 4096 * (i % 4),
			     (uint32_t)i % 3, 1024, 0);
			break;
		default:
			hash_params(par, A_OUT + 256 * (i % 8), A_IN, 1 + i % 5, 64);
			launch(K_SCALE, 0, par, 24);
			break;
		}
	}
	CALL0(cuCtxSynchronize);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_IN);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_OUT);
}

static void *read_fatbin(const char *path)
{
	FILE *f = fopen(path, "rb");
	long n;
	char *buf;

	if (!f || fseek(f, 0, SEEK_END) || (n = ftell(f)) <= 0 ||
	    fseek(f, 0, SEEK_SET)) {
		fprintf(stderr, "recon-emitter: cannot read '%s'\n", path);
		exit(2);
	}
	buf = malloc((size_t)n + 1);
	if (fread(buf, 1, (size_t)n, f) != (size_t)n) {
		fprintf(stderr, "recon-emitter: cannot read '%s'\n", path);
		exit(2);
	}
	buf[n] = 0;
	fclose(f);
	return buf;
}

/* ---- CUDA graphs ---- */

#define GRAPH1 0x6a01
#define GRAPH2 0x6a02
#define GRAPH3 0x6a03
#define GRAPH4 0x6a04
#define EXEC1 0x6b01
#define EXEC2 0x6b02
#define EXEC3 0x6b03
#define NODE(i) (0x6c00 + (i))

/*
 * cuGraphLaunch of @exec on @stream whose copy nodes deliver @n results
 * (destination, bytes, content): hashed at the next synchronization of
 * the stream, as the capture library does.
 */
struct gresult {
	uint64_t dst, bytes;
	const void *data;
};

static void graph_launch(uint64_t exec, uint64_t stream,
			 const struct gresult *res, unsigned n)
{
	unsigned c = CALL(cuGraphLaunch, 0, NULL, NULL, exec, stream);

	for (unsigned i = 0; i < n; i++) {
		struct late *l = &lates[nr_lates++];
		l->corr = c;
		l->api = GM_API_cuGraphLaunch;
		l->dst = res[i].dst;
		l->bytes = res[i].bytes;
		l->stream = stream;
		l->copy = malloc(res[i].bytes);
		memcpy(l->copy, res[i].data, res[i].bytes);
	}
}

/* Node-adding calls end with dep0..dep7. */
#define DEPS0 0, 0, 0, 0, 0, 0, 0, 0
#define DEPS1(a) a, 0, 0, 0, 0, 0, 0, 0
#define DEPS2(a, b) a, b, 0, 0, 0, 0, 0, 0

static void scale_node_params(uint8_t *par, uint32_t mul)
{
	hash_params(par, A_OUT, A_IN, mul, N_ELEMS);
}

/*
 * A captured graph (memset, scale, incr twice, two results) launched
 * three times: one result accumulates over launches. Then an explicit
 * graph of a host-to-device copy, memset, kernel, host, empty, child
 * graph, copy back and event record nodes with an edge added later,
 * launched, its kernel node changed in the executable graph, then in the
 * graph and the executable updated, then cloned.
 */
static void graphs(void)
{
	uint32_t *out = malloc(BYTES), *acc = malloc(BYTES), *in = malloc(BYTES);
	uint64_t sp[2] = { A_OUT, N_ELEMS }, sp2[2] = { A_OUT2, N_ELEMS };
	uint64_t edge[2] = { NODE(6), NODE(7) };
	static const uint32_t cadd = C_ADD;
	uint8_t par[24];
	const uint32_t muls[3] = { 5, 9, 13 };

	load_code();
	for (uint32_t i = 0; i < N_ELEMS; i++) {
		in[i] = i * 2654435761u + 17;
	}
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_IN, BYTES);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT, BYTES);
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT2, BYTES);
	CALL(cuMemAllocHost_v2, 0, NULL, NULL, PINNED, 3 * BYTES);
	CALL(cuStreamCreate, 0, NULL, NULL, STREAM1, CU_STREAM_NON_BLOCKING);
	CALL(cuEventCreate, 0, NULL, NULL, EVENT1, CU_EVENT_DISABLE_TIMING);
	CALL(cuMemcpyHtoD_v2, 0, ATT(.payload = &cadd, .plen = 4), NULL,
	     A_CADD, 0x1000, 4);
	CALL(cuMemcpyHtoD_v2, 0, ATT(.payload = in, .plen = BYTES), NULL,
	     A_IN, HOST, BYTES);
	CALL(cuMemsetD32Async, 0, NULL, NULL, A_OUT2, 0, N_ELEMS, STREAM1);

	/* stream capture */
	CALL(cuStreamBeginCapture_v2, 0, NULL, NULL, STREAM1, 0);
	CALL(cuMemsetD32Async, 0, NULL, NULL, A_OUT, 0, N_ELEMS, STREAM1);
	hash_params(par, A_OUT, A_IN, 3, N_ELEMS);
	launch(K_SCALE, STREAM1, par, 24);
	launch(K_INCR, STREAM1, sp, 16);
	launch(K_INCR, STREAM1, sp2, 16);
	CALL(cuMemcpyDtoHAsync_v2, 0, NULL, NULL, PINNED, A_OUT, BYTES,
	     STREAM1);
	CALL(cuMemcpyDtoHAsync_v2, 0, NULL, NULL, PINNED + BYTES, A_OUT2,
	     BYTES, STREAM1);
	CALL(cuStreamEndCapture, 0, NULL, NULL, STREAM1, GRAPH1);
	CALL(cuGraphInstantiateWithFlags, 0, NULL, NULL, EXEC1, GRAPH1, 0);
	for (uint32_t i = 0; i < N_ELEMS; i++) {
		out[i] = in[i] * 3 + C_ADD + 1;
	}
	for (uint32_t k = 1; k <= 3; k++) {
		struct gresult r[2] = { { PINNED, BYTES, out },
					{ PINNED + BYTES, BYTES, acc } };
		for (uint32_t i = 0; i < N_ELEMS; i++) {
			acc[i] = k;
		}
		graph_launch(EXEC1, STREAM1, r, 2);
		stream_sync(STREAM1);
	}

	/* an explicit graph */
	CALL(cuGraphCreate, 0, NULL, NULL, GRAPH2, 0);
	CALL(cuGraphAddMemcpyNode, 0, ATT(.payload = in, .plen = BYTES), NULL,
	     NODE(1), GRAPH2, 0, 0, 0x9100, CTX,
	     0, 0, 0, 0, CU_MEMORYTYPE_HOST, HOST, 0, 0, BYTES, 1,
	     0, 0, 0, 0, CU_MEMORYTYPE_DEVICE, 0, A_IN, 0, BYTES, 1,
	     BYTES, 1, 1, DEPS0);
	CALL(cuGraphAddMemsetNode, 0, NULL, NULL, NODE(2), GRAPH2, 0x9000, 1,
	     0x9200, CTX, A_OUT, BYTES, 0, 4, N_ELEMS, 1, DEPS1(NODE(1)));
	scale_node_params(par, muls[0]);
	CALL(cuGraphAddKernelNode_v2, 0, ATT(.data = par, .len = 24), NULL,
	     NODE(3), GRAPH2, 0x9000, 2, 0x9300, K_SCALE,
	     (N_ELEMS + 255) / 256, 1, 1, 256, 1, 1, 0,
	     DEPS2(NODE(1), NODE(2)));
	CALL(cuGraphAddHostNode, 0, NULL, NULL, NODE(4), GRAPH2, 0x9000, 1,
	     0x9400, DEPS1(NODE(3)));
	CALL(cuGraphAddEmptyNode, 0, NULL, NULL, NODE(5), GRAPH2, 0x9000, 1,
	     DEPS1(NODE(4)));
	CALL(cuGraphCreate, 0, NULL, NULL, GRAPH3, 0);
	CALL(cuGraphAddKernelNode_v2, 0, ATT(.data = sp, .len = 16), NULL,
	     NODE(20), GRAPH3, 0, 0, 0x9500, K_INCR,
	     (N_ELEMS + 255) / 256, 1, 1, 256, 1, 1, 0, DEPS0);
	CALL(cuGraphAddChildGraphNode, 0, NULL, NULL, NODE(6), GRAPH2, 0x9000,
	     1, GRAPH3, DEPS1(NODE(5)));
	CALL(cuGraphAddMemcpyNode, 0, NULL, NULL, NODE(7), GRAPH2, 0, 0,
	     0x9600, CTX,
	     0, 0, 0, 0, CU_MEMORYTYPE_DEVICE, 0, A_OUT, 0, BYTES, 1,
	     0, 0, 0, 0, CU_MEMORYTYPE_HOST, PINNED + 2 * BYTES, 0, 0, BYTES,
	     1, BYTES, 1, 1, DEPS0);
	CALL(cuGraphAddDependencies_v2, 0, ATT(.data = edge, .len = 16), NULL,
	     GRAPH2, 0x9700, 0x9708, 0, 1);
	CALL(cuGraphAddEventRecordNode, 0, NULL, NULL, NODE(8), GRAPH2, 0x9000,
	     1, EVENT1, DEPS1(NODE(7)));
	CALL(cuGraphInstantiateWithFlags, 0, NULL, NULL, EXEC2, GRAPH2, 0);
	for (int round = 0; round < 4; round++) {
		uint32_t mul = muls[round < 3 ? round : 2];
		struct gresult r = { PINNED + 2 * BYTES, BYTES, out };
		if (round == 1) {
			/* the executable graph's node only */
			scale_node_params(par, muls[1]);
			CALL(cuGraphExecKernelNodeSetParams_v2, 0,
			     ATT(.data = par, .len = 24), NULL, EXEC2, NODE(3),
			     0x9800, K_SCALE, (N_ELEMS + 255) / 256, 1, 1, 256,
			     1, 1, 0);
		} else if (round == 2) {
			/* the graph's node, then the update */
			scale_node_params(par, muls[2]);
			CALL(cuGraphKernelNodeSetParams_v2, 0,
			     ATT(.data = par, .len = 24), NULL, NODE(3),
			     0x9800, K_SCALE, (N_ELEMS + 255) / 256, 1, 1, 256,
			     1, 1, 0);
			CALL(cuGraphExecUpdate_v2, 0, NULL, NULL, EXEC2, GRAPH2,
			     0x9900);
		} else if (round == 3) {
			CALL(cuGraphClone, 0, NULL, NULL, GRAPH4, GRAPH2);
			CALL(cuGraphInstantiateWithFlags, 0, NULL, NULL, EXEC3,
			     GRAPH4, 0);
		}
		for (uint32_t i = 0; i < N_ELEMS; i++) {
			out[i] = in[i] * mul + C_ADD + 1;
		}
		graph_launch(round == 3 ? EXEC3 : EXEC2, STREAM1, &r, 1);
		stream_sync(STREAM1);
	}
	CALL(cuGraphExecDestroy, 0, NULL, NULL, EXEC3);
	CALL(cuGraphExecDestroy, 0, NULL, NULL, EXEC2);
	CALL(cuGraphExecDestroy, 0, NULL, NULL, EXEC1);
	CALL(cuGraphDestroy, 0, NULL, NULL, GRAPH4);
	CALL(cuGraphDestroy, 0, NULL, NULL, GRAPH3);
	CALL(cuGraphDestroy, 0, NULL, NULL, GRAPH2);
	CALL(cuGraphDestroy, 0, NULL, NULL, GRAPH1);
	CALL(cuEventDestroy_v2, 0, NULL, NULL, EVENT1);
	CALL(cuStreamDestroy_v2, 0, NULL, NULL, STREAM1);
	CALL(cuMemFreeHost, 0, NULL, NULL, PINNED);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_IN);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_OUT);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_OUT2);
	free(out);
	free(acc);
	free(in);
}

/* A capture whose end fails: the stream no longer captures after it. */
static void graph_invalid(void)
{
	uint32_t *acc = malloc(BYTES);

	load_code();
	CALL(cuMemAlloc_v2, 0, NULL, NULL, A_OUT2, BYTES);
	CALL(cuMemAllocHost_v2, 0, NULL, NULL, PINNED, BYTES);
	CALL(cuStreamCreate, 0, NULL, NULL, STREAM1, CU_STREAM_NON_BLOCKING);
	CALL(cuStreamBeginCapture_v2, 0, NULL, NULL, STREAM1, 0);
	CALL(cuMemsetD32Async, 0, NULL, NULL, A_OUT2, 0, N_ELEMS, STREAM1);
	CALL(cuStreamEndCapture, CUDA_ERROR_STREAM_CAPTURE_INVALIDATED, NULL,
	     NULL, STREAM1, 0);
	CALL(cuMemsetD32Async, 0, NULL, NULL, A_OUT2, 5, N_ELEMS, STREAM1);
	for (uint32_t i = 0; i < N_ELEMS; i++) {
		acc[i] = 5;
	}
	d2h_async(PINNED, A_OUT2, acc, BYTES, STREAM1);
	stream_sync(STREAM1);
	CALL(cuStreamDestroy_v2, 0, NULL, NULL, STREAM1);
	CALL(cuMemFreeHost, 0, NULL, NULL, PINNED);
	CALL(cuMemFree_v2, 0, NULL, NULL, A_OUT2);
	free(acc);
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";
	unsigned long calls = 1000;

	image = (void *)tiny_ptx;
	for (int i = 2; i < argc; i++) {
		if (!strcmp(argv[i], "--fatbin") && i + 1 < argc) {
			image = read_fatbin(argv[++i]);
		} else if (!strcmp(argv[i], "--calls") && i + 1 < argc) {
			calls = strtoul(argv[++i], NULL, 10);
		} else {
			fprintf(stderr, "recon-emitter: bad argument '%s'\n",
				argv[i]);
			return 2;
		}
	}
	if (gm_capture_init(NULL)) {
		fprintf(stderr, "recon-emitter: not running under gpumix "
			"capture\n");
		return 3;
	}
	if (!strcmp(mode, "basic")) {
		basic();
	} else if (!strcmp(mode, "threads")) {
		threads();
	} else if (!strcmp(mode, "fork")) {
		fork_child();
	} else if (!strcmp(mode, "unsupported")) {
		unsupported_calls();
	} else if (!strcmp(mode, "reset")) {
		reset();
	} else if (!strcmp(mode, "bad-copy")) {
		bad_copy();
	} else if (!strcmp(mode, "event-reuse")) {
		event_reuse();
	} else if (!strcmp(mode, "clock")) {
		clock_results();
	} else if (!strcmp(mode, "fault")) {
		fault();
	} else if (!strcmp(mode, "untraced")) {
		untraced_kernel(LIB);
	} else if (!strcmp(mode, "cooperative")) {
		cooperative();
	} else if (!strcmp(mode, "pointer-global")) {
		pointer_global();
	} else if (!strcmp(mode, "pointer-table")) {
		pointer_table();
	} else if (!strcmp(mode, "vmm")) {
		vmm();
	} else if (!strcmp(mode, "unnamed")) {
		untraced_kernel(0);
	} else if (!strcmp(mode, "graphs")) {
		graphs();
	} else if (!strcmp(mode, "graph-invalid")) {
		graph_invalid();
	} else if (!strcmp(mode, "hostfunc")) {
		hostfunc_pools();
	} else if (!strcmp(mode, "bench")) {
		bench(calls);
	} else {
		fprintf(stderr, "usage: recon-emitter basic|threads|fork|"
			"unsupported|reset|bad-copy|fault|event-reuse|clock|untraced|unnamed|"
			"pointer-global|pointer-table|vmm|cooperative|graphs|"
			"graph-invalid|hostfunc|"
			"bench [--calls N] "
			"[--fatbin F]\n");
		gm_capture_finish(NULL);
		return 2;
	}
	gm_capture_finish(NULL);
	return 0;
}
