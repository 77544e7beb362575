/* SPDX-License-Identifier: MIT */
/*
 * The corun table: native and replayed slowdowns side by side (see
 * report_tables.h), the check of the replay against the original
 * programs run together.
 */
#include <math.h>
#include <string.h>

#include "report_tables.h"

void gm_report_corun_table(const struct gm_analysis *a, struct gm_table *t)
{
	static const char *const cols[] = {
		"workload", "mechanism", "program", "native slowdown", "sd", "runs",
		"replayed slowdown", "replays", "replayed/native",
		"differs > 5%", NULL,
	};
	size_t differ = 0, wl_differ = 0;
	const char *last_wl = NULL;

	gm_table_init(t, "corun", "Native and replayed slowdowns", cols);
	for (size_t i = 0; i < a->ncoruns; i++) {
		const struct gm_an_corun *c = &a->coruns[i];
		gm_table_row(t);
		gm_table_text(t, 0, "%s", c->workload);
		gm_table_text(t, 1, "%s", c->mechanism);
		gm_table_text(t, 2, "%s", c->program);
		gm_table_num(t, 3, c->native.mean, 3);
		gm_table_num(t, 4, c->native.sd, 3);
		gm_table_num(t, 5, (double)c->native.n, 0);
		gm_table_num(t, 6, c->replayed, 3);
		gm_table_num(t, 7, (double)c->replays, 0);
		gm_table_num(t, 8, c->ratio, 3);
		gm_table_text(t, 9, "%s", isfinite(c->ratio) ?
			      (c->differs ? "yes" : "no") : "n/a");
		if (c->differs) {
			differ++;
			if (!last_wl || strcmp(last_wl, c->workload)) {
				wl_differ++;
			}
			last_wl = c->workload;
		}
	}
	if (!a->ncoruns) {
		gm_table_caption(t, "No co-runs in the database: `gpumix corun` (or"
				 " a study's `corun` key) runs the original"
				 " programs together and measures them.");
		return;
	}
	gm_table_caption(t, "Native: a program's GPU section when the workload's"
			 " original programs run together as processes under"
			 " the mechanism (gpumix corun) over its sections alone;"
			 " mean and standard deviation over the runs. Replayed:"
			 " its one-shot replay time under the variant of that"
			 " name over its one-shot `%s` time (runs with"
			 " replay.one_shot = 1), mean over their repetitions."
			 " %zu of %zu rows, in %zu workload%s, differ by more"
			 " than 5%%.", a->alone_variant, differ, a->ncoruns,
			 wl_differ, wl_differ == 1 ? "" : "s");
}
