/* SPDX-License-Identifier: MIT */
/*
 * The report's SPMD predictor tables (see report_tables.h): Li et al.'s
 * execution models against the measurement for N copies of one program
 * (analysis.h, struct gm_an_spmd; doc/spmd-model.md), per run, and the
 * mean deviation per sharing scenario and variant, in the layout of the
 * paper's Table 5.
 */
#include "report_tables.h"

#include <math.h>
#include <string.h>

#include "sharing_scenario.h"

void gm_report_spmd_table(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"program", "copies", "variant", "scenario", "Tin (ms)",
		"Tcomp (ms)", "Tout (ms)", "alone (ms)", "measured (ms)",
		"predicted (ms)", "deviation (%)", "note", "run", NULL,
	};

	gm_table_init(t, "spmd-model", "SPMD model: predicted vs measured "
		      "time of N copies", cols);
	gm_table_caption(t, "Each ok run of N copies of one program (not an "
			 "alone run): the time Li et al.'s execution models "
			 "predict from the program's alone run (Tin, Tcomp, "
			 "Tout per replay, its remainder added once) and its "
			 "kernels' T(k) (the stretch table, gpumix scale "
			 "--stretch), against the slowest copy's mean replay "
			 "time; deviation = |predicted - measured| / measured "
			 "(doc/spmd-model.md).");
	for (size_t i = 0; i < a->nspmd; i++) {
		const struct gm_an_spmd *s = &a->spmd[i];
		struct strbuf note = STRBUF_INIT;

		if (s->io_intensive) {
			strbuf_addstr(&note, "I/O-intensive (eq. 20)");
		}
		if (s->no_stretch) {
			strbuf_addf(&note, "%s%zu of %zu kernels without T(k)",
				    note.len ? "; " : "", s->no_stretch,
				    s->kernels);
		}
		if (s->extrapolated) {
			strbuf_addf(&note, "%sT(Nmax) extrapolated for %zu",
				    note.len ? "; " : "", s->extrapolated);
		}
		gm_table_row(t);
		gm_table_text(t, 0, "%s", s->program);
		gm_table_num(t, 1, s->copies, 0);
		gm_table_text(t, 2, "%s", a->variants[s->run->vindex].label);
		gm_table_text(t, 3, "%s", s->scenario);
		gm_table_num(t, 4, s->t_in, 3);
		gm_table_num(t, 5, s->t_comp, 3);
		gm_table_num(t, 6, s->t_out, 3);
		gm_table_num(t, 7, s->alone_ms, 3);
		gm_table_num(t, 8, s->measured_ms, 3);
		gm_table_num(t, 9, s->predicted_ms, 3);
		gm_table_num(t, 10, 100 * s->deviation, 2);
		gm_table_text(t, 11, "%s", note.len ? note.buf : "-");
		gm_table_text(t, 12, "%s", s->run->label);
		strbuf_release(&note);
	}
}

void gm_report_spmd_deviation_table(const struct gm_analysis *a,
				    struct gm_table *t)
{
	static const char *const cols[] = {
		"scenario", "variant", "runs", "copies", "mean deviation (%)",
		"max deviation (%)", NULL,
	};

	gm_table_init(t, "spmd-deviation", "SPMD model: mean deviation per "
		      "sharing scenario (Li et al.'s Table 5)", cols);
	gm_table_caption(t, "The rows of the spmd-model table per scenario "
			 "and variant: the mean and largest |predicted - "
			 "measured| / measured, and the copy counts N they "
			 "hold (the paper: under 5%% on Fermi).");
	for (int sc = 0; sc < GM_SCENARIO_NONE; sc++) {
		const char *name = gm_scenario_name((enum gm_scenario)sc);
		for (size_t v = 0; v < a->nvariants; v++) {
			struct strbuf ns = STRBUF_INIT;
			double sum = 0, max = 0;
			size_t n = 0;
			unsigned seen[64] = { 0 };
			for (size_t i = 0; i < a->nspmd; i++) {
				const struct gm_an_spmd *s = &a->spmd[i];
				if (s->run->vindex != v ||
				    strcmp(s->scenario, name)) {
					continue;
				}
				sum += s->deviation;
				max = s->deviation > max ? s->deviation : max;
				n++;
				if (s->copies < 64 && !seen[s->copies]++) {
					strbuf_addf(&ns, "%s%u", ns.len ? "," : "",
						    s->copies);
				}
			}
			if (n) {
				gm_table_row(t);
				gm_table_text(t, 0, "%s", name);
				gm_table_text(t, 1, "%s", a->variants[v].label);
				gm_table_num(t, 2, (double)n, 0);
				gm_table_text(t, 3, "%s", ns.buf ? ns.buf : "");
				gm_table_num(t, 4, 100 * sum / (double)n, 2);
				gm_table_num(t, 5, 100 * max, 2);
			}
			strbuf_release(&ns);
		}
	}
}
