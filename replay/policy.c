/* SPDX-License-Identifier: MIT */
/*
 * Concurrency policies (see policy.h).
 */
#include "policy.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "variant.h"

/* The names are common/policies.c's table's. */
const char *gm_policy_name(enum gm_policy p)
{
	const struct gm_policy_desc *d = gm_policy_at((size_t)p);

	return d ? d->name : "?";
}

int gm_policy_parse(const char *name, enum gm_policy *out)
{
	const struct gm_policy_desc *d = gm_policy_desc_find(name);

	/* run directories and study files say "none" for no policy */
	if (!strcmp(name, "none")) {
		d = gm_policy_at(GM_POLICY_LEFTOVER);
	}
	if (!d) {
		return gm_error("unknown policy '%s' (none or leftover, %s)",
				name, gm_policy_list());
	}
	*out = d->policy;
	return 0;
}

void gm_block_need_of(const struct gm_kernel_attrs *k,
		      struct gm_block_need *out)
{
	out->threads = k->threads_per_block;
	out->registers = k->threads_per_block * k->regs_per_thread;
	out->smem = k->static_smem + k->dynamic_smem;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

static double median_of(double *v, size_t n)
{
	qsort(v, n, sizeof(*v), cmp_double);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

int gm_median_kernel(const struct gm_program_profile *progs, size_t n,
		     struct gm_block_need *out)
{
	size_t total = 0, k = 0;

	for (size_t i = 0; i < n; i++) {
		total += progs[i].nr_kernels;
	}
	memset(out, 0, sizeof(*out));
	if (!total) {
		return gm_error("no kernel profiles: cannot compute the median kernel");
	}
	double *t = gm_xmalloc(total * sizeof(double));
	double *r = gm_xmalloc(total * sizeof(double));
	double *s = gm_xmalloc(total * sizeof(double));
	for (size_t i = 0; i < n; i++) {
		for (size_t j = 0; j < progs[i].nr_kernels; j++, k++) {
			t[k] = progs[i].kernels[j].threads;
			r[k] = progs[i].kernels[j].registers;
			s[k] = (double)progs[i].kernels[j].smem;
		}
	}
	/* rounded up: a reservation must not fall short */
	double mt = median_of(t, total), mr = median_of(r, total);
	double ms = median_of(s, total);
	out->threads = (int)mt + (mt > (int)mt);
	out->registers = (int)mr + (mr > (int)mr);
	out->smem = (size_t)ms + (ms > (double)(size_t)ms);
	free(t);
	free(r);
	free(s);
	return 0;
}

void gm_largest_kernel(const struct gm_program_profile *p,
		       struct gm_block_need *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t j = 0; j < p->nr_kernels; j++) {
		const struct gm_block_need *k = &p->kernels[j];
		if (k->threads > out->threads) {
			out->threads = k->threads;
		}
		if (k->registers > out->registers) {
			out->registers = k->registers;
		}
		if (k->smem > out->smem) {
			out->smem = k->smem;
		}
	}
}

static uint64_t sub0(uint64_t a, uint64_t b)
{
	return a > b ? a - b : 0;
}

void gm_limits_reserve(const struct gm_device_limits *dev,
		       const struct gm_block_need *reserve,
		       struct gm_limits *out)
{
	uint64_t sms = (uint64_t)dev->sm_count;
	uint64_t w = (uint64_t)dev->warp_size;
	uint64_t warps = ((uint64_t)reserve->threads + w - 1) / w;
	uint64_t threads = warps * w;
	uint64_t regs = 0, smem = 0;

	if (warps && reserve->registers > 0) {
		/* registers per thread, then the per-warp allocation unit */
		uint64_t rpt = ((uint64_t)reserve->registers + threads - 1) / threads;
		uint64_t unit = (uint64_t)dev->reg_alloc_unit;
		uint64_t per_warp = (rpt * w + unit - 1) / unit * unit;
		regs = per_warp * warps;
	}
	if (reserve->threads > 0 || reserve->smem > 0) {
		uint64_t unit = (uint64_t)dev->smem_alloc_unit;
		smem = reserve->smem
			? (reserve->smem + dev->smem_reserved_per_block + unit - 1) /
				  unit * unit
			: dev->smem_reserved_per_block;
	}
	out->threads = sms * sub0((uint64_t)dev->max_threads_per_sm, threads);
	out->registers = sms * sub0((uint64_t)dev->regs_per_sm, regs);
	out->smem = sms * sub0((uint64_t)dev->smem_per_sm, smem);
	out->blocks = sms * sub0((uint64_t)dev->max_blocks_per_sm,
				 reserve->threads > 0 ? 1 : 0);
}

void gm_policy_median(const struct gm_device_limits *dev,
		      const struct gm_block_need *median,
		      struct gm_limits *out)
{
	gm_limits_reserve(dev, median, out);
}

int gm_policy_mpmax(const struct gm_device_limits *dev,
		    const struct gm_program_profile *progs, size_t n,
		    size_t self, struct gm_limits *out)
{
	struct gm_block_need others = { 0 };

	if (self >= n) {
		return gm_error("program %zu of %zu co-running programs", self, n);
	}
	for (size_t i = 0; i < n; i++) {
		struct gm_block_need l;
		if (i == self) {
			continue;
		}
		gm_largest_kernel(&progs[i], &l);
		if (l.threads > others.threads) {
			others.threads = l.threads;
		}
		if (l.registers > others.registers) {
			others.registers = l.registers;
		}
		if (l.smem > others.smem) {
			others.smem = l.smem;
		}
	}
	if (n == 1) {
		gm_limits_full(dev, out);
		return 0;
	}
	gm_limits_reserve(dev, &others, out);
	return 0;
}

void gm_policy_equal(const struct gm_device_limits *dev, size_t n,
		     struct gm_limits *out)
{
	gm_limits_full(dev, out);
	if (n > 1) {
		out->blocks /= n;
		out->threads /= n;
		out->registers /= n;
		out->smem /= n;
	}
}

/* Resources a queued grid holds while it runs (resident blocks only). */
static int grid_hold(const struct gm_device_limits *dev,
		     const struct gm_queued_kernel *q, uint64_t *smem,
		     uint64_t *threads)
{
	struct gm_block_usage u;

	if (gm_block_usage(dev, &q->attrs, q->attrs.threads_per_block, &u) < 0) {
		return -1;
	}
	uint64_t res = (uint64_t)u.sm_blocks * (uint64_t)dev->sm_count;
	uint64_t n = q->blocks < res ? q->blocks : res;
	*smem = n * u.smem;
	*threads = n * (uint64_t)u.threads;
	return 0;
}

int gm_policy_queuemold(const struct gm_device_limits *dev,
			const struct gm_queued_kernel *waiting,
			const struct gm_queued_kernel *arrived,
			int threads_per_sm, struct gm_limits *out)
{
	uint64_t ws, wt, as, at;

	gm_limits_full(dev, out);
	if (!arrived) {
		return 0;
	}
	if (grid_hold(dev, waiting, &ws, &wt) < 0 ||
	    grid_hold(dev, arrived, &as, &at) < 0) {
		return -1;
	}
	if (ws + as > out->smem) {
		out->smem = sub0(out->smem, as);
	}
	if (threads_per_sm <= 0) {
		threads_per_sm = GM_QUEUEMOLD_THREADS_PER_SM;
	}
	uint64_t cap = (uint64_t)threads_per_sm * (uint64_t)dev->sm_count;
	if (wt > cap) {
		out->threads = cap;
	}
	return 0;
}

int gm_policy_limits(const struct gm_policy_input *in, struct gm_limits *out)
{
	switch (in->policy) {
	case GM_POLICY_LEFTOVER:
		gm_limits_full(in->dev, out);
		return 0;
	case GM_POLICY_MEDIAN:
		if (!in->median) {
			return gm_error("MEDIAN needs the median kernel of the suite");
		}
		gm_policy_median(in->dev, in->median, out);
		return 0;
	case GM_POLICY_MPMAX:
	case GM_POLICY_MPMAX_CLIFF:	/* (its cliff moves: per launch) */
		return gm_policy_mpmax(in->dev, in->progs, in->nr_progs,
				       in->self, out);
	case GM_POLICY_EQUAL:
		gm_policy_equal(in->dev, in->nr_progs ? in->nr_progs : 1, out);
		return 0;
	case GM_POLICY_QUEUEMOLD:
		if (!in->waiting) {
			return gm_error("QUEUEMOLD needs the waiting kernel");
		}
		return gm_policy_queuemold(in->dev, in->waiting, in->arrived,
					   in->queuemold_threads_per_sm, out);
	}
	return gm_error("unknown policy %d", (int)in->policy);
}
