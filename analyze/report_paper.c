/* SPDX-License-Identifier: MIT */
/*
 * The report's comparison page (see report_tables.h): every number the
 * paper gives for its Fermi GPU (paper_numbers.h) beside the same number
 * computed from this database, with their ratio. Ours are computed as
 * doc/database.md defines them, over the workloads of the paper's size
 * (2 or 4 programs); a number this database cannot give is n/a with the
 * reason in the note.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "paper_numbers.h"
#include "report_tables.h"
#include "strbuf.h"
#include "variant.h"

static const struct gm_an_summary *find_summary(const struct gm_analysis *a,
						unsigned programs,
						const char *vlabel)
{
	for (size_t i = 0; i < a->nsummary; i++) {
		const struct gm_an_summary *s = &a->summary[i];
		if (s->programs == programs && !strcmp(s->vlabel, vlabel)) {
			return s;
		}
	}
	return NULL;
}

/* The mean over the ok runs of @vlabel with @programs programs of the
 * runs' mean waiting time (ns), or NAN. */
static double mean_wait(const struct gm_analysis *a, unsigned programs,
			const char *vlabel)
{
	double sum = 0;
	size_t n = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (r->ok && r->nprog == programs && !strcmp(r->vlabel, vlabel) &&
		    r->wait.n && !isnan(r->wait.mean)) {
			sum += r->wait.mean;
			n++;
		}
	}
	return n ? sum / (double)n : NAN;
}

static double mean_running(const struct gm_analysis *a, unsigned programs,
			   const char *vlabel)
{
	double sum = 0;
	size_t n = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (r->ok && r->nprog == programs && !strcmp(r->vlabel, vlabel) &&
		    !isnan(r->running)) {
			sum += r->running;
			n++;
		}
	}
	return n ? sum / (double)n : NAN;
}

/* EXCLUSIVE share (%) of the kernel time of those runs, pooled. */
static double exclusive_pct(const struct gm_analysis *a, unsigned programs,
			    const char *vlabel)
{
	double excl = 0, all = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->ok || r->nprog != programs || strcmp(r->vlabel, vlabel)) {
			continue;
		}
		excl += r->cat_ns[GM_OVERLAP_EXCLUSIVE];
		for (int c = 0; c < GM_OVERLAP_COUNT; c++) {
			all += r->cat_ns[c];
		}
	}
	return all > 0 ? 100.0 * excl / all : NAN;
}

/*
 * Ours for paper number @p, or NAN with *@why saying why (static); @ci
 * gets its interval where the summary has one (the STP and ANTT rows),
 * none otherwise.
 */
static double ours(const struct gm_analysis *a, const struct gm_paper_number *p,
		   const char **why, struct gm_ci *ci)
{
	const struct gm_an_summary *s = find_summary(a, p->programs, p->vlabel);
	const struct gm_ci *from = NULL;
	double v = NAN;

	*why = NULL;
	ci->mean = ci->lo = ci->hi = NAN;
	ci->n = 0;
	switch (p->metric) {
	case GM_PM_STP_GEOMEAN:
		from = s ? &s->stp_geo : NULL;
		break;
	case GM_PM_STP_BEST:
		from = s ? &s->stp_best : NULL;
		break;
	case GM_PM_ANTT_GEOMEAN:
		from = s ? &s->antt_geo : NULL;
		break;
	case GM_PM_ANTT_WORST:
		from = s ? &s->antt_worst : NULL;
		break;
	case GM_PM_STP_IMPROVEMENT:
		from = s ? &s->stp_imp : NULL;
		break;
	case GM_PM_ANTT_IMPROVEMENT:
		from = s ? &s->antt_imp : NULL;
		break;
	case GM_PM_MTSPEEDUP:
		from = s ? &s->mtspeedup : NULL;
		break;
	case GM_PM_WAIT_MEAN_MS:
		v = mean_wait(a, p->programs, p->vlabel) / 1e6;
		break;
	case GM_PM_WAIT_REDUCTION:
		v = mean_wait(a, p->programs, a->reference_variant) /
		    mean_wait(a, p->programs, p->vlabel);
		break;
	case GM_PM_EXCLUSIVE_PCT:
		v = exclusive_pct(a, p->programs, p->vlabel);
		break;
	case GM_PM_RUNNING:
		v = mean_running(a, p->programs, p->vlabel);
		break;
	case GM_PM_TIMESLICE_STP:
	case GM_PM_TIMESLICE_ANTT:
		*why = "needs a second study with 'timeslice: 0': compare "
		       "its elastic+mpmax rows with these";
		return NAN;
	case GM_PM_COUNT:
		break;
	}
	if (from) {
		*ci = *from;
		v = from->mean;
	}
	ci->mean = v;
	if (isnan(v) || isinf(v)) {
		*why = "no run of this database gives it";
		return NAN;
	}
	return v;
}

/* Two decimals, more for a small value (0.00031 rather than 0.00). */
static int decimals_for(double v)
{
	int d = 2;

	if (v > 0 && v < 0.1) {
		d = 1 - (int)floor(log10(v));
	}
	return d > 6 ? 6 : d;
}

/* "elastic runs: timeslices of about 1000 us" and the like. */
static void knob_statement(const struct gm_analysis *a, struct strbuf *sb)
{
	double ts = NAN;
	int64_t chunk = -1;
	int mixed_ts = 0, mixed_chunk = 0;

	for (size_t i = 0; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->ok) {
			continue;
		}
		if (!isnan(r->timeslice_us)) {
			mixed_ts |= !isnan(ts) && ts != r->timeslice_us;
			ts = r->timeslice_us;
		}
		if (r->copy_chunk >= 0) {
			mixed_chunk |= chunk >= 0 && chunk != r->copy_chunk;
			chunk = r->copy_chunk;
		}
	}
	if (mixed_ts) {
		strbuf_addstr(sb, " Timeslicing: the elastic runs used different"
			      " timeslices (see their run manifests).");
	} else if (ts == 0) {
		strbuf_addstr(sb, " Timeslicing: off in the elastic runs"
			      " (timeslice: 0); the paper's numbers are with"
			      " timeslices of about 1 ms.");
	} else if (!isnan(ts)) {
		strbuf_addf(sb, " Timeslicing: long kernels of the elastic runs"
			    " in ranges of about %g us (the paper: about 1 ms).",
			    ts);
	}
	if (mixed_chunk) {
		strbuf_addstr(sb, " Copy chunks: different in different runs.");
	} else if (chunk == 0) {
		strbuf_addstr(sb, " Copy chunks: off (copy_chunk: 0; the paper:"
			      " 4 MB).");
	} else if (chunk > 0) {
		strbuf_addf(sb, " Copy chunks: %lld bytes (the paper: 4 MB).",
			    (long long)chunk);
	}
}

void gm_report_paper_table(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"source", "programs", "variant", "metric", "better",
		"paper (Fermi)", "ours", "ours / paper", "note", NULL,
	};
	struct strbuf cap = STRBUF_INIT;
	size_t n2 = 0, n4 = 0;
	const char *device = a->nruns ? a->runs[0].device_name : "no device";

	static const char *const ci_cols[] = { "ours", NULL };

	gm_table_init(t, "paper", "Comparison with the paper (Pai et al.,"
		      " ASPLOS'13, on Fermi)", cols);
	gm_table_intervals(t, ci_cols);
	/* Workloads with an STP under some variant (runs are by workload). */
	for (size_t i = 0, last = (size_t)-1; i < a->nruns; i++) {
		const struct gm_an_run *r = &a->runs[i];
		if (!r->ok || isnan(r->stp) || (last != (size_t)-1 &&
		    !strcmp(a->runs[last].workload, r->workload))) {
			continue;
		}
		last = i;
		n2 += r->nprog == 2;
		n4 += r->nprog == 4;
	}
	strbuf_addf(&cap, "The paper's numbers are for a Tesla C2070 (Fermi)"
		    " running Parboil2 (54 two-program workloads, and"
		    " four-program ones without bfs); ours are this database's"
		    " runs on %s (%zu two-program and %zu four-program"
		    " workloads with an STP). Each row is one"
		    " number the paper prints, cited to its table, figure or"
		    " section; ours is computed as doc/database.md defines it"
		    " over the workloads of the same size, with its 95%%"
		    " interval over the repetitions where it has one (the"
		    " STP, ANTT and MTSpeedup rows). \"better\" says which"
		    " way is better: a ratio above 1 is better for \"higher\""
		    " and worse for \"lower\".", device, n2, n4);
	if (a->kernels) {
		strbuf_addf(&cap, " Kernels: %s (the paper: the same transformed"
			    " kernels in every variant).", a->kernels);
	}
	knob_statement(a, &cap);
	gm_table_caption(t, "%s", cap.buf);
	strbuf_release(&cap);

	for (size_t i = 0; gm_paper_number_at(i); i++) {
		const struct gm_paper_number *p = gm_paper_number_at(i);
		int hb = gm_paper_metric_higher_better(p->metric);
		const char *why;
		struct gm_ci ci;
		double v = ours(a, p, &why, &ci);
		int dec;
		double paper = gm_paper_number_value(p, &dec);

		gm_table_row(t);
		gm_table_text(t, 0, "%s", p->source);
		gm_table_num(t, 1, (double)p->programs, 0);
		gm_table_text(t, 2, "%s", p->vlabel);
		gm_table_text(t, 3, "%s", gm_paper_metric_name(p->metric));
		gm_table_text(t, 4, "%s", hb > 0 ? "higher" : hb == 0 ? "lower"
							     : "");
		gm_table_num(t, 5, paper, dec);
		if (isnan(ci.lo) && !ci.n) {
			gm_table_num(t, 6, v, decimals_for(v));	/* no interval */
		} else {
			gm_table_ci(t, 6, &ci, 1, decimals_for(v));
		}
		gm_table_num(t, 7, v / paper, decimals_for(v / paper));
		if (p->note && why) {
			gm_table_text(t, 8, "%s; ours: %s", p->note, why);
		} else if (p->note || why) {
			gm_table_text(t, 8, "%s%s", why ? "ours: " : "",
				      p->note ? p->note : why);
		}
	}
}
