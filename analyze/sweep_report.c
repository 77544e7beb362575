/* SPDX-License-Identifier: MIT */
/*
 * Ranges and cliffs of a sweep's points as tables (sweep_report.h): the
 * points borrowed into the detector's measures, its cliffs written.
 */
#include "sweep_report.h"

#include <stdlib.h>
#include <string.h>

#include "error.h"
#include "strbuf.h"
#include "sweep.h"

size_t gm_sweep_report(const struct gm_sweep_points *p, double threshold,
		       FILE *md, FILE *csv)
{
	struct gm_sweep_measure *m = gm_xcalloc(p->nr + 1, sizeof(*m));
	struct gm_sweep_cliff *c = NULL;
	size_t n = 0, nc = 0;

	for (size_t i = 0; i < p->nr; i++) {
		const struct gm_sweep_row *r = &p->rows[i];
		if (gm_sweep_axis_parse(r->axis, &m[n].axis) < 0) {
			continue;	/* (the reader let only axes in) */
		}
		m[n].program = r->program;
		m[n].kernel = r->kernel;
		m[n].value = r->value;
		m[n].time_ms = r->time_ms;
		m[n].blocks_per_sm = r->blocks_per_sm;
		m[n].limiting = r->limiting;
		n++;
	}
	gm_sweep_cliffs(m, n, threshold, &c, &nc);
	if (md) {
		fprintf(md, "## Performance range per kernel and axis\n\n"
			"| program | kernel | axis | points | best (ms) | "
			"worst (ms) | range (%%) |\n| --- | --- | --- | ---: | "
			"---: | ---: | ---: |\n");
		for (size_t i = 0; i < n;) {
			size_t j = i + 1;
			double best = m[i].time_ms, worst = m[i].time_ms;
			while (j < n && !strcmp(m[j].program, m[i].program) &&
			       !strcmp(m[j].kernel, m[i].kernel) &&
			       m[j].axis == m[i].axis) {
				best = m[j].time_ms < best ? m[j].time_ms : best;
				worst = m[j].time_ms > worst ? m[j].time_ms
							     : worst;
				j++;
			}
			fprintf(md, "| %s | %s | %s | %zu | %.3f | %.3f | %.1f |\n",
				m[i].program, m[i].kernel,
				gm_sweep_axis_name(m[i].axis), j - i, best, worst,
				100 * gm_sweep_range(m, i, j));
			i = j;
		}
		fprintf(md, "\n## Cliffs (a jump above %g%% where the blocks "
			"per SM change)\n\n| program | kernel | axis | from | "
			"to | time (ms) | jump (%%) | blocks/SM | binding |\n"
			"| --- | --- | --- | ---: | ---: | --- | ---: | --- | "
			"--- |\n", 100 * threshold);
	}
	if (csv) {
		fprintf(csv, "%s\n", GM_SWEEP_CLIFFS_HEADER);
	}
	for (size_t i = 0; i < nc; i++) {
		const struct gm_sweep_measure *a = &m[c[i].from], *b = &m[c[i].to];
		const struct gm_sweep_measure *fewer =
			a->blocks_per_sm < b->blocks_per_sm ? a : b;
		const char *bind = *fewer->limiting ? fewer->limiting : "-";
		if (md) {
			fprintf(md, "| %s | %s | %s | %ld | %ld | %.3f -> %.3f | "
				"%.1f | %d -> %d | %s |\n", a->program,
				a->kernel, gm_sweep_axis_name(a->axis),
				a->value, b->value, a->time_ms, b->time_ms,
				100 * c[i].jump, a->blocks_per_sm,
				b->blocks_per_sm, bind);
		}
		if (csv) {
			fprintf(csv, "%s,%s,%s,%ld,%ld,%.6f,%.6f,%.3f,%d,%d,%s\n",
				a->program, a->kernel,
				gm_sweep_axis_name(a->axis), a->value, b->value,
				a->time_ms, b->time_ms, 100 * c[i].jump,
				a->blocks_per_sm, b->blocks_per_sm, bind);
		}
	}
	if (md && !nc) {
		fprintf(md, "(none)\n");
	}
	free(m);
	free(c);
	return nc;
}
