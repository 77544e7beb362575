/* SPDX-License-Identifier: MIT */
/*
 * The replay's captured host time bookkeeping (replay/host_gap.c), on
 * given times: when each operation is due (its thread's last return plus
 * its gap, capped; nothing for a thread's first of a replay), what is
 * counted, the issue error's quantiles, lateness by the captured order,
 * the manifest keys, and off for --host-time none or a program without
 * tables.
 */
#include <string.h>

#include "replay/gpumix_replay.h"
#include "kvfile.h"
#include "replay/host_gap.h"
#include "test.h"

#define US 1000ull
#define MS 1000000ull

int main(void)
{
	/* ops: 0 a, 1 a (+30 ms), 2 b, 3 a (+5 ms), 4 b (+60 ms), 5 a (+3 s) */
	static const uint32_t gap[] = {
		0, 30 * MS, 0, 5 * MS, 60 * MS, GM_HOST_GAP_US | 3000000,
	};
	static const uint16_t thread[] = { 0, 0, 1, 0, 1, 0 };
	struct gm_program_desc d;
	struct gm_replay_opts o;
	struct gm_host_gaps h;
	struct kvfile kv = KVFILE_INIT;
	uint64_t t = 1000 * MS, due;

	memset(&d, 0, sizeof(d));
	d.name = "p";
	d.nr_ops = 6;
	d.host_gap = gap;
	d.host_thread = thread;
	d.nr_host_threads = 2;
	gm_replay_opts_init(&o);

	gm_host_gaps_init(&h, &d, &o);
	CHECK(gm_host_gaps_on(&h), "on by default with tables");
	gm_host_gaps_begin(&h);
	CHECK_INT(gm_host_gaps_due(&h, 0), 0, "op 0: the replay's first");
	gm_host_gaps_returned(&h, 0, t);
	CHECK_INT(gm_host_gaps_due(&h, 1), t + 30 * MS,
		  "op 1: thread a's return plus its gap");
	gm_host_gaps_issued(&h, t + 30 * MS, t + 30 * MS + 2 * US);
	gm_host_gaps_returned(&h, 1, t + 31 * MS);
	CHECK_INT(gm_host_gaps_due(&h, 2), 0, "op 2: thread b's first");
	gm_host_gaps_returned(&h, 2, t + 32 * MS);
	CHECK_INT(gm_host_gaps_due(&h, 3), t + 36 * MS,
		  "op 3: from thread a's own last return, not b's");
	gm_host_gaps_issued(&h, t + 36 * MS, t + 36 * MS + 4 * US);
	gm_host_gaps_returned(&h, 3, t + 37 * MS);
	due = gm_host_gaps_due(&h, 4);
	CHECK_INT(due, t + 92 * MS, "op 4: thread b's return plus 60 ms");
	gm_host_gaps_issued(&h, due, due + 6 * US);
	gm_host_gaps_returned(&h, 4, t + 200 * MS);	/* a long call */
	due = gm_host_gaps_due(&h, 5);
	CHECK_INT(due, t + 37 * MS + 3000 * MS, "op 5: a gap coded in us");
	gm_host_gaps_issued(&h, due, due + 8 * US);
	gm_host_gaps_returned(&h, 5, due + 9 * US);
	CHECK_INT(h.waits, 4, "four gaps spent");
	CHECK_INT(h.gap_ns, 3095 * MS, "their sum");
	CHECK_INT(h.capped, 0, "no cap");
	CHECK_INT(h.order_late, 0, "none late by the order");
	CHECK_INT(h.err_max_ns, 8 * US, "the largest error, exact");
	CHECK(gm_host_gaps_error_quantile(&h, 0.5) >= 4 * US * 94 / 100 &&
	      gm_host_gaps_error_quantile(&h, 0.5) <= 4 * US * 106 / 100,
	      "the median error, within the histogram's 6%");
	CHECK_INT(gm_host_gaps_error_quantile(&h, 0.99), 8 * US,
		  "the p99 error: at most the largest");

	/* A new replay: every thread's first is due at once again. */
	gm_host_gaps_begin(&h);
	CHECK_INT(gm_host_gaps_due(&h, 1), 0, "a replay's start forgets returns");
	gm_host_gaps_returned(&h, 1, t);
	gm_host_gaps_returned(&h, 2, t);
	gm_host_gaps_returned(&h, 3, t + 100 * MS);	/* a slow op of a */
	due = gm_host_gaps_due(&h, 4);	/* b: t + 60 ms, before a returned */
	gm_host_gaps_issued(&h, due, t + 100 * MS + 1 * US);
	CHECK_INT(h.order_late, 1, "an operation due before the previous one "
		  "returned is late by the order");
	CHECK_INT(h.order_late_ns, 40 * MS, "... by how much");
	CHECK_INT(h.err_max_ns, 8 * US, "... which is not the replay's error");

	gm_host_gaps_manifest(&h, &kv, 3);
	CHECK_STR(kvfile_get(&kv, "program.3.host_time"), "captured",
		  "manifest: host_time");
	CHECK_STR(kvfile_get(&kv, "program.3.host_gaps"), "5", "manifest: gaps");
	CHECK_STR(kvfile_get(&kv, "program.3.host_error_us_max"), "8.000",
		  "manifest: the largest error in us");
	CHECK_STR(kvfile_get(&kv, "program.3.host_order_late"), "1",
		  "manifest: late by the order");
	gm_host_gaps_release(&h);
	CHECK_INT(gm_host_gaps_due(&h, 4), 0, "released: nothing is due");
	kvfile_release(&kv);

	/* A cap. */
	o.max_host_gap_s = 0.01;
	gm_host_gaps_init(&h, &d, &o);
	gm_host_gaps_begin(&h);
	gm_host_gaps_returned(&h, 0, t);
	CHECK_INT(gm_host_gaps_due(&h, 1), t + 10 * MS, "a gap over the cap: "
		  "the cap");
	gm_host_gaps_returned(&h, 1, t);
	CHECK_INT(gm_host_gaps_due(&h, 3), t + 5 * MS, "one under it: itself");
	CHECK_INT(h.capped, 1, "one capped");
	gm_host_gaps_release(&h);

	/* Off. */
	o.host_time = GM_HOST_TIME_NONE;
	gm_host_gaps_init(&h, &d, &o);
	CHECK(!gm_host_gaps_on(&h), "--host-time none: off");
	gm_host_gaps_manifest(&h, &kv, 0);
	CHECK_STR(kvfile_get(&kv, "program.0.host_time"), "none",
		  "manifest: none");
	CHECK(!kvfile_get(&kv, "program.0.host_gaps"), "... and no counts");
	gm_host_gaps_release(&h);
	kvfile_release(&kv);
	o.host_time = GM_HOST_TIME_CAPTURED;
	d.host_gap = NULL;
	d.host_thread = NULL;
	gm_host_gaps_init(&h, &d, &o);
	CHECK(!gm_host_gaps_on(&h) && !h.have_tables,
	      "a program without tables: off");
	gm_host_gaps_release(&h);
	return test_done();
}
