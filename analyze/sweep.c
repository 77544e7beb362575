/* SPDX-License-Identifier: MIT */
/*
 * Resource-specification sweeps: the plan and the cliff detector (see
 * sweep.h).
 */
#include "sweep.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"

/* The register caps tried below a kernel's own count (-maxrregcount). */
static const int reg_caps[] = { 255, 168, 128, 96, 80, 72, 64, 56, 48, 40,
				32, 24, 16 };

static const char *const axis_names[GM_SWEEP_AXES] = {
	[GM_SWEEP_SMEM] = "smem",
	[GM_SWEEP_REGS] = "regs",
	[GM_SWEEP_BLOCKS] = "blocks",
};

const char *gm_sweep_axis_name(enum gm_sweep_axis a)
{
	return (unsigned)a < GM_SWEEP_AXES ? axis_names[a] : "?";
}

int gm_sweep_axis_parse(const char *s, enum gm_sweep_axis *out)
{
	for (int a = 0; a < GM_SWEEP_AXES; a++) {
		if (!strcmp(s, axis_names[a])) {
			*out = (enum gm_sweep_axis)a;
			return 0;
		}
	}
	return -1;
}

static void add(struct gm_sweep_point **v, size_t *nr, size_t *alloc,
		enum gm_sweep_axis axis, long value, const struct gm_occupancy *o)
{
	GM_ALLOC_GROW(*v, *nr + 1, *alloc);
	(*v)[*nr].axis = axis;
	(*v)[*nr].value = value;
	(*v)[*nr].blocks_per_sm = o ? o->blocks_per_sm : 0;
	(*v)[*nr].limiting = o ? o->limiting : 0;
	(*nr)++;
}

/* Blocks per SM of @k with @pad more bytes of shared memory (0: none
 * fits). */
static int with_pad(const struct gm_device_limits *dev,
		    const struct gm_kernel_usage *k, size_t pad,
		    struct gm_occupancy *o)
{
	struct gm_kernel_usage p = *k;

	p.smem_per_block += pad;
	if (gm_occupancy_compute(dev, &p, o) < 0) {
		return 0;
	}
	return o->blocks_per_sm;
}

int gm_sweep_plan(const struct gm_device_limits *dev,
		  const struct gm_kernel_usage *k,
		  struct gm_sweep_point **out, size_t *nr)
{
	struct gm_occupancy base, o;
	size_t alloc = 0, room;

	*out = NULL;
	*nr = 0;
	if (gm_occupancy_compute(dev, k, &base) < 0) {
		char buf[64];
		return gm_error("one block does not fit on an SM (%s)",
				gm_resource_names(base.limiting, buf,
						  sizeof(buf)));
	}
	/* smem: the smallest padding that leaves exactly b per SM */
	room = dev->smem_per_block_optin > k->smem_per_block ?
		       dev->smem_per_block_optin - k->smem_per_block : 0;
	for (int b = base.blocks_per_sm; b >= 1; b--) {
		size_t lo = 0, hi = room;
		if (with_pad(dev, k, hi, &o) > b) {
			continue;	/* even the most padding leaves more */
		}
		while (lo < hi) {	/* smallest pad with at most b */
			size_t mid = lo + (hi - lo) / 2;
			if (with_pad(dev, k, mid, &o) > b) {
				lo = mid + 1;
			} else {
				hi = mid;
			}
		}
		if (with_pad(dev, k, lo, &o) == b) {
			add(out, nr, &alloc, GM_SWEEP_SMEM, (long)lo, &o);
		}
	}
	/* regs: its own count, then each cap below it */
	add(out, nr, &alloc, GM_SWEEP_REGS, k->regs_per_thread, &base);
	for (size_t i = 0; i < sizeof(reg_caps) / sizeof(reg_caps[0]); i++) {
		struct gm_kernel_usage c = *k;
		if (reg_caps[i] >= k->regs_per_thread) {
			continue;
		}
		c.regs_per_thread = reg_caps[i];
		if (gm_occupancy_compute(dev, &c, &o) == 0) {
			add(out, nr, &alloc, GM_SWEEP_REGS, reg_caps[i], &o);
		}
	}
	/* blocks: 1 .. its residency through the elastic grid */
	for (int b = 1; b <= base.blocks_per_sm; b++) {
		o = base;
		o.blocks_per_sm = b;
		o.limiting = b == base.blocks_per_sm ? base.limiting : 0;
		add(out, nr, &alloc, GM_SWEEP_BLOCKS, b, &o);
	}
	return 0;
}

static int by_key(const void *a, const void *b)
{
	const struct gm_sweep_measure *x = a, *y = b;
	int c = strcmp(x->program, y->program);

	if (!c) {
		c = strcmp(x->kernel, y->kernel);
	}
	if (!c) {
		c = (x->axis > y->axis) - (x->axis < y->axis);
	}
	if (!c) {
		c = (x->value > y->value) - (x->value < y->value);
	}
	return c;
}

static int same_curve(const struct gm_sweep_measure *x,
		      const struct gm_sweep_measure *y)
{
	return !strcmp(x->program, y->program) &&
	       !strcmp(x->kernel, y->kernel) && x->axis == y->axis;
}

int gm_sweep_cliffs(struct gm_sweep_measure *m, size_t n, double threshold,
		    struct gm_sweep_cliff **out, size_t *nr)
{
	size_t alloc = 0;

	*out = NULL;
	*nr = 0;
	qsort(m, n, sizeof(*m), by_key);
	for (size_t i = 0; i + 1 < n; i++) {
		const struct gm_sweep_measure *a = &m[i], *b = &m[i + 1];
		double lo = a->time_ms < b->time_ms ? a->time_ms : b->time_ms;
		double hi = a->time_ms < b->time_ms ? b->time_ms : a->time_ms;
		if (!same_curve(a, b) || !(lo > 0) ||
		    a->blocks_per_sm == b->blocks_per_sm ||
		    !((hi - lo) / lo > threshold)) {
			continue;
		}
		GM_ALLOC_GROW(*out, *nr + 1, alloc);
		(*out)[*nr].from = i;
		(*out)[*nr].to = i + 1;
		(*out)[*nr].jump = (hi - lo) / lo;
		(*nr)++;
	}
	return 0;
}

double gm_sweep_range(const struct gm_sweep_measure *m, size_t from,
		      size_t to)
{
	double best = 0, worst = 0;

	for (size_t i = from; i < to; i++) {
		if (i == from || m[i].time_ms < best) {
			best = m[i].time_ms;
		}
		if (i == from || m[i].time_ms > worst) {
			worst = m[i].time_ms;
		}
	}
	return best > 0 ? (worst - best) / best : 0;
}
