/* SPDX-License-Identifier: MIT */
/*
 * Launch planners: what a captured kernel launch becomes, between the
 * operation and the CUDA launches a scheduler issues. A planner turns one
 * captured launch into a sequence of physical launches, each with its
 * grid and, for a transformed (elastic) kernel, its struct
 * gm_elastic_args (logical grid, offset, limit). Planners:
 *
 *   identity  the captured grid, one launch; a transformed kernel runs
 *             with elasticity off (the fairness rule: every variant can
 *             run the same transformed code)
 *   explicit  the `--elastic MODE [--elastic-slice]` settings
 *             (common/elastic_plan.h): fixed physical grids and fixed
 *             slices, issued back to back on one stream
 *
 *   policy    the elastic variant (launch_policy.c): the physical grid
 *             from GETPHYGRID/REDUCEBLOCKS under the run's resource
 *             policy, and timeslices whose next range starts when the
 *             previous one completed
 * Schedulers drive a struct gm_launch_cursor with gm_planner.next() and
 * issue each physical launch with gm_launch_physical().
 */
#ifndef GM_LAUNCH_PLAN_H
#define GM_LAUNCH_PLAN_H

#include <stddef.h>
#include <stdint.h>

#include <cuda.h>

#include "elastic_abi.h"

struct gm_prog;
struct gm_run;
struct gm_replay_opts;
struct kvfile;

/* One captured launch on its way to physical launches. */
struct gm_launch_cursor {
	uint32_t launch;	/* launch id of the program */
	uint32_t block[3];	/* physical block (the captured one unless
				   the planner resized a thread-elastic
				   kernel) */
	int takes_args;		/* the kernel has the gm_elastic_args param */
	int elastic;		/* launches take the elastic path */
	int back_to_back;	/* ranges may be issued without waiting for
				   the previous one to complete */
	uint64_t total;		/* logical blocks */
	uint64_t step;		/* logical blocks per physical launch */
	uint64_t next;		/* offset of the next range */
	uint32_t resident;	/* resident blocks per SM (0: unknown) */
	uint64_t launches;	/* physical launches handed out */
	uint64_t shaped;	/* of which reshaped to keep the elastic path */
	uint64_t arrival;	/* policy planner: when it was queued */
};

struct gm_planner {
	const char *name;
	/* Per-run set-up after the device is known; 0 or -1. May be NULL,
	 * as may prog_init, manifest and run_release. */
	int (*run_init)(struct gm_run *run);
	/* Per-program set-up after the kernels are resolved; 0 or -1. */
	int (*prog_init)(struct gm_prog *p);
	/* Start captured launch @launch in @c; 0 or -1 (cause recorded). */
	int (*begin)(struct gm_prog *p, uint32_t launch,
		     struct gm_launch_cursor *c);
	/* The next physical launch: 1 with @grid and @a filled (@a only
	 * when c->takes_args), 0 when every range was handed out. */
	int (*next)(struct gm_prog *p, struct gm_launch_cursor *c,
		    uint32_t grid[3], struct gm_elastic_args *a);
	/* After the last range: count the launch for the manifest. */
	void (*end)(struct gm_prog *p, struct gm_launch_cursor *c);
	/* What it did, into the run manifest. */
	void (*manifest)(struct gm_run *run, struct kvfile *kv);
	void (*run_release)(struct gm_run *run);
};

/* The planner the options ask for: the policy planner for a variant that
 * takes a policy, explicit when --elastic gives a physical grid mode,
 * identity otherwise (launch_policy.c). */
const struct gm_planner *gm_planner_for(const struct gm_replay_opts *o);

extern const struct gm_planner gm_planner_identity;	/* launch_plan.c */
extern const struct gm_planner gm_planner_explicit;	/* launch_plan.c */
extern const struct gm_planner gm_planner_policy;	/* launch_policy.c */

/*
 * Fill @buf (at least the launch's parameter size + GM_ELASTIC_PARAM_SIZE
 * + 8 bytes) with the parameters of launch @launch of @p, relocations
 * resolved against the allocations live now. Returns the parameter size
 * in bytes, or -1 (cause recorded) when a relocation is dead.
 */
int64_t gm_params_fill(struct gm_prog *p, uint32_t launch, uint8_t *buf);

/*
 * Issue one physical launch of launch @launch on @st: its parameters are
 * in p->param_buf (@size bytes, from gm_params_fill()), @grid and @block
 * the physical grid and block, @a the elastic argument when the kernel takes one
 * (NULL otherwise). Cooperative and cluster launches keep their
 * attributes. Returns 0 or -1 (cause recorded).
 */
int gm_launch_physical(struct gm_prog *p, uint32_t launch,
		       const uint32_t grid[3], const uint32_t block[3],
		       const struct gm_elastic_args *a, size_t size,
		       CUstream st);

#endif
