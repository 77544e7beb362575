/* SPDX-License-Identifier: MIT */
/*
 * The policy planner of the elastic variant (see launch_plan.h): a
 * captured launch of a transformed kernel gets the physical grid that
 * GETPHYGRID/REDUCEBLOCKS (phygrid.h) computes under the limits of the
 * run's resource policy (policy.h), and, when the kernel ran long enough
 * alone, is cut into timeslices of about --timeslice-us: ranges of
 * logical blocks launched one after another, the next when the previous
 * one completed (the scheduler waits for each range).
 *
 * What the policies look at:
 *   - the kernel's block usage, from the transformed function's
 *     attributes (registers, static shared memory, maximum block) and the
 *     launch's block and dynamic shared memory (BLOCKUSAGE);
 *   - MEDIAN: the median kernel of the profiled suite (--profile, the
 *     `single` runs of the study, on this GPU), or of this workload's
 *     kernels when no profile is given (the manifest says which);
 *   - MPMAX: each co-running program's largest kernel, per resource, over
 *     the kernels its launch table launches;
 *   - EQUAL: the number of co-running programs;
 *   - QUEUEMOLD: the newest kernel another program queued after this one
 *     and before it was issued (only a kernel that waited is molded);
 *   - MPMAX-CLIFF: MPMAX, then the kernel's cliff map (--cliff-map, a
 *     sweep's points): a grid of blocks per SM on a cliff's slow side
 *     moved off it (common/cliff_map.h);
 *   - timeslicing: the kernel's time alone from the profile.
 * Kernels that were not transformed, and cooperative or cluster launches,
 * run as captured.
 */
#include "launch_plan.h"

#include <inttypes.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cliff_map.h"
#include "cu_check.h"
#include "error.h"
#include "kernel_profile.h"
#include "kvfile.h"
#include "phygrid.h"
#include "policy.h"
#include "replay_int.h"
#include "timeslice.h"

struct pol_launch {
	int elastic;			/* planned by the policy */
	struct gm_kernel_attrs attrs;
	uint64_t blocks;		/* logical */
	uint64_t resident_alone;	/* blocks at once with the whole GPU */
	struct gm_phygrid whole;	/* GETPHYGRID with the whole GPU */
	double alone_ms;		/* from the profile, 0: unknown */
};

struct pol_prog {
	struct pol_launch *launch;
	struct gm_block_need *needs;	/* its kernels (MPMAX's largest) */
	size_t nr_needs;
	struct gm_limits limits;	/* MEDIAN, MPMAX, EQUAL */
	int have_limits;
};

struct pol_arrival {
	struct gm_queued_kernel k;
	uint64_t seq;			/* run-wide arrival number */
};

struct pol_run {
	pthread_mutex_t lock;
	enum gm_policy policy;
	struct gm_device_limits dev;
	struct gm_kprofile profile;
	int have_profile;
	struct gm_block_need median;
	int median_from;		/* 0 none, 1 profile, 2 workload */
	struct pol_prog *progs;		/* per program */
	struct pol_arrival *arrived;	/* per program: its newest kernel */
	uint64_t arrivals;
	atomic_uint_fast64_t planned, limited, sliced, ranges, molded, kept;
	struct gm_cliff_map cliffs;	/* MPMAX-CLIFF */
	atomic_uint_fast64_t cliff_moved;
	atomic_uint_fast64_t logical_blocks, physical_blocks;
};

static struct pol_run *pol(struct gm_run *run)
{
	return run->planner_state;
}

static int pol_run_init(struct gm_run *run)
{
	struct pol_run *r = gm_xcalloc(1, sizeof(*r));
	const struct gm_device_info *d = &run->device;
	char cc[16];

	run->planner_state = r;
	pthread_mutex_init(&r->lock, NULL);
	if (gm_policy_parse(run->opt.policy ? run->opt.policy : "none",
			    &r->policy) < 0) {
		return -1;
	}
	snprintf(cc, sizeof(cc), "%d.%d", d->cc_major, d->cc_minor);
	gm_device_limits_for_run(&r->dev, d->name, cc, d->sm_count,
				 d->max_threads_per_sm, d->max_blocks_per_sm,
				 d->regs_per_sm, d->smem_per_sm);
	r->progs = gm_xcalloc(run->w->nr_programs, sizeof(*r->progs));
	r->arrived = gm_xcalloc(run->w->nr_programs, sizeof(*r->arrived));
	if (run->opt.profile_path) {
		if (gm_kprofile_read(&r->profile, run->opt.profile_path) < 0) {
			return -1;
		}
		for (size_t i = 0; i < r->profile.nr; i++) {
			if (strcmp(r->profile.rows[i].device, d->name)) {
				return gm_error("profile '%s' was measured on "
						"'%s', this GPU is '%s'",
						run->opt.profile_path,
						r->profile.rows[i].device,
						d->name);
			}
		}
		r->have_profile = 1;
	}
	if (r->policy == GM_POLICY_MPMAX_CLIFF &&
	    gm_cliff_map_read(&r->cliffs, run->opt.cliff_map,
			      GM_CLIFF_THRESHOLD) < 0) {
		return -1;
	}
	return 0;
}

static void pol_run_release(struct gm_run *run)
{
	struct pol_run *r = pol(run);

	if (!r) {
		return;
	}
	for (unsigned i = 0; i < run->w->nr_programs; i++) {
		free(r->progs[i].launch);
		free(r->progs[i].needs);
	}
	free(r->progs);
	free(r->arrived);
	gm_kprofile_release(&r->profile);
	gm_cliff_map_release(&r->cliffs);
	pthread_mutex_destroy(&r->lock);
	free(r);
	run->planner_state = NULL;
}

static int func_attr(CUfunction f, CUfunction_attribute a, int *out)
{
	return CU_CHECK(cuFuncGetAttribute(out, a, f));
}

static void add_need(struct pol_prog *pp, const struct gm_kernel_attrs *k)
{
	struct gm_block_need n;

	gm_block_need_of(k, &n);
	for (size_t i = 0; i < pp->nr_needs; i++) {
		if (!memcmp(&pp->needs[i], &n, sizeof(n))) {
			return;
		}
	}
	pp->needs = gm_xrealloc(pp->needs, (pp->nr_needs + 1) * sizeof(n));
	pp->needs[pp->nr_needs++] = n;
}

/* Block usage of every launch of a transformed kernel, in its thread. */
static int pol_prog_init(struct gm_prog *p)
{
	const struct gm_program_desc *d = p->d;
	struct pol_run *r = pol(p->run);
	struct pol_prog *pp = &r->progs[p->index];
	struct gm_limits full;

	gm_limits_full(&r->dev, &full);
	pp->launch = gm_xcalloc(d->nr_launches + 1, sizeof(*pp->launch));
	for (uint32_t i = 0; i < d->nr_launches; i++) {
		const struct gm_launch_desc *l = &d->launches[i];
		struct pol_launch *pl = &pp->launch[i];
		CUfunction f = p->funcs[l->kernel];
		enum gm_elastic_class cls = p->el_class ? p->el_class[l->kernel]
							: GM_ELASTIC_NONE;
		int regs = 0, smem = 0, maxt = 0;
		struct gm_block_usage u;

		if (cls == GM_ELASTIC_NONE || l->cluster[0] ||
		    (l->flags & GM_LAUNCH_COOPERATIVE)) {
			continue;
		}
		if (func_attr(f, CU_FUNC_ATTRIBUTE_NUM_REGS, &regs) ||
		    func_attr(f, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, &smem) ||
		    func_attr(f, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK,
			      &maxt)) {
			return gm_error("cannot read the attributes of '%s'",
					d->kernels[l->kernel].name);
		}
		pl->attrs.threads_per_block =
			(int)(l->block[0] * l->block[1] * l->block[2]);
		pl->attrs.regs_per_thread = regs;
		pl->attrs.static_smem = (size_t)smem;
		pl->attrs.dynamic_smem = gm_launch_smem(p, l);
		pl->attrs.max_threads_per_block = maxt;
		pl->attrs.thread_elastic = cls == GM_ELASTIC_THREAD;
		pl->blocks = (uint64_t)l->grid[0] * l->grid[1] * l->grid[2];
		if (!pl->blocks || pl->blocks > UINT32_MAX ||
		    gm_block_usage(&r->dev, &pl->attrs,
				   pl->attrs.threads_per_block, &u) < 0) {
			gm_error_clear();
			continue;	/* runs as captured */
		}
		pl->resident_alone = (uint64_t)u.sm_blocks * r->dev.sm_count;
		if (gm_getphygrid(&r->dev, &pl->attrs, pl->blocks, &full,
				  &pl->whole) < 0) {
			gm_error_clear();
			continue;	/* runs as captured */
		}
		pl->elastic = 1;
		add_need(pp, &pl->attrs);
		if (r->have_profile) {
			const struct gm_kprofile_row *row = gm_kprofile_find(
				&r->profile, d->name, d->kernels[l->kernel].name,
				pl->blocks);
			if (row && row->mean_ns > 0) {
				/* another grid of the kernel: per block */
				pl->alone_ms = row->mean_ns / 1e6 *
					       (double)pl->blocks /
					       (double)row->grid_blocks;
			}
		}
	}
	return 0;
}

/* The suite's median kernel: unique kernels of the profile, each with
 * its most launched shape; or this workload's kernels. */
static int median_kernel(struct gm_run *run, struct pol_run *r)
{
	struct gm_program_profile *pp;
	struct gm_block_need *needs;
	size_t n = 0;
	int ret;

	if (r->have_profile && r->profile.nr) {
		needs = gm_xcalloc(r->profile.nr, sizeof(*needs));
		for (size_t i = 0; i < r->profile.nr; i++) {
			const struct gm_kprofile_row *x = &r->profile.rows[i];
			const struct gm_kprofile_row *best = gm_kprofile_find(
				&r->profile, x->program, x->kernel, 0);
			if (best != x) {
				continue;	/* another shape of it */
			}
			needs[n].threads = (int)x->block_threads;
			needs[n].registers = (int)(x->block_threads * x->regs);
			needs[n].smem = x->static_smem + x->dynamic_smem;
			n++;
		}
		struct gm_program_profile all = { "suite", needs, n };
		ret = gm_median_kernel(&all, 1, &r->median);
		free(needs);
		r->median_from = 1;
		return ret;
	}
	pp = gm_xcalloc(run->w->nr_programs, sizeof(*pp));
	for (unsigned i = 0; i < run->w->nr_programs; i++) {
		pp[i].name = run->w->programs[i]->name;
		pp[i].kernels = r->progs[i].needs;
		pp[i].nr_kernels = r->progs[i].nr_needs;
	}
	ret = gm_median_kernel(pp, run->w->nr_programs, &r->median);
	free(pp);
	r->median_from = 2;
	return ret;
}

/* The program's policy limits, once every program is initialised. */
static int prog_limits(struct gm_prog *p, struct pol_run *r,
		       struct pol_prog *pp)
{
	struct gm_run *run = p->run;
	unsigned n = run->w->nr_programs;
	int ret = 0;

	pthread_mutex_lock(&r->lock);
	if (pp->have_limits) {
		goto out;
	}
	switch (r->policy) {
	case GM_POLICY_MEDIAN:
		if (!r->median_from && median_kernel(run, r) < 0) {
			ret = -1;
			goto out;
		}
		gm_policy_median(&r->dev, &r->median, &pp->limits);
		break;
	case GM_POLICY_MPMAX:
	case GM_POLICY_MPMAX_CLIFF: {
		struct gm_program_profile *all = gm_xcalloc(n, sizeof(*all));
		for (unsigned i = 0; i < n; i++) {
			all[i].name = run->w->programs[i]->name;
			all[i].kernels = r->progs[i].needs;
			all[i].nr_kernels = r->progs[i].nr_needs;
		}
		ret = gm_policy_mpmax(&r->dev, all, n, p->index, &pp->limits);
		free(all);
		break;
	}
	case GM_POLICY_EQUAL:
		gm_policy_equal(&r->dev, n, &pp->limits);
		break;
	default:
		gm_limits_full(&r->dev, &pp->limits);
		break;
	}
	pp->have_limits = ret == 0;
out:
	pthread_mutex_unlock(&r->lock);
	return ret;
}

static int pol_begin(struct gm_prog *p, uint32_t launch,
		     struct gm_launch_cursor *c)
{
	struct pol_run *r = pol(p->run);
	struct pol_launch *pl = &r->progs[p->index].launch[launch];

	/* Until the policy plans it: the captured grid, as identity has it. */
	gm_planner_identity.begin(p, launch, c);
	if (!pl->elastic) {
		return 0;
	}
	c->elastic = 1;
	c->total = pl->blocks;
	c->step = pl->blocks;
	c->next = 0;
	if (r->policy == GM_POLICY_QUEUEMOLD) {
		struct pol_arrival *a = &r->arrived[p->index];
		pthread_mutex_lock(&r->lock);
		a->k.attrs = pl->attrs;
		a->k.blocks = pl->blocks;
		a->seq = ++r->arrivals;
		c->arrival = a->seq;
		pthread_mutex_unlock(&r->lock);
	}
	return 0;
}

/* QUEUEMOLD: the newest kernel of another program that arrived after
 * this one; 0 when none did (no molding). */
static int newest_arrival(struct gm_prog *p, struct pol_run *r, uint64_t since,
			  struct gm_queued_kernel *out)
{
	uint64_t best = since;

	pthread_mutex_lock(&r->lock);
	for (unsigned i = 0; i < p->run->w->nr_programs; i++) {
		if (i != p->index && r->arrived[i].seq > best) {
			best = r->arrived[i].seq;
			*out = r->arrived[i].k;
		}
	}
	pthread_mutex_unlock(&r->lock);
	return best > since;
}

/* Whether the policy's limits change the grid @g that GETPHYGRID gives
 * for @pl: they do not when the whole GPU would give the same. */
static int limits_bind(const struct pol_launch *pl, const struct gm_phygrid *g)
{
	return g->blocks < pl->whole.blocks || g->threads != pl->whole.threads;
}

/*
 * MPMAX-CLIFF: the grid @g that MPMAX gave launch @launch, as blocks per
 * SM, moved off a cliff of the kernel's map (to at most what fits alone:
 * a move up takes room MPMAX kept for the others, which a cliff's cost
 * is deemed to outweigh).
 */
static void cliff_move(struct gm_prog *p, struct pol_run *r,
		       const struct pol_launch *pl, uint32_t launch,
		       struct gm_phygrid *g)
{
	const char *name = p->d->kernels[p->d->launches[launch].kernel].name;
	const struct gm_cliff_curve *cv = gm_cliff_map_find(&r->cliffs, name);
	uint64_t sms = (uint64_t)r->dev.sm_count;
	int bps, fit, to;

	if (!cv || !sms || g->blocks < sms) {
		return;
	}
	bps = (int)(g->blocks / sms);
	fit = (int)(pl->resident_alone / sms);
	to = gm_cliff_adjust(cv, r->cliffs.threshold, bps, fit);
	if (to == bps) {
		return;
	}
	g->blocks = (uint64_t)to * sms < pl->blocks ? (uint64_t)to * sms
						     : pl->blocks;
	atomic_fetch_add_explicit(&r->cliff_moved, 1, memory_order_relaxed);
	if (gm_debug_on()) {
		gm_log(p->run, "replay: mpmax-cliff: program=%s, kernel=%s, "
		       "launch=%" PRIu32 ", %d -> %d blocks per SM", p->d->name,
		       name, launch, bps, to);
	}
}

/* At the first range: the physical grid and the timeslices. */
static int plan_grid(struct gm_prog *p, struct gm_launch_cursor *c)
{
	struct gm_run *run = p->run;
	struct pol_run *r = pol(run);
	struct pol_prog *pp = &r->progs[p->index];
	struct pol_launch *pl = &pp->launch[c->launch];
	struct gm_limits lim;
	struct gm_phygrid g;
	struct gm_timeslice_plan ts;

	if (r->policy == GM_POLICY_QUEUEMOLD) {
		struct gm_queued_kernel arrived, waiting = { pl->attrs,
							     pl->blocks };
		int got = newest_arrival(p, r, c->arrival, &arrived);
		if (gm_policy_queuemold(&r->dev, &waiting, got ? &arrived : NULL,
					0, &lim) < 0) {
			return -1;
		}
		if (got) {
			atomic_fetch_add_explicit(&r->molded, 1,
						  memory_order_relaxed);
		}
	} else {
		if (prog_limits(p, r, pp) < 0) {
			return -1;
		}
		lim = pp->limits;
	}
	if (gm_getphygrid(&r->dev, &pl->attrs, pl->blocks, &lim, &g) < 0) {
		return -1;
	}
	if (r->policy == GM_POLICY_MPMAX_CLIFF) {
		cliff_move(p, r, pl, c->launch, &g);
	}
	c->resident = g.blocks;
	if (run->opt.grid == GM_GRID_CAPTURED && !limits_bind(pl, &g)) {
		/* Blocks beyond the resident ones wait in the hardware's
		 * queue without holding anything, so the loop of Algorithm
		 * 1's cap would only add its cost. */
		c->resident = (uint32_t)pl->blocks;
		atomic_fetch_add_explicit(&r->kept, 1, memory_order_relaxed);
	} else if (g.threads != pl->attrs.threads_per_block) {
		c->block[0] = (uint32_t)g.threads;
		c->block[1] = c->block[2] = 1;
	}
	if (g.blocks < pl->blocks && g.blocks < pl->resident_alone) {
		atomic_fetch_add_explicit(&r->limited, 1, memory_order_relaxed);
	}
	c->step = pl->blocks;
	if (pl->alone_ms > 0 && run->opt.timeslice_us > 0 &&
	    gm_timeslice_plan((uint32_t)pl->blocks, pl->alone_ms,
			      (uint32_t)(pl->resident_alone < pl->blocks ?
					 pl->resident_alone : pl->blocks),
			      run->opt.timeslice_us / 1e3, &ts) == 0 &&
	    ts.count > 1) {
		c->step = ts.per_slice;
		c->back_to_back = 0;	/* a range when the last one is done */
		atomic_fetch_add_explicit(&r->sliced, 1, memory_order_relaxed);
	}
	gm_error_clear();
	return 0;
}

static int pol_next(struct gm_prog *p, struct gm_launch_cursor *c,
		    uint32_t grid[3], struct gm_elastic_args *a)
{
	const struct gm_launch_desc *l = &p->d->launches[c->launch];
	struct pol_run *r = pol(p->run);
	uint64_t off = c->next;
	uint32_t lim, n;

	if (off >= c->total) {
		return 0;
	}
	if (!c->elastic) {
		return gm_planner_identity.next(p, c, grid, a);
	}
	if (off == 0 && plan_grid(p, c) < 0) {
		return -1;
	}
	lim = (uint32_t)(c->total - off < c->step ? c->total - off : c->step);
	n = c->resident < lim ? c->resident : lim;
	if (!n) {
		n = 1;
	}
	gm_elastic_args_identity(a, l->grid, l->block);
	if (n == c->total && c->block[0] * c->block[1] * c->block[2] ==
				     l->block[0] * l->block[1] * l->block[2]) {
		/* The whole grid at once: the kernel's identity path. */
		memcpy(grid, l->grid, sizeof(l->grid));
	} else {
		gm_elastic_shape(n, l->grid, (uint32_t)off, lim, grid);
		a->offset = (uint32_t)off;
		a->limit = lim;
	}
	c->next = off + lim;
	c->launches++;
	atomic_fetch_add_explicit(&r->physical_blocks, n, memory_order_relaxed);
	return 1;
}

static void pol_end(struct gm_prog *p, struct gm_launch_cursor *c)
{
	struct gm_run *run = p->run;
	struct pol_run *r = pol(run);

	if (!c->elastic) {
		gm_planner_identity.end(p, c);
		return;
	}
	atomic_fetch_add_explicit(&run->el_count.elastic, 1,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&run->el_count.physical, c->launches,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&r->ranges, c->launches, memory_order_relaxed);
	atomic_fetch_add_explicit(&r->logical_blocks, c->total,
				  memory_order_relaxed);
	atomic_fetch_add_explicit(&r->planned, 1, memory_order_relaxed);
}

static void pol_manifest(struct gm_run *run, struct kvfile *kv)
{
	struct pol_run *r = pol(run);
	static const char *const from[] = { "none", "profile", "workload" };

	if (!r) {
		return;
	}
	kvfile_set(kv, "elastic.policy", gm_policy_name(r->policy));
	kvfile_set(kv, "elastic.profile", run->opt.profile_path ? run->opt.profile_path
							   : "none");
	if (r->policy == GM_POLICY_MEDIAN) {
		kvfile_set(kv, "elastic.median_from", from[r->median_from]);
		kvfile_setf(kv, "elastic.median_kernel",
			    "%d threads, %d registers, %zu bytes",
			    r->median.threads, r->median.registers,
			    r->median.smem);
	}
	kvfile_setf(kv, "elastic.timeslice_us", "%g", run->opt.timeslice_us);
	kvfile_set(kv, "elastic.grid", gm_grid_mode_name(run->opt.grid));
	kvfile_set_u64(kv, "elastic.captured_grid_launches",
		       atomic_load(&r->kept));
	kvfile_set_u64(kv, "elastic.planned_launches", atomic_load(&r->planned));
	kvfile_set_u64(kv, "elastic.limited_launches", atomic_load(&r->limited));
	kvfile_set_u64(kv, "elastic.sliced_launches", atomic_load(&r->sliced));
	kvfile_set_u64(kv, "elastic.ranges", atomic_load(&r->ranges));
	kvfile_set_u64(kv, "elastic.molded_launches", atomic_load(&r->molded));
	if (r->policy == GM_POLICY_MPMAX_CLIFF) {
		kvfile_set_u64(kv, "elastic.cliff_moved_launches",
			       atomic_load(&r->cliff_moved));
	}
	kvfile_set_u64(kv, "elastic.logical_blocks",
		       atomic_load(&r->logical_blocks));
	kvfile_set_u64(kv, "elastic.physical_blocks",
		       atomic_load(&r->physical_blocks));
}

const struct gm_planner gm_planner_policy = {
	.name = "policy",
	.run_init = pol_run_init,
	.prog_init = pol_prog_init,
	.begin = pol_begin,
	.next = pol_next,
	.end = pol_end,
	.manifest = pol_manifest,
	.run_release = pol_run_release,
};

/* Here, not in launch_plan.c: the policy planner builds on the
 * identity one, never the other way (no circle of files). */
const struct gm_planner *gm_planner_for(const struct gm_replay_opts *o)
{
	if (o->variant && (o->variant->flags & GM_VARIANT_POLICY)) {
		return &gm_planner_policy;
	}
	return o->elastic.mode > GM_ELASTIC_IDENTITY ? &gm_planner_explicit :
						       &gm_planner_identity;
}
