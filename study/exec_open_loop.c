/* SPDX-License-Identifier: MIT */
/*
 * The replay options of a run at a point of the study's open-loop sweep
 * (study.h, struct study_open_loop; doc/study-yaml.md "Open-loop
 * programs"): its program's arrival process, at a rate or at a load
 * measured against the program's alone run of the same repetition
 * (`gpumix replay --alone`), the seed, requests, SLO and the point's
 * label. The same words go into the run's input hash, beside the alone
 * run's, so that a new alone time replays the point again.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec_priv.h"
#include "strbuf.h"

/* The alone run of program @prog for run @r (same repetition): the
 * shared baseline, or the workload's own; SIZE_MAX when none. */
static size_t alone_run(const struct exec_ctx *x, const struct plan_run *r,
			size_t prog)
{
	const struct study_plan *plan = x->plan;

	for (size_t j = 0; j < plan->nr_runs; j++) {
		const struct plan_run *a = &plan->runs[j];
		const struct plan_workload *w = &plan->workloads[a->workload];
		if (a->kind != PLAN_REPLAY || a->repetition != r->repetition ||
		    !(a->variant->flags & GM_VARIANT_ALONE)) {
			continue;
		}
		if (a->workload == r->workload ||
		    (a->baseline && w->nr == 1 && w->progs[0] == prog)) {
			return j;
		}
	}
	return SIZE_MAX;
}

void exec_open_loop_args(const struct exec_ctx *x, size_t i,
			 struct exec_argv *a, int for_key)
{
	const struct study *s = x->s;
	const struct study_open_loop *o = &s->open_loop;
	const struct plan_run *r = &x->plan->runs[i];
	const char *name;
	struct strbuf sb = STRBUF_INIT;
	char buf[64];

	if (r->point == SIZE_MAX) {
		return;
	}
	name = s->programs[o->program].name;
	strbuf_addf(&sb, "%s=", name);
	if (o->trace) {
		strbuf_addf(&sb, "trace:%s", o->trace_path);
		if (o->column) {
			strbuf_addf(&sb, "#%s", o->column);
		}
		if (o->points[r->point] > 0) {
			strbuf_addf(&sb, "@%.17g", o->points[r->point]);
		}
	} else if (o->by_load) {
		strbuf_addf(&sb, "load:%.17g", o->points[r->point]);
	} else {
		strbuf_addf(&sb, "poisson:%.17g", o->points[r->point]);
	}
	exec_argv_push(a, "--arrivals");
	exec_argv_push(a, sb.buf);
	strbuf_release(&sb);
	if (o->by_load && !o->trace) {
		size_t j = alone_run(x, r, o->program);
		exec_argv_push(a, "--alone");
		/* (None: the replay says it has no alone time.) */
		exec_argv_push(a, j == SIZE_MAX ? "(no alone run)" :
			       for_key ? x->runs[j].pkey : x->runs[j].rundir);
	}
	if (o->requests) {
		snprintf(buf, sizeof(buf), "%u", o->requests);
		exec_argv_push(a, "--requests");
		exec_argv_push(a, buf);
	}
	if (o->seed_given) {
		snprintf(buf, sizeof(buf), "%llu", (unsigned long long)o->seed);
		exec_argv_push(a, "--arrival-seed");
		exec_argv_push(a, buf);
	}
	if (o->slo) {
		exec_argv_push(a, "--slo");
		exec_argv_push(a, o->slo);
	}
	study_open_loop_label(s, r->point, buf, sizeof(buf));
	exec_argv_push(a, "--arrivals-label");
	exec_argv_push(a, buf);
}
