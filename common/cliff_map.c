/* SPDX-License-Identifier: MIT */
/*
 * Cliff maps from a sweep's points and the move of a limit off a cliff
 * (cliff_map.h).
 */
#include "cliff_map.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "sweep_points.h"

const struct gm_cliff_curve *gm_cliff_map_find(const struct gm_cliff_map *m,
					       const char *kernel)
{
	for (size_t i = 0; m && i < m->nr; i++) {
		if (!strcmp(m->curves[i].kernel, kernel)) {
			return &m->curves[i];
		}
	}
	return NULL;
}

void gm_cliff_map_add(struct gm_cliff_map *m, const char *kernel,
		      const int *bps, const double *ms, size_t n)
{
	struct gm_cliff_curve *c;

	GM_ALLOC_GROW(m->curves, m->nr + 1, m->alloc);
	c = &m->curves[m->nr++];
	c->kernel = gm_xstrdup(kernel);
	c->bps = gm_xcalloc(n + 1, sizeof(*c->bps));
	c->ms = gm_xcalloc(n + 1, sizeof(*c->ms));
	c->nr = 0;
	/* Insertion by residency, the fastest point kept at a tie. */
	for (size_t i = 0; i < n; i++) {
		size_t j = 0;
		while (j < c->nr && c->bps[j] < bps[i]) {
			j++;
		}
		if (j < c->nr && c->bps[j] == bps[i]) {
			if (ms[i] < c->ms[j]) {
				c->ms[j] = ms[i];
			}
			continue;
		}
		memmove(&c->bps[j + 1], &c->bps[j], (c->nr - j) * sizeof(int));
		memmove(&c->ms[j + 1], &c->ms[j], (c->nr - j) * sizeof(double));
		c->bps[j] = bps[i];
		c->ms[j] = ms[i];
		c->nr++;
	}
}

/* The points of @kernel of @program on @axis into a curve of @m; 0 when
 * there are none. */
static size_t add_axis(struct gm_cliff_map *m, const struct gm_sweep_points *p,
		       const char *program, const char *kernel, const char *axis)
{
	int *bps = gm_xcalloc(p->nr + 1, sizeof(*bps));
	double *ms = gm_xcalloc(p->nr + 1, sizeof(*ms));
	size_t n = 0;

	for (size_t i = 0; i < p->nr; i++) {
		const struct gm_sweep_row *r = &p->rows[i];
		if (!strcmp(r->program, program) && !strcmp(r->kernel, kernel) &&
		    !strcmp(r->axis, axis) && r->blocks_per_sm > 0) {
			bps[n] = r->blocks_per_sm;
			ms[n++] = r->time_ms;
		}
	}
	if (n) {
		gm_cliff_map_add(m, kernel, bps, ms, n);
	}
	free(bps);
	free(ms);
	return n;
}

int gm_cliff_map_read(struct gm_cliff_map *m, const char *path,
		      double threshold)
{
	struct gm_sweep_points p = GM_SWEEP_POINTS_INIT;
	int ret = -1;

	memset(m, 0, sizeof(*m));
	m->threshold = threshold;
	if (gm_sweep_points_read(&p, path) < 0) {
		goto out;
	}
	if (!p.nr) {
		gm_error("'%s' holds no points", path);
		goto out;
	}
	for (size_t i = 0; i < p.nr; i++) {
		const struct gm_sweep_row *r = &p.rows[i];
		if (gm_cliff_map_find(m, r->kernel)) {
			continue;
		}
		if (!add_axis(m, &p, r->program, r->kernel, "blocks")) {
			add_axis(m, &p, r->program, r->kernel, "smem");
		}
	}
	ret = 0;
out:
	gm_sweep_points_release(&p);
	if (ret < 0) {
		gm_error("cannot read the cliff map '%s'", path);
	}
	return ret;
}

/* Whether @a is more than @threshold slower than @b. */
static int slower(double a, double b, double threshold)
{
	return b > 0 && (a - b) / b > threshold;
}

/* One move of gm_cliff_adjust(). */
static int adjust_once(const struct gm_cliff_curve *c, double threshold,
		       int limit, int fit)
{
	for (size_t i = 0; i + 1 < c->nr; i++) {
		size_t slow, fast;
		int lo, hi;
		if (slower(c->ms[i], c->ms[i + 1], threshold)) {
			slow = i;
			fast = i + 1;
		} else if (slower(c->ms[i + 1], c->ms[i], threshold)) {
			slow = i + 1;
			fast = i;
		} else {
			continue;
		}
		/* The slow side: from the slower point up to the next
		 * point of the curve (which has a time of its own). */
		lo = c->bps[slow];
		hi = slow + 1 < c->nr ? c->bps[slow + 1] : lo + 1;
		if (limit < lo || limit >= hi) {
			continue;
		}
		for (size_t j = fast; j < c->nr; j++) {
			if (c->bps[j] >= c->bps[fast] && c->bps[j] <= fit &&
			    j != slow) {
				return c->bps[j];
			}
		}
		return limit;
	}
	return limit;
}

int gm_cliff_adjust(const struct gm_cliff_curve *c, double threshold,
		    int limit, int fit)
{
	if (!c || c->nr < 2) {
		return limit;
	}
	/* The point moved to may be another cliff's slower one: each move
	 * goes to a faster point, so this ends. */
	for (size_t i = 0; i < c->nr; i++) {
		int next = adjust_once(c, threshold, limit, fit);
		if (next == limit) {
			break;
		}
		limit = next;
	}
	return limit;
}

void gm_cliff_map_release(struct gm_cliff_map *m)
{
	for (size_t i = 0; i < m->nr; i++) {
		free(m->curves[i].kernel);
		free(m->curves[i].bps);
		free(m->curves[i].ms);
	}
	free(m->curves);
	memset(m, 0, sizeof(*m));
}
