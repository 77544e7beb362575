/* SPDX-License-Identifier: MIT */
/*
 * The priority scheduler (variant priority): the cuda variant with CUDA
 * stream priorities. One program, the one --high-priority names (of a
 * program with copies, its first instance NAME#1) or else the workload's
 * first (also when the workload lacks the named one: a warning says
 * so), gets every stream at the device's greatest
 * priority; the others get the least. Stream priorities make the
 * hardware prefer the high-priority stream's pending blocks when SMs free
 * up; they do not preempt running blocks. Everything else is the serial
 * scheduler's.
 */
#include <string.h>

#include "cu_check.h"
#include "error.h"
#include "instance_name.h"
#include "kvfile.h"
#include "replay_int.h"
#include "sched.h"

struct prio_run {
	unsigned high;			/* program index */
	int least, greatest;		/* cuCtxGetStreamPriorityRange */
};

static int prio_run_init(struct gm_run *run)
{
	struct prio_run *r = gm_xcalloc(1, sizeof(*r));
	const char *want = run->opt.high_priority;

	run->sched_state = r;
	if (want) {
		unsigned i = 0;
		while (i < run->w->nr_programs &&
		       strcmp(run->w->programs[i]->name, want)) {
			i++;
		}
		/* A program with copies: its first instance (NAME#1). */
		if (i == run->w->nr_programs) {
			i = 0;
			while (i < run->w->nr_programs &&
			       !gm_instance_of(run->w->programs[i]->name, want)) {
				i++;
			}
		}
		/* A study names one program for all its workloads. */
		if (i == run->w->nr_programs) {
			gm_log(run, "replay: warning: workload '%s' has no "
			       "program '%s' (--high-priority): its first, "
			       "'%s', gets the highest priority", run->w->name,
			       want, run->w->programs[0]->name);
			i = 0;
		}
		r->high = i;
	}
	if (CU_CHECK(cuCtxGetStreamPriorityRange(&r->least, &r->greatest))) {
		return gm_error("cannot read the stream priority range");
	}
	return 0;
}

static int prio_stream_priority(const struct gm_prog *p, int captured)
{
	const struct prio_run *r = p->run->sched_state;

	(void)captured;
	return p->index == r->high ? r->greatest : r->least;
}

static void prio_manifest(struct gm_run *run, struct kvfile *kv)
{
	const struct prio_run *r = run->sched_state;

	if (!r) {
		return;
	}
	kvfile_set(kv, "priority.program", run->w->programs[r->high]->name);
	kvfile_setf(kv, "priority.range", "%d..%d", r->least, r->greatest);
}

static void prio_run_release(struct gm_run *run)
{
	free(run->sched_state);
	run->sched_state = NULL;
}

const struct gm_sched gm_sched_priority = {
	.name = "priority",
	.run_init = prio_run_init,
	.exec = gm_serial_exec,
	.drain = gm_serial_drain,
	.replay_end = gm_serial_replay_end,
	.manifest = prio_manifest,
	.run_release = prio_run_release,
	.nr_streams = gm_serial_nr_streams,
	.stream_priority = prio_stream_priority,
};
