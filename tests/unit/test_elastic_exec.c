/* SPDX-License-Identifier: MIT */
/*
 * The elastic transformation, executed: every elastic kernel of the
 * corpus (the .cu files of tests/data/ptx; "gpumix-test:" lines give the
 * launch) runs
 * in a small PTX interpreter (ptx_interp.h), first as the original, then
 * transformed, with elasticity off and with many physical grids, blocks,
 * offset/limit ranges and the completion notification; every result must
 * be bit-identical to the original's, and the notification must set the
 * flag and reset the counter. With the block probe on, each logical block
 * of a launch must leave exactly its record (slot block - offset: a
 * start, a duration, the SM of the physical block that ran it) and no
 * slot past the capacity may be written. This is the CPU-side stand-in for the GPU
 * test (tests/gpu/elastic.sh), which runs the same cases on hardware.
 */
#include <dirent.h>
#include <stdlib.h>
#include <string.h>

#include "elastic_abi.h"
#include "error.h"
#include "fs.h"
#include "ptx_interp.h"
#include "reconstruct/ptx/ptx_analysis.h"
#include "reconstruct/ptx/ptx_elastic.h"
#include "reconstruct/ptx/ptx_module.h"
#include "strbuf.h"
#include "test.h"

struct spec {
	char name[64];
	uint32_t grid[3], block[3];
	size_t smem;
	uint32_t n, out;
};

static const char *top(void)
{
	const char *t = getenv("GPUMIX_TOP");
	return t && *t ? t : ".";
}

/* One launch of @name in @m; the parameters (out, in, n[, args]). */
static int run(const struct gm_ptx_module *m, const char *name,
	       const uint32_t grid[3], const uint32_t block[3], size_t smem,
	       uint32_t *out, const uint32_t *in, uint32_t n,
	       const struct gm_elastic_args *args, char *err, size_t errlen)
{
	struct pi_vm vm;
	unsigned char params[128];
	struct pi_kernel_launch l;
	int r;

	memset(params, 0, sizeof(params));
	uint64_t po = (uint64_t)(uintptr_t)out, pi = (uint64_t)(uintptr_t)in;
	memcpy(params, &po, 8);
	memcpy(params + 8, &pi, 8);
	memcpy(params + 16, &n, 4);
	if (args) {
		memcpy(params + 24, args, sizeof(*args));	/* align 8 after 20 bytes */
	}
	memset(&l, 0, sizeof(l));
	memcpy(l.grid, grid, sizeof(l.grid));
	memcpy(l.block, block, sizeof(l.block));
	l.dyn_smem = smem;
	l.params = params;
	l.params_size = sizeof(params);
	pi_init(&vm, m);
	r = pi_launch(&vm, name, &l);
	snprintf(err, errlen, "%s", vm.err);
	pi_release(&vm);
	return r;
}

static void args_for(struct gm_elastic_args *a, const struct spec *s,
		     uint32_t offset, uint32_t limit, uint32_t *flag,
		     uint32_t *count)
{
	memset(a, 0, sizeof(*a));
	memcpy(a->grid, s->grid, sizeof(a->grid));
	memcpy(a->block, s->block, sizeof(a->block));
	a->offset = offset;
	a->limit = limit;
	a->done_flag = (uint64_t)(uintptr_t)flag;
	a->done_count = (uint64_t)(uintptr_t)count;
}

struct ctx {
	const struct gm_ptx_module *orig, *el;
	const struct spec *s;
	const uint32_t *in;
	const uint32_t *ref;
	uint32_t *out;
	size_t nout;
};

/* Probe guard slots after the capacity: never written. */
#define GUARD 2

/*
 * The probe records of one launch of @c's kernel on @grid x @block for
 * (@offset, @n blocks), with @cap slots: each of the first min(n, cap)
 * written once (start, duration, an SM of the interpreter; on the
 * identity path and in a loop whose threads each run one logical block,
 * the SM of the physical block that ran it), nothing after them. 0, or
 * -1 with @err set.
 */
static int check_probe(const struct ctx *c, const struct gm_probe_rec *rec,
		       uint32_t cap, const uint32_t grid[3],
		       const uint32_t block[3], uint32_t offset, uint32_t n,
		       char *err, size_t errlen)
{
	uint32_t nphys = grid[0] * grid[1] * grid[2];
	uint32_t bt = block[0] * block[1] * block[2];
	uint32_t lt = c->s->block[0] * c->s->block[1] * c->s->block[2];

	for (uint32_t i = 0; i < cap + GUARD; i++) {
		const struct gm_probe_rec *r = &rec[i];
		uint32_t want_sm = ((i % nphys)) % PI_SMS;
		if (i >= cap || i >= n) {
			if (r->start || r->dur || r->sm) {
				snprintf(err, errlen, "slot %u of %u written", i, cap);
				return -1;
			}
			continue;
		}
		if (!r->start || r->sm >= PI_SMS || r->dur == UINT32_MAX) {
			snprintf(err, errlen, "block %u: start %llu, duration %u, SM %u",
				 offset + i, (unsigned long long)r->start, r->dur, r->sm);
			return -1;
		}
		if (bt == lt && r->sm != want_sm) {
			snprintf(err, errlen, "block %u ran on SM %u, not %u",
				 offset + i, r->sm, want_sm);
			return -1;
		}
	}
	return 0;
}

/*
 * Run the transformed kernel as a sequence of launches and compare; with
 * @probe (1: a slot per block, 2: one slot short), check the records.
 */
static void check_run_probe(struct ctx *c, const char *what, int nlaunch,
			    const uint32_t (*grids)[3], const uint32_t (*blocks)[3],
			    const uint32_t *offsets, const uint32_t *limits,
			    int notify, int probe)
{
	char label[256], err[512] = "";
	int ok = 1;
	uint32_t flag = 0, count = 0;
	uint32_t total = c->s->grid[0] * c->s->grid[1] * c->s->grid[2];

	memset(c->out, 0, c->nout * sizeof(uint32_t));
	for (int i = 0; i < nlaunch && ok; i++) {
		struct gm_elastic_args a;
		struct gm_probe_rec *rec = NULL;
		uint32_t n = offsets[i] >= total ? 0 :
			     limits[i] < total - offsets[i] ? limits[i] :
							      total - offsets[i];
		uint32_t cap = probe == 2 && n ? n - 1 : n;
		flag = 0;
		args_for(&a, c->s, offsets[i], limits[i], notify ? &flag : NULL,
			 notify ? &count : NULL);
		if (probe) {
			rec = calloc(cap + GUARD, sizeof(*rec));
			a.probe = (uint64_t)(uintptr_t)rec;
			a.probe_cap = cap;
		}
		if (run(c->el, c->s->name, grids[i], blocks[i], c->s->smem, c->out, c->in,
			c->s->n, &a, err, sizeof(err)) < 0) {
			ok = 0;
		}
		if (ok && notify && (flag != 1 || count != 0)) {
			snprintf(err, sizeof(err), "launch %d: flag %u, counter %u", i,
				 flag, count);
			ok = 0;
		}
		if (ok && probe &&
		    check_probe(c, rec, cap, grids[i], blocks[i], offsets[i], n,
				err, sizeof(err)) < 0) {
			ok = 0;
		}
		free(rec);
	}
	size_t bad = 0;
	if (ok) {
		for (size_t i = 0; i < c->nout; i++) {
			if (c->out[i] != c->ref[i]) {
				if (!bad) {
					snprintf(err, sizeof(err),
						 "word %zu: %#x, original %#x", i,
						 c->out[i], c->ref[i]);
				}
				bad++;
			}
		}
	}
	snprintf(label, sizeof(label), "%.63s: %.180s", c->s->name, what);
	CHECK(ok && !bad, label);
	if (!ok || bad) {
		printf("#   %s%s\n", err, bad > 1 ? " (and more)" : "");
	}
}

static void one_probe(struct ctx *c, const char *what, uint32_t gx,
		      uint32_t gy, uint32_t gz, uint32_t bx, uint32_t by,
		      uint32_t bz, uint32_t offset, uint32_t limit, int notify,
		      int probe)
{
	uint32_t g[1][3] = { { gx, gy, gz } }, b[1][3] = { { bx, by, bz } };
	check_run_probe(c, what, 1, g, b, &offset, &limit, notify, probe);
}

static void one(struct ctx *c, const char *what, uint32_t gx, uint32_t gy,
		uint32_t gz, uint32_t bx, uint32_t by, uint32_t bz,
		uint32_t offset, uint32_t limit, int notify)
{
	one_probe(c, what, gx, gy, gz, bx, by, bz, offset, limit, notify, 0);
}

/* Timeslices of @per blocks on physical grids of @phys blocks of @bx. */
static void slices_probe(struct ctx *c, const char *what, uint32_t per,
			 uint32_t phys, uint32_t bx, uint32_t by, uint32_t bz,
			 int notify, int probe)
{
	uint32_t total = c->s->grid[0] * c->s->grid[1] * c->s->grid[2];
	int n = (int)((total + per - 1) / per);
	uint32_t (*g)[3] = calloc((size_t)n, sizeof(*g));
	uint32_t (*b)[3] = calloc((size_t)n, sizeof(*b));
	uint32_t *off = calloc((size_t)n, sizeof(*off));
	uint32_t *lim = calloc((size_t)n, sizeof(*lim));

	for (int i = 0; i < n; i++) {
		g[i][0] = phys;
		g[i][1] = g[i][2] = 1;
		b[i][0] = bx;
		b[i][1] = by;
		b[i][2] = bz;
		off[i] = (uint32_t)i * per;
		lim[i] = i == n - 1 ? UINT32_MAX : per;	/* the last: "the rest" */
	}
	check_run_probe(c, what, n, (const uint32_t (*)[3])g,
			(const uint32_t (*)[3])b, off, lim, notify, probe);
	free(g);
	free(b);
	free(off);
	free(lim);
}

static void slices(struct ctx *c, const char *what, uint32_t per, uint32_t phys,
		   uint32_t bx, uint32_t by, uint32_t bz, int notify)
{
	slices_probe(c, what, per, phys, bx, by, bz, notify, 0);
}

static void test_kernel(const struct gm_ptx_module *orig,
			const struct gm_ptx_module *el,
			const struct gm_ptx_kernel_info *k, const struct spec *s)
{
	uint32_t total_blocks = s->grid[0] * s->grid[1] * s->grid[2];
	uint32_t bt = s->block[0] * s->block[1] * s->block[2];
	size_t nin = (size_t)total_blocks * bt + s->n + 64;
	uint32_t *in = calloc(nin, sizeof(uint32_t));
	uint32_t *ref = calloc(s->out + 64, sizeof(uint32_t));
	uint32_t *out = calloc(s->out + 64, sizeof(uint32_t));
	char err[512], label[400];
	struct ctx c = { orig, el, s, in, ref, out, s->out + 64 };

	for (size_t i = 0; i < nin; i++) {
		in[i] = (uint32_t)(i * 2654435761u) ^ (uint32_t)(i >> 3);
	}
	snprintf(label, sizeof(label), "%.63s: the original runs", s->name);
	if (!CHECK(run(orig, s->name, s->grid, s->block, s->smem, ref, in, s->n,
		       NULL, err, sizeof(err)) == 0, label)) {
		printf("#   %s\n", err);
		goto out;
	}
	/* the interpreter itself, on kernels whose result is known */
	if (!strcmp(s->name, "vecadd")) {
		int good = 1;
		for (uint32_t i = 0; i < s->out; i++) {
			good &= ref[i] == (i < s->n ? in[i] * 3u + i : 0);
		}
		CHECK(good, "interpreter: vecadd computes in * 3 + i");
	} else if (!strcmp(s->name, "reduce_shared")) {
		int good = 1;
		for (uint32_t b = 0; b < s->grid[0]; b++) {
			uint32_t sum = 0;
			for (uint32_t t = 0; t < 256; t++) {
				sum += b * 256 + t < s->n ? in[b * 256 + t] : 0;
			}
			good &= ref[b] == sum;
		}
		CHECK(good, "interpreter: reduce_shared sums each block");
	} else if (!strcmp(s->name, "shuffle")) {
		int good = 1;
		for (uint32_t w = 0; w < s->out; w++) {
			uint32_t sum = 0;
			for (uint32_t l = 0; l < 32; l++) {
				sum += in[w * 32 + l];
			}
			good &= ref[w] == sum;
		}
		CHECK(good, "interpreter: shuffle sums each warp");
	}
	const uint32_t *G = s->grid, *B = s->block;
	one(&c, "elasticity off", G[0], G[1], G[2], B[0], B[1], B[2], 0, UINT32_MAX, 0);
	one(&c, "elasticity off, notification on", G[0], G[1], G[2], B[0], B[1], B[2],
	    0, UINT32_MAX, 1);
	one(&c, "1-D physical grid of every block", total_blocks, 1, 1, B[0], B[1], B[2],
	    0, total_blocks, 1);
	one(&c, "one physical block", 1, 1, 1, B[0], B[1], B[2], 0, UINT32_MAX, 1);
	one(&c, "three physical blocks", 3, 1, 1, B[0], B[1], B[2], 0, total_blocks, 0);
	one(&c, "a 2-D physical grid of 2x2", 2, 2, 1, B[0], B[1], B[2], 0, UINT32_MAX, 1);
	one(&c, "more physical than logical blocks", total_blocks + 5, 1, 1, B[0], B[1],
	    B[2], 0, UINT32_MAX, 1);
	slices(&c, "timeslices of 1 block", 1, 1, B[0], B[1], B[2], 0);
	slices(&c, "timeslices of 5 blocks on 2", 5, 2, B[0], B[1], B[2], 1);
	slices(&c, "timeslices of 7 blocks on 7", 7, 7, B[0], B[1], B[2], 0);
	/* the block probe: one record per logical block, results unchanged */
	one_probe(&c, "probe, elasticity off", G[0], G[1], G[2], B[0], B[1], B[2],
		  0, UINT32_MAX, 1, 1);
	one_probe(&c, "probe, elasticity off, one slot short", G[0], G[1], G[2],
		  B[0], B[1], B[2], 0, UINT32_MAX, 0, 2);
	one_probe(&c, "probe, three physical blocks", 3, 1, 1, B[0], B[1], B[2], 0,
		  total_blocks, 1, 1);
	one_probe(&c, "probe, a 2-D physical grid of 2x2, one slot short", 2, 2, 1,
		  B[0], B[1], B[2], 0, UINT32_MAX, 0, 2);
	slices_probe(&c, "probe, timeslices of 5 blocks on 2", 5, 2, B[0], B[1],
		     B[2], 0, 1);
	if (k->cls == GM_ELASTIC_THREAD) {
		one_probe(&c, "probe, 32-thread physical blocks", 3, 1, 1, 32, 1, 1, 0,
			  UINT32_MAX, 0, 1);
		slices_probe(&c, "probe, timeslices of 3 blocks on 2 x 48 threads", 3,
			     2, 48, 1, 1, 1, 1);
	}
	if (k->cls == GM_ELASTIC_THREAD) {
		one(&c, "32-thread physical blocks", 3, 1, 1, 32, 1, 1, 0, UINT32_MAX, 1);
		one(&c, "96-thread physical blocks", 2, 1, 1, 96, 1, 1, 0, UINT32_MAX, 0);
		one(&c, "33-thread physical block", 1, 1, 1, 33, 1, 1, 0, UINT32_MAX, 1);
		one(&c, "a larger physical block", 1, 1, 1, bt * 2 > 1024 ? 1024 : bt * 2, 1, 1,
		    0, UINT32_MAX, 0);
		one(&c, "a 64x2 physical block", 2, 1, 1, 64, 2, 1, 0, UINT32_MAX, 1);
		one(&c, "physical block of the logical size but 1-D", 2, 1, 1, bt, 1, 1, 0,
		    UINT32_MAX, 0);
		slices(&c, "timeslices of 3 blocks on 2 x 48 threads", 3, 2, 48, 1, 1, 1);
	}
out:
	free(in);
	free(ref);
	free(out);
}

static int read_specs(const char *cu, struct spec *specs, int max)
{
	struct strbuf sb = STRBUF_INIT;
	int n = 0;

	if (gm_read_file(cu, &sb) < 0) {
		gm_error_clear();
		return 0;
	}
	for (char *p = strstr(sb.buf, "gpumix-test:"); p && n < max;
	     p = strstr(p + 1, "gpumix-test:")) {
		struct spec *s = &specs[n];
		memset(s, 0, sizeof(*s));
		if (sscanf(p, "gpumix-test: %63s grid=%u,%u,%u block=%u,%u,%u smem=%zu n=%u out=%u",
			   s->name, &s->grid[0], &s->grid[1], &s->grid[2], &s->block[0],
			   &s->block[1], &s->block[2], &s->smem, &s->n, &s->out) == 10) {
			n++;
		}
	}
	strbuf_release(&sb);
	return n;
}

int main(void)
{
	char *dir = gm_xasprintf("%s/tests/data/ptx", top());
	DIR *d = opendir(dir);
	struct dirent *e;
	int ran = 0;

	if (!CHECK(d != NULL, "the corpus directory exists")) {
		free(dir);
		return test_done();
	}
	while ((e = readdir(d))) {
		size_t len = strlen(e->d_name);
		if (len < 4 || strcmp(e->d_name + len - 3, ".cu")) {
			continue;
		}
		struct spec specs[32];
		char *cu = gm_path_join(dir, e->d_name);
		char *ptx = gm_xasprintf("%.*s.ptx", (int)(strlen(cu) - 3), cu);
		int ns = read_specs(cu, specs, 32);
		struct strbuf text = STRBUF_INIT, out = STRBUF_INIT;
		struct gm_ptx_module orig, el;
		struct gm_ptx_analysis a = { 0 };
		memset(&orig, 0, sizeof(orig));
		memset(&el, 0, sizeof(el));
		if (ns && gm_read_file(ptx, &text) == 0 &&
		    gm_ptx_module_parse(&orig, text.buf, text.len) == 0 &&
		    gm_ptx_analyze(&orig, &a) == 0 &&
		    gm_ptx_elastic_transform(&orig, &a, NULL, &out) >= 0 &&
		    gm_ptx_module_parse(&el, out.buf, out.len) == 0) {
			for (int i = 0; i < ns; i++) {
				for (size_t k = 0; k < a.nr_kernels; k++) {
					if (strcmp(a.kernels[k].name, specs[i].name) ||
					    a.kernels[k].cls == GM_ELASTIC_NONE) {
						continue;
					}
					test_kernel(&orig, &el, &a.kernels[k], &specs[i]);
					ran++;
				}
			}
		} else if (ns) {
			CHECK(0, ptx);
			gm_error_report(stdout);
		}
		gm_ptx_analysis_release(&a);
		gm_ptx_module_release(&orig);
		gm_ptx_module_release(&el);
		strbuf_release(&text);
		strbuf_release(&out);
		free(cu);
		free(ptx);
	}
	closedir(d);
	free(dir);
	CHECK(ran >= 15, "at least 15 elastic corpus kernels ran");
	return test_done();
}
