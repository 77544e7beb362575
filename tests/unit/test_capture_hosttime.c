/* SPDX-License-Identifier: MIT */
/*
 * The capture's clean host clock: `gpumix capture` runs
 * capture_hosttime_emitter, whose callbacks each cost the capture a known
 * time on a clock the emitter drives. The host times the events carry
 * (host_ns, bundle format 2) must hold only what the program spent: a
 * call's duration is the driver's time, the gap between one call's
 * return and the next call's entry is the program's (the runtime's work
 * around its driver call included), however long the capture's
 * callbacks took, the one that stored a large payload among them.
 */
#include <stdlib.h>
#include <sys/wait.h>

#include "capture_hosttime.h"
#include "error.h"
#include "kvfile.h"
#include "reconstruct/trace/trace_reader.h"
#include "test.h"

#define MAX_EV 64

static struct gm_event evs[MAX_EV];
static unsigned nr;

static const struct gm_event *find(enum gm_event_kind kind, int api)
{
	for (unsigned i = 0; i < nr; i++) {
		if (evs[i].kind == kind && evs[i].api == api) {
			return &evs[i];
		}
	}
	return NULL;
}

/* b - a, or a huge value when either is missing. */
static uint64_t span(const struct gm_event *a, const struct gm_event *b)
{
	return a && b ? b->host_ns - a->host_ns : UINT64_MAX;
}

int main(void)
{
	const char *b = getenv("GPUMIX_BUILD") ? getenv("GPUMIX_BUILD") : "build";
	char dir[256], out[512], cmd[2048];
	const struct gm_event *ev, *a_in, *a_out, *h_in, *h_out, *f_in, *f_out;
	const struct gm_event *rt;
	struct trace_reader *r;
	int rc;

	snprintf(dir, sizeof(dir), "%s/gpumix-hosttime.XXXXXX",
		 getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(dir)) {
		CHECK(0, "scratch directory");
		return test_done();
	}
	snprintf(out, sizeof(out), "%s/b", dir);
	snprintf(cmd, sizeof(cmd), "'%s/gpumix' -q capture -o '%s' -- "
		 "'%s/tests/capture_hosttime_emitter' >/dev/null 2>&1", b, out, b);
	rc = system(cmd);
	CHECK_INT(WIFEXITED(rc) ? WEXITSTATUS(rc) : -1, 0, "capture exits 0");
	if (trace_reader_open(&r, out, 0)) {
		CHECK(0, "the bundle opens");
		printf("#   %s\n", gm_error_message());
		return test_done();
	}
	CHECK_STR(kvfile_get(trace_reader_manifest(r), "format"),
		  GM_BUNDLE_FORMAT, "the bundle is of the current format");
	CHECK_INT(trace_reader_host_time(r), 1, "... which has host times");
	while ((rc = trace_reader_next(r, &ev)) > 0 && nr < MAX_EV) {
		evs[nr] = *ev;
		evs[nr].data = NULL;
		evs[nr].str = "";
		nr++;
	}
	CHECK_INT(rc, 0, "every event decodes");
	trace_reader_free(r);

	a_in = find(GM_EV_ENTER, GM_API_cuMemAlloc_v2);
	a_out = find(GM_EV_EXIT, GM_API_cuMemAlloc_v2);
	h_in = find(GM_EV_ENTER, GM_API_cuMemcpyHtoD_v2);
	h_out = find(GM_EV_EXIT, GM_API_cuMemcpyHtoD_v2);
	f_in = find(GM_EV_ENTER, GM_API_cuMemFree_v2);
	f_out = find(GM_EV_EXIT, GM_API_cuMemFree_v2);
	rt = find(GM_EV_RT_ENTER, -1);
	CHECK(a_in && a_out && h_in && h_out && f_in && f_out,
	      "the three calls were recorded");
	CHECK(h_in && (h_in->flags & GM_RF_BLOB),
	      "the copy's payload went to the blob store");
	CHECK(a_in && a_in->host_ns, "events carry a host time");

	/* Durations: the driver's time, not the entry callback's. */
	CHECK_INT(span(a_in, a_out), HT_CALL_NS,
		  "cuMemAlloc_v2: its duration is the driver's time only");
	CHECK_INT(span(h_in, h_out), HT_CALL_NS,
		  "cuMemcpyHtoD_v2: the same, though its entry stored 1 MiB");
	CHECK_INT(span(f_in, f_out), HT_CALL_NS, "cuMemFree_v2: the same");
	/* Gaps: the program's time (the runtime's work after its driver
	 * call is the program's too), not the callbacks'. */
	CHECK_INT(span(a_out, h_in), HT_RT_NS + HT_GAP_NS,
		  "the gap after cudaMalloc: the runtime's and the program's "
		  "time, without the capture's four callbacks");
	CHECK_INT(span(h_out, f_in), 2 * HT_GAP_NS,
		  "the gap after the stored copy: the program's time only");
	/* The runtime call's event is emitted at its first driver call, and
	 * carries that call's entry time. */
	CHECK(rt && a_in && rt->host_ns == a_in->host_ns,
	      "rt_enter carries the host time of the driver call's entry");

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	if (system(cmd)) {
		/* scratch left behind: harmless */
	}
	return test_done();
}
