/* SPDX-License-Identifier: MIT */
/*
 * The command line of a run (see exec_priv.h): its replay's or its
 * co-run's. The knob options of its variant are words of its input hash
 * too (exec_decide.c), so both take them from here.
 */
#include "exec_priv.h"

#include <inttypes.h>
#include <stdio.h>

#include "error.h"

/*
 * The option words of the knobs that reach run @run: every knob its
 * variant takes (the table, common/variant.h) that the study sets or
 * derives (study_knob_arg(): `--elastic identity` under same_kernels,
 * `--profile PROFILE`). The policy is the plan's, not a study key.
 */
void exec_knob_args(const struct study *s, const struct plan_run *run,
		    struct exec_argv *a)
{
	char buf[4096];

	if (run->policy) {
		exec_argv_push(a, gm_knob_find(GM_KNOB_POLICY)->option);
		exec_argv_push(a, run->policy);
	}
	for (size_t i = 0; gm_knob_at(i); i++) {
		const struct gm_knob_desc *k = gm_knob_at(i);
		/* (the run's knobs are on the replay's own line) */
		if (!k->run && (run->variant->knobs & k->knob) &&
		    !study_knob_arg(s, k, buf, sizeof(buf))) {
			exec_argv_push(a, k->option);
			if (k->arg) {	/* (a flag takes none) */
				exec_argv_push(a, buf);
			}
		}
	}
}

/* The command line of run @i's replay into @a. */
void exec_replay_args(struct exec_ctx *x, size_t i, struct exec_argv *a)
{
	const struct study *s = x->s;
	const struct plan_run *run = &x->plan->runs[i];
	char buf[64];

	exec_argv_push(a, x->o->exec);
	exec_argv_push(a, "replay");
	exec_argv_push(a, x->wls[run->workload].build);
	exec_argv_push(a, "--variant");
	exec_argv_push(a, run->variant->name);
	exec_argv_push(a, "-o");
	exec_argv_push(a, x->runs[i].rundir);
	if (run->kind == PLAN_ONE_SHOT && !s->one_shot) {
		exec_argv_push(a, "--one-shot");	/* (for the co-runs) */
	} else if (!s->one_shot) {	/* (--one-shot, a knob, replays once) */
		exec_argv_push(a, "--min-replays");
		snprintf(buf, sizeof(buf), "%u", s->min_replays);
		exec_argv_push(a, buf);
	}
	exec_argv_push(a, "--watchdog");
	snprintf(buf, sizeof(buf), "%g", s->watchdog_s);
	exec_argv_push(a, buf);
	/* Recorded in the manifest, for the analyzer to key it by. */
	exec_argv_push(a, "--repetition");
	snprintf(buf, sizeof(buf), "%u", run->repetition);
	exec_argv_push(a, buf);
	exec_argv_push(a, "--study-seed");
	snprintf(buf, sizeof(buf), "%" PRIu64, s->seed);
	exec_argv_push(a, buf);
	exec_knob_args(s, run, a);
	exec_open_loop_args(x, i, a, 0);
}

/* The command line of co-run @i (a workload's programs run natively
 * together, from their bundles) into @a. */
void exec_corun_args(struct exec_ctx *x, size_t i, struct exec_argv *a)
{
	const struct study *s = x->s;
	const struct plan_run *run = &x->plan->runs[i];
	const struct plan_workload *wl = &x->plan->workloads[run->workload];
	char buf[64];

	exec_argv_push(a, x->o->exec);
	exec_argv_push(a, "corun");
	exec_argv_push(a, "-o");
	exec_argv_push(a, x->runs[i].rundir);
	exec_argv_push(a, "-k");
	snprintf(buf, sizeof(buf), "%u", s->corun_repeats);
	exec_argv_push(a, buf);
	exec_argv_push(a, "--mechanism");
	exec_argv_push(a, study_corun_mechanisms(s));
	/* Recorded in the manifest, for the analyzer to key it by. */
	exec_argv_push(a, "--repetition");
	snprintf(buf, sizeof(buf), "%u", run->repetition);
	exec_argv_push(a, buf);
	for (size_t j = 0; j < wl->nr; j++) {
		exec_argv_push(a, s->programs[wl->progs[j]].bundle);
	}
}
