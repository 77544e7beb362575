/* SPDX-License-Identifier: MIT */
/*
 * Replays side by side, one per GPU (gpumix run --gpus; see exec_priv.h).
 * Each GPU has a slot holding at most one replay, pinned to that GPU
 * through CUDA_VISIBLE_DEVICES (its UUID when known, with
 * CUDA_DEVICE_ORDER=PCI_BUS_ID so that an index means nvidia-smi's), so
 * two runs never share a GPU. Only the replays run at once: this process
 * stays the only writer of the state and the only loader of the database
 * (each replay that ends is recorded, then analyzed, one at a time, by
 * the handler its caller gives: exec_stages.c's), so several replays
 * ending together change nothing in how the state and the database are
 * written.
 */
#include "exec_priv.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "error.h"
#include "gpu_list.h"
#include "strbuf.h"
#include "study_path.h"

#define POLL_S 0.02

struct pool_slot {
	const struct gpu_info *gpu;
	char *env[3];		/* CUDA_VISIBLE_DEVICES, CUDA_DEVICE_ORDER */
	int busy;
	size_t run;
	struct exec_argv args;
	char *log, *label;
	struct stage_cmd cmd;
	struct stage_proc proc;
};

static void set_env(char **env, const struct gpu_info *g)
{
	char *vis = gpu_info_visible(g);

	env[0] = gm_xasprintf("CUDA_VISIBLE_DEVICES=%s", vis);
	env[1] = gm_xstrdup("CUDA_DEVICE_ORDER=PCI_BUS_ID");
	env[2] = NULL;
	free(vis);
}

void exec_pool_init(struct exec_ctx *x)
{
	const struct gpu_list *l = x->o->gpus;

	if (!l || !l->nr) {
		return;
	}
	x->slots = gm_xcalloc(l->nr, sizeof(*x->slots));
	x->nr_slots = l->nr;
	for (size_t i = 0; i < l->nr; i++) {
		x->slots[i].gpu = &l->v[i];
		set_env(x->slots[i].env, &l->v[i]);
	}
	x->stage_env = gm_xcalloc(3, sizeof(char *));
	set_env(x->stage_env, &l->v[0]);
	x->pr.parallel = (unsigned)l->nr;
}

/* The progress line: the stage that changed, then every GPU. */
static void show(struct exec_ctx *x, const struct pool_slot *changed,
		 struct strbuf *sb)
{
	strbuf_addf(sb, "[gpu %u] %s |", changed->gpu->index, changed->label);
	for (size_t i = 0; i < x->nr_slots; i++) {
		const struct pool_slot *sl = &x->slots[i];
		strbuf_addf(sb, " %u: %s", sl->gpu->index, sl->busy ?
			    x->plan->runs[sl->run].id : "idle");
	}
}

static void slot_clear(struct pool_slot *sl)
{
	exec_argv_release(&sl->args);
	free(sl->log);
	free(sl->label);
	sl->log = sl->label = NULL;
	sl->busy = 0;
}

/* The replay of @sl has ended: hand it to @ended (which records it and
 * analyzes its run). */
static int collect(struct exec_ctx *x, struct pool_slot *sl,
		   exec_replay_ended_fn *ended)
{
	size_t i = sl->run;
	int ret;

	if (sl->proc.r.interrupted) {
		slot_clear(sl);
		return 1;
	}
	exec_kill_hook(x, plan_run_stage(&x->plan->runs[i]), KILL_FINISHED);
	x->out->stages_run++;
	/* A failure line names this run, not the last one started. */
	snprintf(x->pr.label, sizeof(x->pr.label), "[gpu %u] %s",
		 sl->gpu->index, sl->label);
	char *log = gm_xstrdup(sl->log);
	slot_clear(sl);
	ret = ended(x, i, &sl->proc.r, log);
	free(log);
	return ret;
}

/*
 * Look at every replay in flight once; hand those that ended to @ended.
 * With @want_free, return as soon as a slot is free. 0, 1 (interrupted:
 * the signal went to every replay, and all have ended) or -1.
 */
static int poll_slots(struct exec_ctx *x, int want_free,
		      exec_replay_ended_fn *ended)
{
	int interrupted = 0;
	double sleep_s = 0.001;

	for (;;) {
		size_t busy = 0;
		int freed = 0;
		for (size_t s = 0; s < x->nr_slots; s++) {
			struct pool_slot *sl = &x->slots[s];
			if (!sl->busy) {
				freed = 1;
				continue;
			}
			if (!stage_exec_poll(&sl->proc)) {
				busy++;
				continue;
			}
			int ret = collect(x, sl, ended);
			if (ret == 1) {
				interrupted = 1;
			} else if (ret) {
				return ret;
			}
			freed = 1;
		}
		if (!busy && (interrupted || !want_free ||
			      stage_exec_interrupted())) {
			return interrupted || stage_exec_interrupted();
		}
		if (freed && want_free && !interrupted &&
		    !stage_exec_interrupted()) {
			return 0;
		}
		study_progress_tick(&x->pr);
		struct timespec ts = { 0, (long)(sleep_s * 1e9) };
		nanosleep(&ts, NULL);
		if (sleep_s < POLL_S) {
			sleep_s *= 2;
		}
	}
}

int exec_pool_start(struct exec_ctx *x, size_t i, struct exec_argv *a,
		    const char *log, const char *label,
		    exec_replay_ended_fn *ended)
{
	struct pool_slot *sl = NULL;
	struct strbuf sb = STRBUF_INIT;
	int ret;

	if (stage_exec_interrupted()) {
		return 1;
	}
	if ((ret = poll_slots(x, 1, ended))) {
		return ret;
	}
	for (size_t s = 0; s < x->nr_slots && !sl; s++) {
		if (!x->slots[s].busy) {
			sl = &x->slots[s];
		}
	}
	/* Take over the command line: it must outlive this call. */
	sl->args = *a;
	memset(a, 0, sizeof(*a));
	sl->log = gm_xstrdup(log);
	sl->label = gm_xstrdup(label);
	sl->run = i;
	sl->cmd = (struct stage_cmd){
		.argv = sl->args.v,
		.cwd = x->s->root,
		.log_path = sl->log,
		.timeout_s = x->s->stage_timeout_s,
		.env = sl->env,
	};
	x->current = plan_run_stage(&x->plan->runs[i]);
	if (stage_exec_start(&sl->cmd, &sl->proc)) {
		slot_clear(sl);
		return -1;
	}
	sl->busy = 1;
	show(x, sl, &sb);
	study_progress_begin(&x->pr, x->current, sb.buf);
	strbuf_release(&sb);
	exec_kill_hook(x, x->current, KILL_STARTED);
	return 0;
}

int exec_pool_drain(struct exec_ctx *x, exec_replay_ended_fn *ended)
{
	return x->nr_slots ? poll_slots(x, 0, ended) : 0;
}

void exec_pool_release(struct exec_ctx *x)
{
	for (size_t s = 0; s < x->nr_slots; s++) {
		struct pool_slot *sl = &x->slots[s];
		slot_clear(sl);
		free(sl->env[0]);
		free(sl->env[1]);
	}
	free(x->slots);
	if (x->stage_env) {
		free(x->stage_env[0]);
		free(x->stage_env[1]);
		free(x->stage_env);
	}
	x->slots = NULL;
	x->nr_slots = 0;
	x->stage_env = NULL;
}
