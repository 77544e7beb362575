/* SPDX-License-Identifier: MIT */
/*
 * The replay's driver-call table (replay/drvcalls.h), without CUDA: calls
 * counted per site and phase, sites of one function summed under its
 * name, the histogram's buckets, the slowest calls of the timed part kept
 * (and only those of the timed part, from 100 us), nested timed calls
 * each counted, a thread without a table not timed, the
 * kinds, and the lines of drivercalls.tsv. Durations are given to
 * gm_drv_count(), not measured, so nothing depends on the clock.
 */
#include <stdlib.h>
#include <string.h>

#include "replay/drvcalls.h"
#include "strbuf.h"
#include "test.h"

/* Two call sites of one function, as two CU_CHECKs would give. */
static const char launch_a[] = "cuLaunchKernel(f, 1, 1, 1, 32, 1, 1, 0, st, args, ex)";
static const char launch_b[] = "cuLaunchKernel(g, 2, 1, 1, 32, 1, 1, 0, st, args, ex)";
static const char tex[] = "cuTexObjectCreate(&p->tex[op->a], &res, &tex, NULL)";

/* The line of @sb starting with @prefix, or "" (static buffer). */
static const char *line_of(const struct strbuf *sb, const char *prefix)
{
	static char buf[512];
	const char *p = sb->buf;

	while (p && *p) {
		const char *nl = strchr(p, '\n');
		size_t n = nl ? (size_t)(nl - p) : strlen(p);
		if (!strncmp(p, prefix, strlen(prefix)) && n < sizeof(buf)) {
			memcpy(buf, p, n);
			buf[n] = '\0';
			return buf;
		}
		p = nl ? nl + 1 : NULL;
	}
	return "";
}

static void test_buckets(void)
{
	CHECK_INT(gm_drv_bucket(0), 0, "bucket: 0 ns");
	CHECK_INT(gm_drv_bucket(999), 0, "bucket: under 1 us");
	CHECK_INT(gm_drv_bucket(1000), 1, "bucket: 1 us");
	CHECK_INT(gm_drv_bucket(1999), 1, "bucket: under 2 us");
	CHECK_INT(gm_drv_bucket(2000), 2, "bucket: 2 us");
	CHECK_INT(gm_drv_bucket(205000000), 18, "bucket: 205 ms in [131, 262) ms");
	CHECK_INT(gm_drv_bucket(UINT64_C(1) << 62), GM_DRV_BUCKETS - 1,
		  "bucket: the last takes the rest");
}

static void test_kinds(void)
{
	CHECK_STR(gm_drv_kind("cuLaunchKernelEx"), "launch", "kind: cuLaunchKernelEx");
	CHECK_STR(gm_drv_kind("cuGraphLaunch"), "launch", "kind: cuGraphLaunch");
	CHECK_STR(gm_drv_kind("cuMemcpyDtoHAsync"), "copy", "kind: a copy");
	CHECK_STR(gm_drv_kind("cuStreamSynchronize"), "sync", "kind: a sync");
	CHECK_STR(gm_drv_kind("cuEventQuery"), "query", "kind: an event query");
	CHECK_STR(gm_drv_kind("cuTexObjectCreate"), "texture", "kind: a texture");
	CHECK_STR(gm_drv_kind("cuCtxSetCurrent"), "other", "kind: other");
}

static void test_table(void)
{
	struct gm_drvcalls *t = calloc(1, sizeof(*t));
	struct strbuf sb = STRBUF_INIT;
	char want[512];

	t->phase = GM_DRV_SETUP;
	gm_drv_count(t, tex, 100, 5000);
	t->phase = GM_DRV_REPLAY;
	gm_drv_count(t, launch_a, 1000, 3000);
	gm_drv_count(t, launch_b, 2000, 20000000);	/* a blocked launch */
	gm_drv_count(t, launch_a, 3000, 500);
	gm_drv_count(t, tex, 4000, 205000000);
	gm_drv_count(t, tex, 5000, 99999);		/* under 100 us: not slow */
	CHECK_INT(t->nr_sites, 3, "table: one entry per call site");
	CHECK_INT(gm_drv_format(t, "spmv\tx", &sb), 5,
		  "format: 3 CALLS lines (launch and texture in the replay phase, "
		  "texture in setup), 2 SLOW lines");
	snprintf(want, sizeof(want),
		 "CALLS\tspmv\\tx\treplay\tcuLaunchKernel\tlaunch\t3\t%d\t%d\t1,0,1,0,0,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0",
		 3000 + 20000000 + 500, 20000000);
	CHECK_STR(line_of(&sb, "CALLS\tspmv\\tx\treplay\tcuLaunchKernel"), want,
		  "format: the two launch sites summed under their name, the program escaped");
	CHECK_STR(line_of(&sb, "CALLS\tspmv\\tx\tsetup"),
		  "CALLS\tspmv\\tx\tsetup\tcuTexObjectCreate\ttexture\t1\t5000\t5000\t0,0,0,1,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0,0",
		  "format: the setup phase apart");
	CHECK_STR(line_of(&sb, "CALLS\tspmv\\tx\treplay\tcuTexObjectCreate"),
		  "CALLS\tspmv\\tx\treplay\tcuTexObjectCreate\ttexture\t2\t205099999\t205000000\t0,0,0,0,0,0,0,1,0,0,0,0,0,0,0,0,0,0,1,0,0,0,0,0,0",
		  "format: a 205 ms texture creation in the replay phase");
	CHECK_INT(t->nr_slow, 2, "slow: the two timed-part calls of 100 us or more");
	CHECK_STR(line_of(&sb, "SLOW\tspmv\\tx\tcuTexObjectCreate"),
		  "SLOW\tspmv\\tx\tcuTexObjectCreate\ttexture\t4000\t205004000",
		  "slow: its start and end on the run's clock (offset 0)");
	strbuf_release(&sb);

	/* More slow calls than kept: the longest stay. */
	t->nr_slow = 0;
	for (uint64_t i = 0; i < GM_DRV_SLOW + 10; i++) {
		gm_drv_count(t, launch_a, i, 100000 + i * 1000);
	}
	uint64_t shortest = UINT64_MAX;
	for (unsigned i = 0; i < t->nr_slow; i++) {
		uint64_t d = t->slow[i].end - t->slow[i].start;
		shortest = d < shortest ? d : shortest;
	}
	CHECK_INT(t->nr_slow, GM_DRV_SLOW, "slow: at most GM_DRV_SLOW kept");
	CHECK_INT(shortest, 100000 + 10 * 1000, "slow: the shortest ones went");
	free(t);
}

static void test_thread(void)
{
	struct gm_drvcalls *t = calloc(1, sizeof(*t));
	static const char outer[] = "cuOuter()", inner[] = "cuInner()";

	gm_drv_begin();
	gm_drv_end(outer);
	CHECK_INT(t->nr_sites, 0, "thread: nothing counted without a table");
	gm_drv_attach(t, 0);
	t->phase = GM_DRV_REPLAY;
	gm_drv_begin();
	gm_drv_begin();
	gm_drv_end(inner);
	gm_drv_end(outer);
	CHECK_INT(t->nr_sites, 2, "thread: a nested call and its outer one");
	gm_drv_phase(GM_DRV_SETUP);
	gm_drv_begin();
	gm_drv_end(outer);
	gm_drv_end(outer);	/* an end without a begin: ignored */
	struct strbuf sb = STRBUF_INIT;
	gm_drv_format(t, "p", &sb);
	CHECK(strstr(sb.buf, "CALLS\tp\treplay\tcuOuter\tother\t1\t") != NULL &&
	      strstr(sb.buf, "CALLS\tp\tsetup\tcuOuter\tother\t1\t") != NULL &&
	      strstr(sb.buf, "CALLS\tp\treplay\tcuInner\tother\t1\t") != NULL,
	      "thread: each call counted once, in its phase");
	gm_drv_attach(NULL, 0);
	gm_drv_begin();
	gm_drv_end(inner);
	strbuf_reset(&sb);
	gm_drv_format(t, "p", &sb);
	CHECK(strstr(sb.buf, "CALLS\tp\treplay\tcuInner\tother\t1\t") != NULL,
	      "thread: detached, nothing more counted");
	CHECK_INT(gm_drv_format(NULL, "p", &sb), 0, "format: no table, no lines");
	strbuf_release(&sb);
	free(t);
}

int main(void)
{
	test_buckets();
	test_kinds();
	test_table();
	test_thread();
	return test_done();
}
