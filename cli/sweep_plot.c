/* SPDX-License-Identifier: MIT */
/*
 * The figures of `gpumix sweep --run` (sweep_plot.h): a gnuplot script
 * over DIR/points.csv, run in DIR.
 */
#include "sweep_plot.h"

#include <stdlib.h>
#include <string.h>

#include "atomic_file.h"
#include "error.h"
#include "gnuplot_program.h"
#include "fs.h"
#include "run_command.h"
#include "strbuf.h"

int gm_sweep_plot(const char *dir, const struct gm_sweep_points *pts)
{
	struct strbuf gp = STRBUF_INIT;
	const char *gnuplot = gm_gnuplot_program();
	int ret = -1;

	strbuf_addstr(&gp, "set terminal pngcairo size 900,560\n"
		      "set datafile separator ','\nset ylabel 'time (ms)'\n"
		      "set key outside right\nset grid\n");
	for (size_t i = 0; i < pts->nr; i++) {
		const struct gm_sweep_row *r = &pts->rows[i];
		int seen = 0, first = 1;
		for (size_t j = 0; j < i && !seen; j++) {
			seen = !strcmp(pts->rows[j].program, r->program) &&
			       !strcmp(pts->rows[j].axis, r->axis);
		}
		if (seen) {
			continue;
		}
		strbuf_addf(&gp, "set output 'sweep-%s-%s.png'\nset title "
			    "'%s: time against %s'\nset xlabel '%s'\nplot",
			    r->program, r->axis, r->program, r->axis,
			    !strcmp(r->axis, "smem") ? "dynamic shared memory "
						      "added (bytes)" :
			    !strcmp(r->axis, "regs") ? "registers per thread "
						      "(cap)" :
						      "blocks per SM (elastic)");
		for (size_t j = 0; j < pts->nr; j++) {
			const struct gm_sweep_row *e = &pts->rows[j];
			int dup = 0;
			if (strcmp(e->program, r->program) ||
			    strcmp(e->axis, r->axis)) {
				continue;
			}
			for (size_t q = 0; q < j && !dup; q++) {
				dup = !strcmp(pts->rows[q].program, r->program) &&
				      !strcmp(pts->rows[q].axis, r->axis) &&
				      !strcmp(pts->rows[q].kernel, e->kernel);
			}
			if (dup) {
				continue;
			}
			strbuf_addf(&gp, "%s 'points.csv' using (strcol(1) eq "
				    "'%s' && strcol(2) eq '%s' && strcol(3) eq "
				    "'%s' ? $4 : NaN):5 smooth unique with "
				    "linespoints title '%s' noenhanced",
				    first ? "" : ",", r->program, e->kernel,
				    r->axis, e->kernel);
			first = 0;
		}
		strbuf_addstr(&gp, "\n");
	}
	{
		char *path = gm_path_join(dir, "sweep.gp");
		int bad = gm_write_file_atomic(path, gp.buf, gp.len, 1) < 0;
		free(path);
		if (bad) {
			goto out;
		}
	}
	{
		char *argv[] = { (char *)gnuplot, "sweep.gp", NULL };
		struct gm_run_command cmd = { .argv = argv, .search_path = 1,
					      .cwd = dir };
		struct gm_run_result r;
		char *log = gm_path_join(dir, "gnuplot.log");
		int bad;
		cmd.output = log;
		bad = gm_run_command(&cmd, &r, NULL, NULL) < 0 ||
		      r.signal || r.exit_code;
		free(log);
		if (bad) {
			gm_error("gnuplot failed (see '%s/gnuplot.log')",
				 dir);
			goto out;
		}
	}
	ret = 0;
out:
	strbuf_release(&gp);
	return ret;
}

