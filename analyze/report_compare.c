/* SPDX-License-Identifier: MIT */
/*
 * Two studies side by side (see report_compare.h): the same workloads and
 * variant labels of two analyses, each number with its interval over its
 * own study's repetitions, and the ratio B / A with Welch's interval on
 * the logarithms (interval.h, gm_ci_ratio2): the two studies' repetitions
 * are independent, so nothing is paired across them. Across workloads,
 * each study's per-repetition geometric means are taken over the
 * workloads both studies have in every repetition.
 */
#include "report_compare.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "analysis_priv.h"
#include "strbuf.h"

const char *gm_report_differs(const struct gm_ci *ratio)
{
	int side = gm_ci_side(ratio, 1);

	if (isnan(ratio->lo) || isnan(ratio->hi)) {
		return "n/a";
	}
	return side > 0 ? "B higher" : side < 0 ? "B lower" : "no difference";
}

/* The cell of @a for @workload under @vlabel, or NULL. */
static const struct gm_an_cell *find_cell(const struct gm_analysis *a,
					  const char *workload,
					  const char *vlabel)
{
	for (size_t i = 0; i < a->ncells; i++) {
		if (!strcmp(a->cells[i].workload, workload) &&
		    !strcmp(a->cells[i].vlabel, vlabel)) {
			return &a->cells[i];
		}
	}
	return NULL;
}

/* The per-repetition values of @get in @c's runs into @out; their number. */
static size_t values(const struct gm_an_cell *c, gm_an_values_fn get,
		     double *out)
{
	size_t n = 0;
	double buf[1];

	for (size_t i = 0; i < c->nruns; i++) {
		if (get(c->runs[i], buf) == 1) {
			out[n++] = buf[0];
		}
	}
	return n;
}

/* One metric's four cells: A, B, B/A, whether they differ. */
static void compare_cells(struct gm_table *t, size_t col,
			  const struct gm_ci *a, const struct gm_ci *b,
			  const struct gm_ci *ratio, int decimals)
{
	gm_table_ci(t, col, a, 1, decimals);
	gm_table_ci(t, col + 1, b, 1, decimals);
	gm_table_ci(t, col + 2, ratio, 1, 3);
	gm_table_text(t, col + 3, "%s", gm_report_differs(ratio));
}

static void workloads(const struct gm_analysis *a, const struct gm_analysis *b,
		      const struct gm_ci_opts *ci, struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "programs", "variant", "STP A", "STP B", "STP B/A",
		"STP differs", "ANTT A", "ANTT B", "ANTT B/A", "ANTT differs",
		"repetitions A", "repetitions B", NULL,
	};
	static const char *const ci_cols[] = {
		"STP A", "STP B", "STP B/A", "ANTT A", "ANTT B", "ANTT B/A", NULL,
	};
	static const gm_an_values_fn get[2] = { gm_an_v_stp, gm_an_v_antt };

	gm_table_init(t, "compare-workloads",
		      "STP and ANTT per workload in the two studies", cols);
	gm_table_intervals(t, ci_cols);
	for (size_t i = 0; i < a->ncells; i++) {
		const struct gm_an_cell *x = &a->cells[i], *y;
		if (x->alone || !(y = find_cell(b, x->workload, x->vlabel))) {
			continue;
		}
		double *va = gm_xcalloc(x->nruns + 1, sizeof(double));
		double *vb = gm_xcalloc(y->nruns + 1, sizeof(double));
		gm_table_row(t);
		gm_table_text(t, 0, "%s", x->workload);
		gm_table_num(t, 1, (double)x->nprog, 0);
		gm_table_text(t, 2, "%s", x->vlabel);
		for (int m = 0; m < 2; m++) {
			struct gm_ci r;
			size_t na = values(x, get[m], va), nb = values(y, get[m], vb);
			gm_ci_ratio2(&r, va, na, vb, nb, ci);
			compare_cells(t, 3 + 4 * m, m ? &x->antt : &x->stp,
				      m ? &y->antt : &y->stp, &r, 3);
		}
		gm_table_num(t, 11, (double)x->nruns, 0);
		gm_table_num(t, 12, (double)y->nruns, 0);
		free(va);
		free(vb);
	}
}

/*
 * The per-repetition geomeans of @get for variant @va of @a and @vb of @b
 * at @size, over the workloads both have in every repetition: into *@ga
 * and *@gb (caller frees), their counts in @na and @nb; returns the
 * number of workloads.
 */
static size_t both_per_rep(const struct gm_analysis *a, size_t va,
			   const struct gm_analysis *b, size_t vb, size_t size,
			   gm_an_values_fn get, double **ga, size_t *na,
			   double **gb, size_t *nb)
{
	struct gm_an_grid g[2];
	struct gm_an_common c[2];
	const struct gm_analysis *an[2] = { a, b };
	size_t vi[2] = { va, vb }, n = 0;

	for (int k = 0; k < 2; k++) {
		gm_an_grid_init(&g[k], an[k], size, &vi[k], 1);
		gm_an_common(&g[k], get, &c[k]);
	}
	/* Keep in each the workloads the other one has too. */
	size_t *keep[2] = { gm_xcalloc(c[0].nw + 1, sizeof(size_t)),
			    gm_xcalloc(c[1].nw + 1, sizeof(size_t)) };
	for (size_t i = 0; i < c[0].nw; i++) {
		const char *w = a->cells[g[0].first[c[0].w[i]]].workload;
		for (size_t j = 0; j < c[1].nw; j++) {
			if (!strcmp(w, b->cells[g[1].first[c[1].w[j]]].workload)) {
				keep[0][n] = c[0].w[i];
				keep[1][n++] = c[1].w[j];
			}
		}
	}
	double **out[2] = { ga, gb };
	size_t *cnt[2] = { na, nb };
	for (int k = 0; k < 2; k++) {
		free(c[k].w);
		c[k].w = keep[k];
		c[k].nw = n;
		*out[k] = gm_xcalloc(c[k].nrep + 1, sizeof(double));
		gm_an_per_rep(&g[k], 0, &c[k], get, *out[k]);
		*cnt[k] = n ? c[k].nrep : 0;
		gm_an_common_release(&c[k]);
		gm_an_grid_release(&g[k]);
	}
	return n;
}

static void summary(const struct gm_analysis *a, const struct gm_analysis *b,
		    const struct gm_ci_opts *ci, struct gm_table *t)
{
	static const char *const cols[] = {
		"programs", "variant", "workloads", "STP geomean A",
		"STP geomean B", "STP B/A", "STP differs", "ANTT geomean A",
		"ANTT geomean B", "ANTT B/A", "ANTT differs", NULL,
	};
	static const char *const ci_cols[] = {
		"STP geomean A", "STP geomean B", "STP B/A", "ANTT geomean A",
		"ANTT geomean B", "ANTT B/A", NULL,
	};
	static const gm_an_values_fn get[2] = { gm_an_v_stp, gm_an_v_antt };

	gm_table_init(t, "compare-summary",
		      "STP and ANTT across workloads in the two studies", cols);
	gm_table_intervals(t, ci_cols);
	for (size_t i = 0; i < a->nsummary; i++) {
		const struct gm_an_summary *s = &a->summary[i];
		size_t va = SIZE_MAX, vb = SIZE_MAX, nw = 0;
		for (size_t v = 0; v < a->nvariants; v++) {
			va = strcmp(a->variants[v].label, s->vlabel) ? va : v;
		}
		for (size_t v = 0; v < b->nvariants; v++) {
			vb = strcmp(b->variants[v].label, s->vlabel) ? vb : v;
		}
		if (vb == SIZE_MAX) {
			continue;
		}
		gm_table_row(t);
		gm_table_num(t, 0, (double)s->programs, 0);
		gm_table_text(t, 1, "%s", s->vlabel);
		for (int m = 0; m < 2; m++) {
			double *ga, *gb;
			size_t na, nb;
			struct gm_ci x, y, r;
			nw = both_per_rep(a, va, b, vb, s->programs, get[m], &ga,
					  &na, &gb, &nb);
			gm_ci_geomean(&x, ga, na, ci);
			gm_ci_geomean(&y, gb, nb, ci);
			gm_ci_ratio2(&r, ga, na, gb, nb, ci);
			compare_cells(t, 3 + 4 * m, &x, &y, &r, 2);
			free(ga);
			free(gb);
		}
		gm_table_num(t, 2, (double)nw, 0);
	}
}

/* The cells one analysis has and the other not, as a note. */
static void only_in(const struct gm_analysis *a, const struct gm_analysis *b,
		    const char *which, struct strbuf *notes)
{
	struct strbuf sb = STRBUF_INIT;
	size_t n = 0;

	for (size_t i = 0; i < a->ncells; i++) {
		const struct gm_an_cell *c = &a->cells[i];
		if (c->alone || find_cell(b, c->workload, c->vlabel)) {
			continue;
		}
		if (n++ < 5) {
			strbuf_addf(&sb, "%s%s.%s", sb.len ? ", " : "", c->workload,
				    c->vlabel);
		}
	}
	if (n) {
		strbuf_addf(notes, "%zu workload and variant pair%s only in %s,"
			    " not compared: %s%s\n", n, n == 1 ? " is" : "s are",
			    which, sb.buf, n > 5 ? ", ..." : "");
	}
	strbuf_release(&sb);
}

void gm_report_compare(const struct gm_analysis *a, const struct gm_analysis *b,
		       const char *name_a, const char *name_b,
		       const struct gm_ci_opts *ci, struct gm_table *t,
		       struct strbuf *notes)
{
	summary(a, b, ci, &t[0]);
	workloads(a, b, ci, &t[1]);
	for (int i = 0; i < 2; i++) {
		gm_table_caption(&t[i], "A: `%s`, B: `%s`. Each study's numbers"
				 " with their 95%% interval over its own"
				 " repetitions (%s); B/A: the ratio of B's"
				 " geometric mean to A's with Welch's interval"
				 " (the two studies' repetitions are"
				 " independent); \"B higher\" or \"B lower\" when"
				 " that interval excludes 1, \"no difference\""
				 " when it contains 1, n/a when a study has one"
				 " repetition.%s", name_a, name_b,
				 gm_ci_method_name(ci->method),
				 i ? "" : " Across workloads: per repetition,"
				 " the geomean over the workloads both studies"
				 " have in every repetition.");
	}
	only_in(a, b, "A", notes);
	only_in(b, a, "B", notes);
}
