/* SPDX-License-Identifier: MIT */
/*
 * Plan generation (see plan.h): combinations in lexicographic order of the
 * 'of' list, exclusions by subset (an exclusion removes every workload
 * that contains all of its programs), duplicates detected on the sorted
 * program sets.
 */
#include "plan.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "instance_name.h"
#include "plan_order.h"
#include "strbuf.h"

const char *study_stage_name(enum study_stage stage)
{
	static const char *const names[STUDY_NR_STAGES] = {
		"capture", "reconstruct", "replay", "corun", "profile", "analyze",
		"report",
	};
	return stage < STUDY_NR_STAGES ? names[stage] : "?";
}

uint64_t study_binomial(unsigned n, unsigned k)
{
	uint64_t r = 1;

	if (k > n) {
		return 0;
	}
	if (k > n - k) {
		k = n - k;
	}
	for (unsigned i = 1; i <= k; i++) {
		/*
		 * r * m / i is C(n - k + i, i), a whole number, and grows with
		 * i. Dividing first keeps it exact without overflow: with
		 * g = gcd(r, i), i / g divides m.
		 */
		uint64_t m = n - k + i, g = r, b = i;
		while (b) {
			uint64_t t = g % b;
			g = b;
			b = t;
		}
		uint64_t x = r / g, y = m / (i / g);
		if (x > UINT64_MAX / y) {
			return UINT64_MAX;
		}
		r = x * y;
	}
	return r;
}

static void add_workload(struct study_plan *plan, const struct study *s,
			 const size_t *progs, size_t nr, struct yaml_pos pos,
			 int baseline_only)
{
	GM_ALLOC_GROW(plan->workloads, plan->nr_workloads + 1,
		      plan->alloc_workloads);
	struct plan_workload *w = &plan->workloads[plan->nr_workloads++];
	memset(w, 0, sizeof(*w));
	w->nr = nr;
	w->progs = gm_xmalloc(nr * sizeof(size_t));
	memcpy(w->progs, progs, nr * sizeof(size_t));
	const char **names = gm_xcalloc(nr + 1, sizeof(*names));
	for (size_t i = 0; i < nr; i++) {
		names[i] = s->programs[progs[i]].name;
	}
	/* Reconstruct's names (common/instance_name.h): the study's runs,
	 * its database and its builds agree on them. */
	w->inst = gm_instance_names(names, nr);
	w->name = gm_workload_name((const char *const *)w->inst, nr);
	free(names);
	w->pos = pos;
	w->baseline_only = baseline_only;
}

/* 1 when every program of @x is among the @k programs of @combo. */
static int contains_all(const struct study_names *x, const size_t *combo,
			size_t k)
{
	for (size_t i = 0; i < x->nr; i++) {
		size_t j = 0;
		while (j < k && combo[j] != x->progs[i]) {
			j++;
		}
		if (j == k) {
			return 0;
		}
	}
	return 1;
}

static int expand_combinations(struct study_plan *plan, const struct study *s,
			       const struct study_spec *spec)
{
	unsigned n = (unsigned)spec->set.nr, k = spec->size;
	uint64_t total = study_binomial(n, k);
	size_t before = plan->nr_workloads;

	if (total == UINT64_MAX) {
		/* (saturated: the true count does not fit in 64 bits) */
		return yaml_doc_error_at(s->path, spec->pos, "these combinations "
					 "make more than %.3g workloads; a study "
					 "holds at most %d", (double)UINT64_MAX,
					 STUDY_MAX_WORKLOADS);
	}
	if (total > STUDY_MAX_WORKLOADS ||
	    plan->nr_workloads + total > STUDY_MAX_WORKLOADS) {
		return yaml_doc_error_at(s->path, spec->pos, "these combinations "
					 "make %llu workloads; a study holds at "
					 "most %d", (unsigned long long)total,
					 STUDY_MAX_WORKLOADS);
	}
	unsigned *idx = gm_xcalloc(k, sizeof(*idx));
	size_t *combo = gm_xcalloc(k, sizeof(*combo));
	for (unsigned i = 0; i < k; i++) {
		idx[i] = i;
	}
	for (;;) {
		int excluded = 0;
		for (unsigned i = 0; i < k; i++) {
			combo[i] = spec->set.progs[idx[i]];
		}
		for (size_t e = 0; e < spec->nr_exclude && !excluded; e++) {
			excluded = contains_all(&spec->exclude[e], combo, k);
		}
		if (!excluded) {
			add_workload(plan, s, combo, k, spec->pos, 0);
		}
		/* Next combination: bump the rightmost index that can move. */
		int i = (int)k - 1;
		while (i >= 0 && idx[i] == n - k + (unsigned)i) {
			i--;
		}
		if (i < 0) {
			break;
		}
		idx[i]++;
		for (unsigned j = (unsigned)i + 1; j < k; j++) {
			idx[j] = idx[j - 1] + 1;
		}
	}
	free(idx);
	free(combo);
	if (plan->nr_workloads == before) {
		return yaml_doc_error_at(s->path, spec->pos, "the exclusions remove "
					 "every combination: no workload is left");
	}
	return 0;
}

struct wl_key {
	char *key;		/* sorted program indices */
	size_t index;
};

static int cmp_key(const void *a, const void *b)
{
	const struct wl_key *x = a, *y = b;
	int c = strcmp(x->key, y->key);

	if (c) {
		return c;
	}
	return x->index < y->index ? -1 : x->index > y->index;
}

static int cmp_size(const void *a, const void *b)
{
	size_t x = *(const size_t *)a, y = *(const size_t *)b;
	return x < y ? -1 : x > y;
}

/* Reject a program set that appears twice, at its second appearance. */
static int check_duplicates(const struct study_plan *plan,
			    const struct study *s)
{
	size_t nr = plan->nr_workloads;
	struct wl_key *keys = gm_xcalloc(nr ? nr : 1, sizeof(*keys));
	int ret = 0;

	for (size_t i = 0; i < nr; i++) {
		const struct plan_workload *w = &plan->workloads[i];
		size_t *sorted = gm_xmalloc(w->nr * sizeof(size_t));
		struct strbuf sb = STRBUF_INIT;
		memcpy(sorted, w->progs, w->nr * sizeof(size_t));
		qsort(sorted, w->nr, sizeof(size_t), cmp_size);
		for (size_t j = 0; j < w->nr; j++) {
			strbuf_addf(&sb, "%zu,", sorted[j]);
		}
		free(sorted);
		keys[i].key = strbuf_detach(&sb, NULL);
		keys[i].index = i;
	}
	qsort(keys, nr, sizeof(*keys), cmp_key);
	/* Report the duplicate that appears first in the file. */
	size_t best = nr, first = 0;
	for (size_t i = 1; i < nr; i++) {
		if (!strcmp(keys[i].key, keys[i - 1].key) && keys[i].index < best) {
			size_t j = i - 1;
			while (j > 0 && !strcmp(keys[j - 1].key, keys[i].key)) {
				j--;
			}
			best = keys[i].index;
			first = keys[j].index;
		}
	}
	if (best < nr) {
		const struct plan_workload *a = &plan->workloads[first];
		const struct plan_workload *b = &plan->workloads[best];
		if (!strcmp(a->name, b->name)) {
			ret = yaml_doc_error_at(s->path, b->pos, "workload '%s' is "
						"given twice (first at line %u)",
						b->name, a->pos.line);
		} else {
			ret = yaml_doc_error_at(s->path, b->pos, "workload '%s' is "
						"the same as '%s' (line %u)",
						b->name, a->name, a->pos.line);
		}
	}
	for (size_t i = 0; i < nr; i++) {
		free(keys[i].key);
	}
	free(keys);
	return ret;
}

/* One configuration of a repetition, before the repetitions are laid
 * out; @block: 0 for the alone block, 1 + i for user workload i. */
struct config {
	size_t workload;
	const struct gm_variant *variant;
	const char *policy;
	int baseline;
	size_t block;
	enum plan_run_kind kind;
	size_t point;		/* of the open-loop sweep, or SIZE_MAX */
};

struct config_list {
	struct config *v;
	size_t nr, alloc;
};

static void add_config(struct config_list *c, size_t wl,
		       const struct gm_variant *v, const char *policy,
		       int baseline, size_t block)
{
	GM_ALLOC_GROW(c->v, c->nr + 1, c->alloc);
	c->v[c->nr++] = (struct config){ wl, v, policy, baseline, block,
					 PLAN_REPLAY, SIZE_MAX };
}

/* 1 when workload @wl holds the study's open-loop program. */
static int open_loop_in(const struct study_plan *plan, const struct study *s,
			size_t wl)
{
	const struct plan_workload *w = &plan->workloads[wl];

	for (size_t j = 0; j < w->nr; j++) {
		if (w->progs[j] == s->open_loop.program) {
			return 1;
		}
	}
	return 0;
}

/* A replay configuration of a workload's variant: one per point of the
 * open-loop sweep when the workload holds the open-loop program and the
 * variant is no alone-time one (which measures the alone capacity, back
 * to back), else one. */
static void add_configs(struct config_list *c, const struct study_plan *plan,
			const struct study *s, size_t wl,
			const struct gm_variant *v, const char *policy,
			size_t block)
{
	if (s->open_loop.program == SIZE_MAX || !open_loop_in(plan, s, wl) ||
	    (v->flags & GM_VARIANT_ALONE)) {
		add_config(c, wl, v, policy, 0, block);
		return;
	}
	for (size_t i = 0; i < s->open_loop.nr_points; i++) {
		add_config(c, wl, v, policy, 0, block);
		c->v[c->nr - 1].point = i;
	}
}

/* A configuration of the co-runs (corun key): @v NULL for the co-run. */
static void add_corun_config(struct config_list *c, size_t wl,
			     const struct gm_variant *v, int baseline,
			     size_t block)
{
	GM_ALLOC_GROW(c->v, c->nr + 1, c->alloc);
	c->v[c->nr++] = (struct config){ wl, v, NULL, baseline, block,
					 v ? PLAN_ONE_SHOT : PLAN_CORUN,
					 SIZE_MAX };
}

/* 1 when variant @v needs one-shot runs for the co-runs: a one-shot
 * study's own runs of a listed variant serve instead. */
static int one_shot_needed(const struct study *s, const struct gm_variant *v)
{
	for (size_t i = 0; s->one_shot && i < s->nr_variants; i++) {
		if (s->variants[i] == v) {
			return 0;
		}
	}
	return 1;
}

/* 1 when user workload @w is co-run (corun key, two programs or more). */
static int co_run(const struct study_plan *plan, const struct study *s,
		  size_t w)
{
	return s->corun_repeats && plan->workloads[w].nr >= 2;
}

/* The co-run and its one-shot mechanism runs of user workload @w. */
static void add_corun_configs(struct study_plan *plan, const struct study *s,
			      struct config_list *c, size_t w, int per_workload)
{
	const struct gm_variant *alone = gm_variant_with(GM_VARIANT_ALONE);

	if (!co_run(plan, s, w)) {
		return;
	}
	if (per_workload && one_shot_needed(s, alone)) {
		add_corun_config(c, w, alone, 0, 1 + w);
	}
	for (size_t m = 0; m < s->nr_corun_mechs; m++) {
		if (one_shot_needed(s, s->corun_mechs[m])) {
			add_corun_config(c, w, s->corun_mechs[m], 0, 1 + w);
		}
	}
	add_corun_config(c, w, NULL, 0, 1 + w);
}

static void add_run(struct study_plan *plan, const struct study *s,
		    const struct config *c, size_t config, unsigned rep)
{
	GM_ALLOC_GROW(plan->runs, plan->nr_runs + 1, plan->alloc_runs);
	struct plan_run *r = &plan->runs[plan->nr_runs++];
	const char *wname = plan->workloads[c->workload].name;
	struct strbuf id = STRBUF_INIT;

	strbuf_addf(&id, "%s.%s", wname, c->variant ? c->variant->name :
								    "corun");
	if (c->policy) {
		strbuf_addf(&id, ".%s", c->policy);
	}
	if (c->point != SIZE_MAX) {
		char label[64];
		study_open_loop_label(s, c->point, label, sizeof(label));
		strbuf_addf(&id, ".%s", label);
	}
	if (c->kind == PLAN_ONE_SHOT) {
		strbuf_addstr(&id, ".one-shot");
	}
	if (rep) {
		strbuf_addf(&id, ".r%u", rep);
	}
	r->id = strbuf_detach(&id, NULL);
	r->kind = c->kind;
	r->workload = c->workload;
	r->variant = c->variant;
	r->policy = c->policy;
	r->baseline = c->baseline;
	r->repetition = rep;
	r->config = config;
	r->point = c->point;
	plan->by_config[config * plan->nr_repetitions + rep] = plan->nr_runs - 1;
}

/* The one-program workload of program @p, added when missing. */
static size_t baseline_workload(struct study_plan *plan, const struct study *s,
				size_t p)
{
	for (size_t i = 0; i < plan->nr_workloads; i++) {
		const struct plan_workload *w = &plan->workloads[i];
		if (w->nr == 1 && w->progs[0] == p) {
			return i;
		}
	}
	add_workload(plan, s, &p, 1, s->programs[p].pos, 1);
	return plan->nr_workloads - 1;
}

/* The configurations of one repetition, in the listed order. */
static void list_configs(struct study_plan *plan, const struct study *s,
			 struct config_list *c)
{
	size_t nr_user = plan->nr_user_workloads;
	int shared = s->baseline == STUDY_BASELINE_PROGRAM;
	/* Per-workload alone runs listed first, ahead of the profile. */
	int early = !shared && study_profiles(s);

	for (size_t i = 0; i < nr_user; i++) {
		const struct plan_workload *w = &plan->workloads[i];
		for (size_t j = 0; j < w->nr; j++) {
			plan->used[w->progs[j]] = 1;
		}
	}
	for (size_t v = 0; shared && v < s->nr_variants; v++) {
		if (!(s->variants[v]->flags & GM_VARIANT_ALONE)) {
			continue;
		}
		for (size_t p = 0; p < s->nr_programs; p++) {
			if (plan->used[p]) {
				add_config(c, baseline_workload(plan, s, p),
					   s->variants[v], NULL, 1, 0);
				plan->nr_baselines++;
			}
		}
	}
	/* The co-runs' one-shot alone runs: of each program a co-run
	 * workload holds. */
	if (shared && s->corun_repeats &&
	    one_shot_needed(s, gm_variant_with(GM_VARIANT_ALONE))) {
		int *co = gm_xcalloc(s->nr_programs + 1, sizeof(int));
		for (size_t i = 0; i < nr_user; i++) {
			for (size_t j = 0; co_run(plan, s, i) &&
					   j < plan->workloads[i].nr; j++) {
				co[plan->workloads[i].progs[j]] = 1;
			}
		}
		for (size_t p = 0; p < s->nr_programs; p++) {
			if (co[p]) {
				add_corun_config(c, baseline_workload(plan, s, p),
						 gm_variant_with(GM_VARIANT_ALONE),
						 1, 0);
			}
		}
		free(co);
	}
	for (size_t i = 0; early && i < nr_user; i++) {
		for (size_t v = 0; v < s->nr_variants; v++) {
			if (s->variants[v]->flags & GM_VARIANT_ALONE) {
				add_config(c, i, s->variants[v], NULL, 0, 0);
			}
		}
	}
	for (size_t i = 0; i < nr_user; i++) {
		for (size_t v = 0; v < s->nr_variants; v++) {
			const struct gm_variant *var = s->variants[v];
			if ((shared || early) && (var->flags & GM_VARIANT_ALONE)) {
				continue;
			}
			if (!(var->flags & GM_VARIANT_POLICY)) {
				add_configs(c, plan, s, i, var, NULL, 1 + i);
				continue;
			}
			for (size_t p = 0; p < s->nr_policies; p++) {
				add_configs(c, plan, s, i, var, s->policies[p],
					    1 + i);
			}
		}
		add_corun_configs(plan, s, c, i, !shared);
	}
}

/*
 * Every repetition of every configuration: repetition by repetition,
 * block by block (the configurations are listed block by block), each
 * block shuffled when there is more than one repetition.
 */
static void list_runs(struct study_plan *plan, const struct study *s)
{
	struct config_list c = { NULL, 0, 0 };
	unsigned reps = study_planned_repeats(s);

	list_configs(plan, s, &c);
	plan->nr_configs = c.nr;
	plan->nr_repetitions = reps;
	plan->by_config = gm_xcalloc(c.nr * reps + 1, sizeof(size_t));
	size_t *order = gm_xcalloc(c.nr + 1, sizeof(size_t));
	for (unsigned r = 0; r < reps; r++) {
		for (size_t b = 0; b < c.nr;) {
			size_t e = b;
			while (e < c.nr && c.v[e].block == c.v[b].block) {
				order[e - b] = e;
				e++;
			}
			if (reps > 1) {
				size_t blk = c.v[b].block;
				plan_order_shuffle(order, e - b, s->seed, r, blk ?
						   plan->workloads[blk - 1].name :
						   PLAN_ORDER_ALONE_BLOCK);
			}
			for (size_t k = 0; k < e - b; k++) {
				add_run(plan, s, &c.v[order[k]], order[k], r);
			}
			b = e;
		}
	}
	free(order);
	free(c.v);
}

int study_plan_build(struct study_plan *plan, const struct study *s)
{
	memset(plan, 0, sizeof(*plan));
	plan->used = gm_xcalloc(s->nr_programs ? s->nr_programs : 1,
				sizeof(int));
	for (size_t i = 0; i < s->nr_specs; i++) {
		const struct study_spec *spec = &s->specs[i];
		if (spec->kind == STUDY_SPEC_LIST) {
			if (plan->nr_workloads >= STUDY_MAX_WORKLOADS) {
				return yaml_doc_error_at(s->path, spec->pos, "a study "
							 "holds at most %d workloads",
							 STUDY_MAX_WORKLOADS);
			}
			add_workload(plan, s, spec->set.progs, spec->set.nr,
				     spec->pos, 0);
		} else if (expand_combinations(plan, s, spec)) {
			return -1;
		}
	}
	if (check_duplicates(plan, s)) {
		return -1;
	}
	plan->nr_user_workloads = plan->nr_workloads;
	list_runs(plan, s);
	return 0;
}

void study_plan_release(struct study_plan *plan)
{
	for (size_t i = 0; i < plan->nr_workloads; i++) {
		free(plan->workloads[i].name);
		free(plan->workloads[i].progs);
		for (size_t j = 0; plan->workloads[i].inst &&
				   j < plan->workloads[i].nr; j++) {
			free(plan->workloads[i].inst[j]);
		}
		free(plan->workloads[i].inst);
	}
	free(plan->workloads);
	for (size_t i = 0; i < plan->nr_runs; i++) {
		free(plan->runs[i].id);
	}
	free(plan->runs);
	free(plan->by_config);
	free(plan->used);
	memset(plan, 0, sizeof(*plan));
}

enum study_stage plan_run_stage(const struct plan_run *r)
{
	return r->kind == PLAN_CORUN ? STUDY_STAGE_CORUN : STUDY_STAGE_REPLAY;
}

const struct plan_run *plan_find_run(const struct study_plan *plan,
				     const char *id)
{
	for (size_t i = 0; i < plan->nr_runs; i++) {
		if (!strcmp(plan->runs[i].id, id)) {
			return &plan->runs[i];
		}
	}
	return NULL;
}

size_t plan_run_index(const struct study_plan *plan, size_t config,
		      unsigned rep)
{
	return plan->by_config[config * plan->nr_repetitions + rep];
}
