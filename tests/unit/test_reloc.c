/* SPDX-License-Identifier: MIT */
/*
 * Pointer relocation: the address map, the candidate-word rule, the
 * classification of values, the per-position verdicts, and the model's
 * final parameter buffers for pointers inside struct parameters, interior
 * pointers, values that only look like pointers, pointers into freed
 * memory, one-past-the-end pointers and texture object handles.
 */
#include <stdlib.h>

#include "reconstruct/model/addr_map.h"
#include "reconstruct/model/handle_map.h"
#include "reconstruct/model/model_int.h"
#include "reconstruct/model/reloc.h"
#include "error.h"
#include "test.h"

#define A0 0x7f0000000000ull
#define A1 0x7f0000100000ull

static void test_addr_map(void)
{
	struct addr_map am = ADDR_MAP_INIT;
	struct addr_region r = { A0, 4096, GM_REF_ALLOC, 0, 1 };
	const struct addr_region *f;

	CHECK_INT(addr_map_add(&am, &r), 0, "add a region");
	r.start = A0 + 4000;
	r.id = 1;
	CHECK(addr_map_add(&am, &r) < 0, "overlap refused");
	CHECK(strstr(gm_error_message(), "overlaps the live region") != NULL,
	      "overlap error says so");
	gm_error_clear();
	r.start = A1;
	CHECK_INT(addr_map_add(&am, &r), 0, "add a second region");
	f = addr_map_find(&am, A0 + 100, 0);
	CHECK(f && f->id == 0, "interior address found");
	CHECK(addr_map_find(&am, A0 + 4096, 0) == NULL,
	      "one past the end is outside");
	f = addr_map_find(&am, A0 + 4096, 1);
	CHECK(f && f->id == 0, "one past the end found when allowed");
	CHECK(addr_map_find(&am, A0 - 1, 1) == NULL, "before the start");
	CHECK_INT(addr_map_remove(&am, A0 + 8, NULL), -1,
		  "removing needs the start address");
	CHECK_INT(addr_map_remove(&am, A0, NULL), 0, "remove");
	CHECK(addr_map_find(&am, A0 + 100, 1) == NULL, "removed region gone");
	CHECK(addr_map_is_dead(&am, A0 + 100), "its memory is dead");
	CHECK(!addr_map_is_dead(&am, A1 + 100), "live memory is not dead");
	r.start = A0 + 2048;
	r.size = 512;
	r.id = 2;
	CHECK_INT(addr_map_add(&am, &r), 0, "reuse part of freed memory");
	CHECK(!addr_map_is_dead(&am, A0 + 2100), "reused part is live");
	CHECK(addr_map_is_dead(&am, A0 + 100), "the rest is still dead");
	CHECK(addr_map_is_dead(&am, A0 + 3000), "on both sides");
	addr_map_release(&am);
}

static void test_candidates(void)
{
	/* (int a, int b, void *p, struct { int x; void *q; } s, char c) */
	static const uint32_t off[] = { 0, 4, 8, 16, 32 };
	static const uint32_t size[] = { 4, 4, 8, 16, 1 };

	CHECK(!reloc_is_candidate(0, 40, off, size, 5),
	      "two adjacent 4-byte parameters are not a word");
	CHECK(reloc_is_candidate(8, 40, off, size, 5), "pointer parameter");
	CHECK(reloc_is_candidate(16, 40, off, size, 5),
	      "first word of a struct");
	CHECK(reloc_is_candidate(24, 40, off, size, 5),
	      "pointer inside a struct");
	CHECK(!reloc_is_candidate(32, 40, off, size, 5),
	      "a 1-byte parameter is not");
	CHECK(!reloc_is_candidate(12, 40, off, size, 5), "misaligned");
	CHECK(reloc_is_candidate(32, 40, NULL, NULL, 0),
	      "no layout: every aligned word");
	CHECK(!reloc_is_candidate(36, 40, NULL, NULL, 0),
	      "but not past the end");
}

static void test_classify_and_decide(void)
{
	struct addr_map dev = ADDR_MAP_INIT, host = ADDR_MAP_INIT;
	struct handle_map tex = HANDLE_MAP_INIT;
	struct addr_region r = { A0, 4096, GM_REF_ALLOC, 3, 1 };
	struct addr_region g = { A1, 64, GM_REF_GLOBAL, 1, 2 };
	struct addr_region h = { 0x5000000, 4096, 0, 0, 3 };
	struct addr_region d = { 0x7e0000000000ull, 4096, GM_REF_ALLOC, 4, 0 };
	uint64_t v[7] = { 0, A0 + 256, A1, 0x5000010, 0x7e0000000010ull, 42,
			  A0 + 4096 };
	struct reloc_word w[8];
	struct reloc_stat s;
	size_t n;

	addr_map_add(&dev, &r);
	addr_map_add(&dev, &g);
	addr_map_add(&dev, &d);
	addr_map_remove(&dev, d.start, NULL);
	addr_map_add(&host, &h);
	handle_map_put(&tex, 42, 5);
	n = reloc_classify((const uint8_t *)v, sizeof(v), NULL, NULL, 0, &dev,
			   &host, NULL, w);
	CHECK_INT(n, 7, "seven candidate words");
	CHECK_INT(w[0].cls, RELOC_ZERO, "zero");
	CHECK_INT(w[1].cls, RELOC_LIVE, "interior pointer is live");
	CHECK_INT(w[1].ref, GM_A(3), "it names the allocation");
	CHECK_INT(w[1].addend, 256, "with its offset");
	CHECK_INT(w[2].ref, GM_G(1), "pointer to a global");
	CHECK_INT(w[3].cls, RELOC_HOST, "page-locked host pointer");
	CHECK_INT(w[4].cls, RELOC_DEAD, "pointer into freed memory");
	CHECK_INT(w[5].cls, RELOC_OTHER, "a small integer");
	CHECK_INT(w[6].cls, RELOC_LIVE, "one past the end is a pointer");
	CHECK_INT(w[6].addend, 4096, "at offset size");
	n = reloc_classify((const uint8_t *)v, sizeof(v), NULL, NULL, 0, &dev,
			   &host, &tex, w);
	CHECK_INT(w[5].cls, RELOC_TEX, "42 is a live texture handle here");
	CHECK_INT(w[5].ref, GM_T(5), "naming texture 5");

	memset(&s, 0, sizeof(s));
	CHECK_INT(reloc_decide(&s), VERDICT_NONE, "nothing seen");
	s.live = 3;
	CHECK_INT(reloc_decide(&s), VERDICT_PTR, "always pointers");
	s.dead = 1;
	CHECK_INT(reloc_decide(&s), VERDICT_PTR,
		  "pointers and dangling pointers");
	s.other = 1;
	CHECK_INT(reloc_decide(&s), VERDICT_AMBIGUOUS,
		  "a value that only looked like a pointer: ambiguous");
	memset(&s, 0, sizeof(s));
	s.tex = 2;
	CHECK_INT(reloc_decide(&s), VERDICT_TEX, "always texture handles");
	s.other = 1;
	CHECK_INT(reloc_decide(&s), VERDICT_AMBIGUOUS,
		  "texture handle once, integer otherwise: ambiguous");
	memset(&s, 0, sizeof(s));
	s.dead = 2;
	CHECK_INT(reloc_decide(&s), VERDICT_DANGLING, "only dangling");
	memset(&s, 0, sizeof(s));
	s.other = 5;
	CHECK_INT(reloc_decide(&s), VERDICT_NONE, "never a pointer");
	addr_map_release(&dev);
	addr_map_release(&host);
	handle_map_release(&tex);
}

/* ---- through the model ---- */

#define LIB 0x100
#define KER 0x200

struct args {	/* kernel(int n, int m, float *p, struct {long k; float *q;} s, long x) */
	int32_t n, m;
	uint64_t p;
	uint64_t k, q;
	uint64_t x;
};

static const uint32_t OFF[] = { 0, 4, 8, 16, 32 };
static const uint32_t SIZE[] = { 4, 4, 8, 16, 8 };

static int launch(struct model_prog *p, uint64_t ev, const struct args *a)
{
	struct model_launch l;

	memset(&l, 0, sizeof(l));
	l.kernel = KER;
	l.grid[0] = l.grid[1] = l.grid[2] = 1;
	l.block[0] = l.block[1] = l.block[2] = 32;
	l.params = a;
	l.params_size = sizeof(*a);
	return model_add_launch(p, ev, "cuLaunchKernel", &l);
}

static const struct gm_reloc *find_reloc(const struct model_params *mp,
					 uint32_t off)
{
	for (uint32_t i = 0; i < mp->nr_relocs; i++) {
		if (mp->relocs[i].offset == off) {
			return &mp->relocs[i];
		}
	}
	return NULL;
}

static const struct model_params *params_of_launch(struct model_prog *p,
						   size_t nth)
{
	for (size_t i = 0; i < p->nr_ops; i++) {
		if (p->ops[i].code == GM_OP_LAUNCH && !nth--) {
			const struct gm_launch_desc *ld =
				gm_strmap_key(&p->launches, p->ops[i].a, NULL);
			return &p->params[ld->params];
		}
	}
	return NULL;
}

static void test_model_relocation(void)
{
	struct model *m = model_new(NULL, "cuda");
	struct model_prog *p = model_add_program(m, "prog", "b", 1);
	const struct model_params *mp;
	const struct gm_reloc *r;
	struct args a;
	uint64_t ev = 0;

	CHECK(p != NULL, "program added");
	CHECK(model_add_program(m, "prog", "c", 1) == NULL,
	      "duplicate program name refused");
	gm_error_clear();
	model_add_module(p, ev++, LIB, "0123456789abcdef0123456789abcdef", 10,
			 "x");
	CHECK_INT(model_add_kernel(p, ev++, KER, LIB, "_Z1kiiPf1sl", 5, OFF,
				   SIZE), 0, "kernel with layout");
	model_add_alloc(p, ev++, "cuMemAlloc", A0, 4096);	/* id 0 */
	model_add_alloc(p, ev++, "cuMemAlloc", A1, 4096);	/* id 1 */

	/* launch 0: pointer, struct pointer with offset, x = look-alike */
	memset(&a, 0, sizeof(a));
	a.n = (int32_t)(A0 & 0xffffffff);	/* halves of an address */
	a.m = (int32_t)(A0 >> 32);
	a.p = A0;
	a.k = 7;
	a.q = A1 + 128;
	a.x = A1 + 8;		/* an integer that happens to hit A1 */
	CHECK_INT(launch(p, ev++, &a), 0, "launch 0");
	/* launch 1: x is an ordinary integer this time */
	a.x = 12345;
	CHECK_INT(launch(p, ev++, &a), 0, "launch 1");
	/* launch 2: p points into memory freed since */
	model_add_free(p, ev++, "cuMemFree", A0);
	a.p = A0 + 64;
	CHECK_INT(launch(p, ev++, &a), 0, "launch 2");
	/* launch 3: one past the end of A1 */
	a.p = 0;
	a.q = A1 + 4096;
	CHECK_INT(launch(p, ev++, &a), 0, "launch 3");
	CHECK_INT(model_finish(m), 0, "finish");

	mp = params_of_launch(p, 0);
	CHECK(mp != NULL, "launch 0 has parameters");
	CHECK_INT(mp->nr_relocs, 2, "two words relocated in launch 0");
	r = find_reloc(mp, 8);
	CHECK(r && r->ref == GM_A(0) && r->addend == 0,
	      "pointer parameter -> allocation 0 + 0");
	r = find_reloc(mp, 24);
	CHECK(r && r->ref == GM_A(1) && r->addend == 128,
	      "pointer inside a struct -> allocation 1 + 128");
	CHECK(find_reloc(mp, 0) == NULL,
	      "two int parameters forming an address are left alone");
	CHECK(find_reloc(mp, 32) == NULL,
	      "a word that looked like a pointer once is left alone");
	{
		uint64_t x;
		memcpy(&x, mp->bytes + 32, 8);
		CHECK(x == A1 + 8, "and its bytes are not corrupted");
		memcpy(&x, mp->bytes + 8, 8);
		CHECK_INT(x, 0, "relocated words are zero in the table");
		memcpy(&x, mp->bytes + 16, 8);
		CHECK_INT(x, 7, "struct scalars are kept");
	}
	mp = params_of_launch(p, 2);
	CHECK(find_reloc(mp, 8) == NULL,
	      "pointer into freed memory is not relocated");
	{
		uint64_t x;
		memcpy(&x, mp->bytes + 8, 8);
		CHECK(x == A0 + 64, "it is left as captured");
	}
	mp = params_of_launch(p, 3);
	r = find_reloc(mp, 24);
	CHECK(r && r->ref == GM_A(1) && r->addend == 4096,
	      "one-past-the-end pointer relocated");
	CHECK_INT(p->nr_relocated_words, 2 + 2 + 1 + 1,
		  "relocated words counted per launch");
	{
		struct strbuf sb = STRBUF_INIT;
		model_report(m, &sb);
		CHECK(strstr(sb.buf, "parameter bytes 32-39: 1 values pointed "
				     "into live memory or were texture objects "
				     "and 3 did not look like pointers: not "
				     "relocated") != NULL,
		      "the ambiguous word is reported");
		CHECK(strstr(sb.buf, "parameter bytes 8-15: 1 launches passed "
				     "a pointer into freed memory") != NULL,
		      "the dangling pointer is reported");
		strbuf_release(&sb);
	}
	model_free(m);
}

static void test_model_textures(void)
{
	static const uint32_t off[] = { 0, 8 }, size[] = { 8, 8 };
	struct model *m = model_new("t", "cuda");
	struct model_prog *p = model_add_program(m, "prog", "b", 1);
	struct model_texture t;
	struct model_launch l;
	uint64_t args[2] = { A0, 0x11 };
	const struct model_params *mp;
	const struct gm_reloc *r;

	model_add_module(p, 0, LIB, "0123456789abcdef0123456789abcdef", 10,
			 "x");
	model_add_kernel(p, 1, KER, LIB, "k", 2, off, size);
	model_add_alloc(p, 2, "cuMemAlloc", A0, 4096);
	memset(&t, 0, sizeof(t));
	t.res_type = 2;
	t.addr = A0 + 1024;
	t.format = 0x20;
	t.channels = 1;
	t.size_bytes = 2048;
	CHECK_INT(model_add_texture(p, 3, "cuTexObjectCreate", 0x11, &t), 0,
		  "texture over an interior range");
	t.size_bytes = 8192;
	CHECK(model_add_texture(p, 4, "cuTexObjectCreate", 0x12, &t) < 0,
	      "texture past the end refused");
	CHECK_STR(gm_error_message(),
		  "event 4 (cuTexObjectCreate): 8192 bytes at texture memory "
		  "0x7f0000000400 run past the end of allocation 0 (4096 "
		  "bytes, event 2)", "with the exact reason");
	gm_error_clear();
	memset(&l, 0, sizeof(l));
	l.kernel = KER;
	l.grid[0] = l.grid[1] = l.grid[2] = 1;
	l.block[0] = l.block[1] = l.block[2] = 1;
	l.params = args;
	l.params_size = sizeof(args);
	CHECK_INT(model_add_launch(p, 5, "cuLaunchKernel", &l), 0, "launch");
	CHECK_INT(model_finish(m), 0, "finish");
	mp = params_of_launch(p, 0);
	r = find_reloc(mp, 8);
	CHECK(r && r->ref == GM_T(0), "texture handle relocated");
	CHECK_INT(p->nr_tex_words, 1, "counted");
	{
		const struct gm_texture_desc *d = gm_strmap_key(&p->texdescs, 0,
							     NULL);
		CHECK(d->ref == GM_A(0) && d->offset == 1024,
		      "texture memory is (allocation, offset)");
	}
	model_free(m);
}

int main(void)
{
	test_addr_map();
	test_candidates();
	test_classify_and_decide();
	test_model_relocation();
	test_model_textures();
	return test_done();
}
