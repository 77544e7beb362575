/* SPDX-License-Identifier: MIT */
/*
 * gen-workload: builds replay models by hand, through the same model API
 * the trace reader drives (reconstruct/model.h), and writes a reconstruct
 * output directory. Stands in for captured bundles in the replay tests
 * and benchmark until real bundles are available.
 *
 *   gen-workload tiny  --fatbin F [--variant V] [--programs N]
 *                      [--bad-hash] [--nondeterministic] [--blocking]
 *                      [--cooperative] -o DIR
 *       N programs (default 2) using every operation kind on the kernels
 *       of tests/gpu/replay_kernels.cu, all at the same captured device
 *       addresses (so relocation matters); results checked on the CPU.
 *   gen-workload hang  --fatbin F [--variant V] -o DIR
 *       one program whose kernel spins forever (watchdog test).
 *   gen-workload bench --ops N --fatbin F -o DIR
 *       one program of about N operations (generation/build speed, and
 *       replay overhead with the real fatbin; results not verified).
 *
 * --bad-hash corrupts the last expected result of the last program;
 * --nondeterministic marks that program as not verified; --blocking makes
 * the second stream a blocking one (legacy-stream semantics);
 * --cooperative launches the first kernel cooperatively.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "fs.h"
#include "hash.h"
#include "reconstruct/model.h"
#include "reconstruct/recon_dir.h"
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
	uint64_t ops;
	int bad_hash, nondet, blocking, cooperative;
};

static uint64_t ev;

#define TRY(x)                                                                 \
	do {                                                                   \
		if ((x) < 0) {                                                 \
			return -1;                                             \
		}                                                              \
	} while (0)

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
	    model_add_stream_sync(p, ev++, "cuStreamSynchronize", STREAM1) < 0 ||
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
	c.flags = MODEL_SYNC;
	c.d2h_hash = h2;
	if (model_add_copy(p, ev++, "cuMemcpyDtoH_v2", &c) < 0 ||
	    model_destroy_texture(p, ev++, "cuTexObjectDestroy", TEX1) < 0 ||
	    model_add_free(p, ev++, "cuMemFree_v2", A_IN) < 0 ||
	    model_add_free(p, ev++, "cuMemFree_v2", A_OUT) < 0 ||
	    model_add_free(p, ev++, "cuMemFree_v2", A_OUT2) < 0 ||
	    model_add_ctx_sync(p, ev++, "cuCtxSynchronize") < 0) {
		goto out;
	}
	ret = 0;
out:
	free(in);
	free(out);
	free(out2);
	return ret;
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
	TRY(model_add_ctx_sync(p, ev++, "cuCtxSynchronize"));
	TRY(model_add_free(p, ev++, "cuMemFree_v2", A_IN));
	return 0;
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
	fprintf(stderr, "usage: gen-workload tiny|hang|bench --fatbin F "
		"[--variant V] [--programs N] [--ops N] [--bad-hash] "
		"[--nondeterministic] [--blocking] [--cooperative] -o DIR\n");
	return 2;
}

int main(int argc, char **argv)
{
	struct opts o = { NULL, NULL, NULL, NULL, 2, 1000000, 0, 0, 0, 0 };
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
	} else if (!strcmp(o.mode, "hang")) {
		ret = hang_program(m, &o);
	} else if (!strcmp(o.mode, "bench")) {
		ret = bench_program(m, &o);
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
