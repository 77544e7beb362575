/* SPDX-License-Identifier: MIT */
/*
 * gen-workload: builds replay models by hand, through the same model API
 * the trace reader drives (reconstruct/model/model.h), and writes a reconstruct
 * output directory. Stands in for captured bundles in the replay tests
 * and benchmark until real bundles are available.
 *
 *   gen-workload tiny  --fatbin F [--variant V] [--programs N]
 *                      [--bad-hash] [--nondeterministic] [--blocking]
 *                      [--cooperative] [--warm-result] -o DIR
 *       N programs (default 2) using every operation kind on the kernels
 *       of tests/gpu/replay_kernels.cu, all at the same captured device
 *       addresses (so relocation matters); results checked on the CPU.
 *   gen-workload hang  --fatbin F [--variant V] -o DIR
 *       one program whose kernel spins forever (watchdog test).
 *   gen-workload race  --fatbin F [--variant V] [--programs N] -o DIR
 *       N programs (default 2) whose results depend on cross-stream
 *       ordering: event waits between two non-blocking streams in both
 *       directions, the legacy stream against a blocking one,
 *       synchronous copies and memsets, event, stream and context
 *       synchronizations, a free that must wait, asynchronous results
 *       checked later, page-locked buffers and copies above 4 MiB.
 *       Results checked on the CPU; against the mock CUDA driver a
 *       replay that drops one of these dependencies fails.
 *   gen-workload bench --ops N --fatbin F -o DIR
 *       one program of about N operations (generation/build speed, and
 *       replay overhead with the real fatbin; results not verified).
 *   gen-workload hostgap --fatbin F [--variant V] [--programs N]
 *                        [--long-gap-ms MS] -o DIR
 *       N programs (default 1) of asynchronous memsets with captured host
 *       times from two captured threads: the gaps of hostgap_calls[]
 *       below (the long one MS instead of 150 ms), each memset of a size
 *       that names it (HOSTGAP_BYTES(k), tests/cli/replay_host_time.sh
 *       reads the mock driver's call log).
 *
 * --bad-hash corrupts the last expected result of the last program;
 * --nondeterministic marks that program as not verified; --blocking makes
 * the second stream a blocking one (legacy-stream semantics);
 * --cooperative launches the first kernel cooperatively; --warm-result
 * marks the synchronous result as copied into pages that were resident
 * (MODEL_HOST_WARM).
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "fs.h"
#include "hash.h"
#include "reconstruct/model/model.h"
#include "reconstruct/recon_dir.h"
#include "replay/gpumix_replay.h"
#include "strbuf.h"
#include "variant.h"

#define N_ELEMS (1u << 16)
#define BYTES ((uint64_t)N_ELEMS * 4)
#define LIB 0x1000
#define K_SCALE 0x2001
#define K_INCR 0x2002
#define K_TEX 0x2003
#define K_SPIN 0x2004
#define STREAM1 0x3001
#define EVENT1 0x4001
#define TEX1 0x5
#define A_IN 0x7f0000200000ull
#define A_OUT 0x7f0000400000ull
#define A_OUT2 0x7f0000600000ull
#define A_CADD 0x7f0000100000ull
#define C_ADD 7u

struct opts {
	const char *mode, *fatbin, *variant, *out;
	unsigned programs;
	int programs_given;
	uint64_t long_gap_ms;	/* hostgap: memset 7's gap (0: 150 ms) */
	uint64_t ops;
	int bad_hash, nondet, blocking, cooperative, warm_result;
};

static uint64_t ev;

#define TRY(x)                                                                 \
	do {                                                                   \
		if ((x) < 0) {                                                 \
			return -1;                                             \
		}                                                              \
	} while (0)

/* An operation that needs nothing but its operands (a synchronization):
 * model_add_op()'s 0 or -1. */
#define OP(...) (model_add_op(__VA_ARGS__) ? 0 : -1)

static int add_module(struct model_prog *p, const char *fatbin)
{
	struct strbuf sb = STRBUF_INIT;
	char hex[33];
	int ret;

	if (gm_read_file(fatbin, &sb) < 0) {
		return -1;
	}
	gm_hash_hex(gm_hash_bytes(sb.buf, sb.len), hex);
	ret = model_add_module(p, ev++, LIB, hex, sb.len, fatbin);
	strbuf_release(&sb);
	return ret;
}

static void hash_hex(const void *data, size_t len, char out[33])
{
	gm_hash_hex(gm_hash_bytes(data, len), out);
}

static int launch(struct model_prog *p, uint64_t kernel, uint64_t stream,
		  const void *params, uint32_t size, int coop)
{
	struct model_launch l;

	memset(&l, 0, sizeof(l));
	l.kernel = kernel;
	l.grid[0] = (N_ELEMS + 255) / 256;
	l.grid[1] = l.grid[2] = 1;
	l.block[0] = 256;
	l.block[1] = l.block[2] = 1;
	l.stream = stream;
	l.params = params;
	l.params_size = size;
	l.cooperative = coop;
	return model_add_launch(p, ev++, coop ? "cuLaunchCooperativeKernel" :
						"cuLaunchKernel", &l);
}

static int tiny_program(struct model *m, const struct opts *o, unsigned idx,
			int last)
{
	static const uint32_t scale_off[] = { 0, 8, 16, 20 };
	static const uint32_t scale_size[] = { 8, 8, 4, 4 };
	static const uint32_t incr_off[] = { 0 }, incr_size[] = { 16 };
	static const uint32_t tex_off[] = { 0, 8, 16 }, tex_size[] = { 8, 8, 4 };
	char name[32], h1[33], h2[33];
	uint32_t *in = malloc(BYTES), *out = malloc(BYTES), *out2 = malloc(BYTES);
	uint32_t blob_in, blob_c, mul = 3 + 2 * idx, cadd = C_ADD;
	struct model_prog *p;
	struct model_copy c;
	struct model_texture t;
	uint8_t par[24];
	int ret = -1;

	snprintf(name, sizeof(name), "scale-%c", 'a' + idx);
	ev = 0;
	p = model_add_program(m, name, "tests/gpu/replay_kernels.cu",
			      !(last && o->nondet));
	if (!p) {
		goto out;
	}
	for (uint32_t i = 0; i < N_ELEMS; i++) {
		in[i] = i * 2654435761u + idx;
		out[i] = in[i] * mul + C_ADD + 1;
	}
	hash_hex(out, BYTES, h1);
	for (uint32_t i = 0; i + 1 < N_ELEMS; i++) {
		out2[i] = out[i + 1];
	}
	out2[N_ELEMS - 1] = 0xdeadbeefu;
	hash_hex(out2, BYTES, h2);
	if (last && o->bad_hash) {
		h2[0] = h2[0] == '0' ? '1' : '0';
	}
	if (model_add_blob_bytes(m, in, BYTES, &blob_in) < 0 ||
	    model_add_blob_bytes(m, &cadd, 4, &blob_c) < 0 ||
	    add_module(p, o->fatbin) < 0 ||
	    model_add_kernel(p, ev++, K_SCALE, LIB, "_Z5scalePjPKjjj", 4,
			     scale_off, scale_size) < 0 ||
	    model_add_kernel(p, ev++, K_INCR, LIB, "_Z4incr4span", 1, incr_off,
			     incr_size) < 0 ||
	    model_add_kernel(p, ev++, K_TEX, LIB, "_Z8tex_copyPjyj", 3, tex_off,
			     tex_size) < 0 ||
	    model_add_global(p, ev++, LIB, "c_add", A_CADD, 4) < 0 ||
	    model_add_stream(p, ev++, STREAM1, !o->blocking, 0) < 0 ||
	    model_add_event(p, ev++, EVENT1, 2) < 0 ||
	    model_add_alloc(p, ev++, "cuMemAlloc_v2", A_IN, BYTES) < 0 ||
	    model_add_alloc(p, ev++, "cuMemAlloc_v2", A_OUT, BYTES) < 0 ||
	    model_add_alloc(p, ev++, "cuMemAlloc_v2", A_OUT2, BYTES) < 0) {
		goto out;
	}
	/* cudaMemcpyToSymbol(c_add) and the input */
	memset(&c, 0, sizeof(c));
	c.kind = MODEL_H2D;
	c.dst = A_CADD;
	c.src = 0x1000;
	c.size = 4;
	c.flags = MODEL_SYNC;
	c.blob = blob_c;
	if (model_add_copy(p, ev++, "cuMemcpyHtoD_v2", &c) < 0) {
		goto out;
	}
	c.dst = A_IN;
	c.size = BYTES;
	c.blob = blob_in;
	if (model_add_copy(p, ev++, "cuMemcpyHtoD_v2", &c) < 0) {
		goto out;
	}
	{
		uint64_t po = A_OUT, pi = A_IN;
		uint32_t n = N_ELEMS;
		memset(par, 0, sizeof(par));
		memcpy(par, &po, 8);
		memcpy(par + 8, &pi, 8);
		memcpy(par + 16, &mul, 4);
		memcpy(par + 20, &n, 4);
		if (launch(p, K_SCALE, 0, par, 24, o->cooperative) < 0) {
			goto out;
		}
	}
	{
		uint64_t span[2] = { A_OUT, N_ELEMS };
		if (launch(p, K_INCR, 0, span, 16, 0) < 0) {
			goto out;
		}
	}
	if (model_add_event_record(p, ev++, "cuEventRecord", EVENT1, 0) < 0 ||
	    model_add_stream_wait(p, ev++, "cuStreamWaitEvent", STREAM1,
				  EVENT1) < 0) {
		goto out;
	}
	memset(&t, 0, sizeof(t));
	t.res_type = 2;		/* LINEAR */
	t.addr = A_OUT;
	t.format = 0x0a;	/* UNSIGNED_INT32 */
	t.channels = 1;
	t.size_bytes = BYTES;
	t.flags = 1;		/* READ_AS_INTEGER */
	if (model_add_texture(p, ev++, "cuTexObjectCreate", TEX1, &t) < 0) {
		goto out;
	}
	{
		uint64_t po = A_OUT2, tex = TEX1;
		uint32_t n = N_ELEMS;
		memset(par, 0, sizeof(par));
		memcpy(par, &po, 8);
		memcpy(par + 8, &tex, 8);
		memcpy(par + 16, &n, 4);
		if (launch(p, K_TEX, STREAM1, par, 20, 0) < 0) {
			goto out;
		}
	}
	memset(&c, 0, sizeof(c));
	c.kind = MODEL_D2H;
	c.dst = 0x5000;
	c.src = A_OUT2;
	c.size = BYTES;
	c.stream = STREAM1;
	c.d2h_hash = h1;
	if (model_add_copy(p, ev++, "cuMemcpyDtoHAsync_v2", &c) < 0 ||
	    OP(p, ev++, "cuStreamSynchronize", GM_OP_STREAM_SYNC, STREAM1) < 0 ||
	    model_add_memset(p, ev++, "cuMemsetD32_v2", A_OUT2, 0xdeadbeefu, 4,
			     N_ELEMS, 0, 0) < 0) {
		goto out;
	}
	memset(&c, 0, sizeof(c));
	c.kind = MODEL_D2D;
	c.dst = A_OUT2;
	c.src = A_OUT + 4;	/* an interior pointer */
	c.size = BYTES - 4;
	if (model_add_copy(p, ev++, "cuMemcpyDtoD_v2", &c) < 0) {
		goto out;
	}
	memset(&c, 0, sizeof(c));
	c.kind = MODEL_D2H;
	c.dst = 0x5000;
	c.src = A_OUT2;
	c.size = BYTES;
	c.flags = MODEL_SYNC | (o->warm_result ? MODEL_HOST_WARM : 0);
	c.d2h_hash = h2;
	if (model_add_copy(p, ev++, "cuMemcpyDtoH_v2", &c) < 0 ||
	    model_destroy_texture(p, ev++, "cuTexObjectDestroy", TEX1) < 0 ||
	    model_add_free(p, ev++, "cuMemFree_v2", A_IN) < 0 ||
	    model_add_free(p, ev++, "cuMemFree_v2", A_OUT) < 0 ||
	    model_add_free(p, ev++, "cuMemFree_v2", A_OUT2) < 0 ||
	    OP(p, ev++, "cuCtxSynchronize", GM_OP_CTX_SYNC) < 0) {
		goto out;
	}
	ret = 0;
out:
	free(in);
	free(out);
	free(out2);
	return ret;
}

/*
 * The captured calls of the hostgap programs, in order: the thread that
 * made it, its host gap (since that thread's previous call returned;
 * a thread's first call has none) and how many memsets it is (a 2-D
 * memset is one per row; 0: a kernel launch). Memset k (from 0) is of
 * HOSTGAP_BYTES(k) bytes; tests/cli/replay_host_time.sh expects exactly
 * these gaps. Memset 9 waits for the launch before it (the same stream):
 * the nss scheduler holds it back until the kernel is done, which it
 * must see during the 300 ms the program spends before memset 10.
 */
#define HOSTGAP_BYTES(k) (4096u + 64u * (unsigned)(k))
static const struct {
	uint32_t tid;
	uint32_t gap_us;
	unsigned ops;
} hostgap_calls[] = {
	{ 101, 0, 1 },		/* memset 0 */
	{ 101, 30000, 1 },	/* memset 1: 30 ms */
	{ 202, 0, 1 },		/* memset 2: thread 202's first */
	{ 101, 5000, 1 },	/* memset 3 */
	{ 202, 60000, 1 },	/* memset 4: since memset 2 returned */
	{ 101, 10000, 2 },	/* memsets 5, 6: one call, the second no gap */
	{ 101, 150000, 1 },	/* memset 7: the long one (--long-gap-ms) */
	{ 202, 1000, 1 },	/* memset 8 */
	{ 101, 0, 0 },		/* a launch */
	{ 101, 0, 1 },		/* memset 9, after the kernel */
	{ 101, 300000, 1 },	/* memset 10 */
};

static int hostgap_program(struct model *m, const struct opts *o,
			   unsigned idx)
{
	static const uint32_t off[] = { 0, 8, 16, 20 }, size[] = { 8, 8, 4, 4 };
	uint64_t last[2] = { 0, 0 }, t = 1000000000ull;
	unsigned k = 0;
	char name[32];
	struct model_prog *p;

	snprintf(name, sizeof(name), "gaps-%c", 'a' + idx);
	ev = 0;
	p = model_add_program(m, name, "synthetic", 1);
	if (!p) {
		return -1;
	}
	/* Set-up: thread 101's first calls. */
	model_set_host_time(p, 101, t, t + 1000);
	last[0] = t + 1000;
	TRY(add_module(p, o->fatbin));
	TRY(model_add_kernel(p, ev++, K_SCALE, LIB, "_Z5scalePjPKjjj", 4, off,
			     size));
	TRY(model_add_alloc(p, ev++, "cuMemAlloc_v2", A_IN, 1 << 20));
	TRY(model_add_alloc(p, ev++, "cuMemAlloc_v2", A_OUT, BYTES));
	for (size_t c = 0; c < sizeof(hostgap_calls) / sizeof(*hostgap_calls);
	     c++) {
		int th = hostgap_calls[c].tid == 202;
		uint64_t gap = hostgap_calls[c].gap_us * 1000ull, in;

		if (gap == 150000000ull && o->long_gap_ms) {
			gap = o->long_gap_ms * 1000000ull;
		}
		in = last[th] ? last[th] + gap : t + 5000000;

		model_set_host_time(p, hostgap_calls[c].tid, in, in + 1000);
		last[th] = in + 1000;
		if (!hostgap_calls[c].ops) {
			uint64_t po = A_OUT, pi = A_IN;
			uint32_t mul = 3, n = N_ELEMS;
			uint8_t par[24];
			memcpy(par, &po, 8);
			memcpy(par + 8, &pi, 8);
			memcpy(par + 16, &mul, 4);
			memcpy(par + 20, &n, 4);
			TRY(launch(p, K_SCALE, 0, par, 24, 0));
			continue;
		}
		for (unsigned r = 0; r < hostgap_calls[c].ops; r++, k++) {
			TRY(model_add_memset(p, ev, "cuMemsetD8Async",
					     A_IN + 0x10000 * r, 0x5a, 1,
					     HOSTGAP_BYTES(k), 0, 0));
		}
		ev++;
	}
	TRY(OP(p, ev++, "cuCtxSynchronize", GM_OP_CTX_SYNC));
	return 0;
}

static int hang_program(struct model *m, const struct opts *o)
{
	static const uint32_t off[] = { 0 }, size[] = { 8 };
	struct model_prog *p = model_add_program(m, "spin", "tests/gpu/replay_kernels.cu", 1);
	uint64_t flag = A_IN;

	ev = 0;
	if (!p) {
		return -1;
	}
	TRY(add_module(p, o->fatbin));
	TRY(model_add_kernel(p, ev++, K_SPIN, LIB, "_Z4spinPVj", 1, off, size));
	TRY(model_add_alloc(p, ev++, "cuMemAlloc_v2", A_IN, 4));
	TRY(model_add_memset(p, ev++, "cuMemsetD32_v2", A_IN, 0, 4, 1, 0, 0));
	{
		struct model_launch l;
		memset(&l, 0, sizeof(l));
		l.kernel = K_SPIN;
		l.grid[0] = l.grid[1] = l.grid[2] = 1;
		l.block[0] = l.block[1] = l.block[2] = 1;
		l.params = &flag;
		l.params_size = 8;
		TRY(model_add_launch(p, ev++, "cuLaunchKernel", &l));
	}
	TRY(OP(p, ev++, "cuCtxSynchronize", GM_OP_CTX_SYNC));
	TRY(model_add_free(p, ev++, "cuMemFree_v2", A_IN));
	return 0;
}

/* ---- race: results that depend on cross-stream ordering ---- */

#define S1 0x3001	/* non-blocking */
#define S2 0x3002	/* non-blocking */
#define S3 0x3003	/* blocking: ordered with the legacy stream */
#define E1 0x4001
#define E2 0x4002
#define HOST_PINNED 0x9000000ull	/* a captured cuMemHostAlloc buffer */
#define BIG_ELEMS ((6u << 20) / 4 + 3)	/* above the 4 MiB copy chunk */

enum race_buf {
	R_IN, R_B, R_C, R_D, R_X, R_Y, R_BIG1, R_BIG2, R_NR
};

/*
 * A program under construction with, per device buffer, its captured
 * address and what it holds when the operations so far ran in program
 * order: the program synchronizes as a correct CUDA program must, so
 * that order is the only right one, and each result's hash comes from it.
 */
struct race {
	struct model *m;
	struct model_prog *p;
	uint64_t addr[R_NR];
	uint32_t n[R_NR];
	uint32_t *val[R_NR];
	uint64_t host;		/* next captured host address */
};

static int r_h2d(struct race *r, uint64_t stream, enum race_buf b,
		 const uint32_t *data, unsigned flags, int pinned)
{
	struct model_copy c;

	memset(&c, 0, sizeof(c));
	c.kind = MODEL_H2D;
	c.dst = r->addr[b];
	c.src = pinned ? HOST_PINNED : (r->host += 0x1000000);
	c.size = (uint64_t)r->n[b] * 4;
	c.stream = stream;
	c.flags = flags;
	TRY(model_add_blob_bytes(r->m, data, c.size, &c.blob));
	memcpy(r->val[b], data, c.size);
	return model_add_copy(r->p, ev++, (flags & MODEL_SYNC) ?
			      "cuMemcpyHtoD_v2" : "cuMemcpyHtoDAsync_v2", &c);
}

static int r_d2h(struct race *r, uint64_t stream, enum race_buf b,
		 unsigned flags, int pinned)
{
	struct model_copy c;
	char h[33];

	memset(&c, 0, sizeof(c));
	c.kind = MODEL_D2H;
	c.src = r->addr[b];
	c.dst = pinned ? HOST_PINNED : (r->host += 0x1000000);
	c.size = (uint64_t)r->n[b] * 4;
	c.stream = stream;
	c.flags = flags;
	hash_hex(r->val[b], c.size, h);
	c.d2h_hash = h;
	return model_add_copy(r->p, ev++, (flags & MODEL_SYNC) ?
			      "cuMemcpyDtoH_v2" : "cuMemcpyDtoHAsync_v2", &c);
}

static int r_d2d(struct race *r, uint64_t stream, enum race_buf dst,
		 enum race_buf src)
{
	struct model_copy c;

	memset(&c, 0, sizeof(c));
	c.kind = MODEL_D2D;
	c.dst = r->addr[dst];
	c.src = r->addr[src];
	c.size = (uint64_t)r->n[dst] * 4;
	c.stream = stream;
	memcpy(r->val[dst], r->val[src], c.size);
	return model_add_copy(r->p, ev++, "cuMemcpyDtoDAsync_v2", &c);
}

static int r_memset(struct race *r, uint64_t stream, enum race_buf b,
		    uint32_t v, unsigned flags)
{
	for (uint32_t i = 0; i < r->n[b]; i++) {
		r->val[b][i] = v;
	}
	return model_add_memset(r->p, ev++, (flags & MODEL_SYNC) ?
				"cuMemsetD32_v2" : "cuMemsetD32Async",
				r->addr[b], v, 4, r->n[b], stream, flags);
}

static int r_launch(struct race *r, uint64_t kernel, uint64_t stream,
		    uint32_t n, const void *params, uint32_t size)
{
	struct model_launch l;

	memset(&l, 0, sizeof(l));
	l.kernel = kernel;
	l.grid[0] = (n + 255) / 256;
	l.grid[1] = l.grid[2] = 1;
	l.block[0] = 256;
	l.block[1] = l.block[2] = 1;
	l.stream = stream;
	l.params = params;
	l.params_size = size;
	return model_add_launch(r->p, ev++, "cuLaunchKernel", &l);
}

/* out = in * mul + c_add */
static int r_scale(struct race *r, uint64_t stream, enum race_buf out,
		   enum race_buf in, uint32_t mul)
{
	uint32_t n = r->n[out];
	uint8_t par[24];

	for (uint32_t i = 0; i < n; i++) {
		r->val[out][i] = r->val[in][i] * mul + C_ADD;
	}
	memcpy(par, &r->addr[out], 8);
	memcpy(par + 8, &r->addr[in], 8);
	memcpy(par + 16, &mul, 4);
	memcpy(par + 20, &n, 4);
	return r_launch(r, K_SCALE, stream, n, par, sizeof(par));
}

static int r_incr(struct race *r, uint64_t stream, enum race_buf b)
{
	uint64_t span[2] = { r->addr[b], r->n[b] };

	for (uint32_t i = 0; i < r->n[b]; i++) {
		r->val[b][i]++;
	}
	return r_launch(r, K_INCR, stream, r->n[b], span, sizeof(span));
}

static int r_record(struct race *r, uint64_t event, uint64_t stream)
{
	return model_add_event_record(r->p, ev++, "cuEventRecord", event,
				      stream);
}

static int r_wait(struct race *r, uint64_t stream, uint64_t event)
{
	return model_add_stream_wait(r->p, ev++, "cuStreamWaitEvent", stream,
				     event);
}

static int r_sync(struct race *r, uint64_t stream)
{
	return OP(r->p, ev++, "cuStreamSynchronize", GM_OP_STREAM_SYNC, stream);
}

/* Deterministic per-program data. */
static void r_data(uint32_t *out, uint32_t n, uint32_t seed)
{
	for (uint32_t i = 0; i < n; i++) {
		out[i] = (i + seed) * 2654435761u ^ seed;
	}
}

/*
 * The scenarios, in program order. Each comment says which dependency
 * the result needs and what a replay that drops it computes instead
 * (the mock driver runs work late and in an adversarial order, so a
 * dropped dependency shows).
 */
static int race_ops(struct race *r, unsigned idx, uint32_t *tmp)
{
	uint32_t seed = 0x51 + 977 * idx, cadd = C_ADD;
	uint32_t blob_c;
	struct model_copy c;

	/* cudaMemcpyToSymbol(c_add) */
	TRY(model_add_blob_bytes(r->m, &cadd, 4, &blob_c));
	memset(&c, 0, sizeof(c));
	c.kind = MODEL_H2D;
	c.dst = A_CADD;
	c.src = 0x1000;
	c.size = 4;
	c.flags = MODEL_SYNC;
	c.blob = blob_c;
	TRY(model_add_copy(r->p, ev++, "cuMemcpyHtoD_v2", &c));

	/* A large upload on S1, a kernel on S2 after it through an event
	 * (without: the kernel scales the zeroed buffer). */
	r_data(tmp, r->n[R_BIG1], seed);
	TRY(r_h2d(r, S1, R_BIG1, tmp, 0, 0));
	TRY(r_record(r, E1, S1));
	TRY(r_wait(r, S2, E1));
	TRY(r_scale(r, S2, R_BIG2, R_BIG1, 3));
	TRY(r_d2h(r, S2, R_BIG2, 0, 0));
	TRY(r_sync(r, S2));

	/* A download on S2 of what a kernel on S1 wrote, ordered only by
	 * the wait (without: it copies the zeroed buffer). */
	r_data(tmp, r->n[R_IN], seed + 1);
	TRY(r_h2d(r, S1, R_IN, tmp, 0, 1));
	TRY(r_scale(r, S1, R_B, R_IN, 5));
	TRY(r_record(r, E2, S1));
	TRY(r_wait(r, S2, E2));
	TRY(r_d2h(r, S2, R_B, 0, 0));
	TRY(r_sync(r, S2));

	/* The other way: a kernel on S2 overwrites what a download on S1
	 * must read first (without the wait: the download sees the new
	 * values), checked at the later synchronization of S1. */
	TRY(r_d2h(r, S1, R_B, 0, 0));
	TRY(r_record(r, E1, S1));
	TRY(r_wait(r, S2, E1));
	TRY(r_incr(r, S2, R_B));
	TRY(r_sync(r, S2));
	TRY(r_sync(r, S1));
	TRY(r_d2h(r, S2, R_B, MODEL_SYNC, 0));

	/* Legacy stream 0 and the blocking stream S3 wait for each other
	 * without any event in the trace. */
	TRY(r_scale(r, S3, R_C, R_IN, 11));
	TRY(r_d2h(r, 0, R_C, 0, 1));
	TRY(r_sync(r, 0));
	TRY(r_incr(r, 0, R_C));
	TRY(r_d2h(r, S3, R_C, 0, 0));
	TRY(r_sync(r, S3));

	/* A synchronous upload (legacy stream) orders a kernel on S2 for
	 * the host: the replay must wait for the copy before going on. */
	r_data(tmp, r->n[R_D], seed + 2);
	TRY(r_h2d(r, 0, R_D, tmp, MODEL_SYNC, 0));
	TRY(r_scale(r, S2, R_B, R_D, 13));
	TRY(r_d2h(r, S2, R_B, MODEL_SYNC, 0));

	/* So does a synchronous memset. */
	TRY(r_memset(r, 0, R_C, 0x01010101u + idx, MODEL_SYNC));
	TRY(r_incr(r, S2, R_C));
	TRY(r_d2h(r, S2, R_C, MODEL_SYNC, 0));

	/* An event synchronization lets the host overwrite, from S2, what
	 * a download still queued on S1 before the event reads. */
	TRY(r_scale(r, S1, R_D, R_IN, 17));
	TRY(r_d2h(r, S1, R_D, 0, 0));
	TRY(r_record(r, E2, S1));
	TRY(OP(r->p, ev++, "cuEventSynchronize", GM_OP_EVENT_SYNC, E2));
	r_data(tmp, r->n[R_D], seed + 3);
	TRY(r_h2d(r, S2, R_D, tmp, MODEL_SYNC, 0));
	TRY(r_sync(r, S1));
	TRY(r_d2h(r, S2, R_D, MODEL_SYNC, 0));

	/* A context synchronization orders everything before it. */
	TRY(r_incr(r, S1, R_D));
	TRY(OP(r->p, ev++, "cuCtxSynchronize", GM_OP_CTX_SYNC));
	TRY(r_d2h(r, S2, R_D, MODEL_SYNC, 0));

	/* Freeing a buffer a queued kernel still reads: cuMemFree waited
	 * for the device, so its memory, recycled for the next allocation
	 * and overwritten from another stream, was not read any more. */
	TRY(model_add_alloc(r->p, ev++, "cuMemAlloc_v2", r->addr[R_X],
			    (uint64_t)r->n[R_X] * 4));
	r_data(tmp, r->n[R_X], seed + 4);
	TRY(r_h2d(r, S2, R_X, tmp, MODEL_SYNC, 0));
	TRY(r_scale(r, S1, R_B, R_X, 19));
	TRY(model_add_free(r->p, ev++, "cuMemFree_v2", r->addr[R_X]));
	TRY(model_add_alloc(r->p, ev++, "cuMemAlloc_v2", r->addr[R_Y],
			    (uint64_t)r->n[R_Y] * 4));
	r_data(tmp, r->n[R_Y], seed + 5);
	TRY(r_h2d(r, S2, R_Y, tmp, MODEL_SYNC, 0));
	TRY(r_d2h(r, S1, R_B, MODEL_SYNC, 0));

	/* Asynchronous downloads, and work queued after them on their
	 * stream, checked at the stream's synchronization. */
	TRY(r_d2h(r, S1, R_B, 0, 1));
	TRY(r_incr(r, S1, R_B));
	TRY(r_d2h(r, S1, R_B, 0, 0));
	TRY(r_sync(r, S1));

	/* A large device-to-device copy on S1 and a kernel on S2 after it,
	 * checked at the context synchronization. */
	TRY(r_d2d(r, S1, R_BIG1, R_BIG2));
	TRY(r_record(r, E1, S1));
	TRY(r_wait(r, S2, E1));
	TRY(r_incr(r, S2, R_BIG1));
	TRY(r_d2h(r, S2, R_BIG1, 0, 0));
	TRY(OP(r->p, ev++, "cuCtxSynchronize", GM_OP_CTX_SYNC));
	return 0;
}

static int race_program(struct model *m, const struct opts *o, unsigned idx)
{
	static const uint32_t scale_off[] = { 0, 8, 16, 20 };
	static const uint32_t scale_size[] = { 8, 8, 4, 4 };
	static const uint32_t incr_off[] = { 0 }, incr_size[] = { 16 };
	struct race r;
	char name[32];
	uint32_t *tmp = NULL;
	int ret = -1;

	memset(&r, 0, sizeof(r));
	r.m = m;
	for (int b = 0; b < R_NR; b++) {
		r.addr[b] = A_IN + (uint64_t)b * 0x2000000;
		r.n[b] = b >= R_BIG1 ? BIG_ELEMS : N_ELEMS;
		r.val[b] = calloc(r.n[b], 4);
		if (!r.val[b]) {
			gm_error("out of memory");
			goto out;
		}
	}
	tmp = malloc((uint64_t)BIG_ELEMS * 4);
	snprintf(name, sizeof(name), "race-%c", 'a' + idx);
	ev = 0;
	r.p = model_add_program(m, name, "tests/gpu/replay_kernels.cu", 1);
	if (!tmp || !r.p ||
	    add_module(r.p, o->fatbin) < 0 ||
	    model_add_kernel(r.p, ev++, K_SCALE, LIB, "_Z5scalePjPKjjj", 4,
			     scale_off, scale_size) < 0 ||
	    model_add_kernel(r.p, ev++, K_INCR, LIB, "_Z4incr4span", 1,
			     incr_off, incr_size) < 0 ||
	    model_add_global(r.p, ev++, LIB, "c_add", A_CADD, 4) < 0 ||
	    model_add_stream(r.p, ev++, S1, 1, 0) < 0 ||
	    model_add_stream(r.p, ev++, S2, 1, 0) < 0 ||
	    model_add_stream(r.p, ev++, S3, 0, 0) < 0 ||
	    model_add_event(r.p, ev++, E1, 2) < 0 ||
	    model_add_event(r.p, ev++, E2, 2) < 0 ||
	    model_add_host_alloc(r.p, ev++, HOST_PINNED,
				 (uint64_t)N_ELEMS * 4) < 0) {
		goto out;
	}
	for (int b = 0; b < R_NR; b++) {
		if (b != R_X && b != R_Y &&
		    model_add_alloc(r.p, ev++, "cuMemAlloc_v2", r.addr[b],
				    (uint64_t)r.n[b] * 4) < 0) {
			goto out;
		}
	}
	if (race_ops(&r, idx, tmp) < 0) {
		goto out;
	}
	for (int b = 0; b < R_NR; b++) {
		if (b != R_X &&
		    model_add_free(r.p, ev++, "cuMemFree_v2", r.addr[b]) < 0) {
			goto out;
		}
	}
	ret = model_add_host_free(r.p, ev++, HOST_PINNED);
out:
	for (int b = 0; b < R_NR; b++) {
		free(r.val[b]);
	}
	free(tmp);
	return ret;
}

/*
 * About @nr operations in the shape of an iterative GPU program: per
 * iteration an allocation, an upload, a few launches whose scalar
 * arguments change, a download and a free.
 */
static int bench_program(struct model *m, const struct opts *o)
{
	static const uint32_t off[] = { 0, 8, 16, 20 }, size[] = { 8, 8, 4, 4 };
	/* Synthetic results: nothing to verify. */
	struct model_prog *p = model_add_program(m, "bench", "synthetic", 0);
	uint8_t data[4096];
	uint32_t blob;

	ev = 0;
	if (!p) {
		return -1;
	}
	memset(data, 0x5a, sizeof(data));
	TRY(model_add_blob_bytes(m, data, sizeof(data), &blob));
	TRY(add_module(p, o->fatbin));
	TRY(model_add_kernel(p, ev++, K_SCALE, LIB, "_Z5scalePjPKjjj", 4, off,
			     size));
	TRY(model_add_alloc(p, ev++, "cuMemAlloc_v2", A_OUT, 1 << 20));
	for (uint64_t it = 0; p && ev < o->ops; it++) {
		uint64_t buf = A_IN + (it % 4) * 0x10000;
		struct model_copy c;
		uint8_t par[24];
		uint64_t po = A_OUT, pi = buf;
		uint32_t mul = (uint32_t)(it % 1000), n = 1024;

		TRY(model_add_alloc(p, ev++, "cuMemAlloc_v2", buf, 4096));
		memset(&c, 0, sizeof(c));
		c.kind = MODEL_H2D;
		c.dst = buf;
		c.size = 4096;
		c.flags = MODEL_SYNC;
		c.blob = blob;
		TRY(model_add_copy(p, ev++, "cuMemcpyHtoD_v2", &c));
		memcpy(par, &po, 8);
		memcpy(par + 8, &pi, 8);
		memcpy(par + 16, &mul, 4);
		memcpy(par + 20, &n, 4);
		for (int k = 0; k < 5; k++) {
			struct model_launch l;
			memset(&l, 0, sizeof(l));
			l.kernel = K_SCALE;
			l.grid[0] = 4 + k;
			l.grid[1] = l.grid[2] = 1;
			l.block[0] = 256;
			l.block[1] = l.block[2] = 1;
			l.params = par;
			l.params_size = 24;
			TRY(model_add_launch(p, ev++, "cuLaunchKernel", &l));
		}
		memset(&c, 0, sizeof(c));
		c.kind = MODEL_D2H;
		c.src = A_OUT;
		c.size = 4096;
		c.flags = MODEL_SYNC;
		c.d2h_hash = "0123456789abcdef0123456789abcdef";
		TRY(model_add_copy(p, ev++, "cuMemcpyDtoH_v2", &c));
		TRY(model_add_free(p, ev++, "cuMemFree_v2", buf));
	}
	return 0;
}

static int usage(void)
{
	fprintf(stderr, "usage: gen-workload tiny|hang|race|bench|hostgap --fatbin F "
		"[--variant V] [--programs N] [--ops N] [--bad-hash] "
		"[--nondeterministic] [--blocking] [--cooperative] [--warm-result] "
		"[--long-gap-ms MS] "
		"-o DIR\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct opts o = { .programs = 2, .ops = 1000000 };
	struct model *m;
	struct strbuf report = STRBUF_INIT;
	struct timespec t0, t1, t2;
	int ret = 0;

	if (argc < 2) {
		return usage();
	}
	o.mode = argv[1];
	for (int i = 2; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "--fatbin") && i + 1 < argc) {
			o.fatbin = argv[++i];
		} else if (!strcmp(a, "--variant") && i + 1 < argc) {
			o.variant = argv[++i];
		} else if (!strcmp(a, "--programs") && i + 1 < argc) {
			o.programs = (unsigned)atoi(argv[++i]);
			o.programs_given = 1;
		} else if (!strcmp(a, "--ops") && i + 1 < argc) {
			o.ops = strtoull(argv[++i], NULL, 10);
		} else if (!strcmp(a, "-o") && i + 1 < argc) {
			o.out = argv[++i];
		} else if (!strcmp(a, "--bad-hash")) {
			o.bad_hash = 1;
		} else if (!strcmp(a, "--nondeterministic")) {
			o.nondet = 1;
		} else if (!strcmp(a, "--blocking")) {
			o.blocking = 1;
		} else if (!strcmp(a, "--cooperative")) {
			o.cooperative = 1;
		} else if (!strcmp(a, "--long-gap-ms") && i + 1 < argc) {
			o.long_gap_ms = strtoull(argv[++i], NULL, 10);
		} else if (!strcmp(a, "--warm-result")) {
			o.warm_result = 1;
		} else {
			return usage();
		}
	}
	if (!o.out || !o.fatbin) {
		return usage();
	}
	if (!o.variant) {
		/* What gpumix reconstruct writes without --variant. */
		o.variant = gm_variant_with(GM_VARIANT_REFERENCE)->name;
	}
	const struct gm_variant *v = gm_variant_find(o.variant);
	if (!v || !v->implemented) {
		fprintf(stderr, "gen-workload: '%s' is not an implemented "
			"variant (%s)\n", o.variant,
			gm_variant_implemented_list());
		return usage();
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	m = model_new(NULL, o.variant);
	if (!strcmp(o.mode, "tiny")) {
		for (unsigned i = 0; i < o.programs && !ret; i++) {
			ret = tiny_program(m, &o, i, i + 1 == o.programs);
		}
	} else if (!strcmp(o.mode, "race")) {
		for (unsigned i = 0; i < o.programs && !ret; i++) {
			ret = race_program(m, &o, i);
		}
	} else if (!strcmp(o.mode, "hang")) {
		ret = hang_program(m, &o);
	} else if (!strcmp(o.mode, "bench")) {
		ret = bench_program(m, &o);
	} else if (!strcmp(o.mode, "hostgap")) {
		unsigned n = o.programs_given ? o.programs : 1;
		for (unsigned i = 0; i < n && !ret; i++) {
			ret = hostgap_program(m, &o, i);
		}
	} else {
		model_free(m);
		return usage();
	}
	if (!ret) {
		ret = model_finish(m);
	}
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if (!ret) {
		ret = recon_dir_write(m, o.out,
				      &(struct recon_dir_opts){ .force = 1 });
	}
	clock_gettime(CLOCK_MONOTONIC, &t2);
	if (ret) {
		gm_error_report(stderr);
		model_free(m);
		return 1;
	}
	model_report(m, &report);
	fputs(report.buf, stderr);
	fprintf(stderr, "gen-workload: model %.2f s, write %.2f s\n",
		(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
		(t2.tv_sec - t1.tv_sec) + (t2.tv_nsec - t1.tv_nsec) / 1e9);
	strbuf_release(&report);
	model_free(m);
	return 0;
}
