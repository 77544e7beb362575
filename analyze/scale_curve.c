/* SPDX-License-Identifier: MIT */
/*
 * SM-scalability curves (see scale_curve.h).
 */
#include "scale_curve.h"

#include <stdlib.h>
#include <string.h>

#include "activity_reader.h"
#include "error.h"
#include "run_reader.h"
#include "strbuf.h"

static int same(const char *a, const char *b)
{
	return (!a && !b) || (a && b && !strcmp(a, b));
}

void gm_scale_add_point(struct gm_scale *s, const char *program,
			const char *kernel, unsigned sms, double ms)
{
	struct gm_scale_curve *c = NULL;

	for (size_t i = 0; i < s->nr; i++) {
		if (!strcmp(s->curves[i].program, program) &&
		    same(s->curves[i].kernel, kernel)) {
			c = &s->curves[i];
			break;
		}
	}
	if (!c) {
		GM_ALLOC_GROW(s->curves, s->nr + 1, s->alloc);
		c = &s->curves[s->nr++];
		memset(c, 0, sizeof(*c));
		c->program = gm_xstrdup(program);
		c->kernel = kernel ? gm_xstrdup(kernel) : NULL;
	}
	GM_ALLOC_GROW(c->pts, c->nr + 1, c->alloc);
	c->pts[c->nr].sms = sms;
	c->pts[c->nr].ms = ms;
	c->nr++;
}

/* Per kernel name: GPU time inside kept replays. */
struct ktime {
	char *name;
	double ns;
};

static int kept_replay(const struct gm_run_dir *run, int64_t start,
		       int64_t end)
{
	for (size_t i = 0; i < run->nr_replays; i++) {
		const struct gm_replay *r = &run->replays[i];
		if (r->kept && start >= r->start && end <= r->end) {
			return 1;
		}
	}
	return 0;
}

static int add_kernels(struct gm_scale *s, const struct gm_run_dir *run,
		       unsigned sms, size_t kept)
{
	struct gm_activity_reader rd;
	struct gm_activity a;
	struct ktime *k = NULL;
	size_t nr = 0, alloc = 0;
	int r, ret = -1;

	if (gm_activity_reader_open(&rd, run) < 0) {
		goto out;
	}
	while ((r = gm_activity_reader_next(&rd, &a)) == 1) {
		size_t i;
		if (a.kind != GM_ACT_KERNEL || a.end <= a.start ||
		    !kept_replay(run, a.start, a.end)) {
			continue;
		}
		for (i = 0; i < nr && strcmp(k[i].name, a.name); i++) {
		}
		if (i == nr) {
			GM_ALLOC_GROW(k, nr + 1, alloc);
			k[nr].name = gm_xstrdup(a.name);
			k[nr].ns = 0;
			nr++;
		}
		k[i].ns += (double)(a.end - a.start);
	}
	if (r < 0) {
		goto out;
	}
	for (size_t i = 0; i < nr; i++) {
		gm_scale_add_point(s, run->programs[0].name, k[i].name, sms,
				   k[i].ns / 1e6 / (double)kept);
	}
	ret = 0;
out:
	gm_activity_reader_close(&rd);
	for (size_t i = 0; i < nr; i++) {
		free(k[i].name);
	}
	free(k);
	return ret;
}

int gm_scale_add_run(struct gm_scale *s, const char *path, unsigned sms)
{
	struct gm_run_dir run;
	double ns = 0;
	size_t kept = 0;
	int ret = -1;

	if (gm_run_dir_read_alone(&run, path) < 0) {
		goto out;
	}
	for (size_t i = 0; i < run.nr_replays; i++) {
		const struct gm_replay *r = &run.replays[i];
		if (r->kept) {
			ns += (double)(r->end - r->start - r->io);
			kept++;
		}
	}
	if (!kept) {
		gm_error("the run has no kept replay");
		goto out;
	}
	gm_scale_add_point(s, run.programs[0].name, NULL, sms,
			   ns / 1e6 / (double)kept);
	ret = add_kernels(s, &run, sms, kept);
out:
	if (ret < 0) {
		gm_error("cannot read the scaling run '%s'", path);
	}
	gm_run_dir_release(&run);
	return ret;
}

static int by_sms(const void *a, const void *b)
{
	const struct gm_scale_point *x = a, *y = b;

	return (x->sms > y->sms) - (x->sms < y->sms);
}

void gm_scale_sort(struct gm_scale *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		qsort(s->curves[i].pts, s->curves[i].nr,
		      sizeof(*s->curves[i].pts), by_sms);
	}
}

int gm_scale_knee(const struct gm_scale_curve *c, double tolerance,
		  unsigned *knee, double *full_ms)
{
	double full;

	if (!c->nr) {
		return -1;
	}
	full = c->pts[c->nr - 1].ms;
	*full_ms = full;
	*knee = c->pts[c->nr - 1].sms;
	for (size_t i = 0; i < c->nr; i++) {
		if (c->pts[i].ms <= full * (1 + tolerance)) {
			*knee = c->pts[i].sms;
			break;
		}
	}
	return 0;
}

/* The SM counts of every curve of @program, sorted, unique. */
static size_t sm_columns(const struct gm_scale *s, const char *program,
			 unsigned **out)
{
	unsigned *v = NULL;
	size_t n = 0, alloc = 0;

	for (size_t i = 0; i < s->nr; i++) {
		const struct gm_scale_curve *c = &s->curves[i];
		if (strcmp(c->program, program)) {
			continue;
		}
		for (size_t p = 0; p < c->nr; p++) {
			size_t j = 0;
			while (j < n && v[j] != c->pts[p].sms) {
				j++;
			}
			if (j == n) {
				GM_ALLOC_GROW(v, n + 1, alloc);
				v[n++] = c->pts[p].sms;
			}
		}
	}
	for (size_t i = 1; i < n; i++) {
		for (size_t j = i; j && v[j - 1] > v[j]; j--) {
			unsigned t = v[j];
			v[j] = v[j - 1];
			v[j - 1] = t;
		}
	}
	*out = v;
	return n;
}

static void write_md(const struct gm_scale *s, FILE *md)
{
	for (size_t i = 0; i < s->nr; i++) {
		const struct gm_scale_curve *c = &s->curves[i];
		unsigned *cols;
		size_t n;

		if (c->kernel) {
			continue;
		}
		n = sm_columns(s, c->program, &cols);
		fprintf(md, "## %s: time (ms) against SMs\n\n| curve |",
			c->program);
		for (size_t j = 0; j < n; j++) {
			fprintf(md, " %u |", cols[j]);
		}
		fputs(" knee (SMs) |\n| --- |", md);
		for (size_t j = 0; j <= n; j++) {
			fputs(" ---: |", md);
		}
		fputc('\n', md);
		for (size_t k = 0; k < s->nr; k++) {
			const struct gm_scale_curve *e = &s->curves[k];
			unsigned knee;
			double full;
			if (strcmp(e->program, c->program)) {
				continue;
			}
			fprintf(md, "| %s |", e->kernel ? e->kernel :
						   "(program)");
			for (size_t j = 0; j < n; j++) {
				size_t p = 0;
				while (p < e->nr && e->pts[p].sms != cols[j]) {
					p++;
				}
				if (p < e->nr) {
					fprintf(md, " %.3f |", e->pts[p].ms);
				} else {
					fputs(" |", md);
				}
			}
			gm_scale_knee(e, GM_SCALE_KNEE_TOLERANCE, &knee, &full);
			fprintf(md, " %u |\n", knee);
		}
		fputc('\n', md);
		free(cols);
	}
}

void gm_scale_write(const struct gm_scale *s, FILE *csv, FILE *knees,
		    FILE *md)
{
	if (csv) {
		fputs("program,kernel,sms,time_ms,speedup,efficiency,of_full\n",
		      csv);
	}
	if (knees) {
		fputs("program,kernel,knee_sms,full_sms,full_ms\n", knees);
	}
	for (size_t i = 0; i < s->nr; i++) {
		const struct gm_scale_curve *c = &s->curves[i];
		const struct gm_scale_point *lo = &c->pts[0];
		unsigned knee;
		double full;

		if (gm_scale_knee(c, GM_SCALE_KNEE_TOLERANCE, &knee, &full)) {
			continue;
		}
		for (size_t p = 0; csv && p < c->nr; p++) {
			const struct gm_scale_point *pt = &c->pts[p];
			double speedup = pt->ms > 0 ? lo->ms / pt->ms : 0;
			double more = (double)pt->sms / lo->sms;
			fprintf(csv, "%s,%s,%u,%.6f,%.4f,%.4f,%.4f\n", c->program,
				c->kernel ? c->kernel : "", pt->sms, pt->ms,
				speedup, speedup / more,
				full > 0 ? pt->ms / full : 0);
		}
		if (knees) {
			fprintf(knees, "%s,%s,%u,%u,%.6f\n", c->program,
				c->kernel ? c->kernel : "", knee,
				c->pts[c->nr - 1].sms, full);
		}
	}
	if (md) {
		write_md(s, md);
	}
}

void gm_scale_release(struct gm_scale *s)
{
	for (size_t i = 0; i < s->nr; i++) {
		free(s->curves[i].program);
		free(s->curves[i].kernel);
		free(s->curves[i].pts);
	}
	free(s->curves);
	s->curves = NULL;
	s->nr = s->alloc = 0;
}
