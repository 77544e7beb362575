/* SPDX-License-Identifier: MIT */
/*
 * The precision target of a study (`precision`, `max_repeats`; see
 * exec_priv.h and doc/study-yaml.md): the runs of a workload are
 * repeated beyond `repeats` only while the 95% interval of the STP of
 * one of its configurations (variant and policy) over the repetitions
 * so far is wider than `precision` times its mean, and at most
 * `max_repeats` times in all.
 *
 * Repetition r of a workload is decided once every run of the workload
 * in the repetitions before r, and every alone run they pair with, has
 * ended. The STP of repetition q pairs the configuration's run of q
 * with the alone runs of q (the alone times drift with the co-runs), as
 * the analyzer does. A program's shared alone run (baseline: program)
 * of repetition r is needed while a workload holding the program is,
 * and not needed once none is. Nothing is recorded: every invocation
 * makes the same decisions again from the run directories.
 *
 * The stopping rule is precision_met(), with analyze's interval.
 */
#include "exec_priv.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analyze/interval.h"
#include "analyze/metrics_stp.h"
#include "analyze/run_reader.h"
#include "error.h"
#include "strbuf.h"

struct precision_info {
	unsigned known;		/* the need of every repetition before
				   this one is decided */
	unsigned stop;		/* the first repetition not needed (the
				   planned count: none) */
	char *why;		/* why the repetitions from @stop on are not
				   needed (owned) */
};

/* Each program's mean kept replay time in a run directory, read once. */
struct run_times {
	int state;		/* 0 not read (yet), 1 read */
	size_t nr;
	char **names;
	double *mean_ns;
};

struct precision_state {
	struct precision_info *wl;	/* per user workload */
	struct run_times *times;	/* per plan run */
};

static int on(const struct exec_ctx *x)
{
	return x->s->precision > 0;
}

/* The user workload run @i is measured for, or -1 for a shared alone
 * run (measured for each workload holding its program). */
static long unit_of(const struct exec_ctx *x, size_t i)
{
	const struct plan_run *run = &x->plan->runs[i];

	return run->baseline ? -1 : (long)run->workload;
}

/*
 * The stopping rule: 1 when the 95% interval of the mean of the @n STPs
 * in @v is within @target times that mean (@rel gets the interval's
 * half-width over the mean, NAN with fewer than 2 values). The interval
 * is analyze's (analyze/interval.h: Student t), the one the report
 * gives: the study stops on what the report will show.
 */
static int precision_met(const double *v, size_t n, double target,
			 double *rel)
{
	struct gm_ci ci;

	gm_ci_mean(&ci, v, n, NULL);
	*rel = (ci.hi - ci.lo) / 2 / fabs(ci.mean);
	return n >= 2 && *rel <= target;
}

static struct precision_state *state(const struct exec_ctx *x)
{
	return x->prec;
}

static struct run_times *times_of(struct exec_ctx *x, size_t i)
{
	struct run_times *t = &state(x)->times[i];
	struct gm_run_dir run;

	if (t->state) {
		return t;
	}
	/* (not kept when unreadable: the run may be replayed again) */
	memset(&run, 0, sizeof(run));
	if (gm_run_dir_read(&run, x->runs[i].rundir) ||
	    !run.status || strcmp(run.status, "ok")) {
		gm_error_clear();
		gm_run_dir_release(&run);
		return NULL;
	}
	t->nr = run.nr_programs;
	t->names = gm_xcalloc(t->nr + 1, sizeof(char *));
	t->mean_ns = gm_xcalloc(t->nr + 1, sizeof(double));
	size_t *kept = gm_xcalloc(t->nr + 1, sizeof(size_t));
	for (size_t p = 0; p < t->nr; p++) {
		t->names[p] = gm_xstrdup(run.programs[p].name);
	}
	for (size_t k = 0; k < run.nr_replays; k++) {
		const struct gm_replay *r = &run.replays[k];
		if (r->kept) {
			t->mean_ns[r->program] += (double)(r->end - r->start -
							   r->io);
			kept[r->program]++;
		}
	}
	for (size_t p = 0; p < t->nr; p++) {
		t->mean_ns[p] = kept[p] ? t->mean_ns[p] / (double)kept[p] : NAN;
	}
	free(kept);
	gm_run_dir_release(&run);
	t->state = 1;
	return t;
}

/* Program @name's mean kept time in run @i, or NAN. */
static double mean_time(struct exec_ctx *x, size_t i, const char *name)
{
	const struct run_times *t = times_of(x, i);

	for (size_t p = 0; t && p < t->nr; p++) {
		if (!strcmp(t->names[p], name)) {
			return t->mean_ns[p];
		}
	}
	return NAN;
}

/* The run of repetition @rep that gives program @prog of workload @w
 * its alone time, or (size_t)-1 when the study has none. */
static size_t alone_run(const struct exec_ctx *x, size_t w, size_t prog,
			unsigned rep)
{
	const struct study_plan *plan = x->plan;

	for (size_t c = 0; c < plan->nr_configs; c++) {
		const struct plan_run *r0 = &plan->runs[plan_run_index(plan, c, 0)];
		if (r0->kind != PLAN_REPLAY ||
		    !(r0->variant->flags & GM_VARIANT_ALONE)) {
			continue;
		}
		if (r0->baseline ? plan->workloads[r0->workload].progs[0] == prog
				 : r0->workload == w) {
			return plan_run_index(plan, c, rep);
		}
	}
	return (size_t)-1;
}

/* 1 when configuration @c is one of user workload @w's co-runs. */
static int measured(const struct exec_ctx *x, size_t w, size_t c)
{
	const struct plan_run *r0 = &x->plan->runs[plan_run_index(x->plan, c, 0)];

	/* (the co-run and its one-shot replays measure other things) */
	return !r0->baseline && r0->workload == w && r0->kind == PLAN_REPLAY &&
	       !(r0->variant->flags & GM_VARIANT_ALONE);
}

/* 1 when every run of workload @w before repetition @rep, and every
 * alone run those pair with, has ended (none is still to replay). */
static int ended_before(const struct exec_ctx *x, size_t w, unsigned rep)
{
	const struct study_plan *plan = x->plan;
	const struct plan_workload *wl = &plan->workloads[w];

	for (unsigned q = 0; q < rep; q++) {
		for (size_t c = 0; c < plan->nr_configs; c++) {
			size_t j = plan_run_index(plan, c, q);
			if (unit_of(x, j) == (long)w && x->runs[j].do_replay) {
				return 0;
			}
		}
		for (size_t p = 0; p < wl->nr; p++) {
			size_t j = alone_run(x, w, wl->progs[p], q);
			if (j != (size_t)-1 && x->runs[j].do_replay) {
				return 0;
			}
		}
	}
	return 1;
}

/*
 * 1 when every co-run configuration of workload @w has the STP interval
 * the target asks for over repetitions 0 .. @rep - 1; @why then says so.
 */
static int workload_met(struct exec_ctx *x, size_t w, unsigned rep, char **why)
{
	const struct study_plan *plan = x->plan;
	const struct plan_workload *wl = &plan->workloads[w];
	double *stp = gm_xcalloc(rep + 1, sizeof(double));
	double *alone = gm_xcalloc(wl->nr + 1, sizeof(double));
	double *mp = gm_xcalloc(wl->nr + 1, sizeof(double));
	double widest = 0;
	const char *widest_id = NULL;
	int met = 1;

	for (size_t c = 0; c < plan->nr_configs && met; c++) {
		size_t n = 0;
		double rel;
		if (!measured(x, w, c)) {
			continue;
		}
		for (unsigned q = 0; q < rep; q++) {
			size_t j = plan_run_index(plan, c, q);
			int ok = 1;
			for (size_t p = 0; p < wl->nr && ok; p++) {
				/* a copy "lbm#2" here, "lbm" in a shared
				 * alone run (a one-program workload) */
				const char *name = wl->inst[p];
				size_t a = alone_run(x, w, wl->progs[p], q);
				mp[p] = mean_time(x, j, name);
				alone[p] = a == (size_t)-1 ? NAN :
					   mean_time(x, a, plan->runs[a].baseline ?
						     plan->workloads[plan->runs[a].workload].inst[0] :
						     name);
				ok = !isnan(mp[p]) && !isnan(alone[p]);
			}
			double v = ok ? gm_stp(alone, mp, wl->nr) : NAN;
			if (!isnan(v)) {
				stp[n++] = v;
			}
		}
		met = precision_met(stp, n, x->s->precision, &rel);
		if (met && rel >= widest) {
			widest = rel;
			widest_id = plan->runs[plan_run_index(plan, c, 0)].id;
		}
	}
	if (met) {
		*why = widest_id ?
		       gm_xasprintf("precision reached: after %u repetitions the "
				    "95%% interval of every STP of %s is within "
				    "%g%% of its mean (widest: %s, %.2g%%)", rep,
				    wl->name, x->s->precision * 100, widest_id,
				    widest * 100) :
		       gm_xasprintf("precision reached: %s has no run to "
				    "measure", wl->name);
	}
	free(stp);
	free(alone);
	free(mp);
	return met;
}

/* Decide as many repetitions of user workload @w as can be decided. */
static void decide_workload(struct exec_ctx *x, size_t w)
{
	struct precision_info *pi = &state(x)->wl[w];
	unsigned reps = x->plan->nr_repetitions;

	while (pi->known < reps) {
		unsigned r = pi->known;
		if (r >= pi->stop) {
			pi->known = reps;
		} else if (r < x->s->repeats) {
			pi->known++;
		} else if (!ended_before(x, w, r)) {
			return;
		} else if (workload_met(x, w, r, &pi->why)) {
			pi->stop = r;
			pi->known = reps;
		} else {
			pi->known++;
		}
	}
}

/*
 * Whether run @i is needed: 1 needed, 0 not needed (@why, borrowed, says
 * why), -1 not decided yet.
 */
static int need_of(struct exec_ctx *x, size_t i, const char **why)
{
	const struct plan_run *run = &x->plan->runs[i];
	long w = unit_of(x, i);
	unsigned r = run->repetition;

	if (w >= 0) {
		const struct precision_info *pi = &state(x)->wl[w];
		decide_workload(x, (size_t)w);
		if (r >= pi->known) {
			return -1;
		}
		*why = pi->why;
		return r < pi->stop;
	}
	/* A program's shared alone run: needed while a workload is. */
	size_t prog = x->plan->workloads[run->workload].progs[0];
	int undecided = 0;
	*why = NULL;
	for (size_t u = 0; u < x->plan->nr_user_workloads; u++) {
		const struct plan_workload *wl = &x->plan->workloads[u];
		const struct precision_info *pi = &state(x)->wl[u];
		int holds = 0;
		for (size_t p = 0; p < wl->nr; p++) {
			holds |= wl->progs[p] == prog;
		}
		if (!holds) {
			continue;
		}
		decide_workload(x, u);
		if (r >= pi->known) {
			undecided = 1;
		} else if (r < pi->stop) {
			return 1;
		} else if (!*why) {
			*why = pi->why;
		}
	}
	return undecided ? -1 : 0;
}

static void set_not_needed(struct exec_ctx *x, size_t i, const char *why)
{
	struct run_info *ri = &x->runs[i];

	ri->conditional = 0;
	ri->do_replay = ri->do_analyze = 0;
	exec_set_run(x, ri, RUN_NOT_NEEDED, why ? why : "precision reached",
		     NULL);
}

void exec_precision_decide(struct exec_ctx *x)
{
	if (!on(x)) {
		return;
	}
	struct precision_state *st = gm_xcalloc(1, sizeof(*st));
	st->wl = gm_xcalloc(x->plan->nr_user_workloads + 1, sizeof(*st->wl));
	st->times = gm_xcalloc(x->plan->nr_runs + 1, sizeof(*st->times));
	for (size_t w = 0; w < x->plan->nr_user_workloads; w++) {
		st->wl[w].stop = x->plan->nr_repetitions;
	}
	x->prec = st;
	for (size_t w = 0; w < x->plan->nr_user_workloads; w++) {
		decide_workload(x, w);
	}
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		struct run_info *ri = &x->runs[i];
		ri->conditional = ri->do_replay &&
				  x->plan->runs[i].repetition >= x->s->repeats;
	}
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		const char *why;
		if (!x->runs[i].conditional) {
			continue;
		}
		int need = need_of(x, i, &why);
		if (need == 0) {
			set_not_needed(x, i, why);
		} else if (need == 1) {
			x->runs[i].conditional = 0;
		}
	}
}

int exec_precision_undecided(struct exec_ctx *x, size_t i)
{
	const char *why;

	return x->runs[i].conditional && need_of(x, i, &why) < 0;
}

int exec_precision_gate(struct exec_ctx *x, size_t i)
{
	struct run_info *ri = &x->runs[i];
	const char *why;

	if (!ri->conditional) {
		return 0;
	}
	if (need_of(x, i, &why) == 0) {
		set_not_needed(x, i, why);
		return 1;
	}
	ri->conditional = 0;
	study_progress_plan(&x->pr, STUDY_STAGE_REPLAY);
	if (x->o->task != STUDY_TASK_RUN) {
		study_progress_plan(&x->pr, STUDY_STAGE_ANALYZE);
	}
	return 0;
}

void exec_precision_print_plan(const struct exec_ctx *x, FILE *f)
{
	size_t cond = 0;

	if (!on(x)) {
		return;
	}
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		cond += x->runs[i].conditional;
	}
	fprintf(f, "precision: a workload's runs are repeated beyond %u "
		"repetitions only while the 95%% interval of one of its STPs "
		"is wider than %g%% of its mean, at most %u times; %zu run%s "
		"to do if needed\n", x->s->repeats, x->s->precision * 100,
		x->s->max_repeats, cond, cond == 1 ? "" : "s");
}

void exec_precision_summary(struct exec_ctx *x, struct strbuf *sb)
{
	size_t stopped = 0, capped = 0, open = 0;

	if (!on(x) || !x->prec) {
		return;
	}
	for (size_t w = 0; w < x->plan->nr_user_workloads; w++) {
		const struct precision_info *pi = &state(x)->wl[w];
		decide_workload(x, w);	/* with what this invocation ran */
		if (pi->stop < x->plan->nr_repetitions) {
			stopped++;
		} else if (pi->known >= x->plan->nr_repetitions) {
			capped++;
		} else {
			open++;
		}
	}
	strbuf_addf(sb, "- precision (%g%%): %zu workload%s reached it, %zu "
		    "ran all %u repetitions, %zu not decided yet\n",
		    x->s->precision * 100, stopped, stopped == 1 ? "" : "s",
		    capped, x->s->max_repeats, open);
}

void exec_precision_release(struct exec_ctx *x)
{
	struct precision_state *st = state(x);

	if (!st) {
		return;
	}
	for (size_t w = 0; w < x->plan->nr_user_workloads; w++) {
		free(st->wl[w].why);
	}
	for (size_t i = 0; i < x->plan->nr_runs; i++) {
		struct run_times *t = &st->times[i];
		for (size_t p = 0; p < t->nr; p++) {
			free(t->names[p]);
		}
		free(t->names);
		free(t->mean_ns);
	}
	free(st->wl);
	free(st->times);
	free(st);
	x->prec = NULL;
}
