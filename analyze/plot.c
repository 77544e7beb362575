/* SPDX-License-Identifier: MIT */
/*
 * The report's figures (see plot.h): what each one plots, written and
 * drawn through plot_figure.c; the open-loop family is plot_open_loop.c.
 */
#include "plot.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "metrics_overlap.h"
#include "plot_figure.h"
#include "plot_priv.h"
#include "strbuf.h"

/* A label for a data file: double-quoted, no quotes or controls inside. */
static void dat_str(struct strbuf *sb, const char *s)
{
	strbuf_addch(sb, '"');
	for (; *s; s++) {
		strbuf_addch(sb, *s == '"' ? '\'' :
			     (unsigned char)*s < 0x20 ? ' ' : *s);
	}
	strbuf_addch(sb, '"');
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

typedef double (*run_value_fn)(const struct gm_an_run *r);

static double v_wait(const struct gm_an_run *r) { return r->wait.mean / 1e6; }
static double v_running(const struct gm_an_run *r) { return r->running; }
static double v_threads(const struct gm_an_run *r)
{
	return 100.0 * r->util[GM_UTIL_THREADS];
}

/*
 * A distribution figure: per variant, the per-workload values sorted
 * ascending against their rank (the paper's Figs. 9-13 style).
 */
static int sorted_figure(struct fig_ctx *c, const struct gm_analysis *a,
			 const char *stem, const char *title,
			 const char *ylabel, run_value_fn get, int with_alone,
			 int log_y)
{
	struct strbuf data = STRBUF_INIT, plot = STRBUF_INIT, setup = STRBUF_INIT;
	double *v = gm_xcalloc(a->nruns + 1, sizeof(double));
	size_t blocks = 0, maxn = 0;
	int positive = 1, ret;

	strbuf_addstr(&plot, "plot ");
	for (size_t k = 0; k < a->nvariants; k++) {
		size_t n = 0;
		for (size_t i = 0; i < a->nruns; i++) {
			const struct gm_an_run *r = &a->runs[i];
			double x;
			if (r->vindex != k || !r->ok ||
			    (r->alone && !with_alone)) {
				continue;
			}
			x = get(r);
			if (!isnan(x)) {
				v[n++] = x;
			}
		}
		if (!n) {
			continue;
		}
		qsort(v, n, sizeof(*v), cmp_double);
		strbuf_addf(&data, "%s# %s\n", blocks ? "\n\n" : "",
			    a->variants[k].label);
		for (size_t i = 0; i < n; i++) {
			strbuf_addf(&data, "%zu %.9g\n", i + 1, v[i]);
			positive &= v[i] > 0;
		}
		strbuf_addf(&plot, "%s'%s.dat' index %zu using 1:2 with linespoints"
			    " lw 2 pt %zu title ", blocks ? ", \\\n     " : "", stem,
			    blocks, blocks % 12 + 1);
		gm_plot_gp_str(&plot, a->variants[k].label);
		blocks++;
		maxn = n > maxn ? n : maxn;
	}
	free(v);
	if (!blocks) {
		gm_plot_skipped(c, "%s: no values to plot", title);
		ret = 0;
		goto out;
	}
	strbuf_addf(&setup, "set xlabel 'workloads, sorted by value (per variant)'\n"
		    "set ylabel ");
	gm_plot_gp_str(&setup, ylabel);
	strbuf_addf(&setup, "\nset key outside right top\nset grid\n"
		    "set xrange [0.5:%zu.5]\n%s", maxn,
		    log_y && positive ? "set logscale y\n" : "");
	ret = gm_plot_add_figure(c, stem, title, NULL, &data, setup.buf, plot.buf);
out:
	strbuf_release(&data);
	strbuf_release(&plot);
	strbuf_release(&setup);
	return ret;
}

typedef const struct gm_ci *(*cell_value_fn)(const struct gm_an_cell *c);

static const struct gm_ci *c_stp(const struct gm_an_cell *c) { return &c->stp; }
static const struct gm_ci *c_antt(const struct gm_an_cell *c) { return &c->antt; }

static int cmp_ci(const void *x, const void *y)
{
	const struct gm_ci *a = *(const struct gm_ci *const *)x;
	const struct gm_ci *b = *(const struct gm_ci *const *)y;

	return a->mean < b->mean ? -1 : a->mean > b->mean;
}

/*
 * Figs. 10 and 11: per variant, each workload's mean over its
 * repetitions, sorted ascending against their rank, with its 95% interval
 * as an error bar (none with one repetition).
 */
static int cell_figure(struct fig_ctx *c, const struct gm_analysis *a,
		       const char *stem, const char *title, const char *ylabel,
		       cell_value_fn get, int log_y)
{
	struct strbuf data = STRBUF_INIT, plot = STRBUF_INIT, setup = STRBUF_INIT;
	const struct gm_ci **v = gm_xcalloc(a->ncells + 1, sizeof(*v));
	size_t blocks = 0, maxn = 0;
	int positive = 1, bars = 0, ret;

	strbuf_addstr(&plot, "plot ");
	for (size_t k = 0; k < a->nvariants; k++) {
		size_t n = 0;
		for (size_t i = 0; i < a->ncells; i++) {
			const struct gm_an_cell *cell = &a->cells[i];
			if (cell->vindex == k && !cell->alone &&
			    !isnan(get(cell)->mean)) {
				v[n++] = get(cell);
			}
		}
		if (!n) {
			continue;
		}
		qsort(v, n, sizeof(*v), cmp_ci);
		strbuf_addf(&data, "%s# %s\n# rank mean lo hi (lo = hi = mean:"
			    " no interval)\n", blocks ? "\n\n" : "",
			    a->variants[k].label);
		for (size_t i = 0; i < n; i++) {
			int has = !isnan(v[i]->lo) && !isnan(v[i]->hi);
			strbuf_addf(&data, "%zu %.9g %.9g %.9g\n", i + 1, v[i]->mean,
				    has ? v[i]->lo : v[i]->mean,
				    has ? v[i]->hi : v[i]->mean);
			positive &= v[i]->mean > 0 && (!has || v[i]->lo > 0);
			bars |= has;
		}
		strbuf_addf(&plot, "%s'%s.dat' index %zu using 1:2:3:4 with"
			    " yerrorlines lw 2 pt %zu title ",
			    blocks ? ", \\\n     " : "", stem, blocks,
			    blocks % 12 + 1);
		gm_plot_gp_str(&plot, a->variants[k].label);
		blocks++;
		maxn = n > maxn ? n : maxn;
	}
	free(v);
	if (!blocks) {
		gm_plot_skipped(c, "%s: no values to plot", title);
		ret = 0;
		goto out;
	}
	strbuf_addf(&setup, "set xlabel 'workloads, sorted by value (per"
		    " variant)%s'\nset ylabel ", bars ? "; bars: 95% interval"
		    " over the repetitions" : "");
	gm_plot_gp_str(&setup, ylabel);
	strbuf_addf(&setup, "\nset key outside right top\nset grid\n"
		    "set xrange [0.5:%zu.5]\n%s", maxn,
		    log_y && positive ? "set logscale y\n" : "");
	ret = gm_plot_add_figure(c, stem, title,
			bars ? "error bars: the 95% interval of each"
			" workload's mean over its repetitions" : NULL,
			&data, setup.buf, plot.buf);
out:
	strbuf_release(&data);
	strbuf_release(&plot);
	strbuf_release(&setup);
	return ret;
}

/*
 * Per-program p99 slowdowns, sorted, one line per variant (the alone
 * variant, whose slowdown is 1 by definition, left out) and one more per
 * variant for its high-priority programs, so the priority variant shows
 * what it does for the program it favours.
 */
static int latency_figure(struct fig_ctx *c, const struct gm_analysis *a)
{
	struct strbuf data = STRBUF_INIT, plot = STRBUF_INIT, setup = STRBUF_INIT;
	struct strbuf label = STRBUF_INIT;
	size_t count = 0, blocks = 0, maxn = 0;
	int positive = 1, ret;

	for (size_t i = 0; i < a->nruns; i++) {
		count += a->runs[i].nprog;
	}
	double *v = gm_xcalloc(count + 1, sizeof(double));
	strbuf_addstr(&plot, "plot ");
	for (size_t k = 0; k < a->nvariants; k++) {
		for (int high = 0; high < 2; high++) {
			size_t n = 0;
			for (size_t i = 0; i < a->nruns; i++) {
				const struct gm_an_run *r = &a->runs[i];
				if (r->vindex != k || !r->ok || r->alone) {
					continue;
				}
				for (size_t j = 0; j < r->nprog; j++) {
					double x = r->progs[j].lat.slowdown[GM_LAT_P99];
					if (!isnan(x) && (!high || r->progs[j].high_priority)) {
						v[n++] = x;
					}
				}
			}
			if (!n) {
				continue;
			}
			qsort(v, n, sizeof(*v), cmp_double);
			strbuf_reset(&label);
			strbuf_addf(&label, "%s%s", a->variants[k].label,
				    high ? " (high-priority programs)" : "");
			strbuf_addf(&data, "%s# %s\n", blocks ? "\n\n" : "",
				    label.buf);
			for (size_t i = 0; i < n; i++) {
				strbuf_addf(&data, "%zu %.9g\n", i + 1, v[i]);
				positive &= v[i] > 0;
			}
			strbuf_addf(&plot, "%s'latency-p99.dat' index %zu using 1:2"
				    " with linespoints lw 2 pt %zu%s title ",
				    blocks ? ", \\\n     " : "", blocks,
				    blocks % 12 + 1, high ? " dt 2" : "");
			gm_plot_gp_str(&plot, label.buf);
			blocks++;
			maxn = n > maxn ? n : maxn;
		}
	}
	free(v);
	if (!blocks) {
		gm_plot_skipped(c, "%s: no p99 slowdowns (no runs with a"
				" baseline)", "Latency");
		ret = 0;
		goto out;
	}
	strbuf_addf(&setup, "set xlabel 'programs of the workloads, sorted by"
		    " value (per variant)'\nset ylabel 'p99 replay time / p99"
		    " alone (lower is better)'\nset key outside right top\n"
		    "set grid\nset xrange [0.5:%zu.5]\n%s", maxn,
		    positive ? "set logscale y\n" : "");
	ret = gm_plot_add_figure(c, "latency-p99",
			"Latency: p99 replay-time slowdown per program, sorted",
			NULL, &data, setup.buf, plot.buf);
out:
	strbuf_release(&data);
	strbuf_release(&plot);
	strbuf_release(&setup);
	strbuf_release(&label);
	return ret;
}

static int overlap_figure(struct fig_ctx *c, const struct gm_analysis *a)
{
	struct strbuf data = STRBUF_INIT, plot = STRBUF_INIT;
	size_t rows = 0;
	int ret;

	strbuf_addstr(&data, "# variant EXCLUSIVE FULL RESTRICTED PARTIAL (% of kernel time)\n");
	for (size_t k = 0; k < a->nvariants; k++) {
		const struct gm_an_variant *v = &a->variants[k];
		double total = 0;
		for (int i = 0; i < GM_OVERLAP_COUNT; i++) {
			total += v->cat_ns[i];
		}
		if (!(total > 0)) {
			continue;
		}
		dat_str(&data, v->label);
		for (int i = 0; i < GM_OVERLAP_COUNT; i++) {
			strbuf_addf(&data, " %.6f", 100.0 * v->cat_ns[i] / total);
		}
		strbuf_addch(&data, '\n');
		rows++;
	}
	if (!rows) {
		gm_plot_skipped(c, "%s: no kernel time", "Fig. 8");
		ret = 0;
		goto out;
	}
	strbuf_addstr(&plot, "plot ");
	for (int i = 0; i < GM_OVERLAP_COUNT; i++) {
		strbuf_addf(&plot, "%s'fig08-overlap.dat' using %d%s title ",
			    i ? ", \\\n     " : "", i + 2, i ? "" : ":xtic(1)");
		gm_plot_gp_str(&plot, gm_overlap_name(i));
	}
	ret = gm_plot_add_figure(c, "fig08-overlap",
			"Fig. 8: share of kernel time by overlap category", NULL,
			&data,
			"set style data histograms\nset style histogram rowstacked\n"
			"set style fill solid 0.8 border -1\nset boxwidth 0.7\n"
			"set yrange [0:100]\nset ylabel '% of kernel execution time'\n"
			"set key outside right top\nset grid ytics\n"
			"set xtics rotate by -30\n",
			plot.buf);
out:
	strbuf_release(&data);
	strbuf_release(&plot);
	return ret;
}

static int cmp_kernel_start(const void *x, const void *y)
{
	const struct gm_an_kernel *a = *(const struct gm_an_kernel *const *)x;
	const struct gm_an_kernel *b = *(const struct gm_an_kernel *const *)y;

	return a->start < b->start ? -1 : a->start > b->start;
}

/* The focus run's kernels in start order (pointers into a->focus). */
static const struct gm_an_kernel **sorted_focus(const struct gm_analysis *a)
{
	const struct gm_an_kernel **p =
		gm_xmalloc((a->nfocus + 1) * sizeof(*p));

	for (size_t i = 0; i < a->nfocus; i++) {
		p[i] = &a->focus[i];
	}
	qsort(p, a->nfocus, sizeof(*p), cmp_kernel_start);
	return p;
}

static int instances_figure(struct fig_ctx *c, const struct gm_analysis *a,
			    const struct gm_an_kernel **ks)
{
	struct strbuf data = STRBUF_INIT, plot = STRBUF_INIT, title = STRBUF_INIT;
	struct strbuf note = STRBUF_INIT;
	const struct gm_an_run *r = a->focus_run;
	size_t drawn = 0, nblocks = 0;
	int ret;

	for (int cat = 0; cat < GM_OVERLAP_COUNT; cat++) {
		size_t n = 0, seen = 0;
		strbuf_addf(&data, "%s# %s: start (ms from the run start), runtime (ms)\n",
			    cat ? "\n\n" : "", gm_overlap_name(cat));
		for (size_t i = 0; i < a->nfocus; i++) {
			const struct gm_an_kernel *k = ks[i];
			if (!k->chosen) {
				continue;
			}
			if (seen++ >= GM_PLOT_INSTANCES_MAX) {
				break;
			}
			if (k->category != cat) {
				continue;
			}
			strbuf_addf(&data, "%.6f %.6f\n",
				    (k->start - r->span_start) / 1e6,
				    (k->end - k->start) / 1e6);
			n++;
		}
		if (!n) {
			strbuf_addstr(&data, "NaN NaN\n");
		}
		drawn += n;
		strbuf_addf(&plot, "%s'fig07-kernel.dat' index %d using 1:2 with points"
			    " pt %d ps 0.8 title ", cat ? ", \\\n     " : "plot ", cat,
			    cat == 0 ? 7 : cat == 1 ? 5 : cat == 2 ? 9 : 13);
		gm_plot_gp_str(&plot, gm_overlap_name(cat));
		nblocks++;
	}
	strbuf_addf(&title, "Fig. 7: runtime of each instance of %s in %s",
		    a->focus_kernel, r->label);
	if (a->focus_instances > GM_PLOT_INSTANCES_MAX) {
		strbuf_addf(&note, "the first %d of %zu instances",
			    GM_PLOT_INSTANCES_MAX, a->focus_instances);
	}
	ret = gm_plot_add_figure(c, "fig07-kernel", title.buf,
			note.len ? note.buf : NULL, &data,
			"set xlabel 'start time (ms since the run started)'\n"
			"set ylabel 'kernel runtime (ms)'\nset key outside right top\n"
			"set grid\n", plot.buf);
	strbuf_release(&data);
	strbuf_release(&plot);
	strbuf_release(&title);
	strbuf_release(&note);
	return ret;
}

/* Program colours of the timeline: distinct, readable on white. */
static const char *const prog_colour[] = {
	"#1f77b4", "#ff7f0e", "#2ca02c", "#d62728", "#9467bd", "#8c564b",
	"#e377c2", "#17becf",
};
#define NCOLOURS (sizeof(prog_colour) / sizeof(prog_colour[0]))

/*
 * The timeline's window: GM_PLOT_TIMELINE_REPLAYS replays of each program
 * from its second (the first warms caches up; taken when a program has
 * only one or two), from the earliest such start to the latest such end.
 * Without replays: the whole run. Returns the replay range in @r0, @r1
 * (-1 without replays).
 */
static void timeline_window(const struct gm_analysis *a, int64_t *t0,
			    int64_t *t1, int64_t *r0, int64_t *r1)
{
	const struct gm_an_run *r = a->focus_run;

	*t0 = INT64_MAX;
	*t1 = INT64_MIN;
	*r0 = *r1 = -1;
	for (size_t p = 0; p < r->nprog; p++) {
		const struct gm_an_replay *first = NULL, *last = NULL;
		size_t n = 0;
		for (size_t i = 0; i < a->nfocus_replays; i++) {
			n += a->focus_replays[i].program == (int)p;
		}
		int64_t k0 = n >= 3 ? 1 : 0;
		int64_t k1 = k0 + GM_PLOT_TIMELINE_REPLAYS - 1;
		for (size_t i = 0; i < a->nfocus_replays; i++) {
			const struct gm_an_replay *x = &a->focus_replays[i];
			if (x->program != (int)p || x->replay < k0) {
				continue;
			}
			if (!first || x->replay < first->replay) {
				first = x;
			}
			if (x->replay <= k1 && (!last || x->replay > last->replay)) {
				last = x;
			}
		}
		if (!first || !last) {
			continue;
		}
		*t0 = first->start < *t0 ? first->start : *t0;
		*t1 = last->end > *t1 ? last->end : *t1;
		*r0 = *r0 < 0 || first->replay < *r0 ? first->replay : *r0;
		*r1 = last->replay > *r1 ? last->replay : *r1;
	}
	if (*t0 >= *t1) {
		*t0 = a->nfocus ? a->focus[0].start : 0;
		*t1 = *t0;
		for (size_t i = 0; i < a->nfocus; i++) {
			*t0 = a->focus[i].start < *t0 ? a->focus[i].start : *t0;
			*t1 = a->focus[i].end > *t1 ? a->focus[i].end : *t1;
		}
		*r0 = *r1 = -1;
	}
}

struct lane {
	int program;
	int64_t stream;
};

static int cmp_lane(const void *x, const void *y)
{
	const struct lane *a = x, *b = y;

	if (a->program != b->program) {
		return a->program < b->program ? -1 : 1;
	}
	return a->stream < b->stream ? -1 : a->stream > b->stream;
}

static int timeline_figure(struct fig_ctx *c, const struct gm_analysis *a,
			   const struct gm_an_kernel **ks)
{
	struct strbuf data = STRBUF_INIT, plot = STRBUF_INIT, setup = STRBUF_INIT;
	struct strbuf title = STRBUF_INIT, note = STRBUF_INIT;
	const struct gm_an_run *r = a->focus_run;
	struct lane *lanes = gm_xmalloc((a->nfocus + 1) * sizeof(*lanes));
	size_t nl = 0, n = 0, first = a->nfocus;
	int64_t t0, t1, r0, r1;
	int ret;

	timeline_window(a, &t0, &t1, &r0, &r1);
	for (int pass = 0; pass < 2 && !n; pass++) {
		if (pass) {
			/* No kernel in those replays: the whole run instead. */
			t0 = ks[0]->start;
			t1 = t0;
			for (size_t i = 0; i < a->nfocus; i++) {
				t1 = ks[i]->end > t1 ? ks[i]->end : t1;
			}
			t1++;
			r0 = r1 = -1;
		}
		/* Kernels running in the window (ks is by start), at most MAX. */
		for (size_t i = 0; i < a->nfocus; i++) {
			const struct gm_an_kernel *k = ks[i];
			if (k->start >= t1) {
				break;
			}
			if (k->start < t0 && k->end <= t0) {
				continue;
			}
			if (n == GM_PLOT_TIMELINE_MAX) {
				t1 = k->start;
				break;
			}
			first = first < i ? first : i;
			lanes[nl++] = (struct lane){ k->program, k->stream };
			n++;
		}
	}
	qsort(lanes, nl, sizeof(*lanes), cmp_lane);
	size_t u = 0;
	for (size_t i = 0; i < nl; i++) {
		if (!u || cmp_lane(&lanes[u - 1], &lanes[i])) {
			lanes[u++] = lanes[i];
		}
	}
	nl = u;
	/* One data block per program; lanes top-down in program order. */
	for (size_t p = 0; p < r->nprog; p++) {
		size_t m = 0;
		strbuf_addf(&data, "%s# ", p ? "\n\n" : "");
		for (const char *s = r->progs[p].name; *s; s++) {
			strbuf_addch(&data, *s == '\n' ? ' ' : *s);
		}
		strbuf_addstr(&data, ": start end (ms from the run start), lane\n");
		for (size_t i = first; i < a->nfocus && m < n; i++) {
			const struct gm_an_kernel *k = ks[i];
			struct lane key = { k->program, k->stream };
			if (k->start >= t1) {
				break;
			}
			if (k->program != (int)p || (k->start < t0 && k->end <= t0)) {
				continue;
			}
			const struct lane *l = bsearch(&key, lanes, nl, sizeof(*lanes),
						       cmp_lane);
			strbuf_addf(&data, "%.6f %.6f %zu\n",
				    (k->start - r->span_start) / 1e6,
				    (k->end - r->span_start) / 1e6,
				    nl - 1 - (size_t)(l - lanes));
			m++;
		}
		if (!m) {
			strbuf_addstr(&data, "NaN NaN NaN\n");
		}
		strbuf_addf(&plot, "%s'timeline.dat' index %zu using (($1+$2)/2):3:1:2:"
			    "($3-0.4):($3+0.4) with boxxyerror fs solid 1.0 noborder"
			    " lc rgb '%s' title ", p ? ", \\\n     " : "plot ", p,
			    prog_colour[p % NCOLOURS]);
		gm_plot_gp_str(&plot, r->progs[p].name);
	}
	strbuf_addstr(&setup, "set ytics (");
	for (size_t i = 0; i < nl; i++) {
		struct strbuf lab = STRBUF_INIT;
		strbuf_addf(&lab, "%s / stream %lld", r->progs[lanes[i].program].name,
			    (long long)lanes[i].stream);
		strbuf_addstr(&setup, i ? ", " : "");
		gm_plot_gp_str(&setup, lab.buf);
		strbuf_addf(&setup, " %zu", nl - 1 - i);
		strbuf_release(&lab);
	}
	strbuf_addf(&setup, ")\nset yrange [-0.6:%zu.6]\nset xrange [%.6f:%.6f]\n",
		    nl ? nl - 1 : 0, (t0 - r->span_start) / 1e6,
		    (t1 - r->span_start) / 1e6);
	/* Each program's replay starts in the window, as dashed lines. */
	for (size_t i = 0, arrows = 0; i < a->nfocus_replays && arrows < 64; i++) {
		const struct gm_an_replay *x = &a->focus_replays[i];
		if (x->start < t0 || x->start >= t1) {
			continue;
		}
		strbuf_addf(&setup, "set arrow from %.6f, graph 0 to %.6f, graph 1"
			    " nohead dt 2 lc rgb '%s'\n", (x->start - r->span_start) / 1e6,
			    (x->start - r->span_start) / 1e6,
			    prog_colour[x->program % NCOLOURS]);
		arrows++;
	}
	strbuf_addstr(&setup, "set xlabel 'time (ms since the run started);"
		      " dashed: a replay starts'\n"
		      "set key outside right top title 'program'\n"
		      "set grid xtics\nset tics nomirror\n");
	strbuf_addf(&title, "Kernel timeline of %s: one lane per program and"
		    " stream", r->label);
	if (r0 >= 0) {
		strbuf_addf(&note, "replays %lld to %lld (%.3f to %.3f ms), %zu of"
			    " the run's %zu kernels", (long long)r0, (long long)r1,
			    (t0 - r->span_start) / 1e6, (t1 - r->span_start) / 1e6,
			    n, a->nfocus);
	} else {
		strbuf_addf(&note, "%.3f to %.3f ms, %zu of the run's %zu kernels",
			    (t0 - r->span_start) / 1e6, (t1 - r->span_start) / 1e6,
			    n, a->nfocus);
	}
	if (n == GM_PLOT_TIMELINE_MAX) {
		strbuf_addf(&note, " (cut at %d kernels)", GM_PLOT_TIMELINE_MAX);
	}
	ret = gm_plot_add_figure(c, "timeline", title.buf, note.buf, &data,
			setup.buf, plot.buf);
	free(lanes);
	strbuf_release(&data);
	strbuf_release(&plot);
	strbuf_release(&setup);
	strbuf_release(&title);
	strbuf_release(&note);
	return ret;
}

/*
 * Who held the SMs of run @r over time (the block probe): a lane per SM,
 * a bar in a program's colour wherever it had at least one block on the
 * SM, from the window's start, at most GM_PLOT_PROBE_MAX bars.
 */
static int probe_figure(struct fig_ctx *c, const struct gm_an_run *r)
{
	const struct gm_an_probe *pr = r->probe;
	struct strbuf data = STRBUF_INIT, plot = STRBUF_INIT, setup = STRBUF_INIT;
	struct strbuf title = STRBUF_INIT, note = STRBUF_INIT, stem = STRBUF_INIT;
	size_t n = pr->seg.n < GM_PLOT_PROBE_MAX ? pr->seg.n : GM_PLOT_PROBE_MAX;
	int64_t t1 = n < pr->seg.n ? pr->seg.v[n].start : pr->t1;
	int64_t top_sm = r->dev.sm_count - 1;	/* %smid can go beyond */
	int ret;

	for (size_t i = 0; i < n; i++) {
		top_sm = pr->seg.v[i].sm > top_sm ? pr->seg.v[i].sm : top_sm;
	}
	strbuf_addstr(&stem, "probe-sm-");
	for (const char *p = r->label; *p; p++) {
		int ok = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
			 (*p >= '0' && *p <= '9') || strchr("._+-", *p);
		strbuf_addch(&stem, ok ? *p : '_');
	}
	strbuf_addf(&stem, "-%lld", (long long)r->id);
	for (size_t p = 0; p < r->nprog; p++) {
		size_t m = 0;
		strbuf_addf(&data, "%s# ", p ? "\n\n" : "");
		for (const char *s = r->progs[p].name; *s; s++) {
			strbuf_addch(&data, *s == '\n' ? ' ' : *s);
		}
		strbuf_addstr(&data, ": start end (ms from the window's start), SM\n");
		for (size_t i = 0; i < n; i++) {
			const struct gm_sm_interval *g = &pr->seg.v[i];
			if (g->program != (int)p) {
				continue;
			}
			strbuf_addf(&data, "%.6f %.6f %d\n", (g->start - pr->t0) / 1e6,
				    ((g->end < t1 ? g->end : t1) - pr->t0) / 1e6, g->sm);
			m++;
		}
		if (!m) {
			strbuf_addstr(&data, "NaN NaN NaN\n");
		}
		strbuf_addf(&plot, "%s'%s.dat' index %zu using (($1+$2)/2):3:1:2:"
			    "($3-0.45):($3+0.45) with boxxyerror fs solid 0.6 noborder"
			    " lc rgb '%s' title ", p ? ", \\\n     " : "plot ",
			    stem.buf, p, prog_colour[p % NCOLOURS]);
		gm_plot_gp_str(&plot, r->progs[p].name);
	}
	strbuf_addf(&setup, "set yrange [-0.6:%lld.6]\nset xrange [0:%.6f]\n"
		    "set xlabel 'time (ms since the window started)'\n"
		    "set ylabel 'SM'\nset key outside right top title 'program'\n"
		    "set tics nomirror\n", (long long)top_sm,
		    (t1 - pr->t0) / 1e6);
	strbuf_addf(&title, "Who held the SMs in %s (block probe)", r->label);
	strbuf_addf(&note, "a lane per SM, a bar where a program had at least"
		    " one block on it: %.3f ms of the %.3f ms window in which"
		    " every program replayed",
		    (t1 - pr->t0) / 1e6, (pr->t1 - pr->t0) / 1e6);
	if (n < pr->seg.n) {
		strbuf_addf(&note, " (cut at %d bars of %zu)", GM_PLOT_PROBE_MAX,
			    pr->seg.n);
	}
	ret = gm_plot_add_figure(c, stem.buf, title.buf, note.buf, &data,
			setup.buf, plot.buf);
	strbuf_release(&data);
	strbuf_release(&plot);
	strbuf_release(&setup);
	strbuf_release(&title);
	strbuf_release(&note);
	strbuf_release(&stem);
	return ret;
}

int gm_plot_figures(const struct gm_analysis *a, const char *dir,
		    const char *gnuplot, struct gm_figures *out)
{
	struct fig_ctx c;
	const struct gm_an_kernel **ks = NULL;
	int ret = -1;

	memset(out, 0, sizeof(*out));
	memset(&c, 0, sizeof(c));
	c.dir = dir;
	c.out = out;
	if (cell_figure(&c, a, "fig10-stp",
			"Fig. 10: STP per workload, sorted", "STP (higher is better)",
			c_stp, 0) ||
	    cell_figure(&c, a, "fig11-antt",
			"Fig. 11: ANTT per workload, sorted",
			"ANTT (lower is better)", c_antt, 1) ||
	    sorted_figure(&c, a, "fig09-waiting",
			  "Fig. 9: mean kernel waiting time per workload, sorted",
			  "mean waiting time (ms)", v_wait, 1, 1) ||
	    latency_figure(&c, a) ||
	    gm_plot_open_loop(&c, a) ||
	    overlap_figure(&c, a) ||
	    sorted_figure(&c, a, "fig12-running",
			  "Fig. 12: average running kernels per workload, sorted",
			  "running kernels (time-weighted)", v_running, 1, 0) ||
	    sorted_figure(&c, a, "fig13-threads",
			  "Fig. 13: thread utilization per workload, sorted",
			  "resident threads (% of the GPU, time-weighted)",
			  v_threads, 1, 0)) {
		goto out;
	}
	if (a->focus_run && a->nfocus) {
		ks = sorted_focus(a);
		if (instances_figure(&c, a, ks) || timeline_figure(&c, a, ks)) {
			goto out;
		}
	} else {
		gm_plot_skipped(&c, "%s: no kernel instances", "Fig. 7 and the timeline");
	}
	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (r->ok && r->probe && r->probe->seg.n &&
		    probe_figure(&c, r)) {
			goto out;
		}
	}
	if (gm_plot_draw(&c, gnuplot)) {
		goto out;
	}
	ret = 0;
out:
	free(ks);
	gm_plot_ctx_release(&c);
	return ret;
}

void gm_figures_release(struct gm_figures *f)
{
	for (size_t i = 0; i < f->n; i++) {
		free(f->fig[i].stem);
		free(f->fig[i].title);
		free(f->fig[i].note);
	}
	free(f->fig);
	for (size_t i = 0; i < f->nskipped; i++) {
		free(f->skipped[i]);
	}
	free(f->skipped);
	memset(f, 0, sizeof(*f));
}
