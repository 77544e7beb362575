/* SPDX-License-Identifier: MIT */
/*
 * The open-loop figures (see plot_priv.h): for each point of a sweep
 * (runs.openLoop; "all" for runs without one) the CDF of the requests'
 * latency per variant, the requests of the point's runs pooled over the
 * repetitions ("open-loop-cdf-POINT"); against load, per variant, the
 * p99 latency with the batch programs' throughput relative to alone on a
 * second axis ("open-loop-p99") and the SLO attainment
 * ("open-loop-slo"), the means of table open-loop-load. Variants are the
 * labels without the point (gm_report_open_loop_variant()).
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "plot_figure.h"
#include "plot_priv.h"
#include "report_tables.h"
#include "stats.h"

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* The distinct base variants of the open-loop rows, in row order. */
static size_t variants(const struct gm_analysis *a, char ***out)
{
	char **v = gm_xcalloc(a->nopen_loop + 1, sizeof(*v));
	size_t n = 0;

	for (size_t i = 0; i < a->nopen_loop; i++) {
		char *b = gm_report_open_loop_variant(a->open_loop[i].run);
		size_t k = 0;
		while (k < n && strcmp(v[k], b)) {
			k++;
		}
		if (k < n) {
			free(b);
		} else {
			v[n++] = b;
		}
	}
	*out = v;
	return n;
}

static int same_variant(const struct gm_an_open_loop *o, const char *v)
{
	char *b = gm_report_open_loop_variant(o->run);
	int same = !strcmp(b, v);

	free(b);
	return same;
}

static int cdf_figure(struct fig_ctx *c, const struct gm_analysis *a,
		      const char *point, char **vars, size_t nvars)
{
	struct strbuf data = STRBUF_INIT, plot = STRBUF_INIT;
	struct strbuf stem = STRBUF_INIT, title = STRBUF_INIT;
	size_t blocks = 0;
	int ret;

	strbuf_addstr(&plot, "plot ");
	strbuf_addf(&stem, "open-loop-cdf-%s", *point ? point : "all");
	for (size_t v = 0; v < nvars; v++) {
		double *lat = NULL;
		size_t n = 0;
		for (size_t i = 0; i < a->nopen_loop; i++) {
			const struct gm_an_open_loop *o = &a->open_loop[i];
			if (strcmp(o->run->open_loop, point) ||
			    !same_variant(o, vars[v])) {
				continue;
			}
			lat = gm_xrealloc(lat, (n + o->n) * sizeof(*lat));
			memcpy(lat + n, o->latency, o->n * sizeof(*lat));
			n += o->n;
		}
		if (!n) {
			free(lat);
			continue;
		}
		qsort(lat, n, sizeof(*lat), cmp_double);
		strbuf_addf(&data, "%s# %s\n", blocks ? "\n\n" : "", vars[v]);
		for (size_t i = 0; i < n; i++) {
			strbuf_addf(&data, "%.9g %.9g\n", lat[i] / 1e6,
				    (double)(i + 1) / (double)n);
		}
		free(lat);
		strbuf_addf(&plot, "%s'%s.dat' index %zu using 1:2 with steps lw 2"
			    " title ", blocks ? ", \\\n     " : "", stem.buf,
			    blocks);
		gm_plot_gp_str(&plot, vars[v]);
		blocks++;
	}
	strbuf_addf(&title, "Open loop: request latency CDF per variant (%s)",
		    *point ? point : "every run");
	ret = gm_plot_add_figure(c, stem.buf, title.buf, NULL, &data,
				 "set xlabel 'request latency (ms)'\n"
				 "set ylabel 'fraction of requests'\n"
				 "set yrange [0:1]\nset key bottom right\n"
				 "set grid\n", plot.buf);
	strbuf_release(&data);
	strbuf_release(&plot);
	strbuf_release(&stem);
	strbuf_release(&title);
	return ret;
}

/* Per variant, per load (ascending): mean p99 (ms), SLO attainment (%)
 * and batch throughput over the runs at that load. */
static int load_figures(struct fig_ctx *c, const struct gm_analysis *a,
			char **vars, size_t nvars)
{
	struct strbuf data = STRBUF_INIT, p99 = STRBUF_INIT, slo = STRBUF_INIT;
	double *loads = gm_xcalloc(a->nopen_loop + 1, sizeof(double));
	size_t nloads = 0, blocks = 0;
	int ret = 0;

	for (size_t i = 0; i < a->nopen_loop; i++) {
		double l = gm_report_open_loop_load(&a->open_loop[i]);
		size_t k = 0;
		while (k < nloads && loads[k] != l) {
			k++;
		}
		if (l >= 0 && k == nloads) {
			loads[nloads++] = l;
		}
	}
	if (!nloads) {
		gm_plot_skipped(c, "%s: no open-loop run with a known load (no "
				"alone time)", "Open loop against load");
		goto out;
	}
	qsort(loads, nloads, sizeof(*loads), cmp_double);
	strbuf_addstr(&p99, "plot ");
	strbuf_addstr(&slo, "plot ");
	for (size_t v = 0; v < nvars; v++) {
		strbuf_addf(&data, "%s# %s: load, p99 (ms), SLO attained (%%), "
			    "batch throughput (x alone)\n", blocks ? "\n\n" : "",
			    vars[v]);
		for (size_t k = 0; k < nloads; k++) {
			double p = 0, s = 0, b = 0;
			size_t n = 0, ns = 0, nb = 0;
			for (size_t i = 0; i < a->nopen_loop; i++) {
				const struct gm_an_open_loop *o = &a->open_loop[i];
				if (gm_report_open_loop_load(o) != loads[k] ||
				    !same_variant(o, vars[v])) {
					continue;
				}
				p += o->lat[GM_OL_P99];
				n++;
				if (!isnan(o->slo_attained)) {
					s += o->slo_attained;
					ns++;
				}
				if (!isnan(o->batch_speed)) {
					b += o->batch_speed;
					nb++;
				}
			}
			if (!n) {
				continue;
			}
			strbuf_addf(&data, "%.9g %.9g ", loads[k],
				    p / (double)n / 1e6);
			if (ns) {
				strbuf_addf(&data, "%.9g ", s / (double)ns * 100);
			} else {
				strbuf_addstr(&data, "NaN ");
			}
			if (nb) {
				strbuf_addf(&data, "%.9g\n", b / (double)nb);
			} else {
				strbuf_addstr(&data, "NaN\n");
			}
		}
		strbuf_addf(&p99, "%s'open-loop-p99.dat' index %zu using 1:2 "
			    "with linespoints lw 2 pt %zu lc %zu title ",
			    blocks ? ", \\\n     " : "", blocks, blocks % 12 + 1,
			    blocks + 1);
		gm_plot_gp_str(&p99, vars[v]);
		strbuf_addf(&p99, ", \\\n     'open-loop-p99.dat' index %zu using "
			    "1:4 axes x1y2 with linespoints dt 2 pt %zu lc %zu "
			    "title ", blocks, blocks % 12 + 1, blocks + 1);
		{
			struct strbuf t = STRBUF_INIT;
			strbuf_addf(&t, "%s: batch throughput", vars[v]);
			gm_plot_gp_str(&p99, t.buf);
			strbuf_release(&t);
		}
		strbuf_addf(&slo, "%s'open-loop-p99.dat' index %zu using 1:3 "
			    "with linespoints lw 2 pt %zu title ",
			    blocks ? ", \\\n     " : "", blocks, blocks % 12 + 1);
		gm_plot_gp_str(&slo, vars[v]);
		blocks++;
	}
	ret = gm_plot_add_figure(c, "open-loop-p99", "Open loop: p99 request "
				 "latency (solid) and the batch programs' "
				 "throughput (dashed) against load", NULL, &data,
				 "set xlabel 'load (offered rate x alone "
				 "service time)'\nset ylabel 'p99 latency (ms)'\n"
				 "set y2label 'batch throughput (x alone)'\n"
				 "set ytics nomirror\nset y2tics\n"
				 "set y2range [0:*]\nset offsets graph 0.05, "
				 "graph 0.05, graph 0.05, graph 0.05\n"
				 "set key outside right top\n"
				 "set grid\n", p99.buf);
	if (!ret) {
		/* (its data is open-loop-p99.dat's, written again) */
		ret = gm_plot_add_figure(c, "open-loop-slo", "Open loop: SLO "
					 "attainment per variant against load",
					 NULL, &data, "set xlabel 'load'\n"
					 "set ylabel 'requests within the SLO "
					 "(%)'\nset yrange [0:100]\n"
					 "set key outside right top\nset grid\n",
					 slo.buf);
	}
out:
	free(loads);
	strbuf_release(&data);
	strbuf_release(&p99);
	strbuf_release(&slo);
	return ret;
}

int gm_plot_open_loop(struct fig_ctx *c, const struct gm_analysis *a)
{
	char **vars = NULL, **points;
	size_t nvars, npoints = 0;
	int ret = 0;

	if (!a->nopen_loop) {
		gm_plot_skipped(c, "%s: no open-loop runs", "Open loop");
		return 0;
	}
	nvars = variants(a, &vars);
	points = gm_xcalloc(a->nopen_loop + 1, sizeof(*points));
	for (size_t i = 0; i < a->nopen_loop; i++) {
		char *p = a->open_loop[i].run->open_loop;
		size_t k = 0;
		while (k < npoints && strcmp(points[k], p)) {
			k++;
		}
		if (k == npoints) {
			points[npoints++] = p;
		}
	}
	for (size_t k = 0; !ret && k < npoints; k++) {
		ret = cdf_figure(c, a, points[k], vars, nvars);
	}
	if (!ret) {
		ret = load_figures(c, a, vars, nvars);
	}
	for (size_t v = 0; v < nvars; v++) {
		free(vars[v]);
	}
	free(vars);
	free(points);
	return ret;
}
